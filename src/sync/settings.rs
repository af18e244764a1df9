//! Where `aletheia sync setup` keeps the hub and its token: the hub's URL in the store (with
//! the rest of the sync state), the token in `sync-token` beside the store, a file only its
//! owner can read or write, since the token grants what its scope allows to anyone holding it.

use crate::config::Paths;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The file holding the sync token.
pub fn token_path(paths: &Paths) -> PathBuf {
    paths.data_dir.join("sync-token")
}

/// Save `token`, readable by its owner alone.
pub fn save_token(paths: &Paths, token: &str) -> std::io::Result<PathBuf> {
    let path = token_path(paths);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(&tmp)?;
    #[cfg(unix)]
    std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    f.write_all(token.trim().as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// The saved token, if there is one.
pub fn load_token(paths: &Paths) -> std::io::Result<Option<String>> {
    match std::fs::read_to_string(token_path(paths)) {
        Ok(t) if !t.trim().is_empty() => Ok(Some(t.trim().to_owned())),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The pause between syncs when `ALETHEIA_SYNC_INTERVAL` names none.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(300);

/// `ALETHEIA_SYNC_INTERVAL` (seconds), else [`DEFAULT_INTERVAL`].
pub fn interval() -> Result<Duration, String> {
    match std::env::var("ALETHEIA_SYNC_INTERVAL") {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|s| *s >= 1)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("ALETHEIA_SYNC_INTERVAL must be a whole number of seconds, 1 or more, not \"{v}\"")),
        _ => Ok(DEFAULT_INTERVAL),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_file_is_its_owners_alone() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        assert_eq!(load_token(&paths).unwrap(), None);
        let path = save_token(&paths, "alh_1_abc\n").unwrap();
        assert_eq!(load_token(&paths).unwrap().as_deref(), Some("alh_1_abc"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }
}
