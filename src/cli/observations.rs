//! `aletheia observations ID...`: the full record of memories by id.

use super::exit::{self, Found};
use crate::ops::recall::GetObservations;
use crate::recall::observations::Observation;
use clap::Args;

#[derive(Debug, Args)]
pub struct ObservationsArgs {
    /// Memory ids from search or timeline. Those found are printed; any other (unknown or
    /// dismissed) is named on stderr, and the command exits 1.
    #[arg(required = true)]
    pub ids: Vec<i64>,
}

pub fn run(args: ObservationsArgs, json: bool) -> anyhow::Result<()> {
    let ids = args.ids.clone();
    super::run_naming(
        GetObservations { ids: args.ids },
        super::caller(None),
        json,
        |shown| found(&ids, shown),
    )
}

/// Which of `ids` were `shown`, by the exit rule: MCP's tool skips the others quietly, the
/// command line names them.
fn found(ids: &[i64], shown: &[Observation]) -> Found {
    let mut missing: Vec<i64> = Vec::new();
    for &id in ids {
        if !shown.iter().any(|o| o.memory.id == id) && !missing.contains(&id) {
            missing.push(id);
        }
    }
    match (missing.is_empty(), shown.is_empty()) {
        (true, _) => Found::All,
        (false, true) => Found::Nothing(exit::no_memories(&missing, None)),
        (false, false) => Found::Partly(exit::no_memories(&missing, None)),
    }
}
