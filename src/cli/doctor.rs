//! `aletheia doctor`: is everything where it should be, and if not, what to do about it.
//!
//! It reads and reports; it never drains or repairs, so what it shows is the state the user is
//! asking about. It exits non-zero when something needs the user's action.
//!
//! Hosts are reported from install's own query ([`status`]), in the user's files and the
//! current project's, so doctor and `uninstall` agree on what is installed. A host that never
//! sent an event, or two hosts that both capture the same event, are reported but are not
//! problems: nothing is lost or doubled. A program that an entry names and that cannot run is.

use crate::config::Paths;
use crate::install::{self, Scope, status, status::Installed};
use crate::spool;
use crate::store::{OpenOptions, Store};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Rebuild the search index from the memories, then report.
    #[arg(long = "rebuild-index")]
    pub rebuild_index: bool,
}

#[derive(Debug, Default, Serialize)]
struct Report {
    store: StoreReport,
    spool: SpoolReport,
    last_capture: Vec<(String, String)>,
    /// The project whose files were checked for project-scope installs.
    project: Option<PathBuf>,
    hosts: Vec<HostReport>,
    /// Worth knowing, but nothing to fix.
    notes: Vec<String>,
    semantic: SemanticReport,
    extraction: ExtractionReport,
    problems: Vec<Problem>,
}

/// Semantic search is optional: without the model, search uses words alone. So its state is
/// reported, with how to turn it on, but is never a problem.
#[derive(Debug, Default, Serialize)]
struct SemanticReport {
    model_dir: PathBuf,
    model_present: bool,
    /// Memories that can be searched but have no vector yet.
    without_vector: Option<u64>,
}

#[derive(Debug, Default, Serialize)]
struct StoreReport {
    path: PathBuf,
    size_bytes: u64,
    schema_version: Option<i64>,
    integrity: Option<String>,
    fts_consistent: Option<bool>,
    counts_by_kind: Vec<(String, i64)>,
    jobs: crate::store::jobs::JobCounts,
}

/// Compression: who extracts, the queue, and what was sent to model providers today and
/// this month (characters, and tokens estimated as characters / 4), per provider.
#[derive(Debug, Default, Serialize)]
struct ExtractionReport {
    extractor: String,
    chars_per_job: usize,
    chars_per_day: usize,
    today: Vec<crate::store::usage::Usage>,
    this_month: Vec<crate::store::usage::Usage>,
}

#[derive(Debug, Default, Serialize)]
struct SpoolReport {
    files: Vec<PathBuf>,
    lines_waiting: usize,
    oldest_waiting: Option<String>,
    rejected_files: Vec<PathBuf>,
    /// The cap on everything spooled (`ALETHEIA_SPOOL_MAX_MB`), in bytes.
    cap_bytes: u64,
    /// Events the spool refused at its cap, ever (`refused.json` beside the spool).
    refused: Option<spool::Refused>,
}

impl SpoolReport {
    /// The cap that refused events, which the hooks' environment may set apart from this
    /// shell's; this shell's when nothing was refused (or a record predates the field).
    fn refusing_cap(&self) -> u64 {
        self.refused
            .as_ref()
            .map(|x| x.cap_bytes)
            .filter(|&cap| cap > 0)
            .unwrap_or(self.cap_bytes)
    }
}

/// One host: what is installed for it in each scope, and when it last sent an event.
#[derive(Debug, Serialize)]
struct HostReport {
    host: String,
    /// Hooks or an MCP entry are installed in the user's or the project's files.
    connected: bool,
    /// The last event stored from this host; `null` when it has never sent one.
    last_event: Option<String>,
    installs: Vec<InstallReport>,
}

/// What is installed for one host in one scope.
#[derive(Debug, Serialize)]
struct InstallReport {
    scope: Scope,
    hooks: Vec<HookReport>,
    mcp: Vec<McpReport>,
}

#[derive(Debug, Serialize)]
struct HookReport {
    path: PathBuf,
    events: Vec<String>,
    /// OpenCode's plugin, which runs the hooks from inside the host.
    plugin: bool,
    programs: Vec<ProgramReport>,
}

#[derive(Debug, Serialize)]
struct McpReport {
    path: PathBuf,
    program: Option<ProgramReport>,
    /// Other hosts that read the same file (the project's `.mcp.json`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    shared_with: Vec<String>,
}

/// A program an entry runs, and whether it can run.
#[derive(Debug, Serialize)]
struct ProgramReport {
    path: String,
    runnable: bool,
}

#[derive(Debug, Serialize)]
struct Problem {
    what: String,
    fix: String,
}

pub fn run(args: DoctorArgs, json: bool) -> anyhow::Result<bool> {
    let paths = Paths::from_env();
    if args.rebuild_index {
        let store = Store::open(&paths, OpenOptions::INTERACTIVE)?;
        store.conn().execute(
            "INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')",
            [],
        )?;
        eprintln!("Rebuilt the search index.");
    }
    let mut r = Report::default();
    check_store(&paths, &mut r);
    check_writable(&paths, &mut r);
    check_spool(&paths, &mut r);
    check_hosts(&mut r);
    check_semantic(&paths, &mut r);
    check_extraction(&paths, &mut r);
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print_text(&r);
    }
    Ok(r.problems.is_empty())
}

/// The report as `aletheia doctor --json` prints it, for the dashboard: the same checks, on the
/// store at `paths`, without rebuilding anything.
pub fn report_json(paths: &Paths) -> serde_json::Value {
    let mut r = Report::default();
    check_store(paths, &mut r);
    check_writable(paths, &mut r);
    check_spool(paths, &mut r);
    check_hosts(&mut r);
    check_semantic(paths, &mut r);
    check_extraction(paths, &mut r);
    serde_json::to_value(&r).unwrap_or_default()
}

fn problem(r: &mut Report, what: impl Into<String>, fix: impl Into<String>) {
    r.problems.push(Problem {
        what: what.into(),
        fix: fix.into(),
    });
}

fn check_store(paths: &Paths, r: &mut Report) {
    r.store.path = paths.db.clone();
    r.store.size_bytes = ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", paths.db.display())).ok())
        .map(|m| m.len())
        .sum();
    if !paths.db.exists() {
        if paths.db_is_explicit
            && paths
                .db
                .parent()
                .is_some_and(|p| !p.as_os_str().is_empty() && !p.is_dir())
        {
            problem(
                r,
                format!(
                    "the store's folder {} does not exist",
                    paths.db.parent().unwrap().display()
                ),
                "create it, or unset ALETHEIA_HUB_DB to use the data directory",
            );
        }
        return;
    }
    let store = match Store::open(paths, OpenOptions::INTERACTIVE) {
        Ok(s) => s,
        Err(e) => {
            problem(
                r,
                format!("the store cannot be opened: {e}"),
                "if the file is corrupt, move it aside (new events wait in the spool) and run `aletheia drain`, then `aletheia import` an export if you have one",
            );
            return;
        }
    };
    r.store.schema_version = store.schema_version().ok();
    let integrity: Result<String, _> = store
        .conn()
        .query_row("PRAGMA quick_check", [], |row| row.get(0));
    match integrity {
        Ok(s) if s == "ok" => r.store.integrity = Some(s),
        Ok(s) => {
            problem(
                r,
                format!("the store failed its integrity check: {s}"),
                "export what can be read (`aletheia export > backup.jsonl`), move the file aside and import the backup",
            );
            r.store.integrity = Some(s);
        }
        Err(e) => problem(
            r,
            format!("the integrity check could not run: {e}"),
            "move the file aside and run `aletheia drain`",
        ),
    }
    let fts = store.conn().execute(
        "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')",
        [],
    );
    r.store.fts_consistent = Some(fts.is_ok());
    if fts.is_err() {
        problem(
            r,
            "the search index does not match the memories",
            "run `aletheia doctor --rebuild-index`",
        );
    }
    r.store.counts_by_kind = store.count_by_kind().unwrap_or_default();
    r.store.jobs = store.job_counts().unwrap_or_default();
    if let Ok(mut stmt) = store
        .conn()
        .prepare("SELECT tool, last_at FROM captures ORDER BY tool")
        && let Ok(rows) = stmt.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
        })
    {
        r.last_capture = rows
            .flatten()
            .map(|(t, at)| (t, crate::time::iso_utc(at)))
            .collect();
    }
}

fn check_semantic(paths: &Paths, r: &mut Report) {
    r.semantic.model_dir = paths.model_dir();
    r.semantic.model_present = crate::embed::model::Embedder::present(&r.semantic.model_dir);
    if paths.db.exists()
        && let Ok(store) = Store::open(paths, OpenOptions::INTERACTIVE)
    {
        r.semantic.without_vector = store.count_without_vector().ok();
    }
}

fn check_extraction(paths: &Paths, r: &mut Report) {
    let lookup = |k: &str| std::env::var(k).ok();
    match crate::compress::provider::from_lookup(&lookup) {
        Ok(p) if p.is_empty() => r.extraction.extractor = "rule-based".into(),
        Ok(p) => {
            r.extraction.extractor = p
                .iter()
                .map(|p| format!("{} ({})", p.name(), p.model()))
                .collect::<Vec<_>>()
                .join(", then ")
        }
        Err(e) => {
            r.extraction.extractor = "not configured".into();
            problem(
                r,
                format!("the model provider setting is wrong: {e}"),
                "fix ALETHEIA_PROVIDER or ALETHEIA_PROVIDERS, or unset them for the rule extractor",
            );
        }
    }
    match crate::compress::worker::Settings::from_lookup(&lookup) {
        Ok(s) => {
            r.extraction.chars_per_job = s.budget.chars_per_job;
            r.extraction.chars_per_day = s.budget.chars_per_day;
        }
        Err(e) => problem(r, e, "fix or unset that variable"),
    }
    if paths.db.exists()
        && let Ok(store) = Store::open(paths, OpenOptions::INTERACTIVE)
    {
        let clock = crate::time::Clock::system();
        let today = clock.date(clock.now());
        let month_start = format!("{}-01", &today[..7]);
        r.extraction.today = store.usage_between(&today, &today).unwrap_or_default();
        r.extraction.this_month = store
            .usage_between(&month_start, &today)
            .unwrap_or_default();
    }
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
    let spool_dir = paths.spool_dir().to_path_buf();
    for (what, path) in [
        ("data directory", &paths.data_dir),
        ("spool folder", &spool_dir),
        ("store", &paths.db),
        ("spool", &paths.spool),
    ] {
        if path.exists() && !writable(path) {
            problem(
                r,
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
    if let Some(free) = free_bytes(if paths.data_dir.exists() {
        &paths.data_dir
    } else {
        Path::new("/")
    }) && free < 16 * 1024 * 1024
    {
        problem(
            r,
            format!(
                "only {} KB are free on the disk holding {}",
                free / 1024,
                paths.data_dir.display()
            ),
            "free some space; events wait in the temporary spool meanwhile",
        );
    }
}

fn check_spool(paths: &Paths, r: &mut Report) {
    r.spool.files = spool::pending_files(paths);
    let mut oldest: Option<i64> = None;
    for f in &r.spool.files {
        for line in spool::read_lines(f) {
            r.spool.lines_waiting += 1;
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line)
                && let Some(at) = v["at"].as_i64()
            {
                oldest = Some(oldest.map_or(at, |o: i64| o.min(at)));
            }
        }
    }
    r.spool.oldest_waiting = oldest.map(crate::time::iso_utc);
    if r.spool.lines_waiting > 0 {
        problem(
            r,
            format!(
                "{} event(s) wait in the spool: the store could not be reached when they came",
                r.spool.lines_waiting
            ),
            "fix the store problem above if any, then run `aletheia drain` (any hook run also drains)",
        );
    }
    r.spool.cap_bytes = spool::cap_bytes();
    r.spool.refused = spool::refused(paths);
    if let Some(refused) = r.spool.refused.clone() {
        let cap = r.spool.refusing_cap();
        let records: Vec<String> = spool::refused_paths(paths)
            .into_iter()
            .filter(|p| p.exists())
            .map(|p| p.display().to_string())
            .collect();
        problem(
            r,
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
    r.spool.rejected_files = spool::rejected_files(paths);
    if !r.spool.rejected_files.is_empty() {
        problem(
            r,
            format!(
                "{} rejected spool file(s) hold lines that could not be read",
                r.spool.rejected_files.len()
            ),
            "look at them, and delete them once nothing in them is needed",
        );
    }
}

/// Each host's hook and MCP entries in the user's files and the current project's, found by
/// install's own query; whether the programs they name can run; and the host's last event.
fn check_hosts(r: &mut Report) {
    let Ok(setting) = install::Setting::from_env() else {
        return;
    };
    r.project = Some(setting.project.clone());
    // Run from HOME (or `/`), the project scope finds nothing: its files are the user's, and
    // `installed` does not list them twice.
    let mut found: Vec<Installed> = [Scope::User, Scope::Project]
        .into_iter()
        .flat_map(|scope| status::installed(scope, &setting))
        .collect();
    for i in &found {
        for u in &i.unreadable {
            let what = match &u.path {
                Some(path) => format!("{} {}", path.display(), u.error),
                None => u.error.clone(),
            };
            problem(
                r,
                format!("{what}, so whether {} is connected is unknown", i.host),
                "fix the file (the host cannot read it as it is either)",
            );
        }
    }
    found.retain(|i| !i.is_empty());
    for host in install::HOSTS {
        let last_event = r
            .last_capture
            .iter()
            .find(|(tool, _)| tool == host)
            .map(|(_, at)| at.clone());
        let installs: Vec<InstallReport> = found
            .iter()
            .filter(|i| i.host == *host)
            .map(|i| install_report(i, r))
            .collect();
        r.hosts.push(HostReport {
            host: host.to_string(),
            connected: !installs.is_empty(),
            last_event,
            installs,
        });
    }
    check_double_install(r);
    check_both_scopes(r);
}

/// Hosts merge the user's hook settings with the project's, so a host hooked in both runs each
/// hook twice: the event is stored once, but the session's memory block reaches the model twice.
fn check_both_scopes(r: &mut Report) {
    for h in &r.hosts {
        let hooked = |scope| {
            h.installs
                .iter()
                .any(|i| i.scope == scope && !i.hooks.is_empty())
        };
        if hooked(Scope::User) && hooked(Scope::Project) {
            r.notes.push(format!(
                "{0} is hooked both for you and for this project, so it runs each hook twice (stored once, but the memory block reaches the model twice): remove one with `aletheia uninstall {0} --project` or `aletheia uninstall {0}`",
                h.host
            ));
        }
    }
}

fn install_report(i: &Installed, r: &mut Report) -> InstallReport {
    let mut check = |what: &str, path: &Path, program: &str| {
        let runnable = runnable(program);
        if !runnable {
            problem(
                r,
                format!(
                    "{} {what} in {} run{} {program}, which does not exist or cannot be executed",
                    i.host,
                    path.display(),
                    if what == "hooks" { "" } else { "s" }
                ),
                format!(
                    "run `aletheia install {}{} --write` again",
                    i.host,
                    if i.scope == Scope::Project {
                        " --project"
                    } else {
                        ""
                    }
                ),
            );
        }
        ProgramReport {
            path: program.to_owned(),
            runnable,
        }
    };
    let hooks = i
        .hooks
        .iter()
        .map(|h| HookReport {
            path: h.path.clone(),
            events: h.events.clone(),
            plugin: h.plugin,
            programs: h
                .programs
                .iter()
                .map(|p| check(if h.plugin { "plugin" } else { "hooks" }, &h.path, p))
                .collect(),
        })
        .collect();
    let mcp = i
        .mcp
        .iter()
        .map(|m| McpReport {
            path: m.path.clone(),
            program: m.program.as_deref().map(|p| check("MCP entry", &m.path, p)),
            shared_with: m.shared_with.iter().map(|h| h.to_string()).collect(),
        })
        .collect();
    InstallReport {
        scope: i.scope,
        hooks,
        mcp,
    }
}

/// Cursor runs Claude Code's hooks too (its third-party imports, on by default, read the
/// user's and the project's `.claude/settings.json`), so with both installed Cursor sends
/// each event twice. The store keeps one, so nothing is wrong, but one of the two is wasted
/// work on every event: a note, not a problem.
fn check_double_install(r: &mut Report) {
    let hooked = |host: &str| -> Vec<Scope> {
        r.hosts
            .iter()
            .filter(|h| h.host == host)
            .flat_map(|h| &h.installs)
            .filter(|i| i.hooks.iter().any(|f| !f.events.is_empty()))
            .map(|i| i.scope)
            .collect()
    };
    let cursor = hooked("cursor");
    if hooked("claude-code").is_empty() || cursor.is_empty() {
        return;
    }
    let uninstall: Vec<&str> = cursor
        .iter()
        .map(|s| match s {
            Scope::User => "`aletheia uninstall cursor`",
            Scope::Project => "`aletheia uninstall cursor --project`",
        })
        .collect();
    r.notes.push(format!(
        "Cursor also runs Claude Code's hooks, so it sends each event twice (stored once): turn off one, with {} or by turning off third-party hooks in Cursor's settings (Settings → Agents → Third-Party Imports)",
        uninstall.join(" and ")
    ));
}

/// Whether `program` is a file this user may execute; a bare name is looked up in PATH.
fn runnable(program: &str) -> bool {
    let executable = |p: &Path| {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
        p.is_file() && unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| executable(&d.join(program))))
}

fn print_text(r: &Report) {
    println!(
        "store:    {} ({:.1} MB)",
        r.store.path.display(),
        r.store.size_bytes as f64 / 1e6
    );
    if let Some(v) = r.store.schema_version {
        println!("schema:   v{v}");
    }
    if let Some(i) = &r.store.integrity {
        println!(
            "integrity: {i}; search index {}",
            if r.store.fts_consistent == Some(true) {
                "consistent"
            } else {
                "NOT consistent"
            }
        );
    }
    if !r.store.counts_by_kind.is_empty() {
        let counts: Vec<String> = r
            .store
            .counts_by_kind
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        println!("memories: {}", counts.join(", "));
    }
    let j = &r.store.jobs;
    println!(
        "queue:    {} session(s) waiting for compression; jobs: {} pending, {} running, {} done, {} failed{}",
        j.queued_sessions,
        j.pending,
        j.running,
        j.done,
        j.failed,
        if j.failed > 0 {
            " (see `aletheia compress --status`)"
        } else {
            ""
        }
    );
    let x = &r.extraction;
    println!(
        "extract:  {}{}",
        x.extractor,
        if x.extractor == "rule-based" {
            " (no model is sent anything; set ALETHEIA_PROVIDER to use one)".to_owned()
        } else {
            format!(
                ", caps {} characters a job and {} a day",
                x.chars_per_job, x.chars_per_day
            )
        }
    );
    for u in &x.this_month {
        let today = x
            .today
            .iter()
            .find(|t| t.provider == u.provider)
            .cloned()
            .unwrap_or_default();
        println!(
            "sent:     {}: today {} characters (~{} tokens) in {} call(s); this month {} characters (~{} tokens) in {} call(s)",
            u.provider,
            today.chars_sent,
            today.est_tokens_sent(),
            today.calls,
            u.chars_sent,
            u.est_tokens_sent(),
            u.calls
        );
    }
    println!(
        "spool:    {} line(s) waiting{}; {} rejected file(s); {} refused at the cap of {}",
        r.spool.lines_waiting,
        r.spool
            .oldest_waiting
            .as_deref()
            .map(|o| format!(", oldest {o}"))
            .unwrap_or_default(),
        r.spool.rejected_files.len(),
        r.spool.refused.as_ref().map_or(0, |x| x.events),
        spool::megabytes(r.spool.refusing_cap())
    );
    // A connected host's last event is on its own line below; these are tools that sent
    // events without an install this report can see (hooks written by hand elsewhere, say).
    for (tool, at) in &r.last_capture {
        if !r.hosts.iter().any(|h| h.connected && h.host == *tool) {
            println!("captured: {tool} last at {at}");
        }
    }
    let s = &r.semantic;
    match (s.model_present, s.without_vector) {
        (false, _) => println!(
            "semantic: off (no model in {}); run `aletheia model fetch`, then `aletheia index`, to search by meaning too",
            s.model_dir.display()
        ),
        (true, Some(0)) => println!(
            "semantic: on (model in {}); every memory has a vector",
            s.model_dir.display()
        ),
        (true, Some(n)) => println!(
            "semantic: on (model in {}); {n} memories have no vector yet: run `aletheia index` (a running `aletheia mcp` indexes them too)",
            s.model_dir.display()
        ),
        (true, None) => println!("semantic: on (model in {})", s.model_dir.display()),
    }
    print_hosts(r);
    for n in &r.notes {
        println!("note:     {n}");
    }
    if r.problems.is_empty() {
        println!("All good.");
    }
    for p in &r.problems {
        println!("problem:  {}\n  fix:    {}", p.what, p.fix);
    }
}

/// One line per connected host (its last event), one per scope it is installed in, and one
/// naming the hosts that are not connected.
fn print_hosts(r: &Report) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    // Paths are shortened for reading: `~/` in the user's files, relative in the project's.
    let show = |scope: Scope, path: &Path| -> String {
        let base = match scope {
            Scope::User => home.as_deref(),
            Scope::Project => r.project.as_deref(),
        };
        match (scope, base.and_then(|b| path.strip_prefix(b).ok())) {
            (Scope::User, Some(rest)) => format!("~/{}", rest.display()),
            (Scope::Project, Some(rest)) => rest.display().to_string(),
            (_, None) => path.display().to_string(),
        }
    };
    let missing = |programs: &mut dyn Iterator<Item = &ProgramReport>| -> String {
        programs
            .filter(|p| !p.runnable)
            .map(|p| format!(" (runs {}: MISSING)", p.path))
            .collect()
    };
    for h in r.hosts.iter().filter(|h| h.connected) {
        println!(
            "host:     {}: last event {}",
            h.host,
            h.last_event.as_deref().unwrap_or("never")
        );
        for i in &h.installs {
            let mut parts: Vec<String> = Vec::new();
            for f in &i.hooks {
                let what = if f.plugin {
                    "plugin".to_owned()
                } else {
                    format!("hooks ({} events)", f.events.len())
                };
                parts.push(format!(
                    "{what} in {}{}",
                    show(i.scope, &f.path),
                    missing(&mut f.programs.iter())
                ));
            }
            if i.hooks.is_empty() {
                parts.push("no hooks (nothing is captured)".into());
            }
            for m in &i.mcp {
                parts.push(format!(
                    "MCP in {}{}",
                    show(i.scope, &m.path),
                    missing(&mut m.program.iter())
                ));
            }
            let scope = match i.scope {
                Scope::User => "user",
                Scope::Project => "project",
            };
            println!("            {scope}: {}", parts.join(", "));
        }
    }
    let idle: Vec<&str> = r
        .hosts
        .iter()
        .filter(|h| !h.connected)
        .map(|h| h.host.as_str())
        .collect();
    if idle.len() == r.hosts.len() && !r.hosts.is_empty() {
        println!(
            "host:     no host is connected: run `aletheia install <host> --write` (see `aletheia connect <host>`)"
        );
    } else if !idle.is_empty() {
        println!("host:     not connected: {}", idle.join(", "));
    }
}
