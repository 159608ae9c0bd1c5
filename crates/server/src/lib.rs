//! binlogd's server library: the parts of the `server` layer that integration tests (and the
//! `serve` subcommand) use through `binlogd::...`.

pub mod binlogging;
pub mod config;
pub mod datadir;
pub mod logging;
pub mod metrics;
pub mod processlist;
pub mod protocol;
pub mod replica;
pub mod replication;
pub mod serve;
pub mod sql;
pub mod users;
