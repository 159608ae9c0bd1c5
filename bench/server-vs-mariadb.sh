#!/usr/bin/env bash
# sysbench oltp_update_non_index against `binlogd serve` and MariaDB in the same run, one thread
# count at a time (all servers in turn, so they share the machine's noise): issue 4's benchmark.
#
# Servers, all started here on fresh data directories (4 tables x 10 000 rows, the design
# brief's anchor workload), all with max_connections >= 2000:
#   binlogd         durable: sync_binlog=1, innodb_flush_log_at_trx_commit=1 (classic 2PC)
#   binlogd-inredo  durable: the same plus binlog_in_redo=ON (one fsync per group)
#   mariadb         durable: bench/mariadb-anchor.sh (sync_binlog=1, flush=1)
#   mariadb-nd      non-durable: the same with SYNC_BINLOG=0 FLUSH=2
# Both servers are reached over their Unix sockets (MariaDB's is the anchor script's way; its
# root account authenticates by socket). TRANSPORT=tcp reaches binlogd over TCP 127.0.0.1
# instead (before 2026-11-22 18:00 UTC binlogd had no Unix socket and was always measured so).
#
# Usage: bench/server-vs-mariadb.sh [seconds] [threads...]   (defaults: 10, 1 16 64 256 1024)
# Env: WORKLOAD (the sysbench test run, default oltp_update_non_index; its tables are the same),
# SERVERS="binlogd binlogd-inredo mariadb mariadb-nd" (subset/order), BINLOGD_OPTS (extra
# options for both binlogd servers), BIN (a binlogd binary to use instead of building
# target/release/binlogd), BIN_B (a second binlogd binary, e.g. an earlier commit's, run as the
# servers binlogd-b and binlogd-b-inredo: an A/B in one run), PORT_BASE (ports PORT_BASE+1.. are used; default 33161), TRANSPORT
# (socket or tcp, for binlogd; default socket).
# Prints the device's durable-write latency (`binlogd bench fsync`'s depth-1 O_DIRECT+O_DSYNC
# 4 KiB write, the redo's default way, measured once in the run's directory before the servers
# start), then one line per server and thread count, then tables; `lat_vs_write` is sysbench's
# average transaction latency over that write latency (issue 22: a durable autocommit UPDATE
# should wait little more than one device write).
set -euo pipefail

seconds=${1:-10}
shift || true
threads=${*:-"1 16 64 256 1024"}
servers=${SERVERS:-"binlogd binlogd-inredo mariadb mariadb-nd"}
here=$(cd "$(dirname "$0")/.." && pwd)
anchor=${ANCHOR:-$here/bench/mariadb-anchor.sh}
if ! command -v sysbench >/dev/null || ! command -v mariadb >/dev/null \
    || ! command -v mariadbd >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench mariadb-client \
        mariadb-server >/dev/null
fi
work=$(mktemp -d "$here/.server-vs-mariadb-XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for d in "$work"/mdb-*; do
        [ -f "$d/pid" ] && kill "$(cat "$d/pid")" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

bin=${BIN:-$here/target/release/binlogd}
[ -n "${BIN:-}" ] || cargo build --release -q -p binlogd --manifest-path "$here/Cargo.toml"
sb=(--tables=4 --table-size=10000 --report-interval=0)
# The device's own durable-write latency, µs (mean of 4 KiB O_DIRECT|O_DSYNC writes, depth 1).
write_us=$("$bin" bench fsync --dir "$work/fsync" --count 1 --file-size 4K --depths 1 \
    --depth-seconds 3 2>/dev/null | awk -F'|' '$2 ~ /O_DSYNC write/ && $3 + 0 == 1 {print $6 + 0}')
echo "# device durable 4 KiB write: ${write_us:-?} µs (depth 1, binlogd bench fsync)"
declare -A conn server_pid
port=${PORT_BASE:-33161}
for s in $servers; do
    case $s in
    binlogd | binlogd-inredo | binlogd-b | binlogd-b-inredo)
        extra=()
        case $s in *-inredo) extra=(--binlog-in-redo=ON) ;; esac
        this_bin=$bin
        case $s in binlogd-b*) this_bin=${BIN_B:?BIN_B names the second binlogd binary} ;; esac
        port=$((port + 1))
        # shellcheck disable=SC2086
        "$this_bin" serve --datadir="$work/$s" --port="$port" \
            --initialize-insecure --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
            --max-connections=2000 "${extra[@]}" ${BINLOGD_OPTS:-} >"$work/$s.log" 2>&1 &
        pids+=($!)
        server_pid[$s]=$!
        # Up to 60 s: the first start generates the RSA key pair, slow on a loaded machine.
        for _ in $(seq 600); do
            grep -q "ready for connections" "$work/$s.log" && break
            sleep 0.1
        done
        mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" -uroot \
            -e "CREATE DATABASE sbtest"
        if [ "${TRANSPORT:-socket}" = tcp ]; then
            conn[$s]="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$port --mysql-user=root --mysql-db=sbtest"
        else
            conn[$s]="--db-driver=mysql --mysql-socket=$work/$s/mysql.sock --mysql-user=root --mysql-db=sbtest"
        fi
        # shellcheck disable=SC2086
        sysbench ${WORKLOAD:-oltp_update_non_index} ${conn[$s]} "${sb[@]}" prepare >/dev/null
        ;;
    mariadb | mariadb-nd)
        port=$((port + 1))
        env=(MDB_DIR="$work/mdb-$s" MDB_PORT="$port" TIME=1)
        [ "$s" = mariadb-nd ] && env+=(SYNC_BINLOG=0 FLUSH=2)
        # Starts the server and prepares the tables (plus a 1-second warm-up run).
        env "${env[@]}" bash "$anchor" oltp_update_non_index 1 >/dev/null
        conn[$s]="--db-driver=mysql --mysql-socket=$work/mdb-$s/sock --mysql-user=root --mysql-db=sbtest"
        server_pid[$s]=$(cat "$work/mdb-$s/pid")
        ;;
    *) echo "unknown server $s" >&2; exit 2 ;;
    esac
done

# CPU seconds (user + system) the server process has used so far.
cpu_secs() {
    awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"
}
# Run-queue wait of the server's threads: time a thread was runnable but not running
# (/proc/PID/task/TID/schedstat, second field, ns). rq_wait_snapshot prints "tid ns" per live
# thread; rq_wait_delta sums, over the threads live at the end, their growth since the first
# snapshot (a thread born since counts from 0; one that ended is lost, which undercounts only
# threads that exit mid-run, e.g. idle blocking-pool threads). Divided by the run's seconds it
# says how many of the server's threads were, on average, ready and waiting for a core: the
# share of a shared machine the scheduler gives the server, which CPU per transaction does not
# show.
rq_wait_snapshot() {
    for f in /proc/"$1"/task/*/schedstat; do
        t=${f%/schedstat}
        read -r _ w _ 2>/dev/null <"$f" && echo "${t##*/} $w"
    done
    true
}
# children_cpu VAR: sets VAR to the CPU seconds (user + system) of this shell's finished
# children so far (sysbench's); `times` must run in this shell, not in a `$(...)` subshell.
children_cpu() {
    times >"$work/times"
    printf -v "$1" '%s' "$(awk 'NR == 2 {split($1, u, /[ms]/); split($2, y, /[ms]/)
        printf "%.3f", u[1] * 60 + u[2] + y[1] * 60 + y[2]}' "$work/times")"
}
rq_wait_delta() {
    awk 'NR == FNR {w0[$1] = $2; next} {d += $2 - ($1 in w0 ? w0[$1] : 0)} END {print d / 1e9}' \
        <(echo "$1") <(echo "$2")
}
declare -A tps cpu rqw ratio ccpu
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in $threads; do
    for s in $servers; do
        c0=$(cpu_secs "${server_pid[$s]}")
        w0=$(rq_wait_snapshot "${server_pid[$s]}")
        children_cpu k0
        # shellcheck disable=SC2086
        r=$(sysbench ${WORKLOAD:-oltp_update_non_index} ${conn[$s]} "${sb[@]}" --threads="$t" \
            --time="$seconds" run)
        c1=$(cpu_secs "${server_pid[$s]}")
        children_cpu k1
        w1=$(rq_wait_snapshot "${server_pid[$s]}")
        # Server cores used and threads waiting for a core, averaged over the run.
        rqw[$s,$t]=$(awk -v d="$(rq_wait_delta "$w0" "$w1")" -v s="$seconds" \
            'BEGIN {printf "%.2f", d / s}')
        cores=$(awk -v a="$c0" -v b="$c1" -v s="$seconds" 'BEGIN {printf "%.2f", (b - a) / s}')
        tps[$s,$t]=$(echo "$r" | awk '/transactions:/ {gsub("\\(","",$3); printf "%.0f", $3}')
        trx=$(echo "$r" | awk '/transactions:/ {print $2}')
        # Server CPU per transaction, microseconds (the client shares the cores).
        cpu[$s,$t]=$(awk -v a="$c0" -v b="$c1" -v n="$trx" 'BEGIN {printf "%.0f", (b - a) * 1e6 / (n > 0 ? n : 1)}')
        # The client's (sysbench's) CPU per transaction, µs: it shares the two cores.
        ccpu[$s,$t]=$(awk -v a="$k0" -v b="$k1" -v n="$trx" 'BEGIN {printf "%.0f", (b - a) * 1e6 / (n > 0 ? n : 1)}')
        p95=$(echo "$r" | awk '/95th percentile:/ {print $3}')
        avg_ms=$(echo "$r" | awk '/avg:/ {print $2; exit}')
        # Average transaction latency in device writes.
        ratio[$s,$t]=$(awk -v a="$avg_ms" -v w="${write_us:-0}" \
            'BEGIN {if (w > 0) printf "%.2f", a * 1000 / w; else print "-"}')
        errors=$(echo "$r" | awk '/ignored errors:/ {print $3}')
        echo "$s threads=$t tps=${tps[$s,$t]} avg_ms=$avg_ms p95_ms=$p95 lat_vs_write=${ratio[$s,$t]}" \
            "cpu_us_per_trx=${cpu[$s,$t]} client_cpu_us_per_trx=${ccpu[$s,$t]}" \
            "ignored_errors=$errors cores=$cores runqueue_wait=${rqw[$s,$t]}" \
            "load=$(cut -d' ' -f1 /proc/loadavg)"
    done
done
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# print_table TITLE ARRAY: one markdown row per thread count, one column per server.
print_table() {
    local -n values=$2
    printf '\n%s\n\n| threads |' "$1"
    for s in $servers; do printf ' %s |' "$s"; done
    printf '\n|---:|'
    for _ in $servers; do printf -- '---:|'; done
    echo
    for t in $threads; do
        printf '| %s |' "$t"
        for s in $servers; do printf ' %s |' "${values[$s,$t]}"; done
        echo
    done
}
print_table "Transactions per second:" tps
print_table "Server CPU per transaction, µs:" cpu
print_table "Client (sysbench) CPU per transaction, µs:" ccpu
print_table "Server threads runnable but waiting for a core (average over the run):" rqw
print_table "Average transaction latency over the device's durable write latency (${write_us:-?} µs):" ratio
