//! `aletheia timeline`: what happened around one memory.

use super::exit::{self, Found};
use crate::ops::recall::Timeline;
use clap::Args;

#[derive(Debug, Args)]
pub struct TimelineArgs {
    /// A memory id from search; takes priority over --query. An unknown or dismissed one (or
    /// one outside --project) exits 1.
    #[arg(long)]
    pub anchor: Option<i64>,
    /// Words whose top hit is the anchor; when nothing matches, that is said and it exits 0.
    #[arg(long)]
    pub query: Option<String>,
    /// Limit the anchor lookup and the neighbours to one project.
    #[arg(long)]
    pub project: Option<String>,
    /// Rows before the anchor, 0 to 50 (default 5).
    #[arg(long)]
    pub before: Option<i64>,
    /// Rows after the anchor, 0 to 50 (default 5).
    #[arg(long)]
    pub after: Option<i64>,
}

pub fn run(args: TimelineArgs, json: bool) -> anyhow::Result<()> {
    let (anchor, project) = (args.anchor, args.project.clone());
    let request = Timeline {
        anchor: args.anchor,
        query: args.query,
        project: args.project,
        before: args.before,
        after: args.after,
    };
    // By the exit rule, an anchor named by id must be there; one found by words is a search.
    super::run_naming(request, super::caller(None), json, |t| match (anchor, t) {
        (Some(id), None) => Found::Nothing(exit::no_memories(&[id], project.as_deref())),
        _ => Found::All,
    })
}
