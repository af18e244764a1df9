//! What every request of the server works with: the store's connections, the redactor, the
//! model, and the caller each front end (REST, MCP over HTTP, the dashboard) speaks as.
//!
//! Operations are synchronous SQLite work, so a request runs its operation on tokio's blocking
//! pool with a connection taken from a small pool: SQLite in WAL mode lets readers run beside
//! one writer, and reusing connections saves each request the open and schema check a hook
//! pays. Nothing here knows an operation's rules; [`State::run`] only builds the
//! [`Context`] the operations layer asks for.

use crate::config::Paths;
use crate::embed::background::Background;
use crate::ops::{Access, Caller, Context, OpError};
use crate::redact::Redactor;
use crate::store::hub_database::HubDatabase;
use crate::store::{HubStorage, OpenOptions, Store};
use crate::time::Clock;
use std::sync::{Arc, Mutex};

/// Operations running at once, each with a connection of its own, kept open between
/// requests. More would not run faster on a few cores (an operation is CPU and SQLite work),
/// and each extra one would open a connection (schema check included) and close it again.
const POOL: usize = 4;

/// The server's shared state.
pub struct State {
    pub paths: Paths,
    redactor: &'static Redactor,
    /// Why the user's redaction rules could not be loaded: writes are refused until it is
    /// fixed, as everywhere else, rather than stored with fewer rules than asked for.
    rules_error: Option<String>,
    /// A hub's store, on either engine; `None` for the server, whose store is `paths.db`.
    database: Option<HubDatabase>,
    pool: Mutex<Vec<Box<dyn HubStorage + Send>>>,
    /// One permit per pooled connection: a request past them waits for one to come back.
    permits: Arc<tokio::sync::Semaphore>,
    background: Option<Background>,
    /// The project a request that names none works on: the folder the server started in.
    pub default_project: String,
    /// Wakes the worker at once (the dashboard's "Compress now"); `None` when none runs.
    wake_worker: Option<Mutex<std::sync::mpsc::Sender<()>>>,
    /// What the worker runs, as `server` prints it.
    pub extraction_name: String,
    /// Whether the pooled connections keep the keyword index in memory (SQLite only).
    keyword_index: bool,
}

impl State {
    pub fn new(
        paths: Paths,
        redactor: Result<&'static Redactor, String>,
        default_project: String,
        background: Option<Background>,
        extraction_name: String,
        wake_worker: Option<std::sync::mpsc::Sender<()>>,
    ) -> State {
        let (redactor, rules_error) = match redactor {
            Ok(r) => (r, None),
            Err(e) => (Redactor::global(), Some(e)),
        };
        State {
            paths,
            redactor,
            rules_error,
            database: None,
            pool: Mutex::new(Vec::new()),
            permits: Arc::new(tokio::sync::Semaphore::new(POOL)),
            background,
            default_project,
            wake_worker: wake_worker.map(Mutex::new),
            extraction_name,
            keyword_index: false,
        }
    }

    /// The same state with the keyword index in memory (`ALETHEIA_KEYWORD_INDEX`) or without.
    pub fn keyword_index(mut self, on: bool) -> State {
        self.keyword_index = on;
        self
    }

    /// Open the first pooled connection now, on the blocking pool, so that its keyword index
    /// builds while the process starts rather than on the first search. Only a SQLite store
    /// keeps one; a store that cannot be opened yet is left to the first request, which says
    /// why.
    pub fn warm(self: &Arc<Self>) {
        let sqlite = matches!(self.database, None | Some(HubDatabase::Sqlite(_)));
        if self.keyword_index && sqlite {
            let state = Arc::clone(self);
            tokio::task::spawn_blocking(move || {
                if let Ok(store) = state.take() {
                    state.give_back(store);
                }
            });
        }
    }

    /// The same state serving a hub's store, on whichever engine it is.
    pub fn serving(mut self, database: HubDatabase) -> State {
        self.database = Some(database);
        self
    }

    /// A caller with every right (the server is the user's own, on loopback or behind the
    /// API key), named for the front end or the client.
    pub fn caller(&self, name: &str) -> Caller {
        Caller::local(name, &self.default_project)
    }

    /// An MCP client of the server, named as it named itself: it writes as the level the
    /// owner set for it allows.
    pub fn client(&self, name: &str) -> Caller {
        Caller::client(name, &self.default_project)
    }

    /// Ask the worker to look at the queue now rather than at its next tick; false when no
    /// worker runs.
    pub fn wake_worker(&self) -> bool {
        self.wake_worker
            .as_ref()
            .is_some_and(|w| w.lock().unwrap_or_else(|p| p.into_inner()).send(()).is_ok())
    }

    /// Whether the semantic index is loaded.
    pub fn semantic_ready(&self) -> bool {
        self.background
            .as_ref()
            .is_some_and(|b| b.semantic().is_some())
    }

    /// Whether the loaded models re-rank search results (false while loading).
    pub fn reranks(&self) -> bool {
        self.background
            .as_ref()
            .and_then(|b| b.semantic())
            .is_some_and(|s| s.reranks())
    }

    /// Whether the model is there at all (loading or loaded).
    pub fn semantic_present(&self) -> bool {
        self.background.is_some()
    }

    /// Run `f` with a [`Context`] for `caller` on the blocking pool. `access` is the
    /// operation's, so that writes are refused while the user's redaction rules are broken.
    pub async fn run<R, F>(
        self: &Arc<Self>,
        caller: Caller,
        access: Access,
        f: F,
    ) -> Result<R, OpError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Context<'_>) -> Result<R, OpError> + Send + 'static,
    {
        if access != Access::Read
            && let Some(e) = &self.rules_error
        {
            return Err(OpError::StoreUnavailable(format!(
                "{e}; nothing is saved until the file named by ALETHEIA_REDACT_RULES is fixed (aletheia redact --check)."
            )));
        }
        self.on_pool(move |state| state.run_blocking(caller, f))
            .await?
    }

    /// Run `f` with one of the pool's connections to the store itself, on the blocking pool:
    /// for what no operation does (a hub's tokens, audit, rate window and sync).
    pub async fn with_store<R, F>(self: &Arc<Self>, f: F) -> Result<R, OpError>
    where
        R: Send + 'static,
        F: FnOnce(&mut dyn HubStorage) -> R + Send + 'static,
    {
        self.on_pool(move |state| {
            let mut store = state.take()?;
            let out = f(store.as_mut());
            state.give_back(store);
            Ok(out)
        })
        .await?
    }

    /// Run `f` on tokio's blocking pool once a permit (a pooled connection's turn) is free.
    async fn on_pool<R, F>(self: &Arc<Self>, f: F) -> Result<R, OpError>
    where
        R: Send + 'static,
        F: FnOnce(&State) -> R + Send + 'static,
    {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|e| OpError::StoreUnavailable(format!("the server is stopping: {e}")))?;
        let state = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let out = f(&state);
            drop(permit);
            out
        })
        .await
        .map_err(|e| OpError::StoreUnavailable(format!("the request failed: {e}")))
    }

    /// [`State::run`] on the current thread, for the worker and tests.
    pub fn run_blocking<R>(
        &self,
        caller: Caller,
        f: impl FnOnce(&mut Context<'_>) -> Result<R, OpError>,
    ) -> Result<R, OpError> {
        let mut store = self.take()?;
        let mut ctx = Context {
            store: store.as_mut(),
            redactor: self.redactor,
            clock: Clock::system(),
            caller,
            paths: Some(&self.paths),
            semantic: self.background.as_ref().and_then(|b| b.semantic()),
            extraction: None,
            root: None,
        };
        let out = f(&mut ctx);
        self.give_back(store);
        out
    }

    pub fn redactor(&self) -> &'static Redactor {
        self.redactor
    }

    fn take(&self) -> Result<Box<dyn HubStorage + Send>, OpError> {
        if let Some(s) = self.pool.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(s);
        }
        let opened = match &self.database {
            Some(db) => db.open_serving(self.keyword_index),
            None => Store::open(&self.paths, OpenOptions::serving(self.keyword_index))
                .map(|s| Box::new(s) as Box<dyn HubStorage + Send>),
        };
        opened.map_err(|e| OpError::StoreUnavailable(format!("the store cannot be opened: {e}")))
    }

    /// Keep a connection for the next request, unless the pool is full or the connection was
    /// lost (a database server that restarted): the next request then opens a new one.
    fn give_back(&self, store: Box<dyn HubStorage + Send>) {
        if store.is_closed() {
            return;
        }
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < POOL {
            pool.push(store);
        }
    }
}
