//! Tending the store by hand, as the dashboard does: browse memories without a query, list the
//! projects and the facts, pin a memory, edit a note, and turn a rule off or on again.
//!
//! Like every operation these check the caller's projects: another project's item is as unknown
//! as a missing one, and a listing without a project is the caller's default project for a
//! caller limited to some.

use super::policy::{self, LIMIT, MAX_OFFSET, TEXT_MAX_CHARS, TITLE_MAX_CHARS};
use super::{Access, Context, OpError, Operation};
use crate::model::{Kind, Memory, MemoryType, NewMemory};
use crate::recall::facts::Fact;
use crate::recall::rules::Rule;
use crate::redact::Redacted;
use crate::store::state::ItemType;
use crate::store::{COLUMNS, from_row};
use rusqlite::{OptionalExtension, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which memories a listing shows by their dismissed flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shown {
    /// Those not dismissed.
    #[default]
    Active,
    /// Pinned ones not dismissed.
    Pinned,
    /// Dismissed ones only.
    Dismissed,
    /// Every memory.
    All,
}

impl std::str::FromStr for Shown {
    type Err = String;
    fn from_str(s: &str) -> Result<Shown, String> {
        match s {
            "active" => Ok(Shown::Active),
            "pinned" => Ok(Shown::Pinned),
            "dismissed" => Ok(Shown::Dismissed),
            "all" => Ok(Shown::All),
            other => Err(format!(
                "unknown \"{other}\": use active, pinned, dismissed or all."
            )),
        }
    }
}

crate::serde_via_from_str!(Shown, ["active", "pinned", "dismissed", "all"]);

/// `browse_memories`: memories newest first, without a query.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BrowseMemories {
    /// Project key. Omitted: every project.
    pub project: Option<String>,
    /// decision, gotcha, bugfix, feature, refactor, change, discovery or note.
    #[serde(rename = "type")]
    pub mtype: Option<MemoryType>,
    /// prompt, event, observation, summary or note.
    pub kind: Option<Kind>,
    /// active, pinned, dismissed or all.
    #[schemars(extend("default" = "active"))]
    pub show: Option<Shown>,
    /// 1 to 100.
    #[schemars(extend("default" = 20, "minimum" = 1, "maximum" = 100))]
    pub limit: Option<i64>,
    /// Rows to skip.
    #[schemars(extend("default" = 0, "minimum" = 0))]
    pub offset: Option<i64>,
}

/// A page of memories, and whether there are more after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryPage {
    pub memories: Vec<Memory>,
    pub more: bool,
}

impl Operation for BrowseMemories {
    const NAME: &'static str = "browse_memories";
    const DESCRIPTION: &'static str = "List memories newest first, by project, type, kind and whether they are pinned or dismissed, without a query. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = MemoryPage;

    fn run(self, ctx: &mut Context<'_>) -> Result<MemoryPage, OpError> {
        let project = ctx.caller.project_filter(self.project.as_deref())?;
        let offset = self.offset.unwrap_or(0);
        if offset < 0 {
            return Err(OpError::InvalidArgument("offset must be 0 or more.".into()));
        }
        let limit = LIMIT.clamp(self.limit);
        let shown = match self.show.unwrap_or_default() {
            Shown::Active => "dismissed = 0",
            Shown::Pinned => "dismissed = 0 AND pinned = 1",
            Shown::Dismissed => "dismissed = 1",
            Shown::All => "1",
        };
        let store = &*ctx.store;
        let mut stmt = store
            .conn()
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM memories
                 WHERE (?1 IS NULL OR project = ?1) AND (?2 IS NULL OR type = ?2)
                   AND (?3 IS NULL OR kind = ?3) AND {shown}
                 ORDER BY created_at DESC, id DESC LIMIT ?4 OFFSET ?5"
            ))
            .map_err(|e| store.err(e))?;
        let rows = stmt
            .query_map(
                params![
                    project,
                    self.mtype.map(MemoryType::as_str),
                    self.kind.map(Kind::as_str),
                    limit as i64 + 1,
                    offset.min(MAX_OFFSET)
                ],
                from_row,
            )
            .map_err(|e| store.err(e))?;
        let mut memories: Vec<Memory> = rows.collect::<Result<_, _>>().map_err(|e| store.err(e))?;
        let more = memories.len() > limit;
        memories.truncate(limit);
        Ok(MemoryPage { memories, more })
    }
}

/// `list_projects`: the projects that hold memories, with how many each holds.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ListProjects {}

/// One project and its memories (dismissed ones included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectCount {
    pub project: String,
    pub memories: i64,
}

impl Operation for ListProjects {
    const NAME: &'static str = "list_projects";
    const DESCRIPTION: &'static str =
        "List the projects that hold memories, with how many each holds. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Vec<ProjectCount>;

    fn run(self, ctx: &mut Context<'_>) -> Result<Vec<ProjectCount>, OpError> {
        let store = &*ctx.store;
        let mut stmt = store
            .conn()
            .prepare_cached(
                "SELECT project, count(*) FROM memories GROUP BY project ORDER BY project",
            )
            .map_err(|e| store.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(ProjectCount {
                    project: r.get(0)?,
                    memories: r.get(1)?,
                })
            })
            .map_err(|e| store.err(e))?;
        let all: Vec<ProjectCount> = rows.collect::<Result<_, _>>().map_err(|e| store.err(e))?;
        Ok(all
            .into_iter()
            .filter(|p| ctx.caller.may_see(&p.project))
            .collect())
    }
}

/// `list_facts`: the facts of a project, newest first.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ListFacts {
    /// Project key. Omitted: every project.
    pub project: Option<String>,
    /// Only subjects containing this text.
    pub subject: Option<String>,
    /// Also list replaced and dismissed facts.
    #[serde(default)]
    pub include_superseded: bool,
    /// 1 to 100.
    #[schemars(extend("default" = 20, "minimum" = 1, "maximum" = 100))]
    pub limit: Option<i64>,
}

/// A fact as listed: the fact and whether it is dismissed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedFact {
    #[serde(flatten)]
    pub fact: Fact,
    pub dismissed: bool,
}

impl Operation for ListFacts {
    const NAME: &'static str = "list_facts";
    const DESCRIPTION: &'static str = "List the facts of a project (or every project), newest first: current ones only unless include_superseded. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Vec<ListedFact>;

    fn run(self, ctx: &mut Context<'_>) -> Result<Vec<ListedFact>, OpError> {
        let project = ctx.caller.project_filter(self.project.as_deref())?;
        let subject = policy::optional(self.subject).map(|s| s.trim().to_owned());
        let limit = LIMIT.clamp(self.limit);
        let current = if self.include_superseded {
            "1"
        } else {
            "valid_to IS NULL AND dismissed = 0"
        };
        let store = &*ctx.store;
        let mut stmt = store
            .conn()
            .prepare_cached(&format!(
                "SELECT id, project, subject, predicate, object, confidence, source, memory_id,
                        valid_from, valid_to, created_at, superseded_at, dismissed
                 FROM facts
                 WHERE (?1 IS NULL OR project = ?1) AND (?2 IS NULL OR instr(lower(subject), lower(?2)) > 0)
                   AND {current}
                 ORDER BY valid_from DESC, id DESC LIMIT ?3"
            ))
            .map_err(|e| store.err(e))?;
        let rows = stmt
            .query_map(params![project, subject, limit as i64], |r| {
                Ok(ListedFact {
                    fact: Fact {
                        id: r.get(0)?,
                        project: r.get(1)?,
                        subject: r.get(2)?,
                        predicate: r.get(3)?,
                        object: r.get(4)?,
                        confidence: r.get(5)?,
                        source: r.get(6)?,
                        memory_id: r.get(7)?,
                        valid_from: r.get(8)?,
                        valid_to: r.get(9)?,
                        recorded_at: r.get(10)?,
                        superseded_at: r.get(11)?,
                    },
                    dismissed: r.get(12)?,
                })
            })
            .map_err(|e| store.err(e))?;
        Ok(rows.collect::<Result<_, _>>().map_err(|e| store.err(e))?)
    }
}

/// `pin_memory`: list a memory under Pinned at session start, or stop.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PinMemory {
    /// The memory id.
    pub id: i64,
    /// false unpins.
    #[serde(default = "yes")]
    #[schemars(extend("default" = true))]
    pub pinned: bool,
}

fn yes() -> bool {
    true
}

/// A memory whose pinned flag was set or cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pinned {
    pub id: i64,
    pub pinned: bool,
}

/// Refuse an id the caller cannot see as the missing memory it is to it.
fn visible_memory(ctx: &Context<'_>, id: i64) -> Result<(), OpError> {
    match ctx.store.item_project(ItemType::Memory, id)? {
        Some(p) if ctx.caller.may_see(&p) => Ok(()),
        _ => Err(OpError::NotFound(format!("No memory #{id}."))),
    }
}

impl Operation for PinMemory {
    const NAME: &'static str = "pin_memory";
    const DESCRIPTION: &'static str = "Pin a memory (listed under Pinned at every session start of its project), or unpin it with pinned false. Write.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Pinned;

    fn run(self, ctx: &mut Context<'_>) -> Result<Pinned, OpError> {
        visible_memory(ctx, self.id)?;
        let (id, pinned) = (self.id, self.pinned);
        ctx.store.write(|tx| {
            tx.execute(
                "UPDATE memories SET pinned = ?2 WHERE id = ?1",
                params![id, pinned],
            )
        })?;
        Ok(Pinned { id, pinned })
    }
}

/// `edit_note`: replace a note's text (and title).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct EditNote {
    /// A note's memory id (kind note).
    pub id: i64,
    /// The new text, up to 20000 characters.
    #[schemars(length(max = 20000))]
    pub text: String,
    /// Up to 400 characters. Default: the first 100 characters of text.
    #[schemars(length(max = 400))]
    pub title: Option<String>,
}

/// A note after its edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edited {
    pub id: i64,
    pub title: String,
}

impl Operation for EditNote {
    const NAME: &'static str = "edit_note";
    const DESCRIPTION: &'static str = "Replace a note's text and title. Secrets are redacted first. Only notes (kind note) can be edited; what hooks captured stays as it was. Destructive: the old text is not kept.";
    const ACCESS: Access = Access::Destructive;
    const IDEMPOTENT: bool = true;
    type Output = Edited;

    fn run(self, ctx: &mut Context<'_>) -> Result<Edited, OpError> {
        let text = policy::required("text", Some(&self.text.replace('\0', "")))?;
        policy::check_length("text", &text, TEXT_MAX_CHARS)?;
        if let Some(t) = &self.title {
            policy::check_length("title", t, TITLE_MAX_CHARS)?;
        }
        visible_memory(ctx, self.id)?;
        let Some(old) = ctx.store.get_many(&[self.id])?.into_iter().next() else {
            return Err(OpError::NotFound(format!("No memory #{}.", self.id)));
        };
        if old.kind != Kind::Note {
            return Err(OpError::InvalidArgument(format!(
                "#{} is a {}, not a note: only notes can be edited (dismiss it instead).",
                self.id, old.kind
            )));
        }
        let text = text.trim().to_owned();
        let (title, cut) = policy::title(self.title.as_deref(), &text);
        let m = NewMemory {
            project: old.project,
            kind: old.kind,
            mtype: old.mtype,
            title,
            text,
            host: old.host,
            session_id: old.session_id,
            files: old.files,
            pinned: old.pinned,
            created_at: old.created_at,
        };
        let m = Redacted::new(m, ctx.redactor).with_title_cut(cut);
        let m = m.get();
        let hash = crate::store::content_hash(&m.title, &m.text);
        let id = self.id;
        let clash: Option<i64> = ctx
            .store
            .conn()
            .query_row(
                "SELECT id FROM memories WHERE project = ?1 AND kind = ?2 AND content_hash = ?3 AND id != ?4",
                params![m.project, m.kind.as_str(), hash, id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| ctx.store.err(e))?;
        if let Some(other) = clash {
            return Err(OpError::Conflict(format!(
                "Note #{other} already holds that title and text."
            )));
        }
        ctx.store.write(|tx| {
            tx.execute(
                "UPDATE memories SET title = ?2, text = ?3, content_hash = ?4 WHERE id = ?1",
                params![id, m.title, m.text, hash],
            )
        })?;
        Ok(Edited {
            id,
            title: m.title.clone(),
        })
    }
}

/// `list_all_rules`: every rule, the disabled ones too.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ListAllRules {}

/// A rule and whether it is enabled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedRule {
    #[serde(flatten)]
    pub rule: Rule,
    pub enabled: bool,
}

impl Operation for ListAllRules {
    const NAME: &'static str = "list_all_rules";
    const DESCRIPTION: &'static str = "List every rule, enabled or not, oldest first. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Vec<ListedRule>;

    fn run(self, ctx: &mut Context<'_>) -> Result<Vec<ListedRule>, OpError> {
        // As list_rules: a caller limited to projects sees those of its default project.
        let project = ctx.caller.project_filter(None)?;
        let store = &*ctx.store;
        let mut stmt = store
            .conn()
            .prepare_cached(
                "SELECT id, when_text, then_text, scope_tier, scope_name, source, recheck, created_at, confirmed_at, enabled
                 FROM rules WHERE (?1 IS NULL OR scope_tier != 'project' OR scope_name = ?1)
                 ORDER BY created_at, id",
            )
            .map_err(|e| store.err(e))?;
        let rows = stmt
            .query_map([project], |r| {
                Ok(ListedRule {
                    rule: Rule {
                        id: r.get(0)?,
                        when: r.get(1)?,
                        then: r.get(2)?,
                        scope_tier: r.get(3)?,
                        scope_name: r.get(4)?,
                        source: r.get(5)?,
                        recheck: r.get(6)?,
                        created_at: r.get(7)?,
                        confirmed_at: r.get(8)?,
                    },
                    enabled: r.get(9)?,
                })
            })
            .map_err(|e| store.err(e))?;
        Ok(rows.collect::<Result<_, _>>().map_err(|e| store.err(e))?)
    }
}

/// `set_rule_enabled`: turn a rule off (it is kept, and no longer listed or synced) or on.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SetRuleEnabled {
    /// A rule id from list_all_rules.
    pub id: String,
    /// false disables the rule, true enables it again.
    pub enabled: bool,
}

/// A rule and whether it is now enabled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleEnabled {
    pub id: String,
    pub enabled: bool,
}

impl Operation for SetRuleEnabled {
    const NAME: &'static str = "set_rule_enabled";
    const DESCRIPTION: &'static str = "Disable a rule (kept, but no longer listed at session start or synced) or enable it again. Write.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = RuleEnabled;

    fn run(self, ctx: &mut Context<'_>) -> Result<RuleEnabled, OpError> {
        let id = policy::required("id", Some(&self.id))?.trim().to_owned();
        let missing = || {
            OpError::NotFound(format!(
                "No rule with id \"{id}\". list_all_rules shows the ids."
            ))
        };
        let Some((tier, name)) = ctx.store.rule_scope(&id)? else {
            return Err(missing());
        };
        // As confirm_rule: another project's rule is unknown; a caller limited to projects may
        // change only its projects' rules.
        if tier == "project" && !ctx.caller.may_see(&name) {
            return Err(missing());
        }
        if ctx.caller.projects.is_some() && tier != "project" {
            return Err(OpError::Forbidden(format!(
                "A caller limited to projects can only change project rules, not {tier} rules."
            )));
        }
        let enabled = self.enabled;
        let changed = ctx.store.write(|tx| {
            tx.execute(
                "UPDATE rules SET enabled = ?2 WHERE id = ?1",
                params![id, enabled],
            )
        })?;
        if changed == 0 {
            return Err(missing());
        }
        Ok(RuleEnabled { id, enabled })
    }
}

/// `get_memory`: one memory by id, dismissed or not (get_observations skips dismissed ones).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct GetMemory {
    /// The memory id.
    pub id: i64,
}

impl Operation for GetMemory {
    const NAME: &'static str = "get_memory";
    const DESCRIPTION: &'static str =
        "Fetch one memory by id, a dismissed one too, so that it can be restored. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Memory;

    fn run(self, ctx: &mut Context<'_>) -> Result<Memory, OpError> {
        visible_memory(ctx, self.id)?;
        ctx.store
            .get_many(&[self.id])?
            .into_iter()
            .next()
            .ok_or_else(|| OpError::NotFound(format!("No memory #{}.", self.id)))
    }
}
