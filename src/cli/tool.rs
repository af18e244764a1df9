//! Commands that are MCP tools too (`rules`, `list`): they build the tool's arguments from flags
//! and call the same handler, so the CLI and every MCP client get the same checks and texts.

use crate::mcp::args::Args;
use crate::mcp::tools::{self, Ctx};
use clap::{Args as ClapArgs, Subcommand};
use serde_json::{Map, Value, json};

/// Call tool `name` with `args`; print its text, or fail with its one-line error.
pub fn call(name: &str, args: Value) -> anyhow::Result<()> {
    let tool = tools::find(name).expect("the CLI names only real tools");
    let mut store = super::open_store()?;
    let caller = std::env::var("ALETHEIA_TOOL")
        .ok()
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "cli".into());
    let project = super::default_project();
    let mut ctx = Ctx {
        store: &mut store,
        caller: &caller,
        default_project: &project,
    };
    let Value::Object(map) = args else {
        unreachable!("tool arguments are objects")
    };
    let map: Map<String, Value> = map.into_iter().filter(|(_, v)| !v.is_null()).collect();
    match (tool.run)(&mut ctx, &Args(&map)) {
        Ok(text) => {
            println!("{text}");
            Ok(())
        }
        Err(message) => anyhow::bail!(message),
    }
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// List the enabled rules.
    List,
    /// Add a standing rule.
    Add {
        /// The rule, at most 800 characters.
        then: String,
        /// The situation; default: always.
        #[arg(long)]
        when: Option<String>,
        /// everywhere, project or situation.
        #[arg(long = "scope-tier")]
        scope_tier: Option<String>,
        /// The project or situation name.
        #[arg(long = "scope-name")]
        scope_name: Option<String>,
    },
    /// Record that a rule was re-checked.
    Confirm { id: String },
}

pub fn rules(cmd: RulesCommand) -> anyhow::Result<()> {
    match cmd {
        RulesCommand::List => call("list_rules", json!({})),
        RulesCommand::Add {
            then,
            when,
            scope_tier,
            scope_name,
        } => call(
            "add_rule",
            json!({ "then": then, "when": when, "scopeTier": scope_tier, "scopeName": scope_name }),
        ),
        RulesCommand::Confirm { id } => call("confirm_rule", json!({ "id": id })),
    }
}

#[derive(Debug, ClapArgs)]
pub struct ListTarget {
    /// The list name.
    pub list: String,
    /// Project key; default: the working directory's project.
    #[arg(long)]
    pub project: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum ListCommand {
    /// Print a list's items as JSON.
    Read(ListTarget),
    /// Replace a list's items with the JSON array on stdin.
    Write(ListTarget),
}

pub fn list(cmd: ListCommand) -> anyhow::Result<()> {
    match cmd {
        ListCommand::Read(t) => call(
            "work_state_read",
            json!({ "list": t.list, "project": t.project }),
        ),
        ListCommand::Write(t) => {
            let mut raw = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut raw)?;
            let items: Value = serde_json::from_str(&raw).map_err(|e| {
                anyhow::anyhow!("stdin is not JSON ({e}): give the items as a JSON array.")
            })?;
            call(
                "work_state_write",
                json!({ "list": t.list, "items": items, "project": t.project }),
            )
        }
    }
}
