//! `aletheia drift [--project P]`: the memories whose files changed or went away since they
//! were written (`drift`), read in this folder.

use crate::ops::drift::Drift;
use clap::Args;

#[derive(Debug, Args)]
pub struct DriftArgs {
    /// The project; it must be this folder's (the default).
    #[arg(long)]
    pub project: Option<String>,
}

pub fn run(a: DriftArgs, json: bool) -> anyhow::Result<()> {
    super::run(Drift { project: a.project }, super::caller(None), json)
}
