//! `aletheia scrub`: redact rows that an older version (or a looser rule set) stored.

pub fn run() -> anyhow::Result<()> {
    let redactor = super::redactor()?;
    let mut store = super::open_store()?;
    let changed = store.scrub(|s| redactor.redact(s))?;
    println!("Scrubbed {changed} memories.");
    Ok(())
}
