//! Issue 20's foreign keys (child and parent checks, CASCADE / SET NULL, foreign_key_checks,
//! DROP/TRUNCATE of a parent, information_schema) run against binlogd and a MariaDB 10.11
//! started by the test and compared answer by answer (`tests/differential/foreign_keys.cases`,
//! the shared harness in `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_key_answers_match_mariadb() {
    mariadb::compare_case_file("foreign_keys.cases", "f", 30).await;
}
