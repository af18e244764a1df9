//! Memories: the list with its filters and search, one memory with its neighbours, a new note,
//! editing a note, and pin, dismiss and restore.

use super::{
    Dash, Nav, St, done, error_page, escape, field, notice, options, page, parsed, query, snippet,
    time, url,
};
use crate::model::{Kind, Memory, MemoryType};
use crate::ops::curate::{BrowseMemories, EditNote, GetMemory, ListProjects, PinMemory, Shown};
use crate::ops::feedback::{GiveFeedback, VoteName};
use crate::ops::inspect::Inspect;
use crate::ops::memories::{DismissMemory, RestoreMemory, SaveMemory};
use crate::ops::recall::{GetObservations, Search, Timeline};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::response::Response;
use axum::routing::{get, post};
use std::fmt::Write as _;
use std::sync::Arc;

const PAGE: i64 = 30;

pub(super) fn routes() -> Router<Arc<Dash>> {
    Router::new()
        .route("/", get(list))
        .route("/new", get(new_note))
        .route("/memories", post(save))
        .route("/memories/{id}", get(detail))
        .route("/memories/{id}/edit", get(edit_form).post(edit))
        .route("/memories/{id}/{action}", post(act))
}

/// The projects' names, for the filters.
async fn projects(d: &Dash) -> Vec<String> {
    d.call(ListProjects {})
        .await
        .map(|ps| ps.into_iter().map(|p| p.project).collect())
        .unwrap_or_default()
}

/// What a memory is, in words: its kind (where it came from: a note, a prompt, a summary…),
/// led by its type when the type says more than "note": `note`, `prompt`, `decision note`,
/// `bugfix observation`. `None` for a plain note, which needs no word on a timeline.
fn what(m: &Memory) -> Option<String> {
    match (m.mtype, m.kind) {
        (MemoryType::Note, Kind::Note) => None,
        (MemoryType::Note, kind) => Some(kind.as_str().to_owned()),
        (ty, kind) => Some(format!("{} {}", ty.as_str(), kind.as_str())),
    }
}

/// The one badge saying what a memory is (see [`what`]), its type and kind spelled out on hover.
fn what_badge(m: &Memory) -> String {
    format!(
        "<span class=\"badge what\" title=\"type: {} · kind: {}\">{}</span>",
        escape(m.mtype.as_str()),
        escape(m.kind.as_str()),
        escape(&what(m).unwrap_or_else(|| m.kind.as_str().to_owned()))
    )
}

/// One memory as a list row; `replaced_by` when a search found it replaced by a newer one.
fn row(m: &Memory, replaced_by: Option<i64>) -> String {
    let mut badges = what_badge(m);
    if m.pinned {
        badges.push_str("<span class=\"badge pin\">pinned</span>");
    }
    if m.dismissed {
        badges.push_str("<span class=\"badge off\">dismissed</span>");
    }
    if let Some(newer) = replaced_by {
        let _ = write!(
            badges,
            "<a class=\"badge off\" href=\"/memories/{newer}\">replaced by #{newer}</a>"
        );
    }
    format!(
        "<li class=\"memory\"><a class=\"title\" href=\"/memories/{id}\">{title}</a>\
         <div class=\"meta\">#{id} · {when} · {project} · {tool} {badges}</div>\
         <p class=\"snippet\">{text}</p></li>",
        id = m.id,
        title = escape(&snippet(&m.title, 200)),
        when = time(m.created_at),
        project = escape(&m.project),
        tool = escape(&m.host),
        text = escape(&snippet(&m.text, 240)),
    )
}

async fn list(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let text = field(&q, "q");
    let project = field(&q, "project");
    let (mtype, kind, show) = match (
        parsed::<MemoryType>(&q, "type"),
        parsed::<Kind>(&q, "kind"),
        parsed::<Shown>(&q, "show"),
    ) {
        (Ok(t), Ok(k), Ok(s)) => (t, k, s),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return error_page(&e),
    };
    let offset = parsed::<i64>(&q, "offset")
        .ok()
        .flatten()
        .unwrap_or(0)
        .max(0);
    let names = projects(&d).await;
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let types: Vec<&str> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
    let mut h = String::new();
    let _ = write!(
        h,
        "<form method=\"get\" action=\"/\" class=\"filters\" role=\"search\">\
         <input type=\"search\" name=\"q\" value=\"{q}\" placeholder=\"Search memories\" aria-label=\"Search\">\
         <select name=\"project\" aria-label=\"Project\">{projects}</select>\
         <select name=\"type\" aria-label=\"Type\">{types}</select>\
         <select name=\"kind\" aria-label=\"Kind\">{kinds}</select>\
         <select name=\"show\" aria-label=\"Show\">{shows}</select>\
         <button type=\"submit\">Search</button></form>",
        q = escape(text.as_deref().unwrap_or("")),
        projects = options(&name_refs, project.as_deref(), Some("every project")),
        types = options(&types, mtype.map(MemoryType::as_str), Some("any type")),
        kinds = options(&kinds, kind.map(Kind::as_str), Some("any kind")),
        shows = options(
            &["active", "pinned", "dismissed", "all"],
            field(&q, "show").as_deref(),
            None
        ),
    );
    let _ = write!(
        h,
        "<p><a class=\"button\" href=\"/new{}\">New note</a></p>",
        project
            .as_deref()
            .map(|p| format!("?project={}", url(p)))
            .unwrap_or_default()
    );
    if let Some(words) = text {
        let req = Search {
            query: Some(words.clone()),
            project: project.clone(),
            mtype,
            kind,
            limit: Some(50),
            ..Default::default()
        };
        let r = match d.call(req).await {
            Ok(r) => r,
            Err(e) => return error_page(&e),
        };
        if !r.facts.is_empty() {
            h.push_str("<h2>Facts</h2><ul class=\"facts\">");
            for f in &r.facts {
                let _ = write!(
                    h,
                    "<li><a href=\"/facts/history?subject={s}&amp;project={p}\">{subject}</a> {pred} <strong>{obj}</strong> <span class=\"muted\">({project})</span></li>",
                    s = escape(&url(&f.subject)),
                    p = escape(&url(&f.project)),
                    subject = escape(&f.subject),
                    pred = escape(&f.predicate),
                    obj = escape(&f.object),
                    project = escape(&f.project),
                );
            }
            h.push_str("</ul>");
        }
        let _ = write!(
            h,
            "<h2>{} result{} for “{}”</h2>",
            r.hits.len(),
            if r.hits.len() == 1 { "" } else { "s" },
            escape(&words)
        );
        if let Some(reason) = &r.reason {
            let _ = write!(h, "<p class=\"muted\">{}</p>", escape(reason));
        }
        h.push_str("<ul class=\"memories\">");
        for hit in &r.hits {
            h.push_str(&row(&hit.memory, hit.replaced_by));
        }
        h.push_str("</ul>");
        return page("Memories", Nav::Memories, notice(&q), &h);
    }
    let req = BrowseMemories {
        project: project.clone(),
        mtype,
        kind,
        show,
        limit: Some(PAGE),
        offset: Some(offset),
    };
    let p = match d.call(req).await {
        Ok(p) => p,
        Err(e) => return error_page(&e),
    };
    if p.memories.is_empty() {
        h.push_str("<p class=\"muted\">No memories here yet.</p>");
    }
    h.push_str("<ul class=\"memories\">");
    for m in &p.memories {
        h.push_str(&row(m, None));
    }
    h.push_str("</ul><nav class=\"pager\">");
    let link = |off: i64| {
        let mut q2 = q.clone();
        q2.insert("offset".into(), off.to_string());
        q2.remove("ok");
        let s: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(q2.iter())
            .finish();
        escape(&format!("/?{s}"))
    };
    if offset > 0 {
        let _ = write!(h, "<a href=\"{}\">Newer</a>", link((offset - PAGE).max(0)));
    }
    if p.more {
        let _ = write!(h, "<a href=\"{}\">Older</a>", link(offset + PAGE));
    }
    h.push_str("</nav>");
    page("Memories", Nav::Memories, notice(&q), &h)
}

async fn detail(d: St, Path(id): Path<i64>, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let m = match d.call(GetMemory { id }).await {
        Ok(m) => m,
        Err(e) => return error_page(&e),
    };
    // Its facts and original message; get_observations leaves a dismissed memory out.
    let o = if m.dismissed {
        None
    } else {
        match d.call(GetObservations { ids: vec![id] }).await {
            Ok(f) => f.into_iter().next(),
            Err(e) => return error_page(&e),
        }
    };
    let m = &m;
    let mut h = String::new();
    let _ = write!(
        h,
        "<div class=\"meta\">#{id} · {when} · <a href=\"/?project={pq}\">{project}</a> · {tool} \
         {what}{pin}{off}</div>",
        when = time(m.created_at),
        pq = escape(&url(&m.project)),
        project = escape(&m.project),
        tool = escape(&m.host),
        what = what_badge(m),
        pin = if m.pinned {
            "<span class=\"badge pin\">pinned</span>"
        } else {
            ""
        },
        off = if m.dismissed {
            "<span class=\"badge off\">dismissed</span>"
        } else {
            ""
        },
    );
    h.push_str("<div class=\"actions\">");
    let base = format!("/memories/{id}");
    h.push_str(&if m.pinned {
        d.button(&format!("{base}/unpin"), &[], "Unpin", "")
    } else {
        d.button(&format!("{base}/pin"), &[], "Pin", "")
    });
    h.push_str(&if m.dismissed {
        d.button(&format!("{base}/restore"), &[], "Restore", "")
    } else {
        d.button(&format!("{base}/dismiss"), &[], "Dismiss", "danger")
    });
    if m.kind == Kind::Note {
        let _ = write!(h, "<a class=\"button\" href=\"{base}/edit\">Edit</a>");
    }
    h.push_str("</div>");
    // Versions, relationships and feedback, read once for the sections below.
    let inspected = d.call(Inspect { id }).await;
    if let Ok(i) = &inspected {
        h.push_str("<div class=\"actions feedback\">");
        h.push_str(&if i.feedback.favourite {
            d.button(&format!("{base}/unfavourite"), &[], "Unfavourite", "")
        } else {
            d.button(&format!("{base}/favourite"), &[], "Favourite", "")
        });
        h.push_str(&d.button(&format!("{base}/positive"), &[], "Helpful", ""));
        h.push_str(&d.button(&format!("{base}/negative"), &[], "Not helpful", ""));
        let _ = write!(
            h,
            "<span class=\"muted\">{} helpful · {} not helpful{}</span></div>",
            i.feedback.positive,
            i.feedback.negative,
            if i.feedback.hides() {
                " · left out of the session-start block"
            } else {
                ""
            }
        );
    }
    let _ = write!(h, "<pre class=\"text\">{}</pre>", escape(&m.text));
    if !m.files.is_empty() {
        h.push_str("<h2>Files</h2><ul>");
        for f in &m.files {
            let _ = write!(h, "<li><code>{}</code></li>", escape(f));
        }
        h.push_str("</ul>");
    }
    let (facts, episode) = match &o {
        Some(o) => (&o.facts[..], o.episode.as_deref()),
        None => (&[][..], None),
    };
    if !facts.is_empty() {
        h.push_str("<h2>Facts from it</h2><ul class=\"facts\">");
        for f in facts {
            let _ = write!(
                h,
                "<li>{} {} <strong>{}</strong></li>",
                escape(&f.subject),
                escape(&f.predicate),
                escape(&f.object)
            );
        }
        h.push_str("</ul>");
    }
    if let Some(ep) = episode {
        let _ = write!(
            h,
            "<h2>Original message</h2><pre class=\"text\">{}</pre>",
            escape(ep)
        );
    }
    if let Ok(i) = &inspected
        && !i.links.is_empty()
    {
        h.push_str("<h2>Relationships</h2><ul class=\"links\">");
        for l in &i.links {
            let (what, other) = if l.older == id {
                ("Replaced by", l.newer)
            } else {
                ("Replaces", l.older)
            };
            let _ = write!(
                h,
                "<li>{what} <a href=\"/memories/{other}\">#{other}</a> \
                 <span class=\"muted\">{cause} · {when}</span></li>",
                cause = l.cause.as_str(),
                when = time(l.created_at),
            );
        }
        h.push_str("</ul>");
    }
    // The texts an edit replaced, newest first: shown once there is one.
    match &inspected {
        Ok(i) if i.versions.len() > 1 => {
            h.push_str("<h2>Versions</h2><ol class=\"versions\">");
            for v in &i.versions {
                let _ = write!(
                    h,
                    "<li><span class=\"muted\">v{n} · {class} · by {by} · {when}{replaced}</span>\
                     <pre class=\"text\">{text}</pre></li>",
                    n = v.version,
                    class = v.classification,
                    by = escape(&v.source),
                    when = time(v.written_at),
                    replaced = v
                        .replaced_at
                        .map(|at| format!(" · replaced {}", time(at)))
                        .unwrap_or_else(|| " · current".into()),
                    text = escape(&v.text),
                );
            }
            h.push_str("</ol>");
        }
        Ok(_) => {}
        Err(e) => {
            let _ = write!(h, "<p class=\"error\">{}</p>", escape(&e.to_string()));
        }
    }
    h.push_str("<h2>Timeline</h2>");
    let tl = d
        .call(Timeline {
            anchor: Some(id),
            project: Some(m.project.clone()),
            before: Some(5),
            after: Some(5),
            ..Default::default()
        })
        .await;
    match tl {
        Ok(Some(t)) => {
            h.push_str("<ol class=\"timeline\">");
            for r in &t.rows {
                let _ = write!(
                    h,
                    "<li{cls}><a href=\"/memories/{id}\">{title}</a> <span class=\"muted\">{when}{what}</span></li>",
                    cls = if r.id == t.anchor {
                        " class=\"anchor\" aria-current=\"true\""
                    } else {
                        ""
                    },
                    id = r.id,
                    title = escape(&snippet(&r.title, 140)),
                    when = time(r.created_at),
                    what = what(r)
                        .map(|w| format!(" · {}", escape(&w)))
                        .unwrap_or_default(),
                );
            }
            h.push_str("</ol>");
        }
        Ok(None) => h.push_str(
            "<p class=\"muted\">A dismissed memory has no timeline: restore it to see its neighbours.</p>",
        ),
        Err(e) => {
            let _ = write!(h, "<p class=\"error\">{}</p>", escape(&e.to_string()));
        }
    }
    page(&snippet(&m.title, 120), Nav::Memories, notice(&q), &h)
}

async fn new_note(d: St, RawQuery(q): RawQuery) -> Response {
    let d = d.0;
    let q = query(q);
    let names = projects(&d).await;
    let project = field(&q, "project").unwrap_or_else(|| d.state.default_project.clone());
    let types: Vec<&str> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
    let mut list = String::from("<datalist id=\"projects\">");
    for n in &names {
        let _ = write!(list, "<option value=\"{}\">", escape(n));
    }
    list.push_str("</datalist>");
    let body = format!(
        "<form method=\"post\" action=\"/memories\" class=\"stack\">{token}\
         <label>Project <input name=\"project\" value=\"{project}\" list=\"projects\" required></label>{list}\
         <label>Title <input name=\"title\" maxlength=\"400\" placeholder=\"Default: the start of the text\"></label>\
         <label>Type <select name=\"type\">{types}</select></label>\
         <label>Text <textarea name=\"text\" rows=\"8\" required maxlength=\"20000\"></textarea></label>\
         <label class=\"check\"><input type=\"checkbox\" name=\"pinned\" value=\"true\"> Pin it (listed at every session start)</label>\
         <button type=\"submit\">Save note</button></form>",
        token = d.token_field(),
        project = escape(&project),
        types = options(&types, Some("note"), None),
    );
    page("New note", Nav::New, None, &body)
}

async fn save(d: St, body: Bytes) -> Response {
    let d = d.0;
    let f = match d.form(&body) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let mtype = match parsed::<MemoryType>(&f, "type") {
        Ok(t) => t,
        Err(e) => return error_page(&e),
    };
    let req = SaveMemory {
        text: f.get("text").cloned().unwrap_or_default(),
        title: field(&f, "title"),
        project: field(&f, "project"),
        mtype,
        pinned: f.get("pinned").is_some_and(|v| v == "true"),
        kind: Kind::Note,
    };
    match d.call(req).await {
        Ok(s) => done(&format!("/memories/{}?ok=saved", s.id)),
        Err(e) => error_page(&e),
    }
}

async fn edit_form(d: St, Path(id): Path<i64>) -> Response {
    let d = d.0;
    let m = match d.call(GetMemory { id }).await {
        Ok(m) => m,
        Err(e) => return error_page(&e),
    };
    let body = format!(
        "<form method=\"post\" action=\"/memories/{id}/edit\" class=\"stack\">{token}\
         <label>Title <input name=\"title\" maxlength=\"400\" value=\"{title}\"></label>\
         <label>Text <textarea name=\"text\" rows=\"12\" required maxlength=\"20000\">{text}</textarea></label>\
         <button type=\"submit\">Save</button> <a href=\"/memories/{id}\">Cancel</a></form>",
        token = d.token_field(),
        title = escape(&m.title),
        text = escape(&m.text),
    );
    page(&format!("Edit note #{id}"), Nav::Memories, None, &body)
}

async fn edit(d: St, Path(id): Path<i64>, body: Bytes) -> Response {
    let d = d.0;
    let f = match d.form(&body) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let req = EditNote {
        id,
        text: f.get("text").cloned().unwrap_or_default(),
        title: field(&f, "title"),
    };
    match d.call(req).await {
        Ok(_) => done(&format!("/memories/{id}?ok=edited")),
        Err(e) => error_page(&e),
    }
}

async fn act(d: St, Path((id, action)): Path<(i64, String)>, body: Bytes) -> Response {
    let d = d.0;
    if let Err(r) = d.form(&body) {
        return *r;
    }
    let out = match action.as_str() {
        "dismiss" => d
            .call(DismissMemory {
                id,
                item_type: None,
                reason: Some("dismissed in the dashboard".into()),
            })
            .await
            .map(|_| "dismissed"),
        "restore" => d
            .call(RestoreMemory {
                id,
                item_type: None,
            })
            .await
            .map(|_| "restored"),
        "favourite" | "unfavourite" | "positive" | "negative" => {
            let vote = match action.as_str() {
                "favourite" => VoteName::Favourite,
                "unfavourite" => VoteName::Unfavourite,
                "positive" => VoteName::Positive,
                _ => VoteName::Negative,
            };
            d.call(GiveFeedback { id, vote })
                .await
                .map(|_| action.as_str())
        }
        "pin" | "unpin" => d
            .call(PinMemory {
                id,
                pinned: action == "pin",
            })
            .await
            .map(|p| if p.pinned { "pinned" } else { "unpinned" }),
        _ => {
            return error_page(&crate::ops::OpError::NotFound(format!(
                "No action \"{action}\"."
            )));
        }
    };
    match out {
        Ok(code) => done(&format!("/memories/{id}?ok={code}")),
        Err(e) => error_page(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(mtype: MemoryType, kind: Kind) -> Memory {
        Memory {
            id: 1,
            uid: "u1".into(),
            project: "<b>shop</b>".into(),
            kind,
            mtype,
            title: "<script>alert(1)</script>".into(),
            text: "<script>alert(1)</script>".into(),
            host: "api".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            dismissed: false,
            created_at: 1_785_000_000_000,
        }
    }

    #[test]
    fn a_memory_says_what_it_is_in_one_badge_and_never_note_note() {
        let plain = memory(MemoryType::Note, Kind::Note);
        assert_eq!(what(&plain), None);
        assert_eq!(
            what_badge(&plain),
            "<span class=\"badge what\" title=\"type: note · kind: note\">note</span>"
        );
        assert_eq!(
            what(&memory(MemoryType::Note, Kind::Prompt)).as_deref(),
            Some("prompt")
        );
        assert_eq!(
            what(&memory(MemoryType::Decision, Kind::Note)).as_deref(),
            Some("decision note")
        );
        for t in MemoryType::ALL {
            for k in Kind::ALL {
                let m = memory(*t, *k);
                let r = row(&m, None);
                assert_eq!(r.matches("class=\"badge what\"").count(), 1, "{r}");
                assert!(!r.contains(">note note<"), "{r}");
                assert!(!r.contains("<script>") && !r.contains("<b>"), "{r}");
            }
        }
    }
}
