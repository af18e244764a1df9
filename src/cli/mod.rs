//! The interactive commands, one file each. They parse flags into an operation's request, build
//! the operation's context from the environment (this is the command line's edge: the store,
//! the redactor, the clock and the caller are decided here and nowhere below), call it, and
//! print its text, or its JSON with `--json`, through [`print`].

pub mod backfill;
pub mod capture;
pub mod compress;
pub mod connect;
pub mod context;
pub mod doctor;
pub mod drain;
pub mod drift;
pub mod exit;
pub mod export;
pub mod facts;
pub mod hub;
#[cfg(feature = "server")]
pub mod hub_migrate;
pub mod import;
#[cfg(feature = "semantic")]
pub mod index;
pub mod inspect;
pub mod install;
pub mod items;
pub mod list;
pub mod manual;
pub mod model;
pub mod observations;
pub mod print;
pub mod redact;
pub mod review;
pub mod rules;
pub mod save;
pub mod scrub;
pub mod search;
pub mod server;
pub mod sync;
pub mod timeline;
pub mod trust;
pub mod verify;
pub mod why;

use crate::config::Paths;
use crate::ops::{self, Caller, Context, Operation};
use crate::redact::Redactor;
use crate::store::{OpenOptions, Store};
use crate::text::Text;
use crate::time::Clock;
use anyhow::Context as _;

/// Open the store for an interactive command and bring in anything spooled (a drain with
/// nothing spooled only looks for the files).
fn open_store(paths: &Paths, redactor: &Redactor) -> anyhow::Result<Store> {
    let mut store = Store::open(paths, OpenOptions::INTERACTIVE)?;
    let report = crate::spool::drain(paths, &mut store, redactor).context("draining the spool")?;
    if report.rejected > 0 {
        eprintln!(
            "aletheia: {} spool line(s) could not be read and were moved to {}",
            report.rejected,
            paths.spool_dir().display()
        );
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

/// The command line's caller: every right, named by `--tool`, else `ALETHEIA_TOOL`, else `cli`.
pub fn caller(tool: Option<&str>) -> Caller {
    let env = std::env::var("ALETHEIA_TOOL").ok();
    let name = tool
        .or(env.as_deref())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or("cli");
    Caller::local(name, &default_project())
}

/// Everything an operation runs with, built from the environment.
pub struct Edge {
    paths: Paths,
    store: Store,
    redactor: &'static Redactor,
    clock: Clock,
    caller: Caller,
    semantic: Option<crate::embed::semantic::Semantic>,
    extraction: Option<crate::compress::Extraction>,
    /// The working directory: the project folder drift checks read.
    root: std::path::PathBuf,
}

impl Edge {
    /// Open the store (draining the spool first) for `caller`.
    pub fn open(caller: Caller) -> anyhow::Result<Edge> {
        Edge::open_with(caller, true)
    }

    /// Like [`Edge::open`]; `drain_first: false` leaves the spool for the operation itself.
    pub fn open_with(caller: Caller, drain_first: bool) -> anyhow::Result<Edge> {
        let redactor = redactor()?;
        let paths = Paths::from_env();
        let store = if drain_first {
            open_store(&paths, redactor)?
        } else {
            Store::open(&paths, OpenOptions::INTERACTIVE)?
        };
        Ok(Edge {
            paths,
            store,
            redactor,
            clock: Clock::system(),
            caller,
            semantic: None,
            extraction: None,
            root: crate::config::working_dir(),
        })
    }

    /// Load the embedding model (and the re-ranker, when it is there), so that searches fuse
    /// meaning with words. A missing model is an error that says how to get one.
    pub fn load_model(&mut self) -> anyhow::Result<()> {
        let dir = self.paths.model_dir();
        self.semantic = Some(crate::embed::semantic::Semantic::load(&dir)?);
        Ok(())
    }

    /// Call operation `O`; its error becomes the command's one-line error.
    pub fn call<O: Operation>(&mut self, request: O) -> anyhow::Result<O::Output> {
        let mut ctx = Context {
            store: &mut self.store,
            redactor: self.redactor,
            clock: self.clock.clone(),
            caller: self.caller.clone(),
            paths: Some(&self.paths),
            semantic: self.semantic.as_ref(),
            extraction: self.extraction.as_ref(),
            root: Some(&self.root),
        };
        Ok(ops::call(&mut ctx, request)?)
    }

    /// Let operations compress with `ex` (`aletheia compress`).
    pub fn set_extraction(&mut self, ex: crate::compress::Extraction) {
        self.extraction = Some(ex);
    }

    /// The extractor in use, as `compress` prints it.
    pub fn extraction_name(&self) -> String {
        self.extraction
            .as_ref()
            .map_or_else(|| "rule-based".into(), |e| e.describe())
    }

    /// The open store, for what the edge reads before calling (`compress`'s first-use notice).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Where the data lives.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The clock the results are shown in.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

/// Run one operation and print its result: the text, or one line of JSON.
pub fn run<O: Operation + Text>(request: O, caller: Caller, json: bool) -> anyhow::Result<()> {
    let mut edge = Edge::open(caller)?;
    let out = edge.call(request)?;
    Ok(print::result(&out, edge.clock(), json, O::text)?)
}

/// [`run`] for a command that names what it shows through an operation that skips what is
/// missing (as its MCP tool is documented to): `found` says what was there, and the exit rule
/// ([`exit`]) turns the rest into exit 1, after printing whatever was found.
pub fn run_naming<O: Operation + Text>(
    request: O,
    caller: Caller,
    json: bool,
    found: impl FnOnce(&O::Output) -> exit::Found,
) -> anyhow::Result<()> {
    let mut edge = Edge::open(caller)?;
    let out = edge.call(request)?;
    let partly = match found(&out) {
        exit::Found::All => None,
        exit::Found::Partly(message) => Some(message),
        exit::Found::Nothing(message) => return Err(exit::missing(message)),
    };
    print::result(&out, edge.clock(), json, O::text)?;
    partly.map_or(Ok(()), |message| Err(exit::missing(message)))
}
