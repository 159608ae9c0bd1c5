use std::path::Path;

use proptest::prelude::*;

use super::disk::SECTOR_SIZE;
use super::*;

fn p(s: &str) -> &Path {
    Path::new(s)
}

/// A disk with `/d` made, and a handle.
fn disk() -> SimVfs {
    let sim = SimVfs::new();
    sim.create_dir_all(p("/d")).expect("mkdir");
    sim
}

/// Creates `path` durably (entry synced) with `bytes` synced.
fn durable_file(sim: &SimVfs, path: &str, bytes: &[u8]) -> FileRef {
    let f = sim.open(p(path), OpenMode::CreateNew).expect("create");
    f.write_at(bytes, 0).expect("write");
    f.sync_data().expect("sync");
    sim.sync_dir(p(path).parent().expect("parent")).expect("sync dir");
    f
}

fn read_all(f: &FileRef) -> Vec<u8> {
    let mut buf = vec![0u8; usize::try_from(f.len().expect("len")).expect("fits")];
    f.read_exact_at(&mut buf, 0).expect("read");
    buf
}

#[test]
fn reads_see_writes_and_namespace_queries_work() {
    let sim = disk();
    sim.set_now_unix_secs(1_000);
    sim.create_dir_all(p("/d/sub/deeper")).expect("mkdir");
    let f = sim.open(p("/d/a"), OpenMode::CreateNew).expect("create");
    f.write_at(b"hello", 0).expect("write");
    f.write_at(b"XY", 8).expect("write past the end");
    assert_eq!(read_all(&f), b"hello\0\0\0XY");
    let mut small = [0u8; 4];
    assert_eq!(f.read_at(&mut small, 8).expect("read"), 2);
    assert_eq!(f.read_at(&mut small, 100).expect("read past end"), 0);
    assert_eq!(
        sim.list_dir(p("/d")).expect("list"),
        vec![PathBuf::from("a"), PathBuf::from("sub")]
    );
    assert!(sim.exists(p("/d/sub/deeper")).expect("exists"));
    assert!(!sim.exists(p("/d/b")).expect("exists"));
    assert_eq!(sim.modified_unix_secs(p("/d/a")).expect("mtime"), 1_000);
    sim.set_now_unix_secs(2_000);
    f.write_at(b"!", 0).expect("write");
    assert_eq!(sim.modified_unix_secs(p("/d/a")).expect("mtime"), 2_000);

    let err = sim.open(p("/d/a"), OpenMode::CreateNew).expect_err("exists");
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
    let err = sim.open(p("/d/missing"), OpenMode::Read).expect_err("missing");
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    let err = sim.open(p("/nodir/x"), OpenMode::CreateNew).expect_err("no parent");
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    let ro = sim.open(p("/d/a"), OpenMode::Read).expect("open");
    let err = ro.write_at(b"x", 0).expect_err("read-only");
    assert_eq!(err.source.raw_os_error(), Some(rustix::io::Errno::BADF.raw_os_error()));
    let again = sim.open(p("/d/a"), OpenMode::CreateOrOpen).expect("open existing");
    assert_eq!(read_all(&again), b"!ello\0\0\0XY");
}

#[test]
fn drop_unsynced_keeps_only_synced_bytes_and_length() {
    let sim = disk();
    let f = durable_file(&sim, "/d/f", b"synced");
    f.write_at(b"SY", 0).expect("write");
    f.write_at(b"-and-more", 6).expect("append");
    f.set_len(20).expect("extend");
    let sim = sim.crash(CrashMode::DropUnsynced);
    assert_eq!(sim.contents("/d/f").as_deref(), Some(&b"synced"[..]));
    let f = sim.open(p("/d/f"), OpenMode::ReadWrite).expect("reopen");
    assert_eq!(read_all(&f), b"synced");
}

#[test]
fn keep_all_keeps_every_write() {
    let sim = disk();
    let f = durable_file(&sim, "/d/f", b"synced");
    f.write_at(b"SY", 0).expect("write");
    f.write_at(b"-more", 6).expect("append");
    let sim = sim.crash(CrashMode::KeepAll);
    assert_eq!(sim.contents("/d/f").as_deref(), Some(&b"SYnced-more"[..]));
}

#[test]
fn tear_keeps_a_sector_aligned_prefix_deterministically() {
    const LEN: usize = 4 * SECTOR_SIZE as usize;
    let mut partial_seen = false;
    for seed in 0..64 {
        let sim = disk();
        let f = durable_file(&sim, "/d/f", &[0u8; LEN]);
        // One unsynced write over sectors 0..4, starting 100 bytes into sector 0.
        f.write_at(&[7u8; LEN - 100], 100).expect("write");
        let torn = sim.crash(CrashMode::Tear { seed }).contents("/d/f").expect("file survives");
        assert_eq!(torn.len(), LEN);
        let kept = torn.iter().filter(|&&b| b == 7).count();
        // Kept bytes are a prefix of the write ending at a sector boundary, or all of it.
        assert!(torn[100..100 + kept].iter().all(|&b| b == 7));
        assert!(kept == 0 || kept == LEN - 100 || (100 + kept) % SECTOR_SIZE as usize == 0);
        partial_seen |= kept != 0 && kept != LEN - 100;

        let replay = disk();
        let g = durable_file(&replay, "/d/f", &[0u8; LEN]);
        g.write_at(&[7u8; LEN - 100], 100).expect("write");
        let again = replay.crash(CrashMode::Tear { seed }).contents("/d/f");
        assert_eq!(again.as_deref(), Some(&torn[..]), "seed {seed} must replay identically");
    }
    assert!(partial_seen, "some seed in 0..64 must cut the write inside");
}

#[test]
fn created_file_disappears_unless_its_directory_is_synced() {
    let sim = disk();
    let f = sim.open(p("/d/new"), OpenMode::CreateNew).expect("create");
    f.write_at(b"data", 0).expect("write");
    f.sync_data().expect("data durable, entry not");
    assert_eq!(sim.durable_contents("/d/new"), None);
    let sim = sim.crash(CrashMode::DropUnsynced);
    assert!(!sim.exists(p("/d/new")).expect("exists"));
    assert!(sim.list_dir(p("/d")).expect("list").is_empty());

    let f = sim.open(p("/d/new"), OpenMode::CreateNew).expect("create");
    f.write_at(b"data", 0).expect("write");
    f.sync_data().expect("sync");
    sim.sync_dir(p("/d")).expect("sync dir");
    let sim = sim.crash(CrashMode::DropUnsynced);
    assert_eq!(sim.contents("/d/new").as_deref(), Some(&b"data"[..]));
}

#[test]
fn non_durable_rename_and_remove_revert_and_data_follows_the_inode() {
    let sim = disk();
    durable_file(&sim, "/d/old", b"old");
    durable_file(&sim, "/d/gone", b"gone");
    let tmp = durable_file(&sim, "/d/tmp", b"v1");
    tmp.write_at(b"v2", 0).expect("unsynced overwrite");
    sim.rename(p("/d/tmp"), p("/d/old")).expect("rename over old");
    sim.remove_file(p("/d/gone")).expect("remove");
    assert_eq!(sim.contents("/d/old").as_deref(), Some(&b"v2"[..]));
    assert!(!sim.exists(p("/d/gone")).expect("exists"));

    let after = sim.crash(CrashMode::DropUnsynced);
    assert_eq!(after.contents("/d/old").as_deref(), Some(&b"old"[..]));
    assert_eq!(after.contents("/d/tmp").as_deref(), Some(&b"v1"[..]), "renamed data state kept");
    assert_eq!(after.contents("/d/gone").as_deref(), Some(&b"gone"[..]));

    // Made durable by the directory sync, the same changes survive.
    after.rename(p("/d/tmp"), p("/d/old")).expect("rename");
    after.remove_file(p("/d/gone")).expect("remove");
    after.sync_dir(p("/d")).expect("sync dir");
    let after = after.crash(CrashMode::DropUnsynced);
    assert_eq!(after.contents("/d/old").as_deref(), Some(&b"v1"[..]));
    assert!(!after.exists(p("/d/tmp")).expect("exists"));
    assert!(!after.exists(p("/d/gone")).expect("exists"));
}

#[test]
fn a_rename_between_directories_needs_both_synced() {
    let sim = disk();
    sim.create_dir_all(p("/e")).expect("mkdir");
    durable_file(&sim, "/d/f", b"x");
    sim.rename(p("/d/f"), p("/e/f")).expect("rename");
    sim.sync_dir(p("/e")).expect("sync target only");
    let after = sim.crash(CrashMode::DropUnsynced);
    // The source entry was not made durable: both names lead to the inode.
    assert_eq!(after.contents("/d/f").as_deref(), Some(&b"x"[..]));
    assert_eq!(after.contents("/e/f").as_deref(), Some(&b"x"[..]));

    let sim = disk();
    sim.create_dir_all(p("/e")).expect("mkdir");
    durable_file(&sim, "/d/f", b"x");
    sim.rename(p("/d/f"), p("/e/f")).expect("rename");
    sim.sync_dir(p("/e")).expect("sync");
    sim.sync_dir(p("/d")).expect("sync");
    let after = sim.crash(CrashMode::DropUnsynced);
    assert!(!after.exists(p("/d/f")).expect("exists"));
    assert_eq!(after.contents("/e/f").as_deref(), Some(&b"x"[..]));
}

#[test]
fn handles_from_before_a_crash_are_dead() {
    let sim = disk();
    let f = durable_file(&sim, "/d/f", b"abc");
    let clone = sim.clone();
    let shared = sim.shared();
    let restarted = sim.crash(CrashMode::KeepAll);

    let mut buf = [0u8; 3];
    assert!(f.read_at(&mut buf, 0).expect_err("dead file").is_crashed());
    assert!(f.write_at(b"x", 0).expect_err("dead file").is_crashed());
    assert!(f.sync_data().expect_err("dead file").is_crashed());
    assert!(f.len().expect_err("dead file").is_crashed());
    assert!(clone.open(p("/d/f"), OpenMode::Read).expect_err("dead vfs").is_crashed());
    assert!(shared.exists(p("/d/f")).expect_err("dead vfs").is_crashed());
    assert!(sim.sync_dir(p("/d")).expect_err("dead vfs").is_crashed());

    let f = restarted.open(p("/d/f"), OpenMode::ReadWrite).expect("new handle works");
    assert_eq!(read_all(&f), b"abc");
    f.write_at(b"x", 0).expect("new handle writes");
}

#[test]
fn injected_faults_fail_the_nth_matching_operation_with_real_errnos() {
    let sim = disk();
    let a = sim.open(p("/d/binlog.000001"), OpenMode::CreateNew).expect("create");
    let b = sim.open(p("/d/redo"), OpenMode::CreateNew).expect("create");
    sim.inject(Fault::new(FaultOp::Write, FaultKind::Eio).on_path("binlog").nth(2));
    b.write_at(b"r", 0).expect("other path does not match");
    a.write_at(b"1", 0).expect("first match passes");
    let err = a.write_at(b"2", 1).expect_err("second match fails");
    assert_eq!(err.source.raw_os_error(), Some(rustix::io::Errno::IO.raw_os_error()));
    assert!(!err.is_no_space());
    assert_eq!(sim.contents("/d/binlog.000001").as_deref(), Some(&b"1"[..]), "nothing written");
    a.write_at(b"3", 1).expect("one-shot: the next write passes");

    sim.inject(Fault::new(FaultOp::Allocate, FaultKind::Enospc));
    let err = a.allocate(4096).expect_err("allocate fails");
    assert!(err.is_no_space());
    assert_eq!(err.kind(), std::io::ErrorKind::StorageFull);

    sim.inject(Fault::new(FaultOp::Rename, FaultKind::Eio).on_path("final"));
    let err = sim.rename(p("/d/redo"), p("/d/final")).expect_err("rename fails on target match");
    assert_eq!(err.source.raw_os_error(), Some(rustix::io::Errno::IO.raw_os_error()));
    assert!(sim.exists(p("/d/redo")).expect("exists"));

    sim.inject(Fault::new(FaultOp::SyncDir, FaultKind::Eio));
    sim.inject(Fault::new(FaultOp::Create, FaultKind::Enospc));
    sim.inject(Fault::new(FaultOp::Read, FaultKind::Eio));
    assert!(sim.sync_dir(p("/d")).is_err());
    assert!(sim.open(p("/d/c"), OpenMode::CreateNew).expect_err("create fails").is_no_space());
    assert!(!sim.exists(p("/d/c")).expect("exists"));
    let mut buf = [0u8; 1];
    assert!(a.read_at(&mut buf, 0).is_err());
    sim.inject(Fault::new(FaultOp::SetLen, FaultKind::Eio));
    sim.inject(Fault::new(FaultOp::Remove, FaultKind::Eio));
    assert!(a.set_len(0).is_err());
    assert!(sim.remove_file(p("/d/redo")).is_err());
    sim.inject(Fault::new(FaultOp::Sync, FaultKind::Eio));
    sim.clear_faults();
    a.sync_data().expect("cleared faults do not fire");
}

#[test]
fn a_failed_sync_loses_its_writes_even_if_a_retry_succeeds() {
    let sim = disk();
    let f = durable_file(&sim, "/d/f", b"base");
    f.write_at(b"LOST", 0).expect("write");
    sim.inject(Fault::new(FaultOp::Sync, FaultKind::Eio));
    assert!(f.sync_data().is_err());
    assert_eq!(read_all(&f), b"LOST", "still in the page cache");
    f.sync_data().expect("the retry reports success");
    f.write_at(b"!", 4).expect("write");
    f.sync_data().expect("sync");
    assert_eq!(sim.durable_contents("/d/f").as_deref(), Some(&b"base!"[..]));
    let sim = sim.crash(CrashMode::KeepAll);
    assert_eq!(sim.contents("/d/f").as_deref(), Some(&b"base!"[..]));
}

#[test]
fn capacity_gives_enospc_and_frees_on_remove() {
    let sim = disk();
    sim.set_capacity(Some(1_000));
    let f = sim.open(p("/d/f"), OpenMode::CreateNew).expect("create");
    f.write_at(&[1u8; 800], 0).expect("fits");
    f.write_at(&[2u8; 100], 0).expect("overwrite uses no new space");
    let err = f.write_at(&[3u8; 300], 800).expect_err("full");
    assert!(err.is_no_space());
    assert_eq!(f.len().expect("len"), 800, "a failed write writes nothing");
    assert!(f.allocate(1_001).expect_err("full").is_no_space());
    assert!(f.set_len(1_001).expect_err("full").is_no_space());
    f.write_at(&[3u8; 200], 800).expect("exactly full");
    assert_eq!(sim.used_bytes(), 1_000);
    let g = sim.open(p("/d/g"), OpenMode::CreateNew).expect("create needs no space");
    assert!(g.write_at(b"x", 0).expect_err("full").is_no_space());
    sim.remove_file(p("/d/f")).expect("remove");
    g.write_at(b"x", 0).expect("space freed");
    sim.set_capacity(None);
    g.write_at(&[0u8; 5_000], 0).expect("unlimited");
}

#[test]
fn allocate_extends_with_zeros_or_reports_unsupported() {
    let sim = disk();
    let f = durable_file(&sim, "/d/f", b"head");
    assert_eq!(f.allocate(1_024).expect("allocate"), Allocation::Allocated);
    assert_eq!(f.len().expect("len"), 1_024);
    assert_eq!(&read_all(&f)[..6], b"head\0\0");
    assert_eq!(f.allocate(10).expect("smaller is a no-op"), Allocation::Allocated);
    assert_eq!(f.len().expect("len"), 1_024);
    let after = sim.crash(CrashMode::DropUnsynced);
    assert_eq!(after.contents("/d/f").as_deref(), Some(&b"head"[..]), "length not synced");

    after.set_allocate_supported(false);
    let f = after.open(p("/d/f"), OpenMode::ReadWrite).expect("open");
    assert_eq!(f.allocate(1_024).expect("allocate"), Allocation::Unsupported);
    assert_eq!(f.len().expect("len"), 4);
}

/// The classic atomic replace: write a temp file, sync it, rename it over the target, sync
/// the directory. Returns the first error.
fn atomic_replace(vfs: &dyn Vfs, content: &[u8]) -> Result<()> {
    let f = vfs.open(p("/d/conf.tmp"), OpenMode::CreateNew)?;
    f.write_at(content, 0)?;
    f.sync_data()?;
    vfs.rename(p("/d/conf.tmp"), p("/d/conf"))?;
    vfs.sync_dir(p("/d"))
}

#[test]
fn crash_at_every_point_of_an_atomic_replace() {
    let setup = || {
        let sim = disk();
        durable_file(&sim, "/d/conf", &[b'o'; 700]);
        sim
    };
    let counting = setup();
    let start = counting.op_count();
    atomic_replace(&counting, &[b'n'; 1_300]).expect("clean run");
    let ops = counting.op_count() - start;
    assert_eq!(ops, 5, "create, write, sync, rename, sync_dir");

    for k in 0..=ops {
        for mode in [CrashMode::DropUnsynced, CrashMode::KeepAll, CrashMode::Tear { seed: k }] {
            let sim = setup();
            assert_eq!(sim.op_count(), start, "same operations, same numbering");
            sim.crash_at(start + k);
            let outcome = atomic_replace(&sim, &[b'n'; 1_300]);
            assert_eq!(outcome.is_err(), k < ops, "crash point {k}");
            if let Err(e) = outcome {
                assert!(e.is_crashed());
                assert!(sim.power_lost());
                let after_cut = sim.open(p("/d/conf"), OpenMode::Read);
                assert!(after_cut.is_err_and(|e| e.is_crashed()), "everything fails once off");
            }
            let after = sim.crash(mode);
            let conf = after.contents("/d/conf").expect("conf always exists");
            assert!(
                conf == vec![b'o'; 700] || conf == vec![b'n'; 1_300],
                "k={k} {mode:?}: conf is old or new, never mixed ({} bytes)",
                conf.len()
            );
            if k == ops {
                assert_eq!(conf, vec![b'n'; 1_300], "completed replace is durable");
            }
        }
    }
}

#[test]
fn threads_share_one_disk_through_the_trait_object() {
    let sim = disk();
    let vfs = sim.shared();
    let writers: Vec<_> = (0..4u8)
        .map(|t| {
            let vfs = Arc::clone(&vfs);
            std::thread::spawn(move || {
                let path = PathBuf::from(format!("/d/t{t}"));
                let f = vfs.open(&path, OpenMode::CreateNew).expect("create");
                for i in 0..50u64 {
                    f.write_at(&[t; 10], i * 10).expect("write");
                    if i == 24 {
                        f.sync_data().expect("sync");
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer thread");
    }
    vfs.sync_dir(p("/d")).expect("sync dir");
    let after = sim.crash(CrashMode::DropUnsynced);
    for t in 0..4u8 {
        assert_eq!(after.contents(format!("/d/t{t}")), Some(vec![t; 250]), "synced half only");
    }
}

#[test]
fn stats_and_sync_counts() {
    let sim = disk();
    let f = durable_file(&sim, "/d/f", b"abc");
    f.sync_data().expect("sync");
    assert_eq!(sim.sync_count("/d/f"), Some(2));
    let s = sim.stats();
    assert_eq!((s.creates, s.writes, s.bytes_written, s.syncs, s.dir_syncs), (1, 1, 3, 2, 1));
}

/// One step of the property test's workload on a single file.
#[derive(Debug, Clone)]
enum Step {
    Write { offset: u16, len: u16, byte: u8 },
    SetLen(u16),
    Allocate(u16),
    Sync,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u16..3_000, 0u16..1_500, any::<u8>())
            .prop_map(|(offset, len, byte)| Step::Write { offset, len, byte }),
        1 => (0u16..4_000).prop_map(Step::SetLen),
        1 => (0u16..4_000).prop_map(Step::Allocate),
        2 => Just(Step::Sync),
    ]
}

/// The bytes `ops` leave when applied to `base`.
fn model_apply(base: &[u8], ops: &[Step]) -> Vec<u8> {
    let mut data = base.to_vec();
    for op in ops {
        match *op {
            Step::Write { len: 0, .. } | Step::Sync => {}
            Step::Write { offset, len, byte } => {
                let end = offset as usize + len as usize;
                if end > data.len() {
                    data.resize(end, 0);
                }
                data[offset as usize..end].fill(byte);
            }
            Step::SetLen(n) => data.resize(n as usize, 0),
            Step::Allocate(n) => {
                if n as usize > data.len() {
                    data.resize(n as usize, 0);
                }
            }
        }
    }
    data
}

/// Every state a tear may leave: a prefix of `ops`, the next write cut at any sector boundary.
fn tear_candidates(base: &[u8], ops: &[Step]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for k in 0..=ops.len() {
        let prefix = model_apply(base, &ops[..k]);
        if let Some(&Step::Write { offset, len, byte }) = ops.get(k) {
            let sector = SECTOR_SIZE as usize;
            let mut cut = (offset as usize / sector + 1) * sector;
            while cut < offset as usize + len as usize {
                let part = (cut - offset as usize) as u16;
                out.push(model_apply(&prefix, &[Step::Write { offset, len: part, byte }]));
                cut += sector;
            }
        }
        out.push(prefix);
    }
    out
}

/// Runs `steps` on `/d/f` of a fresh disk (the file's entry made durable first).
fn run_steps(steps: &[Step]) -> (SimVfs, FileRef) {
    let sim = disk();
    let f = sim.open(p("/d/f"), OpenMode::CreateNew).expect("create");
    sim.sync_dir(p("/d")).expect("sync dir");
    for s in steps {
        match *s {
            Step::Write { offset, len, byte } => {
                f.write_at(&vec![byte; len as usize], offset as u64).expect("write");
            }
            Step::SetLen(n) => f.set_len(n as u64).expect("set_len"),
            Step::Allocate(n) => {
                f.allocate(n as u64).expect("allocate");
            }
            Step::Sync => f.sync_data().expect("sync"),
        }
    }
    (sim, f)
}

proptest! {
    #[test]
    fn crash_modes_match_the_model(steps in prop::collection::vec(step(), 0..40), seed: u64) {
        // The model: the bytes as of the last sync, and the steps since.
        let last_sync = steps.iter().rposition(|s| matches!(s, Step::Sync));
        let (before, since) = steps.split_at(last_sync.map_or(0, |i| i + 1));
        let synced = model_apply(&[], before);
        let current = model_apply(&synced, since);

        let (sim, f) = run_steps(&steps);
        prop_assert_eq!(read_all(&f), current.clone());
        prop_assert_eq!(sim.durable_contents("/d/f"), Some(synced.clone()));
        let dropped = sim.crash(CrashMode::DropUnsynced).contents("/d/f");
        prop_assert_eq!(dropped, Some(synced.clone()));

        let kept = run_steps(&steps).0.crash(CrashMode::KeepAll).contents("/d/f");
        prop_assert_eq!(kept, Some(current));

        let torn = run_steps(&steps).0.crash(CrashMode::Tear { seed }).contents("/d/f");
        let torn = torn.expect("the file's entry is durable");
        prop_assert!(tear_candidates(&synced, since).contains(&torn));
    }
}

const B: usize = crate::DURABLE_BLOCK_BYTES as usize;

#[test]
fn a_durable_write_is_durable_without_a_sync_and_keeps_its_place_in_order() {
    let sim = disk();
    let f = durable_file(&sim, "/d/f", &vec![0u8; 3 * B]);
    assert!(f.open_direct().expect("direct"));
    // Unaligned: EINVAL, as O_DIRECT gives; nothing numbered.
    let ops = sim.op_count();
    assert!(f.write_durable_at(&[1u8; 100], 0).is_err());
    assert!(f.write_durable_at(&vec![1u8; B], 512).is_err());
    assert_eq!(sim.op_count(), ops);
    // Buffered write, then a durable one over it, then a buffered one over that.
    f.write_at(&vec![1u8; 2 * B], 0).expect("write");
    f.write_durable_at(&vec![2u8; B], B as u64).expect("durable");
    f.write_at(&[3u8; 10], B as u64).expect("write");
    let durable = sim.durable_contents("/d/f").expect("durable");
    assert_eq!(durable[..B], vec![0u8; B][..], "the buffered write is not durable");
    assert_eq!(durable[B..2 * B], vec![2u8; B][..]);
    assert_eq!(sim.stats().durable_writes, 1);
    // A failed sync loses the buffered writes, never the durable one.
    sim.inject(Fault::new(FaultOp::Sync, FaultKind::Eio));
    assert!(f.sync_data().is_err());
    let after = sim.crash(CrashMode::KeepAll);
    let data = after.contents("/d/f").expect("file");
    assert_eq!((data[0], data[B], data[B + 10], data[2 * B]), (0, 2, 2, 0));
    // Every crash mode keeps a completed durable write, ordered among the others.
    for mode in [CrashMode::DropUnsynced, CrashMode::KeepAll, CrashMode::Tear { seed: 7 }] {
        let sim = disk();
        let f = durable_file(&sim, "/d/f", &vec![0u8; 2 * B]);
        assert!(f.open_direct().expect("direct"));
        f.write_at(&vec![1u8; B], 0).expect("write");
        f.write_durable_at(&vec![2u8; B], 0).expect("durable");
        let data = sim.crash(mode).contents("/d/f").expect("file");
        assert_eq!(data[..B], vec![2u8; B][..], "{mode:?}");
    }
}

#[test]
fn a_durable_write_cut_by_the_power_lands_as_any_subset_of_its_sectors() {
    let mut partial = 0;
    for seed in 0..32 {
        for mode in [CrashMode::DropUnsynced, CrashMode::KeepAll, CrashMode::Tear { seed }] {
            let sim = disk();
            let f = durable_file(&sim, "/d/f", &vec![0u8; 4 * B]);
            assert!(f.open_direct().expect("direct"));
            sim.crash_at(sim.op_count());
            let err = f.write_durable_at(&vec![9u8; 3 * B], B as u64).expect_err("power");
            assert!(err.is_crashed());
            let data = sim.crash(mode).contents("/d/f").expect("file");
            assert_eq!(data.len(), 4 * B);
            assert!(data[..B].iter().chain(&data[4 * B..]).all(|&b| b == 0), "outside the range");
            let sectors: Vec<u8> = data[B..4 * B]
                .chunks(SECTOR_SIZE as usize)
                .map(|s| {
                    assert!(s.iter().all(|&b| b == s[0]), "a sector is never torn");
                    s[0]
                })
                .collect();
            let landed = sectors.iter().filter(|&&b| b == 9).count();
            match mode {
                CrashMode::DropUnsynced => assert_eq!(landed, 0),
                CrashMode::KeepAll => assert_eq!(landed, sectors.len()),
                CrashMode::Tear { .. } => {
                    // Not always a prefix: a later sector may land without an earlier one.
                    let prefix = sectors.iter().take_while(|&&b| b == 9).count();
                    if landed > prefix {
                        partial += 1;
                    }
                }
            }
        }
    }
    assert!(partial > 0, "tears leave non-prefix subsets");
}

#[test]
fn durable_writes_fall_back_to_write_and_sync_without_direct_io() {
    let sim = disk();
    sim.set_direct_supported(false);
    let f = durable_file(&sim, "/d/f", &vec![0u8; B]);
    assert!(!f.open_direct().expect("open_direct"));
    let syncs = sim.stats().syncs;
    f.write_durable_at(&vec![5u8; B], 0).expect("durable");
    assert_eq!((sim.stats().syncs, sim.stats().durable_writes), (syncs + 1, 0));
    assert_eq!(sim.durable_contents("/d/f").expect("durable"), vec![5u8; B]);
}
