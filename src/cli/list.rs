//! `aletheia list read|write NAME`: named work-state lists (`work_state_read`,
//! `work_state_write`).

use super::exit::Found;
use crate::ops::lists::{WorkStateRead, WorkStateWrite};
use clap::{Args, Subcommand};
use serde_json::Value;

#[derive(Debug, Args)]
pub struct ListTarget {
    /// The list name.
    pub list: String,
    /// Project key; default: the working directory's project.
    #[arg(long)]
    pub project: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum ListCommand {
    /// Print a list's items as JSON; a list never written exits 1.
    Read(ListTarget),
    /// Replace a list's items with the JSON array on stdin.
    Write(ListTarget),
}

pub fn run(cmd: ListCommand, json: bool) -> anyhow::Result<()> {
    let caller = super::caller(None);
    match cmd {
        // By the exit rule, a list named must be there: MCP's tool answers that it is not.
        ListCommand::Read(t) => super::run_naming(
            WorkStateRead {
                list: t.list,
                project: t.project,
            },
            caller,
            json,
            |state| match state.items {
                Some(_) => Found::All,
                None => Found::Nothing(format!(
                    "No list named \"{}\" in {}.",
                    state.list, state.project
                )),
            },
        ),
        ListCommand::Write(t) => {
            let mut raw = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut raw)?;
            let bad = |e: String| {
                anyhow::anyhow!("stdin is not a JSON array ({e}): give the items as a JSON array.")
            };
            let items = match serde_json::from_str::<Value>(&raw).map_err(|e| bad(e.to_string()))? {
                Value::Array(items) => items,
                other => return Err(bad(format!("it is {}", kind_of(&other)))),
            };
            let request = WorkStateWrite {
                list: t.list,
                items,
                project: t.project,
            };
            super::run(request, caller, json)
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
