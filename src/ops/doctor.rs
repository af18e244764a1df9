//! `doctor`: is everything where it should be, and if not, what to do about it.
//!
//! The report is one typed value that the terminal (`aletheia doctor`, text or `--json`) and the
//! dashboard both render. Each check runs once per report and leaves one or more [`Check`]s:
//! `ok`, `warn` (worth knowing, nothing lost: the report's notes) or `fail` (the user must act:
//! the report's problems), each with the fix to run. It reads and reports; it never drains or
//! repairs, so what it shows is the state the user is asking about. The one repair it offers,
//! rebuilding the search index, is its own operation, [`RebuildSearchIndex`].
//!
//! Unlike other operations, doctor looks beyond the store, at the machine it runs on: the
//! files and folders of the data directory, the free disk, the hosts' configuration
//! (`hosts`, through install's own query, so doctor and `uninstall` agree) and the
//! environment's provider settings. Neither operation is an MCP tool: the MCP table
//! (`crate::mcp::tools::TOOLS`) names its tools one by one, and these are only in
//! [`super::OPERATIONS`], for the command line and the dashboard.
//!
//! A store that cannot be opened is itself the first thing doctor must report, yet no
//! [`Context`] can be made without one: [`without_store`] runs the same checks for that case.

mod hosts;

pub use hosts::{HookReport, HostReport, InstallReport, McpReport, ProgramReport};

use super::{Access, Context, OpError, Operation};
use crate::config::Paths;
use crate::spool;
use crate::store::{OpenOptions, Storage, Store, StoreError};
use crate::time::Clock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `doctor`: check the store, the spool, the hosts, semantic search and extraction.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Doctor {}

impl Operation for Doctor {
    const NAME: &'static str = "doctor";
    const DESCRIPTION: &'static str = "Check the store, the spool, the connected hosts, semantic search and extraction, and say what to fix.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Report;

    fn run(self, ctx: &mut Context<'_>) -> Result<Report, OpError> {
        // The report shows every project's counts and the machine's files.
        ctx.caller.check_every_project(Self::NAME)?;
        let Some(paths) = ctx.paths else {
            return Err(OpError::NotFound(
                "there is no data directory here to check.".into(),
            ));
        };
        Ok(diagnose(paths, Ok(ctx.store), &ctx.clock))
    }
}

/// `rebuild_search_index`: build the search index again from the memories (`aletheia doctor
/// --rebuild-index`), the fix for an index that does not match them.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RebuildSearchIndex {}

impl Operation for RebuildSearchIndex {
    const NAME: &'static str = "rebuild_search_index";
    const DESCRIPTION: &'static str = "Build the search index again from the stored memories.";
    // It rewrites only the index, which is derived from the memories: nothing stored is
    // replaced, so it is a write, not a destructive one.
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = ();

    fn run(self, ctx: &mut Context<'_>) -> Result<(), OpError> {
        ctx.caller.check_every_project(Self::NAME)?;
        Ok(ctx.store.rebuild_search_index()?)
    }
}

/// The store doctor checks, opened (and migrated) but never created: `Ok(None)` when there is
/// no store file yet, since the first event creates it.
pub fn open_store(paths: &Paths) -> Result<Option<Store>, StoreError> {
    if !paths.db.exists() {
        return Ok(None);
    }
    Store::open(paths, OpenOptions::INTERACTIVE).map(Some)
}

/// Why doctor has no store to check.
#[derive(Debug)]
pub enum NoStore {
    /// There is no store file yet: the first event creates it.
    Missing,
    /// The store file could not be opened.
    Unopenable(StoreError),
    /// A front end could not get a store, for the reason given (a sentence).
    Unavailable(String),
}

/// The report when no store can be given, for the reason `why`.
pub fn without_store(paths: &Paths, clock: &Clock, why: NoStore) -> Report {
    diagnose(paths, Err(why), clock)
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Worth knowing, but nothing is lost or broken.
    Warn,
    /// Something the user must fix.
    Fail,
}

/// One finding of one check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The check, e.g. `store`, `search_index`, `spool`, `host_programs`.
    pub name: &'static str,
    pub status: Status,
    /// What was found, in a sentence.
    pub detail: String,
    /// What to run or do about it; `None` when there is nothing to do.
    pub fix: Option<String>,
}

/// Doctor's report: what each check found, and the state it looked at.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub store: StoreReport,
    pub spool: SpoolReport,
    /// Each tool that sent an event, with the time of its last.
    pub last_capture: Vec<(String, String)>,
    /// The project whose files were checked for project-scope installs.
    pub project: Option<PathBuf>,
    pub hosts: Vec<HostReport>,
    /// The `warn` checks' details: worth knowing, but nothing to fix.
    pub notes: Vec<String>,
    pub semantic: SemanticReport,
    pub extraction: ExtractionReport,
    /// The `fail` checks, as what is wrong and its fix.
    pub problems: Vec<Problem>,
    /// Every check that ran, in order, with its outcome.
    pub checks: Vec<Check>,
}

/// A `fail` check, as `doctor --json` has always listed its problems.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub what: String,
    pub fix: String,
}

#[derive(Debug, Default, Serialize)]
pub struct StoreReport {
    pub path: PathBuf,
    /// Whether there is a store: none until the first event (or command that writes) makes it.
    pub exists: bool,
    pub size_bytes: u64,
    pub schema_version: Option<i64>,
    pub integrity: Option<String>,
    /// Whether the search index matches the memories; `None` when it was not checked.
    pub fts_consistent: Option<bool>,
    pub counts_by_kind: Vec<(String, i64)>,
    pub jobs: crate::store::jobs::JobCounts,
}

#[derive(Debug, Default, Serialize)]
pub struct SpoolReport {
    pub files: Vec<PathBuf>,
    pub lines_waiting: usize,
    pub oldest_waiting: Option<String>,
    pub rejected_files: Vec<PathBuf>,
    /// The cap on everything spooled (`ALETHEIA_SPOOL_MAX_MB`), in bytes.
    pub cap_bytes: u64,
    /// Events the spool refused at its cap, ever (`refused.json` beside the spool).
    pub refused: Option<spool::Refused>,
}

impl SpoolReport {
    /// The cap that refused events, which the hooks' environment may set apart from this
    /// process's; this one's when nothing was refused (or a record predates the field).
    pub fn refusing_cap(&self) -> u64 {
        self.refused
            .as_ref()
            .map(|x| x.cap_bytes)
            .filter(|&cap| cap > 0)
            .unwrap_or(self.cap_bytes)
    }
}

/// Semantic search is optional: without the model, search uses words alone. So its state is
/// reported, with how to turn it on, but is never a problem.
#[derive(Debug, Default, Serialize)]
pub struct SemanticReport {
    pub model_dir: PathBuf,
    /// The sentence model chosen (`ALETHEIA_MODEL`, else the default); `None` when the
    /// variable names no model.
    pub model: Option<&'static str>,
    pub model_present: bool,
    /// The re-ranker that would run: chosen and its files there.
    pub reranker: Option<&'static str>,
    /// Memories that can be searched but have no vector yet.
    pub without_vector: Option<u64>,
}

/// Compression: who extracts, the caps, and what was sent to model providers today and this
/// month (characters, and tokens estimated as characters / 4), per provider.
#[derive(Debug, Default, Serialize)]
pub struct ExtractionReport {
    pub extractor: String,
    pub chars_per_job: usize,
    pub chars_per_day: usize,
    pub today: Vec<crate::store::usage::Usage>,
    pub this_month: Vec<crate::store::usage::Usage>,
}

impl Report {
    /// Whether nothing needs the user's action.
    pub fn healthy(&self) -> bool {
        self.problems.is_empty()
    }

    /// The checks named `name`.
    pub fn check(&self, name: &str) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(move |c| c.name == name)
    }

    fn ok(&mut self, name: &'static str, detail: impl Into<String>) {
        self.checks.push(Check {
            name,
            status: Status::Ok,
            detail: detail.into(),
            fix: None,
        });
    }

    fn warn(&mut self, name: &'static str, detail: String, fix: Option<String>) {
        self.notes.push(detail.clone());
        self.checks.push(Check {
            name,
            status: Status::Warn,
            detail,
            fix,
        });
    }

    fn fail(&mut self, name: &'static str, what: impl Into<String>, fix: impl Into<String>) {
        let (what, fix) = (what.into(), fix.into());
        self.problems.push(Problem {
            what: what.clone(),
            fix: fix.clone(),
        });
        self.checks.push(Check {
            name,
            status: Status::Fail,
            detail: what,
            fix: Some(fix),
        });
    }

    /// Whether a check named `name`, among those from index `from` on, came out other than ok.
    fn found_since(&self, from: usize, name: &str) -> bool {
        self.checks[from..]
            .iter()
            .any(|c| c.name == name && c.status != Status::Ok)
    }
}

/// Every check, once, in the order the report lists them. `store` is the open store, or why
/// there is none.
fn diagnose(paths: &Paths, store: Result<&dyn Storage, NoStore>, clock: &Clock) -> Report {
    let mut r = Report::default();
    let store = check_store(paths, store, &mut r);
    check_writable(paths, &mut r);
    check_history_key(paths, &mut r);
    check_spool(paths, &mut r);
    hosts::check(&mut r);
    check_semantic(paths, store, &mut r);
    check_extraction(store, clock, &mut r);
    r
}

/// The store's file, its integrity and its search index; returns the store when it is open.
fn check_store<'s>(
    paths: &Paths,
    store: Result<&'s dyn Storage, NoStore>,
    r: &mut Report,
) -> Option<&'s dyn Storage> {
    r.store.path = paths.db.clone();
    r.store.size_bytes = ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", paths.db.display())).ok())
        .map(|m| m.len())
        .sum();
    r.store.exists = !matches!(store, Err(NoStore::Missing));
    const MOVE_ASIDE: &str = "if the file is corrupt, move it aside (new events wait in the spool) and run `aletheia drain`, then `aletheia import` an export if you have one";
    let store = match store {
        Ok(s) => s,
        // Moving a store aside only hides it from an older program: the fix is a newer one.
        Err(NoStore::Unopenable(e @ StoreError::NewerSchema { .. })) => {
            r.fail(
                "store",
                format!("the store cannot be opened: {e}"),
                "install a newer aletheia; this one leaves the store as it is",
            );
            return None;
        }
        Err(NoStore::Unopenable(e)) => {
            r.fail(
                "store",
                format!("the store cannot be opened: {e}"),
                MOVE_ASIDE,
            );
            return None;
        }
        Err(NoStore::Unavailable(why)) => {
            r.fail("store", why, MOVE_ASIDE);
            return None;
        }
        Err(NoStore::Missing) => {
            match paths.db.parent() {
                Some(folder)
                    if paths.db_is_explicit
                        && !folder.as_os_str().is_empty()
                        && !folder.is_dir() =>
                {
                    r.fail(
                        "store",
                        format!("the store's folder {} does not exist", folder.display()),
                        "create it, or unset ALETHEIA_HUB_DB to use the data directory",
                    )
                }
                _ => r.ok(
                    "store",
                    format!(
                        "no store yet at {}: the first event creates it",
                        paths.db.display()
                    ),
                ),
            }
            return None;
        }
    };
    r.store.schema_version = store.schema_version().ok();
    r.ok(
        "store",
        format!(
            "{} opens, schema v{}",
            paths.db.display(),
            r.store.schema_version.unwrap_or_default()
        ),
    );
    match store.quick_check() {
        Ok(s) if s == "ok" => {
            r.ok("integrity", "SQLite's quick check found nothing wrong");
            r.store.integrity = Some(s);
        }
        Ok(s) => {
            r.fail(
                "integrity",
                format!("the store failed its integrity check: {s}"),
                "export what can be read (`aletheia export > backup.jsonl`), move the file aside and import the backup",
            );
            r.store.integrity = Some(s);
        }
        Err(e) => r.fail(
            "integrity",
            format!("the integrity check could not run: {e}"),
            "move the file aside and run `aletheia drain`",
        ),
    }
    match store.search_index_consistent() {
        Ok(true) => {
            r.store.fts_consistent = Some(true);
            r.ok("search_index", "the search index matches the memories");
        }
        Ok(false) => {
            r.store.fts_consistent = Some(false);
            r.fail(
                "search_index",
                "the search index does not match the memories",
                "run `aletheia doctor --rebuild-index`",
            );
        }
        Err(e) => r.fail(
            "search_index",
            format!("the search index could not be checked: {e}"),
            "run `aletheia doctor` again once the store is not busy; if it fails again, run `aletheia doctor --rebuild-index`",
        ),
    }
    r.store.counts_by_kind = store.count_by_kind().unwrap_or_default();
    r.store.jobs = store.job_counts().unwrap_or_default();
    r.last_capture = store
        .last_captures()
        .unwrap_or_default()
        .into_iter()
        .map(|(tool, at)| (tool, crate::time::iso_utc(at)))
        .collect();
    Some(store)
}

/// Whether this user may write `path` (and it exists).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Free bytes on the filesystem holding `path`.
fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid path and `st` a properly sized, writable statvfs.
    (unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0)
        .then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

/// The faults that leave a store readable but not writable: read-only files and folders, a full
/// disk.
fn check_writable(paths: &Paths, r: &mut Report) {
    let from = r.checks.len();
    let spool_dir = paths.spool_dir().to_path_buf();
    for (what, path) in [
        ("data directory", &paths.data_dir),
        ("spool folder", &spool_dir),
        ("store", &paths.db),
        ("spool", &paths.spool),
    ] {
        if path.exists() && !writable(path) {
            r.fail(
                "writable",
                format!(
                    "the {what} {} is not writable, so new events go to the temporary spool",
                    path.display()
                ),
                format!(
                    "make it writable for this user (chmod u+w {})",
                    path.display()
                ),
            );
        }
    }
    if !r.found_since(from, "writable") {
        r.ok(
            "writable",
            "the data directory, the spool and the store are writable where they exist",
        );
    }
    let disk = if paths.data_dir.exists() {
        &paths.data_dir
    } else {
        Path::new("/")
    };
    match free_bytes(disk) {
        Some(free) if free < 16 * 1024 * 1024 => r.fail(
            "disk",
            format!(
                "only {} KB are free on the disk holding {}",
                free / 1024,
                paths.data_dir.display()
            ),
            "free some space; events wait in the temporary spool meanwhile",
        ),
        Some(free) => r.ok(
            "disk",
            format!(
                "{} MB free on the disk holding {}",
                free / (1024 * 1024),
                disk.display()
            ),
        ),
        None => r.ok(
            "disk",
            format!("the free space on {} could not be read", disk.display()),
        ),
    }
}

/// The key that signs the history: a key that cannot be read leaves every write unsigned.
fn check_history_key(paths: &Paths, r: &mut Report) {
    use crate::history::{KeyError, MachineKey};
    let dir = paths.db.parent().unwrap_or(&paths.data_dir);
    match MachineKey::load(dir) {
        Ok(Some(key)) => r.ok(
            "history key",
            format!(
                "writes are signed as machine {}",
                key.public().fingerprint()
            ),
        ),
        Ok(None) => r.ok(
            "history key",
            "no machine key yet: the first write makes one",
        ),
        Err(e) => {
            let fix = match &e {
                KeyError::Exposed { path, .. } => format!("chmod 600 {}", path.display()),
                KeyError::Malformed { path, .. } => format!(
                    "restore {} from a backup, or move it away to have a new key made",
                    path.display()
                ),
                KeyError::Read { path, .. } | KeyError::Create { path, .. } => format!(
                    "make {} readable by this user alone (chmod 600)",
                    path.display()
                ),
            };
            r.fail(
                "history key",
                format!("{e}; until it is fixed, writes are stored unsigned"),
                fix,
            );
        }
    }
}

fn check_spool(paths: &Paths, r: &mut Report) {
    r.spool.files = spool::pending_files(paths);
    let mut oldest: Option<i64> = None;
    let mut unreadable = Vec::new();
    for f in &r.spool.files {
        // Read as bytes: a line that is not UTF-8 still waits (a drain rejects it, visibly),
        // and a file that cannot be read at all must not pass for an empty one.
        let bytes = match std::fs::read(f) {
            Ok(b) => b,
            Err(e) => {
                unreadable.push(format!("{} ({e})", f.display()));
                continue;
            }
        };
        for line in String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            r.spool.lines_waiting += 1;
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
                && let Some(at) = v["at"].as_i64()
            {
                oldest = Some(oldest.map_or(at, |o: i64| o.min(at)));
            }
        }
    }
    r.spool.oldest_waiting = oldest.map(crate::time::iso_utc);
    if r.spool.lines_waiting > 0 {
        r.fail(
            "spool",
            format!(
                "{} event(s) wait in the spool: the store could not be reached when they came",
                r.spool.lines_waiting
            ),
            "fix the store problem above if any, then run `aletheia drain` (any hook run also drains)",
        );
    }
    if !unreadable.is_empty() {
        r.fail(
            "spool",
            format!(
                "spool file(s) that cannot be read, so what they hold is not counted: {}",
                unreadable.join(", ")
            ),
            "make them readable regular files for this user, then run `aletheia drain`",
        );
    }
    if r.spool.lines_waiting == 0 && unreadable.is_empty() {
        r.ok("spool", "no event waits in the spool");
    }
    r.spool.cap_bytes = spool::cap_bytes();
    r.spool.refused = spool::refused(paths);
    match r.spool.refused.clone() {
        Some(refused) => {
            let cap = r.spool.refusing_cap();
            let records: Vec<String> = spool::refused_paths(paths)
                .into_iter()
                .filter(|p| p.exists())
                .map(|p| p.display().to_string())
                .collect();
            r.fail(
                "spool_cap",
                format!(
                    "{} event(s) were lost: the spool was at its cap of {} (first {}, last {})",
                    refused.events,
                    spool::megabytes(cap),
                    crate::time::iso_utc(refused.first_at),
                    crate::time::iso_utc(refused.last_at)
                ),
                format!(
                    "make the store reachable, raise ALETHEIA_SPOOL_MAX_MB if the cap is too small, then delete {} to clear this",
                    records.join(" and ")
                ),
            );
        }
        None => r.ok(
            "spool_cap",
            format!(
                "no event was refused at the spool's cap of {}",
                spool::megabytes(r.spool.cap_bytes)
            ),
        ),
    }
    r.spool.rejected_files = spool::rejected_files(paths);
    if r.spool.rejected_files.is_empty() {
        r.ok("spool_rejected", "no rejected spool file");
    } else {
        r.fail(
            "spool_rejected",
            format!(
                "{} rejected spool file(s) hold lines that could not be read",
                r.spool.rejected_files.len()
            ),
            "look at them, and delete them once nothing in them is needed",
        );
    }
}

fn check_semantic(paths: &Paths, store: Option<&dyn Storage>, r: &mut Report) {
    let s = &mut r.semantic;
    s.model_dir = paths.model_dir();
    let chosen = crate::embed::catalog::sentence_model_in(&s.model_dir);
    s.model = chosen.as_ref().ok().map(|m| m.name);
    s.model_present = crate::embed::model::Embedder::present(&s.model_dir);
    s.reranker = crate::embed::catalog::reranker()
        .ok()
        .flatten()
        .filter(|_| crate::embed::rerank::Reranker::present(&s.model_dir))
        .map(|m| m.name);
    s.without_vector = s
        .model
        .and_then(|model| store.and_then(|st| st.count_without_vector(model).ok()));
    if let Err(e) = chosen {
        r.warn(
            "semantic",
            e,
            Some("unset it or name one of the models listed".into()),
        );
        return;
    }
    let detail = match (s.model_present, s.without_vector) {
        (false, _) => format!(
            "off: no model in {}, so search uses words alone",
            s.model_dir.display()
        ),
        (true, Some(0)) => "on; every memory has a vector".to_owned(),
        (true, Some(n)) => format!("on; {n} memories have no vector yet (`aletheia index`)"),
        (true, None) => "on".to_owned(),
    };
    r.ok("semantic", detail);
}

fn check_extraction(store: Option<&dyn Storage>, clock: &Clock, r: &mut Report) {
    let lookup = |k: &str| std::env::var(k).ok();
    match crate::compress::provider::from_lookup(&lookup) {
        Ok(p) if p.is_empty() => {
            r.extraction.extractor = "rule-based".into();
            r.ok("provider", "rule-based: no model is sent anything");
        }
        Ok(p) => {
            r.extraction.extractor = p
                .iter()
                .map(|p| format!("{} ({})", p.name(), p.model()))
                .collect::<Vec<_>>()
                .join(", then ");
            let detail = r.extraction.extractor.clone();
            r.ok("provider", detail);
        }
        Err(e) => {
            r.extraction.extractor = "not configured".into();
            r.fail(
                "provider",
                format!("the model provider setting is wrong: {e}"),
                "fix ALETHEIA_PROVIDER or ALETHEIA_PROVIDERS, or unset them for the rule extractor",
            );
        }
    }
    match crate::compress::worker::Settings::from_lookup(&lookup) {
        Ok(s) => {
            r.extraction.chars_per_job = s.budget.chars_per_job;
            r.extraction.chars_per_day = s.budget.chars_per_day;
            r.ok(
                "budget",
                format!(
                    "at most {} characters a job and {} a day go to a provider",
                    s.budget.chars_per_job, s.budget.chars_per_day
                ),
            );
        }
        Err(e) => r.fail("budget", e, "fix or unset that variable"),
    }
    if let Some(store) = store {
        let today = clock.date(clock.now());
        let month_start = format!("{}-01", &today[..7]);
        r.extraction.today = store.usage_between(&today, &today).unwrap_or_default();
        r.extraction.this_month = store
            .usage_between(&month_start, &today)
            .unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Caller, call};
    use crate::redact::Redactor;

    /// A data directory of its own, with its store open.
    struct Home {
        _dir: tempfile::TempDir,
        paths: Paths,
        store: Store,
    }

    impl Home {
        fn new() -> Home {
            let dir = tempfile::tempdir().unwrap();
            let paths = Paths::within(dir.path());
            let store = Store::open(&paths, OpenOptions::INTERACTIVE).unwrap();
            Home {
                _dir: dir,
                paths,
                store,
            }
        }

        fn call<O: Operation>(&mut self, op: O) -> O::Output {
            let redactor = Redactor::builtin();
            let mut ctx = Context {
                store: &mut self.store,
                redactor: &redactor,
                clock: Clock::utc(1_780_000_000_000),
                caller: Caller::local("cli", "shop"),
                paths: Some(&self.paths),
                semantic: None,
                extraction: None,
                root: None,
            };
            call(&mut ctx, op).unwrap()
        }

        /// A second connection to the store's file, as another process would have.
        fn sqlite(&self) -> rusqlite::Connection {
            rusqlite::Connection::open(&self.paths.db).unwrap()
        }
    }

    fn statuses(r: &Report, name: &str) -> Vec<Status> {
        r.check(name).map(|c| c.status).collect()
    }

    const STORE_AND_SPOOL: &[&str] = &[
        "store",
        "integrity",
        "search_index",
        "writable",
        "disk",
        "spool",
        "spool_cap",
        "spool_rejected",
        "semantic",
    ];

    #[test]
    fn a_healthy_store_passes_each_check_once() {
        let mut h = Home::new();
        let r = h.call(Doctor {});
        for name in STORE_AND_SPOOL {
            assert_eq!(statuses(&r, name), [Status::Ok], "{name}: {:?}", r.checks);
        }
        assert_eq!(r.store.integrity.as_deref(), Some("ok"));
        assert_eq!(r.store.fts_consistent, Some(true));
        assert_eq!(r.semantic.without_vector, Some(0));
        // The problems and notes are the failed and warned checks, nothing else.
        let count = |s| r.checks.iter().filter(|c| c.status == s).count();
        assert_eq!(r.problems.len(), count(Status::Fail));
        assert_eq!(r.notes.len(), count(Status::Warn));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["checks"][0]["name"], "store");
        assert_eq!(json["checks"][0]["status"], "ok");
    }

    #[test]
    fn a_search_index_that_does_not_match_the_memories_fails_until_rebuilt() {
        let mut h = Home::new();
        h.sqlite()
            .execute_batch(
                "INSERT INTO memories (uid, kind, project, tool, title, text, content_hash, created_at)
                 VALUES ('u1', 'note', 'shop', 'cli', 'rounding', 'the invoice total rounds down', 'h1', 1);
                 INSERT INTO memories_fts (memories_fts) VALUES ('delete-all');",
            )
            .unwrap();
        let r = h.call(Doctor {});
        assert_eq!(statuses(&r, "search_index"), [Status::Fail]);
        assert_eq!(r.store.fts_consistent, Some(false));
        assert!(!r.healthy());
        let fix = r.check("search_index").next().unwrap().fix.clone();
        assert_eq!(
            fix.as_deref(),
            Some("run `aletheia doctor --rebuild-index`")
        );
        assert_eq!(r.semantic.without_vector, Some(1));

        h.call(RebuildSearchIndex {});
        let r = h.call(Doctor {});
        assert_eq!(statuses(&r, "search_index"), [Status::Ok]);
        assert_eq!(r.store.fts_consistent, Some(true));
    }

    #[test]
    fn a_store_with_a_newer_schema_says_to_upgrade_not_to_move_it_aside() {
        let h = Home::new();
        let newer = crate::store::schema::CURRENT_VERSION + 1;
        h.sqlite()
            .pragma_update(None, "user_version", newer)
            .unwrap();
        let err = open_store(&h.paths)
            .err()
            .expect("a newer schema is refused");
        let r = without_store(&h.paths, &Clock::utc(0), NoStore::Unopenable(err));
        let store = r.check("store").next().unwrap();
        assert_eq!(store.status, Status::Fail);
        assert!(
            store.detail.contains("newer than this aletheia knows"),
            "{store:?}"
        );
        assert!(
            store.fix.as_deref().unwrap().contains("newer aletheia"),
            "{store:?}"
        );
        // Nothing that needs the store ran, and nothing else failed.
        assert_eq!(r.check("integrity").count(), 0);
        assert_eq!(statuses(&r, "spool"), [Status::Ok]);
        assert!(!r.healthy());
    }

    #[test]
    fn no_store_yet_is_not_a_problem_and_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        assert!(open_store(&paths).unwrap().is_none());
        let r = without_store(&paths, &Clock::utc(0), NoStore::Missing);
        assert_eq!(statuses(&r, "store"), [Status::Ok]);
        assert!(!paths.db.exists());
    }

    /// Doctor read spool files as text, so one that could not be read (or held a byte that is
    /// not UTF-8) counted as empty and doctor said all was well.
    #[test]
    fn a_spool_file_that_cannot_be_read_is_a_problem_not_an_empty_spool() {
        let mut h = Home::new();
        std::fs::create_dir_all(&h.paths.spool).unwrap();
        std::fs::write(h.paths.spool.join("event.jsonl"), "{}\n").unwrap();
        let r = h.call(Doctor {});
        assert_eq!(statuses(&r, "spool"), [Status::Fail], "{:?}", r.checks);
        let spool = r.check("spool").next().unwrap();
        assert!(spool.detail.contains("cannot be read"), "{spool:?}");
        assert!(!r.healthy());
    }

    #[test]
    fn a_spool_line_that_is_not_utf8_leaves_the_others_counted() {
        let mut h = Home::new();
        std::fs::create_dir_all(h.paths.spool_dir()).unwrap();
        let mut lines = br#"{"at":1780000000000,"tool":"cli"}"#.to_vec();
        lines.extend_from_slice(b"\n{\"text\":\"caf\xe9\"}\n");
        std::fs::write(&h.paths.spool, lines).unwrap();
        let r = h.call(Doctor {});
        assert_eq!(r.spool.lines_waiting, 2);
        assert!(r.spool.oldest_waiting.is_some());
        assert_eq!(statuses(&r, "spool"), [Status::Fail]);
    }

    #[test]
    fn doctor_and_its_repair_are_operations_but_not_mcp_tools() {
        for name in [Doctor::NAME, RebuildSearchIndex::NAME] {
            assert!(crate::ops::find(name).is_some(), "{name}");
            assert!(crate::mcp::tools::find(name).is_none(), "{name}");
        }
        assert_eq!(crate::mcp::tools::TOOLS.len(), 13);
    }
}
