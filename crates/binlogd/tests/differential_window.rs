//! Issue 20's GROUP BY ... WITH ROLLUP / GROUPING() and window functions run against binlogd
//! and a MariaDB 10.11 started by the test and compared answer by answer
//! (`tests/differential/window.cases`, the shared harness in `support/differential.rs`);
//! where MySQL 8.0 answers otherwise (GROUPING(), ORDER BY with ROLLUP, error numbers) the
//! case gives MySQL 8.0's answer.

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn window_and_rollup_answers_match_mariadb() {
    mariadb::compare_case_file("window.cases", "wn", 40).await;
}
