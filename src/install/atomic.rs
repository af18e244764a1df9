//! Replacing a host's configuration file so that no reader ever sees half of it and the user can
//! always get their own version back.
//!
//! Hosts read these files while they run (Cursor reloads `hooks.json` on save, Claude Code
//! rewrites `~/.claude.json` itself), so a plain `fs::write` could be seen half-written or lose
//! the file on a crash. Each change writes a temporary file beside the target, flushes it to
//! disk and renames it over the target, which is atomic on one file system. Before the first
//! change, the file is copied to `<file>.aletheia-backup`; an existing backup is never
//! overwritten, so it keeps the file as it was before aletheia first changed it (a second
//! write, or an uninstall, would otherwise leave it holding our own edit).
//!
//! A host's files change together: [`Staged`] prepares one file (its temporary file, its
//! backup, its previous contents in memory) without touching it, [`Staged::commit`] puts it in
//! place, and [`Committed::undo`] gives the previous contents back if a later file fails.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The backup kept beside `path`.
fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".aletheia-backup");
    path.with_file_name(name)
}

/// The text of `path` as it was before aletheia first changed it, when its backup is there.
pub fn backup(path: &Path) -> Option<String> {
    fs::read_to_string(backup_path(path)).ok()
}

/// Replace `path` with `contents`: back up the old file, create missing folders, keep the old
/// file's permissions. Returns the backup's path when there was a file to back up.
pub fn write(path: &Path, contents: &str) -> std::io::Result<Option<PathBuf>> {
    commit_one(Staged::new(path, Some(contents))?)
}

/// Remove `path` (a file that only ever held what install wrote), keeping a backup.
pub fn remove(path: &Path) -> std::io::Result<Option<PathBuf>> {
    commit_one(Staged::new(path, None)?)
}

fn commit_one(staged: Staged) -> std::io::Result<Option<PathBuf>> {
    match staged.commit() {
        Ok(done) => Ok(done.backup),
        Err((staged, e)) => {
            staged.discard();
            Err(e)
        }
    }
}

/// One file's change, ready to be put in place: nothing the host reads has changed yet.
pub struct Staged {
    /// The file itself, links followed.
    path: PathBuf,
    /// The new version, flushed to disk; `None` to remove the file.
    tmp: Option<PathBuf>,
    /// What the file held, `None` if it did not exist.
    previous: Option<Vec<u8>>,
    backup: Option<PathBuf>,
    /// Whether the backup was made by this change (and goes again if it is undone).
    new_backup: bool,
}

impl Staged {
    /// Prepare writing `contents` to `path` (removing it for `None`): create missing folders,
    /// back up the old file unless a backup exists, write the temporary file with the old
    /// file's permissions.
    pub fn new(path: &Path, contents: Option<&str>) -> std::io::Result<Staged> {
        let path = resolve(path)?;
        // A user who made their configuration read-only asked tools to leave it alone; a rename
        // would replace it regardless (only the folder's permissions count), so refuse instead.
        if fs::metadata(&path).is_ok_and(|m| m.permissions().readonly()) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "the file is read-only, so it was left untouched (make it writable and run this again, \
                 or add the entries `aletheia connect` prints by hand)",
            ));
        }
        let previous = match fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let mut staged = Staged {
            path,
            tmp: None,
            previous,
            backup: None,
            new_backup: false,
        };
        if contents.is_none() && staged.previous.is_none() {
            return Ok(staged);
        }
        let dir = staged.dir();
        fs::create_dir_all(&dir)?;
        if staged.previous.is_some() {
            let backup = backup_path(&staged.path);
            if fs::symlink_metadata(&backup).is_err() {
                fs::copy(&staged.path, &backup)?;
                staged.new_backup = true;
            }
            staged.backup = Some(backup);
        }
        if let Some(contents) = contents {
            let tmp = temp_path(&staged.path);
            staged.tmp = Some(tmp.clone());
            let mode = fs::metadata(&staged.path).ok().map(|m| m.permissions());
            let result = (|| {
                let mut file = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&tmp)?;
                if let Some(mode) = mode {
                    file.set_permissions(mode)?;
                }
                file.write_all(contents.as_bytes())?;
                file.sync_all()
            })();
            if let Err(e) = result {
                staged.discard();
                return Err(e);
            }
        }
        Ok(staged)
    }

    fn dir(&self) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).to_path_buf()
    }

    /// Put the new version in place (or remove the file). On failure the file is as it was,
    /// and the stage is handed back to be discarded.
    pub fn commit(self) -> Result<Committed, (Staged, std::io::Error)> {
        let result = match &self.tmp {
            Some(tmp) => fs::rename(tmp, &self.path),
            None if self.previous.is_some() => fs::remove_file(&self.path),
            None => Ok(()),
        };
        if let Err(e) = result {
            return Err((self, e));
        }
        sync_dir(&self.dir());
        Ok(Committed {
            deleted: self.tmp.is_none() && self.previous.is_some(),
            path: self.path,
            previous: self.previous,
            backup: self.backup,
            new_backup: self.new_backup,
        })
    }

    /// Give up this change: remove the temporary file, and the backup if this change made it.
    pub fn discard(self) {
        if let Some(tmp) = &self.tmp {
            let _ = fs::remove_file(tmp);
        }
        if self.new_backup
            && let Some(b) = &self.backup
        {
            let _ = fs::remove_file(b);
        }
    }
}

/// A change that is in place.
pub struct Committed {
    path: PathBuf,
    previous: Option<Vec<u8>>,
    backup: Option<PathBuf>,
    new_backup: bool,
    deleted: bool,
}

impl Committed {
    pub fn backup(&self) -> Option<&Path> {
        self.backup.as_deref()
    }

    pub fn deleted(&self) -> bool {
        self.deleted
    }

    /// Put the previous contents back (best effort: this runs after another failure), or remove
    /// a file that did not exist.
    pub fn undo(self) {
        let restored = match &self.previous {
            Some(bytes) => {
                let tmp = temp_path(&self.path);
                fs::write(&tmp, bytes)
                    .and_then(|()| fs::rename(&tmp, &self.path))
                    .inspect_err(|_| {
                        let _ = fs::remove_file(&tmp);
                    })
            }
            None => fs::remove_file(&self.path),
        };
        if restored.is_ok()
            && self.new_backup
            && let Some(b) = &self.backup
        {
            let _ = fs::remove_file(b);
        }
    }
}

/// A configuration file kept in a dotfiles repository is often a symlink: change the file it
/// points to, or the rename would replace the link with a plain file. The link is followed
/// with `read_link`, not `canonicalize`, so a link to a file that does not exist yet (a
/// dangling link) leads to where that file is to be created.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // As many links as the system follows itself before it gives up (ELOOP).
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&path)?;
                path = path.parent().unwrap_or(Path::new("")).join(target);
            }
            _ => return Ok(path),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// A name in the same folder (so the rename stays on one file system) that no other writer
/// uses.
fn temp_path(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".aletheia-tmp-{}", std::process::id()));
    path.with_file_name(name)
}

/// Make the rename itself durable. Best effort: not every platform can open a folder.
fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_only_file_is_refused_and_left_as_it_was() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{}").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        let err = write(&path, "{\"changed\": true}").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}");
        assert!(!backup_path(&path).exists());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file is left"
        );
    }

    #[test]
    fn a_rewrite_keeps_the_first_backup_and_the_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/settings.json");
        assert_eq!(write(&path, "one").unwrap(), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        }
        let backup = write(&path, "two").unwrap().unwrap();
        assert_eq!(fs::read_to_string(&backup).unwrap(), "one");
        write(&path, "three").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "three");
        assert_eq!(
            fs::read_to_string(&backup).unwrap(),
            "one",
            "never overwritten"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_file_is_changed_through_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles.json");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, "new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn a_failed_rename_undoes_the_files_already_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        fs::write(&a, "a before").unwrap();
        let stage_a = Staged::new(&a, Some("a after")).unwrap();
        let stage_c = Staged::new(&c, Some("c after")).unwrap();
        let stage_b = Staged::new(&b, Some("b after")).unwrap();
        let done_a = stage_a.commit().ok().unwrap();
        let done_c = stage_c.commit().ok().unwrap();
        // Something took b's place after it was prepared: its rename fails.
        fs::create_dir_all(b.join("taken")).unwrap();
        let (stage_b, _) = stage_b.commit().err().unwrap();
        stage_b.discard();
        done_c.undo();
        done_a.undo();
        assert_eq!(fs::read_to_string(&a).unwrap(), "a before");
        assert!(!c.exists());
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b"], "no temporary file or new backup left");
    }
}
