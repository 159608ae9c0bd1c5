#!/usr/bin/env bash
# Start a throwaway MariaDB (Debian's mariadb-server) with durable settings and run
# sysbench write workloads against it: the side-by-side performance anchor.
# usage: bench/mariadb-anchor.sh [workload] [threads...]   (defaults: oltp_update_non_index 1 4 16 64)
# The anchor of the design brief (docs/design-brief.md, "Performance"): its anchors/mariadb.sh,
# copied unchanged but for its name and this note, so that the repository needs nothing
# outside itself.
set -euo pipefail
if ! command -v mariadbd >/dev/null || ! command -v sysbench >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server mariadb-client sysbench >/dev/null
fi
WL=${1:-oltp_update_non_index}; shift || true
THREADS=${*:-"1 4 16 64"}
D=${MDB_DIR:-/tmp/mdb-anchor}; PORT=${MDB_PORT:-3399}; TIME=${TIME:-10}
SYNC_BINLOG=${SYNC_BINLOG:-1}; FLUSH=${FLUSH:-1}
if [ ! -S $D/sock ]; then
  rm -rf $D; mkdir -p $D/data
  mariadb-install-db --no-defaults --datadir=$D/data --user=root >/dev/null 2>&1
  mariadbd --no-defaults --datadir=$D/data --socket=$D/sock --port=$PORT --user=root \
    --log-bin=$D/data/binlog --server-id=1 --binlog-format=ROW --sync-binlog=$SYNC_BINLOG \
    --innodb-flush-log-at-trx-commit=$FLUSH --innodb-buffer-pool-size=1G --max-connections=2000 \
    --innodb-log-file-size=512M --log-error=$D/err.log --pid-file=$D/pid >/dev/null 2>&1 &
  for i in $(seq 60); do [ -S $D/sock ] && break; sleep 0.5; done
  mariadb --socket=$D/sock -uroot -e "CREATE DATABASE IF NOT EXISTS sbtest"
  sysbench $WL --db-driver=mysql --mysql-socket=$D/sock --mysql-user=root --tables=4 --table-size=10000 prepare >/dev/null
fi
for t in $THREADS; do
  r=$(sysbench $WL --db-driver=mysql --mysql-socket=$D/sock --mysql-user=root --tables=4 --table-size=10000 \
      --threads=$t --time=$TIME --report-interval=0 run)
  tps=$(echo "$r" | awk '/transactions:/ {gsub("\\(","",$3); print $3}')
  p95=$(echo "$r" | awk '/95th percentile:/ {print $3}')
  echo "mariadb $WL threads=$t tps=$tps p95_ms=$p95"
done
