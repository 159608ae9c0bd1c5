//! `binlogd bench fsync` run as a process, tiny, to check it measures every mode and cleans up.

use std::process::Command;

#[test]
fn measures_all_four_modes_and_removes_its_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().to_str().expect("utf-8 temp path");
    let out = Command::new(env!("CARGO_BIN_EXE_binlogd"))
        .args(["bench", "fsync", "--dir", dir, "--count", "20", "--file-size", "64K"])
        .output()
        .expect("run binlogd bench fsync");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("statfs f_type"), "{stdout}");
    for mode in ["1 append", "2 overwrite", "3 write a fallocated", "4 write right after"] {
        assert!(stdout.lines().any(|l| l.starts_with(&format!("| {mode}"))), "{mode}: {stdout}");
    }
    assert!(stdout.contains("| 20 |"), "append must do all 20 records: {stdout}");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("read dir").collect();
    assert!(left.is_empty(), "bench files must be removed");
}

#[test]
fn refuses_a_file_too_small_for_the_records() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().to_str().expect("utf-8 temp path");
    let out = Command::new(env!("CARGO_BIN_EXE_binlogd"))
        .args(["bench", "fsync", "--dir", dir, "--count", "1000", "--file-size", "4K"])
        .output()
        .expect("run binlogd bench fsync");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot hold"));
}
