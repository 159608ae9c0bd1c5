//! Where a prepared statement keeps its plan between executions (`session::Prepared` holds
//! one [`PlanCache`] per statement).
//!
//! Why: sysbench and go-tpc execute the same prepared statements many times per connection,
//! and resolving names, binding and deriving result metadata again at every COM_STMT_EXECUTE
//! cost a share of the server's CPU per transaction. mysqld keeps a prepared statement's
//! resolved tree and re-prepares it when the metadata it was resolved against changed
//! (`Prepared_statement::execute_loop`, `ER_NEED_REPREPARE` handled inside the server).
//!
//! What the cache holds and when it is valid is the planner's business (`exec.rs`,
//! `Session::plan_select_cached`): this module only gives it a slot the session can carry
//! without depending on the planner's types (the planner depends on the session).
//!
//! Invariants: the slot holds at most one plan, replaced whole; a reader that finds a value
//! of another type, or a poisoned lock, treats the slot as empty.

use std::any::Any;
use std::sync::Mutex;

/// One prepared statement's plan slot.
#[derive(Default)]
pub(crate) struct PlanCache(Mutex<Option<Box<dyn Any + Send>>>);

impl std::fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanCache").field("cached", &self.is_cached()).finish()
    }
}

impl PlanCache {
    /// Whether a plan is kept.
    pub(crate) fn is_cached(&self) -> bool {
        self.0.lock().map(|c| c.is_some()).unwrap_or(false)
    }

    /// `f` of the kept plan, if one of type `T` is kept.
    pub(crate) fn with<T: 'static, R>(&self, f: impl FnOnce(&T) -> Option<R>) -> Option<R> {
        let slot = self.0.lock().ok()?;
        slot.as_ref()?.downcast_ref::<T>().and_then(f)
    }

    /// Keeps `plan`, replacing what was kept.
    pub(crate) fn keep<T: Send + 'static>(&self, plan: T) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(Box::new(plan));
        }
    }
}
