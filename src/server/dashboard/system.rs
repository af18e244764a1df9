//! The machinery: the compression queue and its jobs with "Compress now", the doctor's report,
//! and "What your AI sees", the exact block each connected host gets at session start.

use super::{
    Dash, Nav, St, TABLE_END, count, error_page, escape, field, grouped, options, page, query,
    snippet, table, time,
};
use crate::capture::adapter;
use crate::install::{self, rules_sync};
use crate::ops::OpError;
use crate::ops::compress::Jobs;
use crate::ops::curate::ListProjects;
use crate::ops::doctor::{self, Doctor, NoStore, Report, Status};
use crate::ops::recall::SessionStartContext;
use crate::store::jobs::JobRow;
use crate::time::Clock;
use axum::Router;
use axum::body::Bytes;
use axum::extract::RawQuery;
use axum::response::Response;
use axum::routing::get;
use serde_json::Value;
use std::fmt::Write as _;
use std::sync::Arc;

pub(super) fn routes() -> Router<Arc<Dash>> {
    Router::new()
        .route("/jobs", get(jobs).post(compress_now))
        .route("/doctor", get(doctor))
        .route("/context", get(context))
}

// ---------------------------------------------------------------------------------------------
// Jobs
// ---------------------------------------------------------------------------------------------

async fn jobs(d: St) -> Response {
    jobs_page(&d.0, None).await
}

async fn jobs_page(d: &Dash, notice: Option<&str>) -> Response {
    let list = match d.call(Jobs { limit: Some(50) }).await {
        Ok(l) => l,
        Err(e) => return error_page(&e),
    };
    let c = &list.counts;
    let mut h = format!(
        "<p>Extraction: <strong>{}</strong></p>\
         <dl class=\"counts\"><div><dt>Sessions queued</dt><dd>{}</dd></div><div><dt>Pending</dt><dd>{}</dd></div>\
         <div><dt>Running</dt><dd>{}</dd></div><div><dt>Done</dt><dd>{}</dd></div><div><dt>Failed</dt><dd>{}</dd></div></dl>",
        escape(&d.state.extraction_name),
        c.queued_sessions,
        c.pending,
        c.running,
        c.done,
        c.failed
    );
    h.push_str(&format!(
        "<form method=\"post\" action=\"/jobs\" class=\"inline\">{}<button type=\"submit\">Compress now</button></form>",
        d.token_field()
    ));
    if list.jobs.is_empty() {
        h.push_str("<p class=\"muted\">No jobs yet: a finished session becomes one.</p>");
    } else {
        h.push_str(&table(
            "Jobs",
            &["Job", "Project", "State", "Attempts", "Updated", "Result"],
        ));
        for j in &list.jobs {
            let _ = write!(
                h,
                "<tr><td>#{id}{session}</td><td>{project}</td>\
                 <td><span class=\"badge state-{state}\">{state}</span></td>\
                 <td>{attempts}</td><td>{updated}</td><td class=\"text\">{detail}</td></tr>",
                id = j.id,
                session = match j.session_id.as_deref() {
                    Some(s) => format!(
                        " <span class=\"muted nowrap\" title=\"session {}\">session {}</span>",
                        escape(s),
                        escape(&short_id(s))
                    ),
                    None => " <span class=\"muted\">project notes</span>".into(),
                },
                project = escape(&j.project),
                state = escape(&j.state),
                attempts = j.attempts,
                updated = time(j.updated_at),
                detail = job_detail(j),
            );
        }
        h.push_str(TABLE_END);
    }
    page("Jobs", Nav::Jobs, notice, &h)
}

/// A session id as a person can compare it at a glance: its first 8 characters.
fn short_id(id: &str) -> String {
    if id.chars().count() <= 12 {
        id.to_owned()
    } else {
        format!("{}…", id.chars().take(8).collect::<String>())
    }
}

/// What a job did, or why it has not, as one short line of HTML.
fn job_detail(j: &JobRow) -> String {
    let error = |e: &str| escape(&snippet(e, 300));
    match (
        j.state.as_str(),
        j.last_error.as_deref(),
        j.result.as_deref(),
    ) {
        ("done", _, Some(r)) => job_result(r),
        ("done", _, None) => "Done".into(),
        ("failed", Some(e), _) => format!(
            "<span class=\"error\">Gave up after {}:</span> {}",
            count(j.attempts, "attempt", "attempts"),
            error(e)
        ),
        ("pending", Some(e), _) => format!(
            "Tries again {}; the last attempt failed: {}",
            time(j.run_after),
            error(e)
        ),
        ("pending", None, _) => "Waits for the worker".into(),
        ("running", _, _) => "Running".into(),
        (_, Some(e), _) => error(e),
        _ => String::new(),
    }
}

/// A finished job's result (what [`crate::compress::job::JobReport`] keeps, as JSON) as a
/// line: `3 new facts, 1 known, summary written · from 5 memories, rule-based`. A result it
/// cannot read is shown as text.
fn job_result(result: &str) -> String {
    let Ok(Value::Object(r)) = serde_json::from_str::<Value>(result) else {
        return format!(
            "<span class=\"muted\">{}</span>",
            escape(&snippet(result, 300))
        );
    };
    if r.get("folded").and_then(Value::as_bool) == Some(true) {
        return "Folded into the session's newer job, which reads everything this one would have"
            .into();
    }
    let n = |key: &str| r.get(key).and_then(Value::as_u64).unwrap_or(0);
    let mut said: Vec<String> = Vec::new();
    let mut say = |key: &str, one: &str, many: &str| {
        if n(key) > 0 {
            said.push(count(n(key), one, many));
        }
    };
    say("facts_new", "new fact", "new facts");
    say("facts_known", "known", "known");
    say(
        "superseded",
        "replaced an older fact",
        "replaced older facts",
    );
    say("for_review", "waits for review", "wait for review");
    say("merged", "near-duplicate merged", "near-duplicates merged");
    if r.get("session_summary").and_then(Value::as_bool) == Some(true) {
        said.push("summary written".into());
    }
    let mut line = if said.is_empty() {
        "Nothing new".to_owned()
    } else {
        escape(&said.join(", "))
    };
    let mut how: Vec<String> = Vec::new();
    if n("sources") > 0 {
        how.push(format!(
            "from {}",
            count(n("sources"), "memory", "memories")
        ));
    }
    let by: Vec<String> = r
        .get("extractors")
        .and_then(Value::as_array)
        .map(|xs| {
            xs.iter()
                .filter_map(Value::as_str)
                .map(|x| {
                    if x == "rules" {
                        "rule-based".to_owned()
                    } else {
                        format!("by {x}")
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if !by.is_empty() {
        how.push(by.join(" and "));
    }
    if n("over_cap") > 0 {
        how.push(format!(
            "{} over the model cap read by the rules",
            count(n("over_cap"), "window", "windows")
        ));
    }
    if !how.is_empty() {
        let _ = write!(
            line,
            " <span class=\"muted\">· {}</span>",
            escape(&how.join(", "))
        );
    }
    line
}

/// What "Compress now" did, in words: the worker is woken, and without a provider the rule
/// extractor is what runs.
fn compress_notice(woke: bool, extraction: &str) -> &'static str {
    if !woke {
        "No worker runs in this server (it was started without one), so nothing was woken: run `aletheia compress`, or restart the server with its worker."
    } else if extraction.contains("rule-based") {
        "Woke the worker. No model provider is set (ALETHEIA_PROVIDER), so the rule-based extractor runs, as it does on every tick anyway; set a provider for summaries and facts from a model."
    } else {
        "Woke the worker: it compresses what is due now. Reload to see the jobs' state."
    }
}

async fn compress_now(d: St, body: Bytes) -> Response {
    let d = d.0;
    if let Err(r) = d.form(&body) {
        return *r;
    }
    let woke = d.state.wake_worker();
    // Give a quick job the moment it needs, so the page shows it running or done.
    if woke {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    jobs_page(&d, Some(compress_notice(woke, &d.state.extraction_name))).await
}

// ---------------------------------------------------------------------------------------------
// Doctor
// ---------------------------------------------------------------------------------------------

async fn doctor(d: St) -> Response {
    let d = d.0;
    let report = match d.call(Doctor {}).await {
        Ok(r) => r,
        // No store to make a context with: the report says why, as `aletheia doctor` does.
        Err(OpError::StoreUnavailable(why)) => {
            let paths = d.state.paths.clone();
            let made = tokio::task::spawn_blocking(move || {
                doctor::without_store(&paths, &Clock::system(), NoStore::Unavailable(why))
            })
            .await;
            match made {
                Ok(r) => r,
                Err(e) => {
                    return error_page(&OpError::StoreUnavailable(format!(
                        "the doctor failed: {e}"
                    )));
                }
            }
        }
        Err(e) => return error_page(&e),
    };
    page("Doctor", Nav::Doctor, None, &doctor_html(&report))
}

/// The report as a page: its problems with their fixes and its notes, then what it looked at
/// (the store, the spool, the tools, semantic search, extraction) in words, sizes as KB and MB
/// and times as every page shows them, then every check with its outcome.
fn doctor_html(report: &Report) -> String {
    let mut h = String::new();
    if report.problems.is_empty() {
        h.push_str("<p class=\"ok\">No problems found.</p>");
    } else {
        h.push_str("<h2>Problems</h2><ul class=\"problems\">");
        for p in &report.problems {
            let _ = write!(
                h,
                "<li><strong>{}</strong><br>Fix: {}</li>",
                escape(&p.what),
                escape(&p.fix)
            );
        }
        h.push_str("</ul>");
    }
    if !report.notes.is_empty() {
        h.push_str("<h2>Notes</h2><ul>");
        for n in &report.notes {
            let _ = write!(h, "<li>{}</li>", escape(n));
        }
        h.push_str("</ul>");
    }
    store_html(report, &mut h);
    spool_html(&report.spool, &mut h);
    tools_html(report, &mut h);
    semantic_html(&report.semantic, &mut h);
    extraction_html(&report.extraction, &mut h);
    h.push_str("<h2>Every check</h2><ul class=\"checks\">");
    for c in &report.checks {
        let (class, status) = match c.status {
            Status::Ok => ("state-done", "ok"),
            Status::Warn => ("warn", "note"),
            Status::Fail => ("state-failed", "problem"),
        };
        let _ = write!(
            h,
            "<li><span class=\"badge {class}\">{status}</span> <span><strong>{}</strong>: {}{}</span></li>",
            escape(&heading(c.name)),
            escape(&c.detail),
            c.fix
                .as_deref()
                .map(|f| format!("<br><span class=\"muted\">Fix:</span> {}", escape(f)))
                .unwrap_or_default()
        );
    }
    h.push_str("</ul>");
    h
}

/// Rows of a labelled list: each label and its value (HTML, escaped by the caller).
fn pairs(h: &mut String, rows: &[(&str, String)]) {
    h.push_str("<dl class=\"pairs\">");
    for (label, value) in rows {
        let _ = write!(h, "<div><dt>{}</dt><dd>{value}</dd></div>", escape(label));
    }
    h.push_str("</dl>");
}

/// A size as people read it, in binary units as the spool's cap is set
/// (`ALETHEIA_SPOOL_MAX_MB=256` is 256 MB): `512 bytes`, `381 KB`, `1.5 MB`, `256 MB`.
fn size(bytes: u64) -> String {
    if bytes < 1024 {
        return count(bytes, "byte", "bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = "KB";
    for next in ["MB", "GB", "TB"] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    let figure = if value < 10.0 {
        format!("{value:.1}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned()
    } else {
        format!("{value:.0}")
    };
    format!("{figure} {unit}")
}

/// A time the report gives as ISO text, as a page's `<time>`; text it cannot read stays as it
/// is.
fn iso_time(iso: &str) -> String {
    match iso.parse::<jiff::Timestamp>() {
        Ok(t) => time(t.as_millisecond()),
        Err(_) => escape(iso),
    }
}

/// `3 paths` as a list of `<code>`, or `none`.
fn paths_html<'p>(paths: impl IntoIterator<Item = &'p std::path::Path>) -> String {
    let items: Vec<String> = paths
        .into_iter()
        .map(|p| format!("<li><code>{}</code></li>", escape(&p.display().to_string())))
        .collect();
    if items.is_empty() {
        NONE.into()
    } else {
        format!("<ul class=\"plain\">{}</ul>", items.concat())
    }
}

const NONE: &str = "<span class=\"muted\">none</span>";

/// `note` as `notes`, `summary` as `summaries`.
fn plural(noun: &str) -> String {
    match noun.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{noun}s"),
    }
}

fn store_html(r: &Report, h: &mut String) {
    let s = &r.store;
    let mut rows = vec![
        (
            "File",
            format!("<code>{}</code>", escape(&s.path.display().to_string())),
        ),
        (
            "Size",
            // No file yet: the first event makes the store.
            if !s.exists {
                "<span class=\"muted\">no file yet</span>".to_owned()
            } else {
                escape(&size(s.size_bytes))
            },
        ),
    ];
    if let Some(v) = s.schema_version {
        rows.push(("Schema", format!("version {v}")));
    }
    if let Some(i) = &s.integrity {
        rows.push(("Integrity", escape(i)));
    }
    rows.push((
        "Search index",
        match s.fts_consistent {
            Some(true) => "matches the memories".into(),
            Some(false) => "<span class=\"error\">does not match the memories</span>: run <code>aletheia doctor --rebuild-index</code>".into(),
            None => "<span class=\"muted\">not checked</span>".into(),
        },
    ));
    let total: i64 = s.counts_by_kind.iter().map(|(_, n)| n).sum();
    let by_kind: Vec<String> = s
        .counts_by_kind
        .iter()
        .map(|(kind, n)| escape(&count(*n, kind, &plural(kind))))
        .collect();
    rows.push((
        "Memories",
        if by_kind.is_empty() {
            NONE.into()
        } else {
            format!("{} in all: {}", grouped(total), by_kind.join(", "))
        },
    ));
    let j = &s.jobs;
    rows.push((
        "Compression",
        format!(
            "{} waiting · jobs: {} pending, {} running, {} done, {} failed · <a href=\"/jobs\">Jobs</a>",
            count(j.queued_sessions, "session", "sessions"),
            j.pending,
            j.running,
            j.done,
            j.failed
        ),
    ));
    h.push_str("<h2>Store</h2>");
    pairs(h, &rows);
}

fn spool_html(s: &doctor::SpoolReport, h: &mut String) {
    let waiting = if s.lines_waiting == 0 {
        "nothing".to_owned()
    } else {
        format!(
            "{}{}",
            count(s.lines_waiting, "event", "events"),
            s.oldest_waiting
                .as_deref()
                .map(|o| format!(", the oldest from {}", iso_time(o)))
                .unwrap_or_default()
        )
    };
    let refused = match &s.refused {
        None => NONE.to_owned(),
        Some(x) => format!(
            "{}, the first {}, the latest {}, at a cap of {}",
            count(x.events, "event", "events"),
            time(x.first_at),
            time(x.last_at),
            escape(&size(s.refusing_cap()))
        ),
    };
    let mut rows = vec![("Waiting", waiting)];
    if !s.files.is_empty() {
        rows.push(("Files", paths_html(s.files.iter().map(|p| p.as_path()))));
    }
    rows.push((
        "Set aside",
        paths_html(s.rejected_files.iter().map(|p| p.as_path())),
    ));
    rows.push(("Size cap", escape(&size(s.cap_bytes))));
    rows.push(("Refused at the cap", refused));
    h.push_str("<h2>Spool</h2><p class=\"muted\">Events the hooks could not hand to the store wait here until it takes them.</p>");
    pairs(h, &rows);
}

fn tools_html(r: &Report, h: &mut String) {
    h.push_str("<h2>Tools</h2>");
    let mut rows: Vec<(&str, String)> = Vec::new();
    if let Some(p) = &r.project {
        rows.push((
            "Project folder",
            format!("<code>{}</code>", escape(&p.display().to_string())),
        ));
    }
    for host in r.hosts.iter().filter(|x| x.connected) {
        let mut v = format!(
            "connected · last event {}",
            host.last_event
                .as_deref()
                .map(iso_time)
                .unwrap_or_else(|| "<span class=\"muted\">never</span>".into())
        );
        v.push_str("<ul class=\"plain\">");
        for i in &host.installs {
            let scope = match i.scope {
                install::Scope::User => "For you",
                install::Scope::Project => "For this project",
            };
            let mut parts: Vec<String> = Vec::new();
            for f in &i.hooks {
                let what = if f.plugin {
                    "its plugin".to_owned()
                } else {
                    format!("hooks ({})", escape(&f.events.join(", ")))
                };
                parts.push(format!(
                    "{what} in <code>{}</code>{}",
                    escape(&f.path.display().to_string()),
                    missing(&f.programs)
                ));
            }
            if i.hooks.is_empty() {
                parts.push("no hooks (nothing is captured)".into());
            }
            for m in &i.mcp {
                parts.push(format!(
                    "MCP in <code>{}</code>{}",
                    escape(&m.path.display().to_string()),
                    missing(m.program.as_slice())
                ));
            }
            let _ = write!(v, "<li>{scope}: {}</li>", parts.join("; "));
        }
        v.push_str("</ul>");
        rows.push((install::display_name(&host.host), v));
    }
    let idle: Vec<String> = r
        .hosts
        .iter()
        .filter(|x| !x.connected)
        .map(|x| escape(install::display_name(&x.host)))
        .collect();
    if !idle.is_empty() {
        rows.push((
            "Not connected",
            if idle.len() == r.hosts.len() {
                format!(
                    "{} (connect one with <code>aletheia install TOOL --write</code>)",
                    idle.join(", ")
                )
            } else {
                idle.join(", ")
            },
        ));
    }
    // Tools that sent events without an install this report can see (the API, the dashboard,
    // hooks written by hand).
    let others: Vec<String> = r
        .last_capture
        .iter()
        .filter(|(tool, _)| !r.hosts.iter().any(|x| x.connected && x.host == *tool))
        .map(|(tool, at)| {
            format!(
                "<li>{} · {}</li>",
                escape(install::display_name(tool)),
                iso_time(at)
            )
        })
        .collect();
    if !others.is_empty() {
        rows.push((
            "Last event from others",
            format!("<ul class=\"plain\">{}</ul>", others.concat()),
        ));
    }
    pairs(h, &rows);
}

/// `(cannot run: PATH)` for each program that cannot run.
fn missing(programs: &[doctor::ProgramReport]) -> String {
    programs
        .iter()
        .filter(|p| !p.runnable)
        .map(|p| {
            format!(
                " <span class=\"error\">(cannot run: <code>{}</code>)</span>",
                escape(&p.path)
            )
        })
        .collect()
}

fn semantic_html(s: &doctor::SemanticReport, h: &mut String) {
    let state = if !cfg!(feature = "semantic") {
        "off: this aletheia was built without it".to_owned()
    } else if s.model.is_none() {
        "off: ALETHEIA_MODEL names no known model".to_owned()
    } else if !s.model_present {
        "off: the model is not downloaded (<code>aletheia model fetch</code>, then <code>aletheia index</code>)".to_owned()
    } else {
        "on".to_owned()
    };
    let mut rows = vec![("Searching by meaning", state)];
    if let Some(m) = s.model {
        rows.push(("Model", escape(m)));
    }
    rows.push((
        "Model folder",
        format!(
            "<code>{}</code>",
            escape(&s.model_dir.display().to_string())
        ),
    ));
    rows.push((
        "Re-ranker",
        s.reranker.map_or_else(|| NONE.to_owned(), escape),
    ));
    if let Some(n) = s.without_vector {
        rows.push(("Memories without a vector", grouped(n)));
    }
    h.push_str("<h2>Semantic search</h2>");
    pairs(h, &rows);
}

fn extraction_html(x: &doctor::ExtractionReport, h: &mut String) {
    let sent = |list: &[crate::store::usage::Usage]| -> String {
        if list.is_empty() {
            return "nothing".into();
        }
        let lines: Vec<String> = list
            .iter()
            .map(|u| {
                format!(
                    "<li>{}: {} (about {} tokens) in {}</li>",
                    escape(&u.provider),
                    count(u.chars_sent, "character", "characters"),
                    grouped(u.est_tokens_sent()),
                    count(u.calls, "call", "calls"),
                )
            })
            .collect();
        format!("<ul class=\"plain\">{}</ul>", lines.concat())
    };
    let mut rows = vec![("Extractor", escape(&x.extractor))];
    let rules_only = x.extractor == "rule-based";
    if rules_only && x.this_month.is_empty() {
        rows.push((
            "Sent to a model",
            "nothing: no model provider is set (ALETHEIA_PROVIDER)".into(),
        ));
    } else {
        if !rules_only {
            rows.push((
                "Caps",
                format!(
                    "{} a job, {} a day",
                    count(x.chars_per_job, "character", "characters"),
                    grouped(x.chars_per_day)
                ),
            ));
        }
        rows.push(("Sent today", sent(&x.today)));
        rows.push(("Sent this month", sent(&x.this_month)));
    }
    h.push_str("<h2>Extraction</h2>");
    pairs(h, &rows);
}

/// A check's name in words: `search_index` as `Search index`.
fn heading(key: &str) -> String {
    let said = match key {
        "host_runs_another_hosts_hooks" => Some("Another host's hooks"),
        "spool_rejected" => Some("Spool files set aside"),
        "semantic" => Some("Semantic search"),
        _ => None,
    };
    if let Some(s) = said {
        return s.to_owned();
    }
    let s = key.replace('_', " ");
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => s,
    }
}

// ---------------------------------------------------------------------------------------------
// What your AI sees
// ---------------------------------------------------------------------------------------------

/// What one host gets: its output around the block, or why it gets none.
struct HostView {
    host: &'static str,
    connected: bool,
    event: Option<String>,
    output: Result<String, String>,
}

/// The hosts connected in the user's files or the server's project, and what each prints at
/// session start for `block` (the hook's own wrapper, [`adapter::Adapter::context_output`]).
fn host_views(block: &str) -> Vec<HostView> {
    let connected: Vec<&str> = match install::Setting::from_env() {
        Ok(s) => rules_sync::connected(&s, &s.project.clone()),
        Err(_) => vec![],
    };
    install::HOSTS
        .iter()
        .map(|host| {
            let (event, output) = match adapter::load(host) {
                None => (None, Err("no adapter in this build".to_owned())),
                Some(Err(e)) => (None, Err(e)),
                Some(Ok(a)) => match a.events.iter().find(|(_, spec)| spec.context) {
                    None => (
                        None,
                        Err("takes no block at session start (it recalls through the MCP tools)"
                            .to_owned()),
                    ),
                    Some((event, _)) => match a.context_output(event, block) {
                        Some(out) => (Some(event.clone()), Ok(out)),
                        None => (
                            Some(event.clone()),
                            Err("takes no block at session start (it recalls through the MCP tools)"
                                .to_owned()),
                        ),
                    },
                },
            };
            HostView {
                host,
                connected: connected.contains(host),
                event,
                output,
            }
        })
        .collect()
}

fn host_section(v: &HostView) -> String {
    let mut h = format!(
        "<section class=\"host\"><h3>{}{}</h3>",
        escape(install::display_name(v.host)),
        v.event
            .as_deref()
            .map(|e| format!(" <span class=\"muted\">· on {}</span>", escape(e)))
            .unwrap_or_default()
    );
    match &v.output {
        Ok(out) => {
            let chars = out.chars().count();
            let _ = write!(
                h,
                "<p class=\"size\">{chars} characters · about {} tokens</p><pre class=\"block\">{}</pre>",
                chars.div_ceil(4),
                escape(out)
            );
        }
        Err(why) => {
            let _ = write!(h, "<p class=\"muted\">{}</p>", escape(why));
        }
    }
    h.push_str("</section>");
    h
}

async fn context(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let project = field(&q, "project").unwrap_or_else(|| d.state.default_project.clone());
    let names: Vec<String> = d
        .call(ListProjects {})
        .await
        .map(|ps| ps.into_iter().map(|p| p.project).collect())
        .unwrap_or_default();
    let mut refs: Vec<&str> = names.iter().map(String::as_str).collect();
    if !refs.contains(&project.as_str()) {
        refs.insert(0, &project);
    }
    let block = match d
        .call(SessionStartContext {
            project: Some(project.clone()),
            limit: None,
        })
        .await
    {
        Ok(b) => b,
        Err(e) => return error_page(&e),
    };
    let views = tokio::task::spawn_blocking({
        let block = block.block.clone();
        move || host_views(&block)
    })
    .await
    .unwrap_or_default();
    let chars = block.block.chars().count();
    let mut h = format!(
        "<form method=\"get\" action=\"/context\" class=\"filters\">\
         <select name=\"project\" aria-label=\"Project\">{}</select><button type=\"submit\">Show</button></form>\
         <p>At session start in <strong>{}</strong>, each connected tool's hook prints this block, wrapped as that tool reads it. \
         The block: <strong>{chars}</strong> characters, about <strong>{}</strong> tokens (characters ÷ 4).</p>",
        options(&refs, Some(&project), None),
        escape(&block.project),
        chars.div_ceil(4),
    );
    let (on, off): (Vec<&HostView>, Vec<&HostView>) = views.iter().partition(|v| v.connected);
    h.push_str("<h2>Connected tools</h2>");
    if on.is_empty() {
        h.push_str("<p class=\"muted\">No tool is connected for you or this project yet (<code>aletheia install TOOL --write</code>). Here is the block itself:</p>");
        let _ = write!(h, "<pre class=\"block\">{}</pre>", escape(&block.block));
    }
    for v in &on {
        h.push_str(&host_section(v));
    }
    if !off.is_empty() {
        h.push_str("<details><summary>Tools not connected: what each would get</summary>");
        for v in &off {
            h.push_str(&host_section(v));
        }
        h.push_str("</details>");
    }
    page("What your AI sees", Nav::Context, None, &h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compress_now_says_when_no_provider_is_set() {
        assert!(compress_notice(true, "rule-based").contains("No model provider"));
        assert!(compress_notice(false, "worker off").contains("No worker"));
        assert!(compress_notice(true, "anthropic (claude)").starts_with("Woke"));
    }

    #[test]
    fn the_doctor_page_escapes_every_finding() {
        let hostile = "<script>alert(1)</script>";
        let mut report = Report {
            problems: vec![doctor::Problem {
                what: hostile.into(),
                fix: hostile.into(),
            }],
            notes: vec![hostile.into()],
            checks: vec![doctor::Check {
                name: "host_files",
                status: Status::Fail,
                detail: hostile.into(),
                fix: Some(hostile.into()),
            }],
            last_capture: vec![(hostile.into(), hostile.into())],
            ..Report::default()
        };
        report.store.path = hostile.into();
        report.store.integrity = Some(hostile.into());
        report.store.counts_by_kind = vec![(hostile.into(), 2)];
        report.spool.oldest_waiting = Some(hostile.into());
        report.spool.lines_waiting = 1;
        let h = doctor_html(&report);
        assert!(!h.contains("<script>"), "{h}");
        assert_eq!(h.matches("&lt;script&gt;").count(), 11, "{h}");
        assert!(
            h.contains("<strong>Host files</strong>: &lt;script&gt;"),
            "{h}"
        );
    }

    #[test]
    fn the_doctor_page_reads_in_words_sizes_and_local_times() {
        let mut report = Report {
            last_capture: vec![("api".into(), "2026-07-25T17:20:00.000Z".into())],
            ..Report::default()
        };
        report.store.exists = true;
        report.store.size_bytes = 390_400;
        report.store.schema_version = Some(11);
        report.store.fts_consistent = Some(true);
        report.store.counts_by_kind = vec![("note".into(), 6), ("summary".into(), 1)];
        report.spool.cap_bytes = 268_435_456;
        report.spool.refused = Some(crate::spool::Refused {
            events: 3,
            first_at: 1_785_000_000_000,
            last_at: 1_785_000_000_000,
            cap_bytes: 0,
        });
        report.extraction.extractor = "rule-based".into();
        let h = doctor_html(&report);
        for said in [
            "<dt>Size</dt><dd>381 KB</dd>",
            "<dt>Size cap</dt><dd>256 MB</dd>",
            "3 events, the first <time datetime=\"2026-07-25T17:20:00.000Z\">",
            "at a cap of 256 MB",
            "7 in all: 6 notes, 1 summary",
            "version 11",
            "matches the memories",
            "<li>api · <time datetime=\"2026-07-25T17:20:00.000Z\">2026-07-25 17:20 UTC</time></li>",
        ] {
            assert!(h.contains(said), "{said} is not in {h}");
        }
        for raw in [
            "bytes",
            "<dt>Last capture",
            "2026-07-25T17:20:00.000Z</",
            "Fts",
            "268435456",
        ] {
            assert!(!h.contains(raw), "{raw} is in {h}");
        }
        for label in h.split("<dt>").skip(1) {
            let label = &label[..label.find("</dt>").unwrap()];
            assert!(!label.contains('_'), "a label not in words: {label}");
        }
    }

    #[test]
    fn sizes_read_in_kb_and_mb() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(1023), "1,023 bytes");
        assert_eq!(size(1024), "1 KB");
        assert_eq!(size(390_400), "381 KB");
        assert_eq!(size(1536 * 1024), "1.5 MB");
        assert_eq!(size(268_435_456), "256 MB");
        assert_eq!(size(5 * 1024 * 1024 * 1024), "5 GB");
    }

    fn job(state: &str, error: Option<&str>, result: Option<&str>) -> JobRow {
        JobRow {
            id: 7,
            project: "shop".into(),
            session_id: Some("8f3c2a1e-1111-2222-3333-444455556666".into()),
            state: state.into(),
            attempts: 3,
            run_after: 1_785_000_000_000,
            last_error: error.map(str::to_owned),
            result: result.map(str::to_owned),
            updated_at: 1_785_000_000_000,
        }
    }

    #[test]
    fn a_jobs_result_reads_as_a_line() {
        let report = r#"{"sources":5,"windows":1,"facts_new":3,"facts_known":1,"superseded":0,"for_review":0,"merged":0,"session_summary":true,"extractors":["rules"],"over_cap":0}"#;
        assert_eq!(
            job_result(report),
            "3 new facts, 1 known, summary written <span class=\"muted\">· from 5 memories, rule-based</span>"
        );
        let more = r#"{"sources":1,"facts_new":1,"superseded":1,"for_review":2,"merged":1,"extractors":["anthropic","rules"],"over_cap":1}"#;
        assert_eq!(
            job_result(more),
            "1 new fact, 1 replaced an older fact, 2 wait for review, 1 near-duplicate merged \
             <span class=\"muted\">· from 1 memory, by anthropic and rule-based, 1 window over the model cap read by the rules</span>"
        );
        assert_eq!(job_result("{}"), "Nothing new");
        assert!(job_result(r#"{"folded":true}"#).starts_with("Folded into"));
        // Text it cannot read, and names inside the JSON, stay text.
        let odd = job_result("<script>alert(1)</script>");
        assert!(
            odd.contains("&lt;script&gt;") && !odd.contains("<script>"),
            "{odd}"
        );
        let named = job_result(r#"{"facts_new":1,"extractors":["<b>x</b>"]}"#);
        assert!(
            named.contains("by &lt;b&gt;x&lt;/b&gt;") && !named.contains("<b>"),
            "{named}"
        );
    }

    #[test]
    fn a_jobs_error_is_text_and_says_what_happens_next() {
        let hostile = "<script>alert(1)</script>";
        let failed = job_detail(&job("failed", Some(hostile), None));
        assert!(failed.contains("Gave up after 3 attempts:"), "{failed}");
        assert!(
            failed.contains("&lt;script&gt;") && !failed.contains("<script>"),
            "{failed}"
        );
        let retry = job_detail(&job("pending", Some("timeout"), None));
        assert!(retry.starts_with("Tries again <time"), "{retry}");
        assert_eq!(
            job_detail(&job("pending", None, None)),
            "Waits for the worker"
        );
        assert_eq!(
            short_id("8f3c2a1e-1111-2222-3333-444455556666"),
            "8f3c2a1e…"
        );
        assert_eq!(short_id("s1"), "s1");
    }
}
