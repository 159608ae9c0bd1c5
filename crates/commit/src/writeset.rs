//! Write sets and WRITESET dependency tracking: MySQL 8.0's
//! `binlog_transaction_dependency_tracking` = COMMIT_ORDER | WRITESET | WRITESET_SESSION and
//! `binlog_transaction_dependency_history_size`.
//!
//! # Write sets (`sql/rpl_write_set_handler.cc`, `add_pke`)
//! A transaction's write set holds one 64-bit hash per *primary key equivalent* of every row
//! image it wrote (the after image of an insert, both images of an update, the before image of
//! a delete): the PRIMARY KEY and each UNIQUE key whose columns are all non-NULL (a NULL never
//! conflicts). The hashed text names the index, the table and the key's values; MySQL hashes
//! `index<sep>db<sep>len table<sep>len value<sep>len ...` with XXHASH64
//! (`transaction_write_set_extraction`'s default), here XXH64 of the index name, the engine's
//! table id and name (the id tells apart equal table names in different databases on this
//! server) and the engine's own key encoding of the values — so two hashes are equal exactly
//! when the engine would see the same index entry. A table with neither a primary key nor a
//! UNIQUE key over NOT NULL columns (MySQL's `table->s->primary_key == MAX_KEY`) gives no hash
//! and marks the transaction as having *missing keys*. binlogd has no foreign keys, so MySQL's
//! `has_related_foreign_keys` fallback cannot arise.
//!
//! # Tracking (`sql/rpl_trx_tracking.cc`)
//! The FLUSH leader first computes the commit-order `last_committed` (the newest transaction
//! committed when this one prepared), then, in WRITESET modes, [`DependencyTracker`] lowers it
//! (`Writeset_trx_dependency_tracker::get_dependency`):
//! - the history maps each hash to the sequence number of the last transaction that wrote it,
//!   within the current binlog file; `history_start` is a floor below which nothing is known;
//! - a transaction that can use write sets (DML: a non-empty write set, missing keys, or an
//!   empty transaction) takes as parent the largest history entry of its hashes below its own
//!   sequence number (at least the floor) and records its hashes; with missing keys it keeps the
//!   commit-order parent (the history is still updated, not reset: any transaction touching
//!   that table falls back too); otherwise its parent is `min(writeset parent, commit order)`;
//! - one that cannot (DDL, or more keys than a history may hold: MySQL's
//!   `was_write_set_limit_reached`) keeps the commit-order parent and becomes the floor: the
//!   history is cleared and `history_start` = its sequence number, so every later transaction
//!   depends on it;
//! - when the history would pass `binlog_transaction_dependency_history_size`, the transaction
//!   still uses it (new hashes are not added), then the history is cleared and the floor set to
//!   it;
//! - WRITESET_SESSION (`Writeset_session_trx_dependency_tracker`) also keeps the parent at or
//!   above the previous transaction of the same session.
//!
//! A new binlog file clears everything and sets the floor to 0 (sequence numbers restart; the
//! replica waits for the previous file's transactions at the file boundary). A change of the
//! tracking mode clears the history and sets the floor to the last sequence number given out:
//! MySQL's `tracking_mode_changed` uses the last *committed* one, which can let a transaction
//! precede a conflicting one flushed under COMMIT_ORDER but not yet committed; the last given
//! out is never wrong.
//!
//! Invariant: a transaction's `last_committed` is ≥ the sequence number of every earlier
//! transaction in the same file that wrote one of its hashes, that is a DDL, or that exceeded the
//! history, and never above the commit-order value.

use std::collections::HashMap;

use engine::{Row, TableSchema, Value};

/// MySQL's default `binlog_transaction_dependency_history_size`.
pub const DEFAULT_HISTORY_SIZE: u64 = 25_000;
/// The largest history size MySQL accepts.
pub const MAX_HISTORY_SIZE: u64 = 1_000_000;

/// `binlog_transaction_dependency_tracking`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DependencyTracking {
    /// `last_committed` from commit order alone (MySQL 8.0's default).
    #[default]
    CommitOrder,
    /// Lowered to the last transaction that wrote one of the same keys.
    Writeset,
    /// As WRITESET, but never before the same session's previous transaction.
    WritesetSession,
}

impl DependencyTracking {
    /// The names, in MySQL's enum order.
    pub const NAMES: [&'static str; 3] = ["COMMIT_ORDER", "WRITESET", "WRITESET_SESSION"];

    /// The variable's value as SHOW VARIABLES prints it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Parses a value (any case).
    pub fn from_name(name: &str) -> Option<DependencyTracking> {
        let i = Self::NAMES.iter().position(|n| n.eq_ignore_ascii_case(name.trim()))?;
        Some(Self::from_index(i as u8))
    }

    pub(crate) fn from_index(i: u8) -> DependencyTracking {
        match i {
            1 => DependencyTracking::Writeset,
            2 => DependencyTracking::WritesetSession,
            _ => DependencyTracking::CommitOrder,
        }
    }
}

/// The hashes of the primary key equivalents a transaction wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteSet {
    hashes: Vec<u64>,
    missing_keys: bool,
    /// More hashes than any history may hold: they were dropped (MySQL's
    /// `was_write_set_limit_reached`), and the transaction falls back to commit order.
    overflowed: bool,
}

impl WriteSet {
    /// Adds the keys of one row image of `schema` (its `id` and `name` identify the table).
    pub fn add_row(&mut self, schema: &TableSchema, row: &Row) {
        if !has_key(schema) {
            self.missing_keys = true;
            return;
        }
        if !schema.primary_key.is_empty() {
            self.push(key_hash(schema, None, row));
        }
        for (i, index) in schema.indexes.iter().enumerate().filter(|(_, i)| i.unique) {
            if index.columns.iter().any(|&c| row.get(c).is_none_or(|v| *v == Value::Null)) {
                continue;
            }
            self.push(key_hash(schema, Some(i), row));
        }
    }

    fn push(&mut self, hash: u64) {
        // Repeats (an update's two images of one key) are kept, as MySQL keeps them: the
        // history lookup ignores a hash already stamped with the transaction's own number.
        if self.overflowed {
            return;
        }
        if self.hashes.len() as u64 >= MAX_HISTORY_SIZE {
            self.overflowed = true;
            self.hashes = Vec::new();
            return;
        }
        self.hashes.push(hash);
    }

    /// The hashes, in the order written (repeats included).
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Whether the transaction wrote more keys than any history can hold.
    pub fn has_overflowed(&self) -> bool {
        self.overflowed
    }

    /// Whether a row of a table without a primary key equivalent was written.
    pub fn has_missing_keys(&self) -> bool {
        self.missing_keys
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty() && !self.missing_keys && !self.overflowed
    }
}

/// A primary key, or a UNIQUE key over NOT NULL columns (InnoDB's implicit primary key).
fn has_key(schema: &TableSchema) -> bool {
    !schema.primary_key.is_empty()
        || schema.indexes.iter().any(|i| {
            i.unique
                && i.columns.iter().all(|&c| schema.columns.get(c).is_some_and(|c| !c.nullable))
        })
}

// Format: u32 LE length + index name, u32 LE table id, u32 LE length + table name, then the
// engine key encoding of the key's values (self-delimiting, so the whole is unambiguous).
// `index`: a secondary index's position, None for the primary key.
fn key_hash(schema: &TableSchema, index: Option<usize>, row: &Row) -> u64 {
    let columns = index.map_or(&schema.primary_key, |i| &schema.indexes[i].columns);
    let values: Vec<Value> =
        columns.iter().map(|&c| row.get(c).cloned().unwrap_or(Value::Null)).collect();
    // Under the columns' collations: rows whose keys are equal under the collation ('a' and
    // 'A' in a `_ci` unique key) conflict, so they must hash alike; a prefix part by its
    // prefix, as the unique index judges duplicates.
    let (index, key) = match index {
        None => ("PRIMARY", schema.key_of_values(columns, &values)),
        Some(i) => (schema.indexes[i].name.as_str(), schema.index_key_of_values(i, &values)),
    };
    let mut text = Vec::with_capacity(12 + index.len() + schema.name.len() + key.len());
    text.extend_from_slice(&(index.len() as u32).to_le_bytes());
    text.extend_from_slice(index.as_bytes());
    text.extend_from_slice(&schema.id.to_le_bytes());
    text.extend_from_slice(&(schema.name.len() as u32).to_le_bytes());
    text.extend_from_slice(schema.name.as_bytes());
    text.extend_from_slice(&key);
    twox_hash::XxHash64::oneshot(0, &text)
}

/// What the tracker needs of one transaction.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TxnWrites<'a> {
    /// Row changes (possibly none), by a session (0: none known).
    Rows { writeset: &'a WriteSet, session: u64 },
    /// DDL: a barrier.
    Ddl,
}

/// The FLUSH leader's dependency state (under the flush lock). Sequence numbers are relative
/// to the current binlog file, as written in the GTID events.
#[derive(Debug, Default)]
pub(crate) struct DependencyTracker {
    /// Hash → sequence number of the last transaction that wrote it (`m_writeset_history`).
    history: HashMap<u64, i64>,
    /// The floor (`m_writeset_history_start`).
    history_start: i64,
    /// Session → sequence number of its last transaction (WRITESET_SESSION). Entries below
    /// the floor are dropped with the history: the floor already orders them.
    sessions: HashMap<u64, i64>,
    /// The mode of the previous transaction.
    mode: DependencyTracking,
}

impl DependencyTracker {
    /// A new binlog file (rotation, RESET MASTER): sequence numbers restart at 1.
    pub(crate) fn rotate(&mut self) {
        self.reset(0);
    }

    fn reset(&mut self, floor: i64) {
        self.history.clear();
        self.sessions.clear();
        self.history_start = floor;
    }

    /// The `last_committed` of the transaction with `sequence`, given the commit-order value
    /// `commit_parent` (`Transaction_dependency_tracker::get_dependency`).
    pub(crate) fn last_committed(
        &mut self,
        mode: DependencyTracking,
        history_size: u64,
        sequence: i64,
        commit_parent: i64,
        txn: TxnWrites<'_>,
    ) -> i64 {
        if mode != self.mode {
            // Transactions flushed under another mode are not in the history.
            self.mode = mode;
            self.reset(sequence - 1);
        }
        if mode == DependencyTracking::CommitOrder {
            return commit_parent;
        }
        let max = usize::try_from(history_size).unwrap_or(usize::MAX);
        let mut parent = commit_parent;
        // Read before this transaction may clear the sessions with the history: the floor it
        // then sets orders the transactions after it, not itself.
        let session_parent = match txn {
            TxnWrites::Rows { session, .. } if session != 0 => self.sessions.get(&session).copied(),
            _ => None,
        };
        let (usable, session) = match txn {
            TxnWrites::Rows { writeset, session } if writeset.overflowed => (false, session),
            TxnWrites::Rows { writeset, session } => {
                let exceeds = self.history.len() + writeset.hashes.len() > max;
                let mut last_parent = self.history_start;
                for &hash in &writeset.hashes {
                    match self.history.get_mut(&hash) {
                        Some(seq) => {
                            if *seq > last_parent && *seq < sequence {
                                last_parent = *seq;
                            }
                            *seq = sequence;
                        }
                        None if !exceeds => {
                            self.history.insert(hash, sequence);
                        }
                        None => {}
                    }
                }
                if !writeset.missing_keys {
                    parent = parent.min(last_parent);
                }
                (!exceeds, session)
            }
            TxnWrites::Ddl => (false, 0),
        };
        if !usable {
            self.reset(sequence);
        }
        if mode == DependencyTracking::WritesetSession && session != 0 {
            if let Some(previous) = session_parent.filter(|&p| p < sequence) {
                parent = parent.max(previous);
            }
            self.sessions.insert(session, sequence);
            if self.sessions.len() > max {
                // Bounded like the history: the floor orders every session's past.
                self.reset(sequence);
            }
        }
        parent
    }

    #[cfg(test)]
    fn history_len(&self) -> usize {
        self.history.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Column, ColumnType};

    const W: DependencyTracking = DependencyTracking::Writeset;

    fn int() -> ColumnType {
        ColumnType::Integer { bytes: 4, unsigned: false }
    }

    /// t(id PK, u UNIQUE NULL, v).
    fn keyed() -> TableSchema {
        let mut s = TableSchema::new(
            "t",
            vec![
                Column::new("id", int()).not_null(),
                Column::new("u", int()),
                Column::new("v", int()),
            ],
            vec![0],
        )
        .with_index("u", vec![1], true)
        .with_index("v", vec![2], false);
        s.id = 7;
        s
    }

    fn row(id: i64, u: Option<i64>, v: i64) -> Row {
        vec![Value::Int(id), u.map_or(Value::Null, Value::Int), Value::Int(v)]
    }

    fn ws(rows: &[Row]) -> WriteSet {
        let mut w = WriteSet::default();
        for r in rows {
            w.add_row(&keyed(), r);
        }
        w
    }

    fn rows_txn(w: &WriteSet) -> TxnWrites<'_> {
        TxnWrites::Rows { writeset: w, session: 0 }
    }

    #[test]
    fn hashes_cover_primary_and_unique_keys_only() {
        let w = ws(&[row(1, Some(5), 9)]);
        assert_eq!(w.hashes().len(), 2, "PRIMARY and u, not the non-unique v");
        assert_eq!(ws(&[row(1, None, 9)]).hashes().len(), 1, "a NULL unique part is skipped");
        // Same key, other non-key values: same hash; another table id: another hash.
        assert_eq!(ws(&[row(1, None, 1)]).hashes(), ws(&[row(1, None, 2)]).hashes());
        let mut other = keyed();
        other.id = 8;
        let mut w2 = WriteSet::default();
        w2.add_row(&other, &row(1, None, 1));
        assert_ne!(w2.hashes(), ws(&[row(1, None, 1)]).hashes());
        // The unique key u=5 of two different rows hashes the same.
        let a = ws(&[row(1, Some(5), 0)]);
        let b = ws(&[row(2, Some(5), 0)]);
        assert!(a.hashes().iter().any(|h| b.hashes().contains(h)));
        assert!(!w.has_missing_keys());
        // An update's two images of one row: the key twice, harmless to the history.
        let mut t = DependencyTracker::default();
        let u = ws(&[row(1, None, 0), row(1, None, 1)]);
        assert_eq!(u.hashes().len(), 2);
        assert_eq!(t.last_committed(W, 100, 1, 0, rows_txn(&u)), 0);
        assert_eq!(t.history_len(), 1);
    }

    #[test]
    fn tables_without_a_primary_key_equivalent_have_missing_keys() {
        let mut no_pk = TableSchema::new("n", vec![Column::new("a", int())], vec![]).with_index(
            "a",
            vec![0],
            true,
        );
        let mut w = WriteSet::default();
        w.add_row(&no_pk, &vec![Value::Int(1)]);
        assert!(w.has_missing_keys() && w.hashes().is_empty(), "a nullable unique key is not one");
        no_pk.columns[0].nullable = false;
        let mut w = WriteSet::default();
        w.add_row(&no_pk, &vec![Value::Int(1)]);
        assert!(!w.has_missing_keys() && w.hashes().len() == 1, "UNIQUE NOT NULL is the key");
    }

    #[test]
    fn disjoint_rows_depend_on_the_floor_only() {
        let mut t = DependencyTracker::default();
        // Commit order says each depends on the previous one (sequential commits).
        for seq in 1..=10 {
            let w = ws(&[row(seq, None, 0)]);
            assert_eq!(t.last_committed(W, 100, seq, seq - 1, rows_txn(&w)), 0);
        }
        // Never above the commit-order value.
        let w = ws(&[row(50, None, 0)]);
        assert_eq!(t.last_committed(W, 100, 11, 0, rows_txn(&w)), 0);
    }

    #[test]
    fn same_primary_or_unique_key_depends_on_the_last_writer() {
        let mut t = DependencyTracker::default();
        let a = ws(&[row(1, Some(100), 0)]);
        let b = ws(&[row(2, Some(200), 0)]);
        assert_eq!(t.last_committed(W, 100, 1, 0, rows_txn(&a)), 0);
        assert_eq!(t.last_committed(W, 100, 2, 1, rows_txn(&b)), 0);
        // Same primary key as 1.
        let c = ws(&[row(1, None, 5)]);
        assert_eq!(t.last_committed(W, 100, 3, 2, rows_txn(&c)), 1);
        // Unique key u=200 as 2 (another row: delete + insert of the value elsewhere).
        let d = ws(&[row(9, Some(200), 0)]);
        assert_eq!(t.last_committed(W, 100, 4, 3, rows_txn(&d)), 2);
        // An update's before image (pk 1, last written by 3) and after image (pk 2, by 2).
        let e = ws(&[row(1, None, 0), row(2, None, 0)]);
        assert_eq!(t.last_committed(W, 100, 5, 4, rows_txn(&e)), 3);
        // Now pk 1 was last written by 5.
        assert_eq!(t.last_committed(W, 100, 6, 5, rows_txn(&c)), 5);
    }

    #[test]
    fn ddl_and_missing_keys_fall_back_to_commit_order() {
        let mut t = DependencyTracker::default();
        let a = ws(&[row(1, None, 0)]);
        t.last_committed(W, 100, 1, 0, rows_txn(&a));
        let b = ws(&[row(2, None, 0)]);
        assert_eq!(t.last_committed(W, 100, 2, 1, rows_txn(&b)), 0);
        // DDL keeps the commit-order parent and becomes the floor.
        assert_eq!(t.last_committed(W, 100, 3, 2, TxnWrites::Ddl), 2);
        assert_eq!(t.history_len(), 0);
        let c = ws(&[row(3, None, 0)]);
        assert_eq!(t.last_committed(W, 100, 4, 3, rows_txn(&c)), 3);
        // A table without keys: commit order, and the history is kept.
        let mut no_pk = WriteSet::default();
        no_pk.add_row(
            &TableSchema::new("n", vec![Column::new("a", int())], vec![]),
            &vec![Value::Int(1)],
        );
        assert_eq!(t.last_committed(W, 100, 5, 4, rows_txn(&no_pk)), 4);
        assert_eq!(t.history_len(), 1);
        // A row change of the keyed table after it: back to write sets.
        let d = ws(&[row(3, None, 1)]);
        assert_eq!(t.last_committed(W, 100, 6, 5, rows_txn(&d)), 4);
        // An empty transaction depends on the floor only.
        let empty = WriteSet::default();
        assert_eq!(t.last_committed(W, 100, 7, 6, rows_txn(&empty)), 3);
    }

    #[test]
    fn history_overflow_clears_and_sets_the_floor() {
        let mut t = DependencyTracker::default();
        for seq in 1..=3 {
            let w = ws(&[row(seq, None, 0)]);
            assert_eq!(t.last_committed(W, 3, seq, seq - 1, rows_txn(&w)), 0);
        }
        // A fourth hash passes the size: the transaction still sees its conflict (pk 1)...
        let w = ws(&[row(1, None, 0), row(4, None, 0)]);
        assert_eq!(t.last_committed(W, 3, 4, 3, rows_txn(&w)), 1);
        assert_eq!(t.history_len(), 0);
        // ...and every later one depends on it.
        let x = ws(&[row(99, None, 0)]);
        assert_eq!(t.last_committed(W, 3, 5, 4, rows_txn(&x)), 4);
    }

    #[test]
    fn a_write_set_larger_than_any_history_falls_back_to_commit_order() {
        let mut big = WriteSet::default();
        for h in 0..=MAX_HISTORY_SIZE {
            big.push(h);
        }
        assert!(big.has_overflowed() && big.hashes().is_empty());
        let mut t = DependencyTracker::default();
        let a = ws(&[row(1, None, 0)]);
        t.last_committed(W, MAX_HISTORY_SIZE, 1, 0, rows_txn(&a));
        assert_eq!(t.last_committed(W, MAX_HISTORY_SIZE, 2, 1, rows_txn(&big)), 1);
        let b = ws(&[row(2, None, 0)]);
        assert_eq!(t.last_committed(W, MAX_HISTORY_SIZE, 3, 2, rows_txn(&b)), 2, "the floor");
    }

    #[test]
    fn session_mode_keeps_a_sessions_order() {
        let s = DependencyTracking::WritesetSession;
        let mut t = DependencyTracker::default();
        let (a, b, c) = (ws(&[row(1, None, 0)]), ws(&[row(2, None, 0)]), ws(&[row(3, None, 0)]));
        let by = |w, session| TxnWrites::Rows { writeset: w, session };
        assert_eq!(t.last_committed(s, 100, 1, 0, by(&a, 10)), 0);
        assert_eq!(t.last_committed(s, 100, 2, 1, by(&b, 20)), 0);
        // Session 10 again, disjoint rows: after its own previous transaction only.
        assert_eq!(t.last_committed(s, 100, 3, 2, by(&c, 10)), 1);
        // A transaction that overflows the history still follows its session's previous one.
        let mut small = DependencyTracker::default();
        let (one, two) = (ws(&[row(7, None, 0)]), ws(&[row(8, None, 0)]));
        assert_eq!(small.last_committed(s, 1, 3, 2, by(&one, 10)), 2);
        assert_eq!(small.last_committed(s, 1, 5, 4, by(&two, 10)), 3);
        // WRITESET ignores sessions (the switch sets the floor to 3).
        let d = ws(&[row(4, None, 0)]);
        assert_eq!(t.last_committed(W, 100, 4, 3, by(&d, 10)), 3);
        let e = ws(&[row(5, None, 0)]);
        assert_eq!(t.last_committed(W, 100, 5, 4, by(&e, 10)), 3);
    }

    #[test]
    fn rotation_and_mode_changes_reset_the_floor() {
        let mut t = DependencyTracker::default();
        let a = ws(&[row(1, None, 0)]);
        // COMMIT_ORDER passes the commit-order value through.
        assert_eq!(t.last_committed(DependencyTracking::CommitOrder, 100, 1, 0, rows_txn(&a)), 0);
        assert_eq!(t.last_committed(DependencyTracking::CommitOrder, 100, 2, 1, rows_txn(&a)), 1);
        // Switching to WRITESET: nothing before is in the history, so the floor is 2.
        let b = ws(&[row(2, None, 0)]);
        assert_eq!(t.last_committed(W, 100, 3, 2, rows_txn(&b)), 2);
        assert_eq!(t.last_committed(W, 100, 4, 3, rows_txn(&a)), 2);
        // A new file: the numbers restart and nothing of the old file counts.
        t.rotate();
        assert_eq!(t.last_committed(W, 100, 1, 0, rows_txn(&b)), 0);
        assert_eq!(t.last_committed(W, 100, 2, 1, rows_txn(&a)), 0);
    }

    #[test]
    fn tracking_names_round_trip() {
        for name in DependencyTracking::NAMES {
            let t = DependencyTracking::from_name(name).expect("known");
            assert_eq!(t.name(), name);
        }
        assert_eq!(DependencyTracking::from_name("writeset"), Some(W));
        assert_eq!(DependencyTracking::from_name("LOGICAL"), None);
    }
}
