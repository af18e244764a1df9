//! `aletheia rules list|add|confirm|sync`: standing rules (`list_rules`, `add_rule`,
//! `confirm_rule`, `sync_rules`).

use crate::ops::rules::{AddRule, ConfirmRule, ListRules, ScopeTier, SyncRules};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// List the enabled rules.
    List,
    /// Add a standing rule: for every project unless --scope-tier says otherwise.
    Add {
        /// The rule, at most 800 characters.
        then: String,
        /// The situation; default: always.
        #[arg(long)]
        when: Option<String>,
        /// everywhere (the default, even inside a project), project or situation.
        #[arg(long = "scope-tier")]
        scope_tier: Option<ScopeTier>,
        /// The project or situation name (required with project or situation).
        #[arg(long = "scope-name")]
        scope_name: Option<String>,
        /// A memory id the rule rests on (repeatable).
        #[arg(long = "evidence-memory")]
        evidence_memory_ids: Vec<i64>,
        /// A fact id the rule rests on (repeatable).
        #[arg(long = "evidence-fact")]
        evidence_fact_ids: Vec<i64>,
    },
    /// Record that a rule was re-checked.
    Confirm { id: String },
    /// Write the enabled rules into each connected tool's rule file at the project root.
    Sync {
        /// Only this tool's file, even if it is not connected.
        #[arg(long)]
        tool: Option<String>,
        /// Whose rules; default: the working directory's project (the only one allowed).
        #[arg(long)]
        project: Option<String>,
    },
}

pub fn run(cmd: RulesCommand, json: bool) -> anyhow::Result<()> {
    let caller = super::caller(None);
    match cmd {
        RulesCommand::List => super::run(ListRules {}, caller, json),
        RulesCommand::Add {
            then,
            when,
            scope_tier,
            scope_name,
            evidence_memory_ids,
            evidence_fact_ids,
        } => add(
            AddRule {
                then,
                when,
                scope_tier,
                scope_name,
                evidence_memory_ids,
                evidence_fact_ids,
            },
            json,
        ),
        RulesCommand::Confirm { id } => super::run(ConfirmRule { id }, caller, json),
        // The command line runs on the user's machine, in the project: it is the edge that
        // knows where the files are.
        RulesCommand::Sync { tool, project } => super::run(
            SyncRules {
                tool,
                project,
                place: Some(crate::install::Setting::from_env()?),
            },
            caller,
            json,
        ),
    }
}

/// Add a rule and say, beyond MCP's sentence, which scope it got and how to sync it
/// ([`crate::text::rule_added`]).
fn add(request: AddRule, json: bool) -> anyhow::Result<()> {
    let tier = request.scope_tier.unwrap_or(ScopeTier::Everywhere);
    let name = request.scope_name.clone().unwrap_or_default();
    let mut edge = super::Edge::open(super::caller(None))?;
    let saved = edge.call(request)?;
    if json {
        return Ok(super::print::json(&saved)?);
    }
    let text = crate::text::rule_added(&saved, tier, &name, &super::default_project());
    Ok(super::print::line(&text)?)
}
