//! Issue 20's schema changes (ALTER TABLE with several operations, RENAME TABLE with a swap,
//! CREATE TABLE ... LIKE), run against binlogd and a MariaDB 10.11 started by the test: the
//! same statements, then the rows and errors compared (`tests/differential/alter.cases`, the
//! shared harness in `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_answers_match_mariadb() {
    mariadb::compare_case_file("alter.cases", "al", 40).await;
}
