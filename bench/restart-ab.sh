#!/bin/bash
# Restart time after kill -9, A/B: two binlogd binaries alternately recover the same data
# directory (one already loaded, e.g. by `bench/compare data-size`), ROUNDS times each.
# Per start: seconds until `SELECT 1` answers (polled every 50 ms, at most 150 s), VmRSS and
# VmHWM once it does, the load average. The server listens on 127.0.0.1:$PORT only.
#
#   DATADIR=/tmp/binlogd-compare-3403/data BIN=<binlogd> BIN_B=<binlogd> PORT=3403 \
#     ROUNDS=2 bash bench/restart-ab.sh
#
# Extra server options: OPTS (default: the data-size scenario's binlogd classic settings).
set -u
D=${DATADIR:?DATADIR names a binlogd data directory}
PORT=${PORT:-3403}
OPTS=${OPTS:-"--innodb_flush_log_at_trx_commit=1 --max-connections=2000 --sync_binlog=1 --binlog_in_redo=OFF"}
PID=$(pgrep -f "serve --datadir=$D" | head -1)
for r in $(seq 1 "${ROUNDS:-2}"); do
  for BINX in "${BIN:?}" "${BIN_B:?}"; do
    if [ -n "$PID" ]; then
      kill -9 "$PID"
      for _ in $(seq 1 600); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    fi
    # shellcheck disable=SC2086
    "$BINX" serve --datadir="$D" --port="$PORT" --bind-address=127.0.0.1 \
      --log-error="$D/../restart-ab.log" $OPTS >/dev/null 2>&1 &
    PID=$!
    t0=$(date +%s.%N)
    for _ in $(seq 1 3000); do
      mysql -h127.0.0.1 -P"$PORT" -uroot -N -e "select 1" >/dev/null 2>&1 && break
      kill -0 "$PID" 2>/dev/null || { echo "$BINX exited (see $D/../restart-ab.log)"; break; }
      sleep 0.05
    done
    t1=$(date +%s.%N)
    rss=$(awk '/VmRSS/ {print int($2/1024)}' "/proc/$PID/status" 2>/dev/null)
    hwm=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$PID/status" 2>/dev/null)
    echo "$BINX restart_after_kill9_s=$(echo "$t1 - $t0" | bc) rss_mb=$rss hwm_mb=$hwm" \
      "load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done
kill -9 "$PID" 2>/dev/null
