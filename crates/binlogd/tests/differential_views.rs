//! Issue 20's writes through views (single-table, nested and join views, WITH CHECK OPTION,
//! mysqld's errors for views that are not updatable) run against binlogd and a MariaDB 10.11
//! started by the test and compared answer by answer (`tests/differential/views.cases`, the
//! shared harness in `support/differential.rs`). Where MariaDB answers otherwise than MySQL
//! 8.0 (LOCAL CHECK OPTION recursing, views with LIMIT) the sql crate's
//! `tests/sql_views_write.rs` tests MySQL's answer.

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_writes_match_mariadb() {
    mariadb::compare_case_file("views.cases", "vw", 60).await;
}
