#!/usr/bin/env bash
# Replica benchmark (issue 5): COMMIT_ORDER vs WRITESET dependency tracking on the binlog of a
# 64-thread sysbench oltp_write_only run against `binlogd serve`.
#
# For each binlog_transaction_dependency_tracking mode:
#  1. a source (`binlogd serve --port=0`) and a replica with `replica_parallel_workers=N`
#     following it; `sysbench prepare` (4 tables x 10 000 rows), wait until the replica has it;
#  2. `sysbench oltp_write_only --threads=64 --rand-type=uniform` for SECONDS against the source
#     while Seconds_Behind_Source and the replica's backlog (GTIDs behind) are sampled every 2 s;
#     then the time the replica needs to catch up after the load stops;
#  3. the source is shut down and its data directory handed to the ignored test
#     `replica::pipeline_tests::applier_throughput_sysbench`, which replays the sysbench part
#     of its binlog through the applier with 1, 2, 4 and 8 workers (transactions/s).
# Not part of the test suite; prints its figures. Durable settings (sync_binlog=1,
# innodb_flush_log_at_trx_commit=1) on both servers, as binlogd's defaults.
#
# Usage: bench/replica-apply.sh [seconds] [lag-workers...]   (defaults: 20, then 4)
set -euo pipefail

seconds=${1:-20}
shift || true
lag_workers=${*:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v sysbench >/dev/null || ! command -v mariadb >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench mariadb-client >/dev/null
fi
work=$(mktemp -d "$here/.replica-apply-XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do
        kill -TERM "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

cargo build --release -q -p binlogd --manifest-path "$here/Cargo.toml"
cargo test --release -q -p binlogd --lib --no-run --manifest-path "$here/Cargo.toml" 2>/dev/null
binlogd="$here/target/release/binlogd"

# start NAME ARGS...: starts a server in $work/NAME; sets $pid and $port.
start() {
    local name=$1
    shift
    "$binlogd" serve --datadir="$work/$name" --port=0 --initialize-insecure \
        --max-connections=2000 "$@" >"$work/$name.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    port=
    for _ in $(seq 300); do
        port=$(sed -n "s/.*ready for connections.* port: \([0-9]*\).*/\1/p" "$work/$name.log")
        [ -n "$port" ] && return
        sleep 0.1
    done
    echo "server $name did not start:" >&2
    cat "$work/$name.log" >&2
    exit 1
}

# stop PID: clean shutdown (SIGTERM), waits for the process.
stop() {
    kill -TERM "$1"
    wait "$1" || true
}

sql() {
    local p=$1
    shift
    mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$p" -uroot -N -B -e "$*"
}

gtid_count() {
    # Transactions in a GTID set such as uuid:1-5:7,uuid2:1-3.
    echo "$1" | tr -d ' \n' | tr ',' '\n' | awk -F: '{
        for (i = 2; i <= NF; i++) {
            n = split($i, r, "-"); total += (n == 2 ? r[2] - r[1] + 1 : 1)
        }
    } END { print total + 0 }'
}

behind() {
    # Vertical output needs the column names (no -N).
    mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$1" -uroot -e "SHOW REPLICA STATUS\G" |
        awk '/Seconds_Behind_Source:/ {print $2}'
}

# wait_caught_up SOURCE_PORT REPLICA_PORT LIMIT_S: waits until the replica's gtid_executed equals
# the source's; prints the seconds it took.
wait_caught_up() {
    local src=$1 rep=$2 limit_ms=$(($3 * 1000)) start
    start=$(date +%s%N)
    while :; do
        want=$(sql "$src" "SELECT @@GLOBAL.gtid_executed")
        have=$(sql "$rep" "SELECT @@GLOBAL.gtid_executed")
        [ "$want" = "$have" ] && break
        if [ $((($(date +%s%N) - start) / 1000000)) -gt "$limit_ms" ]; then
            echo "replica did not catch up in $3 s: $(gtid_count "$want") vs $(gtid_count "$have")" >&2
            sql "$rep" "SHOW REPLICA STATUS\G" >&2
            exit 1
        fi
        sleep 0.05
    done
    local ms=$((($(date +%s%N) - start) / 1000000))
    printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000))
}

echo "# machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%H:%M) UTC"
for mode in COMMIT_ORDER WRITESET; do
    for n in $lag_workers; do
        rm -rf "$work/source" "$work/replica"
        start source --server-id=1 --binlog-transaction-dependency-tracking="$mode"
        source_pid=$pid source_port=$port
        start replica --server-id=2 --replica-parallel-workers="$n"
        replica_pid=$pid replica_port=$port
        sql "$replica_port" "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', \
            SOURCE_PORT=$source_port, SOURCE_USER='root', SOURCE_PASSWORD='', \
            SOURCE_AUTO_POSITION=1; START REPLICA"
        sql "$source_port" "CREATE DATABASE sbtest"
        common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$source_port"
            --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=10000)
        sysbench oltp_write_only "${common[@]}" prepare >/dev/null
        wait_caught_up "$source_port" "$replica_port" 120 >/dev/null
        prepared=$(sql "$source_port" "SELECT @@GLOBAL.gtid_executed" | tr -d '\n')

        sysbench oltp_write_only "${common[@]}" --threads=64 --rand-type=uniform \
            --time="$seconds" --report-interval=0 run >"$work/sysbench.out" &
        bench=$!
        samples=()
        while kill -0 "$bench" 2>/dev/null; do
            sleep 2
            # The replica first: a backlog never below the truth.
            s=$(behind "$replica_port")
            rep=$(gtid_count "$(sql "$replica_port" "SELECT @@GLOBAL.gtid_executed")")
            src=$(gtid_count "$(sql "$source_port" "SELECT @@GLOBAL.gtid_executed")")
            samples+=("${s}s/$((src - rep))")
        done
        wait "$bench"
        catch_up=$(wait_caught_up "$source_port" "$replica_port" 900)
        tps=$(awk '/transactions:/ {gsub("\\(","",$3); print $3}' "$work/sysbench.out")
        total=$(gtid_count "$(sql "$source_port" "SELECT @@GLOBAL.gtid_executed")")
        for t in 1 2 3 4; do
            q="SELECT * FROM sbtest.sbtest$t ORDER BY id"
            a=$(sql "$source_port" "$q" | md5sum)
            b=$(sql "$replica_port" "$q" | md5sum)
            [ "$a" = "$b" ] || { echo "sbtest$t differs on the replica" >&2; exit 1; }
        done
        echo "lag mode=$mode replica_parallel_workers=$n source_tps=$tps transactions=$total" \
            "samples(Seconds_Behind_Source/GTIDs behind, every 2 s)=${samples[*]}" \
            "catch_up_after_load_s=$catch_up"
        stop "$replica_pid"
        stop "$source_pid"
    done
    # The last source's binlog (the sysbench run above) through the applier, 1/2/4/8 workers.
    if ! BINLOGD_BENCH_DATADIR="$work/source" BINLOGD_BENCH_PREPARED="$prepared" \
        cargo test --release -q -p binlogd --lib --manifest-path "$here/Cargo.toml" \
        replica::pipeline_tests::applier_throughput_sysbench -- --ignored --nocapture \
        >"$work/apply.out" 2>&1; then
        cat "$work/apply.out" >&2
        exit 1
    fi
    grep -E "^(source:|workers=)" "$work/apply.out" | sed "s/^/apply mode=$mode /"
done
