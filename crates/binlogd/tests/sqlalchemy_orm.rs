//! SQLAlchemy 2's ORM (unmodified, PyMySQL underneath, installed by scripts/test.sh) against
//! binlogd (issue 20): `create_all` with relationships (FOREIGN KEY ... ON DELETE CASCADE /
//! SET NULL), inserts through the session, `joinedload`, `selectinload`,
//! `select(func.count()).select_from(...)`, `Query.count()` (a derived table), `begin_nested` (SAVEPOINT), the 1452 IntegrityError,
//! a database cascade delete and the ORM's own cascade delete, reflection
//! (`MetaData.reflect`, `inspect(engine).get_foreign_keys`). The script is
//! tests/python/sqlalchemy_orm.py; checks it marks pending (none today) run with `--pending`,
//! which `SQLALCHEMY_PENDING=1` passes.

mod support;

use std::path::Path;
use std::process::Command;

use support::start;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlalchemy_orm_with_foreign_keys() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server = start(&tmp.path().join("data"), &["--initialize-insecure"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/sqlalchemy_orm.py");
    let port = server.port.to_string();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .arg(&script)
            .arg(&port)
            .args(std::env::var_os("SQLALCHEMY_PENDING").map(|_| "--pending"))
            .output()
            .expect("run python3 (scripts/test.sh installs sqlalchemy and pymysql)")
    })
    .await
    .expect("join");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    for name in [
        "create_all",
        "inserts",
        "joinedload",
        "selectinload",
        "select_func_count",
        "query_count",
        "begin_nested",
        "fk_error_1452",
        "cascade_delete",
        "orm_cascade_delete",
        "reflection",
    ] {
        assert!(
            stdout.lines().any(|l| l == format!("ok {name}")),
            "{name} did not pass:\n{stdout}"
        );
    }
}
