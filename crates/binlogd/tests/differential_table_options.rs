//! Issue 20's table options (AUTO_INCREMENT = n, table and column COMMENTs), FOREIGN KEY
//! clauses in a mixed ALTER TABLE, and UPDATE / DELETE IGNORE over foreign key errors, run
//! against binlogd and a MariaDB 10.11 started by the test: the same statements, then the
//! rows, errors and warnings compared (`tests/differential/table_options.cases`, the shared
//! harness in `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_option_answers_match_mariadb() {
    mariadb::compare_case_file("table_options.cases", "topt", 40).await;
}
