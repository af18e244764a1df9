//! `aletheia doctor`: the doctor's report ([`crate::ops::doctor`]) as text or `--json`.
//!
//! The report is made by the operation; this file opens the store the way doctor needs (never
//! creating one, and reporting one that cannot be opened rather than failing) and renders the
//! result. It exits non-zero when something needs the user's action.

use crate::config::Paths;
use crate::install::Scope;
use crate::ops::doctor::{self, Doctor, NoStore, ProgramReport, RebuildSearchIndex, Report};
use crate::ops::{self, Context};
use crate::redact::Redactor;
use crate::spool;
use crate::store::{OpenOptions, Store};
use crate::time::Clock;
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Rebuild the search index from the memories, then report.
    #[arg(long = "rebuild-index")]
    pub rebuild_index: bool,
}

/// Run doctor; `Ok(false)` when it found something the user must fix.
pub fn run(args: DoctorArgs, json: bool) -> anyhow::Result<bool> {
    let paths = Paths::from_env();
    let clock = Clock::system();
    let caller = super::caller(None);
    if args.rebuild_index {
        // The repair may create the store, as any command that writes does.
        let mut store = Store::open(&paths, OpenOptions::INTERACTIVE)?;
        call(
            &paths,
            &mut store,
            &clock,
            caller.clone(),
            RebuildSearchIndex {},
        )?;
        eprintln!("Rebuilt the search index.");
    }
    let report = match doctor::open_store(&paths) {
        Ok(Some(mut store)) => call(&paths, &mut store, &clock, caller, Doctor {})?,
        Ok(None) => doctor::without_store(&paths, &clock, NoStore::Missing),
        Err(e) => doctor::without_store(&paths, &clock, NoStore::Unopenable(e)),
    };
    if json {
        let mut out = super::print::Printer::stdout();
        out.json_line(&serde_json::to_string_pretty(&report)?)?;
        out.flush()?;
    } else {
        let text = text(&report);
        super::print::line(text.strip_suffix('\n').unwrap_or(&text))?;
    }
    Ok(report.healthy())
}

/// Call `op` on `store`. Doctor redacts nothing, so the user's rule file, broken or not, does
/// not keep it from reporting.
fn call<O: ops::Operation>(
    paths: &Paths,
    store: &mut Store,
    clock: &Clock,
    caller: ops::Caller,
    op: O,
) -> anyhow::Result<O::Output> {
    let mut ctx = Context {
        store,
        redactor: Redactor::global(),
        clock: clock.clone(),
        caller,
        paths: Some(paths),
        semantic: None,
        extraction: None,
        root: None,
    };
    Ok(ops::call(&mut ctx, op)?)
}

/// One line of the report's text (writing to a `String` cannot fail).
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// The report as text: what to do next on a machine where nothing is connected yet, then one
/// line per subject, then the notes and the problems (or that there are none).
fn text(r: &Report) -> String {
    let mut out = String::new();
    let unconnected = no_host_connected(r);
    if unconnected {
        say!(out, "next:     {}", connect_a_tool(r));
    }
    say!(out, "store:    {}", store_line(r));
    if let Some(v) = r.store.schema_version {
        say!(out, "schema:   v{v}");
    }
    if let Some(i) = &r.store.integrity {
        say!(
            out,
            "integrity: {i}; search index {}",
            match r.store.fts_consistent {
                Some(true) => "consistent",
                Some(false) => "NOT consistent",
                None => "not checked",
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
        say!(out, "memories: {}", counts.join(", "));
    }
    let j = &r.store.jobs;
    say!(
        out,
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
    say!(
        out,
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
        say!(
            out,
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
    say!(
        out,
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
            say!(out, "captured: {tool} last at {at}");
        }
    }
    let s = &r.semantic;
    match (s.model_present, s.without_vector) {
        (false, _) if !cfg!(feature = "semantic") => say!(
            out,
            "semantic: off (this aletheia was built without the semantic feature); install the release build to search by meaning too"
        ),
        // A name no model has: the warning below says which names there are.
        (false, _) if s.model.is_none() => say!(
            out,
            "semantic: off (ALETHEIA_MODEL names no known model); set it to one of the names below, or unset it"
        ),
        (false, _) => say!(
            out,
            "semantic: off (no model in {}); run `aletheia model fetch`, then `aletheia index`, to search by meaning too",
            s.model_dir.display()
        ),
        (true, Some(0)) => say!(
            out,
            "semantic: on ({}); every memory has a vector",
            models_line(s)
        ),
        (true, Some(n)) => say!(
            out,
            "semantic: on ({}); {n} memories have no vector yet: run `aletheia index` (a running `aletheia mcp` indexes them too)",
            models_line(s)
        ),
        (true, None) => say!(out, "semantic: on ({})", models_line(s)),
    }
    hosts(r, &mut out);
    for n in &r.notes {
        say!(out, "note:     {n}");
    }
    if r.problems.is_empty() {
        // "All good." would read as if aletheia were at work: with no host, nothing is captured.
        say!(
            out,
            "{}",
            if unconnected {
                "Nothing is broken, but nothing is captured until a tool is connected (see the first line)."
            } else {
                "All good."
            }
        );
    }
    for p in &r.problems {
        say!(out, "problem:  {}\n  fix:    {}", p.what, p.fix);
    }
    out
}

/// The store's file and its size; a file not there yet has no size to show (0.0 MB would say
/// it is there, empty).
fn store_line(r: &Report) -> String {
    let path = r.store.path.display();
    if r.store.exists {
        format!("{path} ({:.1} MB)", r.store.size_bytes as f64 / 1e6)
    } else {
        format!("{path} (not created yet: the first hook event or `aletheia save` creates it)")
    }
}

/// Whether no host has hooks or an MCP entry, as on a fresh machine (and the host check ran).
fn no_host_connected(r: &Report) -> bool {
    !r.hosts.is_empty() && r.hosts.iter().all(|h| !h.connected)
}

/// The first thing to do on a machine with no host connected, naming the hosts there are.
fn connect_a_tool(r: &Report) -> String {
    let names: Vec<&str> = r.hosts.iter().map(|h| h.host.as_str()).collect();
    let tools = match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "connect a tool: `aletheia install <tool> --write`, <tool> being {tools} (`aletheia connect <tool>` shows what it writes first)"
    )
}

/// One line per connected host (its last event), one per scope it is installed in, and one
/// naming the hosts that are not connected.
fn hosts(r: &Report, out: &mut String) {
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
        say!(
            out,
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
            say!(out, "            {scope}: {}", parts.join(", "));
        }
    }
    let idle: Vec<&str> = r
        .hosts
        .iter()
        .filter(|h| !h.connected)
        .map(|h| h.host.as_str())
        .collect();
    if no_host_connected(r) {
        say!(
            out,
            "host:     no host is connected (the first line says how to connect one)"
        );
    } else if !idle.is_empty() {
        say!(out, "host:     not connected: {}", idle.join(", "));
    }
}

/// Which models run, and from where: "e5-small-v2 in DIR, re-ranked by ms-marco-MiniLM-L-12-v2".
fn models_line(s: &crate::ops::doctor::SemanticReport) -> String {
    let model = s.model.unwrap_or("the model");
    match s.reranker {
        Some(r) => format!("{model} in {}, re-ranked by {r}", s.model_dir.display()),
        None => format!("{model} in {}, not re-ranked", s.model_dir.display()),
    }
}
