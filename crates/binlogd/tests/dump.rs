//! `binlogd dump` run as a process on the real MySQL files in the binlog crate's
//! `tests/fixtures/mysql-binlogs`.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The fixture folder: `$BINLOGD_FIXTURES`, else the binlog crate's
/// `tests/fixtures/mysql-binlogs` (a sibling crate under `crates/`).
fn fixtures_dir() -> PathBuf {
    let dir = match std::env::var_os("BINLOGD_FIXTURES") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../binlog/tests/fixtures/mysql-binlogs")
        }
    };
    assert!(dir.is_dir(), "fixture folder {} is missing (set BINLOGD_FIXTURES)", dir.display());
    dir
}

fn fixture(name: &str) -> String {
    fixtures_dir().join(name).to_str().expect("utf-8 path").to_string()
}

fn dump(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_binlogd"))
        .arg("dump")
        .args(args)
        .output()
        .expect("run binlogd dump")
}

fn stdout_of(args: &[&str]) -> String {
    let out = dump(args);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn event_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("# at ")).collect()
}

#[test]
fn prints_every_event_of_a_real_file() {
    let text = stdout_of(&[&fixture("minimal_row_metadata.000001")]);
    let expected = [
        "# at 4 Format_desc server_id=1 end_log_pos=126 server_version=8.0.40 binlog_version=4 checksum=CRC32 in_use=false",
        "# at 126 Previous_gtids server_id=1 end_log_pos=157 previous_gtids=",
        "# at 157 Anonymous_Gtid server_id=1 end_log_pos=236 gtid=ANONYMOUS last_committed=0 sequence_number=1 immediate_commit_timestamp=1744984258653949 transaction_length=294",
        "# at 236 Query server_id=1 end_log_pos=312 thread_id=8 exec_time=0 error_code=0 db=noria query=BEGIN",
        "# at 312 Table_map server_id=1 end_log_pos=374 table=`noria`.`t1` table_id=111 columns=5",
        "# at 374 Write_rows server_id=1 end_log_pos=420 table=`noria`.`t1` table_id=111 rows=1 flags=STMT_END_F",
        "# at 420 Xid server_id=1 end_log_pos=451 xid=1460",
        "# at 451 Rotate server_id=1 end_log_pos=495 next_file=binlog.000021 position=4",
    ];
    assert_eq!(event_lines(&text), expected);
}

#[test]
fn verbose_prints_rows_as_pseudo_sql() {
    let text = stdout_of(&["--verbose", &fixture("minimal_row_metadata.000001")]);
    let rows: Vec<_> = text.lines().filter(|l| l.starts_with("###")).collect();
    assert_eq!(
        rows,
        [
            "### INSERT INTO `noria`.`t1`",
            "### SET",
            "###   @1=1 /* INT meta=0 nullable=0 is_null=0 */",
            "###   @3='a' /* STRING(8) meta=65032 nullable=1 is_null=0 */",
            "###   @5=-1064764973 (3230202323) /* INT meta=0 nullable=1 is_null=0 */",
        ]
    );
    let text = stdout_of(&["-v", &fixture("binlog-invisible-columns.000001")]);
    assert!(text.contains("### UPDATE `mysql`.`t1`\n### WHERE\n"), "{text}");
    let text = stdout_of(&["-v", &fixture("mysql-enum-string-set.000001")]);
    assert!(text.contains("### DELETE FROM `mysql`.`t`\n### WHERE\n"), "{text}");
    assert!(text.contains("@3=1 /* ENUM(1 bytes) meta=63233 nullable=1 is_null=0 */"), "{text}");
    let text = stdout_of(&["-v", &fixture("mysql_type_bit.000001")]);
    assert!(text.contains("@1=b'100' /* BIT(3) meta=3 nullable=1 is_null=0 */"), "{text}");
    let text = stdout_of(&["-v", &fixture("time_issue.000001")]);
    assert!(text.contains("@1='-507:48:27' /* TIME(0) meta=0"), "{text}");
}

#[test]
fn verify_accepts_good_files_and_names_the_first_bad_offset() {
    let good = fixture("minimal_row_metadata.000001");
    let text = stdout_of(&["--verify", &good]);
    assert!(text.contains("8 events, every checksum and event valid"), "{text}");

    // One flipped bit inside the Query event at 236.
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut bytes = std::fs::read(&good).expect("read fixture");
    bytes[236 + 30] ^= 0x04;
    let bad = tmp.path().join("corrupt.000001");
    std::fs::write(&bad, &bytes).expect("write copy");
    let out = dump(&["--verify", bad.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("corrupt.000001"), "{err}");
    assert!(err.contains("checksum mismatch in event at offset 236"), "{err}");

    // Cut files name the offset of the cut event.
    let out = dump(&["--verify", &fixture("binlog_truncated_prev_gtid_event.000001")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("binlog_truncated_prev_gtid_event.000001"), "{err}");
    assert!(err.contains("event at offset 120 is cut"), "{err}");
    let out = dump(&[&fixture("binlog_truncated_event.000001")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("event at offset 4 is cut"));
}

#[test]
fn position_filters_select_events_by_offset() {
    let file = fixture("minimal_row_metadata.000001");
    let text = stdout_of(&["--start-position", "236", "--stop-position", "420", &file]);
    let offsets: Vec<_> = event_lines(&text)
        .iter()
        .map(|l| l.split(' ').nth(2).expect("offset").to_string())
        .collect();
    // The format description is always printed, as mysqlbinlog does.
    assert_eq!(offsets, ["4", "236", "312", "374"]);
}

#[test]
fn gtid_filters_select_whole_transactions() {
    let file = fixture("binlog_transaction_with_GTID.000001");
    let uuid = "006c2cf2-b1ea-11e4-9057-8c705a3d3e78";
    let all = stdout_of(&[&file]);
    assert_eq!(event_lines(&all).len(), 11);

    let only_2 = stdout_of(&["--include-gtids", &format!("{uuid}:2"), &file]);
    let queries: Vec<_> =
        event_lines(&only_2).into_iter().filter(|l| l.contains(" Query ")).collect();
    assert_eq!(queries.len(), 3, "{only_2}");
    assert!(queries.iter().all(|l| !l.contains("CREATE TABLE") && !l.contains("DROP TABLE")));
    assert!(only_2.contains(&format!("gtid={uuid}:2")));
    assert!(!only_2.contains(&format!("gtid={uuid}:1")));
    assert!(only_2.contains(" Stop "), "events outside transactions are kept");

    let not_1_3 = stdout_of(&["--exclude-gtids", &format!("{uuid}:1:3"), &file]);
    assert_eq!(event_lines(&not_1_3), event_lines(&only_2));

    // Anonymous transactions are never in an include set.
    let anon = fixture("minimal_row_metadata.000001");
    let text = stdout_of(&["--include-gtids", &format!("{uuid}:1-100"), &anon]);
    assert!(!text.contains("Write_rows"), "{text}");
    let bad = dump(&["--include-gtids", "not-a-gtid", &anon]);
    assert!(!bad.status.success());
}

#[test]
fn preallocated_zero_tail_ends_the_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut bytes = std::fs::read(fixture("minimal_row_metadata.000001")).expect("read");
    bytes.resize(bytes.len() + 4096, 0);
    let path = tmp.path().join("prealloc.000001");
    std::fs::write(&path, &bytes).expect("write");
    let text = stdout_of(&[path.to_str().expect("utf-8")]);
    assert_eq!(event_lines(&text).len(), 8);
    assert!(text.contains("# end of events at 495 (4096 preallocated zero bytes follow)"));
}
