//! The `binlogd` binary: the server and its tools.

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "binlogd",
    version,
    about = "A MySQL-compatible server built around the binary log"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {}

fn main() {
    match Cli::parse().command {}
}
