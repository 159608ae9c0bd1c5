//! Issue 20's writes built on the query layer (INSERT/REPLACE ... SELECT with IGNORE and ON
//! DUPLICATE KEY UPDATE, multi-table UPDATE and DELETE, the 8.0.19 row alias), run against
//! binlogd and a MariaDB 10.11 started by the test; after each write both servers' tables
//! must hold the same rows (`tests/differential/query_writes.cases`, the shared harness in
//! `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_writes_match_mariadb() {
    mariadb::compare_case_file("query_writes.cases", "w", 80).await;
}
