//! `aletheia facts SUBJECT`: how the facts about one subject changed (`fact_history`).

use crate::ops::recall::{FactHistory, When};
use clap::Args;

#[derive(Debug, Args)]
pub struct FactsArgs {
    /// A service, library or other subject.
    pub subject: String,
    /// Only this project (default: every project).
    #[arg(long)]
    pub project: Option<String>,
    /// Only facts with this predicate.
    #[arg(long)]
    pub predicate: Option<String>,
    /// Facts valid at this time (a date, date-time, relative time or epoch milliseconds).
    #[arg(long = "as-of")]
    pub as_of: Option<String>,
    /// Also list replaced facts.
    #[arg(long = "include-superseded")]
    pub include_superseded: bool,
}

pub fn run(args: FactsArgs, json: bool) -> anyhow::Result<()> {
    let request = FactHistory {
        subject: args.subject,
        project: args.project,
        predicate: args.predicate,
        as_of: args.as_of.map(When::Text),
        include_superseded: args.include_superseded,
    };
    super::run(request, super::caller(None), json)
}
