//! Index prefixes (`KEY (c(10))`) run against binlogd and a MariaDB 10.11 started by the test:
//! the same statements, then the rows, errors and warnings compared
//! (`tests/differential/prefix_index.cases`, the shared harness in `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefix_index_answers_match_mariadb() {
    mariadb::compare_case_file("prefix_index.cases", "pfx", 40).await;
}
