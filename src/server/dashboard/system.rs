//! The machinery: the compression queue and its jobs with "Compress now", the doctor's report,
//! and "What your AI sees", the exact block each connected host gets at session start.

use super::{Dash, Nav, St, error_page, escape, field, options, page, query, time};
use crate::capture::adapter;
use crate::install::{self, rules_sync};
use crate::ops::OpError;
use crate::ops::compress::Jobs;
use crate::ops::curate::ListProjects;
use crate::ops::doctor::{self, Doctor, NoStore, Report, Status};
use crate::ops::recall::SessionStartContext;
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
        h.push_str("<table class=\"rows\"><thead><tr><th>Job</th><th>Project</th><th>State</th><th>Attempts</th><th>Updated</th><th>Result or error</th></tr></thead><tbody>");
        for j in &list.jobs {
            let detail = j
                .last_error
                .as_deref()
                .or(j.result.as_deref())
                .unwrap_or("");
            let _ = write!(
                h,
                "<tr><td data-label=\"Job\">#{id}{session}</td><td data-label=\"Project\">{project}</td>\
                 <td data-label=\"State\"><span class=\"badge state-{state}\">{state}</span></td>\
                 <td data-label=\"Attempts\">{attempts}</td><td data-label=\"Updated\">{updated}</td>\
                 <td data-label=\"Result\"><code class=\"wrap\">{detail}</code></td></tr>",
                id = j.id,
                session = j
                    .session_id
                    .as_deref()
                    .map(|s| format!(" <span class=\"muted\">{}</span>", escape(s)))
                    .unwrap_or_default(),
                project = escape(&j.project),
                state = escape(&j.state),
                attempts = j.attempts,
                updated = time(j.updated_at),
                detail = escape(&super::snippet(detail, 300)),
            );
        }
        h.push_str("</tbody></table>");
    }
    page("Jobs", Nav::Jobs, notice, &h)
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

/// The report: its problems with their fixes, its notes, every check with its outcome, then
/// each part of the state it looked at as nested lists.
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
    h.push_str("<h2>Checks</h2><table class=\"rows\"><thead><tr><th>Check</th><th>Status</th><th>Found</th><th>Fix</th></tr></thead><tbody>");
    for c in &report.checks {
        let (class, status) = match c.status {
            Status::Ok => ("state-done", "ok"),
            Status::Warn => ("", "warn"),
            Status::Fail => ("state-failed", "fail"),
        };
        let _ = write!(
            h,
            "<tr><td data-label=\"Check\">{}</td><td data-label=\"Status\"><span class=\"badge {class}\">{status}</span></td>\
             <td data-label=\"Found\">{}</td><td data-label=\"Fix\">{}</td></tr>",
            escape(&heading(c.name)),
            escape(&c.detail),
            escape(c.fix.as_deref().unwrap_or(""))
        );
    }
    h.push_str("</tbody></table>");
    if let Ok(Value::Object(obj)) = serde_json::to_value(report) {
        for (k, v) in &obj {
            if matches!(k.as_str(), "problems" | "notes" | "checks") {
                continue;
            }
            let _ = write!(h, "<h2>{}</h2>{}", escape(&heading(k)), json_html(v, 0));
        }
    }
    h
}

/// `last_capture` as `Last capture`.
fn heading(key: &str) -> String {
    let s = key.replace('_', " ");
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => s,
    }
}

/// Any JSON value as nested lists, every text escaped.
fn json_html(v: &Value, depth: usize) -> String {
    if depth > 12 {
        return "…".into();
    }
    match v {
        Value::Null => "<span class=\"muted\">none</span>".into(),
        Value::Bool(b) => (if *b { "yes" } else { "no" }).into(),
        Value::Number(n) => escape(&n.to_string()),
        Value::String(s) => escape(s),
        Value::Array(items) if items.is_empty() => "<span class=\"muted\">none</span>".into(),
        Value::Array(items) => {
            let mut h = String::from("<ul class=\"tree\">");
            for i in items {
                let _ = write!(h, "<li>{}</li>", json_html(i, depth + 1));
            }
            h.push_str("</ul>");
            h
        }
        Value::Object(m) if m.is_empty() => "<span class=\"muted\">none</span>".into(),
        Value::Object(m) => {
            let mut h = String::from("<dl class=\"tree\">");
            for (k, v) in m {
                let _ = write!(
                    h,
                    "<div><dt>{}</dt><dd>{}</dd></div>",
                    escape(&heading(k)),
                    json_html(v, depth + 1)
                );
            }
            h.push_str("</dl>");
            h
        }
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
        let report = Report {
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
            ..Report::default()
        };
        let h = doctor_html(&report);
        assert!(!h.contains("<script>"), "{h}");
        assert_eq!(h.matches("&lt;script&gt;").count(), 5, "{h}");
        assert!(
            h.contains("<td data-label=\"Check\">Host files</td>"),
            "{h}"
        );
    }

    #[test]
    fn json_in_the_doctor_report_is_escaped() {
        let v = serde_json::json!({ "path": "<script>alert(1)</script>", "n": [1, null] });
        let h = json_html(&v, 0);
        assert!(h.contains("&lt;script&gt;"));
        assert!(!h.contains("<script>"));
    }
}
