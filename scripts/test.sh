#!/usr/bin/env bash
# The whole test suite: installs what the tests need, then the gate (fmt, clippy, tests).
# This is the README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests start for real (mariadb-binlog checks files binlogd wrote).
need=()
command -v mariadb-binlog >/dev/null 2>&1 || need+=(mariadb-client)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# PyPI packages: python-mysql-replication (a second, unmodified binlog stream client).
if ! python3 -c "import pymysqlreplication, pymysql" >/dev/null 2>&1; then
  echo "installing: mysql-replication pymysql"
  python3 -m pip install -q mysql-replication pymysql
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked --release
