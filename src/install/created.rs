//! The record of the configuration files, and the folders holding them, that aletheia created:
//! such a file gets no backup, and uninstall takes it away again.
//!
//! A backup keeps what the user had before aletheia first changed a file. A file that was not
//! there had nothing to keep: its backup would hold only aletheia's own entries, and uninstall
//! used to leave one beside every file it removed. Who created a file cannot be read from the
//! file later (the host rewrites it, the user edits it), so it is recorded when aletheia creates
//! it and forgotten when aletheia removes it; a folder aletheia made for it is recorded too, and
//! removed with the file when nothing else is in it.
//!
//! The record is one JSON file in aletheia's data directory, `created-files.json`, listing
//! absolute paths (links followed). A marker beside each file would travel with the file, but it
//! would put one more file of aletheia's in HOME (`~/.claude.json.aletheia-created`) and in the
//! user's project, where `git status` shows it and a commit shares it: the clutter this record
//! exists to remove. The price is that a record kept under another `ALETHEIA_DATA_DIR` is not
//! seen; a file missing from the record is then treated as the user's, as before this record
//! existed (backed up, and removed by uninstall only when nothing but our entries is left). A
//! path that is not UTF-8 is never recorded, and fares the same, as does an entry lost when two
//! aletheia commands change the record at the same moment (each reads it, then replaces it). The
//! record file is removed once it lists nothing, so install then uninstall leaves none (the data
//! directory itself stays: a hook may be creating the store in it). A recorded file that the
//! user deleted and the host made again is still counted as aletheia's: it gets no backup, and
//! uninstall removes it only when nothing but aletheia's entries is left in it. The rule files `rules sync` creates are recorded
//! the same way, as they are written by the same code ([`super::atomic`]).

use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// The record's name in the data directory.
const FILE_NAME: &str = "created-files.json";

/// Where the record is kept.
#[derive(Debug, Clone)]
pub struct Record {
    file: PathBuf,
}

/// What the record lists.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entries {
    files: Vec<String>,
    folders: Vec<String>,
}

impl Entries {
    fn is_empty(&self) -> bool {
        self.files.is_empty() && self.folders.is_empty()
    }
}

/// The record's key for `path`; none for a path that is not UTF-8.
fn key(path: &Path) -> Option<String> {
    path.to_str().map(str::to_owned)
}

impl Record {
    /// The record in the data directory `dir`.
    pub fn in_data_dir(dir: &Path) -> Record {
        Record {
            file: dir.join(FILE_NAME),
        }
    }

    /// The record in the data directory the environment names.
    pub fn from_env() -> Record {
        Record::in_data_dir(&crate::config::Paths::from_env().data_dir)
    }

    /// The record file itself, for an error that names it.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Whether aletheia created the file at `path`. An unreadable record answers no, which only
    /// costs a backup.
    pub fn has_file(&self, path: &Path) -> bool {
        let (Ok(entries), Some(key)) = (self.load(), key(path)) else {
            return false;
        };
        entries.files.contains(&key)
    }

    /// Whether aletheia created the folder `dir`.
    pub fn has_folder(&self, dir: &Path) -> bool {
        let (Ok(entries), Some(key)) = (self.load(), key(dir)) else {
            return false;
        };
        entries.folders.contains(&key)
    }

    /// Add `files` and `folders`, which aletheia is creating. With none, the record is not even
    /// read, so a change that creates nothing never fails on it.
    pub fn add(&self, files: &[PathBuf], folders: &[PathBuf]) -> std::io::Result<()> {
        if files.is_empty() && folders.is_empty() {
            return Ok(());
        }
        self.edit(|entries| {
            for (list, paths) in [(&mut entries.files, files), (&mut entries.folders, folders)] {
                for key in paths.iter().filter_map(|p| key(p)) {
                    if !list.contains(&key) {
                        list.push(key);
                    }
                }
            }
        })
    }

    /// Take out `files` and `folders`, which are gone (or were never made).
    pub fn forget(&self, files: &[PathBuf], folders: &[PathBuf]) -> std::io::Result<()> {
        self.edit(|entries| {
            for (list, paths) in [(&mut entries.files, files), (&mut entries.folders, folders)] {
                let gone: Vec<String> = paths.iter().filter_map(|p| key(p)).collect();
                list.retain(|k| !gone.contains(k));
            }
        })
    }

    /// Read, change and write the record; nothing is written when nothing changed.
    fn edit(&self, change: impl FnOnce(&mut Entries)) -> std::io::Result<()> {
        let before = self.load()?;
        let mut entries = before.clone();
        change(&mut entries);
        if entries == before {
            return Ok(());
        }
        self.save(&entries)
    }

    /// The record's entries: none when it is missing. A record that does not parse is also read
    /// as empty (and replaced by the next change): it is aletheia's own file, and what it lost
    /// only costs backups.
    fn load(&self) -> std::io::Result<Entries> {
        match fs::read(&self.file) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Entries::default()),
            Err(e) => Err(e),
        }
    }

    /// Write `entries` through a temporary file and a rename, so a reader never sees half a
    /// record; an empty record is removed instead.
    fn save(&self, entries: &Entries) -> std::io::Result<()> {
        if entries.is_empty() {
            match fs::remove_file(&self.file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            // The data directory stays: a hook may be creating the store in it at this moment,
            // and the user may have made it.
            return Ok(());
        }
        if let Some(dir) = self.file.parent() {
            fs::create_dir_all(dir)?;
        }
        let mut tmp = self.file.clone().into_os_string();
        // Two writers in one process (the dashboard's threads) never share a temporary file.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tmp.push(format!(".tmp-{}-{n}", std::process::id()));
        let json = serde_json::to_vec_pretty(entries).map_err(std::io::Error::other)?;
        fs::write(&tmp, json)
            .and_then(|()| fs::rename(&tmp, &self.file))
            .inspect_err(|_| {
                let _ = fs::remove_file(&tmp);
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_and_go_and_an_empty_record_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let record = Record::in_data_dir(&dir.path().join("data"));
        let files = [PathBuf::from("/h/.cursor/mcp.json")];
        let folders = [PathBuf::from("/h/.cursor")];
        assert!(!record.has_file(&files[0]));
        record.add(&files, &folders).unwrap();
        record.add(&files, &[]).unwrap();
        assert!(record.has_file(&files[0]) && record.has_folder(&folders[0]));
        assert!(!record.has_file(&folders[0]), "files and folders are apart");
        let text = fs::read_to_string(record.path()).unwrap();
        assert_eq!(text.matches("mcp.json").count(), 1, "listed once: {text}");
        record.forget(&files, &[]).unwrap();
        assert!(!record.has_file(&files[0]) && record.has_folder(&folders[0]));
        record.forget(&[], &folders).unwrap();
        assert!(!record.path().exists());
        assert!(
            dir.path().join("data").exists(),
            "the data directory stays, for the store"
        );
    }

    #[test]
    fn a_record_that_does_not_parse_reads_as_empty_and_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let record = Record::in_data_dir(dir.path());
        fs::write(record.path(), "{ half").unwrap();
        let files = [PathBuf::from("/h/.claude.json")];
        assert!(!record.has_file(&files[0]));
        record.add(&files, &[]).unwrap();
        assert!(record.has_file(&files[0]));
    }
}
