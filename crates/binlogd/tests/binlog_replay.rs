//! Point-in-time replay with MariaDB's tool: `mariadb-binlog FILE | mariadb` from a source
//! binlogd into a fresh one reproduces the source's tables (equal CHECKSUM TABLE). The output
//! holds the DDL as statements and every row change as `BINLOG '…'` (base64 TABLE_MAP + ROWS
//! events), which binlogd applies through the session's write path (issue 18); its SET lines
//! (`max_delayed_threads`, `COMPLETION_TYPE`, MariaDB's `check_constraint_checks`, numeric
//! `sql_mode` and collation ids) must all be accepted, since the client stops at the first
//! error. Also: BINLOG needs SUPER (1227).
//!
//! `mariadb-binlog --read-from-remote-server` is not tested: it refuses any server whose
//! version does not start with a digit it knows (binlogd reports 8.0.40-binlogd;
//! docs/replication.md).
//!
//! Needs `mariadb-binlog` and `mariadb` (mariadb-client, installed by scripts/test.sh).

mod support;

use support::{fails, ok, replay_binlog, start, Running};

fn root(server: &Running, sql: &str) -> String {
    ok(support::mariadb(server.port, "root", "", &[], sql))
}

const NAMES: &str = "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci; \
                     SET collation_server = 'utf8mb4_general_ci';";

const WORKLOAD: &str = "
CREATE DATABASE pit;
CREATE TABLE pit.items (
  id INT PRIMARY KEY, ti TINYINT, su SMALLINT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
  db DOUBLE, de DECIMAL(20,6), ch CHAR(4), vc VARCHAR(40), tx TEXT, dt DATETIME);
CREATE TABLE pit.more (
  id INT PRIMARY KEY, f FLOAT, d DATE, tm TIME(3), y YEAR, d3 DATETIME(3), t6 TIMESTAMP(6) NULL,
  bn BINARY(4), vb VARBINARY(10), bl BLOB, e ENUM('s','m','l'), st SET('a','b','c'), bt BIT(10),
  j JSON);
INSERT INTO pit.more VALUES
  (1, 1.5, '2024-02-29', '-838:59:59.000', 2155, '2000-01-01 00:00:00.123',
   '2038-01-19 03:14:07.999999', 'ab', 'x\\0y', x'00ff10', 'm', 'a,c', b'1000000011',
   '{\"k\": [1, 2.5, \"s\", null, true]}'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE pit.more SET tm = '00:00:00.5', e = 'l', st = 'b', bt = b'1', j = '{\"u\": 1}' WHERE id = 2;
CREATE TABLE pit.log (msg VARCHAR(20), n INT, KEY (n));
CREATE TABLE pit.seq (k BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5));
INSERT INTO pit.items VALUES
  (1, -128, 65535, -9223372036854775808, 18446744073709551615, 1.5, -12345678901234.123456,
   'ab', 'it''s \\\\ é 😀', 'line1\\nline2', '2020-02-29 23:59:59'),
  (2, 127, 0, 9223372036854775807, 0, -2.25, 0.000001, '', '', '', '1000-01-01 00:00:00'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO pit.log VALUES ('same', 1), ('same', 1), (NULL, 2);
INSERT INTO pit.seq (v) VALUES ('a'), ('b'), ('c');
BEGIN;
INSERT INTO pit.log VALUES ('txn', 3);
UPDATE pit.items SET vc = 'updated', id = 20 WHERE id = 2;
DELETE FROM pit.seq WHERE k = 2;
UPDATE pit.log SET n = 7 WHERE msg = 'same';
DELETE FROM pit.log WHERE msg IS NULL;
COMMIT;
CREATE TABLE pit.gone (a INT PRIMARY KEY);
INSERT INTO pit.gone VALUES (1);
DROP TABLE pit.gone;
UPDATE pit.items SET tx = CONCAT(tx, '!'), bi = bi + 1 WHERE id = 1;
DELETE FROM pit.items WHERE id = 3;
INSERT INTO pit.seq (v) VALUES ('d');
ALTER TABLE pit.log ADD COLUMN extra VARCHAR(5) DEFAULT 'e' FIRST, MODIFY n BIGINT, ADD KEY (msg);
INSERT INTO pit.log VALUES ('x', 'after', 8);
CREATE TABLE pit.tmp LIKE pit.seq;
INSERT INTO pit.tmp (v) VALUES ('t');
RENAME TABLE pit.tmp TO pit.renamed;
ALTER TABLE pit.renamed CHANGE v w VARCHAR(9) NOT NULL DEFAULT '', RENAME TO pit.seq2;
INSERT INTO pit.seq2 (w) VALUES ('u');
";

const TABLES: &str = "pit.items, pit.more, pit.log, pit.seq, pit.seq2";

#[test]
fn mariadb_binlog_output_replays_rows_into_a_fresh_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source_dir = dir.path().join("source");
    let source = start(&source_dir, &["--initialize-insecure"]);
    root(&source, &format!("{NAMES} {WORKLOAD}"));
    let expected = root(&source, &format!("CHECKSUM TABLE {TABLES}"));
    assert!(!expected.contains("NULL"), "{expected}");

    let file = source_dir.join("binlog").join("binlog.000001");
    let target = start(&dir.path().join("target"), &["--initialize-insecure"]);
    let text = replay_binlog(&file, target.port);
    assert!(text.contains("BINLOG '"), "row events are printed as BINLOG statements");
    assert_eq!(root(&target, &format!("CHECKSUM TABLE {TABLES}")), expected);
    assert_eq!(
        root(&target, "SELECT id, vc FROM pit.items ORDER BY id"),
        root(&source, "SELECT id, vc FROM pit.items ORDER BY id")
    );
    // The replayed rows were binlogged again on the target (they committed like statements).
    let events = root(&target, "SHOW BINLOG EVENTS");
    assert!(events.contains("Write_rows"), "{events}");
    assert!(events.contains("Update_rows") && events.contains("Delete_rows"), "{events}");

    // BINLOG needs SUPER (mysqld: SUPER, BINLOG_ADMIN or REPLICATION_APPLIER).
    root(&target, "CREATE USER plain@'%' IDENTIFIED BY 'pw'; GRANT ALL ON pit.* TO plain@'%'");
    let first = text.find("BINLOG '").expect("a BINLOG statement");
    let end = text[first..].find("'/*!*/;").expect("its end") + first + 1;
    let stmt = &text[first..end];
    let e = fails(support::mariadb(target.port, "plain", "pw", &[], stmt));
    assert!(e.contains("1227"), "{e}");
    assert!(e.contains("SUPER, BINLOG_ADMIN or REPLICATION_APPLIER"), "{e}");
}
