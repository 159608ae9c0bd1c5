#!/usr/bin/env bash
# The whole test suite: installs what the tests need, then the gate (fmt, clippy, tests).
# This is the README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests start for real (mariadb-binlog checks files binlogd wrote).
need=()
command -v mariadb-binlog >/dev/null 2>&1 || need+=(mariadb-client)
# Client tools of tests/serve_tools.rs (mysqlslap comes with mariadb-client).
command -v mysqlslap >/dev/null 2>&1 || need+=(mariadb-client)
command -v sysbench >/dev/null 2>&1 || need+=(sysbench)
python3 -c 'import pymysql' >/dev/null 2>&1 || need+=(python3-pymysql)
python3 -c 'import cryptography' >/dev/null 2>&1 || need+=(python3-cryptography)
command -v pip3 >/dev/null 2>&1 || need+=(python3-pip)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
# mysql-connector-python is not packaged in Debian 12.
python3 -c 'import mysql.connector' >/dev/null 2>&1 ||
  pip3 install -q --break-system-packages mysql-connector-python

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked --release
