//! Issue 20's query expressions (UNION / INTERSECT / EXCEPT [ALL | DISTINCT], parenthesised
//! blocks, ORDER BY / LIMIT over a union, unions in derived tables, subqueries and
//! INSERT ... SELECT, WITH and WITH RECURSIVE) run against binlogd and a MariaDB 10.11 started
//! by the test and compared answer by answer (`tests/differential/union.cases`, the shared
//! harness in `support/differential.rs`); where MySQL 8.0 answers otherwise the case says so.

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn union_answers_match_mariadb() {
    mariadb::compare_case_file("union.cases", "un", 60).await;
}
