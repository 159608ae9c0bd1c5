//! Issue 20's foreign keys (child and parent checks, CASCADE / SET NULL, foreign_key_checks,
//! DROP/TRUNCATE of a parent, information_schema) run against binlogd and a MariaDB 10.11
//! started by the test and compared answer by answer (`tests/differential/foreign_keys.cases`,
//! the shared harness in `support/differential.rs`).

mod support;

use std::time::Duration;

use mysql_async::prelude::Queryable;
use support::differential as mariadb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_key_answers_match_mariadb() {
    if !mariadb::available(&[]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let maria = mariadb::start(tmp.path());
    let binlogd = support::start(&tmp.path().join("binlogd"), &["--initialize-insecure"]);
    let mut m = mariadb::connect(maria.port, Duration::from_secs(60)).await;
    let mut b = mariadb::connect(binlogd.port, Duration::from_secs(10)).await;
    for sql in ["CREATE DATABASE f", "USE f"] {
        m.query_drop(sql).await.unwrap_or_else(|e| panic!("MariaDB: {sql}: {e}"));
        b.query_drop(sql).await.unwrap_or_else(|e| panic!("binlogd: {sql}: {e}"));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/differential/foreign_keys.cases");
    let list = mariadb::cases(&std::fs::read_to_string(path).expect("case list"));
    let (failures, compared) = mariadb::run_cases(&mut m, &mut b, &list).await;
    assert!(compared >= 30, "only {compared} cases");
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
