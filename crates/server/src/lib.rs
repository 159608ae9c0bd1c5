//! binlogd's server library: the parts of the `server` layer that integration tests (and later
//! the `serve` subcommand) use through `binlogd::...`.

pub mod protocol;
pub mod sql;
