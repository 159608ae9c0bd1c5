//! Issue 19's second round of functions against MariaDB (`tests/differential/
//! functions_more.cases`, the shared harness in `support/differential.rs`): REGEXP/RLIKE and
//! REGEXP_INSTR/SUBSTR/REPLACE, COMPRESS/UNCOMPRESS, PERIOD_ADD/PERIOD_DIFF, TO_SECONDS,
//! RANDOM_BYTES, UUID_SHORT, SLEEP, BENCHMARK, STD/VARIANCE/BIT_* aggregates. MySQL 8.0's
//! answers where MariaDB differs are carried by the cases (`## mysql8:`) or asserted in
//! `crates/sql/tests/sql_functions_more.rs`.

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_functions_answer_as_mysql8() {
    mariadb::compare_case_file("functions_more.cases", "fm", 40).await;
}
