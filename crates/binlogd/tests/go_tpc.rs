//! PingCAP's TPC-C kit, go-tpc (unmodified, from the Go module proxy), against `binlogd
//! serve` (issue 20): `tpcc prepare` of one warehouse (which loads every table with go-tpc's
//! own batched INSERTs, then runs all twelve consistency checks of TPC-C 3.3.2, joins, derived
//! tables and correlated subqueries included), `tpcc run` at 1, 8, 32 and 128 threads for a
//! few seconds each (the five transactions with their joins, row-constructor IN lists and
//! FOR UPDATE reads), then `tpcc check` over the data the runs left.
//!
//! go-tpc exits with success even when a worker stopped on an error (it prints `execute run
//! failed, err …` and returns), so the test reads its output: any `failed` line fails it, and
//! every run must have committed NEW_ORDER transactions. Its `*_ERR` summary rows also count
//! the transactions its own deadline cancels (at most one per thread: `--time` cancels the
//! context under the in-flight ones, and a worker that sees the deadline prints nothing), so
//! more `_ERR` than threads fails the test.
//!
//! The binary is `target/drivers/go-tpc` (`tests/drivers/install.sh gotpc`, which
//! scripts/test.sh runs). Needs go; without it the test fails under `CI=true`. Bounded: the
//! runs last 4 × 5 s, the whole test about two minutes on two cores.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use support::{ok, start, stop};

/// `go-tpc tpcc ARGS` against the server on `port`, database `tpcc`, one warehouse; its
/// output (stdout and stderr) after checking that it reports no error.
fn gotpc(bin: &Path, port: u16, args: &[&str]) -> String {
    let started = Instant::now();
    let port = port.to_string();
    let out = Command::new(bin)
        .args(["tpcc", "-H", "127.0.0.1", "-P", &port, "-U", "root", "-D", "tpcc"])
        .args(["--warehouses", "1"])
        .args(args)
        .output()
        .expect("run go-tpc");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "go-tpc {args:?} exited with {}:\n{text}", out.status);
    let errors: Vec<&str> =
        text.lines().filter(|l| l.contains("failed") || l.contains("panic")).collect();
    assert!(errors.is_empty(), "go-tpc {args:?} reported errors:\n{}\n\n{text}", errors.join("\n"));
    eprintln!("go-tpc {args:?}: {:.1} s", started.elapsed().as_secs_f64());
    text
}

/// The `[Summary] *_ERR - Takes(s): …, Count: N` counts of a run's report, summed.
fn errors(report: &str) -> u64 {
    report
        .lines()
        .filter(|l| l.starts_with("[Summary] ") && l.contains("_ERR "))
        .filter_map(|l| l.split("Count: ").nth(1))
        .filter_map(|c| c.split(',').next())
        .filter_map(|c| c.trim().parse::<u64>().ok())
        .sum()
}

/// The `[Summary] NEW_ORDER - Takes(s): …, Count: N` count of a run's report.
fn new_orders(report: &str) -> u64 {
    report
        .lines()
        .filter(|l| l.starts_with("[Summary] NEW_ORDER "))
        .filter_map(|l| l.split("Count: ").nth(1))
        .filter_map(|c| c.split(',').next())
        .filter_map(|c| c.trim().parse().ok())
        .next()
        .unwrap_or_else(|| panic!("no NEW_ORDER summary in:\n{report}"))
}

#[test]
fn go_tpc_prepare_run_and_check_one_warehouse() {
    if !support::mariadb::have("go") {
        assert!(std::env::var("CI").is_err(), "go is needed (scripts/test.sh installs it)");
        eprintln!("skipped: go not installed");
        return;
    }
    let bin = support::drivers::install("gotpc").join("go-tpc");
    let dir = tempfile::tempdir().expect("tempdir");
    let server =
        start(&dir.path().join("data"), &["--initialize-insecure", "--max-connections=400"]);
    ok(support::mariadb(server.port, "root", "", &[], "CREATE DATABASE tpcc"));
    let t = Instant::now();
    // prepare loads with 4 threads and then runs every check (--check-all's twelve).
    gotpc(&bin, server.port, &["prepare", "-T", "4", "--retry-count", "0"]);
    let mut summary = vec![format!("prepare+checks {:.1} s", t.elapsed().as_secs_f64())];
    for threads in [1u64, 8, 32, 128] {
        let th = threads.to_string();
        let report = gotpc(
            &bin,
            server.port,
            &["run", "-T", th.as_str(), "--time", "5s", "--interval", "5s"],
        );
        let n = new_orders(&report);
        assert!(n > 0, "no NEW_ORDER committed at {threads} threads:\n{report}");
        let e = errors(&report);
        assert!(e <= threads, "{e} failed transactions at {threads} threads:\n{report}");
        summary.push(format!("{threads} threads: {n} new orders in 5 s"));
    }
    let t = Instant::now();
    let report = gotpc(&bin, server.port, &["check", "-T", "1"]);
    assert!(report.contains("begin to check warehouse 1"), "check ran nothing:\n{report}");
    summary.push(format!("check {:.1} s", t.elapsed().as_secs_f64()));
    eprintln!("go-tpc: {}", summary.join("; "));
    stop(server, "-TERM");
}
