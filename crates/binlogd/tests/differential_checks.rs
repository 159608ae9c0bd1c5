//! CHECK constraints run against binlogd and a MariaDB 10.11 started by the test: the same
//! statements, then the rows and errors compared (`tests/differential/checks.cases`; MySQL
//! 8.0's own error numbers where MariaDB's differ; the shared harness in
//! `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_constraint_answers_match_mariadb() {
    mariadb::compare_case_file("checks.cases", "chk", 20).await;
}
