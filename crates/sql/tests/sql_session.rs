//! The SQL layer driven with SQL strings, on an engine on the simulated disk (and on a real
//! temporary directory for restarts): DDL, DML, transactions, errors with MySQL codes, SHOW
//! shapes, sysbench's and mysqlslap's statements, and the binlog seams.

#[path = "support/recording.rs"]
mod recording;

use std::path::Path;
use std::sync::{Arc, Mutex};

use engine::{DateTime, Engine, EngineConfig, Value};
use recording::Recording;
use sql::admin::{BinlogEventInfo, BinlogFileInfo, MasterStatus};
use sql::{
    AdminCommand, BinlogAdmin, ChangeKind, GtidNext, Hooks, Output, Server, Session, SqlError,
};

fn engine() -> Engine {
    let vfs = vfs::SimVfs::new().shared();
    let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
    Engine::open(vfs, Path::new("/data"), cfg).expect("engine opens").0
}

fn server() -> Arc<Server> {
    let e = engine();
    Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server opens")
}

fn q(s: &mut Session, sql: &str) -> Output {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    q(s, sql).text_rows()
}

fn err(s: &mut Session, sql: &str) -> SqlError {
    match s.query(sql) {
        Ok(o) => panic!("{sql}: expected an error, got {o:?}"),
        Err(e) => e,
    }
}

fn strs(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter().map(|r| r.iter().map(|s| s.to_string()).collect()).collect()
}

#[test]
fn databases_tables_and_crud() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    assert_eq!(err(&mut s, "SELECT * FROM t").code(), 1046);
    q(&mut s, "CREATE DATABASE shop");
    assert_eq!(err(&mut s, "CREATE DATABASE shop").code(), 1007);
    q(&mut s, "CREATE DATABASE IF NOT EXISTS shop");
    assert_eq!(err(&mut s, "USE nope").code(), 1049);
    q(&mut s, "USE shop");
    q(&mut s, "CREATE TABLE items (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(8,2) DEFAULT 0, qty INT UNSIGNED, UNIQUE KEY uname (name)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4");
    assert_eq!(err(&mut s, "CREATE TABLE items (x INT)").code(), 1050);
    let o = q(
        &mut s,
        "INSERT INTO items (name, price, qty) VALUES ('apple', 1.5, 10), ('pear', 2.25, 3)",
    );
    assert!(matches!(o, Output::Ok { affected_rows: 2, last_insert_id: 1, .. }), "{o:?}");
    assert_eq!(rows(&mut s, "SELECT LAST_INSERT_ID()"), strs(&[&["1"]]));
    q(&mut s, "INSERT INTO items VALUES (10, 'fig', 3, 1)");
    let o = q(&mut s, "INSERT INTO items (name) VALUES ('kiwi')");
    assert!(matches!(o, Output::Ok { last_insert_id: 11, .. }), "{o:?}");
    assert_eq!(
        rows(&mut s, "SELECT id, name, price, qty FROM items ORDER BY id"),
        strs(&[
            &["1", "apple", "1.50", "10"],
            &["2", "pear", "2.25", "3"],
            &["10", "fig", "3.00", "1"],
            &["11", "kiwi", "0.00", "NULL"]
        ])
    );
    let o = q(&mut s, "UPDATE items SET qty = qty + 5, price = price * 2 WHERE id IN (1, 2)");
    assert!(
        matches!(&o, Output::Ok { affected_rows: 2, info, .. } if info == "Rows matched: 2  Changed: 2  Warnings: 0"),
        "{o:?}"
    );
    assert_eq!(rows(&mut s, "SELECT qty, price FROM items WHERE id = 2"), strs(&[&["8", "4.50"]]));
    assert_eq!(err(&mut s, "INSERT INTO items (name) VALUES ('fig')").code(), 1062);
    assert_eq!(q(&mut s, "DELETE FROM items WHERE price > 3").affected_rows(), 1);
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*), SUM(qty), MIN(name), MAX(price), AVG(qty) FROM items"),
        strs(&[&["3", "16", "apple", "3.00", "8.0000"]])
    );
    assert_eq!(err(&mut s, "SELECT nope FROM items").code(), 1054);
    assert_eq!(err(&mut s, "SELECT * FROM nope").code(), 1146);
    assert_eq!(err(&mut s, "INSERT INTO items (id) VALUES (1, 2)").code(), 1136);
    q(&mut s, "TRUNCATE TABLE items");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM items"), strs(&[&["0"]]));
    q(&mut s, "DROP TABLE items");
    assert_eq!(err(&mut s, "DROP TABLE items").code(), 1051);
    q(&mut s, "DROP TABLE IF EXISTS items");
    q(&mut s, "DROP DATABASE shop");
    assert_eq!(s.database(), None);
    assert_eq!(err(&mut s, "DROP DATABASE shop").code(), 1008);
}

#[test]
fn select_features() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, g INT, v VARCHAR(10), KEY kg (g))");
    q(
        &mut s,
        "INSERT INTO t VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'b'), (4, 2, NULL), (5, 3, 'c')",
    );
    assert_eq!(
        rows(&mut s, "SELECT g, COUNT(*) AS n FROM t GROUP BY g ORDER BY n DESC, g"),
        strs(&[&["1", "2"], &["2", "2"], &["3", "1"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT v FROM t WHERE v IS NOT NULL ORDER BY v DESC"),
        strs(&[&["c"], &["b"], &["a"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE g = 2 OR v = 'a' ORDER BY id"),
        strs(&[&["1"], &["3"], &["4"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t ORDER BY id LIMIT 2 OFFSET 1"),
        strs(&[&["2"], &["3"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t ORDER BY id DESC LIMIT 1, 2"),
        strs(&[&["4"], &["3"]])
    );
    assert_eq!(rows(&mut s, "SELECT id FROM t WHERE id > 2 AND id <= 4"), strs(&[&["3"], &["4"]]));
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE g BETWEEN 2 AND 3 ORDER BY id"),
        strs(&[&["3"], &["4"], &["5"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE v LIKE 'B%' ORDER BY 1"),
        strs(&[&["2"], &["3"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT g, SUM(id) FROM t GROUP BY g HAVING SUM(id) > 3 ORDER BY g"),
        strs(&[&["2", "7"], &["3", "5"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT t.id, id * 10 + 1 AS x FROM t AS t WHERE t.id = 5"),
        strs(&[&["5", "51"]])
    );
    assert_eq!(rows(&mut s, "SELECT COUNT(DISTINCT v), COUNT(v) FROM t"), strs(&[&["3", "4"]]));
    assert_eq!(
        rows(&mut s, "SELECT 1, 1+2*3, 7/2, 7 DIV 2, 'x', NULL, CONCAT('a', 1), 2 > 1"),
        strs(&[&["1", "7", "3.5000", "3", "x", "NULL", "a1", "1"]])
    );
    assert_eq!(
        rows(&mut s, "SELECT DATABASE(), VERSION(), CONNECTION_ID() > 0"),
        strs(&[&["d", "8.0.40-binlogd", "1"]])
    );
    let o = q(&mut s, "SELECT NOW(), UNIX_TIMESTAMP()");
    assert!(matches!(o.rows()[0][0], Value::DateTime(_)));
    assert_eq!(o.column_names(), ["NOW()", "UNIX_TIMESTAMP()"]);
    assert_eq!(err(&mut s, "SELECT id FROM t WHERE COUNT(*) > 1").code(), 1111);
    assert_eq!(rows(&mut s, "SELECT 1 UNION SELECT 1"), strs(&[&["1"]]));
    // Joins run in the query layer (tests/sql_joins.rs); a self-join needs an alias.
    assert_eq!(err(&mut s, "SELECT * FROM t JOIN t").code(), 1066);
    assert_eq!(rows(&mut s, "SELECT id FROM t WHERE id IN (SELECT 1)"), strs(&[&["1"]]));
    assert_eq!(err(&mut s, "SELECT nosuch(1)").code(), 1305);
}

#[test]
fn transactions_commit_rollback_and_statement_undo() {
    let srv = server();
    let mut a = srv.session("root", "localhost");
    let mut b = srv.session("root", "localhost");
    q(&mut a, "CREATE DATABASE d");
    q(&mut a, "USE d");
    q(&mut b, "USE d");
    q(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    q(&mut a, "BEGIN");
    assert!(a.in_transaction());
    q(&mut a, "INSERT INTO t VALUES (1, 10)");
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), strs(&[&["0"]]));
    q(&mut a, "COMMIT");
    assert!(!a.in_transaction());
    assert_eq!(rows(&mut b, "SELECT v FROM t WHERE id = 1"), strs(&[&["10"]]));

    q(&mut a, "START TRANSACTION");
    q(&mut a, "UPDATE t SET v = 99 WHERE id = 1");
    q(&mut a, "ROLLBACK");
    assert_eq!(rows(&mut a, "SELECT v FROM t"), strs(&[&["10"]]));

    // A failing multi-row INSERT inside a transaction undoes only itself.
    q(&mut a, "BEGIN");
    q(&mut a, "INSERT INTO t VALUES (2, 20)");
    assert_eq!(err(&mut a, "INSERT INTO t VALUES (3, 30), (1, 0)").code(), 1062);
    assert!(a.in_transaction());
    assert_eq!(rows(&mut a, "SELECT id FROM t ORDER BY id"), strs(&[&["1"], &["2"]]));
    assert_eq!(err(&mut a, "SELEC 1").code(), 1064);
    assert!(a.in_transaction());
    q(&mut a, "COMMIT");
    assert_eq!(rows(&mut b, "SELECT id FROM t ORDER BY id"), strs(&[&["1"], &["2"]]));

    // autocommit=0 keeps a transaction open; SET autocommit=1 commits it.
    q(&mut a, "SET autocommit = 0");
    assert_eq!(rows(&mut a, "SELECT @@autocommit"), strs(&[&["0"]]));
    q(&mut a, "DELETE FROM t WHERE id = 2");
    assert!(a.in_transaction());
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), strs(&[&["2"]]));
    q(&mut a, "SET autocommit = 1");
    assert!(!a.in_transaction());
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), strs(&[&["1"]]));

    // DDL commits the open transaction.
    q(&mut a, "BEGIN");
    q(&mut a, "INSERT INTO t VALUES (5, 50)");
    q(&mut a, "CREATE TABLE u (x INT)");
    assert!(!a.in_transaction());
    assert_eq!(rows(&mut b, "SELECT COUNT(*) FROM t"), strs(&[&["2"]]));
}

/// `SET SESSION innodb_lock_wait_timeout` bounds that session's row lock waits (issue 19: it
/// showed the new value but the wait stayed the engine's 50 s).
#[test]
fn session_innodb_lock_wait_timeout_is_honoured() {
    let e = {
        let vfs = vfs::SimVfs::new().shared();
        let cfg = EngineConfig {
            checkpoint_redo_bytes: None,
            lock_wait_timeout: std::time::Duration::from_secs(50),
            ..EngineConfig::default()
        };
        Engine::open(vfs, Path::new("/data"), cfg).expect("opens").0
    };
    let srv = Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server");
    let mut a = srv.session("root", "localhost");
    let mut b = srv.session("root", "localhost");
    q(&mut a, "CREATE DATABASE d");
    q(&mut a, "USE d");
    q(&mut b, "USE d");
    q(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    q(&mut a, "INSERT INTO t VALUES (1, 1)");
    q(&mut a, "BEGIN");
    q(&mut a, "UPDATE t SET v = 10 WHERE id = 1");
    q(&mut b, "SET SESSION innodb_lock_wait_timeout = 1");
    assert_eq!(rows(&mut b, "SELECT @@innodb_lock_wait_timeout"), strs(&[&["1"]]));
    q(&mut b, "BEGIN");
    let started = std::time::Instant::now();
    let e = err(&mut b, "UPDATE t SET v = 30 WHERE id = 1");
    assert_eq!(e.code(), 1205);
    let waited = started.elapsed();
    assert!(
        waited >= std::time::Duration::from_millis(900)
            && waited < std::time::Duration::from_secs(10),
        "waited {waited:?}"
    );
    q(&mut a, "COMMIT");
    q(&mut b, "ROLLBACK");
}

#[test]
fn lock_wait_timeout_keeps_the_transaction() {
    let e = {
        let vfs = vfs::SimVfs::new().shared();
        let cfg = EngineConfig {
            checkpoint_redo_bytes: None,
            lock_wait_timeout: std::time::Duration::from_millis(50),
            ..EngineConfig::default()
        };
        Engine::open(vfs, Path::new("/data"), cfg).expect("opens").0
    };
    let srv = Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server");
    let mut a = srv.session("root", "localhost");
    let mut b = srv.session("root", "localhost");
    q(&mut a, "CREATE DATABASE d");
    q(&mut a, "USE d");
    q(&mut b, "USE d");
    q(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    q(&mut a, "INSERT INTO t VALUES (1, 1), (2, 2)");
    q(&mut a, "BEGIN");
    q(&mut a, "UPDATE t SET v = 10 WHERE id = 1");
    q(&mut b, "BEGIN");
    q(&mut b, "UPDATE t SET v = 20 WHERE id = 2");
    let e = err(&mut b, "UPDATE t SET v = 30 WHERE id = 1");
    assert_eq!((e.code(), e.sqlstate()), (1205, "HY000"));
    assert!(b.in_transaction(), "1205 rolls back the statement only");
    q(&mut a, "COMMIT");
    q(&mut b, "COMMIT");
    assert_eq!(rows(&mut a, "SELECT v FROM t ORDER BY id"), strs(&[&["10"], &["20"]]));
}

#[test]
fn strict_mode_value_errors() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(
        &mut s,
        "CREATE TABLE t (id TINYINT PRIMARY KEY, c CHAR(3) NOT NULL, d DATETIME, n INT NOT NULL)",
    );
    let e = err(&mut s, "INSERT INTO t VALUES (1000, 'a', NULL, 1)");
    assert_eq!(
        (e.code(), e.to_string().as_str()),
        (1264, "Out of range value for column 'id' at row 1")
    );
    let e = err(&mut s, "INSERT INTO t VALUES (1, 'abcd', NULL, 1)");
    assert_eq!((e.code(), e.to_string().as_str()), (1406, "Data too long for column 'c' at row 1"));
    assert_eq!(err(&mut s, "INSERT INTO t VALUES (1, NULL, NULL, 1)").code(), 1048);
    assert_eq!(err(&mut s, "INSERT INTO t VALUES (1, 'a', NULL, 'x')").code(), 1366);
    assert_eq!(err(&mut s, "INSERT INTO t VALUES (1, 'a', 'yesterday', 1)").code(), 1292);
    assert_eq!(err(&mut s, "INSERT INTO t (id, c) VALUES (1, 'a')").code(), 1364);
    q(&mut s, "INSERT INTO t VALUES ('7', 'abc', '2024-01-02 03:04:05', 2.6)");
    assert_eq!(rows(&mut s, "SELECT * FROM t"), strs(&[&["7", "abc", "2024-01-02 03:04:05", "3"]]));
    let e = err(&mut s, "SELECT 9223372036854775807 + 1");
    assert_eq!(e.code(), 1690);
}

#[test]
fn replace_and_on_duplicate_key_update() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, u INT, v INT, UNIQUE KEY ku (u))");
    q(&mut s, "INSERT INTO t VALUES (1, 1, 1), (2, 2, 2)");
    assert_eq!(q(&mut s, "REPLACE INTO t VALUES (1, 5, 5)").affected_rows(), 2);
    assert_eq!(
        q(&mut s, "INSERT INTO t VALUES (3, 2, 9) ON DUPLICATE KEY UPDATE v = v + VALUES(v)")
            .affected_rows(),
        2
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY id"),
        strs(&[&["1", "5", "5"], &["2", "2", "11"]])
    );
    assert_eq!(q(&mut s, "INSERT IGNORE INTO t VALUES (1, 7, 7)").affected_rows(), 0);
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        strs(&[&["Warning", "1062", "Duplicate entry '1' for key 'PRIMARY'"]])
    );
}

#[test]
fn variables() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    let o = q(&mut s, "SELECT @@version_comment, @@max_allowed_packet, @@session.autocommit, @@global.sync_binlog, @@sql_mode");
    assert_eq!(
        o.column_names(),
        [
            "@@version_comment",
            "@@max_allowed_packet",
            "@@session.autocommit",
            "@@global.sync_binlog",
            "@@sql_mode"
        ]
    );
    assert_eq!(o.text_rows()[0][..4], ["binlogd", "67108864", "1", "1"]);
    assert_eq!(err(&mut s, "SELECT @@nope").code(), 1193);
    assert_eq!(err(&mut s, "SET nope = 1").code(), 1193);
    assert_eq!(err(&mut s, "SET sync_binlog = 0").code(), 1229);
    assert_eq!(err(&mut s, "SET GLOBAL gtid_next = 'AUTOMATIC'").code(), 1228);
    assert_eq!(err(&mut s, "SET @@version = 'x'").code(), 1238);
    assert_eq!(err(&mut s, "SET autocommit = 'maybe'").code(), 1231);
    q(&mut s, "SET GLOBAL sync_binlog = 0");
    assert_eq!(rows(&mut s, "SELECT @@global.sync_binlog"), strs(&[&["0"]]));
    q(&mut s, "SET NAMES utf8mb4");
    q(&mut s, "SET SESSION transaction_isolation = 'READ-COMMITTED'");
    assert_eq!(rows(&mut s, "SELECT @@tx_isolation"), strs(&[&["READ-COMMITTED"]]));
    q(&mut s, "SET @a = 40, @b := @a + 2");
    assert_eq!(rows(&mut s, "SELECT @b, @unset"), strs(&[&["42", "NULL"]]));
    q(&mut s, "SET sql_mode = TRADITIONAL");
    assert_eq!(
        rows(&mut s, "SHOW VARIABLES LIKE 'sql_mode'"),
        strs(&[&["sql_mode", "TRADITIONAL"]])
    );
    let o = q(&mut s, "SHOW GLOBAL VARIABLES LIKE 'binlog_order%'");
    assert_eq!(o.column_names(), ["Variable_name", "Value"]);
    assert_eq!(o.text_rows(), strs(&[&["binlog_order_commits", "ON"]]));
    q(&mut s, "SET gtid_next = '3E11FA47-71CA-11E1-9E33-C80AA9429562:23'");
    assert_eq!(
        rows(&mut s, "SELECT @@gtid_next"),
        strs(&[&["3e11fa47-71ca-11e1-9e33-c80aa9429562:23"]])
    );
    assert_eq!(err(&mut s, "SET gtid_next = 'garbage'").code(), 1231);
    let e = Server::open(
        engine(),
        Hooks::without_binlog(&engine()),
        &[("sync-binlog".into(), "7".into())],
    );
    let mut s2 = e.expect("overrides apply").session("u", "h");
    assert_eq!(rows(&mut s2, "SELECT @@sync_binlog"), strs(&[&["7"]]));
}

#[test]
fn show_statements_have_mysql_shapes() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE sbtest");
    q(&mut s, "USE sbtest");
    q(&mut s, "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))");
    q(&mut s, "CREATE INDEX k_1 ON sbtest1(k)");
    let o = q(&mut s, "SHOW DATABASES");
    assert_eq!(o.column_names(), ["Database"]);
    assert_eq!(o.text_rows(), strs(&[&["information_schema"], &["sbtest"]]));
    let o = q(&mut s, "SHOW TABLES");
    assert_eq!(o.column_names(), ["Tables_in_sbtest"]);
    assert_eq!(o.text_rows(), strs(&[&["sbtest1"]]));
    q(&mut s, "INSERT INTO sbtest1 (k, c, pad) VALUES (5, 'x', 'y')");
    let o = q(&mut s, "SHOW CREATE TABLE sbtest1");
    assert_eq!(o.column_names(), ["Table", "Create Table"]);
    assert_eq!(
        o.text_rows()[0][1],
        "CREATE TABLE `sbtest1` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `k` int NOT NULL DEFAULT '0',\n  `c` char(120) NOT NULL DEFAULT '',\n  `pad` char(60) NOT NULL DEFAULT '',\n  PRIMARY KEY (`id`),\n  KEY `k_1` (`k`)\n) ENGINE=InnoDB AUTO_INCREMENT=2 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"
    );
    let o = q(&mut s, "DESCRIBE sbtest1");
    assert_eq!(o.column_names(), ["Field", "Type", "Null", "Key", "Default", "Extra"]);
    assert_eq!(o.text_rows()[0], ["id", "int", "NO", "PRI", "NULL", "auto_increment"]);
    assert_eq!(o.text_rows()[1], ["k", "int", "NO", "MUL", "0", ""]);
    let o = q(&mut s, "SHOW GLOBAL STATUS LIKE 'Com_insert'");
    assert_eq!(o.text_rows(), strs(&[&["Com_insert", "1"]]));
    assert_eq!(q(&mut s, "SHOW ENGINES").column_names()[0], "Engine");
    assert_eq!(q(&mut s, "SHOW INDEX FROM sbtest1").rows().len(), 2);
    let o = q(&mut s, "SHOW MASTER STATUS");
    assert_eq!(
        o.column_names(),
        ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"]
    );
    assert!(o.rows().is_empty());
    assert_eq!(err(&mut s, "SHOW BINARY LOGS").code(), 1381);
    assert_eq!(err(&mut s, "SHOW FOO").code(), 1064);
}

/// sysbench oltp_common.lua: prepare, then the run statements as prepared statements.
#[test]
fn sysbench_statement_set() {
    let srv = server();
    let mut s = srv.session("sbtest", "127.0.0.1");
    q(&mut s, "CREATE DATABASE sbtest");
    q(&mut s, "USE sbtest");
    q(&mut s, "CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */");
    let mut bulk = String::from("INSERT INTO sbtest1(k, c, pad) VALUES");
    for i in 1..=100 {
        bulk.push_str(&format!(
            "{}({}, '{:0>119}', '{:0>59}')",
            if i == 1 { "" } else { "," },
            i * 7 % 50,
            i,
            i
        ));
    }
    assert_eq!(q(&mut s, &bulk).affected_rows(), 100);
    q(&mut s, "CREATE INDEX k_1 ON sbtest1(k)");

    let point = s.prepare("SELECT c FROM sbtest1 WHERE id=?").expect("prepare");
    assert_eq!(point.params, 1);
    assert_eq!(point.columns.len(), 1);
    assert_eq!(point.columns[0].name, "c");
    let o = s.execute(&point, &[Value::Int(5)]).expect("point select");
    assert_eq!(o.text_rows(), strs(&[&[&format!("{:0>119}", 5)]]));

    let simple = s.prepare("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?").expect("prepare");
    assert_eq!(
        s.execute(&simple, &[Value::Int(10), Value::Int(19)]).expect("range").rows().len(),
        10
    );
    let sum = s.prepare("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?").expect("prepare");
    let expected: i64 = (1..=10).map(|i| i * 7 % 50).sum();
    assert_eq!(
        s.execute(&sum, &[Value::Int(1), Value::Int(10)]).expect("sum").text_rows(),
        strs(&[&[&expected.to_string()]])
    );
    let order =
        s.prepare("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c").expect("prepare");
    assert_eq!(
        s.execute(&order, &[Value::Int(1), Value::Int(100)]).expect("order").rows().len(),
        100
    );
    let distinct = s
        .prepare("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c")
        .expect("prepare");
    assert_eq!(
        s.execute(&distinct, &[Value::Int(1), Value::Int(100)]).expect("distinct").rows().len(),
        100
    );

    q(&mut s, "BEGIN");
    let upd_idx = s.prepare("UPDATE sbtest1 SET k=k+1 WHERE id=?").expect("prepare");
    assert_eq!(s.execute(&upd_idx, &[Value::Int(3)]).expect("update").affected_rows(), 1);
    let upd = s.prepare("UPDATE sbtest1 SET c=? WHERE id=?").expect("prepare");
    assert_eq!(
        s.execute(&upd, &[Value::Bytes(b"new".to_vec()), Value::Int(4)])
            .expect("update")
            .affected_rows(),
        1
    );
    let del = s.prepare("DELETE FROM sbtest1 WHERE id=?").expect("prepare");
    assert_eq!(s.execute(&del, &[Value::Int(5)]).expect("delete").affected_rows(), 1);
    let ins =
        s.prepare("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)").expect("prepare");
    let params =
        [Value::Int(5), Value::Int(1000), Value::Bytes(b"c".to_vec()), Value::Bytes(b"p".to_vec())];
    assert_eq!(s.execute(&ins, &params).expect("insert").affected_rows(), 1);
    q(&mut s, "COMMIT");
    assert_eq!(rows(&mut s, "SELECT k FROM sbtest1 WHERE id = 3"), strs(&[&["22"]]));
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM sbtest1 WHERE k = 1000"), strs(&[&["1"]]));
    assert_eq!(s.execute(&ins, &params[..3]).unwrap_err().code(), 1210);
    q(&mut s, "DROP TABLE IF EXISTS sbtest1");
}

/// mysqlslap --auto-generate-sql: its schema, inserts and selects.
#[test]
fn mysqlslap_statements() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "DROP SCHEMA IF EXISTS `mysqlslap`");
    q(&mut s, "CREATE SCHEMA `mysqlslap`");
    q(&mut s, "use mysqlslap");
    q(&mut s, "CREATE TABLE `t1` (intcol1 INT(32) ,charcol1 VARCHAR(128))");
    q(&mut s, "INSERT INTO t1 VALUES (1804289383,'mxvtvmC9127qJNm06sGB8R92q2j7vTiiITRDGXM9ZLzkdekbWtmXKwZ2qG1llkRw5m9DHOFilEREk3q7oce8O3BEJC0woJsm6uzFAEynLH2xCsw1KQ1lT4zg9rdxBL')");
    q(&mut s, "INSERT INTO t1 VALUES (822890675,'97RGHZ65mNzkSrYT3zWoSbg9cNePQr1bzSk81qDgE4Oanw3rnPfGsBHSbnu1evTdFDe83ro9w4jjteQg4yoo9xHck3WNqzs54W5zEsSIkMT5FE5JwxcOtIhpmE0Exd')");
    assert_eq!(rows(&mut s, "SELECT intcol1,charcol1 FROM t1").len(), 2);
    q(&mut s, "CREATE TABLE `t2` (id serial,intcol1 INT(32) ,charcol1 VARCHAR(128))");
    q(&mut s, "INSERT INTO t2 VALUES (NULL,100,'a')");
    assert_eq!(
        rows(&mut s, "SELECT intcol1,charcol1 FROM t2 WHERE id =  '1'"),
        strs(&[&["100", "a"]])
    );
    q(&mut s, "UPDATE t2 SET intcol1 = 7,charcol1 = 'b' WHERE id =  '1'");
    assert_eq!(rows(&mut s, "SELECT intcol1 FROM t2"), strs(&[&["7"]]));
    q(&mut s, "DROP SCHEMA IF EXISTS `mysqlslap`");
}

#[test]
fn committer_receives_row_images_and_ddl_text() {
    let e = engine();
    let rec = Recording::new(&e);
    let hooks = Hooks { committer: rec.clone(), ..Hooks::without_binlog(&e) };
    let srv = Server::open(e, hooks, &[]).expect("server");
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v DECIMAL(5,2))");
    q(&mut s, "BEGIN");
    q(&mut s, "INSERT INTO t VALUES (1, 1.5)");
    q(&mut s, "UPDATE t SET v = v + 1 WHERE id = 1");
    q(&mut s, "DELETE FROM t WHERE id = 1");
    assert!(err(&mut s, "INSERT INTO t VALUES (2, 1), (2, 2)").code() == 1062);
    q(&mut s, "COMMIT");
    q(&mut s, "SELECT * FROM t");
    let ddl = rec.ddl.lock().expect("lock").clone();
    assert_eq!(ddl[0], (None, "CREATE DATABASE d".to_string()));
    assert_eq!(
        ddl[1],
        (Some("d".into()), "CREATE TABLE t (id INT PRIMARY KEY, v DECIMAL(5,2))".to_string())
    );
    let commits = rec.commits.lock().expect("lock").clone();
    assert_eq!(commits.len(), 1, "read-only statements are not committed through the pipeline");
    let c = &commits[0].0.changes;
    let kinds: Vec<ChangeKind> = c.iter().map(|c| c.kind.clone()).collect();
    assert_eq!(
        kinds,
        [ChangeKind::Insert, ChangeKind::Update, ChangeKind::Delete],
        "the failed statement left nothing"
    );
    assert_eq!(c[0].names(), ("d", "t"));
    let dec = |s: &str| Value::Decimal(engine::Decimal::parse(s).expect("decimal"));
    assert_eq!(c[0].after, Some(vec![Value::Int(1), dec("1.50")]));
    assert_eq!(c[1].before, Some(vec![Value::Int(1), dec("1.50")]));
    assert_eq!(c[1].after, Some(vec![Value::Int(1), dec("2.50")]));
    assert_eq!(c[2].before, Some(vec![Value::Int(1), dec("2.50")]));

    // An assigned gtid_next reaches the committer once, then it is AUTOMATIC again.
    q(&mut s, "SET gtid_next = '3e11fa47-71ca-11e1-9e33-c80aa9429562:5'");
    q(&mut s, "INSERT INTO t VALUES (7, 1)");
    q(&mut s, "INSERT INTO t VALUES (8, 1)");
    let commits = rec.commits.lock().expect("lock").clone();
    assert!(matches!(commits[1].1, GtidNext::Assigned(g) if g.gno == 5));
    assert_eq!(commits[2].1, GtidNext::Automatic);
}

/// An admin that records the typed commands it receives.
#[derive(Default)]
struct AdminLog(Mutex<Vec<String>>);

impl BinlogAdmin for AdminLog {
    fn binary_logs(&self) -> Result<Vec<BinlogFileInfo>, SqlError> {
        Ok(vec![BinlogFileInfo { name: "binlog.000001".into(), size: 157 }])
    }
    fn master_status(&self) -> Result<Option<MasterStatus>, SqlError> {
        Ok(Some(MasterStatus {
            file: "binlog.000001".into(),
            position: 157,
            executed_gtid_set: "u:1-3".into(),
        }))
    }
    fn binlog_events(
        &self,
        f: Option<&str>,
        from: Option<u64>,
        off: u64,
        lim: Option<u64>,
    ) -> Result<Vec<BinlogEventInfo>, SqlError> {
        self.0.lock().expect("lock").push(format!("events {f:?} {from:?} {off} {lim:?}"));
        Ok(vec![BinlogEventInfo {
            log_name: "binlog.000001".into(),
            pos: 4,
            event_type: "Format_desc".into(),
            server_id: 1,
            end_log_pos: 126,
            info: "Server ver: 8.0.40-binlogd, Binlog ver: 4".into(),
        }])
    }
    fn flush_binary_logs(&self) -> Result<(), SqlError> {
        self.0.lock().expect("lock").push("flush".into());
        Ok(())
    }
    fn purge_to(&self, file: &str) -> Result<(), SqlError> {
        self.0.lock().expect("lock").push(format!("purge to {file}"));
        Ok(())
    }
    fn purge_before(&self, t: DateTime) -> Result<(), SqlError> {
        self.0.lock().expect("lock").push(format!("purge before {t}"));
        Ok(())
    }
    fn reset_master(&self) -> Result<(), SqlError> {
        self.0.lock().expect("lock").push("reset".into());
        Ok(())
    }
    fn gtid_executed(&self) -> String {
        "u:1-3".into()
    }
    fn gtid_purged(&self) -> String {
        "u:1".into()
    }
}

#[test]
fn binlog_admin_statements_reach_the_admin() {
    let e = engine();
    let log = Arc::new(AdminLog::default());
    let hooks = Hooks { admin: log.clone(), ..Hooks::without_binlog(&e) };
    let srv = Server::open(e, hooks, &[]).expect("server");
    let mut s = srv.session("root", "localhost");
    let o = q(&mut s, "SHOW BINARY LOGS");
    assert_eq!(o.column_names(), ["Log_name", "File_size", "Encrypted"]);
    assert_eq!(o.text_rows(), strs(&[&["binlog.000001", "157", "No"]]));
    assert_eq!(q(&mut s, "SHOW BINARY LOG STATUS").text_rows()[0][4], "u:1-3");
    let o = q(&mut s, "SHOW BINLOG EVENTS IN 'binlog.000001' FROM 4 LIMIT 1");
    assert_eq!(
        o.column_names(),
        ["Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info"]
    );
    q(&mut s, "FLUSH BINARY LOGS");
    q(&mut s, "PURGE BINARY LOGS TO 'binlog.000001'");
    q(&mut s, "PURGE MASTER LOGS BEFORE '2030-01-01 00:00:00'");
    q(&mut s, "RESET MASTER");
    assert_eq!(
        rows(&mut s, "SELECT @@global.gtid_executed, @@GLOBAL.gtid_purged"),
        strs(&[&["u:1-3", "u:1"]])
    );
    let calls = log.0.lock().expect("lock").clone();
    assert_eq!(
        calls,
        [
            "events Some(\"binlog.000001\") Some(4) 0 Some(1)",
            "flush",
            "purge to binlog.000001",
            "purge before 2030-01-01 00:00:00",
            "reset",
        ]
    );
    assert_eq!(
        sql::parse::parse("SHOW MASTER LOGS").expect("parses").stmt,
        sql::ast::Stmt::Admin(AdminCommand::ShowBinaryLogs)
    );
}

#[test]
fn databases_and_tables_survive_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = || {
        let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
        let e = Engine::open(vfs::RealVfs::shared(), dir.path(), cfg).expect("engine").0;
        Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server")
    };
    {
        let srv = open();
        let mut s = srv.session("root", "localhost");
        q(&mut s, "CREATE DATABASE keep");
        q(&mut s, "CREATE DATABASE empty_db");
        q(&mut s, "CREATE TABLE keep.t (id INT PRIMARY KEY, v VARCHAR(5))");
        q(&mut s, "INSERT INTO keep.t VALUES (1, 'one')");
        srv.engine().shutdown().expect("shutdown");
    }
    let srv = open();
    let mut s = srv.session("root", "localhost");
    assert_eq!(
        rows(&mut s, "SHOW DATABASES"),
        strs(&[&["empty_db"], &["information_schema"], &["keep"]])
    );
    assert_eq!(rows(&mut s, "SELECT v FROM keep.t"), strs(&[&["one"]]));
    q(&mut s, "USE keep");
    assert_eq!(rows(&mut s, "SHOW TABLES"), strs(&[&["t"]]));
}

#[test]
fn multi_statements_and_bad_input() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    let out = s.query_multi("SELECT 1; SELECT 'a;b'; SELEC; SELECT 3");
    assert_eq!(out.len(), 3);
    assert!(out[2].as_ref().is_err());
    for junk in [
        "",
        ";",
        "\u{0}",
        "'",
        "SELECT '",
        "SELECT 1 +",
        "((((",
        "SET",
        "SHOW",
        "INSERT INTO",
        "CREATE TABLE t (",
        "SELECT * FROM `",
    ] {
        let e = s.query(junk).expect_err(junk);
        assert!(matches!(e.code(), 1064 | 1065 | 1046 | 1235), "{junk}: {e}");
    }
    assert_eq!(rows(&mut s, "SELECT 1"), strs(&[&["1"]]));
}

/// One registry: a start-up-only variable refuses SET (1238) as the README's table says, the
/// server's own options (admin_port, log_error_verbosity) are visible to `@@` and SHOW
/// VARIABLES, and SET GLOBAL clamps an integer into its registry range.
#[test]
fn one_registry_for_options_and_sql() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    for name in ["server_id", "binlog_checksum", "gtid_mode", "binlog_in_redo", "port"] {
        assert_eq!(err(&mut s, &format!("SET GLOBAL {name} = 1")).code(), 1238, "{name}");
    }
    assert_eq!(rows(&mut s, "SELECT @@admin_port, @@log_error_verbosity"), strs(&[&["0", "3"]]));
    assert_eq!(
        rows(&mut s, "SHOW VARIABLES LIKE 'log_error%'"),
        strs(&[&["log_error", "stderr"], &["log_error_verbosity", "3"]])
    );
    q(&mut s, "SET GLOBAL max_connections = 0");
    assert_eq!(rows(&mut s, "SELECT @@global.max_connections"), strs(&[&["1"]]));
}
