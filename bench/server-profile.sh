#!/usr/bin/env bash
# Per-transaction cost of `binlogd serve` under sysbench oltp_update_non_index (durable:
# sync_binlog=1, innodb_flush_log_at_trx_commit=1; 4 tables x 10 000 rows), one server, the
# given thread counts, REPEAT runs each. For every run it prints TPS and, from the server's
# /proc counters over the run (all its threads, live at the end), CPU µs and context switches
# per transaction, plus the server's thread count. With PERF=1 it also records a call-graph
# profile of the server during the last run of each thread count (perf record -g) and prints
# the top of `perf report --no-children`.
#
# Usage: bench/server-profile.sh [seconds] [threads...]      (defaults: 10, 1 1024)
# Env: WORKLOAD=the sysbench test (default oltp_update_non_index; its tables are the same), SB_EXTRA=extra sysbench options (e.g. --rand-type=uniform), MODE=classic|inredo (default classic), REPEAT=3, PERF=0|1, BIN=path to binlogd
#      (default target/release/binlogd, built if missing), OUT=directory for perf data
#      (default bench/results/profile-<UTC time>), WORKDIR=where the data directory goes
#      (default the worktree; /dev/shm takes the disk out: fsyncs on tmpfs cost nothing, so
#      TPS shows the server layer and the client alone).
set -euo pipefail

seconds=${1:-10}
shift || true
threads=${*:-"1 1024"}
mode=${MODE:-classic}
repeat=${REPEAT:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$here/target/release/binlogd}
out=${OUT:-$here/bench/results/profile-$(date -u +%Y%m%dT%H%MZ)-$mode}
port=${PORT:-33261}
[ -x "$bin" ] || cargo build --release -q -p binlogd --manifest-path "$here/Cargo.toml"
work=$(mktemp -d "${WORKDIR:-$here}/.server-profile-XXXXXX")
server=
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=bench/binlogd-server.sh
. "$here/bench/binlogd-server.sh"
start_binlogd "$bin" "$work" "$port" sbtest
sb=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root
    --mysql-db=sbtest --tables=4 --table-size=10000 --report-interval=0 ${SB_EXTRA:-})
sysbench "${WORKLOAD:-oltp_update_non_index}" "${sb[@]}" prepare >/dev/null

# Sum of voluntary + involuntary context switches over the server's live threads.
switches() {
    cat /proc/"$server"/task/*/status 2>/dev/null \
        | awk '/^(voluntary|nonvoluntary)_ctxt_switches/ {s += $2} END {print s + 0}'
}
# utime + stime of the whole process, in clock ticks.
ticks() { awk '{print $14 + $15}' /proc/"$server"/stat; }
hz=$(getconf CLK_TCK)

echo "# $(date -u +%FT%TZ) mode=$mode load: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in $threads; do
    for r in $(seq "$repeat"); do
        profile=
        if [ "${PERF:-0}" = 1 ] && [ "$r" = "$repeat" ]; then
            mkdir -p "$out"
            profile=$out/perf-$t.data
        fi
        s0=$(switches)
        c0=$(ticks)
        if [ -n "$profile" ]; then
            # Start recording once the connections are up (1 s in), stop before the end.
            ( sleep 1; exec perf record -g -F 999 -o "$profile" -p "$server" \
                -- sleep $((seconds - 2)) ) >/dev/null 2>&1 &
            rec=$!
        fi
        res=$(sysbench "${WORKLOAD:-oltp_update_non_index}" "${sb[@]}" --threads="$t" --time="$seconds" run)
        [ -n "$profile" ] && wait "$rec"
        s1=$(switches)
        c1=$(ticks)
        txns=$(echo "$res" | awk '/transactions:/ {print $2}')
        tps=$(echo "$res" | awk '/transactions:/ {gsub("\\(","",$3); printf "%.0f", $3}')
        p95=$(echo "$res" | awk '/95th percentile:/ {print $3}')
        errors=$(echo "$res" | awk '/ignored errors:/ {print $3}')
        nthreads=$(ls /proc/"$server"/task | wc -l)
        awk -v t="$t" -v r="$r" -v tps="$tps" -v p95="$p95" -v n="$txns" -v s=$((s1 - s0)) \
            -v c=$((c1 - c0)) -v hz="$hz" -v th="$nthreads" -v e="$errors" \
            -v la="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
            printf "threads=%s run=%s tps=%s p95_ms=%s cpu_us/txn=%.1f cswitch/txn=%.2f server_threads=%s errors=%s load=%s\n",
                t, r, tps, p95, c * 1e6 / hz / n, s / n, th, e, la }'
        if [ -n "$profile" ]; then
            perf report -i "$profile" --no-children --stdio --percent-limit 1.5 -g none \
                2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
        fi
    done
done
echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
