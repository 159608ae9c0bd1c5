//! What a client's statement must never do to the SQL layer (issue 17): recurse past the stack
//! on a deep expression, or cross a privilege (UPDATE without SELECT reading columns, ODKU and
//! REPLACE without UPDATE/DELETE, `SET gtid_next` and the other restricted session variables,
//! metadata of tables without a privilege, the processlist, passwords in statement text).

mod common;

use std::sync::Arc;

use common::{engine, err, q, rows, server};
use engine::Value;
use sql::{Hooks, Output, Server, Session, SqlError};

/// A server with accounts attached (root has every privilege; other accounts what they are
/// granted). The returned directory holds `users.json`.
fn server_with_accounts() -> (Arc<Server>, tempfile::TempDir) {
    let srv = server();
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("accounts open");
    srv.attach_accounts(Arc::new(users));
    (srv, dir)
}

/// Runs `f` on a thread with a `stack`-byte stack, as a Tokio worker (2 MiB) runs statements.
fn on_stack<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .expect("thread spawns")
        .join()
        .expect("the thread did not panic")
}

const MIB: usize = 1 << 20;

/// The largest term count of each shape the depth bound accepts, found by bisection through
/// the session's own answers (1436 past the bound).
fn largest_accepted(s: &mut Session, shape: &dyn Fn(usize) -> String) -> usize {
    let (mut lo, mut hi) = (1usize, 200_000usize);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        match s.query(&shape(mid)) {
            Ok(_) => lo = mid,
            // 1064: sqlparser's own recursion limit (50 nested parentheses or calls).
            Err(e) if e.code() == 1436 || e.code() == 1064 => hi = mid,
            Err(e) => panic!("{} terms: {e}", mid),
        }
    }
    lo
}

/// A statement of a given number of nested terms.
type Shape = fn(usize) -> String;

fn plus_chain(n: usize) -> String {
    format!("SELECT 1{}", "+1".repeat(n - 1))
}

fn and_chain(n: usize) -> String {
    format!("SELECT id FROM t WHERE {}", vec!["id > 0"; n].join(" AND "))
}

fn or_chain(n: usize) -> String {
    let terms: Vec<String> = (1..=n).map(|i| format!("id={i}")).collect();
    format!("SELECT id FROM t WHERE {}", terms.join(" OR "))
}

fn parens(n: usize) -> String {
    format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n))
}

fn nested_functions(n: usize) -> String {
    format!("SELECT {}1{}", "ABS(".repeat(n), ")".repeat(n))
}

fn nested_unary(n: usize) -> String {
    format!("SELECT {}1", "- ".repeat(n))
}

fn nested_not(n: usize) -> String {
    format!("SELECT {}1", "NOT ".repeat(n))
}

fn nested_subqueries(n: usize) -> String {
    format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n))
}

fn is_null_chain(n: usize) -> String {
    format!("SELECT 1{}", " IS NULL".repeat(n))
}

fn case_nest(n: usize) -> String {
    format!("SELECT {}1{}", "CASE WHEN 1 THEN ".repeat(n), " END".repeat(n))
}

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    q(s, "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)");
}

/// Every shape, far past the bound (100 000 terms), answers 1436 or a parse error on a 2 MiB
/// stack, and the session goes on; at the bound, each shape still runs on half that stack.
#[test]
fn deep_expressions_end_in_an_error_on_a_2_mib_stack() {
    let shapes: Vec<(&str, Shape)> = vec![
        ("plus", plus_chain),
        ("and", and_chain),
        ("or", or_chain),
        ("parens", parens),
        ("functions", nested_functions),
        ("unary minus", nested_unary),
        ("not", nested_not),
        ("subqueries", nested_subqueries),
        ("is null", is_null_chain),
        ("case", case_nest),
    ];
    let srv = server();
    let report = on_stack(2 * MIB, move || {
        let mut s = srv.session("root", "localhost");
        setup(&mut s);
        let mut report = Vec::new();
        for (name, shape) in &shapes {
            for n in [1_550, 3_000, 100_000] {
                let sql = shape(n);
                match s.query(&sql) {
                    Err(e) => {
                        assert!(
                            [1436, 1064, 1235].contains(&e.code()),
                            "{name} x{n}: {} {e}",
                            e.code()
                        );
                        report.push(format!("{name} x{n}: {}", e.code()));
                    }
                    Ok(_) => report.push(format!("{name} x{n}: ok")),
                }
                assert_eq!(q(&mut s, "SELECT 1").text_rows(), [["1"]], "{name} x{n}");
            }
        }
        report
    });
    // The 100 000-term shapes never run.
    for line in report.iter().filter(|l| l.contains("x100000")) {
        assert!(!line.ends_with("ok"), "{line}");
    }
}

/// The deepest statement of each shape the bound lets through runs (parse, bind, evaluate,
/// prepare, clone, drop) on a 1 MiB stack: half a Tokio worker's, the margin for the frames
/// of the protocol layer beneath the session.
#[test]
fn the_deepest_accepted_statements_fit_half_a_worker_stack() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let shapes: Vec<fn(usize) -> String> = vec![
        plus_chain,
        and_chain,
        or_chain,
        parens,
        nested_functions,
        nested_unary,
        is_null_chain,
    ];
    let mut limits = Vec::new();
    for shape in &shapes {
        let n = on_stack(8 * MIB, {
            let srv = srv.clone();
            let shape = *shape;
            move || {
                let mut s = srv.session("root", "localhost");
                q(&mut s, "USE d");
                largest_accepted(&mut s, &shape)
            }
        });
        limits.push(n);
        let srv = srv.clone();
        let shape = *shape;
        on_stack(MIB, move || {
            let mut s = srv.session("root", "localhost");
            q(&mut s, "USE d");
            let sql = shape(n);
            let _ = q(&mut s, &sql);
            assert!([1436, 1064].contains(&err(&mut s, &shape(n + 1)).code()));
            // A prepared statement binds and evaluates the same tree at each execution.
            let p = s.prepare(&sql).expect("prepare");
            let _ = s.execute(&p, &[]).expect("execute");
            drop(p.clone());
        });
    }
    // The chains of `+` allow about a thousand terms, `OR` lists of hundreds.
    assert!(limits[0] >= 900, "{limits:?}");
    assert!(limits[2] >= 300, "{limits:?}");
}

/// A prepared `SELECT ?+?+…`: past the bound PREPARE fails with 1436; below it, EXECUTE
/// binds every parameter.
#[test]
fn prepared_placeholder_chains() {
    let srv = server();
    on_stack(2 * MIB, move || {
        let mut s = srv.session("root", "localhost");
        let deep = format!("SELECT ?{}", "+?".repeat(99_999));
        assert_eq!(s.prepare(&deep).map(|_| ()).unwrap_err().code(), 1436);
        let ok = format!("SELECT ?{}", "+?".repeat(799));
        let p = s.prepare(&ok).expect("prepare");
        let params = vec![Value::Int(1); 800];
        let out = s.execute(&p, &params).expect("execute");
        assert_eq!(out.text_rows(), [["800"]]);
    });
}

/// Width is not depth: IN lists of 10 000 values and a 3 000-arm CASE still work.
#[test]
fn wide_statements_still_run() {
    let srv = server();
    on_stack(2 * MIB, move || {
        let mut s = srv.session("root", "localhost");
        setup(&mut s);
        let list: Vec<String> = (1..=10_000).map(|i| i.to_string()).collect();
        let sql = format!("SELECT COUNT(*) FROM t WHERE id IN ({})", list.join(", "));
        assert_eq!(rows(&mut s, &sql), [["3"]]);
        let values: Vec<String> = (100..10_100).map(|i| format!("({i}, {i})")).collect();
        q(&mut s, &format!("INSERT INTO t VALUES {}", values.join(", ")));
        let arms: String = (0..3_000).map(|i| format!(" WHEN (id = {i}) THEN {i} + 1")).collect();
        let o = q(&mut s, &format!("UPDATE t SET v = CASE{arms} ELSE v END WHERE id < 3000"));
        assert!(matches!(o, Output::Ok { .. }));
        assert_eq!(rows(&mut s, "SELECT v FROM t WHERE id = 150"), [["151"]]);
    });
}

/// Root creates `d.t` (and `d.hidden`, `other.x`) and an account `app` with `grants`.
fn accounts_setup(grants: &[&str]) -> (Arc<Server>, tempfile::TempDir, Session, Session) {
    let (srv, dir) = server_with_accounts();
    let mut root = srv.session("root", "localhost");
    setup(&mut root);
    q(&mut root, "CREATE TABLE hidden (id INT PRIMARY KEY AUTO_INCREMENT, secret INT)");
    q(&mut root, "INSERT INTO hidden VALUES (1, 42)");
    q(&mut root, "CREATE DATABASE other");
    q(&mut root, "CREATE TABLE other.x (id INT PRIMARY KEY)");
    q(&mut root, "CREATE USER app IDENTIFIED BY 'pw'");
    for g in grants {
        q(&mut root, g);
    }
    let mut app = srv.session("app", "127.0.0.1");
    app.use_database("d").expect("app may use d");
    (srv, dir, root, app)
}

#[test]
fn restricted_session_variables_need_super() {
    let (_srv, _dir, mut root, mut app) = accounts_setup(&["GRANT INSERT, SELECT ON d.t TO app"]);
    let gtid = "SET gtid_next = '3E11FA47-71CA-11E1-9E33-C80AA9429562:5'";
    let e = err(&mut app, gtid);
    assert_eq!((e.code(), e.sqlstate()), (1227, "42000"), "{e}");
    assert!(e.to_string().contains("REPLICATION_APPLIER"), "{e}");
    for sql in [
        "SET sql_log_bin = 0",
        "SET SESSION binlog_format = 'ROW'",
        "SET @@session.pseudo_thread_id = 7",
        "SET binlog_row_image = 'FULL'",
        "SET sql_require_primary_key = 1",
        "SET autocommit = 1, sql_log_bin = 0",
    ] {
        assert_eq!(err(&mut app, sql).code(), 1227, "{sql}");
    }
    // Nothing was set, and ordinary session variables stay free for every account.
    assert_eq!(rows(&mut app, "SELECT @@sql_log_bin, @@gtid_next"), [["1", "AUTOMATIC"]]);
    q(&mut app, "SET autocommit = 0, sql_mode = '', time_zone = '+00:00', timestamp = 1");
    q(&mut app, "SET autocommit = 1");
    // An account with SUPER may.
    q(&mut root, gtid);
    q(&mut root, "SET gtid_next = 'AUTOMATIC'");
    q(&mut root, "SET sql_log_bin = 1");
}

#[test]
fn on_duplicate_key_update_and_replace_need_their_privileges() {
    let (_srv, _dir, mut root, mut app) = accounts_setup(&["GRANT INSERT, SELECT ON d.t TO app"]);
    let odku = "INSERT INTO t VALUES (1, 99) ON DUPLICATE KEY UPDATE v = 99";
    let e = err(&mut app, odku);
    assert_eq!((e.code(), e.sqlstate()), (1142, "42000"));
    assert!(e.to_string().starts_with("UPDATE command denied"), "{e}");
    let e = err(&mut app, "REPLACE INTO t VALUES (1, 99)");
    assert_eq!(e.code(), 1142);
    assert!(e.to_string().starts_with("DELETE command denied"), "{e}");
    assert_eq!(rows(&mut root, "SELECT v FROM d.t WHERE id = 1"), [["10"]]);
    q(&mut app, "INSERT INTO t VALUES (4, 40)");
    q(&mut root, "GRANT UPDATE, DELETE ON d.t TO app");
    q(&mut app, odku);
    q(&mut app, "REPLACE INTO t VALUES (2, 99)");
    assert_eq!(
        rows(&mut root, "SELECT v FROM d.t WHERE id IN (1, 2) ORDER BY id"),
        [["99"], ["99"]]
    );
}

#[test]
fn update_and_delete_without_select_read_no_column() {
    let (_srv, _dir, mut root, mut app) =
        accounts_setup(&["GRANT UPDATE, DELETE, INSERT ON d.hidden TO app"]);
    // The oracle of the issue: affected rows would tell whether `secret` > N.
    for sql in [
        "UPDATE hidden SET id = 1 WHERE secret > 40",
        "UPDATE hidden SET secret = secret + 1",
        "DELETE FROM hidden WHERE secret = 42",
        "DELETE FROM hidden ORDER BY secret LIMIT 1",
        "INSERT INTO hidden VALUES (1, 0) ON DUPLICATE KEY UPDATE secret = secret + 1",
    ] {
        let e = err(&mut app, sql);
        assert_eq!((e.code(), e.sqlstate()), (1143, "42000"), "{sql}: {e}");
        assert!(e.to_string().contains("for column 'secret' in table 'hidden'"), "{e}");
    }
    assert_eq!(rows(&mut root, "SELECT secret FROM d.hidden"), [["42"]]);
    // Writing without reading stays allowed, as in mysqld.
    q(&mut app, "UPDATE hidden SET secret = 7");
    q(&mut app, "INSERT INTO hidden VALUES (1, 0) ON DUPLICATE KEY UPDATE secret = VALUES(secret)");
    q(&mut app, "DELETE FROM hidden");
    q(&mut root, "INSERT INTO d.hidden VALUES (1, 42)");
    q(&mut root, "GRANT SELECT ON d.hidden TO app");
    q(&mut app, "UPDATE hidden SET secret = secret + 1 WHERE secret > 40");
    assert_eq!(rows(&mut root, "SELECT secret FROM d.hidden"), [["43"]]);
}

#[test]
fn metadata_follows_the_privileges() {
    let (_srv, _dir, mut root, mut app) = accounts_setup(&["GRANT SELECT ON d.t TO app"]);
    assert_eq!(rows(&mut app, "SHOW TABLES FROM d"), [["t"]]);
    assert_eq!(rows(&mut app, "SHOW FULL TABLES FROM d"), [["t", "BASE TABLE"]]);
    for sql in [
        "SHOW CREATE TABLE d.hidden",
        "SHOW COLUMNS FROM d.hidden",
        "SHOW FULL COLUMNS FROM hidden FROM d",
        "DESCRIBE d.hidden",
        "SHOW INDEX FROM d.hidden",
        "SHOW COLUMNS FROM d.hidden WHERE Field = 'secret'",
    ] {
        let e = err(&mut app, sql);
        assert_eq!((e.code(), e.sqlstate()), (1142, "42000"), "{sql}: {e}");
        assert!(e.to_string().starts_with("SHOW command denied"), "{e}");
    }
    for sql in ["SHOW TABLES FROM other", "SHOW CREATE DATABASE other"] {
        let e = err(&mut app, sql);
        assert_eq!((e.code(), e.sqlstate()), (1044, "42000"), "{sql}: {e}");
    }
    assert_eq!(rows(&mut app, "SHOW DATABASES"), [["d"], ["information_schema"]]);
    // What the account may see it still sees.
    q(&mut app, "SHOW CREATE TABLE d.t");
    q(&mut app, "DESCRIBE d.t");
    q(&mut app, "SHOW INDEX FROM d.t");
    q(&mut app, "SHOW CREATE DATABASE d");
    q(&mut root, "GRANT INSERT ON other.* TO app");
    assert_eq!(rows(&mut app, "SHOW TABLES FROM other"), [["x"]]);
    q(&mut app, "SHOW CREATE TABLE other.x");
}

/// A binary log whose `gtid_executed` is fixed: what the auto-skip reads.
struct Executed(&'static str);

impl sql::BinlogAdmin for Executed {
    fn binary_logs(&self) -> Result<Vec<sql::admin::BinlogFileInfo>, SqlError> {
        Ok(Vec::new())
    }
    fn master_status(&self) -> Result<Option<sql::admin::MasterStatus>, SqlError> {
        Ok(None)
    }
    fn binlog_events(
        &self,
        _: Option<&str>,
        _: Option<u64>,
        _: u64,
        _: Option<u64>,
    ) -> Result<Vec<sql::admin::BinlogEventInfo>, SqlError> {
        Ok(Vec::new())
    }
    fn flush_binary_logs(&self) -> Result<(), SqlError> {
        Ok(())
    }
    fn purge_to(&self, _: &str) -> Result<(), SqlError> {
        Ok(())
    }
    fn purge_before(&self, _: engine::DateTime) -> Result<(), SqlError> {
        Ok(())
    }
    fn reset_master(&self) -> Result<(), SqlError> {
        Ok(())
    }
    fn gtid_executed(&self) -> String {
        self.0.to_string()
    }
    fn gtid_purged(&self) -> String {
        String::new()
    }
}

/// A row statement under a `gtid_next` already executed answers OK with 0 affected rows and
/// writes nothing, as mysqld's GTID auto-skip; a new GTID still writes.
#[test]
fn statements_under_an_executed_gtid_are_skipped_and_say_so() {
    let e = engine();
    let mut hooks = Hooks::without_binlog(&e);
    hooks.admin = Arc::new(Executed("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"));
    let srv = Server::open(e.clone(), hooks, &[]).expect("server opens");
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "SET gtid_next = '3E11FA47-71CA-11E1-9E33-C80AA9429562:5'");
    let o = q(&mut s, "INSERT INTO t VALUES (9, 90)");
    assert!(matches!(o, Output::Ok { affected_rows: 0, .. }), "{o:?}");
    assert_eq!(rows(&mut s, "SELECT @@gtid_next"), [["AUTOMATIC"]]);
    q(&mut s, "SET gtid_next = '3E11FA47-71CA-11E1-9E33-C80AA9429562:4'");
    q(&mut s, "BEGIN");
    for sql in ["UPDATE t SET v = 0", "DELETE FROM t", "INSERT INTO t VALUES (8, 80)"] {
        let o = q(&mut s, sql);
        assert!(matches!(o, Output::Ok { affected_rows: 0, .. }), "{sql}: {o:?}");
    }
    q(&mut s, "COMMIT");
    q(&mut s, "SET gtid_next = 'AUTOMATIC'");
    assert_eq!(rows(&mut s, "SELECT COUNT(*), SUM(v) FROM t"), [["3", "60"]]);
    q(&mut s, "SET gtid_next = '3E11FA47-71CA-11E1-9E33-C80AA9429562:6'");
    let o = q(&mut s, "INSERT INTO t VALUES (9, 90)");
    assert!(matches!(o, Output::Ok { affected_rows: 1, .. }), "{o:?}");
}

/// EXPLAIN checks the explained statement's privileges, as mysqld: SELECT for a SELECT,
/// UPDATE (and SELECT on the columns read) for an UPDATE; a denied EXPLAIN reveals nothing.
#[test]
fn explain_needs_the_statements_privileges() {
    let (_srv, _dir, mut root, mut app) = accounts_setup(&["GRANT UPDATE ON d.hidden TO app"]);
    let e = err(&mut app, "EXPLAIN SELECT * FROM hidden WHERE id = 1");
    assert_eq!((e.code(), e.sqlstate()), (1142, "42000"), "{e}");
    assert!(e.to_string().starts_with("SELECT command denied"), "{e}");
    let e = err(&mut app, "EXPLAIN UPDATE hidden SET secret = 1 WHERE secret > 40");
    assert_eq!(e.code(), 1143, "{e}");
    let e = err(&mut app, "EXPLAIN DELETE FROM hidden");
    assert_eq!(e.code(), 1142, "{e}");
    assert!(e.to_string().starts_with("DELETE command denied"), "{e}");
    // Allowed: an UPDATE reading no column, and every statement once granted.
    let out = app.query("EXPLAIN UPDATE hidden SET secret = 1").expect("explain update");
    assert_eq!(out.rows().len(), 1);
    q(&mut root, "GRANT SELECT, DELETE ON d.hidden TO app");
    assert_eq!(rows(&mut app, "EXPLAIN SELECT * FROM hidden WHERE id = 1")[0][4], "const");
    assert_eq!(rows(&mut app, "EXPLAIN DELETE FROM hidden")[0][1], "DELETE");
}
