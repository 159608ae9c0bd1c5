//! Server-wide statement locks: `FLUSH TABLES WITH READ LOCK` (the global read lock),
//! `LOCK INSTANCE FOR BACKUP`, and `LOCK TABLES ... READ | WRITE`.
//!
//! mysqld takes these as metadata locks (`MDL_key::GLOBAL`, `MDL_key::COMMIT`,
//! `MDL_key::BACKUP_LOCK`, `MDL_key::TABLE`; `Global_read_lock::lock_global_read_lock`,
//! `make_global_read_lock_block_commit`, `lock_tables_open_and_lock_tables`). Here:
//! - Every statement that writes, and every commit of a transaction with changes, holds a
//!   *write pass* ([`Locks::enter_write`]) from its start to its end (a deferred commit until
//!   the pipeline answered). FTWRL marks the global read lock (new passes wait), then waits
//!   until no pass is out: every write statement and commit in flight has ended, so
//!   everything committed is visible when it returns. A session holding the read lock that
//!   tries to write gets 1223, as in mysqld.
//! - The pass is two atomics on the hot path (a counter and a flag, SeqCst on both sides, the
//!   Dekker pattern); only while a read lock is held does a writer take the mutex and wait.
//! - `LOCK INSTANCE FOR BACKUP` blocks DDL of other sessions ([`Locks::enter_ddl`]).
//! - Table locks: a READ lock lets others read and makes their writes wait; a WRITE lock makes
//!   every access of others wait. Waits are bounded by `lock_wait_timeout` (1205) and end on
//!   KILL (the caller's interrupt check).
//!
//! - Table use: every session records the tables its open transaction (or, in autocommit,
//!   its running statement) reads and writes in its [`TableUse`], until the transaction ends
//!   (mysqld's transactional `MDL_SHARED_READ`/`MDL_SHARED_WRITE`, released by
//!   `MDL_context::release_transactional_locks`). LOCK TABLES registers its locks first, then
//!   waits until no other session uses a table in a conflicting way (a WRITE lock: any use; a
//!   READ lock: a write), so a statement or transaction that got past its check before the
//!   LOCK TABLES never runs beside it. The two sides form the Dekker pattern: a session records
//!   its use, then reads `table_locks`; LOCK TABLES raises `table_locks`, then reads the uses.
//!   A session that already uses a table goes on using it while a LOCK TABLES waits for it (as
//!   an MDL already granted); one that would have to wait for a LOCK TABLES that is waiting
//!   for it gets 1213 (mysqld's MDL deadlock detector answers `ER_LOCK_DEADLOCK`).
//!
//! Invariant: `blocking` equals the number of sessions in `State::global_read`; `writers`
//! the number of live [`WritePass`]es; a session in `State::draining` holds its table locks
//! in `State::tables` already.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::commit::{CommitOutcome, DeferredCommit};

/// How often a wait polls its interrupt check and the writers it waits out.
const POLL: Duration = Duration::from_millis(5);

/// Why a lock was not granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LockError {
    /// `lock_wait_timeout` passed (1205).
    Timeout,
    /// The session was killed (1317).
    Interrupted,
    /// The session holds the global read lock itself and wants to write (1223).
    OwnReadLock,
    /// The statement runs where it must not block.
    WouldBlock,
}

#[derive(Default)]
struct TableLock {
    readers: HashMap<u32, usize>,
    writer: Option<u32>,
}

#[derive(Default)]
struct State {
    global_read: HashSet<u32>,
    backup: HashSet<u32>,
    /// `db.table` (lower case) -> who holds it.
    tables: HashMap<String, TableLock>,
    /// Sessions whose LOCK TABLES is registered and waits for other sessions' uses to end.
    draining: HashSet<u32>,
}

/// The tables one session's open transaction uses (`db.table` lower case, and whether it
/// writes them). Entries past `active` are spare buffers: recording a table in a new
/// transaction reuses them instead of allocating.
#[derive(Default)]
pub(crate) struct TableUse {
    list: Mutex<UseList>,
}

#[derive(Default)]
struct UseList {
    entries: Vec<(String, bool)>,
    active: usize,
}

fn key_is(key: &str, db: &str, name: &str) -> bool {
    let (k, d, n) = (key.as_bytes(), db.as_bytes(), name.as_bytes());
    k.len() == d.len() + 1 + n.len()
        && k[..d.len()].eq_ignore_ascii_case(d)
        && k[d.len()] == b'.'
        && k[d.len() + 1..].eq_ignore_ascii_case(n)
}

impl TableUse {
    /// How many entries are recorded (a mark for [`Self::truncate`]).
    pub(crate) fn mark(&self) -> usize {
        self.list.lock().active
    }

    /// Records a use of `db.name`; false when the transaction already uses it so (a write
    /// use covers a read).
    pub(crate) fn note(&self, db: &str, name: &str, write: bool) -> bool {
        let mut l = self.list.lock();
        let active = l.active;
        if l.entries[..active].iter().any(|(k, w)| (*w || !write) && key_is(k, db, name)) {
            return false;
        }
        if active == l.entries.len() {
            l.entries.push((String::new(), write));
        }
        let e = &mut l.entries[active];
        e.0.clear();
        e.0.push_str(db);
        e.0.push('.');
        e.0.push_str(name);
        e.0.make_ascii_lowercase();
        e.1 = write;
        l.active += 1;
        true
    }

    /// Forgets the entries recorded after `mark`.
    pub(crate) fn truncate(&self, mark: usize) {
        let mut l = self.list.lock();
        l.active = l.active.min(mark);
    }

    /// The transaction ended: it uses nothing.
    pub(crate) fn release(&self) {
        self.truncate(0);
    }

    /// Whether a lock on `key` (`write`: a WRITE lock) must wait for this use.
    pub(crate) fn blocks(&self, key: &str, write: bool) -> bool {
        let l = self.list.lock();
        l.entries[..l.active].iter().any(|(k, w)| (write || *w) && k == key)
    }
}

/// The server's statement locks.
#[derive(Default)]
pub(crate) struct Locks {
    blocking: AtomicU32,
    writers: AtomicU64,
    table_locks: AtomicU32,
    st: Mutex<State>,
    cv: Condvar,
    /// Every session's [`TableUse`], by connection id.
    uses: Mutex<HashMap<u32, Arc<TableUse>>>,
}

/// A write statement or commit in progress (see the module doc); released on drop.
pub(crate) struct WritePass(Arc<Locks>);

impl Drop for WritePass {
    fn drop(&mut self) {
        self.0.writers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How a wait ends: a deadline and an interrupt check.
pub(crate) struct Wait<'a> {
    pub deadline: Instant,
    pub interrupted: &'a dyn Fn() -> bool,
    pub no_wait: bool,
}

impl Wait<'_> {
    fn check(&self) -> Result<(), LockError> {
        if self.no_wait {
            return Err(LockError::WouldBlock);
        }
        if (self.interrupted)() {
            return Err(LockError::Interrupted);
        }
        if Instant::now() >= self.deadline {
            return Err(LockError::Timeout);
        }
        Ok(())
    }
}

impl Locks {
    /// A write pass for session `conn`: waits while another session holds the global read
    /// lock.
    pub(crate) fn enter_write(
        self: &Arc<Self>,
        conn: u32,
        w: &Wait<'_>,
    ) -> Result<WritePass, LockError> {
        loop {
            self.writers.fetch_add(1, Ordering::SeqCst);
            if self.blocking.load(Ordering::SeqCst) == 0 {
                return Ok(WritePass(self.clone()));
            }
            self.writers.fetch_sub(1, Ordering::SeqCst);
            let mut st = self.st.lock();
            if st.global_read.contains(&conn) {
                return Err(LockError::OwnReadLock);
            }
            if !st.global_read.is_empty() {
                w.check()?;
                self.cv.wait_for(&mut st, POLL * 10);
            }
        }
    }

    /// FLUSH TABLES WITH READ LOCK: blocks new write passes, then waits until none is out.
    pub(crate) fn global_read_lock(&self, conn: u32, w: &Wait<'_>) -> Result<(), LockError> {
        {
            let mut st = self.st.lock();
            if !st.global_read.insert(conn) {
                return Ok(());
            }
            self.blocking.fetch_add(1, Ordering::SeqCst);
        }
        while self.writers.load(Ordering::SeqCst) > 0 {
            if let Err(e) = w.check() {
                self.release_global_read(conn);
                return Err(e);
            }
            std::thread::sleep(POLL);
        }
        Ok(())
    }

    /// Releases `conn`'s global read lock, if it holds it.
    pub(crate) fn release_global_read(&self, conn: u32) -> bool {
        let mut st = self.st.lock();
        let held = st.global_read.remove(&conn);
        if held {
            self.blocking.fetch_sub(1, Ordering::SeqCst);
            self.cv.notify_all();
        }
        held
    }

    /// Whether any session holds a table lock (the cheap check before [`Self::access_tables`]).
    pub(crate) fn any_table_locks(&self) -> bool {
        self.table_locks.load(Ordering::SeqCst) > 0
    }

    /// LOCK INSTANCE FOR BACKUP.
    pub(crate) fn backup_lock(&self, conn: u32) {
        self.st.lock().backup.insert(conn);
    }

    pub(crate) fn release_backup(&self, conn: u32) {
        if self.st.lock().backup.remove(&conn) {
            self.cv.notify_all();
        }
    }

    /// A DDL statement of `conn`: waits while another session holds the backup lock.
    pub(crate) fn enter_ddl(&self, conn: u32, w: &Wait<'_>) -> Result<(), LockError> {
        let mut st = self.st.lock();
        while st.backup.iter().any(|&c| c != conn) {
            w.check()?;
            self.cv.wait_for(&mut st, POLL * 10);
        }
        Ok(())
    }

    /// LOCK TABLES for `conn` (which holds none now): `(table, write)`, each granted once
    /// no other session's lock conflicts; all or nothing.
    pub(crate) fn lock_tables(
        &self,
        conn: u32,
        tables: &[(String, bool)],
        w: &Wait<'_>,
    ) -> Result<(), LockError> {
        let mut st = self.st.lock();
        loop {
            let conflict = tables.iter().any(|(t, write)| {
                st.tables.get(t).is_some_and(|l| {
                    l.writer.is_some_and(|c| c != conn)
                        || (*write && l.readers.keys().any(|&c| c != conn))
                })
            });
            if !conflict {
                break;
            }
            w.check()?;
            self.cv.wait_for(&mut st, POLL * 10);
        }
        for (t, write) in tables {
            let l = st.tables.entry(t.clone()).or_default();
            if *write {
                l.writer = Some(conn);
            } else {
                *l.readers.entry(conn).or_insert(0) += 1;
            }
            self.table_locks.fetch_add(1, Ordering::SeqCst);
        }
        st.draining.insert(conn);
        drop(st);
        // Registered: no new use can start; wait for the uses that did.
        let drained = loop {
            let busy =
                self.uses.lock().iter().any(|(&c, u)| {
                    c != conn && tables.iter().any(|(t, write)| u.blocks(t, *write))
                });
            if !busy {
                break Ok(());
            }
            if let Err(e) = w.check() {
                break Err(e);
            }
            std::thread::sleep(POLL);
        };
        self.st.lock().draining.remove(&conn);
        if drained.is_err() {
            self.unlock_tables(conn);
        }
        self.cv.notify_all();
        drained
    }

    /// Registers session `conn`'s table use (replacing an earlier one of the same id).
    pub(crate) fn register_use(&self, conn: u32, table_use: &Arc<TableUse>) {
        self.uses.lock().insert(conn, table_use.clone());
    }

    /// Drops session `conn`'s table use, if `table_use` is the one registered.
    pub(crate) fn unregister_use(&self, conn: u32, table_use: &Arc<TableUse>) {
        let mut uses = self.uses.lock();
        if uses.get(&conn).is_some_and(|u| Arc::ptr_eq(u, table_use)) {
            uses.remove(&conn);
        }
    }

    /// The first of `tables` that another session's table lock keeps session `conn` from
    /// reading (or, `write`, writing): the table, whether that session's LOCK TABLES is still
    /// waiting for other sessions' uses, and whether its lock is a WRITE lock.
    pub(crate) fn table_conflict(
        &self,
        conn: u32,
        tables: &[String],
        write: bool,
    ) -> Option<(String, bool, bool)> {
        if self.table_locks.load(Ordering::SeqCst) == 0 {
            return None;
        }
        let st = self.st.lock();
        tables.iter().find_map(|t| {
            let l = st.tables.get(t)?;
            let (holder, write_lock) = match l.writer {
                Some(c) if c != conn => (c, true),
                _ if write => (l.readers.keys().copied().find(|&c| c != conn)?, false),
                _ => return None,
            };
            Some((t.clone(), st.draining.contains(&holder), write_lock))
        })
    }

    /// Releases every table lock of `conn`.
    pub(crate) fn unlock_tables(&self, conn: u32) {
        if self.table_locks.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut st = self.st.lock();
        let mut released = 0;
        st.tables.retain(|_, l| {
            if l.writer == Some(conn) {
                l.writer = None;
                released += 1;
            }
            if let Some(n) = l.readers.remove(&conn) {
                released += n as u32;
            }
            l.writer.is_some() || !l.readers.is_empty()
        });
        if released > 0 {
            self.table_locks.fetch_sub(released, Ordering::SeqCst);
            self.cv.notify_all();
        }
    }

    /// Waits until session `conn` may read (`write` false) or write `tables`: no other
    /// session holds a WRITE lock on one, nor (for a write) a READ lock.
    pub(crate) fn access_tables(
        &self,
        conn: u32,
        tables: &[String],
        write: bool,
        w: &Wait<'_>,
    ) -> Result<(), LockError> {
        if self.table_locks.load(Ordering::SeqCst) == 0 {
            return Ok(());
        }
        let mut st = self.st.lock();
        loop {
            let conflict = tables.iter().any(|t| {
                st.tables.get(t).is_some_and(|l| {
                    l.writer.is_some_and(|c| c != conn)
                        || (write && l.readers.keys().any(|&c| c != conn))
                })
            });
            if !conflict {
                return Ok(());
            }
            w.check()?;
            self.cv.wait_for(&mut st, POLL * 10);
        }
    }
}

/// A deferred commit that keeps its write pass until the pipeline answered, so FTWRL waits
/// for commits the session handed over and did not see end yet.
struct Held {
    inner: Box<dyn DeferredCommit>,
    _pass: Option<WritePass>,
}

impl DeferredCommit for Held {
    fn needs_thread(&self) -> bool {
        self.inner.needs_thread()
    }

    fn run(&mut self) {
        self.inner.run()
    }

    fn hand_off(&mut self) -> bool {
        self.inner.hand_off()
    }

    fn poll_done(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<super::error::Result<CommitOutcome>> {
        self.inner.poll_done(cx)
    }
}

/// `deferred`, holding `pass` (if any) until it is dropped.
pub(crate) fn hold_until_done(
    deferred: Box<dyn DeferredCommit>,
    pass: Option<WritePass>,
) -> Box<dyn DeferredCommit> {
    match pass {
        None => deferred,
        Some(p) => Box::new(Held { inner: deferred, _pass: Some(p) }),
    }
}
