#!/usr/bin/env bash
# Smoke benchmark: sysbench oltp_update_non_index for a few seconds against `binlogd serve`
# with durable settings (sync_binlog=1, innodb_flush_log_at_trx_commit=1), 4 tables x 10 000
# rows as the design brief's anchor (docs/design-brief.md). Prints sysbench's summary per thread
# count; not a timed test.
# The side-by-side comparison with MariaDB (issue 6) is separate: bench/mariadb-anchor.sh.
#
# Usage: bench/sysbench-smoke.sh [seconds] [threads...]   (defaults: 5, then 1 4 64)
set -euo pipefail

seconds=${1:-5}
shift || true
threads=${*:-"1 4 64"}
port=${PORT:-33061}
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v sysbench >/dev/null || ! command -v mariadb >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench mariadb-client >/dev/null
fi
work=$(mktemp -d "$here/.sysbench-smoke-XXXXXX")
server=
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cargo build --release -q -p binlogd --manifest-path "$here/Cargo.toml"
"$here/target/release/binlogd" serve --datadir="$work/data" --port="$port" \
    --initialize-insecure --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
    --max-connections=2000 >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    grep -q "ready for connections" "$work/server.log" && break
    sleep 0.1
done

client=(mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" -uroot)
"${client[@]}" -e "CREATE DATABASE sbtest"
common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root
    --mysql-db=sbtest --tables=4 --table-size=10000)
sysbench oltp_update_non_index "${common[@]}" prepare >/dev/null
for t in $threads; do
    r=$(sysbench oltp_update_non_index "${common[@]}" --threads="$t" --time="$seconds" \
        --report-interval=0 run)
    tps=$(echo "$r" | awk '/transactions:/ {gsub("\\(","",$3); print $3}')
    p95=$(echo "$r" | awk '/95th percentile:/ {print $3}')
    errors=$(echo "$r" | awk '/ignored errors:/ {print $3}')
    echo "binlogd oltp_update_non_index threads=$t tps=$tps p95_ms=$p95 ignored_errors=$errors"
done
