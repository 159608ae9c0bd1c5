//! The operating system's files.
//!
//! `fallocate` is the raw Linux syscall (through rustix), not `posix_fallocate`: glibc's
//! `posix_fallocate` silently falls back to writing zeros when the file system cannot reserve
//! blocks, which is exactly the slow path seed 004 warns against. The syscall fails with
//! EOPNOTSUPP instead, and we report [`Allocation::Unsupported`].
//!
//! Durable writes ([`VfsFile::write_durable_at`]): after [`VfsFile::open_direct`], a second
//! descriptor on the same inode (reopened through `/proc/self/fd`, so it follows renames) is
//! opened `O_DIRECT|O_DSYNC`; each durable write is one `pwrite` on it, which returns once the
//! device has the blocks (the kernel adds a cache flush or FUA for `O_DSYNC`, and writes back
//! and invalidates any page-cache pages of the range first, so the buffered descriptor stays
//! coherent). `O_DIRECT` needs the memory buffer aligned too: the bytes are copied into a
//! 4 KiB-aligned region of a scratch vector (a copy of a few KiB, against a device write).

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use crate::{
    check_durable_alignment, Allocation, Error, FileRef, OpenMode, Result, Vfs, VfsFile,
    DURABLE_BLOCK_BYTES,
};

/// The real file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealVfs;

impl RealVfs {
    pub fn new() -> Self {
        RealVfs
    }

    /// A shared handle, as the layers above take it.
    pub fn shared() -> crate::VfsRef {
        Arc::new(RealVfs)
    }
}

#[derive(Debug)]
struct RealFile {
    file: File,
    path: PathBuf,
    /// After `open_direct`: the `O_DIRECT|O_DSYNC` descriptor, or `None` when the file system
    /// refused it (so a refusal costs one `open`, not one per write).
    direct: OnceLock<Option<File>>,
    /// The device refused a direct write's alignment (EINVAL): durable writes use `pwrite` +
    /// `fdatasync` from then on.
    direct_refused: AtomicBool,
}

fn err<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |e| Error::new(op, path, e)
}

impl Vfs for RealVfs {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<FileRef> {
        let mut o = OpenOptions::new();
        match mode {
            OpenMode::Read => o.read(true),
            OpenMode::ReadWrite => o.read(true).write(true),
            OpenMode::CreateNew => o.read(true).write(true).create_new(true),
            OpenMode::CreateOrOpen => o.read(true).write(true).create(true),
        };
        let file = o.open(path).map_err(err("open", path))?;
        Ok(Arc::new(RealFile {
            file,
            path: path.to_path_buf(),
            direct: OnceLock::new(),
            direct_refused: AtomicBool::new(false),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        std::fs::rename(from, to).map_err(err("rename", from))
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(err("remove", path))
    }

    fn create_dir_all(&self, path: &Path) -> Result<()> {
        if path.is_dir() {
            return Ok(());
        }
        std::fs::create_dir_all(path).map_err(err("mkdir", path))?;
        // Make the new entries durable up to the first directory that already existed.
        let mut dir = path.parent();
        while let Some(d) = dir {
            let d = if d.as_os_str().is_empty() { Path::new(".") } else { d };
            self.sync_dir(d)?;
            if d == Path::new(".") || d.parent().is_none() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }

    fn list_dir(&self, path: &Path) -> Result<Vec<PathBuf>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(path).map_err(err("readdir", path))? {
            let entry = entry.map_err(err("readdir", path))?;
            names.push(PathBuf::from(entry.file_name()));
        }
        names.sort();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        path.try_exists().map_err(err("stat", path))
    }

    fn sync_dir(&self, path: &Path) -> Result<()> {
        let dir = File::open(path).map_err(err("open dir", path))?;
        dir.sync_all().map_err(err("fsync dir", path))
    }

    fn modified_unix_secs(&self, path: &Path) -> Result<u64> {
        let meta = std::fs::metadata(path).map_err(err("stat", path))?;
        let modified = meta.modified().map_err(err("stat", path))?;
        Ok(modified.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0))
    }
}

impl VfsFile for RealFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        loop {
            match self.file.read_at(buf, offset) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => return r.map_err(err("pread", &self.path)),
            }
        }
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        self.file.write_all_at(buf, offset).map_err(err("pwrite", &self.path))
    }

    fn sync_data(&self) -> Result<()> {
        self.file.sync_data().map_err(err("fdatasync", &self.path))
    }

    fn open_direct(&self) -> Result<bool> {
        if let Some(opened) = self.direct.get() {
            return Ok(opened.is_some() && !self.direct_refused.load(Ordering::Relaxed));
        }
        // libc's constants, not rustix's: rustix's linux_raw backend maps `OFlags::DSYNC` to
        // O_SYNC, whose writes also wait for a journal commit of the inode's timestamps.
        let flags = libc::O_DIRECT | libc::O_DSYNC;
        let proc_path = PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()));
        let opened = OpenOptions::new().write(true).custom_flags(flags).open(&proc_path).or_else(
            |e| match e.raw_os_error() {
                // No /proc: reopen by name (the file was not renamed while we run).
                Some(n) if n == rustix::io::Errno::NOENT.raw_os_error() => {
                    OpenOptions::new().write(true).custom_flags(flags).open(&self.path)
                }
                _ => Err(e),
            },
        );
        match opened {
            Ok(f) => {
                // A concurrent caller may have won; either descriptor is as good.
                let _ = self.direct.set(Some(f));
                Ok(true)
            }
            // The file system does not do direct I/O (tmpfs before Linux 6.6, some FUSE).
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) => {
                let _ = self.direct.set(None);
                Ok(false)
            }
            Err(e) => Err(Error::new("open O_DIRECT|O_DSYNC", &self.path, e)),
        }
    }

    fn write_durable_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        check_durable_alignment(buf.len(), offset, &self.path)?;
        if let Some(Some(direct)) = self.direct.get() {
            if !self.direct_refused.load(Ordering::Relaxed) {
                let block = DURABLE_BLOCK_BYTES as usize;
                let mut scratch = vec![0u8; buf.len() + block];
                let skip = (block - scratch.as_ptr() as usize % block) % block;
                let aligned = &mut scratch[skip..skip + buf.len()];
                aligned.copy_from_slice(buf);
                match direct.write_all_at(aligned, offset) {
                    Ok(()) => return Ok(()),
                    // A device whose logical block is larger than 4 KiB refuses the alignment
                    // before it writes anything (the kernel's direct-I/O alignment check,
                    // `iomap_dio_rw` / `blockdev_direct_IO`); the buffered path serves instead.
                    Err(e) if e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) => {
                        self.direct_refused.store(true, Ordering::Relaxed);
                    }
                    Err(e) => return Err(Error::new("pwrite O_DIRECT|O_DSYNC", &self.path, e)),
                }
            }
        }
        self.write_at(buf, offset)?;
        self.sync_data()
    }

    fn len(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(err("fstat", &self.path))?.len())
    }

    fn set_len(&self, len: u64) -> Result<()> {
        self.file.set_len(len).map_err(err("ftruncate", &self.path))
    }

    fn allocate(&self, len: u64) -> Result<Allocation> {
        let cur = self.len()?;
        if len <= cur {
            return Ok(Allocation::Allocated);
        }
        match rustix::fs::fallocate(&self.file, rustix::fs::FallocateFlags::empty(), cur, len - cur)
        {
            Ok(()) => Ok(Allocation::Allocated),
            Err(e) if e == rustix::io::Errno::OPNOTSUPP || e == rustix::io::Errno::NOSYS => {
                Ok(Allocation::Unsupported)
            }
            Err(e) => Err(Error::new("fallocate", &self.path, e.into())),
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_read_truncate_allocate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vfs = RealVfs::new();
        let p = dir.path().join("f");
        let f = vfs.open(&p, OpenMode::CreateNew).expect("create");
        assert!(vfs.open(&p, OpenMode::CreateNew).is_err(), "create_new must refuse to overwrite");
        f.write_at(b"hello", 0).expect("write");
        f.sync_data().expect("sync");
        let mut buf = [0u8; 5];
        f.read_exact_at(&mut buf, 0).expect("read");
        assert_eq!(&buf, b"hello");
        match f.allocate(4096).expect("allocate") {
            Allocation::Allocated => assert_eq!(f.len().expect("len"), 4096),
            Allocation::Unsupported => assert_eq!(f.len().expect("len"), 5),
        }
        f.read_exact_at(&mut buf, 0).expect("read");
        assert_eq!(&buf, b"hello", "allocation must not change existing bytes");
        f.set_len(3).expect("truncate");
        assert_eq!(f.len().expect("len"), 3);
        let mut big = [0u8; 4];
        assert!(f.read_exact_at(&mut big, 0).is_err());
        vfs.rename(&p, &dir.path().join("g")).expect("rename");
        vfs.sync_dir(dir.path()).expect("sync dir");
        assert_eq!(vfs.list_dir(dir.path()).expect("list"), vec![PathBuf::from("g")]);
    }

    #[test]
    fn durable_writes_direct_or_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vfs = RealVfs::new();
        let f = vfs.open(&dir.path().join("f"), OpenMode::CreateNew).expect("create");
        f.write_at(&[0u8; 3 * 4096], 0).expect("write");
        f.sync_data().expect("sync");
        // Direct I/O or the fallback (tmpfs): either way the same bytes come back.
        let direct = f.open_direct().expect("open_direct");
        assert_eq!(f.open_direct().expect("again"), direct);
        assert!(f.write_durable_at(&[1u8; 100], 0).is_err(), "unaligned length");
        assert!(f.write_durable_at(&[1u8; 4096], 100).is_err(), "unaligned offset");
        let mut data = vec![7u8; 2 * 4096];
        data[4096..].fill(8);
        f.write_durable_at(&data, 4096).expect("durable write");
        let mut back = vec![0u8; 3 * 4096];
        f.read_exact_at(&mut back, 0).expect("read");
        assert_eq!(&back[..4096], &[0u8; 4096][..]);
        assert_eq!(&back[4096..], &data[..], "direct={direct}");
    }
}
