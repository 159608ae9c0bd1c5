//! Issue 20's query layer (multi-table SELECT: inner, comma, CROSS, LEFT/RIGHT, USING/NATURAL,
//! STRAIGHT_JOIN; names and their errors; grouping and aggregates over joins) and row
//! constructors, run against binlogd and a MariaDB 10.11 started by the test and compared
//! answer by answer (`tests/differential/joins.cases`, the shared harness in
//! `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_answers_match_mariadb() {
    mariadb::compare_case_file("joins.cases", "j", 60).await;
}
