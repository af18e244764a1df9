//! Replacing a host's configuration file so that no reader ever sees half of it and the user can
//! always get the previous version back.
//!
//! Hosts read these files while they run (Cursor reloads `hooks.json` on save, Claude Code
//! rewrites `~/.claude.json` itself), so a plain `fs::write` could be seen half-written or lose
//! the file on a crash. Each change writes a temporary file beside the target, flushes it to
//! disk and renames it over the target, which is atomic on one file system. Before that, the
//! previous file is copied to `<file>.aletheia-backup`: one backup, the state before the latest
//! change.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The backup kept beside `path`.
fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".aletheia-backup");
    path.with_file_name(name)
}

/// Replace `path` with `contents`: back up the old file, create missing folders, keep the old
/// file's permissions. Returns the backup's path when there was a file to back up.
pub fn write(path: &Path, contents: &str) -> std::io::Result<Option<PathBuf>> {
    let path = resolve(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let previous = fs::metadata(&path).ok();
    let backup = match previous {
        Some(_) => Some(back_up(&path)?),
        None => None,
    };
    let tmp = temp_path(&path);
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        if let Some(meta) = &previous {
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &path)?;
        sync_dir(dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map(|()| backup)
}

/// Remove `path` (a file that only ever held what install wrote), keeping a backup.
pub fn remove(path: &Path) -> std::io::Result<Option<PathBuf>> {
    let path = resolve(path)?;
    if !path.exists() {
        return Ok(None);
    }
    let backup = back_up(&path)?;
    fs::remove_file(&path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")));
    Ok(Some(backup))
}

/// A configuration file kept in a dotfiles repository is often a symlink: change the file it
/// points to, or the rename would replace the link with a plain file.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path),
        _ => Ok(path.to_path_buf()),
    }
}

fn back_up(path: &Path) -> std::io::Result<PathBuf> {
    let backup = backup_path(path);
    fs::copy(path, &backup)?;
    Ok(backup)
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
    fn a_rewrite_keeps_one_backup_and_the_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/settings.json");
        assert_eq!(write(&path, "one").unwrap(), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        }
        let backup = write(&path, "two").unwrap().unwrap();
        write(&path, "three").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "three");
        assert_eq!(fs::read_to_string(&backup).unwrap(), "two");
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
}
