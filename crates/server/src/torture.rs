//! `binlogd torture`: a bounded crash campaign against `binlogd serve` as a real process.
//!
//! Each cycle starts the server (this same executable, `serve`, loopback only) on a
//! data directory, which recovers whatever the previous cycle's crash left; checks the
//! invariants of DESIGN.md ("Crash recovery"); runs a write load in which every client inserts
//! rows with unique (client, sequence) keys, one autocommit INSERT at a time, noting which
//! commits it attempted and which were acknowledged; and kills the server with SIGKILL at a
//! moment drawn from the seed. After the last cycle the server is started once more, checked,
//! and stopped cleanly.
//!
//! The checks after each restart:
//! - every acknowledged row is in the table;
//! - no row that was never attempted is in the table (and each row holds what was sent);
//! - engine and binlog agree: the set of rows in the binlog's complete transactions equals the
//!   set in the table (a commit in flight at the kill may be in both or in neither);
//! - `@@GLOBAL.gtid_executed` equals the GTIDs of the binlog files;
//! - `binlogd dump --verify` (the same function) reads every binlog file to its end.
//!
//! With `--replica`, a second `binlogd serve` replicates from the primary (CHANGE REPLICATION
//! SOURCE TO ... SOURCE_AUTO_POSITION=1; START REPLICA) for the life of each data directory. It
//! is not restarted when the primary is killed: its receiver reconnects by itself, so the
//! primary is always started on the same port, a free one chosen below the kernel's ephemeral
//! range (with `--port=0` it would move at each restart; below the range no outgoing
//! connection can take it meanwhile). After each restart of the primary, the replica must
//! converge within `--replica-timeout`: its `gtid_executed` equal to the primary's and its
//! table equal to the primary's (`SELECT ... ORDER BY id` on both, compared row by row). A
//! replica that had received a transaction the primary lost would hold GTIDs the primary does
//! not (MySQL's 1236 "more GTIDs than the source") and never converge. The time from the
//! primary's "ready for connections" to convergence is reported (p50, max). In a seeded share
//! of the cycles (`--replica-kill-rate`) the replica is killed with SIGKILL too, at a seeded
//! moment of the load, and restarted at once (it resumes replicating at boot). The replica's
//! decisions draw from their own generator, so a seed kills the primary at the same moments
//! with and without `--replica`.
//!
//! A data directory serves `--cycles-per-datadir` cycles, then a fresh one is initialized: the
//! checks read every row and every binlog file, so this bounds their cost per cycle.
//!
//! Fault runs (bench/torture-faults.sh) use two more options. `--server-wrapper` starts the
//! server under a command such as `strace -f -e inject=fdatasync:error=EIO:when=40+`; the server
//! (not the wrapper) is what gets killed, since the whole process group is. `--fill-disk`
//! fills the file system of the data directory with a ballast file during the load and deletes
//! it after the kill. With `--expect-refusals`, each cycle must see the server refuse commits
//! with a MySQL error, and once a commit was refused, none may be acknowledged in that cycle.
//! A refused commit is treated like one in flight: it may be present or absent after the
//! restart, in the table and the binlog alike.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use binlog::event::{BinlogFileReader, EventBody, RowsKind, Value};
use binlog::gtid::GtidSet;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, OptsBuilder};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::dump;

/// Rows of one client are `client * KEY_STRIDE + sequence`.
const KEY_STRIDE: i64 = 1_000_000_000;
const DB: &str = "torture";

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Binlog file fsync + redo fsync per group (sync_binlog=1).
    Classic,
    /// binlog_in_redo=ON: one redo fsync per group.
    InRedo,
}

/// `binlogd torture` options.
#[derive(clap::Args, Debug, Clone)]
pub struct TortureArgs {
    /// Number of crash cycles.
    #[arg(long, default_value_t = 20)]
    pub cycles: u32,
    /// Longest load phase of a cycle; the kill comes at a seeded moment in its second 80%.
    #[arg(long, default_value_t = 2.0)]
    pub seconds_per_cycle: f64,
    /// Commit path under test.
    #[arg(long, value_enum, default_value = "classic")]
    pub mode: Mode,
    /// Concurrent writing clients.
    #[arg(long, default_value_t = 8)]
    pub clients: u32,
    /// Seed of the kill moments (default: from the clock, printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Work directory (default: a new temporary directory, removed on success).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Cycles per data directory before a fresh one is initialized.
    #[arg(long, default_value_t = 25)]
    pub cycles_per_datadir: u32,
    /// Extra `serve` option, e.g. `--server-option=--max_binlog_size=64K` (repeatable).
    #[arg(long, allow_hyphen_values = true)]
    pub server_option: Vec<String>,
    /// Start the server under this command (split on spaces), e.g. an strace fault injection.
    #[arg(long)]
    pub server_wrapper: Option<String>,
    /// During the load, fill the data directory's file system; free it after the kill.
    #[arg(long)]
    pub fill_disk: bool,
    /// Every cycle must see commits refused with a MySQL error (fault runs).
    #[arg(long)]
    pub expect_refusals: bool,
    /// Also run a replica of the primary (a second `binlogd serve`, SOURCE_AUTO_POSITION=1)
    /// that stays up across the primary's crashes and must converge after each restart.
    #[arg(long)]
    pub replica: bool,
    /// Longest wait, in seconds, for the replica to converge after a restart of the primary.
    #[arg(long, default_value_t = 60.0)]
    pub replica_timeout: f64,
    /// Share of the cycles in which the replica is killed with SIGKILL too (and restarted).
    #[arg(long, default_value_t = 0.25)]
    pub replica_kill_rate: f64,
    /// The replica's `replica_parallel_workers`.
    #[arg(long, default_value_t = 4)]
    pub replica_workers: u32,
}

/// Why the campaign stopped.
#[derive(Debug, thiserror::Error)]
pub enum TortureError {
    #[error("cycle {cycle} (seed {seed}): {message}")]
    Violation { cycle: u32, seed: u64, message: String },
    #[error("cycle {cycle} (seed {seed}): cannot run the campaign: {message}")]
    Setup { cycle: u32, seed: u64, message: String },
}

/// What one client did in one cycle.
#[derive(Debug, Default, Clone)]
struct ClientLog {
    /// Highest sequence number sent (every lower one was sent too).
    attempted: i64,
    /// Sequences whose commit was acknowledged with OK.
    acked: Vec<i64>,
    /// Commits answered with an error (code, message): first one, and how many.
    refused: u64,
    first_refusal: Option<(u16, String)>,
    /// A commit acknowledged after one was refused.
    acked_after_refusal: bool,
    /// The error that ended the client (connection lost at the kill, normally).
    ended_by: Option<String>,
}

/// Everything sent to the current data directory so far.
#[derive(Default)]
struct Ledger {
    /// client number -> highest attempted sequence
    attempted: HashMap<i64, i64>,
    acked: Vec<i64>,
    /// Rows of the last load whose commit was attempted but not acknowledged (in flight at
    /// the kill, or refused): the next check counts how many of them committed.
    unsure: Vec<i64>,
}

impl Ledger {
    fn was_attempted(&self, id: i64) -> bool {
        let (client, seq) = (id / KEY_STRIDE, id % KEY_STRIDE);
        seq >= 1 && self.attempted.get(&client).is_some_and(|&a| seq <= a)
    }
}

struct Server {
    child: Child,
    port: u16,
    log: PathBuf,
    /// Started under `--server-wrapper`.
    wrapped: bool,
}

/// The replica of the current data directory's primary.
struct ReplicaNode {
    server: Server,
    datadir: PathBuf,
    /// Processes started on `datadir` so far (names their logs).
    starts: u32,
}

impl Server {
    /// SIGKILL to the whole process group: the server and any wrapper around it.
    fn kill9(&mut self) {
        let pgid = self.child.id();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.kill9();
        }
    }
}

struct Campaign<'a> {
    args: &'a TortureArgs,
    seed: u64,
    work: PathBuf,
    runtime: tokio::runtime::Runtime,
    /// The primary's port: 0 (any) without a replica, else the same one at every start.
    primary_port: u16,
}

/// The replica's server id (the primary keeps the default, 1).
const REPLICA_SERVER_ID: u32 = 2;

/// Runs `binlogd torture`.
pub fn run(args: &TortureArgs) -> Result<(), TortureError> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let setup = |message: String| TortureError::Setup { cycle: 0, seed, message };
    if args.clients == 0 || args.cycles == 0 || args.cycles_per_datadir == 0 {
        return Err(setup("--cycles, --clients and --cycles-per-datadir must be > 0".into()));
    }
    if !(args.seconds_per_cycle > 0.0 && args.seconds_per_cycle <= 3600.0) {
        return Err(setup("--seconds-per-cycle must be in (0, 3600]".into()));
    }
    if args.replica {
        if !(args.replica_timeout > 0.0 && args.replica_timeout <= 3600.0) {
            return Err(setup("--replica-timeout must be in (0, 3600]".into()));
        }
        if !(0.0..=1.0).contains(&args.replica_kill_rate) {
            return Err(setup("--replica-kill-rate must be in [0, 1]".into()));
        }
        if args.fill_disk {
            // The ballast would fill the replica's file system as well, and a replica that
            // cannot write must be restarted: that is a different campaign.
            return Err(setup("--replica cannot be combined with --fill-disk".into()));
        }
    }
    let (work, _temp) = match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| setup(format!("{}: {e}", dir.display())))?;
            (dir.clone(), None)
        }
        None => {
            let temp = tempfile::Builder::new()
                .prefix("binlogd-torture-")
                .tempdir()
                .map_err(|e| setup(format!("temporary directory: {e}")))?;
            (temp.path().to_path_buf(), Some(temp))
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| setup(format!("tokio runtime: {e}")))?;
    let mode = match args.mode {
        Mode::Classic => "classic",
        Mode::InRedo => "in-redo",
    };
    let primary_port = if args.replica { fixed_port().map_err(setup)? } else { 0 };
    let replica = if args.replica {
        format!(
            ", a replica ({} workers, killed too in {:.0}% of the cycles, primary on port {primary_port})",
            args.replica_workers,
            args.replica_kill_rate * 100.0
        )
    } else {
        String::new()
    };
    println!(
        "binlogd torture: {} cycles, mode {mode}, {} clients, up to {}s of load per cycle{replica}, seed {seed}, dir {}",
        args.cycles,
        args.clients,
        args.seconds_per_cycle,
        work.display()
    );
    let campaign = Campaign { args, seed, work, runtime, primary_port };
    let result = campaign.run();
    if result.is_err() {
        if let Some(temp) = _temp {
            // Keep the evidence.
            let kept = temp.keep();
            eprintln!("binlogd torture: work directory kept: {}", kept.display());
        }
    }
    result
}

#[derive(Default)]
struct Totals {
    acked_checked: u64,
    lost: u64,
    in_flight: u64,
    in_flight_committed: u64,
    refused: u64,
    recovery_ms: Vec<f64>,
    /// From the primary's "ready for connections" to the replica's convergence.
    convergence_ms: Vec<f64>,
    replica_kills: u64,
}

impl Campaign<'_> {
    fn violation(&self, cycle: u32, message: impl Into<String>) -> TortureError {
        TortureError::Violation { cycle, seed: self.seed, message: message.into() }
    }

    fn setup_err(&self, cycle: u32, message: impl Into<String>) -> TortureError {
        TortureError::Setup { cycle, seed: self.seed, message: message.into() }
    }

    fn run(&self) -> Result<(), TortureError> {
        let args = self.args;
        let mut rng = StdRng::seed_from_u64(self.seed);
        // The replica's kills draw from their own generator: the primary's kill moments are
        // the same for a seed with and without --replica.
        let mut replica_rng = StdRng::seed_from_u64(self.seed ^ 0x7265_706c_6963_6121);
        let mut totals = Totals::default();
        let mut ledger = Ledger::default();
        let mut datadir = PathBuf::new();
        let mut replica: Option<ReplicaNode> = None;
        let started = Instant::now();
        for cycle in 1..=args.cycles + 1 {
            let last = cycle == args.cycles + 1;
            let generation = (cycle - 1) / args.cycles_per_datadir;
            let fresh = !last && (cycle - 1) % args.cycles_per_datadir == 0;
            if fresh {
                // The previous data directory was checked at this cycle's start: start over.
                if cycle > 1 {
                    let (server, recovery_ms, checked) = self.recover_and_verify(
                        cycle,
                        &datadir,
                        &mut ledger,
                        &mut totals,
                        replica.as_ref(),
                    )?;
                    if let Some(node) = replica.take() {
                        self.stop_clean(cycle, node.server)?;
                        let _ = std::fs::remove_dir_all(&node.datadir);
                    }
                    self.stop_clean(cycle, server)?;
                    println!(
                        "cycle {cycle:>4}: recovered in {recovery_ms:.0} ms, {checked} clean \
                         shutdown, data directory retired"
                    );
                    let _ = std::fs::remove_dir_all(&datadir);
                }
                datadir = self.work.join(format!("data{generation}"));
                let _ = std::fs::remove_dir_all(&datadir);
                ledger = Ledger::default();
            }
            let mut line = format!("cycle {cycle:>4}: ");
            let mut server = if fresh {
                let (server, _) = self.start(cycle, &datadir, true)?;
                self.create_table(cycle, server.port)?;
                let _ = write!(line, "new datadir, ");
                if args.replica {
                    replica = Some(self.new_replica(cycle, generation)?);
                    let _ = write!(line, "new replica, ");
                }
                server
            } else {
                let (server, recovery_ms, checked) = self.recover_and_verify(
                    cycle,
                    &datadir,
                    &mut ledger,
                    &mut totals,
                    replica.as_ref(),
                )?;
                let _ = write!(line, "recovered in {recovery_ms:.0} ms, {checked} ");
                server
            };
            if last {
                if let Some(node) = replica.take() {
                    self.stop_clean(cycle, node.server)?;
                }
                self.stop_clean(cycle, server)?;
                println!("{line}final check, clean shutdown");
                break;
            }
            let kill_after =
                Duration::from_secs_f64(args.seconds_per_cycle * rng.random_range(0.2..=1.0));
            let replica_kill = match &mut replica {
                Some(node) if replica_rng.random_bool(args.replica_kill_rate) => {
                    Some((node, kill_after.mul_f64(replica_rng.random_range(0.1..=0.9))))
                }
                _ => None,
            };
            let replica_killed = replica_kill.as_ref().map(|(_, at)| *at);
            let logs = self.load(cycle, &mut server, &datadir, kill_after, replica_kill)?;
            let mut acked = 0u64;
            let mut attempted = 0u64;
            let mut refused = 0u64;
            let mut first_refusal = None;
            for (client, log) in &logs {
                ledger.attempted.insert(*client, log.attempted);
                ledger.acked.extend(log.acked.iter().map(|s| client * KEY_STRIDE + s));
                let acked_here: HashSet<i64> = log.acked.iter().copied().collect();
                ledger.unsure.extend(
                    (1..=log.attempted)
                        .filter(|s| !acked_here.contains(s))
                        .map(|s| client * KEY_STRIDE + s),
                );
                acked += log.acked.len() as u64;
                attempted += log.attempted as u64;
                refused += log.refused;
                if first_refusal.is_none() {
                    first_refusal.clone_from(&log.first_refusal);
                }
                if log.acked_after_refusal && args.expect_refusals {
                    return Err(self.violation(
                        cycle,
                        format!("client {client}: a commit was acknowledged after one was refused"),
                    ));
                }
            }
            totals.refused += refused;
            totals.acked_checked += acked;
            let _ = write!(
                line,
                "load {:.2}s: {attempted} commits attempted, {acked} acknowledged",
                kill_after.as_secs_f64()
            );
            if let Some(at) = replica_killed {
                totals.replica_kills += 1;
                let _ = write!(line, ", replica SIGKILL at {:.2}s and restarted", at.as_secs_f64());
            }
            match (&first_refusal, args.expect_refusals) {
                (Some((code, message)), _) => {
                    // The cause chain repeats itself; its head names the error.
                    let head: String = message.chars().take(200).collect();
                    let _ = write!(line, ", {refused} refused (first: ERROR {code}: {head}...)");
                }
                (None, true) => {
                    return Err(self.violation(cycle, "the fault made no commit fail"));
                }
                (None, false) => {}
            }
            if !args.expect_refusals && refused > 0 {
                return Err(self.violation(
                    cycle,
                    format!("{refused} commits were refused without a fault: {first_refusal:?}"),
                ));
            }
            println!("{line}; SIGKILL");
        }
        let (p50, max) = p50_max(&totals.recovery_ms);
        let replica = if args.replica {
            let (c50, cmax) = p50_max(&totals.convergence_ms);
            format!(
                ", replica converged after {} restarts (p50 {c50:.0} ms, max {cmax:.0} ms), \
                 replica killed {} times",
                totals.convergence_ms.len(),
                totals.replica_kills
            )
        } else {
            String::new()
        };
        println!(
            "summary: {} cycles in {:.0}s, seed {}: {} acknowledged commits (each checked after every later restart of its \
             data directory), {} lost, {} in flight at a kill ({} of them committed), {} refused, recovery p50 {:.0} ms, \
             max {:.0} ms ({} restarts){replica}",
            args.cycles,
            started.elapsed().as_secs_f64(),
            self.seed,
            totals.acked_checked,
            totals.lost,
            totals.in_flight,
            totals.in_flight_committed,
            totals.refused,
            p50,
            max,
            totals.recovery_ms.len()
        );
        Ok(())
    }

    /// Restarts the primary on an existing data directory (crash recovery), records the
    /// recovery time and runs [`Self::verify_all`]; returns the server, the recovery time in ms
    /// and the checks' summary.
    fn recover_and_verify(
        &self,
        cycle: u32,
        datadir: &Path,
        ledger: &mut Ledger,
        totals: &mut Totals,
        replica: Option<&ReplicaNode>,
    ) -> Result<(Server, f64, String), TortureError> {
        let (mut server, recovery_ms) = self.start(cycle, datadir, false)?;
        totals.recovery_ms.push(recovery_ms);
        let checked = self.verify_all(cycle, &mut server, datadir, ledger, totals, replica)?;
        Ok((server, recovery_ms, checked))
    }

    /// The checks after a restart of the primary: its own (`verify`), then the replica's
    /// convergence. The convergence clock starts at the primary's "ready for connections"
    /// (just before this is called) and is read by polling, so it is measured first; if the
    /// replica does not converge, the primary's checks still run first, since a primary that
    /// broke its invariants explains a replica that cannot follow it.
    fn verify_all(
        &self,
        cycle: u32,
        server: &mut Server,
        datadir: &Path,
        ledger: &mut Ledger,
        totals: &mut Totals,
        replica: Option<&ReplicaNode>,
    ) -> Result<String, TortureError> {
        let Some(node) = replica else {
            return self.verify(cycle, server, datadir, ledger, totals);
        };
        let ready = Instant::now();
        let converged = self.converge(server.port, node, ready);
        let checked = self.verify(cycle, server, datadir, ledger, totals)?;
        match converged {
            Ok((ms, rows)) => {
                totals.convergence_ms.push(ms);
                Ok(format!("{checked} replica converged in {ms:.0} ms ({rows} rows equal);"))
            }
            Err(message) => Err(self.violation(cycle, format!("replica: {message}"))),
        }
    }

    /// Starts the primary and waits for "ready for connections"; returns it and the time
    /// that took.
    fn start(
        &self,
        cycle: u32,
        datadir: &Path,
        initialize: bool,
    ) -> Result<(Server, f64), TortureError> {
        let log = datadir.with_extension(format!("{cycle}.log"));
        let extra = [format!("--port={}", self.primary_port)];
        self.spawn(cycle, datadir, log, initialize, &extra, self.args.server_wrapper.as_deref())
    }

    /// Starts `serve` on `datadir` (this same executable, loopback, durable settings, the
    /// campaign's mode and `--server-option`s, then `extra`) and waits for "ready for
    /// connections"; returns it and the time that took.
    fn spawn(
        &self,
        cycle: u32,
        datadir: &Path,
        log: PathBuf,
        initialize: bool,
        extra: &[String],
        wrapper: Option<&str>,
    ) -> Result<(Server, f64), TortureError> {
        let exe = std::env::current_exe()
            .map_err(|e| self.setup_err(cycle, format!("current_exe: {e}")))?;
        let _ = std::fs::remove_file(&log);
        let mut serve_args = vec![
            "serve".to_string(),
            format!("--datadir={}", datadir.display()),
            "--bind-address=127.0.0.1".into(),
            format!("--log-error={}", log.display()),
            "--gtid_mode=ON".into(),
            "--sync_binlog=1".into(),
            "--innodb_flush_log_at_trx_commit=1".into(),
            format!(
                "--binlog_in_redo={}",
                if self.args.mode == Mode::InRedo { "ON" } else { "OFF" }
            ),
        ];
        if initialize {
            serve_args.push("--initialize-insecure".into());
        }
        serve_args.extend(self.args.server_option.iter().cloned());
        serve_args.extend(extra.iter().cloned());
        let mut command = match wrapper {
            Some(wrapper) => {
                let mut words = wrapper.split_whitespace();
                let program = words
                    .next()
                    .ok_or_else(|| self.setup_err(cycle, "--server-wrapper is empty"))?;
                let mut c = Command::new(program);
                c.args(words).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        use std::os::unix::process::CommandExt as _;
        command
            .args(&serve_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        let begun = Instant::now();
        let child = command
            .spawn()
            .map_err(|e| self.setup_err(cycle, format!("cannot start the server: {e}")))?;
        let mut server = Server { child, port: 0, log, wrapped: wrapper.is_some() };
        let deadline = begun + Duration::from_secs(120);
        loop {
            let text = std::fs::read_to_string(&server.log).unwrap_or_default();
            if let Some(rest) = text.split("ready for connections").nth(1) {
                let elapsed = begun.elapsed().as_secs_f64() * 1000.0;
                let port = rest.split("port: ").nth(1).and_then(|p| p.split_whitespace().next());
                server.port = port
                    .and_then(|p| p.parse().ok())
                    .ok_or_else(|| self.setup_err(cycle, format!("no port in the log:\n{text}")))?;
                return Ok((server, elapsed));
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(self.violation(
                    cycle,
                    format!("the server exited ({status}) before it was ready; its log:\n{text}"),
                ));
            }
            if Instant::now() > deadline {
                return Err(self.violation(cycle, format!("not ready after 120 s; log:\n{text}")));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn stop_clean(&self, cycle: u32, mut server: Server) -> Result<(), TortureError> {
        // SIGTERM to the server itself: the group leader, or the wrapper's child (a wrapper
        // such as strace then exits with the server's status).
        let leader = server.child.id();
        let pid = if server.wrapped {
            std::fs::read_to_string(format!("/proc/{leader}/task/{leader}/children"))
                .ok()
                .and_then(|c| c.split_whitespace().next().and_then(|p| p.parse().ok()))
                .unwrap_or(leader)
        } else {
            leader
        };
        let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match server.child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => {
                    let log = std::fs::read_to_string(&server.log).unwrap_or_default();
                    return Err(self.violation(
                        cycle,
                        format!("clean shutdown exited with {status}; log:\n{log}"),
                    ));
                }
                _ if Instant::now() > deadline => {
                    return Err(self.violation(cycle, "no clean shutdown within 60 s"));
                }
                _ => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }

    fn opts(port: u16, db: Option<&str>) -> OptsBuilder {
        OptsBuilder::default()
            .ip_or_hostname("127.0.0.1")
            .tcp_port(port)
            .user(Some("root"))
            .pass(Some(""))
            .db_name(db)
            .prefer_socket(false)
    }

    fn create_table(&self, cycle: u32, port: u16) -> Result<(), TortureError> {
        self.runtime
            .block_on(async {
                let mut conn = Conn::new(Self::opts(port, None)).await?;
                conn.query_drop(format!("CREATE DATABASE {DB}")).await?;
                conn.query_drop(format!(
                    "CREATE TABLE {DB}.t (id BIGINT PRIMARY KEY, c BIGINT NOT NULL, s BIGINT NOT NULL)"
                ))
                .await?;
                conn.disconnect().await
            })
            .map_err(|e: mysql_async::Error| self.setup_err(cycle, format!("create table: {e}")))
    }

    /// Starts a replica on a fresh data directory and points it at the primary.
    fn new_replica(&self, cycle: u32, generation: u32) -> Result<ReplicaNode, TortureError> {
        let datadir = self.work.join(format!("replica{generation}"));
        let _ = std::fs::remove_dir_all(&datadir);
        let mut starts = 0;
        let server = self.start_replica(cycle, &datadir, &mut starts, true)?;
        let node = ReplicaNode { server, datadir, starts };
        let source = format!(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={}, \
             SOURCE_USER='root', SOURCE_PASSWORD='', SOURCE_AUTO_POSITION=1, \
             SOURCE_CONNECT_RETRY=1, SOURCE_HEARTBEAT_PERIOD=1",
            self.primary_port
        );
        let port = node.server.port;
        self.runtime
            .block_on(async {
                let mut conn = Conn::new(Self::opts(port, None)).await?;
                conn.query_drop(source).await?;
                conn.query_drop("START REPLICA").await?;
                conn.disconnect().await
            })
            .map_err(|e: mysql_async::Error| {
                self.violation(cycle, format!("replica: CHANGE REPLICATION SOURCE/START: {e}"))
            })?;
        Ok(node)
    }

    /// Starts (or restarts) the replica's server on its data directory.
    fn start_replica(
        &self,
        cycle: u32,
        datadir: &Path,
        starts: &mut u32,
        initialize: bool,
    ) -> Result<Server, TortureError> {
        *starts += 1;
        let log = datadir.with_extension(format!("{starts}.log"));
        let extra = [
            "--port=0".to_string(),
            format!("--server-id={REPLICA_SERVER_ID}"),
            format!("--replica-parallel-workers={}", self.args.replica_workers),
        ];
        let (server, _) =
            self.spawn(cycle, datadir, log, initialize, &extra, None).map_err(|e| match e {
                TortureError::Violation { cycle, seed, message } => {
                    TortureError::Violation { cycle, seed, message: format!("replica: {message}") }
                }
                other => other,
            })?;
        Ok(server)
    }

    /// Polls the replica until its `gtid_executed` and its rows (ordered by id) equal the
    /// primary's, for at most `--replica-timeout`; returns the milliseconds since `ready` and
    /// the number of rows, or what still differed and the replica's SHOW REPLICA STATUS.
    fn converge(
        &self,
        primary_port: u16,
        node: &ReplicaNode,
        ready: Instant,
    ) -> Result<(f64, usize), String> {
        let deadline = ready + Duration::from_secs_f64(self.args.replica_timeout);
        let replica_port = node.server.port;
        self.runtime.block_on(async {
            let (want_gtids, want_rows) = table_and_gtids(primary_port)
                .await
                .map_err(|e| format!("reading the primary: {e}"))?;
            let mut conn: Option<Conn> = None;
            let mut differs = String::new();
            loop {
                if conn.is_none() {
                    match Conn::new(Self::opts(replica_port, Some(DB))).await {
                        Ok(c) => conn = Some(c),
                        Err(e) => differs = format!("cannot connect: {e}"),
                    }
                }
                if let Some(c) = conn.as_mut() {
                    match replica_difference(c, &want_gtids, &want_rows).await {
                        Ok(None) => {
                            let ms = ready.elapsed().as_secs_f64() * 1000.0;
                            if let Some(c) = conn.take() {
                                let _ = c.disconnect().await;
                            }
                            return Ok((ms, want_rows.len()));
                        }
                        Ok(Some(d)) => differs = d,
                        Err(e) => {
                            differs = format!("query: {e}");
                            conn = None;
                        }
                    }
                }
                if Instant::now() > deadline {
                    let status = replica_status(replica_port).await;
                    return Err(format!(
                        "not converged {:.1} s after the primary's restart: {differs}; \
                         SHOW REPLICA STATUS: {status}; log: {}",
                        self.args.replica_timeout,
                        node.server.log.display()
                    ));
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    }

    /// Runs the write load until the kill; returns each client's log by client number.
    /// With `replica_kill`, the replica is killed at that moment of the load and restarted at
    /// once (it resumes replicating at boot from its saved settings).
    fn load(
        &self,
        cycle: u32,
        server: &mut Server,
        datadir: &Path,
        kill_after: Duration,
        replica_kill: Option<(&mut ReplicaNode, Duration)>,
    ) -> Result<BTreeMap<i64, ClientLog>, TortureError> {
        let stop = Arc::new(AtomicBool::new(false));
        let refusals = Arc::new(AtomicU64::new(0));
        let port = server.port;
        let first_client = i64::from(cycle) * i64::from(self.args.clients);
        let handles: Vec<_> = (0..i64::from(self.args.clients))
            .map(|i| {
                let (stop, refusals) = (stop.clone(), refusals.clone());
                let client = first_client + i;
                self.runtime.spawn(client_load(port, client, stop, refusals))
            })
            .collect();
        let begun = Instant::now();
        let ballast = datadir.join("ballast");
        if self.args.fill_disk {
            std::thread::sleep(kill_after / 3);
            fill(&ballast).map_err(|e| self.setup_err(cycle, format!("ballast: {e}")))?;
        }
        if let Some((node, at)) = replica_kill {
            std::thread::sleep(at.saturating_sub(begun.elapsed()));
            node.server.kill9();
            node.server = self.start_replica(cycle, &node.datadir, &mut node.starts, false)?;
        }
        std::thread::sleep(kill_after.saturating_sub(begun.elapsed()));
        if self.args.expect_refusals {
            // A fault injected after the Nth fdatasync (`strace ... when=N+`) may not have
            // struck yet when the machine is slow (fewer, larger groups): keep the load on
            // until a commit has been refused, for at most ten times the planned time.
            let cap = kill_after * 10;
            while refusals.load(Ordering::Relaxed) == 0 && begun.elapsed() < cap {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        server.kill9();
        stop.store(true, Ordering::Release);
        if self.args.fill_disk {
            std::fs::remove_file(&ballast)
                .map_err(|e| self.setup_err(cycle, format!("remove ballast: {e}")))?;
        }
        let mut logs = BTreeMap::new();
        for (i, handle) in handles.into_iter().enumerate() {
            let log = self
                .runtime
                .block_on(handle)
                .map_err(|e| self.setup_err(cycle, format!("client task: {e}")))?;
            logs.insert(first_client + i as i64, log);
        }
        Ok(logs)
    }

    /// The checks after a restart; returns a short description for the cycle line.
    fn verify(
        &self,
        cycle: u32,
        server: &mut Server,
        datadir: &Path,
        ledger: &mut Ledger,
        totals: &mut Totals,
    ) -> Result<String, TortureError> {
        let port = server.port;
        let (rows, gtid_text) = self
            .runtime
            .block_on(async {
                let mut conn = Conn::new(Self::opts(port, Some(DB))).await?;
                let rows: Vec<(i64, i64, i64)> = conn.query("SELECT id, c, s FROM t").await?;
                let gtids: Option<String> =
                    conn.query_first("SELECT @@GLOBAL.gtid_executed").await?;
                conn.disconnect().await?;
                Ok((rows, gtids.unwrap_or_default()))
            })
            .map_err(|e: mysql_async::Error| {
                self.violation(cycle, format!("query after restart: {e}"))
            })?;
        let mut table = HashSet::with_capacity(rows.len());
        for (id, c, s) in rows {
            if !ledger.was_attempted(id) {
                return Err(self.violation(cycle, format!("row {id} was never attempted")));
            }
            if c != id / KEY_STRIDE || s != id % KEY_STRIDE {
                return Err(self.violation(cycle, format!("row {id} holds ({c}, {s})")));
            }
            table.insert(id);
        }
        let mut lost = Vec::new();
        for id in &ledger.acked {
            if !table.contains(id) {
                lost.push(*id);
            }
        }
        totals.lost += lost.len() as u64;
        if !lost.is_empty() {
            return Err(self.violation(
                cycle,
                format!(
                    "{} acknowledged rows lost, e.g. {:?}",
                    lost.len(),
                    &lost[..lost.len().min(5)]
                ),
            ));
        }
        let binlog = read_binlog(&datadir.join(binlogd::datadir::BINLOG_DIR))
            .map_err(|message| self.violation(cycle, message))?;
        if binlog.rows != table {
            let only_binlog: Vec<_> = binlog.rows.difference(&table).take(5).collect();
            let only_table: Vec<_> = table.difference(&binlog.rows).take(5).collect();
            return Err(self.violation(
                cycle,
                format!(
                    "engine and binlog disagree: {} rows in the table, {} in the binlog; \
                     only in the binlog: {only_binlog:?}; only in the table: {only_table:?}",
                    table.len(),
                    binlog.rows.len()
                ),
            ));
        }
        let executed: GtidSet = gtid_text.replace(['\n', ' '], "").parse().map_err(|e| {
            self.violation(cycle, format!("gtid_executed {gtid_text:?} does not parse: {e}"))
        })?;
        if executed != binlog.gtids {
            return Err(self.violation(
                cycle,
                format!("gtid_executed is {executed} but the binlog holds {}", binlog.gtids),
            ));
        }
        // The last load's commits attempted but not acknowledged: in flight at the kill.
        let in_flight = ledger.unsure.len() as u64;
        let in_flight_committed =
            ledger.unsure.drain(..).filter(|id| table.contains(id)).count() as u64;
        totals.in_flight += in_flight;
        totals.in_flight_committed += in_flight_committed;
        Ok(format!(
            "{} acked rows present, {in_flight_committed}/{in_flight} in-flight committed, \
             binlog = table ({} rows), gtid_executed = binlog ({}), {} files verified;",
            ledger.acked.len(),
            table.len(),
            executed,
            binlog.files
        ))
    }
}

/// Inserts rows one commit at a time until told to stop or the connection fails.
async fn client_load(
    port: u16,
    client: i64,
    stop: Arc<AtomicBool>,
    refusals: Arc<AtomicU64>,
) -> ClientLog {
    let mut log = ClientLog::default();
    let mut conn = match Conn::new(Campaign::opts(port, Some(DB))).await {
        Ok(conn) => conn,
        Err(e) => {
            log.ended_by = Some(format!("connect: {e}"));
            return log;
        }
    };
    while !stop.load(Ordering::Acquire) {
        let seq = log.attempted + 1;
        log.attempted = seq;
        let id = client * KEY_STRIDE + seq;
        let sql = format!("INSERT INTO t VALUES ({id}, {client}, {seq})");
        match conn.query_drop(sql).await {
            Ok(()) => {
                if log.refused > 0 {
                    log.acked_after_refusal = true;
                }
                log.acked.push(seq);
            }
            Err(mysql_async::Error::Server(e)) => {
                log.refused += 1;
                refusals.fetch_add(1, Ordering::Relaxed);
                if log.first_refusal.is_none() {
                    log.first_refusal = Some((e.code, e.message.clone()));
                }
                // Refused: keep asking, a little slower, to show the refusal lasts.
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => {
                log.ended_by = Some(e.to_string());
                break;
            }
        }
    }
    log
}

/// The primary's `gtid_executed` and rows, ordered by id.
async fn table_and_gtids(port: u16) -> Result<(GtidSet, Vec<(i64, i64, i64)>), String> {
    let mut conn = Conn::new(Campaign::opts(port, Some(DB))).await.map_err(|e| e.to_string())?;
    let gtids = gtid_executed(&mut conn).await?;
    let rows: Vec<(i64, i64, i64)> =
        conn.query("SELECT id, c, s FROM t ORDER BY id").await.map_err(|e| e.to_string())?;
    let _ = conn.disconnect().await;
    Ok((gtids, rows))
}

async fn gtid_executed(conn: &mut Conn) -> Result<GtidSet, String> {
    let text: Option<String> =
        conn.query_first("SELECT @@GLOBAL.gtid_executed").await.map_err(|e| e.to_string())?;
    let text = text.unwrap_or_default();
    text.replace(['\n', ' '], "")
        .parse()
        .map_err(|e| format!("gtid_executed {text:?} does not parse: {e}"))
}

/// What differs between the replica and the primary's `gtid_executed` and rows (`None`: all
/// equal). The rows are read only once the GTIDs are equal.
async fn replica_difference(
    conn: &mut Conn,
    want_gtids: &GtidSet,
    want_rows: &[(i64, i64, i64)],
) -> Result<Option<String>, String> {
    let gtids = gtid_executed(conn).await?;
    if &gtids != want_gtids {
        return Ok(Some(format!("gtid_executed is {gtids}, the primary's {want_gtids}")));
    }
    let rows: Vec<(i64, i64, i64)> =
        conn.query("SELECT id, c, s FROM t ORDER BY id").await.map_err(|e| e.to_string())?;
    if rows == want_rows {
        return Ok(None);
    }
    let first = rows.iter().zip(want_rows).position(|(a, b)| a != b);
    let at = first.unwrap_or(rows.len().min(want_rows.len()));
    Ok(Some(format!(
        "same gtid_executed ({gtids}) but {} rows against the primary's {}; first difference \
         at row {at}: replica {:?}, primary {:?}",
        rows.len(),
        want_rows.len(),
        rows.get(at),
        want_rows.get(at)
    )))
}

/// The replica's threads and last errors, for a report.
async fn replica_status(port: u16) -> String {
    let read = async {
        let mut conn = Conn::new(Campaign::opts(port, None)).await?;
        let row: Option<mysql_async::Row> = conn.query_first("SHOW REPLICA STATUS").await?;
        let _ = conn.disconnect().await;
        Ok::<_, mysql_async::Error>(row)
    };
    let row = match read.await {
        Ok(Some(row)) => row,
        Ok(None) => return "empty (not configured)".into(),
        Err(e) => return format!("unavailable: {e}"),
    };
    let mut out = String::new();
    for name in [
        "Replica_IO_Running",
        "Replica_SQL_Running",
        "Last_IO_Errno",
        "Last_IO_Error",
        "Last_SQL_Errno",
        "Last_SQL_Error",
        "Retrieved_Gtid_Set",
        "Executed_Gtid_Set",
    ] {
        let value = match row.get_opt::<mysql_async::Value, _>(name) {
            Some(Ok(mysql_async::Value::Bytes(b))) => String::from_utf8_lossy(&b).into_owned(),
            Some(Ok(v)) => v.as_sql(true),
            _ => "?".into(),
        };
        let _ = write!(out, "{name}={value} ");
    }
    out.trim_end().to_string()
}

/// The median and the maximum.
fn p50_max(values: &[f64]) -> (f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    (sorted.get(sorted.len() / 2).copied().unwrap_or(0.0), sorted.last().copied().unwrap_or(0.0))
}

/// A loopback port that is free now, below the kernel's ephemeral range
/// (`ip_local_port_range`): the primary keeps it across its restarts, and no outgoing
/// connection (the replica's among them) can be given it while the primary is down.
fn fixed_port() -> Result<u16, String> {
    let low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next().and_then(|p| p.parse::<u16>().ok()))
        .unwrap_or(32768);
    let (from, to) = if low > 11_000 { (10_000u16, low) } else { (1024, low.max(2048)) };
    let span = u32::from(to - from);
    // Spread concurrent campaigns over the range; the first port that binds is taken.
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() ^ std::process::id().wrapping_mul(2_654_435_761))
        .unwrap_or(0)
        % span;
    for i in 0..span {
        let port = from + ((start + i) % span) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    Err(format!("no free loopback port in {from}..{to}"))
}

/// Writes zeros to `path` until the file system is full.
fn fill(path: &Path) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    let block = vec![0u8; 1 << 20];
    loop {
        match file.write_all(&block) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(28) => break, // ENOSPC
            Err(e) => return Err(e),
        }
    }
    // Fill the last partial megabyte too, in small pieces.
    let small = vec![0u8; 4096];
    while file.write_all(&small).is_ok() {}
    let _ = file.sync_all();
    Ok(())
}

struct BinlogContents {
    rows: HashSet<i64>,
    gtids: GtidSet,
    files: usize,
}

/// Reads every binlog file: `dump --verify` on each, then the GTIDs and the rows of `t` in
/// complete transactions.
fn read_binlog(dir: &Path) -> Result<BinlogContents, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|ext| {
                ext.len() == 6 && ext.to_string_lossy().bytes().all(|b| b.is_ascii_digit())
            })
        })
        .collect();
    files.sort();
    let mut contents =
        BinlogContents { rows: HashSet::new(), gtids: GtidSet::new(), files: files.len() };
    let verify = dump::DumpArgs {
        files: files.clone(),
        verbose: false,
        start_position: None,
        stop_position: None,
        include_gtids: None,
        exclude_gtids: None,
        verify: true,
    };
    for (i, path) in files.iter().enumerate() {
        let mut out = Vec::new();
        dump::dump_file(&verify, path, &mut out).map_err(|e| {
            format!(
                "dump --verify {}: {e}: {:?}",
                path.display(),
                std::error::Error::source(&e).map(|s| s.to_string())
            )
        })?;
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut reader =
            BinlogFileReader::new(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut pending: Vec<i64> = Vec::new();
        let mut open = false;
        loop {
            let at = reader.position() as usize;
            if bytes[at.min(bytes.len())..].iter().all(|&b| b == 0) {
                break;
            }
            let Some(item) = reader.next() else { break };
            let read = item.map_err(|e| format!("{}: {e}", path.display()))?;
            match &read.event.body {
                EventBody::PreviousGtids(p) if i == 0 => {
                    for g in p.gtids().gtids() {
                        contents.gtids.add(g);
                    }
                }
                EventBody::Gtid(g) => {
                    if open && !pending.is_empty() {
                        return Err(format!(
                            "{}: transaction without its end before {}",
                            path.display(),
                            read.offset
                        ));
                    }
                    contents.gtids.add(g.gtid());
                    pending.clear();
                    open = true;
                }
                EventBody::Rows(r) => {
                    let table = reader.table(r.table_id).ok_or_else(|| {
                        format!("{}: rows at {} without a table map", path.display(), read.offset)
                    })?;
                    if table.schema != DB.as_bytes() || table.table != b"t" {
                        continue;
                    }
                    if r.kind != RowsKind::Write {
                        return Err(format!(
                            "{}: unexpected {:?} rows at {}",
                            path.display(),
                            r.kind,
                            read.offset
                        ));
                    }
                    for change in reader.rows(r, read.offset).map_err(|e| e.to_string())? {
                        match change.after.as_deref() {
                            Some([Value::Int(id), ..]) => pending.push(*id),
                            other => {
                                return Err(format!(
                                    "{}: unexpected row {other:?} at {}",
                                    path.display(),
                                    read.offset
                                ))
                            }
                        }
                    }
                }
                EventBody::Xid(_) => {
                    contents.rows.extend(pending.drain(..));
                    open = false;
                }
                EventBody::Query(q) if q.query.eq_ignore_ascii_case(b"COMMIT") => {
                    contents.rows.extend(pending.drain(..));
                    open = false;
                }
                _ => {}
            }
        }
        if !pending.is_empty() {
            return Err(format!(
                "{}: ends inside a transaction ({} rows pending)",
                path.display(),
                pending.len()
            ));
        }
    }
    Ok(contents)
}
