//! `aletheia timeline`: what happened around one memory.

use crate::ops::recall::Timeline;
use clap::Args;

#[derive(Debug, Args)]
pub struct TimelineArgs {
    /// A memory id from search; takes priority over --query.
    #[arg(long)]
    pub anchor: Option<i64>,
    /// Words whose top hit is the anchor.
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
    let request = Timeline {
        anchor: args.anchor,
        query: args.query,
        project: args.project,
        before: args.before,
        after: args.after,
    };
    super::run(request, super::caller(None), json)
}
