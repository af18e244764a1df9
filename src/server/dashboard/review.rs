//! The review inbox and clients' trust: what clients proposed and the facts that disagree,
//! each with what, from whom, when and why it waits; and the level each client writes at.

use super::truths::{fact_row, fact_table};
use super::{
    Dash, Nav, St, TABLE_END, done, error_page, escape, field, notice, options, page, query, table,
    time,
};
use crate::ops::OpError;
use crate::ops::review::{ProposalAccept, ProposalReject, ReviewAccept, ReviewList, ReviewReject};
use crate::ops::trust::{Level, ListTrust, SetTrust};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::response::Response;
use axum::routing::{get, post};
use std::fmt::Write as _;
use std::sync::Arc;

pub(super) fn routes() -> Router<Arc<Dash>> {
    Router::new()
        .route("/review", get(review))
        .route("/review/{id}/{action}", post(fact_action))
        .route("/review/proposals/{id}/{action}", post(proposal_action))
        .route("/trust", get(trust).post(set_trust))
}

async fn review(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let inbox = match d
        .call(ReviewList {
            project: field(&q, "project"),
        })
        .await
    {
        Ok(r) => r,
        Err(e) => return error_page(&e),
    };
    let mut h = String::from(
        "<p class=\"muted\">What waits for you: what connected clients proposed (it reaches search, sessions and rules only once you accept it), and facts that disagree. <a href=\"/trust\">Trust</a> sets which clients propose and which write.</p>",
    );
    if inbox.proposals.is_empty() && inbox.facts.is_empty() {
        h.push_str("<p>Nothing waits for review.</p>");
    }
    if !inbox.proposals.is_empty() {
        h.push_str("<section class=\"review\"><h2>Proposed by clients</h2>");
        h.push_str(&table(
            "Proposed by clients",
            &["What", "Project", "From", "When", "Why it waits", ""],
        ));
        for p in &inbox.proposals {
            let base = format!("/review/proposals/{}", p.id);
            let _ = write!(
                h,
                "<tr><td class=\"text\">p{id} {summary}</td><td>{project}</td>\
                 <td>{client}</td><td>{when}</td>\
                 <td class=\"text\">{why}</td><td class=\"buttons\">{accept}{reject}</td></tr>",
                id = p.id,
                summary = escape(&p.summary),
                project = if p.project.is_empty() {
                    "<span class=\"muted\">every project</span>".to_owned()
                } else {
                    escape(&p.project)
                },
                client = escape(&p.client),
                when = time(p.created_at),
                why = escape(&p.why),
                accept = d.button(&format!("{base}/accept"), &[], "Accept", ""),
                reject = d.button(&format!("{base}/reject"), &[], "Reject", "danger"),
            );
        }
        h.push_str(TABLE_END);
        h.push_str("</section>");
    }
    for r in &inbox.facts {
        let _ = write!(
            h,
            "<section class=\"review\"><h2>Facts that disagree: {} <span class=\"muted\">· since {}</span></h2><p class=\"muted\">Two facts about one subject that started at the same moment cannot be ordered: keep the right one.</p>",
            escape(&r.project),
            time(r.created_at)
        );
        h.push_str(&fact_table("Facts that disagree"));
        for f in &r.facts {
            let base = format!("/review/{}", f.id);
            let buttons = format!(
                "{}{}",
                d.button(&format!("{base}/accept"), &[], "Keep this", ""),
                d.button(&format!("{base}/reject"), &[], "Reject", "danger")
            );
            h.push_str(&fact_row(f, "", &buttons));
        }
        h.push_str(TABLE_END);
        h.push_str("</section>");
    }
    page("Review", Nav::Review, notice(&q), &h)
}

fn no_action(action: &str) -> Response {
    error_page(&OpError::NotFound(format!("No action \"{action}\".")))
}

async fn fact_action(d: St, Path((id, action)): Path<(i64, String)>, body: Bytes) -> Response {
    let d = d.0;
    if let Err(r) = d.form(&body) {
        return *r;
    }
    let out = match action.as_str() {
        "accept" => d
            .call(ReviewAccept { fact_id: id })
            .await
            .map(|_| "accepted"),
        "reject" => d
            .call(ReviewReject { fact_id: id })
            .await
            .map(|_| "rejected"),
        _ => return no_action(&action),
    };
    match out {
        Ok(code) => done(&format!("/review?ok={code}")),
        Err(e) => error_page(&e),
    }
}

async fn proposal_action(d: St, Path((id, action)): Path<(i64, String)>, body: Bytes) -> Response {
    let d = d.0;
    if let Err(r) = d.form(&body) {
        return *r;
    }
    let out = match action.as_str() {
        "accept" => d
            .call(ProposalAccept { id })
            .await
            .map(|_| "proposal-accepted"),
        "reject" => d
            .call(ProposalReject { id, reason: None })
            .await
            .map(|_| "proposal-rejected"),
        _ => return no_action(&action),
    };
    match out {
        Ok(code) => done(&format!("/review?ok={code}")),
        Err(e) => error_page(&e),
    }
}

const LEVELS: [&str; 3] = ["read", "propose", "write"];

async fn trust(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let levels = match d.call(ListTrust {}).await {
        Ok(l) => l,
        Err(e) => return error_page(&e),
    };
    let mut h = String::from(
        "<p class=\"muted\">How far each connected client's writes are trusted. <strong>read</strong>: every write refused. <strong>propose</strong>: what it writes waits on the <a href=\"/review\">Review</a> page. <strong>write</strong>: written directly. A client with no level here writes memories directly and proposes rules, since a rule reaches every session. An MCP client is named as it names itself; a hub token as token:ID.</p>",
    );
    if !levels.clients.is_empty() {
        h.push_str(&table("Clients", &["Client", "Level", "Set", ""]));
        for c in &levels.clients {
            let _ = write!(
                h,
                "<tr><td>{client}</td><td><span class=\"badge\">{level}</span></td>\
                 <td>{set}</td><td class=\"buttons\">{reset}</td></tr>",
                client = escape(&c.client),
                level = escape(&c.level),
                set = time(c.set_at),
                reset = d.button(
                    "/trust",
                    &[("client", &c.client), ("level", "")],
                    "Back to the defaults",
                    ""
                ),
            );
        }
        h.push_str(TABLE_END);
    }
    let _ = write!(
        h,
        "<h2>Set a level</h2><form method=\"post\" action=\"/trust\" class=\"stack\">{token}\
         <label>Client <input name=\"client\" required maxlength=\"200\" placeholder=\"claude-code, cursor, token:3\"></label>\
         <label>Level <select name=\"level\">{levels}</select></label>\
         <button type=\"submit\">Set</button></form>",
        token = d.token_field(),
        levels = options(&LEVELS, Some("propose"), None),
    );
    page("Trust", Nav::Review, notice(&q), &h)
}

async fn set_trust(d: St, body: Bytes) -> Response {
    let d = d.0;
    let form = match d.form(&body) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let level = match field(&form, "level").map(|l| l.parse::<Level>()) {
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => return error_page(&OpError::InvalidArgument(e)),
        None => None,
    };
    let client = field(&form, "client").unwrap_or_default();
    match d.call(SetTrust { client, level }).await {
        Ok(_) => done("/trust?ok=trust-set"),
        Err(e) => error_page(&e),
    }
}
