//! The file seam of binlogd. Every byte the server persists goes through a [`Vfs`].
//!
//! Two implementations live beside this trait file:
//! - [`RealVfs`] (`real.rs`): the operating system's files, with `pwrite`, `fdatasync`,
//!   `fallocate` (the syscall, never glibc's zero-filling emulation) and directory fsync.
//! - [`SimVfs`] (`sim.rs`): an in-memory disk for crash tests. It keeps, for every file, the
//!   bytes written apart from the bytes made durable by a sync, and the directory entries
//!   created, renamed or removed apart from those made durable by a directory sync. At a
//!   simulated crash it drops (or tears at a sector boundary) everything not durable. It can
//!   fail a chosen write or sync with EIO or ENOSPC.
//!
//! And one wrapper: [`LatencyVfs`] (`latency.rs`) slows every flush of any `Vfs`, to stand in
//! for an HDD or SSD on a fast test machine.
//!
//! Durable writes: [`VfsFile::write_durable_at`] writes whole [`DURABLE_BLOCK_BYTES`] blocks
//! and returns only once they are durable — one `pwrite` on a second descriptor opened
//! `O_DIRECT|O_DSYNC` once [`VfsFile::open_direct`] succeeded, else `pwrite` + `fdatasync`.
//! A power cut during the call may leave any subset of its 512-byte sectors written (the
//! device writes sectors atomically, not multi-block requests); the simulated disk models that.
//!
//! Invariants every implementation keeps:
//! - `write_at` writes the whole buffer or returns an error; it never reports a short write.
//! - After `sync_data` returns `Ok`, the file's bytes and length survive a crash.
//! - A directory entry (create, rename, remove) survives a crash only after `sync_dir` on its
//!   parent returns `Ok`.
//! - A failed sync is never retried to report success: the caller must treat the file as
//!   poisoned (the data written before it may or may not be durable).

use std::path::{Path, PathBuf};
use std::sync::Arc;

mod durable_file;
mod latency;
mod real;
mod sim;

pub use durable_file::{sync_parent_dir, write_file_durably};
pub use latency::LatencyVfs;
pub use real::RealVfs;
pub use sim::{CrashMode, Fault, FaultKind, FaultOp, SimStats, SimVfs};

/// A shared handle to a file system.
pub type VfsRef = Arc<dyn Vfs>;
/// A shared handle to an open file.
pub type FileRef = Arc<dyn VfsFile>;

/// The alignment (offset and length) [`VfsFile::write_durable_at`] requires: 4 KiB, a multiple
/// of the logical block size of common devices (512 B or 4 KiB), which `O_DIRECT` needs.
pub const DURABLE_BLOCK_BYTES: u64 = 4096;

/// How to open a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Open an existing file for reading only.
    Read,
    /// Open an existing file for reading and writing.
    ReadWrite,
    /// Create a new file for reading and writing; fail with `AlreadyExists` if it exists.
    CreateNew,
    /// Open for reading and writing, creating the file if missing (never truncating).
    CreateOrOpen,
}

/// The outcome of [`VfsFile::allocate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    /// The file system reserved the blocks without writing them (Linux `fallocate`).
    Allocated,
    /// The file system cannot reserve blocks without zero-filling them; nothing was done.
    Unsupported,
}

/// A file system: files, directories and the operations whose durability matters.
pub trait Vfs: Send + Sync + std::fmt::Debug {
    /// Opens `path` in `mode`.
    fn open(&self, path: &Path, mode: OpenMode) -> Result<FileRef>;
    /// Renames `from` to `to`, replacing `to` atomically if it exists. Durable only after
    /// `sync_dir` of both parents.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Removes a file. Durable only after `sync_dir` of its parent.
    fn remove_file(&self, path: &Path) -> Result<()>;
    /// Creates a directory and its parents (durably: parents are synced).
    fn create_dir_all(&self, path: &Path) -> Result<()>;
    /// The names of the entries of a directory, sorted.
    fn list_dir(&self, path: &Path) -> Result<Vec<PathBuf>>;
    /// Whether `path` exists.
    fn exists(&self, path: &Path) -> Result<bool>;
    /// Makes the directory's entries durable (fsync of the directory).
    fn sync_dir(&self, path: &Path) -> Result<()>;
    /// Seconds since the Unix epoch at which `path` was last modified.
    fn modified_unix_secs(&self, path: &Path) -> Result<u64>;
}

/// An open file. Positions are explicit, so one handle can be shared by a writer and readers.
// A file length is always asked as a number (positions are compared with it), never as emptiness.
#[allow(clippy::len_without_is_empty)]
pub trait VfsFile: Send + Sync + std::fmt::Debug {
    /// Reads up to `buf.len()` bytes at `offset`; returns how many were read (0 at the end).
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize>;
    /// Writes all of `buf` at `offset`, extending the file if needed.
    fn write_at(&self, buf: &[u8], offset: u64) -> Result<()>;
    /// Makes the file's data and length durable (`fdatasync`).
    fn sync_data(&self) -> Result<()>;
    /// Makes later [`write_durable_at`](Self::write_durable_at) calls use direct, synchronous
    /// I/O (Linux `O_DIRECT|O_DSYNC` on a second descriptor). Returns `false` when the file
    /// system refuses it (tmpfs: EINVAL), in which case durable writes stay `pwrite` +
    /// `fdatasync`. Idempotent.
    fn open_direct(&self) -> Result<bool> {
        Ok(false)
    }
    /// Writes all of `buf` at `offset` and returns `Ok` only once those bytes are durable (no
    /// `sync_data` needed). `offset` and `buf.len()` must be multiples of
    /// [`DURABLE_BLOCK_BYTES`] (EINVAL otherwise); the buffer itself needs no alignment. Meant
    /// for overwriting blocks already allocated and initialized, so no metadata has to change.
    /// On an error, or a power cut during the call, any subset of the range's sectors may have
    /// been written. Writes made by `write_at` before it are not made durable by it.
    fn write_durable_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        check_durable_alignment(buf.len(), offset, self.path())?;
        self.write_at(buf, offset)?;
        self.sync_data()
    }
    /// The file's current length in bytes.
    fn len(&self) -> Result<u64>;
    /// Sets the file's length: truncates, or extends with zeros (not durable until synced).
    fn set_len(&self, len: u64) -> Result<()>;
    /// Reserves blocks up to `len` bytes without writing them and without changing what reads
    /// return; the file's length becomes at least `len`.
    fn allocate(&self, len: u64) -> Result<Allocation>;
    /// The path this file was opened with (for messages).
    fn path(&self) -> &Path;

    /// Reads exactly `buf.len()` bytes at `offset`, or fails with `UnexpectedEof`.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        let mut done = 0;
        while done < buf.len() {
            let n = self.read_at(&mut buf[done..], offset + done as u64)?;
            if n == 0 {
                return Err(Error::new(
                    "read",
                    self.path(),
                    std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
                ));
            }
            done += n;
        }
        Ok(())
    }
}

/// EINVAL unless `offset` and `len` are multiples of [`DURABLE_BLOCK_BYTES`].
pub(crate) fn check_durable_alignment(len: usize, offset: u64, path: &Path) -> Result<()> {
    if offset.is_multiple_of(DURABLE_BLOCK_BYTES)
        && (len as u64).is_multiple_of(DURABLE_BLOCK_BYTES)
    {
        Ok(())
    } else {
        Err(Error::new(
            "pwrite (durable)",
            path,
            std::io::Error::from_raw_os_error(rustix::io::Errno::INVAL.raw_os_error()),
        ))
    }
}

/// A failed file operation: what was attempted, on which path, and the OS error.
#[derive(Debug, thiserror::Error)]
#[error("{op} {}: {source}", path.display())]
pub struct Error {
    /// The operation, e.g. "fdatasync".
    pub op: &'static str,
    /// The file or directory.
    pub path: PathBuf,
    /// The underlying error (an injected one on the simulated disk).
    #[source]
    pub source: std::io::Error,
}

impl Error {
    pub fn new(op: &'static str, path: &Path, source: std::io::Error) -> Self {
        Error { op, path: path.to_path_buf(), source }
    }

    /// The kind of the underlying I/O error.
    pub fn kind(&self) -> std::io::ErrorKind {
        self.source.kind()
    }

    /// True when the device is full (ENOSPC): a clean, reportable condition.
    pub fn is_no_space(&self) -> bool {
        self.source.kind() == std::io::ErrorKind::StorageFull
    }

    /// True when the simulated disk lost power under this operation, or the handle used was
    /// opened before a simulated crash: the process is "dead" and must stop, not recover.
    pub fn is_crashed(&self) -> bool {
        self.source.get_ref().is_some_and(|e| e.is::<sim::Crashed>())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
