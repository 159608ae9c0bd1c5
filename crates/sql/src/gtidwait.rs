//! `WAIT_FOR_EXECUTED_GTID_SET(set [, timeout])` (mysqld's `Item_wait_for_executed_gtid_set`;
//! semantics in gtidfn.rs): apart from gtidfn.rs because it needs the session (its kill flag
//! and the binlog's `gtid_executed`).

use std::time::{Duration, Instant};

use binlog::gtid::GtidSet;
use engine::Value;

use super::error::{query_interrupted, Result, SqlError};
use super::gtidfn::{parse_set, text};
use super::session::Session;

impl Session {
    /// `WAIT_FOR_EXECUTED_GTID_SET(set [, timeout])` (module doc). Called at binding with the
    /// arguments' values; never on a thread that must not block (the caller checks
    /// `engine::waits_refused` first).
    pub(crate) fn wait_for_executed_gtid_set(&self, args: &[Value]) -> Result<Value> {
        let set = args.first().cloned().unwrap_or(Value::Null);
        if set == Value::Null {
            return Ok(Value::Null);
        }
        let wanted = parse_set(&set)?;
        let timeout = match args.get(1) {
            None | Some(Value::Null) => None,
            Some(v) => {
                let secs: f64 = match v {
                    Value::Int(i) => *i as f64,
                    Value::UInt(u) => *u as f64,
                    Value::Double(d) => *d,
                    Value::Decimal(d) => d.to_string().parse().unwrap_or(0.0),
                    other => text(other).trim().parse().unwrap_or(0.0),
                };
                if secs < 0.0 || !secs.is_finite() {
                    return Err(SqlError::WrongArguments("WAIT_FOR_EXECUTED_GTID_SET"));
                }
                (secs > 0.0).then(|| Duration::from_secs_f64(secs.min(31_536_000.0)))
            }
        };
        let start = Instant::now();
        loop {
            let executed = self.server.hooks.admin.gtid_executed();
            let executed = executed.parse::<GtidSet>().unwrap_or_default();
            if wanted.is_subset(&executed) {
                return Ok(Value::Int(0));
            }
            if timeout.is_some_and(|t| start.elapsed() >= t) {
                return Ok(Value::Int(1));
            }
            if self.process.as_ref().is_some_and(|p| p.killed() != 0) {
                return Err(query_interrupted());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
