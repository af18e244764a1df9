//! The compression worker inside the server: every two seconds (or at once when woken by
//! "Compress now"), it brings in what hooks spooled and runs the due compression jobs, the
//! same `compress` operation `aletheia compress --daemon` runs.
//!
//! It is a thread of its own with its own connection, because a job can hold a provider call
//! for many seconds and must not take a request's place. On shutdown the stop flag releases
//! the job in hand at its next window (not counted as an attempt), so nothing is lost.

use crate::compress::Extraction;
use crate::compress::worker::TICK;
use crate::config::Paths;
use crate::ops::compress::Compress;
use crate::ops::{self, Caller, Context};
use crate::redact::Redactor;
use crate::store::{OpenOptions, Store};
use crate::time::Clock;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};

/// Run until `ex.stop` is set (and the worker woken) or every waker is gone.
pub fn run(
    paths: Paths,
    redactor: &'static Redactor,
    ex: Extraction,
    caller: Caller,
    wake: Receiver<()>,
) {
    let mut store: Option<Store> = None;
    while !ex.stop.load(Ordering::SeqCst) {
        if store.is_none() {
            match Store::open(&paths, OpenOptions::SERVING) {
                Ok(s) => store = Some(s),
                Err(e) => {
                    tracing::warn!(error = %e, "worker: the store cannot be opened; trying again next tick")
                }
            }
        }
        if let Some(s) = store.as_mut() {
            tick(&paths, s, redactor, &ex, &caller);
        }
        match wake.recv_timeout(TICK) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    tracing::info!("worker stopped");
}

fn tick(
    paths: &Paths,
    store: &mut Store,
    redactor: &'static Redactor,
    ex: &Extraction,
    caller: &Caller,
) {
    match crate::spool::drain(paths, store, redactor) {
        Ok(r) if r.stored > 0 || r.rejected > 0 => {
            tracing::info!(
                stored = r.stored,
                rejected = r.rejected,
                "worker: spool drained"
            )
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "worker: the spool could not be drained"),
    }
    let mut ctx = Context {
        store,
        redactor,
        clock: Clock::system(),
        caller: caller.clone(),
        paths: Some(paths),
        semantic: None,
        extraction: Some(ex),
        root: None,
    };
    match ops::call(
        &mut ctx,
        Compress {
            project: None,
            max_jobs: None,
        },
    ) {
        Ok(out) => {
            for end in &out.jobs {
                let line = serde_json::to_string(end).unwrap_or_default();
                tracing::info!(job = end.job, project = %end.project, outcome = %line, "worker: job ended");
            }
        }
        // A busy store is no reason to stop: the next tick tries again.
        Err(e) => tracing::warn!(error = %e, "worker: compress failed; trying again next tick"),
    }
}
