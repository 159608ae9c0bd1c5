# Sourced by the bench scripts that profile one `binlogd serve`: start_binlogd starts it with
# durable settings (sync_binlog=1, innodb_flush_log_at_trx_commit=1; binlog-in-redo when MODE is
# inredo), sets `server` to its pid, waits for "ready for connections" and creates database DB.
# Usage: start_binlogd BIN WORK PORT DB [extra serve options...]   (data in WORK/data, log in
# WORK/server.log; the caller's EXIT trap stops `$server`).
start_binlogd() {
    local bin=$1 work=$2 port=$3 db=$4
    shift 4
    local extra=("$@")
    [ "${MODE:-classic}" = inredo ] && extra+=(--binlog-in-redo=ON)
    "$bin" serve --datadir="$work/data" --port="$port" --bind-address=127.0.0.1 \
        --initialize-insecure --sync-binlog=1 --innodb-flush-log-at-trx-commit=1 \
        --max-connections=2000 "${extra[@]}" >"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do
        grep -q "ready for connections" "$work/server.log" && break
        sleep 0.1
    done
    mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$port" -uroot -e "CREATE DATABASE $db"
}
