//! Micro-measurement of the SQL front-end on sysbench's hot statements: parse time per
//! statement, against the time of executing the same statement prepared (bind + engine work,
//! commit through the in-process engine committer without fsync cost on the simulated disk).
//!
//! Run: `cargo run --release -p sql --example sql_parse`

use std::path::Path;
use std::time::Instant;

use engine::{Engine, EngineConfig, Value};
use sql::parse::parse;
use sql::{Hooks, Server};

const HOT: &[&str] = &[
    "UPDATE sbtest1 SET k=k+1 WHERE id=?",
    "SELECT c FROM sbtest1 WHERE id=?",
    "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
    "DELETE FROM sbtest1 WHERE id=?",
    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
];

fn per_op_ns(n: u32, mut f: impl FnMut(u32)) -> f64 {
    let t = Instant::now();
    for i in 0..n {
        f(i);
    }
    t.elapsed().as_nanos() as f64 / f64::from(n)
}

fn main() {
    let n = 200_000;
    println!("parse (µs/statement):");
    for sql in HOT {
        let ns = per_op_ns(n, |_| {
            std::hint::black_box(parse(std::hint::black_box(sql)).expect("parses"));
        });
        println!("  {:>6.2}  {sql}", ns / 1000.0);
    }

    let vfs = vfs::SimVfs::new().shared();
    let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
    let e = Engine::open(vfs, Path::new("/d"), cfg).expect("engine").0;
    let srv = Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server");
    let mut s = srv.session("bench", "localhost");
    s.query("CREATE DATABASE sbtest").expect("db");
    s.query("USE sbtest").expect("use");
    s.query("CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))").expect("table");
    s.query("CREATE INDEX k_1 ON sbtest1(k)").expect("index");
    let ins = s.prepare("INSERT INTO sbtest1(k, c, pad) VALUES (?, ?, ?)").expect("prepare");
    for i in 0..10_000 {
        let p = [Value::Int(i), Value::Bytes(vec![b'c'; 119]), Value::Bytes(vec![b'p'; 59])];
        s.execute(&ins, &p).expect("insert");
    }
    let upd = s.prepare(HOT[0]).expect("prepare");
    let sel = s.prepare(HOT[1]).expect("prepare");
    let m = 100_000;
    println!("execute prepared (µs/statement, autocommit, simulated disk):");
    let ns = per_op_ns(m, |i| {
        s.execute(&upd, &[Value::Int(i64::from(i % 10_000) + 1)]).expect("update");
    });
    println!("  {:>6.2}  {}", ns / 1000.0, HOT[0]);
    let ns = per_op_ns(m, |i| {
        s.execute(&sel, &[Value::Int(i64::from(i % 10_000) + 1)]).expect("select");
    });
    println!("  {:>6.2}  {}", ns / 1000.0, HOT[1]);
    let ns = per_op_ns(m / 4, |i| {
        s.query(&format!("UPDATE sbtest1 SET k=k+1 WHERE id={}", i % 10_000 + 1)).expect("update");
    });
    println!("  {:>6.2}  the same UPDATE as text (parse + execute)", ns / 1000.0);
}
