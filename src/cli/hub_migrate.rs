//! `aletheia hub migrate --from <hub.db> --to postgres://…`: a SQLite hub moved into
//! PostgreSQL, table by table, saying each as it ends; run again after a stop, it goes on where
//! it stopped. The hubs should be stopped while it runs: the counts it checks at the end are
//! only equal when nothing wrote to either side meanwhile.

use crate::cli::print;
use crate::store::postgres::PgStore;
use crate::store::postgres::migrate::Copied;
use std::path::Path;

pub fn run(from: &Path, to: &str, json: bool) -> anyhow::Result<()> {
    if !from.is_file() {
        anyhow::bail!(
            "--from {}: no such file; give the SQLite file `aletheia hub --hub-db` serves",
            from.display()
        );
    }
    if !crate::store::postgres::is_url(to) {
        anyhow::bail!(
            "--to {}: give a PostgreSQL URL, as postgres://user@host/dbname",
            crate::store::postgres::shown(to)
        );
    }
    let target = PgStore::open(to).map_err(|e| anyhow::anyhow!("opening --to: {e}"))?;
    let mut say = |c: &Copied| {
        if !json {
            eprintln!(
                "aletheia hub migrate: {}: {} rows ({} copied now)",
                c.table, c.target, c.copied
            );
        }
    };
    let copied = target.migrate_from(from, &mut say)?;
    if json {
        return print::json(&copied).map_err(Into::into);
    }
    let rows: i64 = copied.iter().map(|c| c.target).sum();
    print::line(&format!(
        "Copied {} into {}: {rows} rows in {} tables, each counted on both sides. Start the hub with --database on it.",
        from.display(),
        target.name().display(),
        copied.len()
    ))
    .map_err(Into::into)
}
