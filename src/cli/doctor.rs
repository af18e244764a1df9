//! `aletheia doctor`: is everything where it should be, and if not, what to do about it.
//!
//! It reads and reports; it never drains or repairs, so what it shows is the state the user is
//! asking about. It exits non-zero when something needs the user's action.

use crate::config::Paths;
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
    hosts: Vec<HostReport>,
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
}

#[derive(Debug, Serialize)]
struct HostReport {
    host: String,
    config: PathBuf,
    hook_commands: Vec<String>,
    command_found: bool,
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
        r.semantic.without_vector = crate::store::vectors::count_missing(store.conn()).ok();
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

/// Where each host keeps its hooks.
fn host_configs(home: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("claude-code", home.join(".claude/settings.json")),
        ("cursor", home.join(".cursor/hooks.json")),
    ]
}

fn check_hosts(r: &mut Report) {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return;
    };
    for (host, config) in host_configs(&home) {
        let Ok(text) = std::fs::read_to_string(&config) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            problem(
                r,
                format!("{} is not valid JSON", config.display()),
                "fix the file; the host ignores it as it is",
            );
            continue;
        };
        let mut commands = Vec::new();
        collect_commands(&json["hooks"], &mut commands);
        commands.retain(|c| c.contains(" hook "));
        if commands.is_empty() {
            continue;
        }
        let found = commands.iter().all(|c| command_exists(c));
        if !found {
            problem(
                r,
                format!(
                    "{host} hooks in {} name a command that does not exist",
                    config.display()
                ),
                "install aletheia (`cargo install --locked --path .`) or fix the path in the hook command",
            );
        }
        r.hosts.push(HostReport {
            host: host.into(),
            config,
            hook_commands: commands,
            command_found: found,
        });
    }
}

fn collect_commands(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            if let Some(c) = map.get("command").and_then(|c| c.as_str()) {
                out.push(c.to_owned());
            }
            map.values().for_each(|x| collect_commands(x, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| collect_commands(x, out)),
        _ => {}
    }
}

/// Whether the program a hook command runs exists (skipping `VAR=value` prefixes).
fn command_exists(command: &str) -> bool {
    let Some(program) = command.split_whitespace().find(|w| !w.contains('=')) else {
        return false;
    };
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
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
        "spool:    {} line(s) waiting{}; {} rejected file(s)",
        r.spool.lines_waiting,
        r.spool
            .oldest_waiting
            .as_deref()
            .map(|o| format!(", oldest {o}"))
            .unwrap_or_default(),
        r.spool.rejected_files.len()
    );
    for (tool, at) in &r.last_capture {
        println!("captured: {tool} last at {at}");
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
    for h in &r.hosts {
        println!(
            "host:     {} hooks in {} ({} command(s), {})",
            h.host,
            h.config.display(),
            h.hook_commands.len(),
            if h.command_found {
                "command found"
            } else {
                "COMMAND MISSING"
            }
        );
    }
    if r.hosts.is_empty() {
        println!(
            "host:     no host has aletheia hooks installed (see README: Connect Claude Code)"
        );
    }
    if r.problems.is_empty() {
        println!("All good.");
    }
    for p in &r.problems {
        println!("problem:  {}\n  fix:    {}", p.what, p.fix);
    }
}
