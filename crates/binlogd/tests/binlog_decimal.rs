//! DECIMAL(65,30) and other wide DECIMALs in the binlog (issue 19): binlogd's TABLE_MAP
//! (NEWDECIMAL with precision and scale) and row images (mysqld's packed `decimal2bin` form)
//! decode to the values inserted with python-mysql-replication (unmodified, installed by
//! scripts/test.sh) and with MariaDB's `mariadb-binlog --verbose` (mariadb-client).

mod support;

use std::process::Command;

use mysql_async::prelude::Queryable;
use support::start;

const BIG: &str = "12345678901234567890123456789012345.123456789012345678901234567890";
const MIN: &str = "-99999999999999999999999999999999999.999999999999999999999999999999";
const W65: &str = "99999999999999999999999999999999999999999999999999999999999999999";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_decimal_rows_decode_with_real_tools() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let data = tmp.path().join("data");
    let server = start(&data, &["--initialize-insecure", "--binlog-row-metadata=FULL"]);
    let mut conn = support::sql::conn(server.port).await;
    for sql in [
        "CREATE DATABASE ddb".to_string(),
        "CREATE TABLE ddb.t (id INT PRIMARY KEY, v DECIMAL(65,30), w DECIMAL(65,0), \
         x DECIMAL(40,10))"
            .to_string(),
        format!("INSERT INTO ddb.t VALUES (1, {BIG}, {W65}, -123456789012345678901234567890.5)"),
        format!("INSERT INTO ddb.t VALUES (2, {MIN}, -{W65}, 0)"),
        "INSERT INTO ddb.t VALUES (3, 0.000000000000000000000000000001, 18446744073709551616, \
         NULL)"
            .to_string(),
        "UPDATE ddb.t SET v = -v WHERE id = 3".to_string(),
    ] {
        conn.query_drop(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let x1 = "-123456789012345678901234567890.5000000000";
    let tiny = "0.000000000000000000000000000001";
    let port = server.port.to_string();
    let rows =
        support::drivers::python_lines("stream_rows.py", &[&port, "file", "binlog.000001"]).await;
    // Python's Decimal prints 1E-30 for the smallest value, and keeps the scale's zeros.
    assert_eq!(
        rows,
        [
            format!("INSERT ddb.t [1,{BIG},{W65},{x1}]"),
            format!("INSERT ddb.t [2,{MIN},-{W65},0E-10]"),
            "INSERT ddb.t [3,1E-30,18446744073709551616,NULL]".to_string(),
            "UPDATE ddb.t [3,1E-30,18446744073709551616,NULL] -> \
             [3,-1E-30,18446744073709551616,NULL]"
                .to_string(),
        ]
    );

    // mariadb-binlog's verbose row listing decodes the same images (its own decimal2bin).
    let file = data.join("binlog").join("binlog.000001");
    let out = Command::new("mariadb-binlog")
        .args(["--base64-output=decode-rows", "--verbose"])
        .arg(&file)
        .output()
        .expect("run mariadb-binlog (scripts/test.sh installs mariadb-client)");
    assert!(out.status.success(), "mariadb-binlog: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for value in [
        format!("@2={BIG}"),
        format!("@3={W65}"),
        format!("@4={x1}"),
        format!("@2={MIN}"),
        format!("@3=-{W65}"),
        format!("@2={tiny}"),
        format!("@2=-{tiny}"),
        "@3=18446744073709551616".to_string(),
    ] {
        assert!(text.contains(&value), "{value} not in mariadb-binlog's output:\n{text}");
    }
    let _ = tiny;
}
