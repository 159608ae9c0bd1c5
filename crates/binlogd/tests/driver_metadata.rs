//! Real drivers read result metadata and values back through binlogd's column definitions
//! (issue 18): PyMySQL (text and, with mysql-connector-python, prepared statements) decode
//! text columns in the charset the definition names, so a swapped charset/length pair made
//! them return bytes or mojibake and nonsense precision. Also CLIENT_FOUND_ROWS (an unchanged
//! matched row counts as affected) and `SET NAMES` inside a SET list.
//!
//! Needs `python3` with PyMySQL and mysql-connector-python (scripts/test.sh installs them).

mod support;

use std::process::Command;

use support::{fails, mariadb, ok, start, stop};

const SCRIPT: &str = r#"
import sys, decimal, datetime
driver, port = sys.argv[1], int(sys.argv[2])
if driver == "pymysql":
    import pymysql
    from pymysql.constants import CLIENT
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           database="d", charset="utf8mb4", client_flag=CLIENT.FOUND_ROWS)
    cur = conn.cursor()
else:
    import mysql.connector
    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="",
                                   database="d", charset="utf8mb4", use_pure=True,
                                   client_flags=[mysql.connector.constants.ClientFlag.FOUND_ROWS])
    cur = conn.cursor(prepared=True)
ph = "%s"
cur.execute("SELECT id, sku, qty, price, note, d, f, SUM(qty) AS s, UPPER(sku) FROM t "
            "WHERE id = " + ph + " GROUP BY id", (1,))
row = cur.fetchone()
names = [c[0] for c in cur.description]
print("names", names)
print("values", [type(v).__name__ for v in row])
print("text", row[1], row[4])
print("decimal", row[3], "double", row[6], "datetime", row[5])
if driver == "pymysql":
    # (name, type, display, internal_size, precision, scale, null_ok)
    for d in cur.description[:5]:
        print("desc", d[0], d[1], d[3], d[4], d[5], d[6])
cur.execute("UPDATE t SET qty = 2 WHERE id = 1")
print("found rows", cur.rowcount)
conn.close()
"#;

fn python(driver: &str, port: u16) -> String {
    let out = Command::new("python3")
        .args(["-c", SCRIPT, driver, &port.to_string()])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{driver}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn python_drivers_read_metadata_and_text_back_intact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(&dir.path().join("data"), &["--initialize-insecure"]);
    let port = server.port;
    ok(mariadb(
        port,
        "root",
        "",
        &[],
        "CREATE DATABASE d; USE d; \
         CREATE TABLE t (id INT NOT NULL PRIMARY KEY, sku VARCHAR(50) NOT NULL, qty INT, \
         price DECIMAL(20,6), note TEXT, d DATETIME, f DOUBLE); \
         INSERT INTO t VALUES (1, 'ünï😀', 2, 12.5, 'tëxt 😀', '2024-02-29 13:14:15', 0.25); \
         SET autocommit = 1, NAMES utf8mb4",
    ));
    let names = "names ['id', 'sku', 'qty', 'price', 'note', 'd', 'f', 's', 'UPPER(sku)']\n";
    let py = python("pymysql", port);
    assert!(py.starts_with(names), "{py}");
    assert!(
        py.contains(
            "values ['int', 'str', 'int', 'Decimal', 'str', 'datetime', 'float', 'Decimal', 'str']"
        ),
        "{py}"
    );
    assert!(py.contains("text ünï😀 tëxt 😀\n"), "{py}");
    assert!(py.contains("decimal 12.500000 double 0.25 datetime 2024-02-29 13:14:15\n"), "{py}");
    // VARCHAR(50) in utf8mb4: 200 bytes (was 5 570 560 with the swapped fields); DECIMAL(20,6):
    // width 22, scale 6 (PyMySQL reports the width as precision); NOT NULL columns are not
    // nullable.
    assert!(py.contains("desc id 3 11 11 0 False\n"), "{py}");
    assert!(py.contains("desc sku 253 200 200 0 False\n"), "{py}");
    assert!(py.contains("desc price 246 22 22 6 True\n"), "{py}");
    assert!(py.contains("desc note 252 262140 262140 0 True\n"), "{py}");
    // CLIENT_FOUND_ROWS: the matched, unchanged row counts.
    assert!(py.ends_with("found rows 1\n"), "{py}");
    let connector = python("connector", port);
    assert!(connector.starts_with(names), "{connector}");
    assert!(connector.contains("text ünï😀 tëxt 😀\n"), "{connector}");
    assert!(connector.ends_with("found rows 1\n"), "{connector}");
    // caching_sha2_password hashes at most 256 bytes (mysqld's
    // CACHING_SHA2_PASSWORD_MAX_PASSWORD_LENGTH): a longer one is refused before hashing.
    let long = "x".repeat(257);
    let refused =
        fails(mariadb(port, "root", "", &[], &format!("CREATE USER u IDENTIFIED BY '{long}'")));
    assert!(refused.contains("1819"), "{refused}");
    ok(mariadb(port, "root", "", &[], &format!("CREATE USER u IDENTIFIED BY '{}'", &long[1..])));
    let refused =
        fails(mariadb(port, "root", "", &[], &format!("ALTER USER u IDENTIFIED BY '{long}'")));
    assert!(refused.contains("1819"), "{refused}");
    stop(server, "-TERM");
}
