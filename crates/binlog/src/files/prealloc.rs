//! Binlog preallocation (seed 004, WL#4925).
//!
//! Overwriting blocks a file already owns syncs much faster than appending, because an append
//! must also make the new length and block map durable. Two ways to own the blocks up front:
//! - automatic (`binlog_preallocate=1`): a new binlog file is `fallocate`d to
//!   `max_binlog_size` right after it is created. The VFS uses the raw syscall, so file systems
//!   that cannot reserve blocks report [`Allocation::Unsupported`] instead of silently
//!   zero-filling (the slow path WL#4925 warns about); we then skip preallocation and log a
//!   warning once.
//! - static pool: `binlogd alloc` (the server crate) makes `empty.NNNNNN` files in
//!   `<datadir>/pre-allocated-binlog/`, zero-filled if it must, offline. At rotation the lowest
//!   numbered one is renamed to the new binlog name ([`take_from_pool`]) and the header written
//!   over it. The pool is used whatever `binlog_preallocate` says (WL#4925: 0 still "detects
//!   statically preallocated files").
//!
//! A preallocated file is longer than its events; the unused tail is cut at close, and readers
//! of the active file stop at the published synced end, never in the zeros.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use vfs::{Allocation, FileRef, VfsRef};

use super::error::Result;
use super::names;

/// Reserves `size` bytes for `file`. Returns whether the blocks are now reserved. When the
/// file system cannot do it without writing zeros, logs a warning the first time (per
/// `warned` flag) and leaves the file as it is.
pub fn allocate(file: &FileRef, size: u64, warned: &AtomicBool) -> Result<bool> {
    match file.allocate(size)? {
        Allocation::Allocated => Ok(true),
        Allocation::Unsupported => {
            if !warned.swap(true, Ordering::Relaxed) {
                log::warn!(
                    "binlog_preallocate=1 but the file system of {} cannot preallocate without \
                     writing zeros; binlog files will grow by appending (use `binlogd alloc` \
                     to make a static pool)",
                    file.path().display()
                );
            }
            Ok(false)
        }
    }
}

fn pool_file_seq(name: &Path) -> Option<u64> {
    names::parse_seq(names::POOL_BASENAME, name.to_str()?)
}

/// Renames the lowest-numbered pool file of `pool_dir` to `target`; `false` if the pool is
/// missing or empty. The caller writes the header over it and syncs `target`'s directory; the
/// pool directory is synced here so the file is not in both places after a crash.
pub fn take_from_pool(vfs: &VfsRef, pool_dir: &Path, target: &Path) -> Result<bool> {
    if !vfs.exists(pool_dir)? {
        return Ok(false);
    }
    let Some((_, name)) = vfs
        .list_dir(pool_dir)?
        .into_iter()
        .filter_map(|name| pool_file_seq(&name).map(|seq| (seq, name)))
        .min()
    else {
        return Ok(false);
    };
    vfs.rename(&pool_dir.join(&name), target)?;
    if let Some(dir) = target.parent() {
        vfs.sync_dir(dir)?;
    }
    vfs.sync_dir(pool_dir)?;
    log::info!(
        "binlog file {} taken from the preallocated pool ({})",
        target.display(),
        name.display()
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_lowest_pool_file_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vfs = vfs::RealVfs::shared();
        let pool = dir.path().join("pre-allocated-binlog");
        std::fs::create_dir(&pool).expect("mkdir");
        for name in ["empty.000002", "empty.000001", ".empty.000003.tmp", "other.000001"] {
            std::fs::write(pool.join(name), vec![0u8; 8192]).expect("write");
        }
        let target = dir.path().join("binlog.000002");
        assert!(take_from_pool(&vfs, &pool, &target).expect("take"));
        assert_eq!(std::fs::metadata(&target).expect("stat").len(), 8192);
        assert!(!pool.join("empty.000001").exists(), "lowest pool file used first");
        let target = dir.path().join("binlog.000003");
        assert!(take_from_pool(&vfs, &pool, &target).expect("take"));
        assert!(!pool.join("empty.000002").exists());
        let target = dir.path().join("binlog.000004");
        assert!(!take_from_pool(&vfs, &pool, &target).expect("only strangers left"));
        assert!(!take_from_pool(&vfs, &dir.path().join("nope"), &target).expect("no pool"));
    }
}
