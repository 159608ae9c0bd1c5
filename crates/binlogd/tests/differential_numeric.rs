//! Issue 19's numbers: DECIMAL up to 65 digits (columns, keys, arithmetic with mysqld's result
//! scales and `div_precision_increment`), literals beyond BIGINT, SUM/AVG over integers and
//! DECIMAL, overflow errors, and the numeric contexts of ENUM/SET/BIT, run against binlogd and
//! a MariaDB 10.11 started by the test and compared answer by answer
//! (`tests/differential/numeric.cases`, the shared harness in `support/differential.rs`).
//! Where MySQL 8.0 and MariaDB differ, the case carries MySQL 8.0's answer and says why.

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numeric_answers_match_mysql8() {
    mariadb::compare_case_file("numeric.cases", "num", 240).await;
}
