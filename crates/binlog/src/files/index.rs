//! The index file `<basename>.index`: one line per binlog file, oldest first, as MySQL writes
//! it (`./binlog.000001`).
//!
//! Protocol (MySQL's `add_log_to_index` / `move_crash_safe_index_file_to_index_file` in
//! `sql/binlog.cc`, which write `<index>_crash_safe`, sync it, then replace the index): every
//! change writes the whole new list to `<basename>.index_crash_safe`, fdatasyncs it, renames it
//! over the index and fsyncs the directory. A rename is atomic, so after a crash at any step
//! the index is either the old list or the new one, never a mix or a half line. A leftover
//! `_crash_safe` file is garbage and is removed when the set is opened.
//!
//! Unlike MySQL, which deletes the index before the rename (for Windows), the rename replaces
//! it in one step, so there is no window in which only the `_crash_safe` copy exists.

use std::path::{Path, PathBuf};

use vfs::{OpenMode, VfsRef};

use super::error::{Error, Result};
use super::names;

/// The on-disk index of one binlog file set.
#[derive(Debug)]
pub struct Index {
    vfs: VfsRef,
    dir: PathBuf,
    basename: String,
    path: PathBuf,
    tmp_path: PathBuf,
}

impl Index {
    pub fn new(vfs: VfsRef, dir: &Path, basename: &str) -> Index {
        Index {
            vfs,
            dir: dir.to_path_buf(),
            basename: basename.to_string(),
            path: dir.join(format!("{basename}.index")),
            tmp_path: dir.join(format!("{basename}.index_crash_safe")),
        }
    }

    /// The index file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file's name (a leftover of it is removed at open).
    pub fn tmp_name(&self) -> String {
        format!("{}.index_crash_safe", self.basename)
    }

    /// Reads the list of file sequence numbers; `None` when there is no index file.
    pub fn load(&self) -> Result<Option<Vec<u64>>> {
        if !self.vfs.exists(&self.path)? {
            return Ok(None);
        }
        let file = self.vfs.open(&self.path, OpenMode::Read)?;
        let len = file.len()?;
        let mut buf = vec![0u8; len as usize];
        file.read_exact_at(&mut buf, 0)?;
        let mut seqs: Vec<u64> = Vec::new();
        for (i, line) in buf.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            let bad = || Error::BadIndexLine {
                path: self.path.clone(),
                line: i + 1,
                text: String::from_utf8_lossy(line).into_owned(),
            };
            let text = std::str::from_utf8(line).map_err(|_| bad())?;
            // MySQL writes the path as given to --log-bin (often `./name`); only the file
            // name matters because the set lives in one directory.
            let name = Path::new(text).file_name().and_then(|n| n.to_str()).ok_or_else(bad)?;
            let seq = names::parse_seq(&self.basename, name).ok_or_else(bad)?;
            if seqs.last().is_some_and(|&last| seq <= last) {
                return Err(bad());
            }
            seqs.push(seq);
        }
        Ok(Some(seqs))
    }

    /// Replaces the index with `seqs`, crash-safely (see the module doc).
    pub fn store(&self, seqs: &[u64]) -> Result<()> {
        let mut text = String::new();
        for &seq in seqs {
            text.push_str("./");
            text.push_str(&names::file_name(&self.basename, seq));
            text.push('\n');
        }
        let tmp = self.vfs.open(&self.tmp_path, OpenMode::CreateOrOpen)?;
        tmp.set_len(0)?;
        tmp.write_at(text.as_bytes(), 0)?;
        tmp.sync_data()?;
        drop(tmp);
        self.vfs.rename(&self.tmp_path, &self.path)?;
        self.vfs.sync_dir(&self.dir)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_load_mysql_format() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vfs = vfs::RealVfs::shared();
        let index = Index::new(vfs.clone(), dir.path(), "binlog");
        assert_eq!(index.load().expect("load"), None);
        index.store(&[1, 2, 17]).expect("store");
        let text = std::fs::read_to_string(index.path()).expect("read");
        assert_eq!(text, "./binlog.000001\n./binlog.000002\n./binlog.000017\n");
        assert_eq!(index.load().expect("load"), Some(vec![1, 2, 17]));
        assert!(!dir.path().join(index.tmp_name()).exists(), "temp file renamed away");
        index.store(&[]).expect("store empty");
        assert_eq!(index.load().expect("load"), Some(vec![]));
    }

    #[test]
    fn accepts_paths_rejects_strangers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let vfs = vfs::RealVfs::shared();
        let index = Index::new(vfs, dir.path(), "binlog");
        std::fs::write(index.path(), "/var/lib/mysql/binlog.000003\r\nbinlog.1000000\n\n")
            .expect("write");
        assert_eq!(index.load().expect("load"), Some(vec![3, 1_000_000]));
        std::fs::write(index.path(), "./binlog.000001\n./other.000002\n").expect("write");
        match index.load() {
            Err(Error::BadIndexLine { line: 2, .. }) => {}
            other => panic!("expected BadIndexLine at line 2, got {other:?}"),
        }
        std::fs::write(index.path(), "./binlog.000002\n./binlog.000001\n").expect("write");
        assert!(matches!(index.load(), Err(Error::BadIndexLine { line: 2, .. })));
    }
}
