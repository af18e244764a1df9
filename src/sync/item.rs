//! What travels between a store and a hub: one versioned item per change, as JSON.
//!
//! Items name their project by its identity across machines (see [`super::remote`]), never by
//! a machine's own key, and name other items by their stable ids (a memory's uid, a fact's
//! uid), never by a row number that means something on one side only. Each side turns them
//! into its own keys when it writes them.

use crate::redact::{Redact, Redactor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One item at one revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Its revision ([`super::hlc`]).
    pub rev: String,
    /// The revision it replaced on the side that made it, when that side had one: the hub
    /// takes a change whose base is what it holds as a plain update, and any other as two
    /// versions that did not see each other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The machine whose change this revision is (or the hub's own id).
    pub origin: String,
    #[serde(flatten)]
    pub item: Item,
}

/// The kinds of item that travel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum Item {
    Memory(MemoryItem),
    Episode(EpisodeItem),
    Fact(FactItem),
    Rule(RuleItem),
    List(ListItem),
}

impl Item {
    /// The kind's name, as the stores key their sync state.
    pub fn kind(&self) -> &'static str {
        match self {
            Item::Memory(_) => "memory",
            Item::Episode(_) => "episode",
            Item::Fact(_) => "fact",
            Item::Rule(_) => "rule",
            Item::List(_) => "list",
        }
    }

    /// The project identities it names.
    pub fn projects(&self) -> Vec<&str> {
        match self {
            Item::Memory(m) => vec![m.project.as_str()],
            Item::Fact(f) => vec![f.project.as_str()],
            Item::List(l) => vec![l.project.as_str()],
            Item::Rule(r) if r.scope_tier == "project" => vec![r.scope_name.as_str()],
            Item::Rule(_) | Item::Episode(_) => vec![],
        }
    }

    /// The item with each project identity mapped by `f`.
    pub fn map_projects(mut self, mut f: impl FnMut(&str) -> String) -> Item {
        match &mut self {
            Item::Memory(m) => m.project = f(&m.project),
            Item::Fact(x) => x.project = f(&x.project),
            Item::List(l) => l.project = f(&l.project),
            Item::Rule(r) if r.scope_tier == "project" => r.scope_name = f(&r.scope_name),
            Item::Rule(_) | Item::Episode(_) => {}
        }
        self
    }

    /// The same item with the tombstones of `other` kept: dismissed stays dismissed, and a
    /// disabled rule stays disabled. For two versions that did not see each other.
    pub fn with_tombstones_of(mut self, other: &Item) -> Item {
        match (&mut self, other) {
            (Item::Memory(a), Item::Memory(b)) => a.dismissed |= b.dismissed,
            (Item::Episode(a), Item::Episode(b)) => a.dismissed |= b.dismissed,
            (Item::Fact(a), Item::Fact(b)) => a.dismissed |= b.dismissed,
            (Item::Rule(a), Item::Rule(b)) => a.enabled &= b.enabled,
            _ => {}
        }
        self
    }
}

/// A memory, with its pinned and dismissed state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryItem {
    pub uid: String,
    pub project: String,
    pub kind: String,
    #[serde(rename = "type")]
    pub mtype: String,
    pub title: String,
    pub text: String,
    pub tool: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub files: Vec<String>,
    pub pinned: bool,
    pub dismissed: bool,
    pub created_at: i64,
}

/// The text a compressed observation held before it was replaced by its summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpisodeItem {
    pub memory_uid: String,
    pub title: String,
    pub text: String,
    pub replaced_at: i64,
    pub dismissed: bool,
}

/// A fact, with the times it held and when it was superseded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactItem {
    pub uid: String,
    pub project: String,
    pub subject: String,
    pub predicate: String,
    pub object: String,
    pub confidence: f64,
    pub source: String,
    #[serde(default)]
    pub memory_uid: Option<String>,
    pub valid_from: i64,
    #[serde(default)]
    pub valid_to: Option<i64>,
    /// The uid of the fact that replaced it.
    #[serde(default)]
    pub superseded_by: Option<String>,
    #[serde(default)]
    pub superseded_at: Option<i64>,
    pub dismissed: bool,
    pub created_at: i64,
}

/// A standing rule, with whether it is enabled and when it was last confirmed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleItem {
    pub when: String,
    pub then: String,
    pub scope_tier: String,
    /// For a project rule, the project's identity.
    pub scope_name: String,
    pub source: String,
    pub enabled: bool,
    #[serde(default)]
    pub recheck: Option<String>,
    #[serde(default)]
    pub evidence: serde_json::Value,
    pub created_at: i64,
    pub confirmed_at: i64,
}

/// A named work list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListItem {
    pub project: String,
    pub name: String,
    pub items: serde_json::Value,
    pub updated_at: i64,
}

/// A batch on the wire: changes, and a name for each project identity they name (the name the
/// sending side knows it by, which the receiving side takes for a project it has not seen).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Batch {
    /// The machine that sends a push (every change in it is that machine's).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub machine: String,
    #[serde(default)]
    pub projects: BTreeMap<String, String>,
    #[serde(default)]
    pub changes: Vec<Change>,
}

impl Redact for Item {
    /// Every text a person, a model or a host wrote, and every project name, as each is
    /// redacted when it is first stored.
    fn redact(self, r: &Redactor) -> Item {
        let key = |s: &str| crate::project::stored_key(s, r);
        match self {
            Item::Memory(m) => Item::Memory(MemoryItem {
                project: key(&m.project),
                title: r.redact(&m.title),
                text: r.redact(&m.text),
                tool: r.redact(&m.tool),
                session_id: m.session_id.map(|s| r.redact(&s)),
                files: m.files.iter().map(|f| r.redact(f)).collect(),
                ..m
            }),
            Item::Episode(e) => Item::Episode(EpisodeItem {
                title: r.redact(&e.title),
                text: r.redact(&e.text),
                ..e
            }),
            Item::Fact(f) => Item::Fact(FactItem {
                project: key(&f.project),
                subject: r.redact(&f.subject),
                predicate: r.redact(&f.predicate),
                object: r.redact(&f.object),
                source: r.redact(&f.source),
                ..f
            }),
            Item::Rule(x) => {
                let scope_name = if x.scope_tier == "project" {
                    key(&x.scope_name)
                } else {
                    r.redact(&x.scope_name)
                };
                Item::Rule(RuleItem {
                    when: r.redact(&x.when),
                    then: r.redact(&x.then),
                    source: r.redact(&x.source),
                    recheck: x.recheck.map(|s| r.redact(&s)),
                    evidence: x.evidence.redact(r),
                    scope_name,
                    ..x
                })
            }
            Item::List(l) => Item::List(ListItem {
                project: key(&l.project),
                name: r.redact(&l.name),
                items: l.items.redact(r),
                ..l
            }),
        }
    }
}

impl Redact for Batch {
    fn redact(self, r: &Redactor) -> Batch {
        Batch {
            machine: self.machine,
            projects: self
                .projects
                .into_iter()
                .map(|(identity, name)| {
                    (
                        crate::project::stored_key(&identity, r),
                        crate::project::stored_key(&name, r),
                    )
                })
                .collect(),
            changes: self
                .changes
                .into_iter()
                .map(|c| Change {
                    item: c.item.redact(r),
                    ..c
                })
                .collect(),
        }
    }
}
