//! The engine seam: what the commit pipeline needs from a transactional engine with a redo
//! log, and its implementation for binlogd's [`engine::Engine`].
//!
//! LSNs are plain byte positions (`u64`). The pipeline relies on these properties:
//! - `prepare` buffers a record that `flush_up_to` of the returned LSN makes durable;
//! - `flush_up_to` makes everything appended before it durable (group flush), so one call
//!   per group covers every prepare of the group and its binlog payload;
//! - `commit` only buffers its record: the commit layer decides when it becomes durable;
//! - redo at or after the retain LSN is never recycled, so binlog payloads survive until
//!   the binlog file holding the same bytes is synced.

use binlog::gtid::{Gtid, GtidSet};

use crate::error::{Error, ErrorClass};

/// A transactional engine driven by the commit coordinator.
pub trait Engine: Send + Sync + 'static {
    type Txn: Send + 'static;
    type Error: std::error::Error + Send + Sync + 'static;

    /// Classifies an engine error.
    fn classify(e: &Self::Error) -> ErrorClass;
    /// The MySQL error number of an engine error.
    fn mysql_code(e: &Self::Error) -> u16;
    /// Whether the error is a full disk.
    fn is_no_space(e: &Self::Error) -> bool;

    fn begin(&self) -> Self::Txn;
    /// Whether the transaction changed nothing (it then commits without the binlog). A DDL
    /// transaction (schema changes staged in it) is never read-only; it is prepared,
    /// committed, rolled back and recovered like any other.
    fn is_read_only(txn: &Self::Txn) -> bool;
    /// 2PC prepare; returns the end LSN of the buffered prepare record.
    fn prepare(&self, txn: &mut Self::Txn, xid: u64) -> Result<u64, Self::Error>;
    /// Commits (buffered); returns the end LSN of the commit record.
    fn commit(&self, txn: Self::Txn) -> Result<u64, Self::Error>;
    fn rollback(&self, txn: Self::Txn) -> Result<(), Self::Error>;
    /// Gives up a prepared transaction whose outcome only crash recovery may decide (its
    /// group failed after the binlog write may have reached the disk): nothing is logged
    /// for it, its locks stay held until the restart.
    fn abandon(&self, txn: Self::Txn);
    fn commit_prepared(&self, xid: u64) -> Result<u64, Self::Error>;
    fn rollback_prepared(&self, xid: u64) -> Result<(), Self::Error>;

    /// Buffers an opaque binlog payload record; returns its end LSN.
    fn append_binlog_payload(&self, bytes: &[u8]) -> Result<u64, Self::Error>;
    /// Group flush: one write and one fdatasync for everything buffered up to `lsn`.
    fn flush_up_to(&self, lsn: u64) -> Result<(), Self::Error>;
    /// Writes (no sync) everything buffered up to `lsn`.
    fn write_up_to(&self, lsn: u64) -> Result<(), Self::Error>;
    /// Makes everything appended so far durable.
    fn flush_all(&self) -> Result<(), Self::Error>;
    /// The end of everything appended so far.
    fn next_lsn(&self) -> u64;
    /// Redo at or after `lsn` must be kept.
    fn set_retain_lsn(&self, lsn: u64);
    /// The oldest LSN the redo still holds.
    fn oldest_lsn(&self) -> u64;
    /// Binlog payload records from `lsn` to the end of the log: (start LSN, bytes).
    fn read_binlog_payloads_from(&self, lsn: u64) -> Result<Vec<(u64, Vec<u8>)>, Self::Error>;
    /// fdatasyncs of the redo so far.
    fn redo_fsyncs(&self) -> u64;

    /// Names the GTID of a transaction about to be committed, for the engine's own copy of
    /// `gtid_executed` (mysqld's `mysql.gtid_executed` table). Engines without one ignore it.
    fn set_commit_gtid(&self, _txn: &mut Self::Txn, _gtid: Gtid) {}
    /// `commit_prepared` with the GTID the binlog gave the transaction.
    fn commit_prepared_with_gtid(&self, xid: u64, _gtid: Option<Gtid>) -> Result<u64, Self::Error> {
        self.commit_prepared(xid)
    }
    /// The GTIDs the engine has committed (durable with its commits); empty for engines that
    /// keep none.
    fn gtid_executed(&self) -> GtidSet {
        GtidSet::new()
    }
    /// `RESET MASTER`: empties the engine's executed set durably.
    fn reset_gtid_executed(&self) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Flushes and stops background work.
    fn shutdown(&self) -> Result<(), Self::Error>;
}

/// Wraps an engine error in the commit error, keeping it as the source.
pub(crate) fn engine_error<E: Engine>(e: E::Error) -> Error {
    Error::Engine {
        class: E::classify(&e),
        mysql_code: E::mysql_code(&e),
        no_space: E::is_no_space(&e),
        source: Box::new(e),
    }
}

impl Engine for engine::Engine {
    type Txn = engine::Txn;
    type Error = engine::Error;

    fn classify(e: &engine::Error) -> ErrorClass {
        if e.is_fatal() || matches!(e, engine::Error::NoSpace { .. }) {
            ErrorClass::Fatal
        } else if e.is_retryable() {
            ErrorClass::Retryable
        } else {
            ErrorClass::Client
        }
    }
    fn mysql_code(e: &engine::Error) -> u16 {
        e.mysql_code()
    }
    fn is_no_space(e: &engine::Error) -> bool {
        matches!(e, engine::Error::NoSpace { .. })
    }
    fn begin(&self) -> engine::Txn {
        engine::Engine::begin(self)
    }
    fn is_read_only(txn: &engine::Txn) -> bool {
        txn.is_read_only()
    }
    fn prepare(&self, txn: &mut engine::Txn, xid: u64) -> Result<u64, engine::Error> {
        engine::Engine::prepare(self, txn, xid).map(|l| l.0)
    }
    fn commit(&self, txn: engine::Txn) -> Result<u64, engine::Error> {
        engine::Engine::commit(self, txn).map(|l| l.0)
    }
    fn rollback(&self, txn: engine::Txn) -> Result<(), engine::Error> {
        engine::Engine::rollback(self, txn)
    }
    fn abandon(&self, txn: engine::Txn) {
        // Not dropped (that would roll back and log it): the prepare record stays the last
        // word, for recovery to decide against the binlog.
        engine::Engine::abandon(self, txn);
    }
    fn commit_prepared(&self, xid: u64) -> Result<u64, engine::Error> {
        engine::Engine::commit_prepared(self, xid).map(|l| l.0)
    }
    fn rollback_prepared(&self, xid: u64) -> Result<(), engine::Error> {
        engine::Engine::rollback_prepared(self, xid)
    }
    fn append_binlog_payload(&self, bytes: &[u8]) -> Result<u64, engine::Error> {
        engine::Engine::append_binlog_payload(self, bytes).map(|l| l.0)
    }
    fn flush_up_to(&self, lsn: u64) -> Result<(), engine::Error> {
        engine::Engine::flush_up_to(self, engine::Lsn(lsn))
    }
    fn write_up_to(&self, lsn: u64) -> Result<(), engine::Error> {
        engine::Engine::write_up_to(self, engine::Lsn(lsn))
    }
    fn flush_all(&self) -> Result<(), engine::Error> {
        engine::Engine::flush_all(self)
    }
    fn next_lsn(&self) -> u64 {
        engine::Engine::next_lsn(self).0
    }
    fn set_retain_lsn(&self, lsn: u64) {
        engine::Engine::set_retain_lsn(self, engine::Lsn(lsn))
    }
    fn oldest_lsn(&self) -> u64 {
        engine::Engine::oldest_lsn(self).0
    }
    fn read_binlog_payloads_from(&self, lsn: u64) -> Result<Vec<(u64, Vec<u8>)>, engine::Error> {
        Ok(engine::Engine::read_binlog_payloads_from(self, engine::Lsn(lsn))?
            .into_iter()
            .map(|p| (p.lsn.0, p.bytes))
            .collect())
    }
    fn redo_fsyncs(&self) -> u64 {
        engine::Engine::stats(self).redo_fsyncs
    }
    fn shutdown(&self) -> Result<(), engine::Error> {
        engine::Engine::shutdown(self)
    }
    fn set_commit_gtid(&self, txn: &mut engine::Txn, gtid: Gtid) {
        txn.set_gtid(gtid);
    }
    fn commit_prepared_with_gtid(
        &self,
        xid: u64,
        gtid: Option<Gtid>,
    ) -> Result<u64, engine::Error> {
        engine::Engine::commit_prepared_with_gtid(self, xid, gtid).map(|l| l.0)
    }
    fn gtid_executed(&self) -> GtidSet {
        engine::Engine::gtid_executed(self)
    }
    fn reset_gtid_executed(&self) -> Result<(), engine::Error> {
        engine::Engine::reset_gtid_executed(self)
    }
}
