//! `aletheia observations ID...`: the full record of memories by id.

use crate::ops::recall::GetObservations;
use clap::Args;

#[derive(Debug, Args)]
pub struct ObservationsArgs {
    /// Memory ids from search or timeline; unknown ids are skipped.
    #[arg(required = true)]
    pub ids: Vec<i64>,
}

pub fn run(args: ObservationsArgs, json: bool) -> anyhow::Result<()> {
    super::run(GetObservations { ids: args.ids }, super::caller(None), json)
}
