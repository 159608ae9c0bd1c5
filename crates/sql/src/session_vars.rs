//! A session's copies of its session-scoped system variables, and what each statement derives
//! from them, computed once per change instead of once per statement.
//!
//! Why: every statement used to re-read `time_zone`, `sql_mode` and `div_precision_increment`
//! as text and parse them (`Session::begin_statement`), and every commit rebuilt the binlog
//! QUERY event's status variables from a dozen variables read as strings
//! (`Session::query_context`): about 2.5 µs of server CPU per sysbench `oltp_update_non_index`
//! transaction (perf, bench/RESULTS.md "Per-statement variable reads"). mysqld keeps these
//! decoded in `THD::variables` (`System_variables`), set once by `SET`; this is the same: the
//! map records a generation that every insert and removal advances, and the caches below are
//! valid for one generation.
//!
//! Invariants:
//! - Every change of the map goes through [`SessionVars::insert`] / [`SessionVars::remove`],
//!   which advance the generation (the map is private), so a cache stamped with the current
//!   generation was derived from the current values.
//! - A value the session does not hold is read through to the global, so a cache is stamped
//!   with the globals' generation too ([`super::vars::Variables::generation`]); that one is read
//!   before the values, so a cache can be stale-stamped but never stamped newer than its values.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use engine::Value;

use super::temporal::{Mode, Zone};
use super::vars::Var;
use commit::QueryContext;

/// The session-scoped variables of one session.
pub struct SessionVars {
    /// Indexed by `Var as usize` (as the globals are), `None` where the session holds no value:
    /// a read is an index, not a hash of the key.
    values: Vec<Option<Value>>,
    generation: u64,
}

impl SessionVars {
    pub fn new(map: HashMap<Var, Value>) -> SessionVars {
        let mut values = vec![None; super::vars::VARIABLES.len()];
        for (var, value) in map {
            values[var as usize] = Some(value);
        }
        SessionVars { values, generation: 1 }
    }

    pub fn get(&self, var: &Var) -> Option<&Value> {
        self.values.get(*var as usize).and_then(Option::as_ref)
    }

    /// Sets a session value; advances the generation.
    pub fn insert(&mut self, var: Var, value: Value) -> Option<Value> {
        self.generation += 1;
        let slot = self.values.get_mut(var as usize).expect("every Var has a registry row");
        slot.replace(value)
    }

    /// Removes a session value (reads fall back to the global); advances the generation.
    pub fn remove(&mut self, var: &Var) -> Option<Value> {
        self.generation += 1;
        self.values.get_mut(*var as usize).and_then(Option::take)
    }

    /// Changes with every insert and removal.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// What a statement's start derives from the variables ([`Session::begin_statement`]).
#[derive(Clone)]
pub struct StatementVars {
    pub zone: Zone,
    pub mode: Mode,
    pub div_precision_increment: u8,
    /// `timestamp` as set by `SET timestamp = n` (0: the clock).
    pub fixed_timestamp: f64,
    /// `transaction_isolation` (a new transaction's level unless `SET TRANSACTION` chose one).
    pub isolation: super::isolation::Isolation,
}

/// Session and global generations ([`SessionVars::generation`], `Variables::generation`).
pub type Generations = (u64, u64);

/// The QUERY event context cached with its generations and `autocommit`.
type CachedQueryContext = (Generations, bool, Arc<QueryContext>);

/// The caches, each stamped with the generations (session map, globals) it was derived at.
#[derive(Default)]
pub struct DerivedVars {
    pub statement: Option<(Generations, StatementVars)>,
    /// The QUERY event context, also keyed by `autocommit` (a flag of it that is not a
    /// variable of the map).
    pub query: Mutex<Option<CachedQueryContext>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_advances_the_generation() {
        let mut v = SessionVars::new(HashMap::from([(Var::SqlMode, Value::Bytes(b"".to_vec()))]));
        let g0 = v.generation();
        assert_eq!(v.get(&Var::SqlMode), Some(&Value::Bytes(Vec::new())));
        assert_eq!(v.get(&Var::TimeZone), None);
        v.insert(Var::TimeZone, Value::Bytes(b"+01:00".to_vec()));
        let g1 = v.generation();
        assert!(g1 > g0);
        assert_eq!(v.get(&Var::TimeZone), Some(&Value::Bytes(b"+01:00".to_vec())));
        assert_eq!(v.remove(&Var::TimeZone), Some(Value::Bytes(b"+01:00".to_vec())));
        assert!(v.generation() > g1);
        assert_eq!(v.get(&Var::TimeZone), None);
    }
}
