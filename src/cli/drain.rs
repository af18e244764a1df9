//! `aletheia drain`: bring everything spooled into the store now.

use crate::config::Paths;
use crate::redact::Redactor;
use crate::store::{OpenOptions, Store};

pub fn run() -> anyhow::Result<()> {
    let paths = Paths::from_env();
    let mut store = Store::open(&paths, OpenOptions::INTERACTIVE)?;
    let r = crate::spool::drain(&paths, &mut store, Redactor::global())?;
    println!(
        "Drained the spool: {} stored, {} already present, {} rejected.",
        r.stored, r.duplicates, r.rejected
    );
    Ok(())
}
