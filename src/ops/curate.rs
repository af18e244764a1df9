//! Tending the store by hand, as the dashboard does: browse memories without a query, list the
//! projects and the facts, pin a memory, edit a note, and turn a rule off or on again.
//!
//! Like every operation these check the caller's projects: another project's item is as unknown
//! as a missing one, and a listing without a project is the caller's default project for a
//! caller limited to some.

use super::policy::{self, LIMIT, MAX_OFFSET, TEXT_MAX_CHARS, TITLE_MAX_CHARS};
use super::rules::check_scope;
use super::{Access, Context, OpError, Operation};
use crate::model::{Kind, Memory, MemoryType, NewMemory};
use crate::recall::facts::Fact;
use crate::recall::rules::Rule;
use crate::redact::Redacted;
use crate::store::MemoryFilter;
use crate::store::state::ItemType;
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
        let project = ctx
            .caller
            .project_filter(self.project.as_deref(), ctx.redactor)?;
        let offset = self.offset.unwrap_or(0);
        if offset < 0 {
            return Err(OpError::InvalidArgument("offset must be 0 or more.".into()));
        }
        let limit = LIMIT.clamp(self.limit);
        let (dismissed, pinned_only) = match self.show.unwrap_or_default() {
            Shown::Active => (Some(false), false),
            Shown::Pinned => (Some(false), true),
            Shown::Dismissed => (Some(true), false),
            Shown::All => (None, false),
        };
        let filter = MemoryFilter {
            project: project.as_deref(),
            mtype: self.mtype,
            kind: self.kind,
            dismissed,
            pinned_only,
        };
        let mut memories = ctx
            .store
            .browse(&filter, limit + 1, offset.min(MAX_OFFSET))?;
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
        Ok(ctx
            .store
            .project_counts()?
            .into_iter()
            .filter(|(project, _)| ctx.caller.may_see(project))
            .map(|(project, memories)| ProjectCount { project, memories })
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
        let project = ctx
            .caller
            .project_filter(self.project.as_deref(), ctx.redactor)?;
        let subject = policy::optional(self.subject).map(|s| s.trim().to_owned());
        let limit = LIMIT.clamp(self.limit);
        Ok(ctx
            .store
            .list_facts(
                project.as_deref(),
                subject.as_deref(),
                self.include_superseded,
                limit,
            )?
            .into_iter()
            .map(|(fact, dismissed)| ListedFact { fact, dismissed })
            .collect())
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
        ctx.store.set_pinned(id, pinned)?;
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
    const DESCRIPTION: &'static str = "Replace a note's text and title. Secrets are redacted first. Only notes (kind note) can be edited; what hooks captured stays as it was. The old text is kept as a version (inspect).";
    const ACCESS: Access = Access::Write;
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
            // Who writes the new text: the store keeps it as the version's source.
            host: ctx.caller.name.clone(),
            session_id: old.session_id,
            files: old.files,
            pinned: old.pinned,
            created_at: old.created_at,
        };
        let m = Redacted::new(m, ctx.redactor).with_title_cut(cut);
        let id = self.id;
        if let Some(other) = ctx.store.content_twin(id, &m)? {
            return Err(OpError::Conflict(format!(
                "Note #{other} already holds that title and text."
            )));
        }
        ctx.store.replace_text(id, &m, ctx.clock.now())?;
        Ok(Edited {
            id,
            title: m.get().title.clone(),
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
        let project = ctx.caller.project_filter(None, ctx.redactor)?;
        Ok(ctx
            .store
            .all_rules(project.as_deref())?
            .into_iter()
            .map(|(rule, enabled)| ListedRule { rule, enabled })
            .collect())
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
        check_scope(&ctx.caller, &tier, &name)?;
        let enabled = self.enabled;
        if !ctx.store.set_rule_enabled(&id, enabled)? {
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
