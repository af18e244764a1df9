//! `aletheia connect <host>`: the dry run of `install`. It prints, file by file, the hook
//! entries and the MCP entry that `aletheia install <host> --write` would add (or finds already
//! there), then the ways to connect: that install, and the host's own command for the MCP entry
//! where it has one, each with when it is the one to use. Install comes first, as the one that
//! writes the hooks too: the host's command writes the same MCP entry alone, and shown first it
//! read as the way to connect. It writes nothing.

use super::install::{dry_run, scope};
use crate::install;
use clap::Args;

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// claude-code, cursor, codex, gemini, windsurf, opencode or command-code.
    pub host: String,
    /// The project's files (in the working directory) instead of the user's.
    #[arg(long)]
    pub project: bool,
}

pub fn run(args: ConnectArgs, json: bool) -> anyhow::Result<()> {
    let setting = install::Setting::from_env()?;
    let plan = install::plan(&args.host, scope(args.project), &setting, false)?;
    dry_run(&plan, json, false)
}
