//! Named user locks: GET_LOCK, RELEASE_LOCK, IS_FREE_LOCK, IS_USED_LOCK, RELEASE_ALL_LOCKS
//! (mysqld's `Item_func_get_lock` and friends, item_func.cc, over its metadata-lock
//! subsystem's USER_LEVEL_LOCK namespace).
//!
//! mysqld's rules kept here:
//! - a lock belongs to the connection that took it, which may take it again (a count; each
//!   RELEASE_LOCK gives back one), and holds any number of locks at once (5.7.5+);
//! - names are at most 64 characters, not empty, compared case-insensitively; another name is
//!   3057 (ER_USER_LOCK_WRONG_NAME);
//! - GET_LOCK waits at most `timeout` seconds (a negative timeout: without bound), answers 1
//!   when it has the lock, 0 on timeout, NULL when the statement is killed; a wait that would
//!   close a cycle of connections waiting for each other's locks is 3058
//!   (ER_USER_LOCK_DEADLOCK) at once;
//! - a disconnect releases every lock of the connection (`Session`'s drop).
//!
//! Why a module of its own: the locks are the server's (one table for all sessions), and the
//! waits need a condition variable and the deadlock walk, which belong to no statement.
//!
//! Invariants: every entry of `held` has a count of at least 1; `waiting` holds a connection
//! only while it is blocked in [`UserLocks::get`]; the deadlock walk is bounded by the number
//! of waiting connections.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use engine::Value;
use parking_lot::{Condvar, Mutex};

use crate::error::{Result, SqlError};

/// The longest name mysqld takes (`NAME_CHAR_LEN`).
const MAX_NAME: usize = 64;
/// How often a wait polls the statement's KILL check.
const POLL: Duration = Duration::from_millis(50);
/// The longest wait (a negative timeout's "forever"), one year.
const FOREVER: Duration = Duration::from_secs(31_536_000);

#[derive(Default)]
struct Table {
    /// Lower-cased name → (holder's connection id, how many times it holds the lock).
    held: HashMap<String, (u32, u64)>,
    /// Connection id → the lock it is waiting for.
    waiting: HashMap<u32, String>,
}

/// The server's named locks.
#[derive(Default)]
pub(crate) struct UserLocks {
    table: Mutex<Table>,
    freed: Condvar,
}

/// The lock key of a name argument, or 3057.
pub(crate) fn lock_name(v: &Value) -> Result<String> {
    let text = match v {
        Value::Null => String::new(),
        v => String::from_utf8_lossy(&crate::eval::to_text(v)).into_owned(),
    };
    if text.is_empty() || text.chars().count() > MAX_NAME {
        return Err(SqlError::Other {
            code: 3057,
            sqlstate: "42000",
            message: format!("Incorrect user-level lock name '{text}'."),
        });
    }
    Ok(collation::to_lower(&text))
}

/// GET_LOCK's timeout argument: None is "without bound".
pub(crate) fn timeout_of(v: &Value) -> Duration {
    let secs = crate::eval::num_f64_of(v);
    if secs < 0.0 || !secs.is_finite() {
        FOREVER
    } else {
        Duration::from_secs_f64(secs).min(FOREVER)
    }
}

impl UserLocks {
    /// GET_LOCK(name, timeout) for connection `conn`; `killed` is polled while waiting.
    pub(crate) fn get(
        &self,
        conn: u32,
        name: &str,
        timeout: Duration,
        killed: &dyn Fn() -> bool,
    ) -> Result<Value> {
        let deadline = Instant::now() + timeout;
        let mut t = self.table.lock();
        loop {
            match t.held.get_mut(name) {
                None => {
                    t.held.insert(name.to_string(), (conn, 1));
                    t.waiting.remove(&conn);
                    return Ok(Value::Int(1));
                }
                Some((holder, count)) if *holder == conn => {
                    *count += 1;
                    t.waiting.remove(&conn);
                    return Ok(Value::Int(1));
                }
                Some(&mut (holder, _)) => {
                    if deadlocks(&t, conn, holder) {
                        t.waiting.remove(&conn);
                        return Err(SqlError::Other {
                            code: 3058,
                            sqlstate: "HY000",
                            message: "Deadlock found when trying to get user-level lock; try \
                                      rolling back transaction/releasing locks and restarting \
                                      lock acquisition."
                                .into(),
                        });
                    }
                }
            }
            let now = Instant::now();
            if now >= deadline {
                t.waiting.remove(&conn);
                return Ok(Value::Int(0));
            }
            if killed() {
                t.waiting.remove(&conn);
                return Ok(Value::Null);
            }
            t.waiting.insert(conn, name.to_string());
            self.freed.wait_until(&mut t, deadline.min(now + POLL));
        }
    }

    /// RELEASE_LOCK(name): 1 released (once), 0 held by another connection, NULL not held.
    pub(crate) fn release(&self, conn: u32, name: &str) -> Value {
        let mut t = self.table.lock();
        let v = match t.held.get_mut(name) {
            None => return Value::Null,
            Some((holder, _)) if *holder != conn => return Value::Int(0),
            Some((_, count)) => {
                *count -= 1;
                *count == 0
            }
        };
        if v {
            t.held.remove(name);
            self.freed.notify_all();
        }
        Value::Int(1)
    }

    /// IS_FREE_LOCK(name).
    pub(crate) fn is_free(&self, name: &str) -> Value {
        Value::Int(i64::from(!self.table.lock().held.contains_key(name)))
    }

    /// IS_USED_LOCK(name): the holder's connection id, or NULL.
    pub(crate) fn holder(&self, name: &str) -> Value {
        match self.table.lock().held.get(name) {
            Some((conn, _)) => Value::UInt(u64::from(*conn)),
            None => Value::Null,
        }
    }

    /// RELEASE_ALL_LOCKS(), and a disconnect: releases every lock `conn` holds and answers
    /// how many holds that was (a lock taken twice counts two).
    pub(crate) fn release_all(&self, conn: u32) -> u64 {
        let mut t = self.table.lock();
        let mut released = 0;
        t.held.retain(|_, (holder, count)| {
            if *holder == conn {
                released += *count;
                false
            } else {
                true
            }
        });
        t.waiting.remove(&conn);
        if released > 0 {
            self.freed.notify_all();
        }
        released
    }
}

/// Whether `conn` waiting for a lock of `holder` closes a cycle: `holder` waits (directly or
/// through others) for a lock `conn` holds.
fn deadlocks(t: &Table, conn: u32, holder: u32) -> bool {
    let mut at = holder;
    for _ in 0..=t.waiting.len() {
        let Some(wanted) = t.waiting.get(&at) else { return false };
        let Some(&(next, _)) = t.held.get(wanted) else { return false };
        if next == conn {
            return true;
        }
        at = next;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_count_release_and_time_out() {
        let l = UserLocks::default();
        let never = || false;
        assert_eq!(l.get(1, "a", Duration::ZERO, &never).unwrap(), Value::Int(1));
        assert_eq!(l.get(1, "a", Duration::ZERO, &never).unwrap(), Value::Int(1));
        assert_eq!(l.get(2, "a", Duration::from_millis(20), &never).unwrap(), Value::Int(0));
        assert_eq!(l.holder("a"), Value::UInt(1));
        assert_eq!(l.release(2, "a"), Value::Int(0));
        assert_eq!(l.release(1, "a"), Value::Int(1));
        assert_eq!(l.is_free("a"), Value::Int(0), "held twice, released once");
        assert_eq!(l.release(1, "a"), Value::Int(1));
        assert_eq!(l.is_free("a"), Value::Int(1));
        assert_eq!(l.release(1, "a"), Value::Null);
        l.get(1, "x", Duration::ZERO, &never).unwrap();
        l.get(1, "y", Duration::ZERO, &never).unwrap();
        l.get(1, "y", Duration::ZERO, &never).unwrap();
        assert_eq!(l.release_all(1), 3);
        assert_eq!(l.holder("y"), Value::Null);
        assert_eq!(lock_name(&Value::Bytes(b"".to_vec())).unwrap_err().code(), 3057);
        assert_eq!(lock_name(&Value::Bytes(vec![b'a'; 65])).unwrap_err().code(), 3057);
        assert_eq!(lock_name(&Value::Bytes(b"AbC".to_vec())).unwrap(), "abc");
        // A killed waiter gives up with NULL.
        l.get(1, "k", Duration::ZERO, &never).unwrap();
        assert_eq!(l.get(2, "k", FOREVER, &|| true).unwrap(), Value::Null);
    }

    #[test]
    fn a_waiter_gets_the_lock_when_it_is_released_and_cycles_are_refused() {
        let l = std::sync::Arc::new(UserLocks::default());
        let never = || false;
        l.get(1, "a", Duration::ZERO, &never).unwrap();
        l.get(2, "b", Duration::ZERO, &never).unwrap();
        let waiter = {
            let l = l.clone();
            std::thread::spawn(move || l.get(2, "a", Duration::from_secs(10), &|| false))
        };
        while !l.table.lock().waiting.contains_key(&2) {
            std::thread::sleep(Duration::from_millis(5));
        }
        // 1 waiting for b (held by 2, which waits for a, held by 1) closes a cycle.
        assert_eq!(l.get(1, "b", Duration::from_secs(10), &never).unwrap_err().code(), 3058);
        assert_eq!(l.release(1, "a"), Value::Int(1));
        assert_eq!(waiter.join().unwrap().unwrap(), Value::Int(1));
        assert_eq!(l.holder("a"), Value::UInt(2));
    }
}
