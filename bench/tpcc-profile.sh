#!/usr/bin/env bash
# CPU per go-tpc TPC-C transaction of one `binlogd serve` (durable: sync_binlog=1,
# innodb_flush_log_at_trx_commit=1, classic mode unless MODE=inredo), with an optional
# call-graph profile (perf record -g) of each run. Loads WAREHOUSES warehouses once
# (go-tpc prepare --no-check), then runs go-tpc for SECONDS at each thread count and prints
# tpmC, transactions, errors and the server's utime+stime per transaction (/proc/PID/stat),
# and the background checkpoint thread's share of it and the bytes it wrote (/proc/PID/task).
#
# Usage: bench/tpcc-profile.sh [seconds] [threads...]        (defaults: 20, 1 8)
# Env: BIN=binlogd binary (default target/release/binlogd), WAREHOUSES=2, MODE=classic|inredo,
#      PERF=0|1 (perf record over the run, data in OUT; CALLGRAPH=fp|dwarf,16384, FREQ=999:
#      the release binary has no frame pointers, so only dwarf gives whole stacks), OUT=directory for perf data
#      (default bench/results/tpcc-profile-<UTC time>), WORKDIR=where the data directory goes
#      (default /tmp), PORT=33271. go-tpc comes from crates/binlogd/tests/drivers/install.sh.
set -euo pipefail

seconds=${1:-20}
shift || true
threads=${*:-"1 8"}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$here/target/release/binlogd}
wh=${WAREHOUSES:-2}
port=${PORT:-33271}
out=${OUT:-$here/bench/results/tpcc-profile-$(date -u +%Y%m%dT%H%MZ)}
bash "$here/crates/binlogd/tests/drivers/install.sh" "$here/target" gotpc >/dev/null
gotpc=$here/target/drivers/go-tpc
work=$(mktemp -d "${WORKDIR:-/tmp}/.tpcc-profile-XXXXXX")
server=
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=bench/binlogd-server.sh
. "$here/bench/binlogd-server.sh"
start_binlogd "$bin" "$work" "$port" tpcc
g=("$gotpc" tpcc -H 127.0.0.1 -P "$port" -U root -D tpcc --warehouses "$wh")
"${g[@]}" prepare -T 2 --no-check >"$work/prepare.log" 2>&1 || { tail "$work/prepare.log"; exit 1; }
ticks() { awk '{print $14 + $15}' /proc/"$server"/stat; }
# The engine's background checkpoint thread ("engine-checkpoint", cut to 15 characters by the
# kernel): its CPU ticks and the bytes it wrote to storage, and the whole server's bytes.
ckpt_task() { grep -l '^engine-checkpoi$' /proc/"$server"/task/*/comm | head -1 | xargs dirname; }
ckpt_ticks() { awk '{print $14 + $15}' "$(ckpt_task)"/stat; }
ckpt_bytes() { awk '/^write_bytes/ {print $2}' "$(ckpt_task)"/io; }
server_bytes() { awk '/^write_bytes/ {print $2}' /proc/"$server"/io; }
hz=$(getconf CLK_TCK)
echo "# $(date -u +%FT%TZ) bin=$bin mode=${MODE:-classic} load: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in $threads; do
    rec=
    if [ "${PERF:-0}" = 1 ]; then
        mkdir -p "$out"
        ( sleep 2; exec perf record --call-graph "${CALLGRAPH:-fp}" -F "${FREQ:-999}" -o "$out/perf-$t.data" -p "$server" \
            -- sleep $((seconds - 4)) ) >/dev/null 2>&1 &
        rec=$!
    fi
    c0=$(ticks) k0=$(ckpt_ticks) b0=$(ckpt_bytes) w0=$(server_bytes)
    res=$("${g[@]}" run -T "$t" --time "${seconds}s" --interval "${seconds}s" --ignore-error 2>&1)
    c1=$(ticks) k1=$(ckpt_ticks) b1=$(ckpt_bytes) w1=$(server_bytes)
    [ -n "$rec" ] && wait "$rec"
    echo "$res" | awk -v t="$t" -v c=$((c1 - c0)) -v hz="$hz" -v k=$((k1 - k0)) \
        -v kb=$((b1 - b0)) -v wb=$((w1 - w0)) \
        -v la="$(cut -d' ' -f1 /proc/loadavg)" '
        /^tpmC:/ { tpmc = $2 }
        /^\[Summary\]/ { n = $0; sub(/.*Count: /, "", n); sub(/,.*/, "", n)
                         if ($2 ~ /_ERR$/) err += n; else txns += n }
        END { printf "threads=%s tpmC=%s txns=%d errors=%d cpu_ms/txn=%.2f ckpt_cpu_ms/txn=%.3f ckpt_share=%.1f%% ckpt_MB=%.1f ckpt_KB/txn=%.2f server_write_MB=%.1f load=%s\n",
                     t, tpmc, txns, err, txns ? c * 1000 / hz / txns : 0,
                     txns ? k * 1000 / hz / txns : 0, c ? 100 * k / c : 0, kb / 1e6,
                     txns ? kb / 1024 / txns : 0, wb / 1e6, la }'
done
