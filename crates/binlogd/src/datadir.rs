//! The data directory: created on the first start, claimed by one server at a time, and home
//! of the server's identity (`auto.cnf`), keys, accounts, redo log and binlog.
//!
//! | file | holds |
//! |---|---|
//! | `binlogd.pid` | the running server's pid; its `flock` is the claim on the directory |
//! | `auto.cnf` | `[auto]` `server-uuid=…`, generated once (UUID v4), as mysqld keeps it |
//! | `ca.pem`, `server-cert.pem`, `private_key.pem`, … | TLS and RSA keys ([`ServerKeys`]) |
//! | `users.json`, `initial-root-password` | accounts ([`accounts`]) |
//! | `lower_case_table_names` | the setting the directory was initialised with (mysqld keeps it in its data dictionary) |
//!
//! Invariants:
//! - At most one process has the directory open: the exclusive `flock` on `binlogd.pid` is held
//!   for the life of [`DataDir`] and released by the kernel when the process ends, even by
//!   `kill -9`, so a stale pid file never blocks a restart (the file's existence means nothing;
//!   only the lock counts, and the file is therefore never removed).
//! - `server_uuid` never changes once `auto.cnf` is durable; a damaged `auto.cnf` is an error,
//!   never silently replaced (a new uuid would fork the server's GTID history).
//! - Files are replaced whole ([`write_file_durably`]): written to a temporary name, fsynced,
//!   renamed over the old one, and the directory fsynced, so a crash leaves the old or the new
//!   contents, never a mix.
//! - The directory is made with mode 0700 and secret files with 0600, as mysqld's
//!   `--initialize` keeps its data directory private.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use uuid::Uuid;

use protocol::ServerKeys;

/// The lock and pid file's name.
pub const PID_FILE: &str = "binlogd.pid";
/// The server identity file's name.
pub const AUTO_CNF: &str = "auto.cnf";
/// The binlog files' directory inside the data directory, as the commit pipeline keeps them.
pub use commit::BINLOG_DIR;

/// The file recording `lower_case_table_names` ([`DataDir::check_lower_case_table_names`]).
pub const LOWER_CASE_FILE: &str = "lower_case_table_names";

/// The data directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    /// Another process holds the lock.
    #[error(
        "data directory {} is in use by another binlogd{}",
        path.display(),
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    InUse {
        /// The data directory.
        path: PathBuf,
        /// The pid written by the process holding it, if readable.
        pid: Option<u32>,
    },
    /// `auto.cnf` exists but holds no valid `server-uuid`.
    #[error("{} does not hold a valid server-uuid; fix or remove it", path.display())]
    BadAutoCnf {
        /// The file.
        path: PathBuf,
    },
    /// The server's `lower_case_table_names` is not the one the directory was initialised
    /// with (mysqld's ER_LCTN_CHANGED wording; its names were stored under the other rule).
    #[error(
        "Different lower_case_table_names settings for server ('{server}') and data dictionary ('{dictionary}')."
    )]
    LowerCaseTableNames {
        /// The server's setting.
        server: u8,
        /// The directory's.
        dictionary: u8,
    },
    /// The recorded `lower_case_table_names` is not 0, 1 or 2.
    #[error("{} does not hold a valid lower_case_table_names; fix it", path.display())]
    BadLowerCase {
        /// The file.
        path: PathBuf,
    },
    /// A file operation failed.
    #[error("{op} {}", path.display())]
    Io {
        /// What was being done.
        op: &'static str,
        /// On which path.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The TLS or RSA keys could not be made or loaded.
    #[error("server keys in {}", path.display())]
    Keys {
        /// The data directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: protocol::Error,
    },
}

fn io_err<'a>(
    op: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> DataDirError + 'a {
    move |source| DataDirError::Io { op, path: path.to_path_buf(), source }
}

/// An open, locked data directory.
#[derive(Debug)]
pub struct DataDir {
    path: PathBuf,
    server_uuid: Uuid,
    first_start: bool,
    /// Holds the `flock`; closing it (drop, exit, kill) releases the directory.
    _lock: File,
}

impl DataDir {
    /// Opens `path`, creating it (and `auto.cnf`) on the first start, and locks it.
    pub fn open(path: &Path) -> Result<Self, DataDirError> {
        if !path.is_dir() {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(path)
                .map_err(io_err("create directory", path))?;
            sync_parent(path)?;
        }
        let lock = lock(path)?;
        let auto_cnf = path.join(AUTO_CNF);
        let (server_uuid, first_start) = match fs::read_to_string(&auto_cnf) {
            Ok(text) => {
                let uuid = parse_auto_cnf(&text)
                    .ok_or_else(|| DataDirError::BadAutoCnf { path: auto_cnf.clone() })?;
                (uuid, false)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let uuid = Uuid::new_v4();
                write_file_durably(
                    &auto_cnf,
                    format!("[auto]\nserver-uuid={uuid}\n").as_bytes(),
                    0o644,
                )?;
                (uuid, true)
            }
            Err(e) => return Err(io_err("read", &auto_cnf)(e)),
        };
        Ok(Self { path: path.to_path_buf(), server_uuid, first_start, _lock: lock })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `server_uuid`, from `auto.cnf`.
    pub fn server_uuid(&self) -> Uuid {
        self.server_uuid
    }

    /// True when this open made `auto.cnf`: the server's first start on this directory.
    pub fn first_start(&self) -> bool {
        self.first_start
    }

    /// Checks `lower_case_table_names` against the value the directory was initialised with,
    /// recording `value` when there is none (the first start, or a directory made before the
    /// setting was recorded: its names were stored as given, which every setting reads).
    /// A different value is refused, as mysqld refuses to start on a data dictionary made
    /// under another setting.
    pub fn check_lower_case_table_names(&self, value: u8) -> Result<(), DataDirError> {
        let path = self.path.join(LOWER_CASE_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => {
                let recorded = text
                    .trim()
                    .parse::<u8>()
                    .ok()
                    .filter(|v| *v <= 2)
                    .ok_or_else(|| DataDirError::BadLowerCase { path: path.clone() })?;
                if recorded != value {
                    return Err(DataDirError::LowerCaseTableNames {
                        server: value,
                        dictionary: recorded,
                    });
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                write_file_durably(&path, format!("{value}\n").as_bytes(), 0o644)
            }
            Err(e) => Err(io_err("read", &path)(e)),
        }
    }

    /// The TLS certificates and RSA key pair, made on the first call for this directory.
    pub fn load_keys(&self) -> Result<ServerKeys, DataDirError> {
        ServerKeys::load_or_create(&self.path)
            .map_err(|source| DataDirError::Keys { path: self.path.clone(), source })
    }
}

/// Takes the exclusive lock on `<dir>/binlogd.pid` and writes our pid into it.
fn lock(dir: &Path) -> Result<File, DataDirError> {
    let path = dir.join(PID_FILE);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .open(&path)
        .map_err(io_err("open", &path))?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {}
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
            let mut text = String::new();
            let pid = file.read_to_string(&mut text).ok().and_then(|_| text.trim().parse().ok());
            return Err(DataDirError::InUse { path: dir.to_path_buf(), pid });
        }
        Err(e) => return Err(io_err("flock", &path)(e.into())),
    }
    // The pid is informational (for `kill $(cat binlogd.pid)`), so it is not fsynced.
    file.set_len(0).map_err(io_err("truncate", &path))?;
    file.rewind().map_err(io_err("seek", &path))?;
    writeln!(file, "{}", std::process::id()).map_err(io_err("write", &path))?;
    Ok(file)
}

/// The `server-uuid` of an `auto.cnf` (`[auto]` section, `server-uuid=…`).
pub fn parse_auto_cnf(text: &str) -> Option<Uuid> {
    let mut in_auto = false;
    for line in text.lines().map(str::trim) {
        if let Some(section) = line.strip_prefix('[') {
            in_auto = section.trim_end_matches(']').trim().eq_ignore_ascii_case("auto");
            continue;
        }
        let Some((name, value)) = line.split_once('=') else { continue };
        if in_auto && name.trim().replace('_', "-").eq_ignore_ascii_case("server-uuid") {
            return Uuid::parse_str(value.trim()).ok();
        }
    }
    None
}

/// Replaces `path` with `contents` atomically and durably ([`vfs::write_file_durably`]).
pub fn write_file_durably(path: &Path, contents: &[u8], mode: u32) -> Result<(), DataDirError> {
    vfs::write_file_durably(path, contents, mode).map_err(DataDirError::from)
}

fn sync_parent(path: &Path) -> Result<(), DataDirError> {
    vfs::sync_parent_dir(path).map_err(DataDirError::from)
}

impl From<vfs::Error> for DataDirError {
    fn from(e: vfs::Error) -> Self {
        DataDirError::Io { op: e.op, path: e.path, source: e.source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_cnf_parsing() {
        let uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        assert_eq!(
            parse_auto_cnf(&format!("[auto]\nserver-uuid={uuid}\n")),
            Uuid::parse_str(uuid).ok()
        );
        assert_eq!(
            parse_auto_cnf(&format!("# c\n[auto]\n server_uuid = {uuid} \n")),
            Uuid::parse_str(uuid).ok()
        );
        assert_eq!(parse_auto_cnf(&format!("[other]\nserver-uuid={uuid}\n")), None);
        assert_eq!(parse_auto_cnf("[auto]\nserver-uuid=nonsense\n"), None);
        assert_eq!(parse_auto_cnf(""), None);
    }
}
