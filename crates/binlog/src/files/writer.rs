//! The binlog writer: the only owner of the active file, the index and the executed GTIDs.
//!
//! Positions: `write_pos` is where the next group goes (everything before it was written);
//! `synced_pos <= write_pos` is the end of what the last fdatasync made durable. Only
//! [`BinlogWriter::sync`] moves `synced_pos`, and only then is the new end published to
//! readers.
//!
//! Poisoning: a failed write, fdatasync, truncation, rename or index update leaves the files
//! in a state the writer cannot vouch for (Linux may drop dirty pages after a failed fsync, so
//! a retry that succeeds proves nothing). The writer then refuses everything with
//! [`Error::Poisoned`] until the set is reopened, which runs crash recovery.
//!
//! Rotation (crash-safe order; MySQL's `MYSQL_BIN_LOG::new_file_impl` writes the ROTATE, opens
//! the new file and adds it to the index before closing the old one):
//! 1. create file N+1 (from the pool by rename, or new + fallocate), write magic,
//!    FORMAT_DESCRIPTION (in use) and PREVIOUS_GTIDS (the executed set), fdatasync it, fsync
//!    the directory. A crash now leaves N+1 outside the index: deleted at open.
//! 2. write ROTATE(N+1) at the end of N, fdatasync N (this also makes every group appended to
//!    N durable, so N+1's PREVIOUS_GTIDS never names a GTID that could be lost).
//!    A crash now: N is the last file, in use; recovery cuts the dangling ROTATE.
//! 3. add N+1 to the index (crash-safe replace). From here N+1 is the last file.
//! 4. close N: cut its unused tail, fdatasync, clear its in-use flag, fdatasync. A crash
//!    before this completes leaves N in use but not last: open finishes the close.
//! 5. publish N+1 as active to readers.
//!
//! Rotation happens only when the caller asks ([`BinlogWriter::rotate_if_due`] after a group,
//! [`BinlogWriter::rotate`] for `FLUSH BINARY LOGS`), never inside `append`: crash recovery
//! reads the XIDs of the last file only, so the commit layer must rotate only after every
//! transaction of the old file is committed in the engine (MySQL's `ordered_commit` calls
//! `rotate` after the commit stage, and `MYSQL_BIN_LOG::rotate` waits for prepared XIDs).
//!
//! Purge (MySQL's `purge_logs` registers the files in a purge index first; here the index
//! itself is the record): write the index without the purged files (crash-safe), then delete
//! them and fsync the directory. Files left over by a crash are not in the index and are
//! deleted at open. The active file is never purged, nor a file a reader is on.
//!
//! Open (MySQL's `MYSQL_BIN_LOG::open_binlog` for crash detection and
//! `truncate_binlog_file_to_valid_pos` for the cut):
//! - remove files of the set that are not in the index, and a leftover index temp file;
//! - finish the close of any non-last file still flagged in use (a crash in rotation step 4);
//! - walk the last file. If it is flagged in use or does not end exactly at a valid event
//!   boundary, it crashed: cut it at the end of its last complete transaction (durably) and
//!   enter *recovery*: the file stays in use and active, the caller gets a
//!   [`RecoveryReport`], may append groups it refills (binlog-in-redo), and calls
//!   [`BinlogWriter::finish_recovery`] once its engine decisions are durable. Only then is the
//!   flag cleared and a new file opened, so a crash during the caller's recovery finds the
//!   same file flagged again. Otherwise a new file is opened at once, as MySQL opens a new
//!   binlog at every start.
//! - executed GTIDs = the last file's PREVIOUS_GTIDS + the GTIDs of its complete transactions;
//!   purged GTIDs = the first file's PREVIOUS_GTIDS.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use vfs::{FileRef, OpenMode, VfsRef};

use super::error::{Error, Result};
use super::frame::{self, Encoder, FLAGS_OFFSET, MAGIC};
use super::index::Index;
use super::names;
use super::prealloc;
use super::reader::{BinlogFiles, BinlogPosition, Shared};
use super::recover::{self, RecoveryReport, Scan};
use super::Options;
use crate::gtid::{Gtid, GtidSet};

/// Where one appended group landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    /// Sequence number of the file (`binlog.000007` is 7).
    pub seq: u64,
    /// Offset of the group's first byte.
    pub start: u64,
    /// Offset just past the group: the new `write_pos`.
    pub end: u64,
    /// Whether the file reached `max_binlog_size`: call [`BinlogWriter::rotate_if_due`] once
    /// the group is committed in the engine.
    pub rotation_due: bool,
}

/// An active file to fdatasync outside the writer; see [`BinlogWriter::sync_target`].
#[derive(Debug, Clone)]
pub struct SyncTarget {
    /// Sequence number of the file.
    pub seq: u64,
    /// `write_pos` when the target was taken: the end the sync makes durable.
    pub end: u64,
    /// The file to fdatasync.
    pub file: FileRef,
}

/// What a purge did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PurgeOutcome {
    /// The files removed from the index (and deleted), oldest first.
    pub purged: Vec<String>,
    /// The file where the purge stopped early because a reader is on it (MySQL warns "file
    /// was not purged because it was being read").
    pub stopped_at_in_use: Option<String>,
}

/// One file of the set, for `SHOW BINARY LOGS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub name: String,
    /// Bytes of events (for the active file: `write_pos`, not the preallocated length).
    pub size: u64,
}

#[derive(Debug)]
struct ActiveFile {
    seq: u64,
    file: FileRef,
    write_pos: u64,
    synced_pos: u64,
}

/// Makes new files of the set: the part of the writer that open needs before the writer
/// exists.
#[derive(Debug)]
struct FileMaker {
    vfs: VfsRef,
    opts: Options,
    /// Whether the "cannot preallocate" warning was logged (once per writer).
    warned: AtomicBool,
}

impl FileMaker {
    fn path(&self, seq: u64) -> PathBuf {
        self.opts.dir.join(names::file_name(&self.opts.basename, seq))
    }

    fn encoder(&self) -> Encoder {
        Encoder {
            server_id: self.opts.server_id,
            checksum: self.opts.checksum,
            timestamp: now_secs(),
        }
    }

    /// Makes file `seq` with its header, durable, not yet in the index (rotation step 1).
    /// `at_startup`: the first file of this server run.
    fn create(&self, seq: u64, previous: &GtidSet, at_startup: bool) -> Result<ActiveFile> {
        let path = self.path(seq);
        let from_pool = match &self.opts.pool_dir {
            Some(pool) => prealloc::take_from_pool(&self.vfs, pool, &path)?,
            None => false,
        };
        let file = if from_pool {
            self.vfs.open(&path, OpenMode::ReadWrite)?
        } else {
            self.vfs.open(&path, OpenMode::CreateNew)?
        };
        if self.opts.binlog_preallocate && file.len()? < self.opts.max_binlog_size {
            prealloc::allocate(&file, self.opts.max_binlog_size, &self.warned)?;
        }
        let header = self.encoder().file_header(previous, at_startup)?;
        file.write_at(&header, 0)?;
        file.sync_data()?;
        self.vfs.sync_dir(&self.opts.dir)?;
        let end = header.len() as u64;
        Ok(ActiveFile { seq, file, write_pos: end, synced_pos: end })
    }
}

/// What open found and prepared.
struct Opened {
    files: Vec<u64>,
    active: ActiveFile,
    executed: GtidSet,
    purged: GtidSet,
    report: Option<RecoveryReport>,
}

/// The part of open after the index is trusted and leftovers are gone (module doc).
fn open_files(maker: &FileMaker, index: &Index, mut files: Vec<u64>) -> Result<Opened> {
    let vfs = &maker.vfs;
    let name = |seq| names::file_name(&maker.opts.basename, seq);
    let Some(&last) = files.last() else {
        let active = maker.create(1, &GtidSet::new(), true)?;
        index.store(&[1])?;
        return Ok(Opened {
            files: vec![1],
            active,
            executed: GtidSet::new(),
            purged: GtidSet::new(),
            report: None,
        });
    };
    for &seq in &files {
        if !vfs.exists(&maker.path(seq))? {
            return Err(Error::MissingFile { name: name(seq) });
        }
    }
    let mut purged = GtidSet::new();
    for (i, &seq) in files.iter().enumerate() {
        let path = maker.path(seq);
        let file = vfs.open(&path, OpenMode::ReadWrite)?;
        let header = recover::read_header(&file, &path, file.len()?)?;
        if i == 0 {
            purged = header.previous_gtids.clone();
        }
        if seq != last && header.in_use {
            // Rotation step 4 did not complete: the file ends with its ROTATE (synced in
            // step 2), maybe followed by preallocated space.
            let scan = recover::scan(&file, &path)?;
            log::warn!(
                "binlog {} was left open by a crash during rotation; closing it at {}",
                name(seq),
                scan.unit_end
            );
            close_file(&file, scan.unit_end)?;
        }
    }
    let path = maker.path(last);
    let file = vfs.open(&path, OpenMode::ReadWrite)?;
    let scan = recover::scan(&file, &path)?;
    let clean = !scan.header.in_use
        && scan.damage.is_none()
        && scan.partial_start.is_none()
        && scan.events_end == scan.len;
    if clean {
        let executed = executed_after(&scan, scan.len);
        let active = maker.create(last + 1, &executed, true)?;
        files.push(last + 1);
        index.store(&files)?;
        return Ok(Opened { files, active, executed, purged, report: None });
    }
    if !scan.header.in_use {
        // Closed (flag cleared only after the tail was cut and synced), yet not clean: the
        // file was damaged after it was written. Refused unless the loss is accepted.
        let damage = match scan.damage {
            Some(d) => d.to_string(),
            None if scan.partial_start.is_some() => "a transaction does not end".to_string(),
            None => "bytes after the last event".to_string(),
        };
        let err = Error::ClosedFileDamaged {
            path: path.clone(),
            offset: scan.events_end,
            damage,
            bytes_after: scan.len - scan.trx_end,
        };
        if !maker.opts.recovery_accept_loss {
            return Err(err);
        }
        log::warn!("{err}; accepted (recovery mode point-in-time): cutting it");
    }
    // Crashed: cut at the last complete transaction and keep the file active, in use.
    let valid_end = scan.trx_end;
    let report = RecoveryReport::new(&file, &name(last), &scan, valid_end)?;
    log::warn!(
        "binlog {} was not closed cleanly: {} bytes, valid to {}, cutting {} ({:?}); {} \
         complete transactions",
        report.file,
        report.original_len,
        report.valid_end,
        report.bytes_cut,
        report.reason,
        report.transactions.len()
    );
    if scan.len > valid_end {
        file.set_len(valid_end)?;
    }
    if !scan.header.in_use {
        set_in_use(&file, true)?;
    }
    file.sync_data()?;
    let executed = executed_after(&scan, valid_end);
    let active = ActiveFile { seq: last, file, write_pos: valid_end, synced_pos: valid_end };
    Ok(Opened { files, active, executed, purged, report: Some(report) })
}

/// The writer of a binlog file set. See the module doc for the protocols.
#[derive(Debug)]
pub struct BinlogWriter {
    vfs: VfsRef,
    opts: Options,
    index: Index,
    shared: Arc<Shared>,
    /// The index's contents: file sequence numbers, oldest first.
    files: Vec<u64>,
    active: ActiveFile,
    executed: GtidSet,
    purged: GtidSet,
    poisoned: Option<Arc<vfs::Error>>,
    recovering: bool,
    report: Option<RecoveryReport>,
    maker: FileMaker,
}

fn now_secs() -> u32 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as u32).unwrap_or(0)
}

/// A copy of an I/O error to hand to the caller while the writer keeps the original.
fn copy_io_error(e: &vfs::Error) -> vfs::Error {
    vfs::Error::new(e.op, &e.path, std::io::Error::new(e.kind(), e.source.to_string()))
}

impl BinlogWriter {
    /// Opens (or creates) the file set described by `opts`; see the module doc for what open
    /// repairs. After a crash the writer is in recovery ([`Self::recovery_report`]).
    pub fn open(vfs: VfsRef, opts: Options) -> Result<BinlogWriter> {
        opts.validate()?;
        vfs.create_dir_all(&opts.dir)?;
        let index = Index::new(vfs.clone(), &opts.dir, &opts.basename);
        let files = match index.load()? {
            Some(files) => files,
            None => {
                let strays = vfs.list_dir(&opts.dir)?.iter().any(|n| {
                    n.to_str().and_then(|n| names::parse_seq(&opts.basename, n)).is_some()
                });
                if strays {
                    return Err(Error::OrphanFiles {
                        dir: opts.dir.clone(),
                        index: index.path().to_path_buf(),
                    });
                }
                // An empty index first: from now on every file of the set that is not in the
                // index is a leftover of an interrupted step, safe to delete.
                index.store(&[])?;
                Vec::new()
            }
        };
        remove_leftovers(&vfs, &opts, &index, &files)?;
        let maker =
            FileMaker { vfs: vfs.clone(), opts: opts.clone(), warned: AtomicBool::new(false) };
        let opened = open_files(&maker, &index, files)?;
        let shared = Shared::new(vfs.clone(), opts.dir.clone(), opts.basename.clone());
        let w = BinlogWriter {
            vfs,
            opts,
            index,
            shared,
            files: opened.files,
            active: opened.active,
            executed: opened.executed,
            purged: opened.purged,
            poisoned: None,
            recovering: opened.report.is_some(),
            report: opened.report,
            maker,
        };
        w.publish_active();
        Ok(w)
    }

    fn path(&self, seq: u64) -> PathBuf {
        self.maker.path(seq)
    }

    fn name(&self, seq: u64) -> String {
        names::file_name(&self.opts.basename, seq)
    }

    /// Tells readers about the index and the active file.
    fn publish_active(&self) {
        let files = self.files.clone();
        let (seq, end) = (self.active.seq, self.active.synced_pos);
        self.shared.publish(|st| {
            st.files = files;
            st.active_seq = seq;
            st.synced_end = end;
        });
    }

    fn check_writable(&self) -> Result<()> {
        match &self.poisoned {
            Some(cause) => Err(Error::Poisoned { cause: cause.clone() }),
            None => Ok(()),
        }
    }

    /// Records the failure, stops readers waiting for more, and returns the caller's error.
    fn poison(&mut self, e: Error) -> Error {
        let cause = match &e {
            Error::Io(io) | Error::NoSpace { source: io } => copy_io_error(io),
            other => {
                vfs::Error::new("binlog", &self.opts.dir, std::io::Error::other(other.to_string()))
            }
        };
        log::error!("binlog writer poisoned: {e}");
        self.poisoned = Some(Arc::new(cause));
        self.shared.publish(|st| st.ended = true);
        e
    }

    /// Runs a step that changes files; any failure poisons the writer.
    fn guarded<T>(&mut self, step: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.check_writable()?;
        step(self).map_err(|e| self.poison(e))
    }

    /// Writes one group (whole transactions, events already positioned by the caller at
    /// [`Self::write_pos`]) with one write, and adds `gtids` to the executed set. Not durable
    /// and not visible to readers until [`Self::sync`].
    pub fn append(&mut self, group: &[u8], gtids: &[Gtid]) -> Result<Appended> {
        self.check_writable()?;
        let start = self.active.write_pos;
        if let Err(e) = self.active.file.write_at(group, start) {
            let e = if e.is_no_space() { Error::NoSpace { source: e } } else { Error::Io(e) };
            return Err(self.poison(e));
        }
        self.active.write_pos += group.len() as u64;
        for g in gtids {
            let fresh = self.executed.add(*g);
            debug_assert!(fresh, "GTID {g} appended twice");
        }
        Ok(Appended {
            seq: self.active.seq,
            start,
            end: self.active.write_pos,
            rotation_due: self.rotation_due(),
        })
    }

    fn rotation_due(&self) -> bool {
        !self.recovering && self.active.write_pos >= self.opts.max_binlog_size
    }

    /// Makes everything appended durable (one fdatasync), then publishes the new synced end
    /// to readers. Returns the synced end.
    pub fn sync(&mut self) -> Result<BinlogPosition> {
        self.check_writable()?;
        if self.active.synced_pos < self.active.write_pos {
            if let Err(e) = self.active.file.sync_data() {
                return Err(self.poison(e.into()));
            }
            self.active.synced_pos = self.active.write_pos;
            let end = self.active.synced_pos;
            self.shared.publish_synced_end(end);
        }
        Ok(self.synced_position())
    }

    /// The first half of a sync done without holding the writer (the commit pipeline's SYNC
    /// stage runs while the next group is appended): the active file and its `write_pos`.
    /// fdatasync the file, then hand the outcome to [`Self::complete_sync`].
    pub fn sync_target(&self) -> Result<SyncTarget> {
        self.check_writable()?;
        Ok(SyncTarget {
            seq: self.active.seq,
            end: self.active.write_pos,
            file: self.active.file.clone(),
        })
    }

    /// The second half of [`Self::sync_target`]: on success moves `synced_pos` to the
    /// target's end (if the file is still active; rotation synced it otherwise) and publishes
    /// it; a failed fdatasync poisons the writer like [`Self::sync`].
    pub fn complete_sync(
        &mut self,
        target: SyncTarget,
        outcome: vfs::Result<()>,
    ) -> Result<BinlogPosition> {
        self.check_writable()?;
        if let Err(e) = outcome {
            return Err(self.poison(e.into()));
        }
        if target.seq == self.active.seq && target.end > self.active.synced_pos {
            self.active.synced_pos = target.end;
            let end = target.end;
            self.shared.publish_synced_end(end);
        }
        Ok(self.synced_position())
    }

    /// Rotates if the active file reached `max_binlog_size`; returns whether it did. Call it
    /// after the last group's transactions are committed in the engine (see the module doc).
    pub fn rotate_if_due(&mut self) -> Result<bool> {
        if !self.rotation_due() {
            return Ok(false);
        }
        self.rotate()?;
        Ok(true)
    }

    /// Closes the active file with a ROTATE and opens the next one (`FLUSH BINARY LOGS`).
    pub fn rotate(&mut self) -> Result<()> {
        if self.recovering {
            return Err(Error::RecoveryPending);
        }
        self.guarded(|w| w.switch_file(true))
    }

    /// Rotation steps 1-5 (module doc); without the ROTATE event when closing a crashed file.
    fn switch_file(&mut self, write_rotate: bool) -> Result<()> {
        let next = self.active.seq + 1;
        // Closing a crashed file happens once per start, so its successor is the first file of
        // this server run.
        let new = self.maker.create(next, &self.executed, !write_rotate)?;
        if write_rotate {
            let rotate = self.maker.encoder().rotate(&self.name(next), self.active.write_pos)?;
            self.active.file.write_at(&rotate, self.active.write_pos)?;
            self.active.write_pos += rotate.len() as u64;
        }
        self.active.file.sync_data()?;
        self.active.synced_pos = self.active.write_pos;
        self.files.push(next);
        self.index.store(&self.files)?;
        close_file(&self.active.file, self.active.write_pos)?;
        self.active = new;
        self.publish_active();
        Ok(())
    }

    /// Adds GTIDs executed elsewhere (the engine's, when binlog files were lost and the loss
    /// accepted) to the executed set: the next file's PREVIOUS_GTIDS holds them, so they are
    /// never handed out again. Call [`Self::rotate`] after it to make that durable.
    pub fn add_executed(&mut self, gtids: &GtidSet) {
        self.executed.union_with(gtids);
    }

    /// Ends crash recovery: the crashed file (with any groups appended since open) is made
    /// durable, closed (flag cleared) and a new file opened. Call it once the engine's
    /// commit/rollback decisions for the report's transactions are durable. A no-op when the
    /// set was not recovering.
    pub fn finish_recovery(&mut self) -> Result<()> {
        if !self.recovering {
            return Ok(());
        }
        self.guarded(|w| w.switch_file(false))?;
        self.recovering = false;
        Ok(())
    }

    /// Purges every file before `name` (`PURGE BINARY LOGS TO 'name'`). `name` may be the
    /// active file; files a reader is on stop the purge.
    pub fn purge_to(&mut self, name: &str) -> Result<PurgeOutcome> {
        self.check_writable()?;
        let seq = names::parse_seq(&self.opts.basename, name)
            .filter(|s| self.files.contains(s))
            .ok_or_else(|| Error::UnknownFile { name: name.to_string() })?;
        self.purge_before_seq(seq)
    }

    /// Purges the files last modified before `unix_secs`, oldest first, stopping at the first
    /// newer one and never touching the active file (`PURGE BINARY LOGS BEFORE`; MySQL's
    /// `purge_logs_before_date`).
    pub fn purge_before_date(&mut self, unix_secs: u64) -> Result<PurgeOutcome> {
        self.check_writable()?;
        let mut stop = self.active.seq;
        for &seq in &self.files {
            if seq == self.active.seq || self.vfs.modified_unix_secs(&self.path(seq))? >= unix_secs
            {
                stop = seq;
                break;
            }
        }
        self.purge_before_seq(stop)
    }

    fn purge_before_seq(&mut self, seq: u64) -> Result<PurgeOutcome> {
        if seq > self.active.seq {
            return Err(Error::PurgeActive { name: self.name(seq) });
        }
        let mut outcome = PurgeOutcome::default();
        // Under the readers' lock: stop at the oldest file a reader is on, and unpublish the
        // purged files at once so no reader can start on one from now on.
        let (gone, kept) = {
            let mut st = self.shared.lock();
            let mut limit = seq;
            if let Some(&r) = st.readers.keys().next().filter(|&&r| r < seq) {
                limit = r;
                outcome.stopped_at_in_use = Some(self.name(r));
                log::warn!("binlog {} is being read; purge stops there", self.name(r));
            }
            let (gone, kept): (Vec<u64>, Vec<u64>) = self.files.iter().partition(|&&s| s < limit);
            st.files.clone_from(&kept);
            (gone, kept)
        };
        if gone.is_empty() {
            return Ok(outcome);
        }
        self.guarded(|w| w.index.store(&kept))?;
        self.files = kept;
        for &s in &gone {
            // The index no longer names these, so a failure only leaves a leftover that the
            // next open deletes.
            if let Err(e) = self.vfs.remove_file(&self.path(s)) {
                log::warn!("could not delete purged binlog {}: {e}", self.name(s));
            }
            outcome.purged.push(self.name(s));
        }
        if let Err(e) = self.vfs.sync_dir(&self.opts.dir) {
            log::warn!("could not sync {} after purge: {e}", self.opts.dir.display());
        }
        // The active file is never purged, so a file is always left.
        if let Some(&first) = self.files.first() {
            let path = self.path(first);
            let file = self.vfs.open(&path, OpenMode::Read)?;
            self.purged = recover::read_header(&file, &path, file.len()?)?.previous_gtids;
        }
        Ok(outcome)
    }

    /// `RESET MASTER` (MySQL's `MYSQL_BIN_LOG::reset_logs`): deletes every file of the set and
    /// starts again at `<basename>.000001`, with empty executed and purged GTID sets. Refused
    /// (nothing changed) while recovering or while a reader is on a file. Crash safety: the
    /// active file is closed cleanly, then the index is emptied, which makes every old file a
    /// leftover the next open deletes; a crash before the new first file is in the index
    /// leaves an empty set that open starts afresh.
    pub fn reset(&mut self) -> Result<Vec<String>> {
        if self.recovering {
            return Err(Error::RecoveryPending);
        }
        self.check_writable()?;
        {
            let mut st = self.shared.lock();
            if let Some(&r) = st.readers.keys().next() {
                return Err(Error::InUse { name: self.name(r) });
            }
            // Unpublished at once: no reader can start on a file about to go.
            st.files.clear();
        }
        let old = std::mem::take(&mut self.files);
        self.guarded(|w| {
            w.active.file.sync_data()?;
            close_file(&w.active.file, w.active.write_pos)?;
            w.index.store(&[])?;
            Ok(())
        })?;
        let mut deleted = Vec::with_capacity(old.len());
        for &s in &old {
            // The index no longer names these: a failure leaves a leftover the next open
            // deletes.
            if let Err(e) = self.vfs.remove_file(&self.path(s)) {
                log::warn!("could not delete binlog {}: {e}", self.name(s));
            }
            deleted.push(self.name(s));
        }
        self.executed = GtidSet::new();
        self.purged = GtidSet::new();
        self.guarded(|w| {
            w.vfs.sync_dir(&w.opts.dir)?;
            let new = w.maker.create(1, &GtidSet::new(), false)?;
            w.files = vec![1];
            w.index.store(&w.files)?;
            w.active = new;
            Ok(())
        })?;
        self.publish_active();
        Ok(deleted)
    }

    /// Clean shutdown: STOP event, sync, cut the preallocated tail, clear the in-use flag,
    /// sync (MySQL's `MYSQL_BIN_LOG::close` with `LOG_CLOSE_STOP_EVENT`). While recovering,
    /// only syncs: the file stays flagged so the next open recovers it again.
    pub fn close(mut self) -> Result<()> {
        self.guarded(|w| {
            if w.recovering {
                w.active.file.sync_data()?;
                return Ok(());
            }
            let stop = w.maker.encoder().stop(w.active.write_pos)?;
            w.active.file.write_at(&stop, w.active.write_pos)?;
            w.active.write_pos += stop.len() as u64;
            w.active.file.sync_data()?;
            w.active.synced_pos = w.active.write_pos;
            close_file(&w.active.file, w.active.write_pos)
        })?;
        let end = self.active.synced_pos;
        self.shared.publish(|st| {
            st.synced_end = end;
            st.ended = true;
        });
        Ok(())
    }

    /// A handle for readers in other threads.
    pub fn files(&self) -> BinlogFiles {
        BinlogFiles { shared: self.shared.clone() }
    }

    /// Where the next group goes in the active file.
    pub fn write_pos(&self) -> u64 {
        self.active.write_pos
    }

    /// End of what the last sync made durable in the active file.
    pub fn synced_pos(&self) -> u64 {
        self.active.synced_pos
    }

    /// The synced end with the active file's name.
    pub fn synced_position(&self) -> BinlogPosition {
        BinlogPosition { file: self.name(self.active.seq), pos: self.active.synced_pos }
    }

    /// The active file's name.
    pub fn active_file(&self) -> String {
        self.name(self.active.seq)
    }

    /// The active file's sequence number.
    pub fn active_seq(&self) -> u64 {
        self.active.seq
    }

    /// The GTIDs in the binlog: the first file's PREVIOUS_GTIDS and every GTID appended since
    /// (`gtid_executed` as far as the binlog knows).
    pub fn executed_gtids(&self) -> &GtidSet {
        &self.executed
    }

    /// The GTIDs of purged files: the first file's PREVIOUS_GTIDS (`gtid_purged`).
    pub fn purged_gtids(&self) -> &GtidSet {
        &self.purged
    }

    /// What open found in a crashed last file (`None` after a clean shutdown).
    pub fn recovery_report(&self) -> Option<&RecoveryReport> {
        self.report.as_ref()
    }

    /// Whether [`Self::finish_recovery`] is still due.
    pub fn is_recovering(&self) -> bool {
        self.recovering
    }

    /// Whether an earlier failure poisoned the writer.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.is_some()
    }

    /// The options the set was opened with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The files in the index with their sizes (`SHOW BINARY LOGS`).
    pub fn list_files(&self) -> Result<Vec<FileInfo>> {
        self.files
            .iter()
            .map(|&seq| {
                let size = if seq == self.active.seq {
                    self.active.write_pos
                } else {
                    self.vfs.open(&self.path(seq), OpenMode::Read)?.len()?
                };
                Ok(FileInfo { name: self.name(seq), size })
            })
            .collect()
    }
}

impl Drop for BinlogWriter {
    /// Readers must not wait forever on a writer that is gone (closed or not).
    fn drop(&mut self) {
        self.shared.publish(|st| st.ended = true);
    }
}

/// The executed set of a scanned last file cut at `end`.
fn executed_after(scan: &Scan, end: u64) -> GtidSet {
    let mut set = scan.header.previous_gtids.clone();
    for t in scan.transactions.iter().filter(|t| t.end <= end) {
        if let Some(g) = t.gtid {
            set.add(g);
        }
    }
    set
}

/// Writes the FORMAT_DESCRIPTION's flags in place. The CRC stays valid: MySQL computes the
/// FORMAT_DESCRIPTION's CRC as if the in-use flag were clear (see `frame`).
fn set_in_use(file: &FileRef, in_use: bool) -> Result<()> {
    let flags: u16 = if in_use { frame::IN_USE_FLAG } else { 0 };
    file.write_at(&flags.to_le_bytes(), (MAGIC.len() + FLAGS_OFFSET) as u64)?;
    Ok(())
}

/// Closes a file whose events end at `end`: cut the unused tail and make that durable first,
/// then clear the in-use flag and sync, so a file without the flag is always cut.
fn close_file(file: &FileRef, end: u64) -> Result<()> {
    if file.len()? > end {
        file.set_len(end)?;
        file.sync_data()?;
    }
    set_in_use(file, false)?;
    file.sync_data()?;
    Ok(())
}

/// Deletes files of the set that the index does not list, and a leftover index temp file.
fn remove_leftovers(vfs: &VfsRef, opts: &Options, index: &Index, files: &[u64]) -> Result<()> {
    let mut removed = false;
    for name in vfs.list_dir(&opts.dir)? {
        let Some(name) = name.to_str() else { continue };
        let stray = match names::parse_seq(&opts.basename, name) {
            Some(seq) => !files.contains(&seq),
            None => name == index.tmp_name(),
        };
        if stray {
            log::warn!("removing {name}: not in the binlog index (left by an interrupted step)");
            vfs.remove_file(&opts.dir.join(name))?;
            removed = true;
        }
    }
    if removed {
        vfs.sync_dir(&opts.dir)?;
    }
    Ok(())
}
