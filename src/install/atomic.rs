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
//! A file aletheia created has no such past: it gets no backup, on this write or any later one,
//! and is listed in the [`Record`] (with the folders made for it) until aletheia removes it, when
//! those folders go too if nothing else is in them.
//!
//! A host's files change together: [`Staged`] prepares one file (its temporary file, its
//! backup, its previous contents in memory) without touching it, [`commit_all`] puts them in
//! place, and gives the files already replaced their previous contents back if a later one
//! fails.

use super::created::Record;
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
/// None for a file aletheia created: a backup beside it is left from an earlier file.
pub fn backup(path: &Path, created: &Record) -> Option<String> {
    let path = resolve(path).ok()?;
    if created.has_file(&path) {
        return None;
    }
    fs::read_to_string(backup_path(&path)).ok()
}

/// Replace `path` with `contents`: back up the old file (unless aletheia created it), create
/// missing folders, keep the old file's permissions. Returns the backup's path when there is
/// one.
pub fn write(path: &Path, contents: &str, created: &Record) -> std::io::Result<Option<PathBuf>> {
    commit_one(Staged::new(path, Some(contents), created)?, created)
}

/// Remove `path` (a file that only ever held what aletheia wrote), keeping a backup unless
/// aletheia created it.
pub fn remove(path: &Path, created: &Record) -> std::io::Result<Option<PathBuf>> {
    commit_one(Staged::new(path, None, created)?, created)
}

fn commit_one(staged: Staged, created: &Record) -> std::io::Result<Option<PathBuf>> {
    let path = staged.path.clone();
    match commit_all(vec![staged], created) {
        Ok(done) => Ok(done.into_iter().next().and_then(|d| d.backup)),
        Err((at, e)) if at == path => Err(e),
        // The record failed: say which file, as the caller names only its own.
        Err((at, e)) => Err(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", at.display()),
        )),
    }
}

/// Put every stage in place, all or none, keeping `created` in step: the files and folders
/// about to be created are recorded first (a crash then leaves an entry for a file that is not
/// there, rather than a file of ours that would be taken for the user's), and those removed are
/// forgotten after. On failure the files already replaced get their previous contents back, and
/// the error names the file (or the record) that failed.
pub fn commit_all(
    stages: Vec<Staged>,
    created: &Record,
) -> Result<Vec<Committed>, (PathBuf, std::io::Error)> {
    let (files, folders) = creations(&stages);
    if let Err(e) = created.add(&files, &folders) {
        discard_all(stages);
        return Err((created.path().to_path_buf(), e));
    }
    let mut done: Vec<Committed> = Vec::new();
    let mut pending = stages.into_iter();
    while let Some(stage) = pending.next() {
        if let Err(e) = stage.put_in_place() {
            let path = stage.path.clone();
            discard_all(std::iter::once(stage).chain(pending).collect());
            done.into_iter().rev().for_each(Committed::undo);
            // Best effort, as the undo is: an entry left names a file that is not there.
            let _ = created.forget(&files, &folders);
            return Err((path, e));
        }
        done.push(stage.committed());
    }
    tidy(&done, created);
    Ok(done)
}

/// The files the stages create and the folders they made for them.
fn creations(stages: &[Staged]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let files = stages
        .iter()
        .filter(|s| s.creates())
        .map(|s| s.path.clone())
        .collect();
    let folders = stages.iter().flat_map(|s| s.new_dirs.clone()).collect();
    (files, folders)
}

/// Give up every stage, the last first, so a folder an earlier stage made is empty by the time
/// that stage removes it.
pub fn discard_all(stages: Vec<Staged>) {
    stages.into_iter().rev().for_each(Staged::discard);
}

/// After the changes are in place: forget the files removed, and remove the folders aletheia
/// made for them that are now empty. Best effort: the files are already gone, and an entry left
/// in the record only names a file that is not there.
fn tidy(done: &[Committed], created: &Record) {
    let files: Vec<PathBuf> = done
        .iter()
        .filter(|c| c.deleted)
        .map(|c| c.path.clone())
        .collect();
    if files.is_empty() {
        return;
    }
    let folders: Vec<PathBuf> = files
        .iter()
        .flat_map(|f| remove_made_folders(f, created))
        .collect();
    let _ = created.forget(&files, &folders);
}

/// Remove the folders above `file` that aletheia made, innermost first, up to the first that it
/// did not make or that holds something else (`remove_dir` refuses a folder that is not empty).
fn remove_made_folders(file: &Path, created: &Record) -> Vec<PathBuf> {
    file.ancestors()
        .skip(1)
        .take_while(|dir| created.has_folder(dir) && fs::remove_dir(dir).is_ok())
        .map(Path::to_path_buf)
        .collect()
}

/// Create `dir` and the folders above it that are missing; returns those it made, outermost
/// first. On failure, those already made are removed again.
fn create_dirs(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && fs::symlink_metadata(d).is_err())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    fs::create_dir_all(dir).inspect_err(|_| remove_dirs(&missing))?;
    Ok(missing)
}

/// Remove `dirs` (outermost first, as [`create_dirs`] lists them), innermost first, stopping
/// at the first that is not empty. One that is not there is passed over: a failed
/// `create_dir_all` may not have made them all.
fn remove_dirs(dirs: &[PathBuf]) {
    for dir in dirs.iter().rev() {
        match fs::remove_dir(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => break,
            _ => {}
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
    /// Whether the record says aletheia created the file, which then has no backup.
    ours: bool,
    /// The folders this change made to hold the file, outermost first.
    new_dirs: Vec<PathBuf>,
}

impl Staged {
    /// Prepare writing `contents` to `path` (removing it for `None`): create missing folders,
    /// back up the old file unless a backup exists or `created` says aletheia created it, write
    /// the temporary file with the old file's permissions.
    pub fn new(path: &Path, contents: Option<&str>, created: &Record) -> std::io::Result<Staged> {
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
            ours: previous.is_some() && created.has_file(&path),
            path,
            tmp: None,
            previous,
            backup: None,
            new_backup: false,
            new_dirs: vec![],
        };
        if contents.is_none() && staged.previous.is_none() {
            return Ok(staged);
        }
        match staged.prepare(contents) {
            Ok(()) => Ok(staged),
            Err(e) => {
                staged.discard();
                Err(e)
            }
        }
    }

    /// Make the folders, the backup and the temporary file.
    fn prepare(&mut self, contents: Option<&str>) -> std::io::Result<()> {
        self.new_dirs = create_dirs(&self.dir())?;
        if self.previous.is_some() && !self.ours {
            let backup = backup_path(&self.path);
            if fs::symlink_metadata(&backup).is_err() {
                fs::copy(&self.path, &backup)?;
                self.new_backup = true;
            }
            self.backup = Some(backup);
        }
        let Some(contents) = contents else {
            return Ok(());
        };
        let tmp = temp_path(&self.path);
        self.tmp = Some(tmp.clone());
        let mode = fs::metadata(&self.path).ok().map(|m| m.permissions());
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        if let Some(mode) = mode {
            file.set_permissions(mode)?;
        }
        file.write_all(contents.as_bytes())?;
        file.sync_all()
    }

    fn dir(&self) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).to_path_buf()
    }

    /// Whether this change makes a file that was not there.
    fn creates(&self) -> bool {
        self.tmp.is_some() && self.previous.is_none()
    }

    /// Put the new version in place (or remove the file). On failure the file is as it was,
    /// and the stage is left to be discarded.
    fn put_in_place(&self) -> std::io::Result<()> {
        match &self.tmp {
            Some(tmp) => fs::rename(tmp, &self.path)?,
            None if self.previous.is_some() => fs::remove_file(&self.path)?,
            None => {}
        }
        sync_dir(&self.dir());
        Ok(())
    }

    /// What is left to know of a change that [`Staged::put_in_place`] put in place.
    fn committed(self) -> Committed {
        Committed {
            deleted: self.tmp.is_none() && self.previous.is_some(),
            created_by_aletheia: self.ours || self.creates(),
            path: self.path,
            previous: self.previous,
            backup: self.backup,
            new_backup: self.new_backup,
            new_dirs: self.new_dirs,
        }
    }

    /// Give up this change: remove the temporary file, and the backup and folders if this
    /// change made them.
    fn discard(self) {
        if let Some(tmp) = &self.tmp {
            let _ = fs::remove_file(tmp);
        }
        if self.new_backup
            && let Some(b) = &self.backup
        {
            let _ = fs::remove_file(b);
        }
        remove_dirs(&self.new_dirs);
    }
}

/// A change that is in place.
pub struct Committed {
    path: PathBuf,
    previous: Option<Vec<u8>>,
    backup: Option<PathBuf>,
    new_backup: bool,
    new_dirs: Vec<PathBuf>,
    deleted: bool,
    created_by_aletheia: bool,
}

impl Committed {
    pub fn backup(&self) -> Option<&Path> {
        self.backup.as_deref()
    }

    pub fn deleted(&self) -> bool {
        self.deleted
    }

    /// Whether aletheia created the file: now, or before as the record says.
    pub fn created_by_aletheia(&self) -> bool {
        self.created_by_aletheia
    }

    /// Put the previous contents back (best effort: this runs after another failure), or remove
    /// a file that did not exist and the folders made for it.
    fn undo(self) {
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
        if restored.is_err() {
            return;
        }
        if self.new_backup
            && let Some(b) = &self.backup
        {
            let _ = fs::remove_file(b);
        }
        remove_dirs(&self.new_dirs);
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

    /// A record of created files kept apart from the folder a test writes in.
    fn record() -> (tempfile::TempDir, Record) {
        let data = tempfile::tempdir().unwrap();
        let record = Record::in_data_dir(&data.path().join("data"));
        (data, record)
    }

    #[test]
    fn a_read_only_file_is_refused_and_left_as_it_was() {
        use std::os::unix::fs::PermissionsExt;
        let (_data, created) = record();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{}").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        let err = write(&path, "{\"changed\": true}", &created).unwrap_err();
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
        let (_data, created) = record();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "one").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        }
        let backup = write(&path, "two", &created).unwrap().unwrap();
        assert_eq!(fs::read_to_string(&backup).unwrap(), "one");
        write(&path, "three", &created).unwrap();
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
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
        assert!(!created.path().exists(), "the user's file is not recorded");
    }

    #[test]
    fn a_file_aletheia_created_gets_no_backup_and_goes_with_its_folders() {
        let (_data, created) = record();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/settings.json");
        assert_eq!(write(&path, "one", &created).unwrap(), None);
        assert_eq!(write(&path, "two", &created).unwrap(), None);
        assert!(!backup_path(&path).exists());
        // A backup left from an earlier file at this path is not this one's past.
        fs::write(backup_path(&path), "earlier").unwrap();
        assert_eq!(backup(&path, &created), None);
        fs::remove_file(backup_path(&path)).unwrap();
        assert_eq!(remove(&path, &created).unwrap(), None);
        assert!(!backup_path(&path).exists());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the folders made for it went too"
        );
        assert!(!created.path().exists(), "the record is empty again");

        // A folder that holds something else stays.
        write(&path, "one", &created).unwrap();
        fs::write(dir.path().join("a/theirs"), "").unwrap();
        remove(&path, &created).unwrap();
        assert!(!dir.path().join("a/b").exists());
        assert!(dir.path().join("a/theirs").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_file_is_changed_through_the_link() {
        let (_data, created) = record();
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles.json");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, "new", &created).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(backup(&link, &created).as_deref(), Some("old"));
    }

    #[test]
    fn a_failed_rename_undoes_the_files_already_replaced() {
        let (_data, created) = record();
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("new/c"),
        );
        fs::write(&a, "a before").unwrap();
        let stages = vec![
            Staged::new(&a, Some("a after"), &created).unwrap(),
            Staged::new(&c, Some("c after"), &created).unwrap(),
            Staged::new(&b, Some("b after"), &created).unwrap(),
        ];
        // Something took b's place after it was prepared: its rename fails.
        fs::create_dir_all(b.join("taken")).unwrap();
        let (failed, _) = commit_all(stages, &created).err().unwrap();
        assert_eq!(failed, b);
        assert_eq!(fs::read_to_string(&a).unwrap(), "a before");
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["a", "b"],
            "no temporary file, new backup or new folder left"
        );
        assert!(!created.path().exists(), "c is not recorded");
    }
}
