//! latin1 and ascii columns in binlogd's row images (issue 19), decoded by
//! python-mysql-replication (unmodified) with `binlog_row_metadata=FULL`: it reads each
//! column's collation from the TABLE_MAP and decodes the bytes in that character set, so the
//! bytes must be latin1's (`é` is 0xE9), as mysqld logs them; UTF-8 bytes would decode as
//! `Ã©`. Rows written by a `SET NAMES latin1` client (string parameters in latin1) come out
//! the same, and it reads latin1 bytes back.
//!
//! Needs python3 with mysql-replication (scripts/test.sh installs it).

mod support;

use mysql_async::prelude::Queryable;
use support::start;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_mysql_replication_decodes_latin1_columns() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server =
        start(&tmp.path().join("data"), &["--initialize-insecure", "--binlog-row-metadata=FULL"]);
    let mut c = support::sql::conn(server.port).await;
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.l (id INT PRIMARY KEY, l VARCHAR(10) CHARACTER SET latin1, \
         a CHAR(4) CHARACTER SET ascii, u VARCHAR(10), t TEXT CHARACTER SET latin1) \
         DEFAULT CHARSET=utf8mb4",
        "INSERT INTO d.l VALUES (1, 'café', 'ab', 'café', 'Ça va'), (2, NULL, NULL, NULL, '')",
        "UPDATE d.l SET l = 'naïve' WHERE id = 2",
    ] {
        c.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // A latin1 client: the statement's bytes are latin1 (0xE9 for é).
    let mut raw = mysql_async::Conn::new(
        mysql_async::OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(server.port)
            .user(Some("root")),
    )
    .await
    .expect("connect");
    raw.query_drop("SET NAMES latin1").await.expect("set names");
    // String parameters are in character_set_client too (the text protocol's statement
    // bytes cannot be sent from this driver, which takes `&str`).
    raw.exec_drop(
        "INSERT INTO d.l VALUES (3, ?, 'x', ?, NULL)",
        (b"d\xe9j\xe0".to_vec(), b"\xe9t\xe9".to_vec()),
    )
    .await
    .expect("insert");
    // Results come back in latin1.
    let back: Vec<Vec<u8>> = raw.query("SELECT l FROM d.l WHERE id = 3").await.expect("select");
    assert_eq!(back, vec![b"d\xe9j\xe0".to_vec()]);
    let rows = support::drivers::python_lines(
        "stream_typed_rows.py",
        &[&server.port.to_string(), "binlog.000001"],
    )
    .await;
    assert_eq!(
        rows,
        vec![
            "d.l id=1 l=café a=ab u=café t=Ça va",
            "d.l id=2 l=NULL a=NULL u=NULL t=",
            "d.l id=3 l=déjà a=x u=été t=NULL",
        ]
    );
    raw.disconnect().await.expect("disconnect");
    c.disconnect().await.expect("disconnect");
}
