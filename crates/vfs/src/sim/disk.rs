//! The state of one simulated disk, behind the [`SimVfs`](super::SimVfs) mutex.
//!
//! Data (per inode): `current` is what reads see (the page cache); `durable` is what the platter
//! holds; `pending` lists the data operations since the last successful sync, oldest first.
//! A sync replays `pending` onto `durable` (it does not copy `current`), so that writes lost by a
//! failed sync stay readable but never become durable — Linux's behaviour since 4.13: after a
//! writeback error the pages are marked clean and a later fsync returns success.
//!
//! Durable writes (`write_durable`, the simulated `O_DIRECT|O_DSYNC`) are applied to `current`
//! and pushed on `pending` as [`DataOp::DurableWrite`]: they count as durable whatever a crash
//! or a failed sync does to the buffered operations around them, and keep their place in the
//! order (a buffered write before one is replayed under it, one after it over it). A durable
//! write cut by the power (or failed with EIO) is kept apart as the inode's `interrupted`
//! write: at the crash none, all, or (`Tear`) a random subset of its 512-byte sectors lands.
//!
//! Namespace: `files` maps each current path to its inode; `durable_files` is the map a crash
//! falls back to; `pending_ns` lists the namespace changes since, oldest first, each an atomic
//! group (a rename is one group: new name set, old name cleared). `sync_dir(d)` moves the changes
//! whose parent is `d` into `durable_files`, in order. Changes to one path all share one parent,
//! so applying them per directory keeps their order.
//!
//! Directories are made durable when created (`create_dir_all` promises that) and are never
//! removed; the roots (`/`, `` and `.`) always exist.
//!
//! Invariants:
//! - With no failed sync since the last successful one, replaying `pending` onto `durable` gives
//!   `current`; replaying `pending_ns` onto `durable_files` gives `files`.
//! - Every inode named by `files` or `durable_files` is in `inodes`; inodes named by neither are
//!   dropped at the next crash (open handles keep working on them until then, as on Unix).
//! - `epoch` grows by one at each crash; a handle works only while its epoch is the disk's and
//!   the power is on.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use rustix::io::Errno;

use super::{CrashMode, Fault, FaultKind, FaultOp, SimStats};

/// The error every operation returns once the power is lost or the handle predates a crash.
#[derive(Debug)]
pub(crate) struct Crashed;

impl std::fmt::Display for Crashed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("simulated power loss: the disk crashed under this handle")
    }
}

impl std::error::Error for Crashed {}

pub(super) fn crashed() -> io::Error {
    io::Error::other(Crashed)
}

pub(super) fn errno(e: Errno) -> io::Error {
    e.into()
}

/// A data operation not yet durable.
#[derive(Debug, Clone)]
pub(super) enum DataOp {
    Write {
        offset: u64,
        bytes: Vec<u8>,
    },
    SetLen(u64),
    /// `fallocate` to this length: extends with zeros, never shrinks.
    Allocate(u64),
    /// A write that returned `Ok` from `write_durable`: durable already, kept here for order.
    DurableWrite {
        offset: u64,
        bytes: Vec<u8>,
    },
}

/// The simulated device's sector: a torn write keeps whole sectors only.
pub(super) const SECTOR_SIZE: u64 = 512;

impl DataOp {
    fn apply(&self, data: &mut Vec<u8>) {
        match self {
            DataOp::Write { offset, bytes } | DataOp::DurableWrite { offset, bytes } => {
                write_bytes(data, *offset, bytes)
            }
            DataOp::SetLen(len) => data.resize(to_usize(*len), 0),
            DataOp::Allocate(len) => {
                if to_usize(*len) > data.len() {
                    data.resize(to_usize(*len), 0);
                }
            }
        }
    }

    /// Applies the part of this operation a power cut in its middle leaves: for a write, the
    /// bytes up to a sector boundary chosen by `rng` (possibly none); other operations are
    /// atomic and leave nothing; a durable write had completed, so all of it stays.
    fn apply_torn(&self, data: &mut Vec<u8>, rng: &mut SplitMix64) {
        if let DataOp::DurableWrite { .. } = self {
            return self.apply(data);
        }
        if let DataOp::Write { offset, bytes } = self {
            let end = offset + bytes.len() as u64;
            let first_boundary = (offset / SECTOR_SIZE + 1) * SECTOR_SIZE;
            let boundaries =
                if first_boundary < end { (end - 1 - first_boundary) / SECTOR_SIZE + 1 } else { 0 };
            let pick = rng.below(boundaries + 1);
            if pick > 0 {
                let cut = first_boundary + (pick - 1) * SECTOR_SIZE;
                write_bytes(data, *offset, &bytes[..to_usize(cut - offset)]);
            }
        }
    }
}

/// Lands what `mode` says of a durable write in flight at the power cut: nothing
/// (`DropUnsynced`), everything (`KeepAll`), or each 512-byte sector with even odds (`Tear`) —
/// a device writes a sector atomically but a multi-sector request in any order.
fn apply_interrupted(
    data: &mut Vec<u8>,
    offset: u64,
    bytes: &[u8],
    mode: CrashMode,
    rng: &mut SplitMix64,
) {
    match mode {
        CrashMode::DropUnsynced => {}
        CrashMode::KeepAll => write_bytes(data, offset, bytes),
        CrashMode::Tear { .. } => {
            for (i, sector) in bytes.chunks(SECTOR_SIZE as usize).enumerate() {
                if rng.below(2) == 1 {
                    write_bytes(data, offset + i as u64 * SECTOR_SIZE, sector);
                }
            }
        }
    }
}

/// Lengths and offsets are checked against `usize` when the operation is accepted
/// (`checked_end`), so this conversion cannot fail afterwards.
fn to_usize(n: u64) -> usize {
    usize::try_from(n).expect("offsets are checked to fit usize when an operation is accepted")
}

fn write_bytes(data: &mut Vec<u8>, offset: u64, bytes: &[u8]) {
    let start = to_usize(offset);
    let end = start + bytes.len();
    if end > data.len() {
        data.resize(end, 0);
    }
    data[start..end].copy_from_slice(bytes);
}

/// `offset + len` if it fits the address space of the simulated (in-memory) file, else EFBIG.
fn checked_end(offset: u64, len: usize) -> io::Result<u64> {
    offset
        .checked_add(len as u64)
        .filter(|end| usize::try_from(*end).is_ok())
        .ok_or_else(|| errno(Errno::FBIG))
}

#[derive(Debug, Default)]
pub(super) struct Inode {
    current: Vec<u8>,
    durable: Vec<u8>,
    pending: Vec<DataOp>,
    modified_unix_secs: u64,
    syncs: u64,
    /// A durable write the power cut (or an EIO failed): `(offset, bytes)`.
    interrupted: Option<(u64, Vec<u8>)>,
}

impl Inode {
    fn push(&mut self, op: DataOp, now: u64) {
        op.apply(&mut self.current);
        self.pending.push(op);
        self.modified_unix_secs = now;
    }

    /// What a crash with nothing kept would leave: the synced bytes and the durable writes.
    fn durable_now(&self) -> Vec<u8> {
        let mut data = self.durable.clone();
        for op in &self.pending {
            if let DataOp::DurableWrite { .. } = op {
                op.apply(&mut data);
            }
        }
        data
    }

    fn crash(&mut self, mode: CrashMode, rng: &mut SplitMix64) {
        let keep = match mode {
            CrashMode::DropUnsynced => 0,
            CrashMode::KeepAll => self.pending.len(),
            CrashMode::Tear { .. } => to_usize(rng.below(self.pending.len() as u64 + 1)),
        };
        for op in &self.pending[..keep] {
            op.apply(&mut self.durable);
        }
        if let (CrashMode::Tear { .. }, Some(cut)) = (mode, self.pending.get(keep)) {
            cut.apply_torn(&mut self.durable, rng);
        }
        // Durable writes past the kept prefix landed anyway (the cut one, if durable, above).
        let skip = if matches!(mode, CrashMode::Tear { .. }) { keep + 1 } else { keep };
        for op in self.pending.iter().skip(skip) {
            if let DataOp::DurableWrite { .. } = op {
                op.apply(&mut self.durable);
            }
        }
        if let Some((offset, bytes)) = self.interrupted.take() {
            apply_interrupted(&mut self.durable, offset, &bytes, mode, rng);
        }
        self.pending.clear();
        self.current = self.durable.clone();
    }
}

/// A group of namespace changes that reach the disk together: `(path, Some(inode))` names an
/// inode, `(path, None)` removes the name.
#[derive(Debug)]
struct NsOp {
    changes: Vec<(PathBuf, Option<u64>)>,
}

#[derive(Debug)]
struct ArmedFault {
    fault: Fault,
    seen: u64,
}

/// SplitMix64: a tiny seeded generator, so that a tear seed replays identically forever
/// (independent of any crate's algorithm choices).
pub(super) struct SplitMix64(u64);

impl SplitMix64 {
    pub(super) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0); the modulo bias is irrelevant for tests.
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

#[derive(Debug)]
pub(super) struct Disk {
    pub(super) epoch: u64,
    power_lost: bool,
    crash_at: Option<u64>,
    op_count: u64,
    now_unix_secs: u64,
    capacity: Option<u64>,
    allocate_supported: bool,
    direct_supported: bool,
    faults: Vec<ArmedFault>,
    next_inode: u64,
    inodes: BTreeMap<u64, Inode>,
    dirs: BTreeMap<PathBuf, u64>,
    files: BTreeMap<PathBuf, u64>,
    durable_files: BTreeMap<PathBuf, u64>,
    pending_ns: Vec<NsOp>,
    stats: SimStats,
}

fn is_root(path: &Path) -> bool {
    path.parent().is_none() || path == Path::new(".")
}

fn parent_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new(""))
}

impl Disk {
    pub(super) fn new() -> Self {
        Disk {
            epoch: 0,
            power_lost: false,
            crash_at: None,
            op_count: 0,
            now_unix_secs: 0,
            capacity: None,
            allocate_supported: true,
            direct_supported: true,
            faults: Vec::new(),
            next_inode: 1,
            inodes: BTreeMap::new(),
            dirs: BTreeMap::new(),
            files: BTreeMap::new(),
            durable_files: BTreeMap::new(),
            pending_ns: Vec::new(),
            stats: SimStats::default(),
        }
    }

    // ---- control (test side) ----

    pub(super) fn op_count(&self) -> u64 {
        self.op_count
    }

    pub(super) fn set_crash_at(&mut self, op: u64) {
        self.crash_at = Some(op);
    }

    pub(super) fn power_lost(&self) -> bool {
        self.power_lost
    }

    pub(super) fn inject(&mut self, fault: Fault) {
        self.faults.push(ArmedFault { fault, seen: 0 });
    }

    pub(super) fn clear_faults(&mut self) {
        self.faults.clear();
    }

    pub(super) fn set_capacity(&mut self, bytes: Option<u64>) {
        self.capacity = bytes;
    }

    pub(super) fn set_allocate_supported(&mut self, supported: bool) {
        self.allocate_supported = supported;
    }

    pub(super) fn set_direct_supported(&mut self, supported: bool) {
        self.direct_supported = supported;
    }

    pub(super) fn direct_supported(&self, epoch: u64) -> io::Result<bool> {
        self.check_alive(epoch)?;
        Ok(self.direct_supported)
    }

    pub(super) fn set_now(&mut self, secs: u64) {
        self.now_unix_secs = secs;
    }

    pub(super) fn stats(&self) -> SimStats {
        self.stats
    }

    /// Bytes in use: the current lengths of the files the current namespace names (no sparse
    /// files: every byte within a file's length counts).
    pub(super) fn used_bytes(&self) -> u64 {
        let live: BTreeSet<u64> = self.files.values().copied().collect();
        live.iter().filter_map(|id| self.inodes.get(id)).map(|i| i.current.len() as u64).sum()
    }

    pub(super) fn contents(&self, path: &Path) -> Option<Vec<u8>> {
        self.files.get(path).and_then(|id| self.inodes.get(id)).map(|i| i.current.clone())
    }

    pub(super) fn durable_contents(&self, path: &Path) -> Option<Vec<u8>> {
        self.durable_files.get(path).and_then(|id| self.inodes.get(id)).map(Inode::durable_now)
    }

    pub(super) fn sync_count(&self, path: &Path) -> Option<u64> {
        self.files.get(path).and_then(|id| self.inodes.get(id)).map(|i| i.syncs)
    }

    /// The power cut: keeps what `mode` says of the non-durable state, drops the rest, and
    /// starts a new epoch (killing every older handle). Crash point and faults are disarmed.
    pub(super) fn crash(&mut self, mode: CrashMode) {
        let mut rng = SplitMix64::new(match mode {
            CrashMode::Tear { seed } => seed,
            CrashMode::DropUnsynced | CrashMode::KeepAll => 0,
        });
        let keep_ns = match mode {
            CrashMode::DropUnsynced => 0,
            CrashMode::KeepAll => self.pending_ns.len(),
            CrashMode::Tear { .. } => to_usize(rng.below(self.pending_ns.len() as u64 + 1)),
        };
        for op in self.pending_ns.drain(..).take(keep_ns) {
            for (path, entry) in op.changes {
                match entry {
                    Some(id) => self.durable_files.insert(path, id),
                    None => self.durable_files.remove(&path),
                };
            }
        }
        self.files = self.durable_files.clone();
        let live: BTreeSet<u64> = self.files.values().copied().collect();
        self.inodes.retain(|id, _| live.contains(id));
        for inode in self.inodes.values_mut() {
            inode.crash(mode, &mut rng);
        }
        self.epoch += 1;
        self.power_lost = false;
        self.crash_at = None;
        self.faults.clear();
    }

    // ---- checks every operation makes ----

    pub(super) fn check_alive(&self, epoch: u64) -> io::Result<()> {
        if self.power_lost || epoch != self.epoch {
            return Err(crashed());
        }
        Ok(())
    }

    /// Starts a durability-relevant operation: numbers it, cuts the power if it is the crash
    /// point, and fires a matching injected fault. Called after the arguments are validated, so
    /// an operation that fails for a caller's mistake is not numbered.
    fn begin_op(&mut self, epoch: u64, op: FaultOp, paths: &[&Path]) -> io::Result<()> {
        self.count_op(epoch)?;
        self.fire_fault(op, paths)
    }

    /// Numbers an operation, or cuts the power if it is the crash point.
    fn count_op(&mut self, epoch: u64) -> io::Result<()> {
        self.check_alive(epoch)?;
        if self.crash_at.is_some_and(|k| self.op_count >= k) {
            self.power_lost = true;
            return Err(crashed());
        }
        self.op_count += 1;
        Ok(())
    }

    /// Counts `op` against every armed fault that matches it; the first that reaches its `nth`
    /// match fails the operation (and every fault that fired is disarmed).
    fn fire_fault(&mut self, op: FaultOp, paths: &[&Path]) -> io::Result<()> {
        let mut fired: Option<FaultKind> = None;
        self.faults.retain_mut(|armed| {
            let f = &armed.fault;
            let path_matches = f.path.as_deref().is_none_or(|needle| {
                paths.iter().any(|p| p.as_os_str().to_string_lossy().contains(needle))
            });
            if f.op != op || !path_matches {
                return true;
            }
            armed.seen += 1;
            if armed.seen < f.nth.max(1) {
                return true;
            }
            fired.get_or_insert(f.kind);
            false
        });
        match fired {
            None => Ok(()),
            Some(FaultKind::Eio) => Err(errno(Errno::IO)),
            Some(FaultKind::Enospc) => Err(errno(Errno::NOSPC)),
        }
    }

    fn check_capacity(&self, growth: u64) -> io::Result<()> {
        match self.capacity {
            Some(cap) if growth > 0 && self.used_bytes() + growth > cap => Err(errno(Errno::NOSPC)),
            _ => Ok(()),
        }
    }

    fn is_dir(&self, path: &Path) -> bool {
        is_root(path) || self.dirs.contains_key(path)
    }

    fn inode(&self, id: u64) -> io::Result<&Inode> {
        self.inodes.get(&id).ok_or_else(|| errno(Errno::STALE))
    }

    fn inode_mut(&mut self, id: u64) -> io::Result<&mut Inode> {
        self.inodes.get_mut(&id).ok_or_else(|| errno(Errno::STALE))
    }

    fn touch_dir(&mut self, dir: &Path) {
        if let Some(m) = self.dirs.get_mut(dir) {
            *m = self.now_unix_secs;
        }
    }

    // ---- namespace operations ----

    /// Opens `path`, creating it when `create` and it is missing (failing if it exists and
    /// `exclusive`). Returns the inode.
    pub(super) fn open(
        &mut self,
        epoch: u64,
        path: &Path,
        create: bool,
        exclusive: bool,
    ) -> io::Result<u64> {
        self.check_alive(epoch)?;
        if self.is_dir(path) {
            return Err(errno(Errno::ISDIR));
        }
        if let Some(&id) = self.files.get(path) {
            if exclusive {
                return Err(errno(Errno::EXIST));
            }
            return Ok(id);
        }
        if !create {
            return Err(errno(Errno::NOENT));
        }
        let parent = parent_of(path);
        if !self.is_dir(parent) {
            return Err(errno(if self.files.contains_key(parent) {
                Errno::NOTDIR
            } else {
                Errno::NOENT
            }));
        }
        self.begin_op(epoch, FaultOp::Create, &[path])?;
        let id = self.next_inode;
        self.next_inode += 1;
        self.inodes
            .insert(id, Inode { modified_unix_secs: self.now_unix_secs, ..Inode::default() });
        self.files.insert(path.to_path_buf(), id);
        self.pending_ns.push(NsOp { changes: vec![(path.to_path_buf(), Some(id))] });
        self.touch_dir(parent);
        self.stats.creates += 1;
        Ok(id)
    }

    pub(super) fn rename(&mut self, epoch: u64, from: &Path, to: &Path) -> io::Result<()> {
        self.check_alive(epoch)?;
        let id = match self.files.get(from) {
            Some(&id) => id,
            None if self.is_dir(from) => return Err(errno(Errno::ISDIR)),
            None => return Err(errno(Errno::NOENT)),
        };
        if self.is_dir(to) {
            return Err(errno(Errno::ISDIR));
        }
        if !self.is_dir(parent_of(to)) {
            return Err(errno(Errno::NOENT));
        }
        self.begin_op(epoch, FaultOp::Rename, &[from, to])?;
        self.stats.renames += 1;
        if from == to {
            return Ok(());
        }
        self.files.remove(from);
        self.files.insert(to.to_path_buf(), id);
        self.pending_ns
            .push(NsOp { changes: vec![(to.to_path_buf(), Some(id)), (from.to_path_buf(), None)] });
        self.touch_dir(parent_of(from));
        self.touch_dir(parent_of(to));
        Ok(())
    }

    pub(super) fn remove(&mut self, epoch: u64, path: &Path) -> io::Result<()> {
        self.check_alive(epoch)?;
        if !self.files.contains_key(path) {
            return Err(errno(if self.is_dir(path) { Errno::ISDIR } else { Errno::NOENT }));
        }
        self.begin_op(epoch, FaultOp::Remove, &[path])?;
        self.files.remove(path);
        self.pending_ns.push(NsOp { changes: vec![(path.to_path_buf(), None)] });
        self.touch_dir(parent_of(path));
        self.stats.removes += 1;
        Ok(())
    }

    pub(super) fn create_dir_all(&mut self, epoch: u64, path: &Path) -> io::Result<()> {
        self.check_alive(epoch)?;
        let missing: Vec<&Path> =
            path.ancestors().take_while(|p| !self.is_dir(p)).collect::<Vec<_>>();
        if missing.iter().any(|p| self.files.contains_key(*p)) {
            return Err(errno(Errno::NOTDIR));
        }
        let now = self.now_unix_secs;
        for dir in missing {
            self.dirs.insert(dir.to_path_buf(), now);
        }
        Ok(())
    }

    pub(super) fn list_dir(&self, epoch: u64, dir: &Path) -> io::Result<Vec<PathBuf>> {
        self.check_alive(epoch)?;
        if !self.is_dir(dir) {
            return Err(errno(if self.files.contains_key(dir) {
                Errno::NOTDIR
            } else {
                Errno::NOENT
            }));
        }
        let names: BTreeSet<PathBuf> = self
            .files
            .keys()
            .chain(self.dirs.keys())
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(PathBuf::from))
            .collect();
        Ok(names.into_iter().collect())
    }

    pub(super) fn exists(&self, epoch: u64, path: &Path) -> io::Result<bool> {
        self.check_alive(epoch)?;
        Ok(self.files.contains_key(path) || self.is_dir(path))
    }

    pub(super) fn sync_dir(&mut self, epoch: u64, dir: &Path) -> io::Result<()> {
        self.check_alive(epoch)?;
        if !self.is_dir(dir) {
            return Err(errno(Errno::NOENT));
        }
        self.begin_op(epoch, FaultOp::SyncDir, &[dir])?;
        for op in &mut self.pending_ns {
            op.changes.retain(|(path, entry)| {
                if parent_of(path) != dir {
                    return true;
                }
                match entry {
                    Some(id) => self.durable_files.insert(path.clone(), *id),
                    None => self.durable_files.remove(path),
                };
                false
            });
        }
        self.pending_ns.retain(|op| !op.changes.is_empty());
        self.stats.dir_syncs += 1;
        Ok(())
    }

    pub(super) fn modified_unix_secs(&self, epoch: u64, path: &Path) -> io::Result<u64> {
        self.check_alive(epoch)?;
        if let Some(&id) = self.files.get(path) {
            return Ok(self.inode(id)?.modified_unix_secs);
        }
        if let Some(&secs) = self.dirs.get(path) {
            return Ok(secs);
        }
        if is_root(path) {
            return Ok(self.now_unix_secs);
        }
        Err(errno(Errno::NOENT))
    }

    // ---- data operations ----

    pub(super) fn read(
        &mut self,
        epoch: u64,
        id: u64,
        path: &Path,
        buf: &mut [u8],
        offset: u64,
    ) -> io::Result<usize> {
        self.check_alive(epoch)?;
        self.fire_fault(FaultOp::Read, &[path])?;
        let data = &self.inode(id)?.current;
        let Ok(start) = usize::try_from(offset) else { return Ok(0) };
        if start >= data.len() {
            return Ok(0);
        }
        let n = buf.len().min(data.len() - start);
        buf[..n].copy_from_slice(&data[start..start + n]);
        Ok(n)
    }

    pub(super) fn write(
        &mut self,
        epoch: u64,
        id: u64,
        path: &Path,
        bytes: &[u8],
        offset: u64,
    ) -> io::Result<()> {
        self.check_alive(epoch)?;
        let end = checked_end(offset, bytes.len())?;
        self.begin_op(epoch, FaultOp::Write, &[path])?;
        self.push_write(id, end, bytes, |bytes| DataOp::Write { offset, bytes })
    }

    /// The part of a write after its faults: the capacity check, the pending operation that
    /// `op` makes of the bytes, and the counters.
    fn push_write(
        &mut self,
        id: u64,
        end: u64,
        bytes: &[u8],
        op: impl FnOnce(Vec<u8>) -> DataOp,
    ) -> io::Result<()> {
        let len = self.inode(id)?.current.len() as u64;
        self.check_capacity(end.saturating_sub(len))?;
        let now = self.now_unix_secs;
        if !bytes.is_empty() {
            self.inode_mut(id)?.push(op(bytes.to_vec()), now);
        }
        self.stats.writes += 1;
        self.stats.bytes_written += bytes.len() as u64;
        Ok(())
    }

    /// Replays the pending operations onto the durable bytes. An injected failure drops them
    /// instead: they stay readable but can never become durable (see the module docs).
    pub(super) fn sync(&mut self, epoch: u64, id: u64, path: &Path) -> io::Result<()> {
        self.check_alive(epoch)?;
        self.inode(id)?;
        // Power lost before the flush: nothing reached the disk and nothing is discarded.
        self.count_op(epoch)?;
        let outcome = self.fire_fault(FaultOp::Sync, &[path]);
        let inode = self.inode_mut(id)?;
        let pending = std::mem::take(&mut inode.pending);
        for op in &pending {
            // A failed sync loses the buffered writes, never the durable ones.
            if outcome.is_ok() || matches!(op, DataOp::DurableWrite { .. }) {
                op.apply(&mut inode.durable);
            }
        }
        if outcome.is_ok() {
            inode.syncs += 1;
            self.stats.syncs += 1;
        }
        outcome
    }

    /// The simulated `O_DIRECT|O_DSYNC` write: one numbered operation that both `Write` and
    /// `Sync` faults match. On `Ok` the bytes are durable; cut by the power or failed with EIO,
    /// the write is kept as the inode's interrupted write (see the module docs); ENOSPC changes
    /// nothing.
    pub(super) fn write_durable(
        &mut self,
        epoch: u64,
        id: u64,
        path: &Path,
        bytes: &[u8],
        offset: u64,
    ) -> io::Result<()> {
        self.check_alive(epoch)?;
        let end = checked_end(offset, bytes.len())?;
        self.inode(id)?;
        let outcome = self
            .count_op(epoch)
            .and_then(|()| self.fire_fault(FaultOp::Write, &[path]))
            .and_then(|()| self.fire_fault(FaultOp::Sync, &[path]));
        if let Err(e) = outcome {
            if self.power_lost || e.raw_os_error() == Some(Errno::IO.raw_os_error()) {
                self.inode_mut(id)?.interrupted = Some((offset, bytes.to_vec()));
            }
            return Err(e);
        }
        self.push_write(id, end, bytes, |bytes| DataOp::DurableWrite { offset, bytes })?;
        self.stats.durable_writes += 1;
        Ok(())
    }

    pub(super) fn len(&self, epoch: u64, id: u64) -> io::Result<u64> {
        self.check_alive(epoch)?;
        Ok(self.inode(id)?.current.len() as u64)
    }

    pub(super) fn set_len(&mut self, epoch: u64, id: u64, path: &Path, len: u64) -> io::Result<()> {
        self.check_alive(epoch)?;
        checked_end(len, 0)?;
        self.begin_op(epoch, FaultOp::SetLen, &[path])?;
        let cur = self.inode(id)?.current.len() as u64;
        self.check_capacity(len.saturating_sub(cur))?;
        let now = self.now_unix_secs;
        self.inode_mut(id)?.push(DataOp::SetLen(len), now);
        Ok(())
    }

    /// Returns `false` when the disk is set to not support allocation (nothing is done).
    pub(super) fn allocate(
        &mut self,
        epoch: u64,
        id: u64,
        path: &Path,
        len: u64,
    ) -> io::Result<bool> {
        self.check_alive(epoch)?;
        checked_end(len, 0)?;
        self.begin_op(epoch, FaultOp::Allocate, &[path])?;
        if !self.allocate_supported {
            return Ok(false);
        }
        let cur = self.inode(id)?.current.len() as u64;
        if len > cur {
            self.check_capacity(len - cur)?;
            let now = self.now_unix_secs;
            self.inode_mut(id)?.push(DataOp::Allocate(len), now);
        }
        Ok(true)
    }
}
