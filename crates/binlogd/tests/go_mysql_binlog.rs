//! go-mysql (github.com/go-mysql-org/go-mysql v1.13, unmodified: the binlog library of Go CDC
//! tools such as canal, gh-ost and TiDB DM) reads binlogd's binary log with every supported
//! column type and `binlog_row_metadata=FULL` (issue 18: "python-mysql-replication and go-mysql
//! still decode every event"):
//! - from the files with its `BinlogParser` (checksums verified): every event, the TABLE_MAP
//!   metadata (column names, ENUM/SET member names, signedness), and each row image as written;
//! - as a replica with its `BinlogSyncer`, from a file position and from a GTID set, across a
//!   rotation: the same rows, and the GTIDs after the given set.
//!
//! The Go program is `tests/drivers/gobinlog` (built by `tests/drivers/install.sh gobinlog`,
//! which scripts/test.sh runs). Needs go; without it the test fails under `CI=true`.

mod support;

use std::path::Path;
use std::process::Command;

use mysql_async::prelude::Queryable;
use mysql_async::Row;
use support::start;

fn check(bin: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new(bin).args(args).env("TZ", "UTC").output().expect("run binlogcheck");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "binlogcheck {args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout.lines().map(str::to_string).collect()
}

/// The rows written, as binlogcheck prints them (go-mysql's decoded values: ENUM as its
/// index, SET as its bit mask, BIT as an integer, TIME/DATE/DATETIME/TIMESTAMP as text with
/// the column's fractional digits (none when they are zero), JSON as its text).
const ROW1: &str = "1|-128|18446744073709551615|-12345678901234.123456|1.5|-2.25e-10|2024-02-29|\
    -838:59:59|2020-02-29 23:59:59.123456|2038-01-19 03:14:07.999|2155|é ü 😀|ab|0x00ff|2|5|515|\
    json:{\"k\":[1,2.5,\"x\",null,true]}";
const NULLS: &str =
    "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL";

fn expected_rows() -> Vec<String> {
    let row2 = format!("2|{NULLS}");
    let row2b = "2|NULL|NULL|NULL|NULL|NULL|NULL|12:00:00.500|NULL|NULL|NULL|upd|NULL|NULL|NULL|\
                 NULL|NULL|NULL";
    vec![
        format!("insert d.t {ROW1}"),
        format!("insert d.t {row2}"),
        format!("update d.t {row2} -> {row2b}"),
        "insert d.u 7|x".to_string(),
        format!("delete d.t {ROW1}"),
        "update d.u 7|x -> 7|y".to_string(),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_mysql_decodes_every_event_and_type() {
    if !support::mariadb::have("go") {
        assert!(std::env::var("CI").is_err(), "go is needed (scripts/test.sh installs it)");
        eprintln!("skipped: go not installed");
        return;
    }
    let bin =
        tokio::task::spawn_blocking(|| support::drivers::install("gobinlog").join("binlogcheck"))
            .await
            .expect("install");
    let tmp = tempfile::tempdir().expect("tempdir");
    let data = tmp.path().join("data");
    let server = start(&data, &["--initialize-insecure", "--binlog-row-metadata=FULL"]);
    let mut c = support::sql::conn(server.port).await;
    c.query_drop(
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, ti TINYINT, \
         bu BIGINT UNSIGNED, de DECIMAL(20,6), f FLOAT, db DOUBLE, d DATE, tm TIME(3), \
         dt DATETIME(6), ts TIMESTAMP(3) NULL, y YEAR, vc VARCHAR(20), bn BINARY(3), bl BLOB, \
         e ENUM('s','m','l'), st SET('a','b','c'), bt BIT(10), j JSON); \
         CREATE TABLE d.u (id INT PRIMARY KEY, v CHAR(1))",
    )
    .await
    .expect("schema");
    let status: Row = c.query_first("SHOW BINARY LOG STATUS").await.expect("status").expect("row");
    let (file, pos, gtids): (String, u64, String) =
        (status.get(0).expect("file"), status.get(1).expect("pos"), status.get(4).expect("set"));
    for sql in [
        "SET time_zone = '+00:00'",
        "INSERT INTO d.t VALUES (1, -128, 18446744073709551615, -12345678901234.123456, 1.5, \
         -2.25e-10, '2024-02-29', '-838:59:59.000', '2020-02-29 23:59:59.123456', \
         '2038-01-19 03:14:07.999', 2155, 'é ü 😀', 'ab', x'00ff', 'm', 'a,c', b'1000000011', \
         '{\"k\": [1, 2.5, \"x\", null, true]}'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        "UPDATE d.t SET vc = 'upd', tm = '12:00:00.5' WHERE id = 2",
        "FLUSH BINARY LOGS",
        "BEGIN",
        "INSERT INTO d.u VALUES (7, 'x')",
        "DELETE FROM d.t WHERE id = 1",
        "COMMIT",
        "UPDATE d.u SET v = 'y'",
    ] {
        c.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let want = expected_rows();
    let rows = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| ["insert ", "update ", "delete "].iter().any(|p| l.starts_with(p)))
            .cloned()
            .collect()
    };

    // The files, parsed with checksums verified.
    let dir = data.join("binlog");
    let files: Vec<String> = ["binlog.000001", "binlog.000002"]
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    let args: Vec<&str> = std::iter::once("file").chain(files.iter().map(String::as_str)).collect();
    let lines = tokio::task::spawn_blocking({
        let bin = bin.clone();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        move || check(&bin, &args.iter().map(String::as_str).collect::<Vec<_>>())
    })
    .await
    .expect("join");
    assert_eq!(rows(&lines), want, "{lines:#?}");
    for kind in [
        "FormatDescriptionEvent",
        "PreviousGTIDsEvent",
        "GTIDEvent",
        "QueryEvent",
        "TableMapEvent",
        "WriteRowsEventV2",
        "UpdateRowsEventV2",
        "DeleteRowsEventV2",
        "XIDEvent",
        "RotateEvent",
    ] {
        assert!(lines.contains(&format!("event {kind}")), "no {kind}: {lines:#?}");
    }
    assert!(
        lines.contains(
            &"table d.t names=id,ti,bu,de,f,db,d,tm,dt,ts,y,vc,bn,bl,e,st,bt,j enums=s,m,l \
              sets=a,b,c unsigned=2"
                .to_string()
        ),
        "{lines:#?}"
    );

    // As a replica, from the position before the rows, and after the GTIDs before them.
    let n = want.len().to_string();
    let port = server.port.to_string();
    let pos = pos.to_string();
    let (by_pos, by_gtid) = tokio::task::spawn_blocking(move || {
        (check(&bin, &["pos", &port, &file, &pos, &n]), check(&bin, &["gtid", &port, &gtids, &n]))
    })
    .await
    .expect("join");
    assert_eq!(rows(&by_pos), want, "{by_pos:#?}");
    assert_eq!(rows(&by_gtid), want, "{by_gtid:#?}");
    // The GTIDs streamed after the set: the next transactions' numbers, in order.
    let gnos: Vec<u64> = by_gtid
        .iter()
        .filter_map(|l| l.strip_prefix("gtid "))
        .map(|g| g.rsplit(':').next().and_then(|n| n.parse().ok()).expect("gno"))
        .collect();
    assert!(gnos.len() >= 4, "{by_gtid:#?}");
    assert!(gnos.windows(2).all(|w| w[1] == w[0] + 1), "{gnos:?}");
}
