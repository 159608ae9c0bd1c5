//! COM_CHANGE_USER through a real driver (mysql-connector-python's `cmd_change_user`, pure
//! Python) against the real server: the session is reset (user variables, session variables,
//! the open transaction rolled back), the new account and database apply, both a
//! mysql_native_password account (the driver answers with caching_sha2_password first, so
//! binlogd switches it) and a caching_sha2_password one log in, SHOW PROCESSLIST shows the new
//! user, and a wrong password is 1045 with the connection closed, as mysqld does.
//!
//! Needs `python3` with mysql-connector-python (scripts/test.sh installs it); PyMySQL has no
//! COM_CHANGE_USER. The raw packet exchange is tested in crates/protocol/tests/protocol_raw.rs.

mod support;

use std::process::Command;

use support::{ok, start};

const SCRIPT: &str = r#"
import sys
import mysql.connector

port = int(sys.argv[1])
c = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="",
                            use_pure=True, ssl_disabled=False)
cur = c.cursor()
cur.execute("SET @x = 5")
cur.execute("SET SESSION sql_mode = 'ANSI_QUOTES'")
cur.execute("BEGIN")
cur.execute("INSERT INTO cu.t VALUES (1)")
cur.close()

def show(conn, label):
    k = conn.cursor()
    k.execute("SELECT CURRENT_USER(), DATABASE(), @x, @@sql_mode")
    row = k.fetchone()
    k.execute("SELECT COUNT(*) FROM cu.t")
    count = k.fetchone()[0]
    k.execute("SELECT CONNECTION_ID()")
    cid = k.fetchone()[0]
    k.close()
    print(label, row[0], row[1], row[2], row[3] == "ANSI_QUOTES", count, cid)

before = c.connection_id
c.cmd_change_user(username="nat", password="natpw", database="cu")
show(c, "native")
c.cmd_change_user(username="sha", password="shapw", database="")
show(c, "sha2")
print("same connection", c.connection_id == before)
try:
    c.cmd_change_user(username="nat", password="wrong")
    print("wrong password accepted")
except mysql.connector.Error as e:
    print("wrong password", e.errno, e.sqlstate)
try:
    k = c.cursor()
    k.execute("SELECT 1")
    print("still open", k.fetchall())
except mysql.connector.Error as e:
    print("closed")
"#;

#[test]
fn mysql_connector_change_user_resets_and_reauthenticates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(&dir.path().join("data"), &["--initialize-insecure"]);
    let root = |sql: &str| ok(support::mariadb(server.port, "root", "", &[], sql));
    root(
        "CREATE DATABASE cu; CREATE TABLE cu.t (id INT PRIMARY KEY); \
         CREATE USER nat@'%' IDENTIFIED WITH mysql_native_password BY 'natpw'; \
         CREATE USER sha@'%' IDENTIFIED WITH caching_sha2_password BY 'shapw'; \
         GRANT SELECT ON cu.* TO nat@'%'; GRANT SELECT ON cu.* TO sha@'%'",
    );
    let out = Command::new("python3")
        .args(["-c", SCRIPT, &server.port.to_string()])
        .output()
        .expect("run python3 (scripts/test.sh installs mysql-connector-python)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let fields = |label: &str| -> Vec<String> {
        let line = lines.iter().find(|l| l.starts_with(label)).unwrap_or_else(|| {
            panic!("no {label} line in {stdout}");
        });
        line.split(' ').map(str::to_string).collect()
    };
    // The open transaction was rolled back (0 rows), @x and sql_mode are gone.
    let native = fields("native ");
    assert_eq!(native[1..6], ["nat@%", "cu", "None", "False", "0"], "{stdout}");
    let sha2 = fields("sha2 ");
    assert_eq!(sha2[1..6], ["sha@%", "None", "None", "False", "0"], "{stdout}");
    assert_eq!(native[6], sha2[6], "CONNECTION_ID() stays the same");
    assert!(lines.contains(&"same connection True"), "{stdout}");
    assert!(lines.contains(&"wrong password 1045 28000"), "{stdout}");
    assert!(lines.contains(&"closed"), "{stdout}");
    // Nothing of the rolled-back transaction reached the table.
    assert_eq!(root("SELECT COUNT(*) FROM cu.t").trim(), "0");
}

/// SHOW PROCESSLIST names the account a connection changed to (mysqld's `Security_context`
/// changes with COM_CHANGE_USER).
#[test]
fn processlist_shows_the_changed_user() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(&dir.path().join("data"), &["--initialize-insecure"]);
    let root = |sql: &str| ok(support::mariadb(server.port, "root", "", &[], sql));
    root(
        "CREATE DATABASE cu; CREATE USER nat@'%' IDENTIFIED WITH mysql_native_password BY 'p'; \
         GRANT PROCESS ON *.* TO nat@'%'; GRANT SELECT ON cu.* TO nat@'%'",
    );
    let script = r#"
import sys
import mysql.connector
c = mysql.connector.connect(host="127.0.0.1", port=int(sys.argv[1]), user="root", password="",
                            use_pure=True)
c.cmd_change_user(username="nat", password="p", database="cu")
k = c.cursor()
k.execute("SELECT ID, USER, DB FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
print(*k.fetchone()[1:])
"#;
    let out = Command::new("python3")
        .args(["-c", script, &server.port.to_string()])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.trim(), "nat cu");
}
