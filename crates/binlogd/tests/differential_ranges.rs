//! Issue 22's read shortcuts (rows of a range shared with the table, the range's own terms not
//! re-checked where the ranges imply them, ORDER BY keys read from the select list) run
//! against binlogd and a MariaDB 10.11 started by the test and compared answer by answer
//! (`tests/differential/ranges.cases`, the shared harness in `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_reads_answer_as_mariadb() {
    mariadb::compare_case_file("ranges.cases", "rg", 60).await;
}
