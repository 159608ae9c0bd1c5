//! Issue 20's subqueries in expressions (scalar, IN / NOT IN, EXISTS, ANY / SOME / ALL, row
//! subqueries, correlated ones; in UPDATE / DELETE / INSERT) run against binlogd and a MariaDB
//! 10.11 started by the test and compared answer by answer
//! (`tests/differential/subqueries.cases`, the shared harness in `support/differential.rs`).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subquery_answers_match_mariadb() {
    mariadb::compare_case_file("subqueries.cases", "sq", 70).await;
}
