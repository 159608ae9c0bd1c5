//! Issue 17, end to end on the real server: damage found at start-up is a refusal naming the
//! file and offset (non-zero exit, the error in the log), `--recovery-mode=POINT_IN_TIME`
//! accepts a named loss and GTIDs never go back; restarts do not grow the redo; a transaction
//! larger than a redo file commits and survives kill -9.
//!
//! Each scenario starts from 2 000 acknowledged rows (one autocommit INSERT each), classic and
//! `--binlog-in-redo=ON`.

mod support;

use std::path::{Path, PathBuf};

use support::{ok, start, stop, try_start, Running};

const ROWS: usize = 2000;

fn sql(port: u16, q: &str) -> String {
    piped(port, &[], q)
}

/// `mariadb` with the statements on stdin (large ones exceed the argument limit).
fn piped(port: u16, extra: &[&str], q: &str) -> String {
    use std::io::Write;
    let mut child = support::client("mariadb", port, "root", "")
        .args(["--batch", "--skip-column-names"])
        .args(extra)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run mariadb (scripts/test.sh installs mariadb-client)");
    let mut stdin = child.stdin.take().expect("stdin");
    let text = q.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("mariadb");
    writer.join().expect("writer").expect("write stdin");
    ok(out).trim().to_string()
}

/// A fresh server with `ROWS` acknowledged single-row transactions in `d.t`.
fn loaded(dir: &Path, extra: &[&str]) -> Running {
    let mut args = vec!["--initialize-insecure"];
    args.extend_from_slice(extra);
    let s = start(dir, &args);
    sql(s.port, "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(64))");
    let inserts: String = (0..ROWS)
        .map(|i| format!("INSERT INTO d.t VALUES ({i}, 'row {i} padded to look like data');"))
        .collect();
    sql(s.port, &inserts);
    assert_eq!(sql(s.port, "SELECT COUNT(*) FROM d.t"), ROWS.to_string());
    s
}

fn count(port: u16) -> usize {
    sql(port, "SELECT COUNT(*) FROM d.t").parse().expect("count")
}

fn gtid_executed(port: u16) -> String {
    sql(port, "SELECT @@GLOBAL.gtid_executed")
}

/// The highest GNO of a one-uuid `gtid_executed` ("uuid:1-N").
fn last_gno(set: &str) -> u64 {
    set.rsplit('-').next().and_then(|n| n.trim().parse().ok()).unwrap_or_else(|| panic!("{set}"))
}

/// Starts a server that must refuse: returns its log (the status is non-zero).
fn refused(dir: &Path, extra: &[&str]) -> String {
    match try_start(dir, extra) {
        Ok(r) => panic!(
            "the server started on damage; log:\n{}",
            std::fs::read_to_string(&r.log).unwrap_or_default()
        ),
        Err(log) => {
            assert!(
                log.contains("exited (exit status: 1)") || log.contains("exited (exit status"),
                "{log}"
            );
            assert!(!log.contains("ready for connections"), "{log}");
            log
        }
    }
}

fn flip(path: &Path, offset: u64) {
    let mut bytes = std::fs::read(path).expect("read");
    bytes[offset as usize] ^= 0x20;
    std::fs::write(path, bytes).expect("write");
}

fn redo_file(dir: &Path) -> PathBuf {
    let redo = dir.join("engine").join("#redo");
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(&redo)
        .expect("redo dir")
        .map(|e| e.expect("entry").path())
        .map(|p| (std::fs::metadata(&p).expect("meta").modified().expect("mtime"), p))
        .map(|(t, p)| (t.elapsed().map(|d| d.as_nanos() as u64).unwrap_or(0), p))
        .collect();
    files.sort();
    files.remove(0).1 // the most recently written
}

/// The end of the non-zero data of a redo file (its records), from the 4 KiB header on.
fn redo_data_end(path: &Path) -> u64 {
    let bytes = std::fs::read(path).expect("read");
    bytes.iter().rposition(|&b| b != 0).expect("records") as u64 + 1
}

fn binlog_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("binlog"))
        .expect("binlog dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e.to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        })
        .collect();
    v.sort();
    v
}

const MODES: [&[&str]; 2] = [&[], &["--binlog-in-redo=ON"]];

#[test]
fn a_flipped_redo_byte_after_kill_9_is_refused_then_accepted_by_name() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("data");
        let s = loaded(&dir, mode);
        let before = gtid_executed(s.port);
        drop(s); // kill -9: no shutdown checkpoint, the rows are in the redo only
        let redo = redo_file(&dir);
        let end = redo_data_end(&redo);
        let at = 4096 + (end - 4096) / 2;
        flip(&redo, at);
        let log = refused(&dir, mode);
        assert!(log.contains(&redo.display().to_string()), "{mode:?}: the file is named\n{log}");
        assert!(log.contains("redo damaged") && log.contains("offset"), "{mode:?}\n{log}");
        // Refused again after the first refusal (nothing repaired silently).
        refused(&dir, mode);
        let mut accept = mode.to_vec();
        accept.push("--recovery-mode=POINT_IN_TIME");
        let s = start(&dir, &accept);
        let log = std::fs::read_to_string(&s.log).expect("log");
        assert!(
            log.contains("accepted a loss") && log.contains(&redo.display().to_string()),
            "{log}"
        );
        let rows = count(s.port);
        assert!(rows < ROWS && rows > 0, "{mode:?}: {rows} rows");
        // GTIDs never go back: the binlog's set stays, the next commit follows it.
        let after = gtid_executed(s.port);
        assert!(last_gno(&after) >= last_gno(&before), "{mode:?}: {before} -> {after}");
        sql(s.port, "INSERT INTO d.t VALUES (100000, 'after')");
        assert_eq!(last_gno(&gtid_executed(s.port)), last_gno(&after) + 1);
        eprintln!("{mode:?}: redo byte flipped at {} offset {at}: refused; accepted: {rows} rows of {ROWS}", redo.display());
        stop(s, "-TERM");
    }
}

#[test]
fn a_flipped_byte_in_a_closed_binlog_file_is_refused_then_accepted_without_gtid_reuse() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("data");
        let s = loaded(&dir, mode);
        let before = gtid_executed(s.port);
        stop(s, "-TERM");
        let file = binlog_files(&dir).pop().expect("a binlog file");
        let len = std::fs::metadata(&file).expect("meta").len();
        flip(&file, len / 2);
        let log = refused(&dir, mode);
        let name = file.display().to_string();
        assert!(
            log.contains(&name) && log.contains("closed binlog file damaged at offset"),
            "{log}"
        );
        let mut accept = mode.to_vec();
        accept.push("--recovery-mode=POINT_IN_TIME");
        let s = start(&dir, &accept);
        let log = std::fs::read_to_string(&s.log).expect("log");
        assert!(log.contains("accepted a loss"), "{log}");
        assert_eq!(count(s.port), ROWS, "{mode:?}: the engine keeps every row");
        // The engine's gtid_executed is kept: the next GTID is new.
        assert_eq!(gtid_executed(s.port), before, "{mode:?}");
        sql(s.port, "INSERT INTO d.t VALUES (100000, 'after')");
        assert_eq!(last_gno(&gtid_executed(s.port)), last_gno(&before) + 1, "{mode:?}");
        stop(s, "-TERM");
        // Strict again afterwards: the new files carry the whole set.
        let s = start(&dir, mode);
        assert_eq!(last_gno(&gtid_executed(s.port)), last_gno(&before) + 1);
        stop(s, "-TERM");
    }
}

#[test]
fn lost_binlog_files_are_refused_and_gtids_continue_after_the_engines() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("data");
        let s = loaded(&dir, mode);
        let before = gtid_executed(s.port);
        stop(s, "-TERM");
        std::fs::remove_dir_all(dir.join("binlog")).expect("rm binlog");
        let log = refused(&dir, mode);
        assert!(log.contains("binary log") && log.contains(&before), "{log}");
        let mut accept = mode.to_vec();
        accept.push("--recovery-mode=POINT_IN_TIME");
        let s = start(&dir, &accept);
        assert_eq!(gtid_executed(s.port), before, "{mode:?}: GTIDs restart at 1");
        sql(s.port, "INSERT INTO d.t VALUES (100000, 'after')");
        assert_eq!(last_gno(&gtid_executed(s.port)), last_gno(&before) + 1);
        stop(s, "-TERM");
    }
}

#[test]
fn a_lost_redo_or_engine_directory_beside_a_binlog_is_refused() {
    for what in ["redo", "engine"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("data");
        let s = loaded(&dir, &[]);
        drop(s); // kill -9
        let gone =
            if what == "redo" { dir.join("engine").join("#redo") } else { dir.join("engine") };
        std::fs::remove_dir_all(&gone).expect("rm");
        let log = refused(&dir, &[]);
        assert!(log.contains(&gone.display().to_string()), "{what}: {log}");
        let s = start(&dir, &["--recovery-mode=POINT_IN_TIME"]);
        let log = std::fs::read_to_string(&s.log).expect("log");
        assert!(log.contains("accepted a loss"), "{log}");
        stop(s, "-TERM");
    }
}

fn dir_bytes(p: &Path) -> u64 {
    std::fs::read_dir(p)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .map(
            |p| if p.is_dir() { dir_bytes(&p) } else { std::fs::metadata(&p).expect("meta").len() },
        )
        .sum()
}

#[test]
fn thirteen_restarts_do_not_grow_the_redo() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("data");
    let s = start(&dir, &["--initialize-insecure"]);
    sql(s.port, "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(64))");
    let values: Vec<String> = (0..15_000).map(|i| format!("({i}, 'row {i}')")).collect();
    sql(s.port, &format!("INSERT INTO d.t VALUES {}", values.join(",")));
    stop(s, "-TERM");
    let after_one = dir_bytes(&dir.join("engine"));
    for _ in 0..12 {
        let s = start(&dir, &[]);
        stop(s, "-TERM");
    }
    let engine = dir_bytes(&dir.join("engine"));
    let total = dir_bytes(&dir);
    eprintln!("engine dir after 1 start: {after_one} bytes; after 13: {engine} bytes; datadir {total} bytes");
    // Two redo files at most (8 MiB + 4 KiB each) plus the checkpoint.
    assert!(engine <= after_one.max(3 * (8 << 20)), "{after_one} -> {engine}");
    let s = start(&dir, &[]);
    assert_eq!(count(s.port), 15_000);
    stop(s, "-TERM");
}

#[test]
fn a_59_mib_transaction_and_create_index_on_30000_rows_survive_kill_9() {
    for mode in MODES {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("data");
        let mut args = vec!["--initialize-insecure", "--max-allowed-packet=64M"];
        args.extend_from_slice(mode);
        let s = start(&dir, &args);
        sql(s.port, "CREATE DATABASE d; CREATE TABLE d.big (id INT PRIMARY KEY, v VARCHAR(1000))");
        let pad = "x".repeat(990);
        // 63 000 rows of ~1 KiB: one INSERT of ~60 MiB, one transaction.
        let values: Vec<String> = (0..63_000).map(|i| format!("({i},'{pad}')")).collect();
        let stmt = format!("INSERT INTO d.big VALUES {}", values.join(","));
        assert!(stmt.len() > 59 << 20, "{}", stmt.len());
        piped(s.port, &["--max-allowed-packet=64M"], &stmt);
        sql(s.port, "CREATE TABLE d.t (id INT PRIMARY KEY, k INT, v VARCHAR(400))");
        let pad = "y".repeat(380);
        for chunk in 0..3 {
            let values: Vec<String> = (chunk * 10_000..(chunk + 1) * 10_000)
                .map(|i| format!("({i},{},'{pad}')", i % 977))
                .collect();
            sql(s.port, &format!("INSERT INTO d.t VALUES {}", values.join(",")));
        }
        sql(s.port, "CREATE INDEX k_idx ON d.t (k)");
        drop(s); // kill -9
        let s = start(&dir, mode);
        assert_eq!(sql(s.port, "SELECT COUNT(*) FROM d.big"), "63000", "{mode:?}");
        assert_eq!(
            sql(s.port, "SELECT COUNT(*) FROM d.t WHERE k = 5"),
            (30_000 / 977 + 1).to_string()
        );
        assert!(sql(s.port, "SHOW CREATE TABLE d.t").contains("k_idx"), "{mode:?}");
        stop(s, "-TERM");
    }
}
