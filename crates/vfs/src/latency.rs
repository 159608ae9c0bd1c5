//! A wrapper that makes every flush of any [`Vfs`] slow, to stand in for a slower device.
//!
//! Each `sync_data`, `write_durable_at` and `sync_dir` through a [`LatencyVfs`] sleeps for the configured latency
//! before calling the wrapped file system. The sleeps of one wrapper happen one after another
//! (a single device queue), so the wrapper caps the flush rate at `1 / latency` whatever the
//! number of threads — the way an HDD (~150 fsync/s) or a consumer SSD (~1 200 fsync/s) bounds
//! the syncs of a whole server, which is what group commit amortizes.
//!
//! The latency can be changed while files are open (it is shared by every clone and every file
//! opened through the wrapper). Zero latency adds no sleep and no serialization.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{Allocation, FileRef, OpenMode, Result, Vfs, VfsFile, VfsRef};

#[derive(Debug, Default)]
struct Device {
    sync_latency_ns: AtomicU64,
    /// Held while sleeping: one flush at a time.
    queue: Mutex<()>,
}

impl Device {
    fn flush_delay(&self) {
        let ns = self.sync_latency_ns.load(Ordering::Relaxed);
        if ns == 0 {
            return;
        }
        // A poisoned queue only means another thread panicked while sleeping; the queue
        // protects no data, so go on.
        let _turn = self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        std::thread::sleep(Duration::from_nanos(ns));
    }
}

/// Wraps a [`VfsRef`], adding a delay to every flush. Clones share the latency setting.
#[derive(Debug, Clone)]
pub struct LatencyVfs {
    inner: VfsRef,
    device: Arc<Device>,
}

impl LatencyVfs {
    /// Wraps `inner`; each flush will take at least `sync_latency`.
    pub fn new(inner: VfsRef, sync_latency: Duration) -> Self {
        let wrapper = LatencyVfs { inner, device: Arc::new(Device::default()) };
        wrapper.set_sync_latency(sync_latency);
        wrapper
    }

    /// Changes the delay of every later flush (through this wrapper, its clones and its files).
    pub fn set_sync_latency(&self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        self.device.sync_latency_ns.store(ns, Ordering::Relaxed);
    }

    /// The current delay per flush.
    pub fn sync_latency(&self) -> Duration {
        Duration::from_nanos(self.device.sync_latency_ns.load(Ordering::Relaxed))
    }

    /// This wrapper as the shared trait object the layers above take.
    pub fn shared(&self) -> VfsRef {
        Arc::new(self.clone())
    }
}

#[derive(Debug)]
struct LatencyFile {
    inner: FileRef,
    device: Arc<Device>,
}

impl Vfs for LatencyVfs {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<FileRef> {
        let inner = self.inner.open(path, mode)?;
        Ok(Arc::new(LatencyFile { inner, device: Arc::clone(&self.device) }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        self.inner.remove_file(path)
    }

    fn create_dir_all(&self, path: &Path) -> Result<()> {
        self.inner.create_dir_all(path)
    }

    fn list_dir(&self, path: &Path) -> Result<Vec<PathBuf>> {
        self.inner.list_dir(path)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        self.inner.exists(path)
    }

    fn sync_dir(&self, path: &Path) -> Result<()> {
        self.device.flush_delay();
        self.inner.sync_dir(path)
    }

    fn modified_unix_secs(&self, path: &Path) -> Result<u64> {
        self.inner.modified_unix_secs(path)
    }
}

impl VfsFile for LatencyFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        self.inner.read_at(buf, offset)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        self.inner.write_at(buf, offset)
    }

    fn sync_data(&self) -> Result<()> {
        self.device.flush_delay();
        self.inner.sync_data()
    }

    fn open_direct(&self) -> Result<bool> {
        self.inner.open_direct()
    }

    /// A durable write is a flush: it waits its turn on the device like `sync_data`.
    fn write_durable_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        self.device.flush_delay();
        self.inner.write_durable_at(buf, offset)
    }

    fn len(&self) -> Result<u64> {
        self.inner.len()
    }

    fn set_len(&self, len: u64) -> Result<()> {
        self.inner.set_len(len)
    }

    fn allocate(&self, len: u64) -> Result<Allocation> {
        self.inner.allocate(len)
    }

    fn path(&self) -> &Path {
        self.inner.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimVfs;
    use std::time::Instant;

    #[test]
    fn passes_operations_through_and_delays_flushes() {
        let sim = SimVfs::new();
        let vfs = LatencyVfs::new(sim.shared(), Duration::ZERO);
        vfs.create_dir_all(Path::new("/d")).expect("mkdir");
        let f = vfs.open(Path::new("/d/f"), OpenMode::CreateNew).expect("create");
        f.write_at(b"abc", 0).expect("write");
        vfs.set_sync_latency(Duration::from_millis(5));
        assert_eq!(vfs.sync_latency(), Duration::from_millis(5));
        let started = Instant::now();
        f.sync_data().expect("sync");
        vfs.sync_dir(Path::new("/d")).expect("sync dir");
        // A lower bound only: sleeping never takes less than asked.
        assert!(started.elapsed() >= Duration::from_millis(10));
        assert_eq!(sim.durable_contents("/d/f").as_deref(), Some(&b"abc"[..]));
        assert_eq!(sim.stats().syncs, 1);
    }
}
