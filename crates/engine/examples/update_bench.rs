//! Single-row update transactions per second, in process, without fsync (the commit layer
//! decides when to flush): `cargo run --release -p engine --example update_bench [threads] [secs]`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{Column, ColumnType, Engine, EngineConfig, TableSchema, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let threads: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2);
    let secs: u64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(3);
    let dir = std::env::temp_dir().join(format!("engine-bench-{}", std::process::id()));
    let vfs: vfs::VfsRef = Arc::new(vfs::RealVfs::new());
    let (e, _) = Engine::open(vfs, Path::new(&dir), EngineConfig::default())?;
    let int = ColumnType::Integer { bytes: 4, unsigned: false };
    let schema = TableSchema::new(
        "sbtest1",
        vec![
            Column::new("id", int),
            Column::new("k", int),
            Column::new("c", ColumnType::Char(120)),
        ],
        vec![0],
    );
    let t = e.create_table(schema)?;
    let rows = 10_000i64;
    let mut tx = e.begin();
    for id in 0..rows {
        e.insert(&mut tx, t, vec![Value::Int(id), Value::Int(0), Value::Bytes(vec![b'x'; 120])])?;
    }
    e.commit(tx)?;
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|n| {
            let (e, stop, done) = (e.clone(), stop.clone(), done.clone());
            std::thread::spawn(move || {
                let mut id = n as i64 * 7919;
                let mut xid = (n as u64) << 40;
                while !stop.load(Ordering::Relaxed) {
                    id = (id * 31 + 17) % rows;
                    xid += 1;
                    let key = e.key(&[Value::Int(id)]);
                    let mut tx = e.begin();
                    let mut row = e.get_for_update(&mut tx, t, &key).expect("lock").expect("row");
                    row[1] = Value::Int(id + 1);
                    e.update(&mut tx, t, &key, row).expect("update");
                    e.prepare(&mut tx, xid).expect("prepare");
                    e.commit(tx).expect("commit");
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(secs));
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().map_err(|_| "bench thread panicked")?;
    }
    let n = done.load(Ordering::Relaxed);
    let s = e.stats();
    println!(
        "threads {threads}: {:.0} update txn/s (prepare + commit, no fsync), {} redo bytes/txn",
        n as f64 / start.elapsed().as_secs_f64(),
        s.next_lsn.0 / n.max(1)
    );
    e.shutdown()?;
    drop(e);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
