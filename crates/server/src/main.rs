//! The `binlogd` binary: the server and its tools.

use clap::{CommandFactory, Parser, Subcommand};

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
enum Command {}

fn main() {
    let cli = Cli::parse();
    if cli.command.is_none() {
        // Nothing to do: show what there is, as `mysqlbinlog` with no arguments does.
        let _ = Cli::command().print_help();
        std::process::exit(1);
    }
}
