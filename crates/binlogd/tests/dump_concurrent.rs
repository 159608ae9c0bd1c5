//! A consistent dump under concurrent writers (issue 21): `mariadb-dump --single-transaction
//! --master-data=2` (MariaDB 10.11's name for mysqldump's `--source-data=2`) taken while
//! several writers insert, update and delete, restored into a fresh binlogd, then fed the
//! source's binlog from the position the dump recorded (`mariadb-binlog --start-position=POS
//! FILE... | mariadb`), equals the source (CHECKSUM TABLE of every table, and the rows).
//!
//! This holds only if the dump's rows are exactly the snapshot the recorded position names:
//! a row committed after the position but seen by the dump is applied twice (a duplicate key
//! stops the replay, or an update is applied twice), one committed before it but not seen is
//! lost. Writers are bounded in time and in count. Needs mariadb-dump, mariadb-binlog and
//! mariadb (mariadb-client, installed by scripts/test.sh).

mod support;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mysql_async::prelude::Queryable;
use support::sql::conn;
use support::{client, feed, ok, start, Running};

fn root(server: &Running, sql: &str) -> String {
    ok(support::mariadb(server.port, "root", "", &[], sql))
}

const TABLES: &str = "live.acct, live.log";

/// Writers: each moves amounts between accounts in two-statement transactions (the sum of
/// `acct.bal` stays fixed), appends to `log` and deletes old log rows, until `stop` or 2 000
/// operations each.
fn writers(port: u16, stop: &Arc<AtomicBool>) -> Vec<tokio::task::JoinHandle<u64>> {
    (0..4u64)
        .map(|w| {
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut c = conn(port).await;
                let mut n = 0;
                let mut x = w * 31 + 7;
                while !stop.load(Ordering::Relaxed) && n < 2_000 {
                    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
                    let (from, to) = (x % 50, (x / 50) % 50);
                    let sql = match n % 4 {
                        0 | 1 => format!(
                            "BEGIN; UPDATE live.acct SET bal = bal - 1, moves = moves + 1 \
                             WHERE id = {from}; UPDATE live.acct SET bal = bal + 1, \
                             moves = moves + 1 WHERE id = {to}; COMMIT"
                        ),
                        2 => format!("INSERT INTO live.log (w, note) VALUES ({w}, 'op {n}')"),
                        _ => format!("DELETE FROM live.log WHERE w = {w} ORDER BY id LIMIT 1"),
                    };
                    c.query_drop(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
                    n += 1;
                }
                n
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_transaction_dump_plus_binlog_from_its_position_equals_the_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source_dir = dir.path().join("source");
    // A slow simulated disk widens the window between a commit's binlog write and its
    // visibility, where a snapshot could see a transaction its position does not include.
    let source =
        start(&source_dir, &["--initialize-insecure", "--simulated-fsync-latency-us=1000"]);
    let mut seed = String::from(
        "CREATE DATABASE live;
         CREATE TABLE live.acct (id INT PRIMARY KEY, bal BIGINT NOT NULL, moves INT NOT NULL,
           tag VARCHAR(20));
         CREATE TABLE live.log (id BIGINT AUTO_INCREMENT PRIMARY KEY, w INT, note VARCHAR(30),
           KEY (w));",
    );
    for i in 0..50 {
        seed.push_str(&format!("INSERT INTO live.acct VALUES ({i}, 1000, 0, 'a{i}');"));
    }
    root(&source, &seed);

    let stop = Arc::new(AtomicBool::new(false));
    let tasks = writers(source.port, &stop);
    tokio::time::sleep(Duration::from_millis(700)).await;
    let port = source.port;
    let dump = tokio::task::spawn_blocking(move || {
        client("mariadb-dump", port, "root", "")
            .args(["--single-transaction", "--master-data=2", "--databases", "live"])
            .output()
            .expect("run mariadb-dump (scripts/test.sh installs mariadb-client)")
    })
    .await
    .expect("dump task");
    assert!(dump.status.success(), "mariadb-dump: {}", String::from_utf8_lossy(&dump.stderr));
    tokio::time::sleep(Duration::from_millis(700)).await;
    stop.store(true, Ordering::Relaxed);
    let mut ops = 0;
    for t in tasks {
        ops += t.await.expect("writer");
    }
    let expected = root(&source, &format!("CHECKSUM TABLE {TABLES}"));
    assert!(!expected.contains("NULL"), "{expected}");
    let text = String::from_utf8_lossy(&dump.stdout).into_owned();

    // The recorded position: `-- CHANGE MASTER TO MASTER_LOG_FILE='f', MASTER_LOG_POS=n;`.
    let line = text
        .lines()
        .find(|l| l.starts_with("-- CHANGE MASTER TO MASTER_LOG_FILE="))
        .unwrap_or_else(|| panic!("no position in the dump:\n{text}"));
    let file = line.split('\'').nth(1).expect("file name").to_string();
    let pos: u64 = line
        .split("MASTER_LOG_POS=")
        .nth(1)
        .and_then(|p| p.trim_end_matches(';').trim().parse().ok())
        .unwrap_or_else(|| panic!("position in {line}"));
    // The dump was taken while the writers ran: the binlog went on past its position.
    let end = root(&source, "SHOW MASTER STATUS");
    let mut fields = end.split_whitespace();
    let (end_file, end_pos): (&str, u64) =
        (fields.next().expect("file"), fields.next().and_then(|p| p.parse().ok()).expect("pos"));
    assert!((end_file, end_pos) > (file.as_str(), pos), "{ops} writes all before the dump?");
    // The dump's copy is one moment: the accounts' balances sum to the seeded total.
    let target = start(&dir.path().join("target"), &["--initialize-insecure"]);
    feed(target.port, &dump.stdout, "restore");
    assert_eq!(root(&target, "SELECT SUM(bal) FROM live.acct").trim(), "50000");

    // The binlog from the recorded position, this file's rest and every later file.
    let binlog_dir = source_dir.join("binlog");
    let mut files: Vec<String> = std::fs::read_dir(&binlog_dir)
        .expect("binlog dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("binlog.") && n[7..].chars().all(|c| c.is_ascii_digit()))
        .filter(|n| n.as_str() >= file.as_str())
        .collect();
    files.sort();
    assert_eq!(files.first(), Some(&file), "{files:?}");
    let replay = Command::new("mariadb-binlog")
        .arg(format!("--start-position={pos}"))
        .args(files.iter().map(|f| Path::new(&binlog_dir).join(f)))
        .output()
        .expect("run mariadb-binlog (scripts/test.sh installs mariadb-client)");
    assert!(replay.status.success(), "mariadb-binlog: {}", String::from_utf8_lossy(&replay.stderr));
    feed(target.port, &replay.stdout, "binlog replay");

    assert_eq!(root(&target, &format!("CHECKSUM TABLE {TABLES}")), expected, "{ops} writes");
    for sql in ["SELECT * FROM live.acct ORDER BY id", "SELECT * FROM live.log ORDER BY id"] {
        assert_eq!(root(&target, sql), root(&source, sql), "{sql}");
    }
}
