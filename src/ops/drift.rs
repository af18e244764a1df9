//! `drift`: the memories whose files changed or went away since they were written (also
//! `aletheia drift`).
//!
//! It reads the project's own folder (git history, or modification times outside git), so it
//! answers only where the front end works in that folder: the command line and the stdio
//! server, run in the project. It looks at the project's newest memories, a bounded number, so
//! a store of any size answers in the same time.

use super::{Access, Context, OpError, Operation};
use crate::drift::marks::{named_paths, stale_marks};
use crate::model::Memory;
use crate::store::MemoryFilter;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many of the project's newest memories are looked through.
pub const LOOKED_AT: usize = 2000;

/// `drift`: the stale memories of a project.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Drift {
    /// The project; it must be the one of the folder this runs in. Default: that project.
    pub project: Option<String>,
}

/// A memory and what changed in the files it names.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stale {
    pub memory: Memory,
    /// `stale: src/a.rs changed 2 days later; …`
    pub mark: String,
}

/// What a drift check found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriftReport {
    pub project: String,
    /// Memories looked at that name files.
    pub checked: usize,
    /// The stale ones, newest first.
    pub stale: Vec<Stale>,
}

impl Operation for Drift {
    const NAME: &'static str = "drift";
    const DESCRIPTION: &'static str =
        "List the project's memories whose files changed or went away after they were written.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = DriftReport;

    fn run(self, ctx: &mut Context<'_>) -> Result<DriftReport, OpError> {
        let project = ctx
            .caller
            .project_or_default(self.project.as_deref(), ctx.redactor)?;
        let Some(root) = ctx.root_of(&project) else {
            return Err(OpError::InvalidArgument(format!(
                "drift reads the files of {project}: run it in that project's folder (or set ALETHEIA_CWD to it)."
            )));
        };
        let filter = MemoryFilter {
            project: Some(&project),
            mtype: None,
            kind: None,
            dismissed: Some(false),
            pinned_only: false,
        };
        let memories: Vec<Memory> = ctx
            .store
            .browse(&filter, LOOKED_AT, 0)?
            .into_iter()
            .filter(|m| !named_paths(m).is_empty())
            .collect();
        let mut marks = stale_marks(root, &memories);
        let checked = memories.len();
        let stale = memories
            .into_iter()
            .filter_map(|m| {
                let mark = marks.remove(&m.id)?;
                Some(Stale { memory: m, mark })
            })
            .collect();
        Ok(DriftReport {
            project,
            checked,
            stale,
        })
    }
}
