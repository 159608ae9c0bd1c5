//! The connection settings of CHANGE REPLICATION SOURCE, kept in the data directory as
//! mysqld keeps them in `mysql.slave_master_info`, so a restarted replica reconnects by itself.
//!
//! Format: `<datadir>/replica_source.json`, one JSON object (below). It is replaced whole:
//! written to a temporary file, fsynced, renamed over the old one, and the directory fsynced,
//! so a crash leaves either the old or the new settings, never a torn file.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file's name inside the data directory.
pub const FILE_NAME: &str = "replica_source.json";

// Format: {"host": str, "port": u16, "user": str, "password": str, "auto_position": bool,
//          "heartbeat_period_s": f64, "connect_retry_s": u32, "retry_count": u64}
/// What CHANGE REPLICATION SOURCE set (MySQL's defaults for what it did not).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub auto_position: bool,
    /// SOURCE_HEARTBEAT_PERIOD; MySQL's default is half `replica_net_timeout` (60 s → 30 s).
    pub heartbeat_period_s: f64,
    /// SOURCE_CONNECT_RETRY (default 60 s): the longest wait between reconnection attempts.
    pub connect_retry_s: u32,
    /// SOURCE_RETRY_COUNT (default 86400): attempts before the receiver gives up.
    pub retry_count: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            host: String::new(),
            port: 3306,
            user: String::new(),
            password: String::new(),
            auto_position: true,
            heartbeat_period_s: 30.0,
            connect_retry_s: 60,
            retry_count: 86_400,
        }
    }
}

impl Settings {
    /// Whether CHANGE REPLICATION SOURCE named a source (START REPLICA needs one).
    pub fn configured(&self) -> bool {
        !self.host.is_empty()
    }
}

fn path(datadir: &Path) -> PathBuf {
    datadir.join(FILE_NAME)
}

/// The saved settings, or None if there are none.
pub fn load(datadir: &Path) -> std::io::Result<Option<Settings>> {
    match std::fs::read(path(datadir)) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Replaces the saved settings atomically (see the module doc).
pub fn store(datadir: &Path, settings: &Settings) -> std::io::Result<()> {
    let tmp = datadir.join(format!("{FILE_NAME}.tmp"));
    let bytes = serde_json::to_vec_pretty(settings).map_err(std::io::Error::other)?;
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path(datadir))?;
    std::fs::File::open(datadir)?.sync_all()
}

/// RESET REPLICA ALL: forgets the settings.
pub fn remove(datadir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path(datadir)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => std::fs::File::open(datadir)?.sync_all(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_remove() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(load(dir.path()).expect("load"), None);
        let s =
            Settings { host: "h".into(), port: 7, password: "p\"w".into(), ..Settings::default() };
        store(dir.path(), &s).expect("store");
        assert_eq!(load(dir.path()).expect("load"), Some(s));
        remove(dir.path()).expect("remove");
        assert_eq!(load(dir.path()).expect("load"), None);
    }
}
