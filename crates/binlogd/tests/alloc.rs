//! `binlogd alloc` run as a process on a temporary directory.

use std::path::Path;
use std::process::{Command, Output};

fn alloc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_binlogd"))
        .arg("alloc")
        .args(args)
        .output()
        .expect("run binlogd alloc")
}

fn name_arg(dir: &Path) -> String {
    dir.join("pool").join("empty").to_str().expect("utf-8 temp path").to_string()
}

#[test]
fn creates_files_of_the_right_size_full_of_zeros() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let name = name_arg(tmp.path());
    let out = alloc(&[
        "--start-suffix",
        "1",
        "--end-suffix",
        "3",
        "--size",
        "64K",
        "--binlog-name",
        &name,
    ]);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> = std::fs::read_dir(tmp.path().join("pool"))
        .expect("read pool")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["empty.000001", "empty.000002", "empty.000003"], "no temp file left");
    for n in &names {
        let bytes = std::fs::read(tmp.path().join("pool").join(n)).expect("read file");
        assert_eq!(bytes.len(), 64 * 1024, "{n}");
        assert!(bytes.iter().all(|&b| b == 0), "{n} must read as zeros");
    }
}

#[test]
fn stops_at_an_existing_file_and_names_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pool = tmp.path().join("pool");
    std::fs::create_dir(&pool).expect("mkdir");
    std::fs::write(pool.join("empty.000006"), b"precious").expect("existing file");
    let name = name_arg(tmp.path());
    let out = alloc(&[
        "--start-suffix",
        "5",
        "--end-suffix",
        "8",
        "--binlog-size",
        "4096",
        "--binlog-name",
        &name,
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&*pool.join("empty.000006").to_string_lossy()), "stderr: {stderr}");
    assert!(stderr.contains("refusing to overwrite"), "stderr: {stderr}");
    assert_eq!(std::fs::metadata(pool.join("empty.000005")).expect("created").len(), 4096);
    assert_eq!(std::fs::read(pool.join("empty.000006")).expect("kept"), b"precious");
    assert!(!pool.join("empty.000007").exists());
    assert!(!pool.join("empty.000008").exists());
}

#[test]
fn refuses_a_bad_size() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let name = name_arg(tmp.path());
    let out = alloc(&[
        "--start-suffix",
        "1",
        "--end-suffix",
        "1",
        "--size",
        "12X",
        "--binlog-name",
        &name,
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid size"));
    assert!(!tmp.path().join("pool").exists());
}
