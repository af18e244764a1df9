//! `aletheia timeline`: what happened around one memory.

use crate::recall::timeline::{MAX_SIDE, TimelineQuery, render, timeline};
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
    /// Rows before the anchor, at most 50.
    #[arg(long, default_value_t = 5)]
    pub before: usize,
    /// Rows after the anchor, at most 50.
    #[arg(long, default_value_t = 5)]
    pub after: usize,
}

pub fn run(args: TimelineArgs) -> anyhow::Result<()> {
    if args.anchor.is_none() && args.query.as_deref().is_none_or(|q| q.trim().is_empty()) {
        anyhow::bail!("anchor or query is required: give --anchor ID or --query WORDS.");
    }
    if args.before > MAX_SIDE || args.after > MAX_SIDE {
        anyhow::bail!("--before and --after are at most {MAX_SIDE}.");
    }
    let store = super::open_store()?;
    let q = TimelineQuery {
        anchor: args.anchor,
        query: args.query,
        project: args.project,
        before: args.before,
        after: args.after,
    };
    match timeline(&store, &q)? {
        Some(t) => println!("{}", render(&t)),
        None => println!("Nothing to anchor on."),
    }
    Ok(())
}
