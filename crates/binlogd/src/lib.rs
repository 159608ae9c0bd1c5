//! The `binlogd` server: the top layer, which wires the crates below into one process.
//! - [`serve`]: start-up (configuration, data directory, recovery), the listeners, shutdown;
//! - [`config`]: command-line options and `--defaults-file`, over the SQL layer's variable
//!   registry;
//! - [`datadir`]: the data directory (lock, `auto.cnf`, keys);
//! - [`binlogging`]: the SQL layer's commit and binlog-admin seams implemented over the commit
//!   pipeline (the SQL-to-commit glue);
//! - [`metrics`] (`/metrics`), [`logging`] (the error log).
//!
//! `docs/architecture.md` names the crates and why they are cut where they are.

pub mod binlogging;
pub mod config;
pub mod datadir;
pub mod logging;
pub mod metrics;
pub mod serve;
