//! `aletheia facts [WORDS]`: the facts about every subject holding the words, and how they
//! changed (`fact_history`, matching by words); with no words, the subjects there are, each with
//! its count (`fact_subjects`). Finding nothing is a search that found nothing: exit 0.

use crate::ops::recall::{FactHistory, FactSubjects, When};
use clap::Args;

#[derive(Debug, Args)]
pub struct FactsArgs {
    /// Words of a subject (a service, library or the like): every subject holding them all is
    /// shown, whatever their case ("postgres" finds "postgres database" and "the postgres").
    /// Left out, the subjects are listed with how many facts each has.
    pub subject: Option<String>,
    /// Only this project (default: every project).
    #[arg(long)]
    pub project: Option<String>,
    /// Only facts with this predicate.
    #[arg(long, requires = "subject")]
    pub predicate: Option<String>,
    /// Facts valid at this time (a date, date-time, relative time or epoch milliseconds).
    #[arg(long = "as-of", requires = "subject")]
    pub as_of: Option<String>,
    /// Also list replaced facts (with no subject: count them too).
    #[arg(long = "include-superseded")]
    pub include_superseded: bool,
    /// With no subject: how many subjects to list, 1 to 100 (default 20).
    #[arg(long, conflicts_with = "subject")]
    pub limit: Option<i64>,
}

pub fn run(args: FactsArgs, json: bool) -> anyhow::Result<()> {
    let caller = super::caller(None);
    let Some(subject) = args.subject else {
        let request = FactSubjects {
            project: args.project,
            include_superseded: args.include_superseded,
            limit: args.limit,
        };
        return super::run(request, caller, json);
    };
    let request = FactHistory {
        subject,
        project: args.project,
        predicate: args.predicate,
        as_of: args.as_of.map(When::Text),
        include_superseded: args.include_superseded,
        by_words: true,
    };
    super::run(request, caller, json)
}
