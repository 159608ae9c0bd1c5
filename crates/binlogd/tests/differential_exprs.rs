//! Issue 19's arithmetic and operator fidelity against MariaDB
//! (`tests/differential/exprs.cases`, the shared harness in `support/differential.rs`):
//! DECIMAL quotients and result scales, hex and bit literals, the bit operators and their
//! precedence, RAND(seed), temporal GREATEST/LEAST/IF/IFNULL/COALESCE/CASE and ENUM/SET/BIT in
//! numeric context. Where MySQL 8.0 and MariaDB differ, the case carries MySQL 8.0's answer
//! and says why (`X'41' + 0` is 65 in MySQL 8.0).

mod support;

use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expressions_answer_as_mysql8() {
    mariadb::compare_case_file("exprs.cases", "ex", 135).await;
}
