//! `lower_case_table_names` at start-up (issue 19): the option is taken (0, 1, 2; 3 is
//! refused as a bad value), the data directory records the value it was initialised with,
//! and a start with another value is refused with mysqld 8.0's message ("Different
//! lower_case_table_names settings for server ('1') and data dictionary ('0').").

use std::process::Command;

use binlogd::config::{Config, ConfigError};
use binlogd::datadir::{DataDir, DataDirError, LOWER_CASE_FILE};

fn parse(args: &[&str]) -> Result<Config, ConfigError> {
    Config::from_args(args.iter().copied()).map(|(config, _)| config)
}

#[test]
fn option_takes_zero_to_two() {
    assert_eq!(parse(&[]).expect("default").lower_case_table_names, 0);
    assert_eq!(parse(&["--lower-case-table-names=1"]).expect("1").lower_case_table_names, 1);
    assert_eq!(parse(&["--lower_case_table_names=2"]).expect("2").lower_case_table_names, 2);
    let e = parse(&["--lower-case-table-names=3"]).expect_err("3 is refused");
    assert!(matches!(e, ConfigError::BadValue { .. }), "{e:?}");
    assert_eq!(
        parse(&["--lower-case-table-names=2"]).unwrap().value("lower_case_table_names"),
        Some("2".into())
    );
}

#[test]
fn the_data_directory_keeps_its_setting() {
    let tmp = tempfile::tempdir().expect("tempdir");
    {
        let dir = DataDir::open(tmp.path()).expect("open");
        dir.check_lower_case_table_names(0).expect("first start records 0");
        dir.check_lower_case_table_names(0).expect("the same value again");
        let e = dir.check_lower_case_table_names(1).expect_err("another value");
        assert!(matches!(e, DataDirError::LowerCaseTableNames { server: 1, dictionary: 0 }));
        assert_eq!(
            e.to_string(),
            "Different lower_case_table_names settings for server ('1') and data dictionary ('0')."
        );
    }
    assert_eq!(std::fs::read_to_string(tmp.path().join(LOWER_CASE_FILE)).unwrap().trim(), "0");
    // The server process refuses to start on it, naming the two values, and changes nothing.
    let out = Command::new(env!("CARGO_BIN_EXE_binlogd"))
        .arg("serve")
        .arg(format!("--datadir={}", tmp.path().display()))
        .args(["--port=0", "--admin-port=0", "--lower-case-table-names=1"])
        .output()
        .expect("run binlogd");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "Different lower_case_table_names settings for server ('1') and data dictionary ('0')"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(tmp.path().join(LOWER_CASE_FILE)).unwrap().trim(), "0");
    // A bad record is an error, never silently replaced.
    std::fs::write(tmp.path().join(LOWER_CASE_FILE), "7\n").unwrap();
    let dir = DataDir::open(tmp.path()).expect("open");
    assert!(matches!(dir.check_lower_case_table_names(0), Err(DataDirError::BadLowerCase { .. })));
}

#[test]
fn option_three_is_refused_at_start_up() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_binlogd"))
        .arg("serve")
        .arg(format!("--datadir={}", tmp.path().display()))
        .args(["--port=0", "--admin-port=0", "--lower-case-table-names=3"])
        .output()
        .expect("run binlogd");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("lower-case-table-names"), "{stderr}");
    assert!(!tmp.path().join(LOWER_CASE_FILE).exists(), "nothing recorded");
}
