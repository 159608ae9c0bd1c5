//! The tailing reader, and the state the writer publishes to it.
//!
//! Protocol: the writer publishes, under one mutex, the index list, the active file and the
//! *synced end* of the active file (the position just past the last fdatasynced group), and
//! wakes waiting readers through a condition variable. A reader:
//! - in the active file, reads only below the synced end. Everything there is durable and
//!   never rewritten, so a reader never sees unsynced bytes, a torn group, or the zeros of
//!   preallocated space (WL#4925 part 4: "checking actual size when reading active binlog");
//! - at the synced end, waits on the condition variable (no spinning), optionally with a
//!   timeout so a dump thread can send heartbeats;
//! - in a closed file, reads to its end: the file ends at a ROTATE (rotation), a STOP (clean
//!   shutdown) or a transaction boundary (crash recovery); its preallocated tail was cut
//!   before the next file was published;
//! - after the end of a closed file, continues at offset 4 of the next file in the index.
//!
//! Every event is checked (size, `log_pos`, CRC32 when the file's FORMAT_DESCRIPTION says so)
//! before it is returned. The writer also counts which files readers are on, so purge never
//! deletes a file being read (as MySQL's `log_in_use`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use vfs::{FileRef, OpenMode, VfsRef};

use super::error::{Damage, Error, Result};
use super::frame::MAGIC;
use super::names;
use super::recover::{self, Cursor, Step};

/// What the writer publishes to readers.
#[derive(Debug, Default)]
pub(crate) struct Published {
    /// The index: file sequence numbers, oldest first.
    pub files: Vec<u64>,
    /// The file being written.
    pub active_seq: u64,
    /// End of the durable bytes of the active file.
    pub synced_end: u64,
    /// No more bytes will come: the writer closed, was dropped, or is poisoned.
    pub ended: bool,
    /// How many readers are on each file.
    pub readers: BTreeMap<u64, usize>,
}

/// The state shared by a writer and its readers.
#[derive(Debug)]
pub(crate) struct Shared {
    pub vfs: VfsRef,
    pub dir: PathBuf,
    pub basename: String,
    state: Mutex<Published>,
    cond: Condvar,
}

impl Shared {
    pub fn new(vfs: VfsRef, dir: PathBuf, basename: String) -> Arc<Shared> {
        Arc::new(Shared {
            vfs,
            dir,
            basename,
            state: Mutex::new(Published::default()),
            cond: Condvar::new(),
        })
    }

    pub fn lock(&self) -> MutexGuard<'_, Published> {
        // A panic while holding this lock cannot leave `Published` half updated (every update
        // is a few field stores), so a poisoned mutex is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `f` to the published state and wakes every waiting reader.
    pub fn publish(&self, f: impl FnOnce(&mut Published)) {
        f(&mut self.lock());
        self.cond.notify_all();
    }

    /// Publishes a new synced end of the active file and wakes every waiting reader. The
    /// synced end of a file never moves back (readers treat everything below it as durable
    /// and final): checked with `assert!` in every build, one compare per sync. Rotation and
    /// `RESET MASTER` publish a new active file through [`Self::publish`] instead.
    pub fn publish_synced_end(&self, end: u64) {
        {
            let mut st = self.lock();
            assert!(
                end >= st.synced_end,
                "binlog: the published synced end of file {} moved back from {} to {end}",
                st.active_seq,
                st.synced_end
            );
            st.synced_end = end;
        }
        self.cond.notify_all();
    }

    fn name(&self, seq: u64) -> String {
        names::file_name(&self.basename, seq)
    }
}

/// A position in the file set: file name and byte offset.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BinlogPosition {
    pub file: String,
    pub pos: u64,
}

/// A cheap, clonable handle on the file set for other threads (dump threads, SHOW BINARY
/// LOGS): it creates readers and tells the published synced end.
#[derive(Debug, Clone)]
pub struct BinlogFiles {
    pub(crate) shared: Arc<Shared>,
}

impl BinlogFiles {
    /// The end of the durable bytes: the active file and its synced end.
    pub fn synced_end(&self) -> BinlogPosition {
        let st = self.shared.lock();
        BinlogPosition { file: self.shared.name(st.active_seq), pos: st.synced_end }
    }

    /// The name of the file with sequence number `seq` ([`NextRef`] gives files by number).
    pub fn file_name(&self, seq: u64) -> String {
        self.shared.name(seq)
    }

    /// The names of the files in the index, oldest first.
    pub fn file_names(&self) -> Vec<String> {
        let st = self.shared.lock();
        st.files.iter().map(|&s| self.shared.name(s)).collect()
    }

    /// A reader from the start of the oldest file.
    pub fn reader_from_start(&self) -> Result<BinlogReader> {
        let first = self.shared.lock().files.first().copied();
        match first {
            Some(seq) => self.reader_at_seq(seq, MAGIC.len() as u64),
            None => Err(Error::UnknownFile { name: self.shared.name(1) }),
        }
    }

    /// A reader starting at `pos` of file `name` (`pos` at most 4 means the first event). The
    /// position must be an event boundary, as in `COM_BINLOG_DUMP`.
    pub fn reader_at(&self, name: &str, pos: u64) -> Result<BinlogReader> {
        let seq = names::parse_seq(&self.shared.basename, name)
            .ok_or_else(|| Error::UnknownFile { name: name.to_string() })?;
        self.reader_at_seq(seq, pos.max(MAGIC.len() as u64))
    }

    /// Holds file `name` against PURGE without reading it, as a reader on it would: for a dump
    /// that sends the file's bytes from memory (the shared tail) and may have to come back to
    /// the file. mysqld's PURGE likewise stops at a file a dump thread is on
    /// (`MYSQL_BIN_LOG::purge_logs`, `log_in_use`).
    pub fn pin(&self, name: &str) -> Result<FilePin> {
        let seq = names::parse_seq(&self.shared.basename, name)
            .ok_or_else(|| Error::UnknownFile { name: name.to_string() })?;
        self.enter(seq)?;
        Ok(FilePin { shared: self.shared.clone(), seq })
    }

    /// Counts one more reader on `seq`, if the index still lists it.
    fn enter(&self, seq: u64) -> Result<()> {
        let mut st = self.shared.lock();
        if !st.files.contains(&seq) {
            let name = self.shared.name(seq);
            return Err(if st.files.first().is_some_and(|&first| seq < first) {
                Error::Purged { name }
            } else {
                Error::UnknownFile { name }
            });
        }
        *st.readers.entry(seq).or_default() += 1;
        Ok(())
    }

    fn reader_at_seq(&self, seq: u64, pos: u64) -> Result<BinlogReader> {
        self.enter(seq)?;
        Ok(BinlogReader {
            shared: self.shared.clone(),
            seq,
            pos,
            file: None,
            checksum: true,
            closed_len: None,
            known_end: None,
            cursor: Cursor::default(),
        })
    }
}

/// One event read from the file set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinlogEvent {
    /// The file it is in.
    pub file: String,
    /// Its offset in that file.
    pub pos: u64,
    /// The whole event: header, body and checksum.
    pub bytes: Vec<u8>,
}

/// What [`BinlogReader::next`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// The next event.
    Event(BinlogEvent),
    /// Nothing new within the timeout (time for a heartbeat).
    TimedOut,
    /// Everything was read and no more will come (the writer closed or stopped).
    Ended,
}

/// What [`BinlogReader::next_ref`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum NextRef<'a> {
    /// The next event: its file's sequence number, its offset there and its bytes.
    Event { seq: u64, pos: u64, bytes: &'a [u8] },
    /// As [`Next::TimedOut`].
    TimedOut,
    /// As [`Next::Ended`].
    Ended,
}

/// What `BinlogReader::find` found: an event's offset and length.
enum Found {
    Event(u64, usize),
    TimedOut,
    Ended,
}

/// Reads whole events across the file set, following rotations; see the module doc.
#[derive(Debug)]
pub struct BinlogReader {
    shared: Arc<Shared>,
    seq: u64,
    pos: u64,
    file: Option<FileRef>,
    /// Whether the current file's events carry a CRC32 (from its FORMAT_DESCRIPTION).
    checksum: bool,
    /// The current file's length once it is closed (it never changes again).
    closed_len: Option<u64>,
    /// The synced end of the current file last seen under the lock. Bytes below it are
    /// durable and never change, so the reader reads up to it without taking the lock the
    /// writer publishes under: with many dump threads, one lock per event would make every
    /// group's publish wait behind the readers (a convoy on the commit path).
    known_end: Option<u64>,
    cursor: Cursor,
}

impl BinlogReader {
    /// Where the next event will be read.
    pub fn position(&self) -> BinlogPosition {
        BinlogPosition { file: self.shared.name(self.seq), pos: self.pos }
    }

    /// Returns the next event, waiting for one if the reader is at the synced end of the
    /// active file: forever with `timeout: None`, else at most about `timeout`.
    pub fn next(&mut self, timeout: Option<Duration>) -> Result<Next> {
        Ok(match self.find(timeout)? {
            Found::Event(pos, len) => Next::Event(BinlogEvent {
                file: self.shared.name(self.seq),
                pos,
                bytes: self.cursor.buffered(pos, len).to_vec(),
            }),
            Found::TimedOut => Next::TimedOut,
            Found::Ended => Next::Ended,
        })
    }

    /// [`BinlogReader::next`] without allocating: the event is borrowed from the reader's
    /// buffer and its file given by sequence number (a reader that follows the binlog for many
    /// consumers, such as the dump threads' shared tail, reads every event of the server).
    pub fn next_ref(&mut self, timeout: Option<Duration>) -> Result<NextRef<'_>> {
        Ok(match self.find(timeout)? {
            Found::Event(pos, len) => {
                NextRef::Event { seq: self.seq, pos, bytes: self.cursor.buffered(pos, len) }
            }
            Found::TimedOut => NextRef::TimedOut,
            Found::Ended => NextRef::Ended,
        })
    }

    /// Finds the next event (its offset and length, in the cursor's buffer); see `next`.
    fn find(&mut self, timeout: Option<Duration>) -> Result<Found> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            // `Some(end)` in the active file: read only below it. `None` in a closed file.
            let limit = if let Some(end) = self.known_end.filter(|&end| self.pos < end) {
                Some(end)
            } else {
                let mut st = self.shared.lock();
                loop {
                    if self.seq != st.active_seq {
                        break None;
                    }
                    if self.pos < st.synced_end {
                        self.known_end = Some(st.synced_end);
                        break Some(st.synced_end);
                    }
                    if st.ended {
                        return Ok(Found::Ended);
                    }
                    st = match deadline {
                        None => self.shared.cond.wait(st).unwrap_or_else(|e| e.into_inner()),
                        Some(d) => {
                            let now = Instant::now();
                            if now >= d {
                                return Ok(Found::TimedOut);
                            }
                            self.shared
                                .cond
                                .wait_timeout(st, d - now)
                                .unwrap_or_else(|e| e.into_inner())
                                .0
                        }
                    };
                }
            };
            let file = self.open_current()?;
            let limit = match (limit, self.closed_len) {
                (Some(l), _) | (None, Some(l)) => l,
                (None, None) => *self.closed_len.insert(file.len()?),
            };
            match self.cursor.event_at(&file, limit, self.pos, self.checksum)? {
                Step::Event(ev) => {
                    let (pos, len) = (self.pos, ev.len());
                    self.pos += len as u64;
                    return Ok(Found::Event(pos, len));
                }
                Step::End => self.move_to_next_file()?,
                Step::Damaged(damage) => return Err(self.corrupt(damage)),
            }
        }
    }

    fn corrupt(&self, damage: Damage) -> Error {
        Error::Corrupt {
            path: self.shared.dir.join(self.shared.name(self.seq)),
            offset: self.pos,
            damage,
        }
    }

    /// The current file, opened on first use; learns its checksum setting from its header.
    fn open_current(&mut self) -> Result<FileRef> {
        if let Some(f) = &self.file {
            return Ok(f.clone());
        }
        let name = self.shared.name(self.seq);
        let path = self.shared.dir.join(&name);
        let file = match self.shared.vfs.open(&path, OpenMode::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::Purged { name });
            }
            Err(e) => return Err(e.into()),
        };
        // The header is durable before a file is published, so its length is safe to use.
        let header = recover::read_header(&file, &path, file.len()?)?;
        self.checksum = header.checksum;
        self.cursor.reset();
        self.file = Some(file.clone());
        Ok(file)
    }

    /// Leaves a closed file for the next one in the index.
    fn move_to_next_file(&mut self) -> Result<()> {
        let mut st = self.shared.lock();
        let Some(&next) = st.files.iter().find(|&&s| s > self.seq) else {
            // A closed file is always followed by another; not finding one means the index
            // no longer lists files this reader needs.
            return Err(Error::Purged { name: self.shared.name(self.seq + 1) });
        };
        leave(&mut st.readers, self.seq);
        *st.readers.entry(next).or_default() += 1;
        drop(st);
        self.seq = next;
        self.pos = MAGIC.len() as u64;
        self.file = None;
        self.closed_len = None;
        self.known_end = None;
        Ok(())
    }
}

/// A file held against PURGE ([`BinlogFiles::pin`]) until dropped.
#[derive(Debug)]
pub struct FilePin {
    shared: Arc<Shared>,
    seq: u64,
}

impl FilePin {
    /// Holds file `name` instead (a later file, once the holder moved on to it). On error
    /// (the file is not in the index) the pin keeps its old file.
    pub fn follow(&mut self, name: &str) -> Result<()> {
        let seq = names::parse_seq(&self.shared.basename, name)
            .ok_or_else(|| Error::UnknownFile { name: name.to_string() })?;
        if seq == self.seq {
            return Ok(());
        }
        BinlogFiles { shared: self.shared.clone() }.enter(seq)?;
        leave(&mut self.shared.lock().readers, self.seq);
        self.seq = seq;
        Ok(())
    }
}

impl Drop for FilePin {
    fn drop(&mut self) {
        leave(&mut self.shared.lock().readers, self.seq);
    }
}

fn leave(readers: &mut BTreeMap<u64, usize>, seq: u64) {
    if let Some(n) = readers.get_mut(&seq) {
        *n -= 1;
        if *n == 0 {
            readers.remove(&seq);
        }
    }
}

impl Drop for BinlogReader {
    fn drop(&mut self) {
        leave(&mut self.shared.lock().readers, self.seq);
    }
}
