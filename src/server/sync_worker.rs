//! The server's sync: when `aletheia sync setup` has saved a hub, a thread of its own syncs
//! with it every `ALETHEIA_SYNC_INTERVAL` seconds (default five minutes), so machines that
//! run the server stay in step without anyone typing `aletheia sync`. A thread apart from
//! the compression worker: a first sync of a large store takes minutes and must not hold
//! compression up. Hooks never sync; the hot path stays local.

use crate::config::Paths;
use crate::redact::Redactor;
use crate::store::{OpenOptions, Store};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Sync every `every` until `stop` is set.
pub fn run(paths: Paths, redactor: &'static Redactor, every: Duration, stop: Arc<AtomicBool>) {
    let mut next = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        if Instant::now() >= next {
            once(&paths, redactor);
            next = Instant::now() + every;
        }
        std::thread::sleep(Duration::from_millis(200).min(every));
    }
}

fn once(paths: &Paths, redactor: &Redactor) {
    let mut store = match Store::open(paths, OpenOptions::SERVING) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "sync: the store cannot be opened; trying again next time");
            return;
        }
    };
    let url = match store.sync_hub() {
        Ok(Some(url)) => url,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "sync: cannot read the sync settings");
            return;
        }
    };
    let token = match crate::sync::settings::load_token(paths) {
        Ok(Some(t)) => t,
        Ok(None) => {
            tracing::warn!(
                "sync: a hub is set up but no token is saved: run `aletheia sync setup` again"
            );
            return;
        }
        Err(e) => {
            tracing::warn!(error = %e, "sync: cannot read the sync token");
            return;
        }
    };
    let hub = crate::sync::client::Hub { url, token };
    // The client records the outcome as the last sync, for `aletheia sync status`.
    match crate::sync::client::sync(&mut store, redactor, hub, false) {
        Ok(r) => {
            for w in &r.history_warnings {
                tracing::warn!(warning = %w, "sync: another machine's history");
            }
            tracing::info!(
                pushed_memories = r.pushed_memories,
                pushed_changes = r.pushed_changes,
                pulled = r.pulled.stored,
                conflicts = r.conflicts,
                "sync: done"
            )
        }
        Err(e) => tracing::warn!(error = %e, "sync: failed; trying again next time"),
    }
}
