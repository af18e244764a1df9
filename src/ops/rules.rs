//! Standing rules: list_rules, add_rule, confirm_rule, sync_rules (also `aletheia rules`).
//!
//! A caller limited to projects sees the rules that apply in its default project, and may add
//! or confirm only rules scoped to one of its projects: a rule for everywhere or for a
//! situation would speak in projects it may not touch. sync_rules writes files on this machine,
//! so only a caller with every project may call it.

use super::policy::{self, NAME_MAX_CHARS, RULE_MAX_CHARS};
use super::trust::{Pending, Proposable, Proposed, Subject};
use super::{Access, Caller, Context, OpError, Operation};
use crate::install::{self, Setting, rules_sync};
use crate::recall::rules::Rule;
use crate::redact::Redacted;
use crate::store::rules::{NewRule, rule_id};
use crate::store::state::ItemType;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Where a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScopeTier {
    Everywhere,
    Project,
    Situation,
}

impl ScopeTier {
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeTier::Everywhere => "everywhere",
            ScopeTier::Project => "project",
            ScopeTier::Situation => "situation",
        }
    }
}

impl std::str::FromStr for ScopeTier {
    type Err = String;
    fn from_str(s: &str) -> Result<ScopeTier, String> {
        match s {
            "everywhere" => Ok(ScopeTier::Everywhere),
            "project" => Ok(ScopeTier::Project),
            "situation" => Ok(ScopeTier::Situation),
            other => Err(format!(
                "unknown \"{other}\": use everywhere, project or situation."
            )),
        }
    }
}

crate::serde_via_from_str!(ScopeTier, ["everywhere", "project", "situation"]);

/// Refuse a rule scope a project-limited caller may not write to.
pub(super) fn check_scope(caller: &Caller, tier: &str, name: &str) -> Result<(), OpError> {
    if caller.projects.is_none() {
        return Ok(());
    }
    if tier != "project" {
        return Err(OpError::Forbidden(format!(
            "A caller limited to projects can only write project rules, not {tier} rules."
        )));
    }
    caller.check_project(name)
}

/// `list_rules`: the enabled rules.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ListRules {}

impl Operation for ListRules {
    const NAME: &'static str = "list_rules";
    const DESCRIPTION: &'static str = "List the enabled rules, one per line, with id, date added, source and last-confirmed date. A rule that needs a re-check ends with [re-check: reason]; it stays enabled. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Vec<Rule>;

    fn run(self, ctx: &mut Context<'_>) -> Result<Vec<Rule>, OpError> {
        let project = ctx.caller.project_filter(None, ctx.redactor)?;
        Ok(ctx.store.enabled_rules(project.as_deref())?)
    }
}

/// `add_rule`: one standing rule.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AddRule {
    /// The rule, at most 800 characters.
    #[schemars(length(max = 800))]
    pub then: String,
    /// The situation. Default: always.
    pub when: Option<String>,
    /// everywhere, project or situation.
    #[serde(rename = "scopeTier")]
    #[schemars(extend("default" = "everywhere"))]
    pub scope_tier: Option<ScopeTier>,
    /// The project or situation name.
    #[serde(rename = "scopeName")]
    pub scope_name: Option<String>,
    /// Memory ids the rule rests on.
    #[serde(default)]
    pub evidence_memory_ids: Vec<i64>,
    /// Fact ids the rule rests on.
    #[serde(default)]
    pub evidence_fact_ids: Vec<i64>,
}

/// A rule's id, and whether it was new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleSaved {
    pub id: String,
    pub new: bool,
}

impl Operation for AddRule {
    const NAME: &'static str = "add_rule";
    const DESCRIPTION: &'static str = "Add one standing rule. Write. Check list_rules first; an identical rule is not added twice.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = RuleSaved;

    fn run(self, ctx: &mut Context<'_>) -> Result<RuleSaved, OpError> {
        let rule = self.rule(ctx)?;
        let (id, new) = ctx.store.add_rule(&rule, ctx.clock.now())?;
        Ok(RuleSaved { id, new })
    }
}

impl AddRule {
    /// The rule this request adds, checked (its scope against the caller's projects, its
    /// evidence against what the caller sees) and redacted.
    fn rule(&self, ctx: &Context<'_>) -> Result<Redacted<NewRule>, OpError> {
        let then = policy::required("then", Some(&self.then))?;
        policy::check_length("then", &then, RULE_MAX_CHARS)?;
        let when = policy::optional(self.when.clone()).unwrap_or_else(|| "always".into());
        policy::check_length("when", &when, RULE_MAX_CHARS)?;
        let tier = self.scope_tier.unwrap_or(ScopeTier::Everywhere);
        let name = self.scope_name.clone().unwrap_or_default();
        // A project's name is held to what every project name is, below.
        if tier != ScopeTier::Project {
            policy::check_length("scopeName", &name, NAME_MAX_CHARS)?;
        }
        if tier != ScopeTier::Everywhere && name.trim().is_empty() {
            return Err(OpError::InvalidArgument(format!(
                "scopeName is required with scopeTier \"{}\".",
                tier.as_str()
            )));
        }
        let name = match tier {
            ScopeTier::Everywhere => String::new(),
            // A project rule is listed where its project's memories are: under the same key.
            ScopeTier::Project => super::named_project(name.trim(), ctx.redactor)
                .map_err(|e| OpError::InvalidArgument(format!("scopeName: {e}")))?,
            ScopeTier::Situation => name.trim().to_owned(),
        };
        check_scope(&ctx.caller, tier.as_str(), &name)?;
        for (ids, item, field) in [
            (
                &self.evidence_memory_ids,
                ItemType::Memory,
                "evidence_memory_ids",
            ),
            (&self.evidence_fact_ids, ItemType::Fact, "evidence_fact_ids"),
        ] {
            for id in ids {
                match ctx.store.item_project(item, *id)? {
                    Some(p) if ctx.caller.may_see(&p) => {}
                    _ => {
                        return Err(OpError::NotFound(format!(
                            "{field}: no {} #{id}.",
                            item.as_str()
                        )));
                    }
                }
            }
        }
        let rule = NewRule {
            when: when.trim().to_owned(),
            then: then.trim().to_owned(),
            scope_tier: tier.as_str().to_owned(),
            scope_name: name,
            source: ctx.caller.name.clone(),
            evidence: json!({ "memories": self.evidence_memory_ids, "facts": self.evidence_fact_ids }),
        };
        Ok(Redacted::new(rule, ctx.redactor))
    }
}

impl Proposable for AddRule {
    const SUBJECT: Subject = Subject::Rules;

    fn pending(&self, ctx: &mut Context<'_>) -> Result<Pending, OpError> {
        let rule = self.rule(ctx)?;
        let r = rule.get();
        let scope = match r.scope_tier.as_str() {
            "everywhere" => "everywhere".to_owned(),
            tier => format!("{tier} {}", r.scope_name),
        };
        Ok(Pending {
            project: if r.scope_tier == "project" {
                r.scope_name.clone()
            } else {
                String::new()
            },
            summary: format!("rule ({scope}): when {}, {}", r.when, r.then),
            reference: Some(rule_id(r)),
            same_as: Some(rule_id(r)),
        })
    }

    /// The id the rule will have, so the client can name it, and who decides.
    fn waiting_text(p: &Proposed) -> String {
        let id = p.reference.as_deref().unwrap_or_default();
        if p.new {
            format!("Rule saved ({id}). It reaches sessions once you accept it: aletheia review.")
        } else {
            format!("That rule already waits for review ({id}).")
        }
    }
}

/// `confirm_rule`: record that a rule was re-checked.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ConfirmRule {
    /// A rule id from list_rules.
    pub id: String,
}

/// A rule and when it was confirmed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Confirmed {
    pub id: String,
    /// Epoch milliseconds.
    pub at: i64,
}

impl Operation for ConfirmRule {
    const NAME: &'static str = "confirm_rule";
    const DESCRIPTION: &'static str =
        "Record that a rule was re-checked: only its last-confirmed date changes. Write.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Confirmed;

    fn run(self, ctx: &mut Context<'_>) -> Result<Confirmed, OpError> {
        let id = self.target(ctx)?;
        let now = ctx.clock.now();
        if !ctx.store.confirm_rule(&id, now)? {
            return Err(no_rule(&id));
        }
        Ok(Confirmed { id, at: now })
    }
}

fn no_rule(id: &str) -> OpError {
    OpError::NotFound(format!(
        "No rule with id \"{id}\". list_rules shows the ids."
    ))
}

impl ConfirmRule {
    /// The rule to confirm, once it is known to exist and to be the caller's to write.
    fn target(&self, ctx: &Context<'_>) -> Result<String, OpError> {
        let id = policy::required("id", Some(&self.id))?.trim().to_owned();
        let missing = || no_rule(&id);
        let Some((tier, name)) = ctx.store.rule_scope(&id)? else {
            return Err(missing());
        };
        // Another project's rule is as unknown to this caller as a missing one: its id is a hash
        // of its text, so any other answer would confirm a guess. A rule it can list but not
        // write (one for everywhere) is refused as such.
        if tier == "project" && !ctx.caller.may_see(&name) {
            return Err(missing());
        }
        check_scope(&ctx.caller, &tier, &name)?;
        Ok(id)
    }
}

impl Proposable for ConfirmRule {
    const SUBJECT: Subject = Subject::Rules;

    fn pending(&self, ctx: &mut Context<'_>) -> Result<Pending, OpError> {
        let id = self.target(ctx)?;
        let project = match ctx.store.rule_scope(&id)? {
            Some((tier, name)) if tier == "project" => name,
            _ => String::new(),
        };
        Ok(Pending {
            project,
            summary: format!("confirm rule {id}"),
            reference: Some(id),
            same_as: None,
        })
    }
}

/// `sync_rules`: write the project's enabled rules into each connected tool's rule file.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SyncRules {
    /// Only this tool's file, even if it is not connected: claude-code, cursor, codex, gemini,
    /// windsurf, opencode or command-code.
    pub tool: Option<String>,
    /// Whose rules; it must be the project of the folder written in. Default: that project.
    pub project: Option<String>,
    /// Where the files are: the project folder and HOME. Set by the front end that runs on the
    /// user's machine; it cannot come in a request, so a caller over the network never chooses
    /// where files are written.
    #[serde(skip)]
    #[schemars(skip)]
    pub place: Option<Setting>,
}

/// What a sync did, file by file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RulesSynced {
    /// The project root the files are in.
    pub root: std::path::PathBuf,
    pub project: String,
    /// How many rules were written.
    pub rules: usize,
    /// The tools written for: the connected ones, or the one named. Empty: nothing was written.
    pub tools: Vec<String>,
    pub files: Vec<rules_sync::SyncedFile>,
}

impl Operation for SyncRules {
    const NAME: &'static str = "sync_rules";
    const DESCRIPTION: &'static str = "Write the project's enabled rules into each connected tool's own rule file (CLAUDE.md, .cursor/rules/aletheia.mdc, AGENTS.md, GEMINI.md, .windsurf/rules/aletheia.md) at the project root, inside a marked block that the next sync replaces. Write.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = RulesSynced;

    fn run(self, ctx: &mut Context<'_>) -> Result<RulesSynced, OpError> {
        if ctx.caller.projects.is_some() {
            return Err(OpError::Forbidden(
                "sync_rules writes files on this machine; a caller limited to some projects may not."
                    .into(),
            ));
        }
        let project = ctx
            .caller
            .project_or_default(self.project.as_deref(), ctx.redactor)?;
        let Some(place) = self.place else {
            return Err(OpError::InvalidArgument(
                "sync_rules needs the project folder, which only `aletheia rules sync` run in it knows."
                    .into(),
            ));
        };
        let root = rules_sync::project_root(&place.project);
        rules_sync::check_root(&place, &root).map_err(OpError::InvalidArgument)?;
        let here = crate::project::stored_key(&crate::project::project_key(&root), ctx.redactor);
        if project != here {
            return Err(OpError::InvalidArgument(format!(
                "{} is project \"{here}\", not \"{project}\": run this in {project}'s folder.",
                root.display()
            )));
        }
        let tools = match self.tool.as_deref().map(str::trim) {
            Some(tool) if install::HOSTS.contains(&tool) => vec![tool],
            Some(tool) => {
                return Err(OpError::InvalidArgument(
                    install::InstallError::UnknownHost(tool.to_owned()).to_string(),
                ));
            }
            None => rules_sync::connected(&place, &root),
        };
        let rules: Vec<String> = ctx
            .store
            .enabled_rules(Some(&project))?
            .iter()
            .map(Rule::context_line)
            .collect();
        let files = if tools.is_empty() {
            vec![]
        } else {
            rules_sync::sync(&root, &tools, &rules)
        };
        Ok(RulesSynced {
            root,
            project,
            rules: rules.len(),
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            files,
        })
    }
}
