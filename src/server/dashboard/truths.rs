//! Facts: the list and one subject's history (facts that disagree wait on the review page).

use super::{
    Dash, Nav, St, TABLE_END, done, error_page, escape, field, notice, options, page, query, table,
    time, url,
};
use crate::ops::curate::{ListFacts, ListProjects};
use crate::ops::memories::{DismissMemory, RestoreMemory};
use crate::ops::recall::FactHistory;
use crate::recall::facts::Fact;
use crate::store::state::ItemType;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::response::Response;
use axum::routing::{get, post};
use std::sync::Arc;

pub(super) fn routes() -> Router<Arc<Dash>> {
    Router::new()
        .route("/facts", get(list))
        .route("/facts/history", get(history))
        .route("/facts/{id}/{action}", post(fact_action))
}

/// The start of a table of facts, named `label`; end it with [`TABLE_END`].
pub(super) fn fact_table(label: &str) -> String {
    table(
        label,
        &[
            "Subject",
            "Predicate",
            "Object",
            "Confidence",
            "Held",
            "Source",
            "",
        ],
    )
}

/// A fact as a table row; `actions` is the last cell's HTML.
pub(super) fn fact_row(f: &Fact, extra_class: &str, actions: &str) -> String {
    let held = match f.valid_to {
        Some(to) => format!("{} – {}", time(f.valid_from), time(to)),
        None => format!("since {}", time(f.valid_from)),
    };
    let from = match f.memory_id {
        Some(m) => format!(" · <a href=\"/memories/{m}\">#{m}</a>"),
        None => String::new(),
    };
    format!(
        "<tr class=\"{cls}\"><td><a href=\"/facts/history?subject={s}&amp;project={p}\">{subject}</a> <span class=\"muted\">{project}</span></td>\
         <td>{pred}</td><td class=\"text\"><strong>{obj}</strong></td>\
         <td>{conf:.2}</td><td>{held}</td>\
         <td>{source}{from}</td><td class=\"buttons\">{actions}</td></tr>",
        cls = escape(extra_class),
        s = escape(&url(&f.subject)),
        p = escape(&url(&f.project)),
        subject = escape(&f.subject),
        project = escape(&f.project),
        pred = escape(&f.predicate),
        obj = escape(&f.object),
        conf = f.confidence,
        source = escape(&f.source),
    )
}

async fn list(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let project = field(&q, "project");
    let subject = field(&q, "subject");
    let all = q.get("all").is_some_and(|v| v == "1");
    let names: Vec<String> = d
        .call(ListProjects {})
        .await
        .map(|ps| ps.into_iter().map(|p| p.project).collect())
        .unwrap_or_default();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let facts = match d
        .call(ListFacts {
            project: project.clone(),
            subject: subject.clone(),
            include_superseded: all,
            limit: Some(100),
        })
        .await
    {
        Ok(f) => f,
        Err(e) => return error_page(&e),
    };
    let mut h = format!(
        "<form method=\"get\" action=\"/facts\" class=\"filters\">\
         <input type=\"search\" name=\"subject\" value=\"{s}\" placeholder=\"Subject\" aria-label=\"Subject\">\
         <select name=\"project\" aria-label=\"Project\">{projects}</select>\
         <label class=\"check\"><input type=\"checkbox\" name=\"all\" value=\"1\"{checked}> replaced and dismissed too</label>\
         <button type=\"submit\">Show</button></form>",
        s = escape(subject.as_deref().unwrap_or("")),
        projects = options(&refs, project.as_deref(), Some("every project")),
        checked = if all { " checked" } else { "" },
    );
    if facts.is_empty() {
        h.push_str("<p class=\"muted\">No facts yet: they come from compressing finished sessions (see Jobs).</p>");
    } else {
        h.push_str(&fact_table("Facts"));
        for lf in &facts {
            let f = &lf.fact;
            let base = format!("/facts/{}", f.id);
            let (cls, button) = if lf.dismissed {
                (
                    "off",
                    d.button(&format!("{base}/restore"), &[], "Restore", ""),
                )
            } else {
                (
                    if f.valid_to.is_some() { "old" } else { "" },
                    d.button(&format!("{base}/dismiss"), &[], "Dismiss", "danger"),
                )
            };
            h.push_str(&fact_row(f, cls, &button));
        }
        h.push_str(TABLE_END);
    }
    page("Facts", Nav::Facts, notice(&q), &h)
}

async fn history(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let subject = field(&q, "subject").unwrap_or_default();
    let r = match d
        .call(FactHistory {
            subject: subject.clone(),
            project: field(&q, "project"),
            include_superseded: true,
            ..Default::default()
        })
        .await
    {
        Ok(r) => r,
        Err(e) => return error_page(&e),
    };
    let mut h = String::from(
        "<p class=\"muted\">Every fact about this subject, oldest first; replaced ones are greyed.</p>",
    );
    h.push_str(&fact_table("History"));
    for f in &r.facts {
        let cls = if f.valid_to.is_some() { "old" } else { "" };
        h.push_str(&fact_row(f, cls, ""));
    }
    h.push_str(TABLE_END);
    page(&format!("History of “{}”", r.subject), Nav::Facts, None, &h)
}

async fn fact_action(d: St, Path((id, action)): Path<(i64, String)>, body: Bytes) -> Response {
    let d = d.0;
    if let Err(r) = d.form(&body) {
        return *r;
    }
    let out = match action.as_str() {
        "dismiss" => d
            .call(DismissMemory {
                id,
                item_type: Some(ItemType::Fact),
                reason: Some("dismissed in the dashboard".into()),
            })
            .await
            .map(|_| "dismissed"),
        "restore" => d
            .call(RestoreMemory {
                id,
                item_type: Some(ItemType::Fact),
            })
            .await
            .map(|_| "restored"),
        _ => {
            return error_page(&crate::ops::OpError::NotFound(format!(
                "No action \"{action}\"."
            )));
        }
    };
    match out {
        Ok(code) => done(&format!("/facts?all=1&ok={code}")),
        Err(e) => error_page(&e),
    }
}
