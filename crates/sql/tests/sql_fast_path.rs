//! The prepared point UPDATE / DELETE fast path (`sql/write.rs`, `point_key`) against the
//! general binder and planner: the same statements, once in the fast shape (`WHERE id = ?`)
//! and once in a shape only the general path takes (`WHERE id = ? AND 1 = 1`), on two servers with
//! the same data, must give the same answers, the same errors (code and text), the same table
//! contents and the same row changes handed to the committer — the row images the binlog
//! cache encodes, so the binlog events are the same bytes. `sql::write`'s unit tests check
//! which shape takes which path.

#[path = "support/recording.rs"]
mod recording;

use std::path::Path;
use std::sync::Arc;

use engine::{Engine, EngineConfig, Value};
use recording::Recording;
use sql::{Hooks, Server, Session};

fn server() -> (Arc<Server>, Arc<Recording>) {
    let vfs = vfs::SimVfs::new().shared();
    let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
    let e: Engine = Engine::open(vfs, Path::new("/data"), cfg).expect("engine opens").0;
    let rec = Recording::new(&e);
    let hooks = Hooks { committer: rec.clone(), ..Hooks::without_binlog(&e) };
    (Server::open(e, hooks, &[]).expect("server opens"), rec)
}

fn setup(s: &mut Session) {
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, k INT NOT NULL DEFAULT 0, \
         c CHAR(12) NOT NULL DEFAULT '', n INT NULL, KEY kk (k))",
        "CREATE TABLE u (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, c VARCHAR(8))",
        "INSERT INTO t VALUES (1, 10, 'one', NULL), (2, 20, 'two', 2), (3, 30, 'three', 3), \
         (4, 40, 'four', 4), (5, 50, 'five', 5)",
        "INSERT INTO u VALUES (1, 'a'), (18446744073709551615, 'max')",
    ] {
        s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

fn b(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

/// What a run of one statement shows: its answer or its error (code, SQLSTATE, text).
fn outcome(s: &mut Session, sql: &str, params: &[Value]) -> String {
    let stmt = s.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    match s.execute(&stmt, params) {
        Ok(o) => format!("{o:?}"),
        Err(e) => format!("error {} {}: {e}", e.code(), e.sqlstate()),
    }
}

#[test]
fn point_writes_match_the_general_path() {
    let (fast_srv, fast_rec) = server();
    let (gen_srv, gen_rec) = server();
    let mut fast = fast_srv.session("root", "localhost");
    let mut general = gen_srv.session("root", "localhost");
    setup(&mut fast);
    setup(&mut general);

    // (statement with `{id}` for the key operand, parameters); `{id}` becomes `?` (fast)
    // and `? AND 1 = 1` (general: the planner finds the same key).
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("UPDATE t SET c=? WHERE id={id}", vec![b("new"), Value::Int(1)]),
        ("UPDATE t SET c=? WHERE id={id}", vec![b("new"), Value::Int(1)]), // unchanged row
        ("UPDATE t SET c=? WHERE id={id}", vec![b("none"), Value::Int(99)]), // no such row
        ("UPDATE t SET c=?, k=? WHERE id={id}", vec![b("x"), Value::Int(7), Value::UInt(2)]),
        ("UPDATE t SET k=?, n=? WHERE id={id}", vec![b("12"), Value::Null, Value::Int(3)]),
        ("UPDATE t SET k=? WHERE id={id}", vec![b("12abc"), Value::Int(3)]), // 1366
        ("UPDATE t SET k=? WHERE id={id}", vec![Value::Null, Value::Int(3)]), // 1048
        ("UPDATE t SET k=? WHERE id={id}", vec![Value::Int(1 << 40), Value::Int(3)]), // 1264
        ("UPDATE t SET k=? WHERE id={id}", vec![Value::Double(2.5), Value::Int(4)]),
        ("UPDATE t SET c=? WHERE id={id}", vec![b("too long for char 12"), Value::Int(4)]),
        ("UPDATE t SET nope=? WHERE id={id}", vec![Value::Int(1), Value::Int(4)]), // 1054
        ("UPDATE t SET c=? WHERE id={id}", vec![b("big"), Value::Int(i64::MAX)]),
        ("UPDATE t SET c=? WHERE id={id}", vec![b("neg"), Value::Int(-1)]),
        ("UPDATE t SET c='lit' WHERE id={id}", vec![Value::Int(5)]),
        ("UPDATE u SET c=? WHERE id={id}", vec![b("m"), Value::UInt(u64::MAX)]),
        ("UPDATE u SET c=? WHERE id={id}", vec![b("m"), Value::Int(-1)]),
        ("UPDATE u SET c=? WHERE id={id}", vec![b("one"), Value::Int(1)]),
        ("DELETE FROM t WHERE id={id}", vec![Value::Int(2)]),
        ("DELETE FROM t WHERE id={id}", vec![Value::Int(2)]), // already gone
        ("DELETE FROM u WHERE id={id}", vec![Value::UInt(u64::MAX)]),
    ];
    let mut answers = Vec::new();
    for (sql, params) in &cases {
        let f = outcome(&mut fast, &sql.replace("{id}", "?"), params);
        let g = outcome(&mut general, &sql.replace("{id}", "? AND 1 = 1"), params);
        assert_eq!(f, g, "{sql} {params:?}");
        answers.push(f);
    }
    // The cases reach the answers they are there for (so the comparison covers them).
    assert!(answers[0].contains("Rows matched: 1  Changed: 1"), "{}", answers[0]);
    assert!(answers[1].contains("Rows matched: 1  Changed: 0"), "{}", answers[1]);
    assert!(answers[2].contains("Rows matched: 0  Changed: 0"), "{}", answers[2]);
    for (i, code) in [(5, "1366"), (6, "1048"), (7, "1264"), (9, "1406"), (10, "1054")] {
        assert!(answers[i].starts_with(&format!("error {code} ")), "case {i}: {}", answers[i]);
    }
    assert!(answers[14].contains("Changed: 1"), "{}", answers[14]);
    // Inside an explicit transaction: a failing statement is undone alone, the rest commits.
    for s in [&mut fast, &mut general] {
        s.query("BEGIN").expect("begin");
    }
    for (sql, params) in [
        ("UPDATE t SET k=? WHERE id={id}", vec![Value::Int(100), Value::Int(5)]),
        ("UPDATE t SET k=? WHERE id={id}", vec![Value::Null, Value::Int(4)]),
        ("DELETE FROM t WHERE id={id}", vec![Value::Int(1)]),
    ] {
        let f = outcome(&mut fast, &sql.replace("{id}", "?"), &params);
        let g = outcome(&mut general, &sql.replace("{id}", "? AND 1 = 1"), &params);
        assert_eq!(f, g, "{sql} {params:?}");
    }
    for s in [&mut fast, &mut general] {
        s.query("COMMIT").expect("commit");
    }

    let dump = |s: &mut Session| {
        let mut v = s.query("SELECT * FROM t").expect("select").text_rows();
        v.extend(s.query("SELECT * FROM u").expect("select").text_rows());
        v
    };
    assert_eq!(dump(&mut fast), dump(&mut general));
    let commits = |r: &Recording| r.changes();
    let (f, g) = (commits(&fast_rec), commits(&gen_rec));
    assert_eq!(f, g, "the same row changes reach the committer (and so the binlog)");
    // The setup's two inserts, then the changing statements of the cases and the transaction.
    assert!(f.len() >= 8, "changes were committed: {}", f.len());
}
