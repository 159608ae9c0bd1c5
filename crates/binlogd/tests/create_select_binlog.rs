//! CREATE TABLE ... SELECT through a real binlogd (issue 20): logged as mysqld 8.0.21+ logs
//! it in row format — one GTID transaction holding the QUERY `CREATE TABLE ... START
//! TRANSACTION` with the generated column list, the rows' TABLE_MAP and WRITE_ROWS, and an
//! XID — nothing logged for a failing one or an IF NOT EXISTS no-op; `mariadb-binlog FILE |
//! mariadb` replays it into a fresh binlogd (the `START TRANSACTION` form creates the table
//! and opens the transaction the rows join); and after kill -9 the acknowledged table is
//! there with all its rows.
//!
//! Needs `mariadb` and `mariadb-binlog` (mariadb-client, installed by scripts/test.sh).

mod support;

use support::{mariadb, ok, start};

fn sql(port: u16, text: &str) -> String {
    ok(mariadb(port, "root", "", &[], text))
}

/// (Event_type, Info) of every event of the first binlog file.
fn events(port: u16) -> Vec<(String, String)> {
    sql(port, "SHOW BINLOG EVENTS")
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 6).then(|| (f[2].to_string(), f[5..].join("\t")))
        })
        .collect()
}

const SCHEMA: &str = "CREATE DATABASE app; \
    CREATE TABLE app.src (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20), p DECIMAL(7,2)); \
    INSERT INTO app.src VALUES (1, 10, 'one', 1.50), (2, 20, 'two', NULL), (3, 30, NULL, 3);";

#[test]
fn logged_as_one_transaction_and_replayed_by_mariadb_binlog() {
    if !support::mariadb::available(&["mariadb", "mariadb-binlog"]) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let source_dir = dir.path().join("source");
    let source = start(&source_dir, &["--initialize-insecure"]);
    sql(source.port, SCHEMA);
    let before = events(source.port).len();
    // A failing CREATE TABLE ... SELECT and an IF NOT EXISTS no-op log nothing.
    let failed = support::mariadb(
        source.port,
        "root",
        "",
        &[],
        "CREATE TABLE app.f (PRIMARY KEY (a)) SELECT a FROM app.src UNION ALL SELECT 10",
    );
    assert!(!failed.status.success());
    assert!(String::from_utf8_lossy(&failed.stderr).contains("1062"));
    assert_eq!(events(source.port).len(), before);
    sql(
        source.port,
        "CREATE TABLE app.c (n INT AUTO_INCREMENT PRIMARY KEY) \
         SELECT id, a * 2 AS a2, b, p, CONCAT('x', b) AS xb FROM app.src; \
         CREATE TABLE IF NOT EXISTS app.c SELECT 1 AS one;",
    );
    let ev = events(source.port);
    let tx: Vec<&(String, String)> = ev[before..].iter().collect();
    let kinds: Vec<&str> = tx.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds, ["Gtid", "Query", "Table_map", "Write_rows", "Xid"], "{tx:?}");
    let query = &tx[1].1;
    assert!(query.contains("CREATE TABLE `c` ("), "{query}");
    assert!(query.contains("`n` int NOT NULL AUTO_INCREMENT"), "{query}");
    assert!(query.contains("`xb` varchar(21)"), "{query}");
    assert!(query.ends_with(" START TRANSACTION"), "{query}");
    assert!(tx[2].1.contains("table_id") && tx[2].1.contains("(app.c)"), "{:?}", tx[2]);

    let read = |port| sql(port, "SELECT * FROM app.c ORDER BY n; SHOW CREATE TABLE app.c");
    let expected = read(source.port);
    assert!(expected.contains("xone"), "{expected}");

    let target = start(&dir.path().join("target"), &["--initialize-insecure"]);
    let replayed =
        support::replay_binlog(&source_dir.join("binlog").join("binlog.000001"), target.port);
    assert!(replayed.contains("START TRANSACTION"), "{replayed}");
    assert_eq!(read(target.port), expected);
}

#[test]
fn an_acknowledged_create_select_survives_kill_9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut node = support::Node::start(&dir.path().join("n"), 1, &[]);
    sql(node.port, SCHEMA);
    sql(node.port, "CREATE TABLE app.c SELECT * FROM app.src");
    let expected = sql(node.port, "SELECT * FROM app.c ORDER BY id");
    node.crash_and_restart();
    assert_eq!(sql(node.port, "SELECT * FROM app.c ORDER BY id"), expected);
    // The binlog still holds the one transaction after recovery.
    let kinds: Vec<String> = events(node.port).into_iter().map(|(k, _)| k).collect();
    let q = kinds.iter().rposition(|k| k == "Query").expect("a query");
    assert_eq!(&kinds[q..q + 4], ["Query", "Table_map", "Write_rows", "Xid"]);
}
