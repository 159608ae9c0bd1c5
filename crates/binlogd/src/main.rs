//! The `binlogd` binary: the server and its tools. Each subcommand lives in its own module;
//! this file only parses the command line and reports errors.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// mimalloc instead of glibc malloc: the server allocates per statement and per row from
/// many threads at once; profiles of sysbench runs showed malloc/free at ~20% of its CPU.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use tools::{alloc, bench_commit, bench_fsync, dump, torture};

#[derive(Parser, Debug)]
#[command(
    name = "binlogd",
    version,
    about = "A MySQL-compatible server built around the binary log"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the server: `binlogd serve [--defaults-file=FILE] [--name=value ...]`
    /// (`binlogd serve --help` lists the options).
    Serve(ServeArgs),
    /// Create preallocated binlog files (a static pool), like WL#4925's mysqlbinlogalloc.
    Alloc(alloc::AllocArgs),
    /// Print binlog files one event per line, like mysqlbinlog.
    Dump(dump::DumpArgs),
    /// Measure this machine.
    #[command(subcommand)]
    Bench(Bench),
    /// Crash campaign: kill -9 a loaded server in a loop and check every recovery.
    Torture(torture::TortureArgs),
}

/// `serve`'s options go to `binlogd::config` unparsed: they are MySQL-named variables, where
/// dashes and underscores are one name and `--skip-`/`--loose-` prefixes mean something, which
/// clap cannot express. `--help` is handled there too, to list the variables.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
struct ServeArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    options: Vec<OsString>,
}

#[derive(Subcommand, Debug)]
enum Bench {
    /// fdatasync/s for appending vs overwriting 512-byte records (seed 004's table).
    Fsync(bench_fsync::FsyncArgs),
    /// Group commit end to end in process: TPS, latency, group size, fsyncs per commit.
    Commit(bench_commit::CommitArgs),
}

fn main() -> ExitCode {
    let outcome: Result<(), Box<dyn std::error::Error>> = match Cli::parse().command {
        None => {
            // Nothing to do: show what there is, as `mysqlbinlog` with no arguments does.
            let _ = Cli::command().print_help();
            return ExitCode::FAILURE;
        }
        Some(Command::Serve(args)) => binlogd::serve::run(args.options).map_err(Into::into),
        Some(Command::Alloc(args)) => alloc::run(&args).map_err(Into::into),
        Some(Command::Dump(args)) => dump::run(&args).map_err(Into::into),
        Some(Command::Bench(Bench::Fsync(args))) => bench_fsync::run(&args).map_err(Into::into),
        Some(Command::Bench(Bench::Commit(args))) => bench_commit::run(&args).map_err(Into::into),
        Some(Command::Torture(args)) => torture::run(&args).map_err(Into::into),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let mut message = format!("binlogd: error: {e}");
            let mut source = e.source();
            while let Some(cause) = source {
                message.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
