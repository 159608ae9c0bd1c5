//! Small files replaced whole on the real file system (`users.json`, `auto.cnf`, the
//! initial root password): the classic temporary file + fsync + rename + directory fsync.
//! Not through [`crate::Vfs`]: these files are written rarely, outside the commit path, and
//! need a file mode, which the seam does not model.
//!
//! Invariant: after a crash at any point, `path` holds its old contents or its new contents,
//! whole (rename is atomic; the new file is durable before it is renamed; the directory entry
//! is durable before the call returns).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::{Error, Result};

/// Replaces `path` with `contents` atomically and durably: a temporary file with `mode` in the
/// same directory, written and fsynced, renamed over `path`, then the directory fsynced. After a
/// crash `path` holds the old or the new contents, whole.
pub fn write_file_durably(path: &Path, contents: &[u8], mode: u32) -> Result<()> {
    let dir = parent(path);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    // A temporary file left by a crash is stale; truncate it rather than fail.
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(&tmp)
        .map_err(|e| Error::new("create", &tmp, e))?;
    // `mode` applies only when the file is created; a stale one keeps its own, so set it.
    file.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(|e| Error::new("chmod", &tmp, e))?;
    file.write_all(contents).map_err(|e| Error::new("write", &tmp, e))?;
    file.sync_all().map_err(|e| Error::new("fsync", &tmp, e))?;
    drop(file);
    fs::rename(&tmp, path).map_err(|e| Error::new("rename", &tmp, e))?;
    sync_dir(dir)
}

/// fsyncs the directory that holds `path` (a new or renamed entry in it becomes durable).
pub fn sync_parent_dir(path: &Path) -> Result<()> {
    sync_dir(parent(path))
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| Error::new("fsync directory", dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durable_write_replaces_and_cleans_stale_temp() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        fs::write(dir.path().join(".f.tmp"), b"stale and longer than the new contents")
            .expect("stale");
        write_file_durably(&path, b"one", 0o600).expect("write");
        write_file_durably(&path, b"two", 0o600).expect("rewrite");
        assert_eq!(fs::read(&path).expect("read"), b"two");
        assert!(!dir.path().join(".f.tmp").exists());
        let mode = fs::metadata(&path).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
