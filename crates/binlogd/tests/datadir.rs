//! The data directory: made on the first start with a server uuid that is kept, locked against a
//! second server, and home of the keys.

use std::fs;

use binlogd::datadir::{DataDir, DataDirError, AUTO_CNF, PID_FILE};

#[test]
fn first_start_creates_and_later_starts_keep_the_uuid() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("nested/data");
    let first = DataDir::open(&path).expect("create");
    assert!(first.first_start());
    let uuid = first.server_uuid();
    assert_eq!(uuid.get_version_num(), 4);
    let auto = fs::read_to_string(path.join(AUTO_CNF)).expect("auto.cnf");
    assert_eq!(auto, format!("[auto]\nserver-uuid={uuid}\n"));
    let pid = fs::read_to_string(path.join(PID_FILE)).expect("pid file");
    assert_eq!(pid.trim(), std::process::id().to_string());
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(&path).expect("stat").permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "data directory is private");
    drop(first);

    let again = DataDir::open(&path).expect("reopen");
    assert!(!again.first_start());
    assert_eq!(again.server_uuid(), uuid);
}

#[test]
fn a_second_open_is_refused_until_the_first_closes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let first = DataDir::open(tmp.path()).expect("open");
    let err = DataDir::open(tmp.path()).expect_err("locked");
    assert!(
        matches!(&err, DataDirError::InUse { pid: Some(p), .. } if *p == std::process::id()),
        "{err}"
    );
    assert!(err.to_string().contains("in use by another binlogd"), "{err}");
    drop(first);
    DataDir::open(tmp.path()).expect("free again");
}

#[test]
fn a_damaged_auto_cnf_is_an_error_not_a_new_identity() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join(AUTO_CNF), "[auto]\nserver-uuid=not-a-uuid\n").expect("write");
    let err = DataDir::open(tmp.path()).expect_err("bad auto.cnf");
    assert!(matches!(err, DataDirError::BadAutoCnf { .. }), "{err}");
    assert_eq!(
        fs::read_to_string(tmp.path().join(AUTO_CNF)).expect("kept"),
        "[auto]\nserver-uuid=not-a-uuid\n"
    );
}

#[test]
fn keys_are_made_once_in_the_data_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = DataDir::open(tmp.path()).expect("open");
    let first = dir.load_keys().expect("create keys");
    assert!(tmp.path().join("server-cert.pem").exists());
    assert!(tmp.path().join("private_key.pem").exists());
    let second = dir.load_keys().expect("load keys");
    assert_eq!(first.rsa_public_pem(), second.rsa_public_pem());
}

#[test]
fn an_unusable_path_is_an_io_error_with_source() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("plain-file");
    fs::write(&file, b"x").expect("write");
    let err = DataDir::open(&file.join("data")).expect_err("parent is a file");
    assert!(matches!(err, DataDirError::Io { .. }), "{err}");
    assert!(std::error::Error::source(&err).is_some());
}
