#!/usr/bin/env bash
# The whole test suite: installs what the tests need, then the gate (fmt, clippy, tests).
# This is the README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests start for real (mariadb-binlog checks files binlogd wrote).
need=()
command -v mariadb-binlog >/dev/null 2>&1 || need+=(mariadb-client)
command -v strace >/dev/null 2>&1 || need+=(strace)
# Client tools of tests/serve_tools.rs (mysqlslap comes with mariadb-client).
command -v mysqlslap >/dev/null 2>&1 || need+=(mariadb-client)
command -v sysbench >/dev/null 2>&1 || need+=(sysbench)
# A real MariaDB server (tests/column_definitions.rs compares column definitions with its own).
command -v mariadbd >/dev/null 2>&1 || need+=(mariadb-server)
# The drivers of tests/drivers.rs run on the JDK (Connector/J, MariaDB Java client; Maven fetches
# them), Node.js (mysql2 from npm) and Go (go-sql-driver/mysql from the module proxy).
command -v java >/dev/null 2>&1 || need+=(default-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v go >/dev/null 2>&1 || need+=(golang-go)
# The system tz database: named time zones (sql temporal.rs, tests/differential_temporal.rs).
[ -e /usr/share/zoneinfo/Europe/Paris ] || need+=(tzdata)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
# PyPI packages for the `python3` on PATH (tests run `python3`): the drivers of
# tests/serve_tools.rs (PyMySQL, mysql-connector-python; cryptography for caching_sha2 over RSA)
# and python-mysql-replication, the second unmodified binlog stream client of repl_source.rs;
# SQLAlchemy 2's ORM for tests/sqlalchemy_orm.rs.
if ! python3 -c 'import pymysql, cryptography, mysql.connector, pymysqlreplication, sqlalchemy' >/dev/null 2>&1; then
  echo "installing (pip): pymysql cryptography mysql-connector-python mysql-replication sqlalchemy"
  python3 -m pip --version >/dev/null 2>&1 || python3 -m ensurepip --upgrade >/dev/null 2>&1 ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null; }
  pkgs=(pymysql cryptography mysql-connector-python mysql-replication 'sqlalchemy>=2,<3')
  python3 -m pip install -q "${pkgs[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${pkgs[@]}"
fi

# The drivers themselves, into target/drivers (skipped when already there and unchanged).
bash crates/binlogd/tests/drivers/install.sh "${CARGO_TARGET_DIR:-target}" java debezium node go gobinlog gotpc

# The layering of docs/architecture.md: crates depend only downward, no module cycles.
python3 scripts/check_layers.py
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked --release
