//! Issue 19's types in the binlog: python-mysql-replication (unmodified, installed by
//! scripts/test.sh) decodes binlogd's TABLE_MAPs and row images of DATE, TIME2, YEAR,
//! DATETIME2 and TIMESTAMP2 with their fsp, and FLOAT, to the values inserted (TIMESTAMP in
//! UTC, as mysqld logs it, whatever the session's time zone).

mod support;

use mysql_async::prelude::Queryable;
use support::start;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_mysql_replication_decodes_temporal_rows() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server =
        start(&tmp.path().join("data"), &["--initialize-insecure", "--binlog-row-metadata=FULL"]);
    let mut conn = support::sql::conn(server.port).await;
    for sql in [
        "CREATE DATABASE tdb",
        "CREATE TABLE tdb.t (id INT PRIMARY KEY, d DATE, t TIME, t3 TIME(3), y YEAR, \
         dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, f FLOAT)",
        "SET time_zone = '+02:00'",
        "INSERT INTO tdb.t VALUES (1, '2024-02-29', '12:34:56', '-01:02:03', 2024, \
         '2024-01-02 03:04:05', '2024-01-02 03:04:05.123456', '2024-06-01 12:00:00', \
         '2024-06-01 12:00:00.125', 1.5)",
        "INSERT INTO tdb.t VALUES (2, NULL, '838:59:59', '00:00:01.5', 1901, \
         '9999-12-31 23:59:59.4', '1000-01-01 00:00:00', '1970-01-01 02:00:01', NULL, -0.25)",
        "UPDATE tdb.t SET y = 2155, d = '2000-01-01' WHERE id = 2",
    ] {
        conn.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    // What the server reads back, in the session's zone (+02:00).
    let back: Vec<mysql_async::Row> =
        conn.query("SELECT * FROM tdb.t ORDER BY id").await.expect("select");
    let back: Vec<Vec<String>> =
        back.iter().map(|r| (0..r.len()).map(|i| support::sql::text(&r[i])).collect()).collect();
    assert_eq!(
        back,
        [
            vec![
                "1",
                "2024-02-29",
                "12:34:56",
                "-01:02:03.000",
                "2024",
                "2024-01-02 03:04:05",
                "2024-01-02 03:04:05.123456",
                "2024-06-01 12:00:00",
                "2024-06-01 12:00:00.125",
                "1.5",
            ],
            vec![
                "2",
                "2000-01-01",
                "838:59:59",
                "00:00:01.500",
                "2155",
                "9999-12-31 23:59:59",
                "1000-01-01 00:00:00.000000",
                "1970-01-01 02:00:01",
                "NULL",
                "-0.25",
            ],
        ],
    );
    let port = server.port.to_string();
    let rows =
        support::drivers::python_lines("stream_rows.py", &[&port, "file", "binlog.000001"]).await;
    // Python's forms: TIME2 is a timedelta (-01:02:03 prints "-1 day, 22:57:57", 838 hours
    // "34 days, 22:59:59"), TIMESTAMP2 a UTC datetime, YEAR an int, FLOAT a float.
    let second = "2,{d},34 days, 22:59:59,0:00:01.500000,{y},9999-12-31 23:59:59,\
                  1000-01-01 00:00:00,1970-01-01 00:00:01,NULL,-0.25";
    let expected = [
        "INSERT tdb.t [1,2024-02-29,12:34:56,-1 day, 22:57:57,2024,2024-01-02 03:04:05,\
         2024-01-02 03:04:05.123456,2024-06-01 10:00:00,2024-06-01 10:00:00.125000,1.5]"
            .to_string(),
        format!("INSERT tdb.t [{}]", second.replace("{d}", "NULL").replace("{y}", "1901")),
        format!(
            "UPDATE tdb.t [{}] -> [{}]",
            second.replace("{d}", "NULL").replace("{y}", "1901"),
            second.replace("{d}", "2000-01-01").replace("{y}", "2155")
        ),
    ];
    assert_eq!(rows, expected);
}
