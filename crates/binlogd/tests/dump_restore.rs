//! Dumps and binlogs read by MariaDB's own tools: `mariadb-dump` (plain, `--single-transaction`,
//! `--master-data=2`, MariaDB 10.11's name for `--source-data`) of a database holding every
//! column type binlogd has, restored through the `mariadb` client into a fresh binlogd with
//! equal CHECKSUM TABLE and SHOW CREATE TABLE; and `mariadb-binlog` reading a multi-statement,
//! multi-table transaction with one TABLE_MAP per table per statement and STMT_END_F on each
//! statement's last ROWS event, as mysqld writes them. `scripts/test.sh` installs the tools
//! (mariadb-client).

mod support;

use std::process::Command;

use support::{client, feed, ok, start, Running};

fn root(server: &Running, sql: &str) -> String {
    ok(support::mariadb(server.port, "root", "", &[], sql))
}

/// Every column type binlogd has, with edge values, a table without a primary key, an
/// AUTO_INCREMENT counter and a multi-statement transaction.
const SEED: &str = "
CREATE DATABASE shop;
CREATE TABLE shop.types (
  id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT, bi BIGINT,
  bu BIGINT UNSIGNED, db DOUBLE, fl FLOAT, de DECIMAL(20,6), ch CHAR(4), vc VARCHAR(40),
  tx TEXT, dt DATETIME, d3 DATETIME(3), ts TIMESTAMP);
INSERT INTO shop.types VALUES
  (1, -128, 255, -32768, -8388608, -9223372036854775808, 18446744073709551615, 1.5e300,
   1.25, -12345678901234.123456, 'ab', 'it''s \\\\ \"q\" é ü 😀', 'line1\\nline2',
   '2020-02-29 23:59:59', '2021-01-01 00:00:00.123', '2038-01-19 03:14:07'),
  (2, 127, 0, 32767, 8388607, 9223372036854775807, 0, -0.0, -3.5, 0.000001, '', '', '',
   '1000-01-01 00:00:00', '9999-12-31 23:59:59.999', '1970-01-01 00:00:01'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE shop.more (
  id INT PRIMARY KEY, d DATE, tm TIME(3), y YEAR, t6 TIMESTAMP(6) NULL, bn BINARY(4),
  vb VARBINARY(10), bl BLOB, mt MEDIUMTEXT, e ENUM('s','m','l'), st SET('a','b','c'),
  bt BIT(10), j JSON);
INSERT INTO shop.more VALUES
  (1, '2024-02-29', '-838:59:59.000', 2155, '2038-01-19 03:14:07.999999', 'ab', 'x\\0y',
   x'00ff10', 'medium é', 'm', 'a,c', b'1000000011',
   '{\"k\": [1, 2.5, \"s\", null, true], \"n\": {\"m\": -7}}'),
  (2, '1000-01-01', '12:34:56.789', 1901, '1970-01-01 00:00:01', '', '', '', '', 's', '',
   b'0', '[]'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE shop.log (msg VARCHAR(20), n INT, KEY (n));
INSERT INTO shop.log VALUES ('same', 1), ('same', 1), (NULL, 2);
CREATE TABLE shop.seq (k BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5));
INSERT INTO shop.seq (v) VALUES ('a'), ('b'), ('c');
DELETE FROM shop.seq WHERE k = 2;
BEGIN;
INSERT INTO shop.log VALUES ('txn', 3);
UPDATE shop.types SET vc = 'updated' WHERE id = 2;
INSERT INTO shop.seq (v) VALUES ('d');
COMMIT;
";

const TABLES: [&str; 4] = ["shop.types", "shop.more", "shop.log", "shop.seq"];

/// CHECKSUM TABLE of every table, then SHOW CREATE TABLE of each.
fn fingerprint(server: &Running) -> String {
    let mut out = root(server, &format!("CHECKSUM TABLE {}", TABLES.join(", ")));
    for t in TABLES {
        out.push_str(&root(server, &format!("SHOW CREATE TABLE {t}")));
    }
    out
}

fn dump(server: &Running, options: &[&str]) -> Vec<u8> {
    let out = client("mariadb-dump", server.port, "root", "")
        .args(options)
        .args(["--databases", "shop"])
        .output()
        .expect("run mariadb-dump (scripts/test.sh installs mariadb-client)");
    assert!(
        out.status.success(),
        "mariadb-dump {options:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn mariadb_dump_restores_into_a_fresh_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = start(&dir.path().join("source"), &["--initialize-insecure"]);
    root(&source, SEED);
    let expected = fingerprint(&source);
    let checksums = root(&source, &format!("CHECKSUM TABLE {}", TABLES.join(", ")));
    assert!(!checksums.contains("NULL"), "every table has a checksum: {checksums}");
    for (n, options) in
        [&[][..], &["--single-transaction"], &["--single-transaction", "--master-data=2"]]
            .into_iter()
            .enumerate()
    {
        let file = dump(&source, options);
        let text = String::from_utf8_lossy(&file);
        assert!(text.starts_with("/*M!999999\\- enable the sandbox mode */"), "{text}");
        if options.contains(&"--master-data=2") {
            // The position printed is the binlog end SHOW MASTER STATUS reports.
            let status = root(&source, "SHOW MASTER STATUS");
            let mut fields = status.split_whitespace();
            let (file_name, pos) = (fields.next().expect("file"), fields.next().expect("pos"));
            let line =
                format!("-- CHANGE MASTER TO MASTER_LOG_FILE='{file_name}', MASTER_LOG_POS={pos};");
            assert!(text.contains(&line), "{line} in:\n{text}");
        }
        let target = start(&dir.path().join(format!("target{n}")), &["--initialize-insecure"]);
        feed(target.port, &file, "restore");
        assert_eq!(fingerprint(&target), expected, "mariadb-dump {options:?}");
    }
}

#[test]
fn mariadb_binlog_reads_per_statement_table_maps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let server = start(&data, &["--initialize-insecure"]);
    root(
        &server,
        "CREATE DATABASE d; CREATE TABLE d.a (id INT PRIMARY KEY, v VARCHAR(5));
         CREATE TABLE d.b (id INT PRIMARY KEY, w DOUBLE);
         BEGIN;
         INSERT INTO d.a VALUES (1, 'x'), (2, 'y');
         INSERT INTO d.b VALUES (1, 1.5);
         UPDATE d.a SET v = 'z' WHERE id = 1;
         SAVEPOINT s; DELETE FROM d.b; ROLLBACK TO SAVEPOINT s;
         DELETE FROM d.a WHERE id = 2;
         COMMIT;",
    );
    let out = Command::new("mariadb-binlog")
        .arg(data.join("binlog").join("binlog.000001"))
        .output()
        .expect("run mariadb-binlog (scripts/test.sh installs mariadb-client)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    // The transaction: BEGIN, then per statement its TABLE_MAP and one ROWS event ending the
    // statement (the rolled-back DELETE left nothing), then the XID.
    let events: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            if l.contains("Table_map: `d`.`a`") {
                Some("map a")
            } else if l.contains("Table_map: `d`.`b`") {
                Some("map b")
            } else if l.contains("_rows: table id") {
                Some(if l.contains("flags: STMT_END_F") { "rows end" } else { "rows" })
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        events,
        ["map a", "rows end", "map b", "rows end", "map a", "rows end", "map a", "rows end"],
        "{text}"
    );
    assert!(text.contains("Update_rows") && text.contains("Delete_rows"), "{text}");
}
