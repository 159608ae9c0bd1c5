//! The GTID set functions: `GTID_SUBSET(a, b)`, `GTID_SUBTRACT(a, b)` and
//! `WAIT_FOR_EXECUTED_GTID_SET(set [, timeout])`, as mysqld's `Item_func_gtid_subset`,
//! `Item_func_gtid_subtract` and `Item_wait_for_executed_gtid_set` (sql/item_func.cc,
//! item_strfunc.cc). CDC tools call them on every restart (Debezium: GTID_SUBTRACT of the
//! server's set and the offsets').
//!
//! - A NULL argument gives NULL (mysqld sets `null_value`).
//! - A set that does not parse is ER_MALFORMED_GTID_SET_SPECIFICATION (1772) naming it.
//! - GTID_SUBTRACT prints the result in mysqld's text form (`Gtid_set::to_string` with the
//!   default format: sids sorted, `,\n` between them).
//! - WAIT_FOR_EXECUTED_GTID_SET returns 0 once every GTID of the set is in `gtid_executed`, 1
//!   when `timeout` seconds (fractions allowed; none or 0: no limit) passed first; a negative
//!   timeout is ER_WRONG_ARGUMENTS (1210); KILL QUERY ends it with 1317. It polls
//!   `gtid_executed` every 10 ms: the commit pipeline has no waiter list for GTIDs, and the
//!   wait is rare (a failover tool's).
//!
//! The sets use the binlog crate's [`GtidSet`] (sorted intervals per sid). The waiting
//! function, which needs the session, is in gtidwait.rs.

use binlog::gtid::GtidSet;
use engine::Value;

use super::error::{Result, SqlError};

pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => other.to_string(),
    }
}

/// ER_MALFORMED_GTID_SET_SPECIFICATION.
fn malformed(spec: &str) -> SqlError {
    SqlError::Other {
        code: 1772,
        sqlstate: "HY000",
        message: format!("Malformed GTID set specification '{spec}'."),
    }
}

pub(crate) fn parse_set(v: &Value) -> Result<GtidSet> {
    let spec = text(v);
    spec.parse::<GtidSet>().map_err(|_| malformed(&spec))
}

/// mysqld's text form of a set: `,\n` between sids.
pub fn set_text(set: &GtidSet) -> String {
    set.to_string().replace(',', ",\n")
}

/// `GTID_SUBSET(a, b)`: 1 if every GTID of `a` is in `b`.
pub fn subset(a: &Value, b: &Value) -> Result<Value> {
    if *a == Value::Null || *b == Value::Null {
        return Ok(Value::Null);
    }
    let (a, b) = (parse_set(a)?, parse_set(b)?);
    Ok(Value::Int(i64::from(a.is_subset(&b))))
}

/// `GTID_SUBTRACT(a, b)`: the GTIDs of `a` not in `b`.
pub fn subtract(a: &Value, b: &Value) -> Result<Value> {
    if *a == Value::Null || *b == Value::Null {
        return Ok(Value::Null);
    }
    let (a, b) = (parse_set(a)?, parse_set(b)?);
    Ok(Value::Bytes(set_text(&a.subtract(&b)).into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    const B: &str = "4e11fa47-71ca-11e1-9e33-c80aa9429562";

    fn s(t: &str) -> Value {
        Value::Bytes(t.as_bytes().to_vec())
    }

    #[test]
    fn subset_and_subtract_follow_mysqld() {
        assert_eq!(
            subset(&s(&format!("{A}:1-3")), &s(&format!("{A}:1-5"))).ok(),
            Some(Value::Int(1))
        );
        assert_eq!(
            subset(&s(&format!("{A}:1-6")), &s(&format!("{A}:1-5"))).ok(),
            Some(Value::Int(0))
        );
        assert_eq!(subset(&s(""), &s("")).ok(), Some(Value::Int(1)));
        assert_eq!(subset(&Value::Null, &s("")).ok(), Some(Value::Null));
        let r = subtract(&s(&format!("{A}:1-10,{B}:1-3")), &s(&format!("{A}:3-5")));
        assert_eq!(r.ok(), Some(s(&format!("{A}:1-2:6-10,\n{B}:1-3"))));
        assert_eq!(subtract(&s(&format!("{A}:1-3")), &s(&format!("{A}:1-3"))).ok(), Some(s("")));
        let e = subtract(&s("nope"), &s("")).expect_err("malformed");
        assert_eq!(
            (e.code(), e.to_string()),
            (1772, "Malformed GTID set specification 'nope'.".into())
        );
    }
}
