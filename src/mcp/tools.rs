//! The 13 tools: one table of names, descriptions, input schemas and handlers, and one table of
//! classifications that sets each tool's annotations. Handlers take a [`Ctx`] and validated
//! [`Args`] and return text, so the stdio server, the HTTP server and the hub serve the same
//! table.

use super::args::Args;
use crate::model::{Kind, MemoryType, NewMemory};
use crate::recall::{context, facts, observations, rules, search, timeline, wrap};
use crate::redact::{Redacted, Redactor};
use crate::store::Store;
use crate::store::rules::NewRule;
use crate::store::state::ItemType;
use serde_json::{Value, json};

/// What a tool may do, which sets its annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// A write that replaces what was there.
    Destructive,
}

/// Every tool's classification. A tool missing here fails the tests.
pub static CLASSIFICATION: &[(&str, Access)] = &[
    ("search", Access::Read),
    ("timeline", Access::Read),
    ("get_observations", Access::Read),
    ("session_start_context", Access::Read),
    ("fact_history", Access::Read),
    ("list_rules", Access::Read),
    ("work_state_read", Access::Read),
    ("save_memory", Access::Write),
    ("add_rule", Access::Write),
    ("confirm_rule", Access::Write),
    ("dismiss_memory", Access::Write),
    ("restore_memory", Access::Write),
    ("work_state_write", Access::Destructive),
];

/// The classification of a tool, if it has one.
pub fn access(name: &str) -> Option<Access> {
    CLASSIFICATION
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, a)| *a)
}

/// What a handler works with.
pub struct Ctx<'a> {
    pub store: &'a mut Store,
    /// Who calls: stored as a saved memory's tool and a new rule's source.
    pub caller: &'a str,
    /// The project of the server's working directory.
    pub default_project: &'a str,
}

type Handler = fn(&mut Ctx<'_>, &Args<'_>) -> Result<String, String>;

/// One tool.
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: fn() -> Value,
    pub run: Handler,
}

impl Tool {
    /// The tools/list entry.
    pub fn listing(&self) -> Value {
        let access =
            access(self.name).unwrap_or_else(|| panic!("tool {} has no classification", self.name));
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": (self.schema)(),
            "annotations": {
                "readOnlyHint": access == Access::Read,
                "destructiveHint": access == Access::Destructive,
                "idempotentHint": true,
                "openWorldHint": false,
            }
        })
    }
}

fn schema(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
}

const TYPES: &[&str] = &[
    "decision",
    "gotcha",
    "bugfix",
    "feature",
    "refactor",
    "change",
    "discovery",
    "note",
];
const KINDS: &[&str] = &["prompt", "event", "observation", "summary", "note"];
const ITEM_TYPES: &[&str] = &["memory", "observation", "fact", "episode"];

/// The tools, in the order the documentation lists them.
pub static TOOLS: &[Tool] = &[
    Tool {
        name: "search",
        description: "Search memories and facts, or find memories by exact file path. Read-only. Returns an index, one line per hit (#ID DATE [type] title (project, tool)), with matching facts first. Use get_observations for full text.",
        schema: || {
            schema(
                json!({
                    "query": {"type": "string", "description": "Words to search for. Required unless file is set."},
                    "file": {"type": "string", "description": "Exact file path. Then only project, file_suffix and limit apply."},
                    "file_suffix": {"type": "boolean", "default": false, "description": "With file, match paths that end with the text."},
                    "project": {"type": "string", "description": "Project key. Omitted: every project."},
                    "type": {"type": "string", "enum": TYPES},
                    "kind": {"type": "string", "enum": KINDS},
                    "limit": {"type": "number", "default": 20, "minimum": 1, "maximum": 100},
                    "offset": {"type": "number", "default": 0, "minimum": 0},
                    "since": {"type": "string", "description": "ISO 8601 date, date-time or epoch milliseconds."},
                    "until": {"type": "string", "description": "ISO 8601 date, date-time or epoch milliseconds. A bare date includes that day."},
                    "older_than_days": {"type": "number", "description": "Only results older than this. The earlier of this and until wins."},
                    "order": {"type": "string", "enum": ["relevance", "date_desc", "date_asc"], "default": "relevance"}
                }),
                &[],
            )
        },
        run: run_search,
    },
    Tool {
        name: "timeline",
        description: "Show the memories before and after one memory, in time order, with an arrow on the anchor. Read-only.",
        schema: || {
            schema(
                json!({
                    "anchor": {"type": "number", "description": "Memory id from search. Takes priority over query."},
                    "query": {"type": "string", "description": "Finds the anchor when anchor is not given."},
                    "project": {"type": "string", "description": "Limits the lookup and the neighbours."},
                    "before": {"type": "number", "default": 5, "minimum": 0, "maximum": 50},
                    "after": {"type": "number", "default": 5, "minimum": 0, "maximum": 50}
                }),
                &[],
            )
        },
        run: run_timeline,
    },
    Tool {
        name: "get_observations",
        description: "Fetch full text by id: title, project, time, source, narrative, facts and files. Read-only. Pass every id in one call.",
        schema: || {
            schema(
                json!({
                    "ids": {"type": "array", "items": {"type": "number"}, "description": "Memory ids from search or timeline. Unknown ids are skipped."}
                }),
                &["ids"],
            )
        },
        run: run_get_observations,
    },
    Tool {
        name: "session_start_context",
        description: "Load the session-start block for a project: pinned memories, the last session's requests, up to 10 active facts, the enabled rules and recent memories by day, cut to about 6000 characters. Read-only.",
        schema: || {
            schema(
                json!({
                    "project": {"type": "string", "description": "Default: the project of the server's working directory."},
                    "limit": {"type": "number", "default": 20, "minimum": 1, "maximum": 100, "description": "Recent unpinned memories."}
                }),
                &[],
            )
        },
        run: run_session_start_context,
    },
    Tool {
        name: "fact_history",
        description: "Show how the facts about one subject changed. Read-only. Default: current facts only.",
        schema: || {
            schema(
                json!({
                    "subject": {"type": "string", "description": "For example a service or library name."},
                    "project": {"type": "string"},
                    "predicate": {"type": "string"},
                    "as_of": {"type": "string", "description": "Facts valid at an ISO 8601 date or epoch milliseconds. Takes priority over include_superseded."},
                    "include_superseded": {"type": "boolean", "default": false, "description": "Also list replaced facts."}
                }),
                &["subject"],
            )
        },
        run: run_fact_history,
    },
    Tool {
        name: "list_rules",
        description: "List the enabled rules, one per line, with id, date added, source and last-confirmed date. A rule that needs a re-check ends with [re-check: reason]; it stays enabled. Read-only.",
        schema: || schema(json!({}), &[]),
        run: run_list_rules,
    },
    Tool {
        name: "work_state_read",
        description: "Read a list written by work_state_write. Read-only.",
        schema: || {
            schema(
                json!({
                    "list": {"type": "string", "description": "The list name."},
                    "project": {"type": "string", "description": "Default: the working directory's project, else default."}
                }),
                &["list"],
            )
        },
        run: run_work_state_read,
    },
    Tool {
        name: "save_memory",
        description: "Store one durable memory. Write. Secrets are redacted first. Saving the same project, title and text again returns the existing id.",
        schema: || {
            schema(
                json!({
                    "text": {"type": "string", "maxLength": 20000},
                    "title": {"type": "string", "maxLength": 400, "description": "Default: the first 100 characters of text."},
                    "project": {"type": "string", "description": "Default: the working directory's project, else default."},
                    "type": {"type": "string", "enum": TYPES, "default": "note"},
                    "pinned": {"type": "boolean", "default": false, "description": "List it under Pinned in session_start_context."}
                }),
                &["text"],
            )
        },
        run: run_save_memory,
    },
    Tool {
        name: "add_rule",
        description: "Add one standing rule. Write. Check list_rules first; an identical rule is not added twice.",
        schema: || {
            schema(
                json!({
                    "then": {"type": "string", "maxLength": 800, "description": "The rule."},
                    "when": {"type": "string", "description": "The situation. Default: always."},
                    "scopeTier": {"type": "string", "enum": ["everywhere", "project", "situation"], "default": "everywhere"},
                    "scopeName": {"type": "string", "description": "The project or situation name."},
                    "evidence_memory_ids": {"type": "array", "items": {"type": "number"}},
                    "evidence_fact_ids": {"type": "array", "items": {"type": "number"}}
                }),
                &["then"],
            )
        },
        run: run_add_rule,
    },
    Tool {
        name: "confirm_rule",
        description: "Record that a rule was re-checked: only its last-confirmed date changes. Write.",
        schema: || {
            schema(
                json!({ "id": {"type": "string", "description": "A rule id from list_rules."} }),
                &["id"],
            )
        },
        run: run_confirm_rule,
    },
    Tool {
        name: "dismiss_memory",
        description: "Hide an item from search and context without deleting it. Write, reversible with restore_memory.",
        schema: || {
            schema(
                json!({
                    "id": {"type": "number"},
                    "type": {"type": "string", "enum": ITEM_TYPES, "default": "memory"},
                    "reason": {"type": "string", "description": "Kept in the audit trail, cut to 300 characters."}
                }),
                &["id"],
            )
        },
        run: run_dismiss_memory,
    },
    Tool {
        name: "restore_memory",
        description: "Undo dismiss_memory. Write.",
        schema: || {
            schema(
                json!({
                    "id": {"type": "number"},
                    "type": {"type": "string", "enum": ITEM_TYPES, "default": "memory"}
                }),
                &["id"],
            )
        },
        run: run_restore_memory,
    },
    Tool {
        name: "work_state_write",
        description: "Save a named list for a project, such as a to-do list. Write. Writing an existing name replaces all its items, so send the full list.",
        schema: || {
            schema(
                json!({
                    "list": {"type": "string", "description": "The list name, matched exactly after trimming."},
                    "items": {"type": "array", "items": {"anyOf": [
                        {"type": "string"}, {"type": "number"}, {"type": "boolean"},
                        {"type": "object", "additionalProperties": true}
                    ]}, "description": "Strings, numbers, booleans or plain objects."},
                    "project": {"type": "string", "description": "Default: the working directory's project, else default."}
                }),
                &["list", "items"],
            )
        },
        run: run_work_state_write,
    },
];

/// Find a tool by name.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

fn store_err(e: crate::store::StoreError) -> String {
    format!("the store failed: {e}")
}

fn project_or_default(ctx: &Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    Ok(a.str("project")?
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| ctx.default_project.to_owned()))
}

fn run_search(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let query = a.str("query")?.filter(|q| !q.trim().is_empty());
    let file = a.str("file")?.filter(|f| !f.trim().is_empty());
    if query.is_none() && file.is_none() {
        return Err("query is required.".into());
    }
    let offset = a.int("offset")?.unwrap_or(0);
    if offset < 0 {
        return Err("offset must be 0 or more.".into());
    }
    let mut until = a.time("until", true)?;
    if let Some(days) = a.0.get("older_than_days").filter(|v| !v.is_null()) {
        let days = days
            .as_f64()
            .filter(|d| d.is_finite() && *d >= 0.0)
            .ok_or("older_than_days must be a number of days, 0 or more.")?;
        let cutoff = crate::time::now_ms().saturating_sub((days.min(1e7) * 86_400_000.0) as i64);
        until = Some(until.map_or(cutoff, |u| u.min(cutoff)));
    }
    let q = search::SearchQuery {
        query,
        file,
        file_suffix: a.bool("file_suffix")?.unwrap_or(false),
        project: a.str("project")?.filter(|p| !p.trim().is_empty()),
        mtype: a.parsed::<MemoryType>("type")?,
        kind: a.parsed::<Kind>("kind")?,
        since: a.time("since", false)?,
        until,
        limit: a.clamped("limit", 20, 1, 100)? as usize,
        offset: offset.min(1_000_000) as usize,
        order: a.parsed::<search::Order>("order")?.unwrap_or_default(),
        raw: false,
    };
    let r = search::search(ctx.store, &q).map_err(store_err)?;
    if r.hits.is_empty() && r.facts.is_empty() {
        return Ok(format!("No matches. {}", r.reason.unwrap_or_default()));
    }
    let mut lines: Vec<String> = r
        .facts
        .iter()
        .map(|f| format!("fact #{} {}", f.id, f.line()))
        .collect();
    lines.extend(r.hits.iter().map(|h| search::hit_line(&h.memory)));
    Ok(wrap::wrap(&lines.join("\n")))
}

fn run_timeline(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let q = timeline::TimelineQuery {
        anchor: a.int("anchor")?,
        query: a.str("query")?,
        project: a.str("project")?.filter(|p| !p.trim().is_empty()),
        before: a.clamped("before", 5, 0, timeline::MAX_SIDE as i64)? as usize,
        after: a.clamped("after", 5, 0, timeline::MAX_SIDE as i64)? as usize,
    };
    if q.anchor.is_none() && q.query.as_deref().is_none_or(|s| s.trim().is_empty()) {
        return Err("anchor or query is required.".into());
    }
    match timeline::timeline(ctx.store, &q).map_err(store_err)? {
        Some(t) => Ok(wrap::wrap(&timeline::render(&t))),
        None => Ok("Nothing to anchor on.".into()),
    }
}

fn run_get_observations(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let ids = a.ids("ids")?.ok_or("ids is required.")?;
    if ids.is_empty() {
        return Err("ids is required: give at least one memory id.".into());
    }
    if ids.len() > 100 {
        return Err("ids takes at most 100 ids per call.".into());
    }
    match observations::render(ctx.store, &ids).map_err(store_err)? {
        Some(text) => Ok(wrap::wrap(&text)),
        None => Ok("No memories with those ids.".into()),
    }
}

fn run_session_start_context(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let mut opts = context::ContextOptions::for_project(&project_or_default(ctx, a)?, ctx.caller);
    opts.limit = a.clamped("limit", 20, 1, 100)? as usize;
    context::build(ctx.store, &opts).map_err(store_err)
}

fn run_fact_history(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let q = facts::HistoryQuery {
        subject: a.required_str("subject")?,
        project: a.str("project")?.filter(|p| !p.trim().is_empty()),
        predicate: a.str("predicate")?.filter(|p| !p.trim().is_empty()),
        as_of: a.time("as_of", false)?,
        include_superseded: a.bool("include_superseded")?.unwrap_or(false),
    };
    let found = facts::history(ctx.store, &q).map_err(store_err)?;
    if found.is_empty() {
        return Ok(format!("No facts found for subject \"{}\".", q.subject));
    }
    let lines: Vec<String> = found
        .iter()
        .map(|f| format!("- #{} {} [{}]", f.id, f.line(), f.project))
        .collect();
    Ok(wrap::wrap(&lines.join("\n")))
}

fn run_list_rules(ctx: &mut Ctx<'_>, _a: &Args<'_>) -> Result<String, String> {
    let list = rules::enabled(ctx.store, None).map_err(store_err)?;
    if list.is_empty() {
        return Ok("No rules yet. add_rule adds one.".into());
    }
    let lines: Vec<String> = list
        .iter()
        .map(|r| {
            let mut s = format!(
                "- {}  {}  (id {}, added {}, source: {}, last confirmed {})",
                r.context_line(),
                r.scope(),
                r.id,
                crate::time::date(r.created_at),
                r.source,
                crate::time::date(r.confirmed_at)
            );
            if let Some(why) = &r.recheck {
                s.push_str(&format!("  [re-check: {why}]"));
            }
            s
        })
        .collect();
    Ok(lines.join("\n"))
}

fn run_work_state_read(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let name = a.required_str("list")?.trim().to_owned();
    let project = project_or_default(ctx, a)?;
    match ctx.store.read_list(&project, &name).map_err(store_err)? {
        Some(items) => Ok(items),
        None => Ok(format!("No list named \"{name}\".")),
    }
}

fn run_save_memory(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let text = a.required_str("text")?;
    if text.chars().count() > crate::cli::save::TEXT_MAX_CHARS {
        return Err(format!(
            "text is over {} characters.",
            crate::cli::save::TEXT_MAX_CHARS
        ));
    }
    let title = a
        .str_max("title", crate::model::TITLE_MAX_CHARS)?
        .filter(|t| !t.trim().is_empty());
    let project = project_or_default(ctx, a)?;
    let m = NewMemory {
        project: project.clone(),
        kind: Kind::Note,
        mtype: a.parsed::<MemoryType>("type")?.unwrap_or(MemoryType::Note),
        title: title.unwrap_or_else(|| crate::model::cut_chars(text.trim(), 100)),
        text: text.trim().replace('\0', ""),
        tool: ctx.caller.to_owned(),
        session_id: None,
        files: vec![],
        pinned: a.bool("pinned")?.unwrap_or(false),
        created_at: crate::time::now_ms(),
    };
    let ins = ctx
        .store
        .insert(&Redacted::memory(m, Redactor::global()))
        .map_err(store_err)?;
    Ok(if ins.new {
        format!("Saved as #{} in {project}.", ins.id)
    } else {
        format!("Already saved as #{}.", ins.id)
    })
}

/// The longest rule text.
pub const RULE_MAX_CHARS: usize = 800;

fn run_add_rule(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let then = a.required_str("then")?;
    if then.chars().count() > RULE_MAX_CHARS {
        return Err(format!("then is over {RULE_MAX_CHARS} characters."));
    }
    let when = a
        .str_max("when", RULE_MAX_CHARS)?
        .filter(|w| !w.trim().is_empty())
        .unwrap_or_else(|| "always".into());
    let tier = a.str("scopeTier")?.unwrap_or_else(|| "everywhere".into());
    if !["everywhere", "project", "situation"].contains(&tier.as_str()) {
        return Err(format!(
            "scopeTier: unknown \"{tier}\": use everywhere, project or situation."
        ));
    }
    let name = a.str_max("scopeName", 200)?.unwrap_or_default();
    if tier != "everywhere" && name.trim().is_empty() {
        return Err(format!("scopeName is required with scopeTier \"{tier}\"."));
    }
    let memory_ids = a.ids("evidence_memory_ids")?.unwrap_or_default();
    let fact_ids = a.ids("evidence_fact_ids")?.unwrap_or_default();
    for id in &memory_ids {
        if !ctx.store.exists("memories", *id).map_err(store_err)? {
            return Err(format!("evidence_memory_ids: no memory #{id}."));
        }
    }
    for id in &fact_ids {
        if !ctx.store.exists("facts", *id).map_err(store_err)? {
            return Err(format!("evidence_fact_ids: no fact #{id}."));
        }
    }
    let r = Redactor::global();
    let rule = NewRule {
        when: r.redact(when.trim()),
        then: r.redact(then.trim()),
        scope_tier: tier.clone(),
        scope_name: if tier == "everywhere" {
            String::new()
        } else {
            name.trim().to_owned()
        },
        source: ctx.caller.to_owned(),
        evidence: json!({ "memories": memory_ids, "facts": fact_ids }),
    };
    let (id, new) = ctx
        .store
        .add_rule(&rule, crate::time::now_ms())
        .map_err(store_err)?;
    Ok(if new {
        format!("Rule saved ({id}). The owner syncs rules to tools from the Rules page.")
    } else {
        format!("That rule is already saved ({id}).")
    })
}

fn run_confirm_rule(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let id = a.required_str("id")?.trim().to_owned();
    let now = crate::time::now_ms();
    if !ctx.store.confirm_rule(&id, now).map_err(store_err)? {
        return Err(format!(
            "No rule with id \"{id}\". list_rules shows the ids."
        ));
    }
    Ok(format!(
        "Confirmed rule {id} on {}. It stays as it is; only the date it was last checked changed.",
        crate::time::date(now)
    ))
}

fn item(a: &Args<'_>) -> Result<(i64, ItemType), String> {
    let id = a.int("id")?.ok_or("id is required.")?;
    Ok((
        id,
        a.parsed::<ItemType>("type")?.unwrap_or(ItemType::Memory),
    ))
}

fn run_dismiss_memory(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let (id, t) = item(a)?;
    let reason = a.str("reason")?;
    if !ctx
        .store
        .set_dismissed(
            t,
            id,
            true,
            reason.as_deref(),
            ctx.caller,
            crate::time::now_ms(),
        )
        .map_err(store_err)?
    {
        return Err(format!("No {} #{id}.", t.as_str()));
    }
    Ok(format!(
        "Dismissed {} #{id}. It is hidden from search and context; restore_memory undoes this.",
        t.as_str()
    ))
}

fn run_restore_memory(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let (id, t) = item(a)?;
    if !ctx
        .store
        .set_dismissed(t, id, false, None, ctx.caller, crate::time::now_ms())
        .map_err(store_err)?
    {
        return Err(format!("No {} #{id}.", t.as_str()));
    }
    Ok(format!("Restored {} #{id}.", t.as_str()))
}

fn run_work_state_write(ctx: &mut Ctx<'_>, a: &Args<'_>) -> Result<String, String> {
    let name = a.required_str("list")?.trim().to_owned();
    if name.chars().count() > 200 {
        return Err("list is over 200 characters.".into());
    }
    let items = match a.0.get("items") {
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => return Err("items is required.".into()),
        Some(_) => return Err("items must be an array.".into()),
    };
    for (i, item) in items.iter().enumerate() {
        let plain = match item {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
            Value::Object(map) => map
                .values()
                .all(|v| !matches!(v, Value::Object(_) | Value::Array(_))),
            _ => false,
        };
        if !plain {
            return Err(format!(
                "items[{i}] must be a string, number, boolean or plain object."
            ));
        }
    }
    let value = Value::Array(items.clone());
    if value.to_string().len() > 100_000 {
        return Err("items are over 100000 characters as JSON.".into());
    }
    let project = project_or_default(ctx, a)?;
    let id = ctx
        .store
        .write_list(&project, &name, &value, ctx.caller, crate::time::now_ms())
        .map_err(store_err)?;
    Ok(format!(
        "Saved list \"{name}\" with {} item(s) as #{id}.",
        items.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_classified_and_every_classification_names_a_tool() {
        assert_eq!(TOOLS.len(), 13);
        for t in TOOLS {
            assert!(access(t.name).is_some(), "{} has no classification", t.name);
        }
        for (name, _) in CLASSIFICATION {
            assert!(find(name).is_some(), "{name} is classified but not a tool");
        }
    }

    #[test]
    fn annotations_follow_the_classification() {
        for t in TOOLS {
            let a = &t.listing()["annotations"];
            match access(t.name).unwrap() {
                Access::Read => assert_eq!(a["readOnlyHint"], true, "{}", t.name),
                Access::Write => {
                    assert_eq!(
                        (
                            a["readOnlyHint"].as_bool(),
                            a["destructiveHint"].as_bool(),
                            a["idempotentHint"].as_bool()
                        ),
                        (Some(false), Some(false), Some(true)),
                        "{}",
                        t.name
                    )
                }
                Access::Destructive => assert_eq!(a["destructiveHint"], true, "{}", t.name),
            }
        }
        assert_eq!(access("work_state_write"), Some(Access::Destructive));
    }
}
