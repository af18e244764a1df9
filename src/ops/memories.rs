//! The write operations on single memories: save_memory (also behind `aletheia save` and
//! `aletheia capture`), dismiss_memory and restore_memory.

use super::policy::{self, TEXT_MAX_CHARS, TITLE_MAX_CHARS};
use super::trust::{Pending, Proposable, Subject};
use super::{Access, Context, OpError, Operation};
use crate::model::{Kind, MemoryType, NewMemory};
use crate::redact::Redacted;
use crate::store::state::{AuditEntry, ItemType};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `save_memory`: store one durable memory.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SaveMemory {
    /// The memory, up to 20000 characters.
    #[schemars(length(max = 20000))]
    pub text: String,
    /// Up to 400 characters. Default: the first 100 characters of text.
    #[schemars(length(max = 400))]
    pub title: Option<String>,
    /// Default: the working directory's project, else default.
    pub project: Option<String>,
    /// decision, gotcha, bugfix, feature, refactor, change, discovery or note.
    #[serde(rename = "type")]
    #[schemars(extend("default" = "note"))]
    pub mtype: Option<MemoryType>,
    /// List it under Pinned in session_start_context.
    #[serde(default)]
    pub pinned: bool,
    /// Where it came from: a note, unless `aletheia capture` says otherwise.
    #[serde(skip, default = "note_kind")]
    pub kind: Kind,
}

fn note_kind() -> Kind {
    Kind::Note
}

/// Where a memory was saved, and whether it was already there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Saved {
    pub id: i64,
    pub project: String,
    pub new: bool,
    /// The older memories it replaces (see `supersession`), marked as replaced by it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<i64>,
    /// Why it could not be compared with older memories, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchecked: Option<String>,
}

impl Operation for SaveMemory {
    const NAME: &'static str = "save_memory";
    const DESCRIPTION: &'static str = "Store one durable memory. Write. Secrets are redacted first. Saving the same project, title and text again returns the existing id.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Saved;

    fn run(self, ctx: &mut Context<'_>) -> Result<Saved, OpError> {
        let m = self.memory(ctx)?;
        let ins = ctx.store.insert(&m)?;
        let saved = if ins.new {
            ctx.store.get_many(&[ins.id]).unwrap_or_default()
        } else {
            Vec::new()
        };
        // The memory is stored whatever happens next: a failure to compare it is said, not
        // returned as the save's error.
        let (replaces, unchecked) = match saved.first() {
            Some(saved) => match super::supersede::link_replaced(ctx.store, saved, ctx.clock.now())
            {
                Ok(ids) => (ids, None),
                Err(e) => (Vec::new(), Some(e.to_string())),
            },
            None => (Vec::new(), None),
        };
        Ok(Saved {
            id: ins.id,
            project: m.get().project.clone(),
            new: ins.new,
            replaces,
            unchecked,
        })
    }
}

impl SaveMemory {
    /// The memory this request stores, checked and redacted.
    fn memory(&self, ctx: &Context<'_>) -> Result<Redacted<NewMemory>, OpError> {
        // NUL bytes are dropped before the checks, so text of nothing but NULs is no text.
        let text = policy::required("text", Some(&self.text.replace('\0', "")))?;
        policy::check_length("text", &text, TEXT_MAX_CHARS)?;
        if let Some(t) = &self.title {
            policy::check_length("title", t, TITLE_MAX_CHARS)?;
        }
        let project = ctx
            .caller
            .project_or_default(self.project.as_deref(), ctx.redactor)?;
        let text = text.trim().to_owned();
        let (title, cut) = policy::title(self.title.as_deref(), &text);
        let m = NewMemory {
            project,
            kind: self.kind,
            mtype: self.mtype.unwrap_or(MemoryType::Note),
            title,
            text,
            host: ctx.caller.name.clone(),
            session_id: None,
            files: vec![],
            pinned: self.pinned,
            created_at: ctx.clock.now(),
        };
        Ok(Redacted::new(m, ctx.redactor).with_title_cut(cut))
    }
}

impl Proposable for SaveMemory {
    const SUBJECT: Subject = Subject::Memories;

    fn pending(&self, ctx: &mut Context<'_>) -> Result<Pending, OpError> {
        let m = self.memory(ctx)?;
        let m = m.get();
        // The text, not only the title the client chose: what the owner accepts is what it reads.
        let title = m.title.replace('\n', " ");
        let flat = m.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = if flat == title {
            String::new()
        } else {
            format!(": {}", crate::model::cut_chars(&flat, 300))
        };
        Ok(Pending {
            project: m.project.clone(),
            summary: format!(
                "memory [{}]{} {title}{text}",
                m.mtype,
                if m.pinned { " pinned" } else { "" },
            ),
            reference: None,
            same_as: None,
        })
    }
}

/// `dismiss_memory`: hide an item from search and context without deleting it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DismissMemory {
    /// The item id.
    pub id: i64,
    /// memory, observation, fact or episode.
    #[serde(rename = "type")]
    #[schemars(extend("default" = "memory"))]
    pub item_type: Option<ItemType>,
    /// Kept in the audit trail, cut to 300 characters.
    pub reason: Option<String>,
}

/// `restore_memory`: undo dismiss_memory.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RestoreMemory {
    /// The item id.
    pub id: i64,
    /// memory, observation, fact or episode.
    #[serde(rename = "type")]
    #[schemars(extend("default" = "memory"))]
    pub item_type: Option<ItemType>,
}

/// An item whose dismissed flag was set or cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemChanged {
    #[serde(rename = "type")]
    pub item_type: ItemType,
    pub id: i64,
    pub dismissed: bool,
}

fn missing(item_type: ItemType, id: i64) -> OpError {
    OpError::NotFound(format!("No {} #{id}.", item_type.as_str()))
}

/// What a dismissal or restore of `id` would touch, for the inbox: the item's project, once
/// it is known to exist and to be the caller's to see.
fn pending_flag(
    ctx: &Context<'_>,
    item_type: ItemType,
    id: i64,
    verb: &str,
    reason: Option<&str>,
) -> Result<Pending, OpError> {
    // Another project's item is as unknown to this caller as a missing one.
    let project = match ctx.store.item_project(item_type, id)? {
        Some(p) if ctx.caller.may_see(&p) => p,
        _ => return Err(missing(item_type, id)),
    };
    let item = format!("{} #{id}", item_type.as_str());
    Ok(Pending {
        project,
        summary: match reason.map(str::trim).filter(|r| !r.is_empty()) {
            Some(why) => format!("{verb} {item}: {why}"),
            None => format!("{verb} {item}"),
        },
        reference: Some(item),
        same_as: None,
    })
}

/// Set or clear an item's dismissed flag, as `ctx.caller`.
fn set_dismissed(
    ctx: &mut Context<'_>,
    item_type: ItemType,
    id: i64,
    dismissed: bool,
    reason: Option<String>,
) -> Result<ItemChanged, OpError> {
    let missing = || missing(item_type, id);
    // Another project's item is as unknown to this caller as a missing one.
    if let Some(project) = ctx.store.item_project(item_type, id)?
        && !ctx.caller.may_see(&project)
    {
        return Err(missing());
    }
    let entry = AuditEntry {
        actor: ctx.caller.name.clone(),
        reason,
    };
    let changed = ctx.store.set_dismissed(
        item_type,
        id,
        dismissed,
        &Redacted::new(entry, ctx.redactor),
        ctx.clock.now(),
    )?;
    if !changed {
        return Err(missing());
    }
    Ok(ItemChanged {
        item_type,
        id,
        dismissed,
    })
}

impl Operation for DismissMemory {
    const NAME: &'static str = "dismiss_memory";
    const DESCRIPTION: &'static str = "Hide an item from search and context without deleting it. Write, reversible with restore_memory.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = ItemChanged;

    fn run(self, ctx: &mut Context<'_>) -> Result<ItemChanged, OpError> {
        let t = self.item_type.unwrap_or(ItemType::Memory);
        set_dismissed(ctx, t, self.id, true, self.reason)
    }
}

impl Operation for RestoreMemory {
    const NAME: &'static str = "restore_memory";
    const DESCRIPTION: &'static str = "Undo dismiss_memory. Write.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = ItemChanged;

    fn run(self, ctx: &mut Context<'_>) -> Result<ItemChanged, OpError> {
        let t = self.item_type.unwrap_or(ItemType::Memory);
        set_dismissed(ctx, t, self.id, false, None)
    }
}

impl Proposable for DismissMemory {
    const SUBJECT: Subject = Subject::Memories;

    fn pending(&self, ctx: &mut Context<'_>) -> Result<Pending, OpError> {
        let t = self.item_type.unwrap_or(ItemType::Memory);
        pending_flag(ctx, t, self.id, "dismiss", self.reason.as_deref())
    }
}

impl Proposable for RestoreMemory {
    const SUBJECT: Subject = Subject::Memories;

    fn pending(&self, ctx: &mut Context<'_>) -> Result<Pending, OpError> {
        let t = self.item_type.unwrap_or(ItemType::Memory);
        pending_flag(ctx, t, self.id, "restore", None)
    }
}
