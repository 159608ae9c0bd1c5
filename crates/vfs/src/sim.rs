//! A simulated, crashable disk in memory, for deterministic crash tests of the layers above.
//!
//! # What it models
//! - **File data** (per inode): what reads see, and what is durable as of the last successful
//!   `sync_data`. The writes, `set_len`s and `allocate`s since then are kept in order, so a
//!   crash can drop them ([`CrashMode::DropUnsynced`]), keep them ([`CrashMode::KeepAll`], the OS
//!   had flushed) or tear them ([`CrashMode::Tear`]: a seeded random prefix survives, the cut
//!   write only up to a 512-byte sector boundary). A file renamed keeps its data state.
//! - **Directory entries**: creates, renames and removes are visible at once but durable only
//!   after `sync_dir` of the parent; at a crash the others revert (a created file disappears, a
//!   rename reverts, a removed file reappears). `Tear` keeps a random prefix of them too.
//!   Directories themselves are durable when `create_dir_all` returns.
//! - **A failed sync loses data** as Linux does since 4.13: the writes it was to flush stay
//!   readable until a crash but never become durable, and a later sync succeeds. A caller that
//!   retries a failed sync and reports success is thus caught by a crash test.
//! - **Power loss at a chosen operation** ([`SimVfs::crash_at`]): the durability-relevant
//!   operations (create, write, set_len, allocate, sync_data, rename, remove, sync_dir) are
//!   numbered from 0 in the order they happen; once `k` have happened, every operation fails.
//! - **Durable writes** (`write_durable_at`, the simulated `O_DIRECT|O_DSYNC`): durable on
//!   `Ok` whatever happens to the buffered writes around them; one numbered operation that
//!   `Write` and `Sync` faults both match. One cut by the power (or failed with EIO) lands at
//!   the crash not at all (`DropUnsynced`), whole (`KeepAll`), or as a random subset of its
//!   512-byte sectors (`Tear`): a device does not write a multi-sector request atomically.
//! - **Faults** ([`Fault`]): the nth matching operation fails with EIO or ENOSPC (real OS error
//!   numbers, so `ErrorKind::StorageFull` works); a capacity limit gives ENOSPC.
//!
//! # Crashing and restarting
//! [`SimVfs::crash`] applies a [`CrashMode`] and returns a new handle on the same disk: the
//! "restarted machine". Every handle from before — `SimVfs` clones and open files — fails from
//! then on with an error for which [`Error::is_crashed`](crate::Error::is_crashed) is true, so a
//! dead server's leftover threads cannot touch the new state.
//!
//! # Determinism
//! Same operations in the same order → same numbering, same fault, and (for a given seed) the
//! same torn state. The generator is a fixed SplitMix64, so a failing seed replays forever.
//!
//! Paths are plain keys compared component-wise, not resolved: use one spelling per file (tests
//! normally use absolute paths such as `/data/binlog.000001`). `/`, the empty path and `.` are
//! roots that always exist; other directories must be made with `create_dir_all`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::{Allocation, Error, FileRef, OpenMode, Result, Vfs, VfsFile, VfsRef};

mod disk;
#[cfg(test)]
mod tests;

pub(crate) use disk::Crashed;
use disk::{errno, Disk};

/// What of the non-durable state survives a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashMode {
    /// Only what was synced (`sync_data`, `sync_dir`) survives.
    DropUnsynced,
    /// Per file, a random prefix of the unsynced operations survives, the first one left out
    /// possibly in part (a write cut at a 512-byte sector boundary); likewise a random prefix
    /// of the unsynced directory changes. The same seed gives the same result.
    Tear { seed: u64 },
    /// Every write and every directory change survives, as if the OS had flushed just before
    /// the power cut (except writes already lost by a failed sync).
    KeepAll,
}

/// An operation a [`Fault`] can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultOp {
    /// `open` that creates the file.
    Create,
    Write,
    /// `sync_data`.
    Sync,
    SetLen,
    Allocate,
    Rename,
    Remove,
    SyncDir,
    /// `read_at` (not a numbered operation: reads never count towards crash points).
    Read,
}

/// The error an injected fault returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// EIO: a device error.
    Eio,
    /// ENOSPC: the device is full (`ErrorKind::StorageFull`).
    Enospc,
}

/// A one-shot injected failure: the `nth` operation of kind `op` (counting from when it is
/// injected, 1 = the next one) whose path contains `path` fails with `kind`. For a rename
/// either path may match. A failed operation changes nothing, except a failed sync, which
/// loses the writes it was to flush (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub op: FaultOp,
    /// A substring the operation's path must contain; `None` matches every path.
    pub path: Option<String>,
    /// Which matching operation fails: 1 = the next one (0 is taken as 1).
    pub nth: u64,
    pub kind: FaultKind,
}

impl Fault {
    /// Fails the next `op` on any path with `kind`.
    pub fn new(op: FaultOp, kind: FaultKind) -> Self {
        Fault { op, path: None, nth: 1, kind }
    }

    /// Only operations on paths containing `needle` match.
    pub fn on_path(mut self, needle: impl Into<String>) -> Self {
        self.path = Some(needle.into());
        self
    }

    /// Fails the `n`th matching operation (1 = the next one).
    pub fn nth(mut self, n: u64) -> Self {
        self.nth = n;
        self
    }
}

/// Counts of successful operations since the disk was made (across crashes).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SimStats {
    pub creates: u64,
    pub writes: u64,
    pub bytes_written: u64,
    pub syncs: u64,
    /// Successful `write_durable_at` calls (also counted in `writes`).
    pub durable_writes: u64,
    pub dir_syncs: u64,
    pub renames: u64,
    pub removes: u64,
}

/// A handle on a simulated disk. Clones share the disk; see the module docs.
#[derive(Clone)]
pub struct SimVfs {
    disk: Arc<Mutex<Disk>>,
    epoch: u64,
}

impl std::fmt::Debug for SimVfs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimVfs").field("epoch", &self.epoch).finish_non_exhaustive()
    }
}

impl Default for SimVfs {
    fn default() -> Self {
        Self::new()
    }
}

fn lock(disk: &Mutex<Disk>) -> MutexGuard<'_, Disk> {
    // The disk code does not panic while holding the lock; a poisoned lock means a test thread
    // panicked in an assertion, and the test has failed already.
    disk.lock().expect("simulated disk lock poisoned by a panicking thread")
}

impl SimVfs {
    /// An empty disk: no files, only the roots; unlimited capacity; `allocate` supported.
    pub fn new() -> Self {
        SimVfs { disk: Arc::new(Mutex::new(Disk::new())), epoch: 0 }
    }

    /// This handle as the shared trait object the layers above take.
    pub fn shared(&self) -> VfsRef {
        Arc::new(self.clone())
    }

    fn disk(&self) -> MutexGuard<'_, Disk> {
        lock(&self.disk)
    }

    /// Cuts the power and returns the restarted machine's handle on the same disk. What was
    /// not durable is dropped, kept or torn per `mode`. Every older handle (this one included)
    /// is dead from now on. The crash point and armed faults are cleared; capacity, the
    /// allocation knob, the clock, the operation count and the stats are kept.
    pub fn crash(&self, mode: CrashMode) -> SimVfs {
        let mut disk = self.disk();
        disk.crash(mode);
        SimVfs { disk: Arc::clone(&self.disk), epoch: disk.epoch }
    }

    /// How many durability-relevant operations have happened since the disk was made.
    pub fn op_count(&self) -> u64 {
        self.disk().op_count()
    }

    /// Loses power once `op_count()` reaches `k`: operation number `k` (from 0) and everything
    /// after it fail with the crashed error, until [`crash`](Self::crash).
    pub fn crash_at(&self, k: u64) {
        self.disk().set_crash_at(k);
    }

    /// Whether the power is off (a [`crash_at`](Self::crash_at) point was reached).
    pub fn power_lost(&self) -> bool {
        self.disk().power_lost()
    }

    /// Arms a one-shot fault.
    pub fn inject(&self, fault: Fault) {
        self.disk().inject(fault);
    }

    /// Disarms every fault not yet fired.
    pub fn clear_faults(&self) {
        self.disk().clear_faults();
    }

    /// Limits the bytes all files may use (`None`: unlimited). Growing past it fails with
    /// ENOSPC; nothing is sparse, every byte within a file's length counts.
    pub fn set_capacity(&self, bytes: Option<u64>) {
        self.disk().set_capacity(bytes);
    }

    /// Bytes used by the files the current namespace names.
    pub fn used_bytes(&self) -> u64 {
        self.disk().used_bytes()
    }

    /// When `false`, `allocate` returns [`Allocation::Unsupported`] and does nothing, as on a
    /// file system without `fallocate`.
    pub fn set_allocate_supported(&self, supported: bool) {
        self.disk().set_allocate_supported(supported);
    }

    /// When `false`, `open_direct` returns `false`, as on tmpfs: durable writes then fall back
    /// to a write and a sync (two numbered operations).
    pub fn set_direct_supported(&self, supported: bool) {
        self.disk().set_direct_supported(supported);
    }

    /// Sets the logical clock stamped on files and directories as they change.
    pub fn set_now_unix_secs(&self, secs: u64) {
        self.disk().set_now(secs);
    }

    /// What reads of `path` return now (`None` if it does not exist).
    pub fn contents(&self, path: impl AsRef<Path>) -> Option<Vec<u8>> {
        self.disk().contents(path.as_ref())
    }

    /// What `path` would hold after a [`CrashMode::DropUnsynced`] crash now (`None` if its
    /// entry would not survive).
    pub fn durable_contents(&self, path: impl AsRef<Path>) -> Option<Vec<u8>> {
        self.disk().durable_contents(path.as_ref())
    }

    /// Successful `sync_data` calls on the file now at `path`, over its life.
    pub fn sync_count(&self, path: impl AsRef<Path>) -> Option<u64> {
        self.disk().sync_count(path.as_ref())
    }

    /// Counts of successful operations.
    pub fn stats(&self) -> SimStats {
        self.disk().stats()
    }
}

/// An open file on the simulated disk: an inode, as on Unix (it follows renames and outlives
/// removal until the next crash).
struct SimFile {
    disk: Arc<Mutex<Disk>>,
    epoch: u64,
    inode: u64,
    writable: bool,
    path: PathBuf,
    /// `open_direct` succeeded: durable writes are single simulated direct writes.
    direct: AtomicBool,
}

impl std::fmt::Debug for SimFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimFile")
            .field("path", &self.path)
            .field("inode", &self.inode)
            .field("epoch", &self.epoch)
            .finish_non_exhaustive()
    }
}

impl SimFile {
    /// EBADF for a change through a read-only handle (a dead handle reports the crash first).
    fn check_writable(&self, op: &'static str) -> Result<()> {
        if self.writable {
            return Ok(());
        }
        lock(&self.disk).check_alive(self.epoch).map_err(err(op, &self.path))?;
        Err(Error::new(op, &self.path, errno(rustix::io::Errno::BADF)))
    }
}

fn err<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |e| Error::new(op, path, e)
}

impl Vfs for SimVfs {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<FileRef> {
        let (create, exclusive) = match mode {
            OpenMode::Read | OpenMode::ReadWrite => (false, false),
            OpenMode::CreateNew => (true, true),
            OpenMode::CreateOrOpen => (true, false),
        };
        let inode =
            self.disk().open(self.epoch, path, create, exclusive).map_err(err("open", path))?;
        Ok(Arc::new(SimFile {
            disk: Arc::clone(&self.disk),
            epoch: self.epoch,
            inode,
            writable: mode != OpenMode::Read,
            path: path.to_path_buf(),
            direct: AtomicBool::new(false),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.disk().rename(self.epoch, from, to).map_err(err("rename", from))
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        self.disk().remove(self.epoch, path).map_err(err("remove", path))
    }

    fn create_dir_all(&self, path: &Path) -> Result<()> {
        self.disk().create_dir_all(self.epoch, path).map_err(err("mkdir", path))
    }

    fn list_dir(&self, path: &Path) -> Result<Vec<PathBuf>> {
        self.disk().list_dir(self.epoch, path).map_err(err("readdir", path))
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        self.disk().exists(self.epoch, path).map_err(err("stat", path))
    }

    fn sync_dir(&self, path: &Path) -> Result<()> {
        self.disk().sync_dir(self.epoch, path).map_err(err("fsync dir", path))
    }

    fn modified_unix_secs(&self, path: &Path) -> Result<u64> {
        self.disk().modified_unix_secs(self.epoch, path).map_err(err("stat", path))
    }
}

impl VfsFile for SimFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        lock(&self.disk)
            .read(self.epoch, self.inode, &self.path, buf, offset)
            .map_err(err("pread", &self.path))
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        self.check_writable("pwrite")?;
        lock(&self.disk)
            .write(self.epoch, self.inode, &self.path, buf, offset)
            .map_err(err("pwrite", &self.path))
    }

    fn sync_data(&self) -> Result<()> {
        lock(&self.disk)
            .sync(self.epoch, self.inode, &self.path)
            .map_err(err("fdatasync", &self.path))
    }

    fn open_direct(&self) -> Result<bool> {
        let supported = lock(&self.disk).direct_supported(self.epoch);
        let supported = supported.map_err(err("open O_DIRECT|O_DSYNC", &self.path))?;
        self.check_writable("open O_DIRECT|O_DSYNC")?;
        self.direct.store(supported, Ordering::Relaxed);
        Ok(supported)
    }

    fn write_durable_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        crate::check_durable_alignment(buf.len(), offset, &self.path)?;
        self.check_writable("pwrite (durable)")?;
        if !self.direct.load(Ordering::Relaxed) {
            self.write_at(buf, offset)?;
            return self.sync_data();
        }
        lock(&self.disk)
            .write_durable(self.epoch, self.inode, &self.path, buf, offset)
            .map_err(err("pwrite O_DIRECT|O_DSYNC", &self.path))
    }

    fn len(&self) -> Result<u64> {
        lock(&self.disk).len(self.epoch, self.inode).map_err(err("fstat", &self.path))
    }

    fn set_len(&self, len: u64) -> Result<()> {
        self.check_writable("ftruncate")?;
        lock(&self.disk)
            .set_len(self.epoch, self.inode, &self.path, len)
            .map_err(err("ftruncate", &self.path))
    }

    fn allocate(&self, len: u64) -> Result<Allocation> {
        self.check_writable("fallocate")?;
        let supported = lock(&self.disk)
            .allocate(self.epoch, self.inode, &self.path, len)
            .map_err(err("fallocate", &self.path))?;
        Ok(if supported { Allocation::Allocated } else { Allocation::Unsupported })
    }

    fn path(&self) -> &Path {
        &self.path
    }
}
