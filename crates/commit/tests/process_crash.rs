//! Real process crashes: a child process (this test binary, re-run in child mode) commits
//! from 16 threads on real files, while a 17th runs DDL and inserts on other tables, and
//! prints each acknowledged GTID; the parent kills it
//! with SIGKILL once enough commits were acknowledged, recovers the data directory and
//! checks the invariant and that every acknowledged commit is there. Three rounds on the
//! same directory: classic sync_binlog=1, binlog-in-redo, classic sync_binlog=0.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use binlog::gtid::Gtid;
use commit::CommitRequest;
use common::{check_invariant, Coord, Mode};
use engine::Value;
use vfs::RealVfs;

const DIR_ENV: &str = "COMMIT_PROCESS_CRASH_DIR";
const ROUND_ENV: &str = "COMMIT_PROCESS_CRASH_ROUND";
const ACKS_BEFORE_KILL: usize = 400;

fn mode(round: i64) -> Mode {
    match round {
        0 => Mode { in_redo: false, sync_binlog: 1 },
        1 => Mode { in_redo: true, sync_binlog: 1 },
        _ => Mode { in_redo: false, sync_binlog: 0 },
    }
}

fn open(dir: &Path, mode: Mode) -> Coord {
    let c = common::config(mode);
    c.set_binlog_in_redo_sync_interval_ms(5);
    let mut o = common::options();
    o.max_binlog_size = 64 << 10;
    o.engine.checkpoint_redo_bytes = Some(256 << 10);
    Coord::open(RealVfs::shared(), dir, o, c).expect("open/recover").0
}

/// The child: commits until killed, printing `ACK <gtid>` after each acknowledgement.
#[test]
fn child() {
    let Some(dir) = std::env::var_os(DIR_ENV) else { return };
    let round: i64 = std::env::var(ROUND_ENV).ok().and_then(|r| r.parse().ok()).unwrap_or(0);
    let c = open(Path::new(&dir), mode(round));
    if c.engine().table_id(common::TABLE).is_none() {
        common::setup(&c);
    }
    let out = Arc::new(Mutex::new(std::io::stdout()));
    std::thread::scope(|s| {
        let (c2, out2) = (&c, out.clone());
        s.spawn(move || {
            let mut rng = common::Rng(round as u64 + 99);
            for step in 0.. {
                let info = common::aux_step(c2, &mut rng, step).expect("DDL or aux insert");
                let mut o = out2.lock().expect("stdout");
                writeln!(o, "ACK {}", info.gtid.expect("gtid")).expect("write ack");
                o.flush().expect("flush ack");
            }
        });
        for th in 0..16i64 {
            let (c, out) = (&c, out.clone());
            s.spawn(move || {
                let e = c.engine();
                let t = e.table_id(common::TABLE).expect("table");
                let schema = e.schema(t).expect("schema");
                for i in 0.. {
                    let id = round * 10_000_000 + th * 100_000 + i;
                    let mut txn = e.begin();
                    let row = vec![Value::Int(id), Value::Int(i), Value::Bytes(b"k".to_vec())];
                    e.insert(&mut txn, t, row.clone()).expect("insert");
                    let mut cache = c.new_cache("test");
                    cache.insert(&schema, &row).expect("log");
                    let info = c.commit(CommitRequest::rows(txn, cache)).expect("commit");
                    let g = info.gtid.expect("gtid");
                    let mut o = out.lock().expect("stdout");
                    writeln!(o, "ACK {g}").expect("write ack");
                    o.flush().expect("flush ack");
                }
            });
        }
    });
}

#[test]
fn kill_9_under_load_then_recover() {
    if std::env::var_os(DIR_ENV).is_some() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut acked: Vec<Gtid> = Vec::new();
    for round in 0..3 {
        let mut child = Command::new(std::env::current_exe().expect("test binary"))
            .args(["child", "--exact", "--nocapture", "--test-threads=1"])
            .env(DIR_ENV, tmp.path())
            .env(ROUND_ENV, round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn child");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut n = 0;
        while n < ACKS_BEFORE_KILL {
            let Some(line) = lines.next() else { panic!("round {round}: child ended early") };
            let line = line.expect("read child output");
            if let Some(g) = line.strip_prefix("ACK ") {
                acked.push(g.parse().expect("gtid"));
                n += 1;
            }
        }
        child.kill().expect("SIGKILL");
        // Acknowledgements already in the pipe count too.
        for line in lines.map_while(|l| l.ok()) {
            if let Some(g) = line.strip_prefix("ACK ") {
                acked.push(g.parse().expect("gtid"));
            }
        }
        child.wait().expect("reap child");
        let c = open(tmp.path(), mode(round));
        let txns = check_invariant(&c, &acked, &format!("process crash round {round}"));
        assert!(txns > acked.len() / 2);
        c.shutdown().expect("shutdown");
    }
}
