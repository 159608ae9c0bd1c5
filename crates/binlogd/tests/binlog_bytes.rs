//! Row images of issue 19's byte types, decoded by python-mysql-replication (unmodified, as
//! Debezium-like consumers use it) from binlogd's binlog with `binlog_row_metadata=FULL`:
//! each value must come back as inserted (BINARY without its 0x00 padding, as mysqld logs it;
//! ENUM/SET by name through the TABLE_MAP's ENUM_STR_VALUE/SET_STR_VALUE; BIT as its bits;
//! JSON decoded from MySQL's binary JSON).
//!
//! Needs python3 with mysql-replication (scripts/test.sh installs it).

mod support;

use mysql_async::prelude::Queryable;
use support::start;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_mysql_replication_decodes_every_byte_type() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server =
        start(&tmp.path().join("data"), &["--initialize-insecure", "--binlog-row-metadata=FULL"]);
    let mut c = support::sql::conn(server.port).await;
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, b BINARY(4), vb VARBINARY(8), tb TINYBLOB, \
         mb MEDIUMBLOB, lt LONGTEXT, tt TINYTEXT, e ENUM('small','medium','large'), \
         s SET('a','b','c'), bt BIT(10), j JSON)",
        "INSERT INTO d.t VALUES (1, 'ab', x'00ff10', x'0001', 'blob', 'long ü', 'tiny', \
         'medium', 'a,c', b'1000000011', '{\"k\": [1, 2.5, \"x\", null, true], \"a\": {\"b\": -70000}}')",
        "INSERT INTO d.t VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        "INSERT INTO d.t VALUES (3, 'abcd', '', '', '', '', '', 'large', 'b', 0, '\"str\"')",
    ] {
        c.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let row4 = format!(
        "INSERT INTO d.t VALUES (4, '', 'x', 'y', '{}', 'q', 'w', 'small', 'a,b,c', 1023, \
         '[18446744073709551615, -9223372036854775808, 1e300, {{}}]')",
        "z".repeat(300)
    );
    c.query_drop(&row4).await.unwrap_or_else(|e| panic!("{row4}: {e}"));
    let rows = support::drivers::python_lines(
        "stream_typed_rows.py",
        &[&server.port.to_string(), "binlog.000001"],
    )
    .await;
    let z300 = "z".repeat(300);
    // python-mysql-replication decodes a zero-length string or binary value as `''` (a str),
    // so the empty BINARY (its 0x00 padding is not logged, as mysqld's `Field_string::pack`),
    // VARBINARY and BLOB values print as nothing rather than `0x`.
    let want = vec![
        "d.t id=1 b=0x6162 vb=0x00ff10 tb=0x0001 mb=0x626c6f62 lt=long ü tt=tiny e=medium \
         s={a,c} bt=1000000011 j=json:{\"a\":{\"b\":-70000},\"k\":[1,2.5,\"x\",null,true]}"
            .to_string(),
        "d.t id=2 b=NULL vb=NULL tb=NULL mb=NULL lt=NULL tt=NULL e=NULL s=NULL bt=NULL j=NULL"
            .to_string(),
        "d.t id=3 b=0x61626364 vb= tb= mb= lt= tt= e=large s={b} bt=0000000000 \
         j=json:\"str\""
            .to_string(),
        format!(
            "d.t id=4 b= vb=0x78 tb=0x79 mb=0x{} lt=q tt=w e=small s={{a,b,c}} bt=1111111111 \
             j=json:[18446744073709551615,-9223372036854775808,1e+300,{{}}]",
            "7a".repeat(300)
        ),
    ];
    let _ = z300;
    assert_eq!(rows, want);
    c.disconnect().await.expect("disconnect");
}
