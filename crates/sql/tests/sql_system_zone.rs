//! `time_zone = SYSTEM` is the server process's local zone (mysqld: the zone of `TZ` or
//! /etc/localtime at start-up), and `@@system_time_zone` its abbreviation. This binary runs one
//! test, which sets `TZ` before anything reads the zone (the zone is read once per process).

use std::path::Path;

use engine::{Engine, EngineConfig};
use sql::{Hooks, Server};

#[test]
fn system_time_zone_is_the_processs_local_zone() {
    // India has had no daylight saving time since 1945: +05:30 all year.
    std::env::set_var("TZ", "Asia/Kolkata");
    let vfs = vfs::SimVfs::new().shared();
    let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
    let e = Engine::open(vfs, Path::new("/data"), cfg).expect("engine opens").0;
    let srv = Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server opens");
    let mut s = srv.session("root", "localhost");
    let one = |s: &mut sql::Session, sql: &str| {
        s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}")).text_rows()[0][0].clone()
    };
    assert_eq!(one(&mut s, "SELECT @@system_time_zone"), "IST");
    s.query("SET time_zone = 'SYSTEM'").expect("SET");
    assert_eq!(one(&mut s, "SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW())"), "330");
    assert_eq!(one(&mut s, "SELECT FROM_UNIXTIME(0)"), "1970-01-01 05:30:00");
    assert_eq!(one(&mut s, "SELECT UNIX_TIMESTAMP('1970-01-01 05:30:00')"), "0");
    assert_eq!(
        one(&mut s, "SELECT CONVERT_TZ('2024-01-01 12:00:00', 'SYSTEM', '+00:00')"),
        "2024-01-01 06:30:00"
    );
    s.query("SET time_zone = '+00:00'").expect("SET");
    assert_eq!(one(&mut s, "SELECT FROM_UNIXTIME(0)"), "1970-01-01 00:00:00");
}
