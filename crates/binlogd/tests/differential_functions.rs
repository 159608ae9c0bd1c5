//! Issue 19's functions against MariaDB: the numeric, string and network functions binlogd
//! lacked, the result types of CASE/IF/IFNULL/COALESCE, ROUND/TRUNCATE of DECIMAL to negative
//! places, COLLATION()/CHARSET()/COERCIBILITY(), and INSERT/UPDATE IGNORE of invalid dates
//! (`tests/differential/functions.cases`, the shared harness in `support/differential.rs`).
//! Where MySQL 8.0 and MariaDB differ, the case carries MySQL 8.0's answer and says why
//! (GREATEST/LEAST over a mix of strings and numbers compare as strings in MySQL 8.0).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_answer_as_mysql8() {
    mariadb::compare_case_file("functions.cases", "fn", 90).await;
}
