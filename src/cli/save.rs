//! `aletheia save TEXT`: store one durable note (the `save_memory` operation).

use crate::model::{Kind, MemoryType};
use crate::ops::memories::SaveMemory;
use clap::Args;

/// Flags shared by `save` and `capture`.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// Title; default: the first 100 characters of the text.
    #[arg(long)]
    pub title: Option<String>,
    /// Project key; default: the working directory's project.
    #[arg(long)]
    pub project: Option<String>,
    /// decision, gotcha, bugfix, feature, refactor, change, discovery or note.
    #[arg(long = "type", default_value = "note")]
    pub mtype: MemoryType,
    /// List it under Pinned in the session-start context.
    #[arg(long)]
    pub pinned: bool,
    /// The tool to record as the source; default: ALETHEIA_TOOL, else cli.
    #[arg(long)]
    pub tool: Option<String>,
}

#[derive(Debug, Args)]
pub struct SaveArgs {
    /// The text to remember.
    pub text: String,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// Store `text` as a memory of `kind`; prints `Saved as #N in P.` or `Already saved as #N.`.
pub fn store_text(text: String, kind: Kind, args: MemoryArgs, json: bool) -> anyhow::Result<()> {
    let request = SaveMemory {
        text,
        title: args.title,
        project: args.project,
        mtype: Some(args.mtype),
        pinned: args.pinned,
        kind,
    };
    super::run(request, super::caller(args.tool.as_deref()), json)
}

pub fn run(args: SaveArgs, json: bool) -> anyhow::Result<()> {
    store_text(args.text, Kind::Note, args.memory, json)
}
