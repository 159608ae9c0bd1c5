#!/usr/bin/env bash
# CPU per go-tpc TPC-C transaction of one `binlogd serve` (durable: sync_binlog=1,
# innodb_flush_log_at_trx_commit=1, classic mode unless MODE=inredo), with an optional
# call-graph profile (perf record -g) of each run. Loads WAREHOUSES warehouses once
# (go-tpc prepare --no-check), then runs go-tpc for SECONDS at each thread count and prints
# tpmC, transactions, errors and the server's utime+stime per transaction (/proc/PID/stat).
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
    c0=$(ticks)
    res=$("${g[@]}" run -T "$t" --time "${seconds}s" --interval "${seconds}s" --ignore-error 2>&1)
    c1=$(ticks)
    [ -n "$rec" ] && wait "$rec"
    echo "$res" | awk -v t="$t" -v c=$((c1 - c0)) -v hz="$hz" \
        -v la="$(cut -d' ' -f1 /proc/loadavg)" '
        /^tpmC:/ { tpmc = $2 }
        /^\[Summary\]/ { n = $0; sub(/.*Count: /, "", n); sub(/,.*/, "", n)
                         if ($2 ~ /_ERR$/) err += n; else txns += n }
        END { printf "threads=%s tpmC=%s txns=%d errors=%d cpu_ms/txn=%.2f load=%s\n",
                     t, tpmc, txns, err, txns ? c * 1000 / hz / txns : 0, la }'
done
