#!/usr/bin/env bash
# Readers beside writers, and the history list under a long-running reader (issue 21).
#
# One durable binlogd (sync_binlog=1, innodb_flush_log_at_trx_commit=1) on a fresh data
# directory, sysbench's 4 x 10 000 rows, over the Unix socket. Then, each point SECONDS long:
#   1. oltp_read_write at 64 threads alone;
#   2. oltp_read_only at 64 threads while oltp_write_only runs at 16 threads beside it: the
#      readers' TPS and p95 latency with and without the writers (readers never wait for
#      writers: their latency should move only with the shared CPU);
#   3. oltp_write_only at 16 threads while one session holds a REPEATABLE READ snapshot open
#      for the whole run: `Innodb_history_list_length` sampled each second (it grows while the
#      view is open), then sampled after the view ends (purge returns it towards 0).
# Usage: bench/consistent-reads.sh [seconds]   (default 10). Env: BIN (a binlogd binary instead
# of building target/release/binlogd), PORT (default 33181).
set -euo pipefail

seconds=${1:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v sysbench >/dev/null || ! command -v mariadb >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench mariadb-client >/dev/null
fi
bin=${BIN:-}
if [ -z "$bin" ]; then
    (cd "$here" && cargo build --release -q -p binlogd)
    bin=$here/target/release/binlogd
fi
port=${PORT:-33181}
work=$(mktemp -d "$here/.consistent-reads-XXXXXX")
pid=
cleanup() {
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
"$bin" serve --datadir="$work/data" --port="$port" --initialize-insecure --sync-binlog=1 \
    --innodb-flush-log-at-trx-commit=1 --max-connections=2000 >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    grep -q "ready for connections" "$work/log" && break
    sleep 0.1
done
sql() { mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" -uroot -N -B -e "$1"; }
sql "CREATE DATABASE sbtest"
conn=(--db-driver=mysql --mysql-socket="$work/data/mysql.sock" --mysql-user=root
    --mysql-db=sbtest --tables=4 --table-size=10000)
sysbench oltp_read_write "${conn[@]}" prepare >/dev/null
# run WORKLOAD THREADS: one line "tps p95_ms".
run() {
    sysbench "$1" "${conn[@]}" --threads="$2" --time="$seconds" --report-interval=0 run \
        | awk '/transactions:/ {gsub("\\(","",$3); tps=$3}
               /95th percentile:/ {p95=$3} END {printf "%.0f %s\n", tps, p95}'
}
history() { sql "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'" | cut -f2; }
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "oltp_read_write threads=64 alone: tps p95_ms = $(run oltp_read_write 64)"
echo "oltp_read_only threads=64 alone: tps p95_ms = $(run oltp_read_only 64)"
run oltp_write_only 16 >"$work/writers" &
w=$!
echo "oltp_read_only threads=64 beside oltp_write_only threads=16: tps p95_ms = $(run oltp_read_only 64)"
wait "$w"
echo "  (the writers: tps p95_ms = $(cat "$work/writers"))"
# A long-running reader: a consistent snapshot held open for the whole write run.
{
    echo "START TRANSACTION WITH CONSISTENT SNAPSHOT; SELECT COUNT(*) FROM sbtest1;"
    sleep $((seconds + 2))
    echo "SELECT COUNT(*) FROM sbtest1; COMMIT;"
} | mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" -uroot -N -B sbtest \
    >"$work/reader" &
r=$!
sleep 1
run oltp_write_only 16 >"$work/writers" &
w=$!
samples=()
for _ in $(seq "$seconds"); do
    sleep 1
    samples+=("$(history)")
done
wait "$w"
echo "oltp_write_only threads=16 under a snapshot held ${seconds}+ s: tps p95_ms = $(cat "$work/writers")"
echo "  Innodb_history_list_length each second: ${samples[*]}"
wait "$r"
echo "  the reader's two counts (equal: one snapshot): $(tr '\n' ' ' <"$work/reader")"
after=()
for _ in 1 2 3; do
    sleep 1
    after+=("$(history)")
done
echo "  after the reader committed, each second: ${after[*]}"
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg)"
