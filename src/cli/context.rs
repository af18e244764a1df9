//! `aletheia context`: print the session-start block a host would receive.

use crate::recall::context::{ContextOptions, build};
use clap::Args;

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Project key; default: the working directory's project.
    #[arg(long)]
    pub project: Option<String>,
    /// Recent unpinned memories to list, 1 to 100.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// The host whose rules apply.
    #[arg(long, default_value = "cli")]
    pub tool: String,
}

pub fn run(args: ContextArgs) -> anyhow::Result<()> {
    if !(1..=100).contains(&args.limit) {
        anyhow::bail!("--limit must be from 1 to 100.");
    }
    let project = args.project.unwrap_or_else(super::default_project);
    let store = super::open_store()?;
    let mut opts = ContextOptions::for_project(&project, &args.tool);
    opts.limit = args.limit;
    println!("{}", build(&store, &opts)?);
    Ok(())
}
