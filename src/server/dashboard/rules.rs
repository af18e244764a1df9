//! Rules: the list, adding one, confirming, disabling and enabling, and "sync to tools", which
//! writes the enabled rules into each connected tool's rule file (`sync_rules`).

use super::{
    Dash, Nav, St, TABLE_END, done, error_page, escape, field, notice, options, page, query, table,
    time,
};
use crate::ops::curate::{ListAllRules, SetRuleEnabled};
use crate::ops::rules::{AddRule, ConfirmRule, ScopeTier, SyncRules};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::response::Response;
use axum::routing::{get, post};
use std::fmt::Write as _;
use std::sync::Arc;

pub(super) fn routes() -> Router<Arc<Dash>> {
    Router::new()
        .route("/rules", get(list).post(add))
        .route("/rules/sync", post(sync))
        .route("/rules/{id}/{action}", post(act))
}

async fn list(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let rules = match d.call(ListAllRules {}).await {
        Ok(r) => r,
        Err(e) => return error_page(&e),
    };
    let mut h = String::new();
    if rules.is_empty() {
        h.push_str("<p class=\"muted\">No rules yet.</p>");
    } else {
        h.push_str(&table(
            "Rules",
            &["Rule", "Scope", "Source", "Confirmed", ""],
        ));
        for lr in &rules {
            let r = &lr.rule;
            let base = format!("/rules/{}", r.id);
            let mut actions = d.button(&format!("{base}/confirm"), &[], "Confirm", "");
            actions.push_str(&if lr.enabled {
                d.button(&format!("{base}/disable"), &[], "Disable", "danger")
            } else {
                d.button(&format!("{base}/enable"), &[], "Enable", "")
            });
            let when = if r.when.eq_ignore_ascii_case("always") {
                String::new()
            } else {
                format!("<span class=\"muted\">When {}:</span> ", escape(&r.when))
            };
            let recheck = r
                .recheck
                .as_deref()
                .map(|why| format!(" <span class=\"badge\">re-check: {}</span>", escape(why)))
                .unwrap_or_default();
            let _ = write!(
                h,
                "<tr class=\"{cls}\"><td class=\"text\">{when}{then}{recheck}{off}<div class=\"muted\"><code>{id}</code></div></td>\
                 <td>{scope}</td><td>{source}</td>\
                 <td>{confirmed}</td><td class=\"buttons\">{actions}</td></tr>",
                cls = if lr.enabled { "" } else { "off" },
                then = escape(&r.then),
                off = if lr.enabled {
                    ""
                } else {
                    " <span class=\"badge off\">disabled</span>"
                },
                id = escape(&r.id),
                scope = escape(&scope(&r.scope_tier, &r.scope_name)),
                source = escape(&r.source),
                confirmed = time(r.confirmed_at),
            );
        }
        h.push_str(TABLE_END);
    }
    let tiers = ["everywhere", "project", "situation"];
    let _ = write!(
        h,
        "<h2>Add a rule</h2><form method=\"post\" action=\"/rules\" class=\"stack\">{token}\
         <label>Rule <textarea name=\"then\" rows=\"2\" maxlength=\"800\" required></textarea></label>\
         <label>When <input name=\"when\" placeholder=\"always\" maxlength=\"800\"></label>\
         <label>Scope <select name=\"scopeTier\">{tiers}</select></label>\
         <label>Project or situation <input name=\"scopeName\" value=\"{project}\" maxlength=\"200\"></label>\
         <button type=\"submit\">Add rule</button></form>",
        token = d.token_field(),
        tiers = options(&tiers, Some("everywhere"), None),
        project = escape(&d.state.default_project),
    );
    let _ = write!(
        h,
        "<h2>Sync to tools</h2><p class=\"muted\">Writes the enabled rules of project <strong>{project}</strong> into each connected tool's rule file at its root (CLAUDE.md, AGENTS.md, …), inside a marked block that the next sync replaces; the rest of each file is left as it is.</p>{button}",
        project = escape(&d.state.default_project),
        button = d.button("/rules/sync", &[], "Sync to tools", ""),
    );
    page("Rules", Nav::Rules, notice(&q), &h)
}

/// Where a rule holds, in words: `everywhere`, `project: shop`.
fn scope(tier: &str, name: &str) -> String {
    if tier == "everywhere" {
        tier.to_owned()
    } else {
        format!("{tier}: {name}")
    }
}

async fn add(d: St, body: Bytes) -> Response {
    let d = d.0;
    let f = match d.form(&body) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let tier = match super::parsed::<ScopeTier>(&f, "scopeTier") {
        Ok(t) => t,
        Err(e) => return error_page(&e),
    };
    let req = AddRule {
        then: f.get("then").cloned().unwrap_or_default(),
        when: field(&f, "when"),
        scope_tier: tier,
        scope_name: field(&f, "scopeName"),
        evidence_memory_ids: vec![],
        evidence_fact_ids: vec![],
    };
    match d.call(req).await {
        Ok(r) if r.new => done("/rules?ok=rule-added"),
        Ok(_) => done("/rules?ok=rule-exists"),
        Err(e) => error_page(&e),
    }
}

async fn act(d: St, Path((id, action)): Path<(String, String)>, body: Bytes) -> Response {
    let d = d.0;
    if let Err(r) = d.form(&body) {
        return *r;
    }
    let out = match action.as_str() {
        "confirm" => d.call(ConfirmRule { id }).await.map(|_| "confirmed"),
        "disable" | "enable" => d
            .call(SetRuleEnabled {
                id,
                enabled: action == "enable",
            })
            .await
            .map(|r| if r.enabled { "enabled" } else { "disabled" }),
        _ => {
            return error_page(&crate::ops::OpError::NotFound(format!(
                "No action \"{action}\"."
            )));
        }
    };
    match out {
        Ok(code) => done(&format!("/rules?ok={code}")),
        Err(e) => error_page(&e),
    }
}

async fn sync(d: St, body: Bytes) -> Response {
    let d = d.0;
    if let Err(r) = d.form(&body) {
        return *r;
    }
    // The server runs on the user's machine, in the project's folder: that folder and HOME are
    // where the files go, as for `aletheia rules sync` run there.
    let place = match crate::install::Setting::from_env() {
        Ok(s) => s,
        Err(e) => return error_page(&crate::ops::OpError::InvalidArgument(e.to_string())),
    };
    let req = SyncRules {
        tool: None,
        project: None,
        place: Some(place),
    };
    let r = match d.call(req).await {
        Ok(r) => r,
        Err(e) => return error_page(&e),
    };
    let mut h = format!(
        "<p>{} rule{} of <strong>{}</strong>, in {}.</p>",
        r.rules,
        if r.rules == 1 { "" } else { "s" },
        escape(&r.project),
        escape(&r.root.display().to_string())
    );
    if r.tools.is_empty() {
        h.push_str("<p>No tool is connected here, so nothing was written: connect one with <code>aletheia install TOOL --write</code>.</p>");
    } else {
        h.push_str(&table("Files written", &["File", "Tools", "Done"]));
        for f in &r.files {
            let _ = write!(
                h,
                "<tr><td class=\"text\"><code>{}</code></td><td>{}</td><td>{}{}</td></tr>",
                escape(&f.path.display().to_string()),
                escape(&f.hosts.join(", ")),
                escape(f.action.as_str()),
                f.reason
                    .as_deref()
                    .map(|why| format!(": {}", escape(why)))
                    .unwrap_or_default()
            );
        }
        h.push_str(TABLE_END);
    }
    h.push_str("<p><a href=\"/rules\">Back to the rules</a></p>");
    page("Rules synced", Nav::Rules, None, &h)
}
