#!/usr/bin/env bash
# Lists MySQL 8.0's built-in functions (crates/sql/tests/data/mysql80_functions.txt, from the
# manual's function reference) that binlogd answers with 1305 "FUNCTION does not exist", and
# those that answer another error for a call mysqld accepts.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -p sql --test sql_functions mysql_functions_still_missing -- --nocapture 2>&1 \
    | grep -A400 'MySQL 8.0 functions answer 1305' | grep -v '^test \|^running\|^$' || true
