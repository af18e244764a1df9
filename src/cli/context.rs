//! `aletheia context`: print the session-start block a host would receive.

use crate::ops::recall::SessionStartContext;
use clap::Args;

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Project key; default: the working directory's project.
    #[arg(long)]
    pub project: Option<String>,
    /// Recent unpinned memories to list, 1 to 100 (default 20).
    #[arg(long)]
    pub limit: Option<i64>,
}

pub fn run(args: ContextArgs, json: bool) -> anyhow::Result<()> {
    let request = SessionStartContext {
        project: args.project,
        limit: args.limit,
    };
    super::run(request, super::caller(None), json)
}
