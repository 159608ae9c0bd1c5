//! `binlogd torture` as CI runs it: short crash campaigns (kill -9 under a write load, then
//! every recovery checked) in both commit modes, each with a replica that must converge after
//! every restart of the primary and is itself killed in some cycles, and one fault campaign
//! where fdatasync fails (strace fault injection). The tool exits non-zero on any violation,
//! naming cycle and seed.

mod support;

use std::process::Command;

fn torture(args: &[&str]) -> String {
    let out = support::binlogd(&["torture"]).args(args).output().expect("run binlogd torture");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "binlogd torture {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The number just before `word` on the summary line.
fn summary_number(stdout: &str, word: &str) -> u64 {
    let summary = stdout.lines().find(|l| l.starts_with("summary:")).expect("summary line");
    let at = summary.find(word).unwrap_or_else(|| panic!("{word} in {summary}"));
    summary[..at].split_whitespace().last().and_then(|n| n.parse().ok()).expect("a count")
}

/// The summary line's "N acknowledged commits ..., M lost" figures.
fn acked_and_lost(stdout: &str) -> (u64, u64) {
    (summary_number(stdout, " acknowledged commits"), summary_number(stdout, " lost"))
}

/// The campaign committed something and lost no acknowledged commit (`what` labels a
/// failure).
fn assert_acked_none_lost(stdout: &str, what: &str) {
    let (acked, lost) = acked_and_lost(stdout);
    assert_eq!(lost, 0, "{what}: {stdout}");
    assert!(acked > 0, "{what}: the load committed nothing:\n{stdout}");
}

/// `workers`: the replica's `replica_parallel_workers`.
fn campaign(mode: &str, seed: &str, workers: u32) {
    let stdout = torture(&[
        "--cycles=20",
        "--seconds-per-cycle=0.5",
        "--clients=4",
        "--cycles-per-datadir=10",
        "--server-option=--max_binlog_size=64K",
        &format!("--mode={mode}"),
        &format!("--seed={seed}"),
        "--replica",
        "--replica-timeout=30",
        &format!("--replica-workers={workers}"),
    ]);
    assert_acked_none_lost(&stdout, mode);
    // 20 loads, 2 data directories: 20 restarts after a kill, one clean shutdown each.
    assert_eq!(stdout.lines().filter(|l| l.contains("recovered in")).count(), 20, "{stdout}");
    // The replica converged after each of them, and was killed itself in some cycles (the
    // seed decides which; these seeds kill it at least once).
    assert_eq!(summary_number(&stdout, " restarts (p50"), 20, "{stdout}");
    assert_eq!(stdout.lines().filter(|l| l.contains("replica converged in")).count(), 20);
    assert!(summary_number(&stdout, " times") > 0, "the replica was never killed:\n{stdout}");
}

#[test]
fn crash_campaign_classic() {
    campaign("classic", "611", 4);
}

#[test]
fn crash_campaign_binlog_in_redo() {
    campaign("in-redo", "612", 1);
}

#[test]
fn failing_fdatasync_refuses_commits_and_loses_nothing() {
    if Command::new("strace").arg("-V").output().is_err() {
        panic!("strace is missing: scripts/test.sh installs it");
    }
    let stdout = torture(&[
        "--cycles=2",
        "--seconds-per-cycle=2",
        "--clients=4",
        "--seed=613",
        "--expect-refusals",
        "--server-wrapper=strace -f -qq --seccomp-bpf -o /dev/null -e trace=fdatasync \
         -e inject=fdatasync:error=EIO:when=60+",
    ]);
    let (_, lost) = acked_and_lost(&stdout);
    assert_eq!(lost, 0, "{stdout}");
    // MySQL's ER_ERROR_ON_WRITE (1026) names the failed fdatasync.
    assert!(stdout.contains("refused (first: ERROR 1026"), "{stdout}");
}

/// Every `innodb_flush_method` survives kill -9 with every acknowledged commit: the campaigns
/// above run the default (O_DIRECT|O_DSYNC writes of the redo, or write + fdatasync where the
/// file system has no direct I/O), this one names each value, in binlog-in-redo mode where the
/// redo flush is the one durable write per group.
#[test]
fn crash_campaign_each_innodb_flush_method() {
    for method in ["fsync", "O_DSYNC"] {
        let stdout = torture(&[
            "--cycles=3",
            "--seconds-per-cycle=0.5",
            "--clients=4",
            "--seed=615",
            "--mode=in-redo",
            &format!("--server-option=--innodb-flush-method={method}"),
        ]);
        assert_acked_none_lost(&stdout, method);
        assert_eq!(stdout.lines().filter(|l| l.contains("recovered in")).count(), 3, "{stdout}");
    }
}

/// The developer options bench/compare uses (group commit OFF, a simulated slow device) keep
/// the same guarantees: a short campaign with both.
#[test]
fn crash_campaign_group_commit_off_on_a_simulated_slow_device() {
    let stdout = torture(&[
        "--cycles=4",
        "--seconds-per-cycle=0.5",
        "--clients=4",
        "--seed=614",
        "--server-option=--binlog-group-commit=OFF",
        "--server-option=--simulated-fsync-latency-us=2000",
    ]);
    assert_acked_none_lost(&stdout, "group commit off, slow device");
}

#[test]
fn bad_developer_option_values_are_refused() {
    for option in ["--simulated-fsync-latency-us=fast", "--binlog-group-commit=maybe"] {
        let out = support::serve(&[option, "--port=0"]).output().expect("run binlogd serve");
        assert!(!out.status.success(), "{option} accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let (name, value) = option.split_once('=').unwrap();
        assert!(
            stderr.contains(&format!("invalid value '{value}' for option '{name}'")),
            "{option}: {stderr}"
        );
    }
}
