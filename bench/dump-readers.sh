#!/usr/bin/env bash
# Do many dump threads reading the binlog slow commits? (issue 5: "measure it")
#
# One `binlogd serve` (durable: sync_binlog=1, flush at commit=1) takes a sysbench
# oltp_update_non_index load while 0, 8 and 32 binlog readers follow it from *other processes*
# (bench/dump_reader.py: COM_BINLOG_DUMP, then it only receives bytes — the cheapest client
# there is, so the server's side is what is measured). For each reader
# count it prints the commit rate and how the server's CPU time split between the dump threads
# (named binlog-dump-N) and everything else, from /proc/PID/task/*/stat.
#
# Usage: bench/dump-readers.sh [seconds] [sysbench threads] [reader counts...]
#        (defaults: 10 16 0 8 32). BIN: a binlogd binary (default: build target/release).
# Everything listens on 127.0.0.1; every run is bounded by [seconds].
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-10}
threads=${2:-16}
shift $(($# > 2 ? 2 : $#))
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(0 8 32)
need=()
command -v sysbench >/dev/null 2>&1 || need+=(sysbench)
command -v mariadb >/dev/null 2>&1 || need+=(mariadb-client)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
bin=${BIN:-}
if [ -z "$bin" ]; then
    cargo build --release -q -p binlogd --manifest-path "$here/Cargo.toml"
    bin="$here/target/release/binlogd"
fi
work=$(mktemp -d /tmp/dump-readers-XXXXXX)
raw=$(mktemp -d /dev/shm/dump-readers-XXXXXX)
port=${PORT:-33271}
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "${server:-}" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$work" "$raw"
}
trap cleanup EXIT
"$bin" serve --datadir="$work/data" --port="$port" --initialize-insecure --sync-binlog=1 \
    --innodb-flush-log-at-trx-commit=1 --max-connections=1000 >"$work/log" 2>&1 &
server=$!
for _ in $(seq 100); do
    mariadb --no-defaults --skip-ssl -h127.0.0.1 -P"$port" -uroot -e 'select 1' >/dev/null 2>&1 && break
    sleep 0.1
done
mariadb --no-defaults --skip-ssl -h127.0.0.1 -P"$port" -uroot -e 'CREATE DATABASE sbtest'
sb=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root
    --mysql-db=sbtest --tables=4 --table-size=10000 --report-interval=0 --rand-type=uniform)
sysbench oltp_update_non_index "${sb[@]}" prepare >/dev/null
clk=$(getconf CLK_TCK)
# CPU ticks (utime+stime) of the server's threads: "dump other".
cpu() {
    local d=0 o=0 f name t
    for f in /proc/"$server"/task/*; do
        name=$(cat "$f/comm" 2>/dev/null) || continue
        t=$(awk '{print $14 + $15}' "$f/stat" 2>/dev/null) || continue
        case $name in binlog-dump*) d=$((d + t)) ;; *) o=$((o + t)) ;; esac
    done
    echo "$d $o"
}
echo "binlogd dump readers vs commits: sysbench oltp_update_non_index, $threads threads, ${secs}s per point, $(nproc) cores"
printf '| readers | TPS | server CPU s, dump threads | server CPU s, the rest | load avg at start |\n|---:|---:|---:|---:|---|\n'
for n in "${counts[@]}"; do
    pids=()
    # Readers start at the current end, as replicas that are caught up: the point measures
    # following new commits, not reading the backlog of the earlier points.
    read -r file pos < <(mariadb --no-defaults --skip-ssl -h127.0.0.1 -P"$port" -uroot -N \
        -e 'SHOW MASTER STATUS' | cut -f1,2)
    for r in $(seq "$n"); do
        python3 "$here/bench/dump_reader.py" "$port" $((100 + r)) "$file" "$pos" >/dev/null \
            2>"$raw/$n-$r.err" &
        pids+=($!)
    done
    sleep 1 # the readers connect
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    read -r d0 o0 < <(cpu)
    tps=$(sysbench oltp_update_non_index "${sb[@]}" --threads="$threads" --time="$secs" run |
        awk '/transactions:/ {gsub(/\(/, "", $3); print $3}')
    read -r d1 o1 < <(cpu)
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
    [ "$alive" -eq "$n" ] || { echo "only $alive of $n readers still running:" >&2; cat "$raw"/*.err >&2; exit 1; }
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    printf '| %d | %s | %.2f | %.2f | %s |\n' "$n" "$tps" "$(echo "($d1 - $d0) / $clk" | bc -l)" \
        "$(echo "($o1 - $o0) / $clk" | bc -l)" "$load"
done
