#!/usr/bin/env bash
# Do many dump threads reading the binlog slow commits? (issue 5: "measure it")
#
# One `binlogd serve` (durable: sync_binlog=1, flush at commit=1) takes a sysbench
# oltp_update_non_index load while 0, 8 and 32 binlog readers follow it from *other processes*
# (bench/dump_reader.c, built here with cc: COM_BINLOG_DUMP, then one recv() per wake-up and a
# running hash of the bytes — a client as cheap as a real one can be, so the server's side is
# what is measured; `mariadb-binlog --read-from-remote-server` refuses a server whose version
# starts with 8). For each reader
# count it prints the commit rate and how the server's CPU time split between the dump threads
# (named binlog-dump-N) and everything else, from /proc/PID/task/*/stat, the server's CPU per
# transaction, and what each extra reader costs per transaction (against the 0-reader point).
# It also checks that every reader received every byte: after the load it lets them drain for
# a second, then a non-blocking dump from the same start position (dump_reader NONBLOCK=1)
# receives everything there is; each reader's byte count and hash must equal the reference's
# (its EOF packet excluded): "readers exact" counts those that do, "bytes short" is how far the
# slowest reader was behind, with the binlog bytes the point wrote.
# Replication delay: readers 1, 9, 17, 25 (one in 8, so that the others stay as cheap as they
# were) note, for each GTID event they receive, its arrival time minus
# the event's immediate_commit_timestamp (taken by the server as the group's flush stage encodes
# it, before the binlog write and fdatasync; see dump_reader.c); the last column gives the
# percentiles over those readers' transactions (ms): how late a reader sees a commit.
#
# Usage: bench/dump-readers.sh [seconds] [sysbench threads] [reader counts...]
#        (defaults: 10 16 0 8 32). BIN: a binlogd binary (default: build target/release).
#        RATE=N: a fixed commit rate (sysbench --rate=N) so every point does the same work
#        and the server's CPU per transaction compares directly (with a free-running load,
#        fewer commits/s also means smaller groups and more CPU per commit).
#        READER_CPUS=LIST: run the readers under `taskset -c LIST` (e.g. 1), so that their
#        CPU is bounded to those cores; the server's CPU is reported separately either way.
#        READER_WRAP="CMD ARGS": run each reader under CMD (e.g. "chrt --idle 0", "nice -n 19"):
#        a diagnostic that separates the readers' own use of the cores from the server's work.
#        READER_SOCKET=1: the readers connect over the server's Unix socket instead of
#        127.0.0.1 (on loopback TCP the receiving side's TCP processing runs in the sending
#        thread's system call, so it is billed to the server's binlog-tail thread; a replica on
#        another host would do that work on its own host. The Unix socket's receive side is a
#        queue append and a wake-up: closer to what a remote reader costs the server.)
#        SERVER_CPUS=LIST: run the server and sysbench under `taskset -c LIST` (with
#        READER_CPUS on the other core: a proxy for readers on another machine).
#        THREADS=FILE: append, per point, the server's CPU (user/system ticks) and context
#        switches (voluntary/involuntary) per thread name, and the readers' context switches.
#        PERF=DIR: record a call-graph profile of the server (perf record -g, 5 s) during the
#        last point into DIR/perf.data.
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
command -v cc >/dev/null 2>&1 || need+=(gcc)
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
cc -O2 -o "$work/dump_reader" "$here/bench/dump_reader.c"
pin=()
[ -n "${READER_CPUS:-}" ] && pin=(taskset -c "$READER_CPUS")
# shellcheck disable=SC2206 # a command and its arguments
[ -n "${READER_WRAP:-}" ] && pin+=($READER_WRAP)
transport=TCP
if [ -n "${READER_SOCKET:-}" ]; then
    export DUMP_SOCKET="$work/data/mysql.sock"
    transport="the Unix socket"
fi
spin=()
[ -n "${SERVER_CPUS:-}" ] && spin=(taskset -c "$SERVER_CPUS")
"${spin[@]}" "$bin" serve --datadir="$work/data" --port="$port" --initialize-insecure --sync-binlog=1 \
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
# CPU ticks (utime+stime): the dump threads' and the shared tail's (live ones, named
# binlog-dump* and binlog-tail) and the rest of the process (its total, which keeps the ticks
# of threads that exited, minus those).
cpu() {
    local d=0 all f name t
    for f in /proc/"$server"/task/*; do
        name=$(cat "$f/comm" 2>/dev/null) || continue
        t=$(awk '{print $14 + $15}' "$f/stat" 2>/dev/null) || continue
        case $name in binlog-dump* | binlog-tail) d=$((d + t)) ;; esac
    done
    all=$(awk '{print $14 + $15}' /proc/"$server"/stat)
    echo "$d $((all - d))"
}
# Per thread name: utime, stime (ticks), voluntary and involuntary context switches (summed
# over the live threads of that name), one line each; then the readers' switches.
threads() {
    local f name
    for f in /proc/"$server"/task/*; do
        name=$(cat "$f/comm" 2>/dev/null) || continue
        case $name in binlog-dump*) name=binlog-dump ;; esac
        echo "$name $(awk '{print $14, $15}' "$f/stat" 2>/dev/null) $(awk '/^(non)?voluntary_ctxt/ {printf "%s ", $2}' "$f/status" 2>/dev/null)"
    done | awk '{u[$1] += $2; s[$1] += $3; v[$1] += $4; n[$1] += $5} END {for (k in u) print k, u[k], s[k], v[k], n[k]}'
    local v=0 n=0 a b
    for p in "${pids[@]}"; do
        read -r a b < <(awk '/^voluntary_ctxt/ {v = $2} /^nonvoluntary_ctxt/ {n = $2} END {print v + 0, n + 0}' \
            /proc/"$p"/status 2>/dev/null) || continue
        v=$((v + a)) n=$((n + b))
    done
    echo "readers 0 0 $v $n"
    # The whole machine: idle (idle + iowait) and softirq ticks, and all context switches.
    awk '/^cpu / {print "machine-idle", $5 + $6, $8, 0, 0} /^ctxt/ {print "machine-ctxt 0 0", $2, 0}' /proc/stat
}
echo "binlogd dump readers vs commits: sysbench oltp_update_non_index, $threads threads, ${secs}s per point, rate ${RATE:-free}, readers on cpus ${READER_CPUS:-any} over $transport, $(nproc) cores"
printf '| readers | TPS | p95 ms | server CPU s, dump threads + tail | server CPU s, the rest | server CPU µs/trx | µs/trx per reader | binlog bytes | readers exact | slowest reader bytes short | reader processes CPU s | load avg at start | commit→reader ms p50/p95/p99/max |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n'
base=
for n in "${counts[@]}"; do
    pids=()
    # Readers start at the current end, as replicas that are caught up: the point measures
    # following new commits, not reading the backlog of the earlier points.
    read -r file pos < <(mariadb --no-defaults --skip-ssl -h127.0.0.1 -P"$port" -uroot -N \
        -e 'SHOW MASTER STATUS' | cut -f1,2)
    for r in $(seq "$n"); do
        delays=()
        [ $((r % 8)) -eq 1 ] && delays=("$raw/$n-$r.delays")
        "${pin[@]}" "$work/dump_reader" "$port" $((100 + r)) "$file" "$pos" 0 \
            "$raw/$n-$r.ready" "${delays[@]}" >"$raw/$n-$r.out" 2>"$raw/$n-$r.err" &
        pids+=($!)
    done
    # The readers start and ask for their dumps before the load begins; then they only receive.
    for _ in $(seq 300); do
        [ "$(ls "$raw" | grep -c "^$n-.*\.ready$")" -ge "$n" ] && break
        sleep 0.1
    done
    sleep 1
    rcpu0=0
    for p in "${pids[@]}"; do
        t=$(awk '{print $14 + $15}' /proc/"$p"/stat 2>/dev/null) || t=0
        rcpu0=$((rcpu0 + t))
    done
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    read -r d0 o0 < <(cpu)
    [ -n "${THREADS:-}" ] && threads >"$raw/threads0"
    if [ -n "${PERF:-}" ] && [ "$n" = "${counts[-1]}" ]; then
        mkdir -p "$PERF"
        (sleep 2; perf record -q -g -p "$server" -o "$PERF/perf.data" -- sleep 5 >/dev/null 2>&1) &
    fi
    read -r trx tps p95 < <("${spin[@]}" sysbench oltp_update_non_index "${sb[@]}" --threads="$threads" --time="$secs" \
        ${RATE:+--rate="$RATE"} run |
        awk '/transactions:/ {gsub(/\(/, "", $3); t = $2; r = $3} /95th percentile:/ {p = $3}
             END {print t, r, p}')
    read -r d1 o1 < <(cpu)
    [ -n "${THREADS:-}" ] && threads >"$raw/threads1"
    # The reader processes' CPU during the load (client side: their share of the 2 cores is not the
    # server's cost, but on one machine it is taken from the commits too).
    rcpu=$((-rcpu0))
    for p in "${pids[@]}"; do
        t=$(awk '{print $14 + $15}' /proc/"$p"/stat 2>/dev/null) || t=0
        rcpu=$((rcpu + t))
    done
    sleep 1 # the readers drain what was synced last
    read -r _ endpos < <(mariadb --no-defaults --skip-ssl -h127.0.0.1 -P"$port" -uroot -N \
        -e 'SHOW MASTER STATUS' | cut -f1,2)
    read -r ref refhash < <("$work/dump_reader" "$port" 99 "$file" "$pos" 1)
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
    [ "$alive" -eq "$n" ] || { echo "only $alive of $n readers still running:" >&2; cat "$raw"/*.err >&2; exit 1; }
    short=-
    exact=0
    for r in $(seq "$n"); do
        p=${pids[$((r - 1))]}
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
        read -r got hash <"$raw/$n-$r.out" || got=0
        [ -n "$got" ] || got=0
        [ "$got" = "$ref" ] && [ "$hash" = "$refhash" ] && exact=$((exact + 1))
        s=$((ref - got))
        { [ "$short" = - ] || [ "$s" -gt "$short" ]; } && short=$s
    done
    delay=-
    if [ "$n" -gt 0 ]; then
        delay=$(cat "$raw/$n"-*.delays | sort -n | awk '{d[NR] = $1}
            END {if (NR == 0) {print "none"; exit}
                 split("0.50 0.95 0.99", f, " ")
                 for (i = 1; i <= 3; i++) {k = int(f[i] * NR); if (k < 1) k = 1; printf "%.1f/", d[k] / 1000}
                 printf "%.1f (%d)\n", d[NR] / 1000, NR}')
    fi
    if [ -n "${THREADS:-}" ]; then
        echo "# $n readers, $trx transactions in ${secs}s: thread, user s, system s, voluntary/s, involuntary/s, CPU µs/trx" >>"$THREADS"
        awk -v clk="$clk" -v secs="$secs" -v trx="$trx" 'NR == FNR {u[$1] = $2; s[$1] = $3; v[$1] = $4; n[$1] = $5; next}
            {printf "%-18s %6.2f %6.2f %8.0f %8.0f %6.1f\n", $1, ($2 - u[$1]) / clk, ($3 - s[$1]) / clk,
                ($4 - v[$1]) / secs, ($5 - n[$1]) / secs, ($2 - u[$1] + $3 - s[$1]) / clk * 1e6 / trx}' \
            "$raw/threads0" "$raw/threads1" | sort >>"$THREADS"
    fi
    cpus=$(echo "($d1 - $d0 + $o1 - $o0) / $clk" | bc -l)
    per=$(echo "$cpus * 1000000 / $trx" | bc -l)
    [ "$n" -eq 0 ] && base=$per
    each=-
    [ "$n" -gt 0 ] && [ -n "$base" ] && each=$(printf '%.2f' "$(echo "($per - $base) / $n" | bc -l)")
    printf '| %d | %s | %s | %.2f | %.2f | %.1f | %s | %d | %d/%d | %s | %.2f | %s | %s |\n' "$n" "$tps" "$p95" \
        "$(echo "($d1 - $d0) / $clk" | bc -l)" "$(echo "($o1 - $o0) / $clk" | bc -l)" "$per" \
        "$each" $((endpos - pos)) "$exact" "$n" "$short" "$(echo "$rcpu / $clk" | bc -l)" "$load" \
        "$delay"
done
