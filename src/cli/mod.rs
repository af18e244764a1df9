//! The interactive commands, one file each. They share how a store is opened (draining the spool
//! first, so what a hook could not store shows up in the next command) and how the default
//! project is found.

pub mod capture;
pub mod connect;
pub mod context;
pub mod doctor;
pub mod drain;
pub mod export;
pub mod import;
pub mod observations;
pub mod redact;
pub mod save;
pub mod scrub;
pub mod search;
pub mod timeline;
pub mod tool;

use crate::config::Paths;
use crate::redact::Redactor;
use crate::store::{OpenOptions, Store};
use anyhow::Context as _;

/// Open the store for an interactive command and bring in anything spooled.
pub fn open_store() -> anyhow::Result<Store> {
    let paths = Paths::from_env();
    let mut store = Store::open(&paths, OpenOptions::INTERACTIVE)?;
    if !crate::spool::pending_files(&paths).is_empty() {
        let report = crate::spool::drain(&paths, &mut store, Redactor::global())
            .context("draining the spool")?;
        if report.rejected > 0 {
            eprintln!(
                "aletheia: {} spool line(s) could not be read and were moved to {}",
                report.rejected,
                paths.spool_dir().display()
            );
        }
    }
    Ok(store)
}

/// The project of the working directory (`ALETHEIA_CWD` or the process's).
pub fn default_project() -> String {
    crate::project::project_key(&crate::config::working_dir())
}

/// The redactor for commands: a bad rule file is an error here, so the user sees it.
pub fn redactor() -> anyhow::Result<&'static Redactor> {
    Redactor::global_checked().map_err(anyhow::Error::msg)
}
