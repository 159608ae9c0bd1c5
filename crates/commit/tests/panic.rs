//! A panic in a pipeline stage poisons the pipeline and answers every waiting session with
//! an error, promptly; later commits are refused. The panic is injected through the seams (an
//! engine wrapper, and a file-system wrapper under the binlog files, that panic once in a
//! chosen call), so no fault hook exists in the commit layer itself: FLUSH (the redo flush),
//! SYNC (the binlog file's fdatasync), COMMIT (the engine commit), and FLUSH run by the
//! pipeline's `binlog-flush` thread for async sessions.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use commit::{CommitRequest, Coordinator, Error, ErrorClass};
use vfs::{Allocation, FileRef, OpenMode, SimVfs, Vfs, VfsFile, VfsRef};

/// Where the wrapped engine panics (once).
const NOWHERE: u32 = 0;
const REDO_FLUSH: u32 = 1;
const ENGINE_COMMIT: u32 = 2;
const BINLOG_SYNC: u32 = 3;

/// The binlog files' file system: panics once in the `sync_data` of a binlog file (not the
/// index) when armed with [`BINLOG_SYNC`].
#[derive(Debug)]
struct PanickyVfs {
    inner: VfsRef,
    at: Arc<AtomicU32>,
}

#[derive(Debug)]
struct PanickyFile {
    inner: FileRef,
    at: Arc<AtomicU32>,
}

impl Vfs for PanickyVfs {
    fn open(&self, path: &Path, mode: OpenMode) -> vfs::Result<FileRef> {
        let inner = self.inner.open(path, mode)?;
        Ok(Arc::new(PanickyFile { inner, at: self.at.clone() }))
    }
    fn rename(&self, from: &Path, to: &Path) -> vfs::Result<()> {
        self.inner.rename(from, to)
    }
    fn remove_file(&self, path: &Path) -> vfs::Result<()> {
        self.inner.remove_file(path)
    }
    fn create_dir_all(&self, path: &Path) -> vfs::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn list_dir(&self, path: &Path) -> vfs::Result<Vec<PathBuf>> {
        self.inner.list_dir(path)
    }
    fn exists(&self, path: &Path) -> vfs::Result<bool> {
        self.inner.exists(path)
    }
    fn sync_dir(&self, path: &Path) -> vfs::Result<()> {
        self.inner.sync_dir(path)
    }
    fn modified_unix_secs(&self, path: &Path) -> vfs::Result<u64> {
        self.inner.modified_unix_secs(path)
    }
}

impl VfsFile for PanickyFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> vfs::Result<usize> {
        self.inner.read_at(buf, offset)
    }
    fn write_at(&self, buf: &[u8], offset: u64) -> vfs::Result<()> {
        self.inner.write_at(buf, offset)
    }
    fn sync_data(&self) -> vfs::Result<()> {
        let binlog_file = self.path().extension().is_some_and(|e| e != "index");
        if binlog_file
            && self
                .at
                .compare_exchange(BINLOG_SYNC, NOWHERE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            panic!("injected panic in the binlog fdatasync");
        }
        self.inner.sync_data()
    }
    fn open_direct(&self) -> vfs::Result<bool> {
        self.inner.open_direct()
    }
    fn write_durable_at(&self, buf: &[u8], offset: u64) -> vfs::Result<()> {
        self.inner.write_durable_at(buf, offset)
    }
    fn len(&self) -> vfs::Result<u64> {
        self.inner.len()
    }
    fn set_len(&self, len: u64) -> vfs::Result<()> {
        self.inner.set_len(len)
    }
    fn allocate(&self, len: u64) -> vfs::Result<Allocation> {
        self.inner.allocate(len)
    }
    fn path(&self) -> &Path {
        self.inner.path()
    }
}

struct Panicky {
    inner: engine::Engine,
    at: Arc<AtomicU32>,
}

impl Panicky {
    fn maybe_panic(&self, here: u32) {
        if self.at.compare_exchange(here, NOWHERE, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            panic!("injected panic");
        }
    }
}

type E = engine::Engine;

impl commit::Engine for Panicky {
    type Txn = engine::Txn;
    type Error = engine::Error;

    fn classify(e: &engine::Error) -> ErrorClass {
        <E as commit::Engine>::classify(e)
    }
    fn mysql_code(e: &engine::Error) -> u16 {
        <E as commit::Engine>::mysql_code(e)
    }
    fn is_no_space(e: &engine::Error) -> bool {
        <E as commit::Engine>::is_no_space(e)
    }
    fn begin(&self) -> engine::Txn {
        self.inner.begin()
    }
    fn is_read_only(txn: &engine::Txn) -> bool {
        <E as commit::Engine>::is_read_only(txn)
    }
    fn prepare(&self, txn: &mut engine::Txn, xid: u64) -> Result<u64, engine::Error> {
        commit::Engine::prepare(&self.inner, txn, xid)
    }
    fn commit(&self, txn: engine::Txn) -> Result<u64, engine::Error> {
        self.maybe_panic(ENGINE_COMMIT);
        commit::Engine::commit(&self.inner, txn)
    }
    fn rollback(&self, txn: engine::Txn) -> Result<(), engine::Error> {
        commit::Engine::rollback(&self.inner, txn)
    }
    fn abandon(&self, txn: engine::Txn) {
        commit::Engine::abandon(&self.inner, txn)
    }
    fn commit_prepared(&self, xid: u64) -> Result<u64, engine::Error> {
        commit::Engine::commit_prepared(&self.inner, xid)
    }
    fn rollback_prepared(&self, xid: u64) -> Result<(), engine::Error> {
        commit::Engine::rollback_prepared(&self.inner, xid)
    }
    fn append_binlog_payload(&self, bytes: &[u8]) -> Result<u64, engine::Error> {
        commit::Engine::append_binlog_payload(&self.inner, bytes)
    }
    fn flush_up_to(&self, lsn: u64) -> Result<(), engine::Error> {
        self.maybe_panic(REDO_FLUSH);
        commit::Engine::flush_up_to(&self.inner, lsn)
    }
    fn write_up_to(&self, lsn: u64) -> Result<(), engine::Error> {
        commit::Engine::write_up_to(&self.inner, lsn)
    }
    fn flush_all(&self) -> Result<(), engine::Error> {
        commit::Engine::flush_all(&self.inner)
    }
    fn next_lsn(&self) -> u64 {
        commit::Engine::next_lsn(&self.inner)
    }
    fn set_retain_lsn(&self, lsn: u64) {
        commit::Engine::set_retain_lsn(&self.inner, lsn)
    }
    fn oldest_lsn(&self) -> u64 {
        commit::Engine::oldest_lsn(&self.inner)
    }
    fn read_binlog_payloads_from(&self, lsn: u64) -> Result<Vec<(u64, Vec<u8>)>, engine::Error> {
        commit::Engine::read_binlog_payloads_from(&self.inner, lsn)
    }
    fn redo_fsyncs(&self) -> u64 {
        commit::Engine::redo_fsyncs(&self.inner)
    }
    fn shutdown(&self) -> Result<(), engine::Error> {
        commit::Engine::shutdown(&self.inner)
    }
}

type Coord = Coordinator<Panicky>;

fn open(at: Arc<AtomicU32>) -> Coord {
    let vfs = SimVfs::new().shared();
    let options = common::options();
    let mut ec = options.engine.clone();
    ec.retain_redo_for_binlog = true;
    let (engine, rec) =
        engine::Engine::open(vfs.clone(), Path::new("/data/engine"), ec).expect("open engine");
    let config = common::config(common::Mode { in_redo: false, sync_binlog: 1 });
    let binlog_vfs = Arc::new(PanickyVfs { inner: vfs, at: at.clone() });
    let engine = Panicky { inner: engine, at };
    let (c, _) = Coord::with_engine(
        engine,
        rec.prepared_xids,
        rec.max_xid,
        binlog_vfs,
        Path::new("/data/binlog"),
        options,
        config,
    )
    .expect("open coordinator");
    let mut txn = c.begin();
    c.engine().inner.create_table_in(&mut txn, common::schema()).expect("stage create");
    c.commit(CommitRequest::ddl(txn, "test", common::CREATE_T)).expect("create table");
    c
}

fn request(c: &Coord, id: i64) -> CommitRequest<engine::Txn> {
    let (txn, cache) = common::one_row_txn(&c.engine().inner, || c.new_cache("test"), id);
    CommitRequest::rows(txn, cache)
}

fn assert_panicked(e: &Error) {
    let Error::Poisoned { cause } = e else { panic!("expected a poisoned error, got {e}") };
    assert!(matches!(**cause, Error::Panicked { .. }), "the cause is the panic: {cause}");
    assert_eq!(e.mysql_code(), 1105);
}

/// 16 threads commit in a loop; one stage call panics once. Every thread must come back
/// (within a deadline: none hangs on its condvar), every commit after the panic fails with
/// the panic as the cause, and a later commit is refused.
fn threads_all_answered(at: u32) {
    let fault = Arc::new(AtomicU32::new(NOWHERE));
    let c = open(fault.clone());
    let ok = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel();
    let threads = 16;
    for th in 0..threads {
        let (c, ok, tx) = (c.clone(), ok.clone(), tx.clone());
        std::thread::spawn(move || {
            let mut failed = false;
            for i in 0..100_000 {
                match c.commit(request(&c, th * 1_000_000 + i)) {
                    Ok(_) => {
                        ok.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => {
                        assert_panicked(&e);
                        // Poisoned for good: the next one is refused too.
                        let again = c.commit(request(&c, th * 1_000_000 + i + 1));
                        assert_panicked(&again.expect_err("refused after the panic"));
                        failed = true;
                        break;
                    }
                }
            }
            tx.send(failed).expect("report");
        });
    }
    drop(tx);
    // Let groups form, then arm the fault.
    while ok.load(Ordering::Relaxed) < 50 {
        std::thread::sleep(Duration::from_millis(1));
    }
    fault.store(at, Ordering::Release);
    let deadline = Instant::now() + Duration::from_secs(30);
    for _ in 0..threads {
        let left = deadline.saturating_duration_since(Instant::now());
        let saw_error = rx.recv_timeout(left).expect("a session thread hung after the panic");
        assert!(saw_error, "every session saw the poisoned pipeline");
    }
    assert_eq!(fault.load(Ordering::Acquire), NOWHERE, "the panic fired");
    assert!(c.is_poisoned());
    let later = c.commit(request(&c, 999_999)).expect_err("refused after the panic");
    assert_panicked(&later);
    assert!(c.rotate().is_err(), "no rotation after the panic");
}

#[test]
fn a_panic_in_the_flush_stage_answers_every_waiter_and_refuses_later_commits() {
    threads_all_answered(REDO_FLUSH);
}

#[test]
fn a_panic_in_the_sync_stage_answers_every_waiter_and_refuses_later_commits() {
    threads_all_answered(BINLOG_SYNC);
}

#[test]
fn a_panic_in_the_commit_stage_answers_every_waiter_and_refuses_later_commits() {
    threads_all_answered(ENGINE_COMMIT);
}

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }
}

/// Async sessions hand their FLUSH leadership to the `binlog-flush` thread; the redo flush
/// panics there. Every pending commit becomes ready with an error, and the lane thread
/// answers jobs left after the panic too.
#[test]
fn a_panic_on_the_flush_thread_answers_every_pending_commit() {
    let fault = Arc::new(AtomicU32::new(NOWHERE));
    let c = open(fault.clone());
    // One committed through the lane first, so the thread runs.
    let mut p = c.commit_deferred(request(&c, 1));
    assert!(p.hand_off(), "an idle pipeline: this session leads, and hands it off");
    let flag = Arc::new(Flag(AtomicBool::new(false)));
    let waker = Waker::from(flag.clone());
    let mut cx = Context::from_waker(&waker);
    let deadline = Instant::now() + Duration::from_secs(30);
    let first = loop {
        if let Poll::Ready(r) = p.poll(&mut cx) {
            break r;
        }
        assert!(Instant::now() < deadline, "the first commit never finished");
        std::thread::sleep(Duration::from_millis(1));
    };
    first.expect("the first commit");
    fault.store(REDO_FLUSH, Ordering::Release);
    let mut pending: Vec<_> = (2..40)
        .map(|id| {
            let mut p = c.commit_deferred(request(&c, id));
            if p.needs_thread() && !p.hand_off() {
                p.run();
            }
            p
        })
        .collect();
    for p in &mut pending {
        let r = loop {
            if let Poll::Ready(r) = p.poll(&mut cx) {
                break r;
            }
            assert!(Instant::now() < deadline, "a pending commit was never answered");
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_panicked(&r.expect_err("failed with the panic"));
    }
    assert_eq!(fault.load(Ordering::Acquire), NOWHERE, "the panic fired");
    let later = c.commit(request(&c, 999_999)).expect_err("refused after the panic");
    assert_panicked(&later);
}
