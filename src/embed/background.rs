//! The model and the indexer of a long-running process (the server, and a hub over its own
//! database).
//!
//! Started on a thread of its own, so the process answers at once: the model loads while the
//! client initialises, and until it has, searches use words alone. Then the thread gives every
//! memory without a vector one, and looks again every few seconds for memories the hooks have
//! added since. Its own store connection keeps its writes off the request thread's.
//!
//! The model's arithmetic runs on rayon's threads. The indexer gets a pool of its own, as many
//! threads as the requests' pool, each at a lower scheduling priority (nice 10): alone it has
//! every core, and while a search embeds or re-ranks, the kernel gives the search's threads
//! nearly all of the CPU, so a backlog of thousands of memories does not slow searches much.

use super::index;
use super::model::Embedder;
use super::semantic::Semantic;
use crate::config::Paths;
use crate::store::contract::Storage;
use crate::store::{OpenOptions, Store, StoreError};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How long the indexer rests when nothing is left to index.
const IDLE: Duration = Duration::from_secs(5);
/// Every this many passes (about five minutes when idle), the indexer looks at every memory.
const FULL_PASS: u64 = 60;
/// How long it waits after a failure (a busy or missing store) before trying again.
const AFTER_FAILURE: Duration = Duration::from_secs(30);

/// A handle on the background model.
pub struct Background {
    ready: Arc<OnceLock<Semantic>>,
}

impl Background {
    /// Start loading the model and indexing, if the model is there; `None` if it is not (search
    /// then uses words alone, and `doctor` says how to get the model).
    pub fn start(paths: &Paths) -> Option<Background> {
        let store_paths = paths.clone();
        Background::start_on(&paths.model_dir(), move || {
            Ok(Box::new(Store::open(&store_paths, OpenOptions::SERVING)?))
        })
    }

    /// The same over whatever store `open` connects to: a hub's, on either engine, so that
    /// its searches score by meaning too and its memories get their vectors beside them.
    pub fn start_on(
        dir: &Path,
        open: impl Fn() -> Result<Box<dyn Storage + Send>, StoreError> + Send + 'static,
    ) -> Option<Background> {
        if !Embedder::present(dir) {
            return None;
        }
        let ready = Arc::new(OnceLock::new());
        let shared = Arc::clone(&ready);
        let dir = dir.to_owned();
        std::thread::Builder::new()
            .name("aletheia-index".into())
            .spawn(move || run(&open, &dir, &shared))
            .ok()?;
        Some(Background { ready })
    }

    /// The semantic index, once the model has loaded.
    pub fn semantic(&self) -> Option<&Semantic> {
        self.ready.get()
    }
}

fn run(
    open: &dyn Fn() -> Result<Box<dyn Storage + Send>, StoreError>,
    dir: &Path,
    ready: &OnceLock<Semantic>,
) {
    let semantic = match Semantic::load(dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("aletheia: semantic search is off: {e}");
            return;
        }
    };
    let embedder = Arc::clone(semantic.embedder());
    let _ = ready.set(semantic);
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("aletheia-index-{i}"))
        .start_handler(|_| lower_priority())
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("aletheia: indexing is off: {e}");
            return;
        }
    };
    // Most passes look only at memories added since the last (ids grow); every `FULL_PASS`-th
    // looks at all of them, for a memory whose text changed (it lost its vector) or an id
    // reused after the newest memory was deleted.
    let mut after = 0;
    for pass in 1u64.. {
        if pass.is_multiple_of(FULL_PASS) {
            after = 0;
        }
        let pause = match open() {
            Ok(mut store) => {
                let indexed = pool.install(|| {
                    index::index_missing(store.as_mut(), &embedder, &mut after, |_| {})
                });
                match indexed {
                    Ok(_) => IDLE,
                    Err(e) => {
                        eprintln!("aletheia: indexing paused: {e}");
                        AFTER_FAILURE
                    }
                }
            }
            Err(_) => AFTER_FAILURE,
        };
        std::thread::sleep(pause);
    }
}

/// Make the calling thread yield the CPU to the process's other threads. Best effort: where it
/// cannot be done, indexing merely competes with searches as an equal.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority reads its three integer arguments and touches no memory of ours. On
    // Linux a thread id given as PRIO_PROCESS names that one thread, so only it is lowered.
    unsafe {
        let thread = libc::id_t::try_from(libc::gettid()).unwrap_or(0);
        libc::setpriority(libc::PRIO_PROCESS, thread, 10);
    }
}
