//! `aletheia capture`: one memory from standard input, for scripts and pipes.

use super::save::{MemoryArgs, store_text};
use crate::model::Kind;
use clap::Args;
use std::io::Read;

#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// prompt, event, observation, summary or note.
    #[arg(long, default_value = "note")]
    pub kind: Kind,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

pub fn run(args: CaptureArgs, json: bool) -> anyhow::Result<()> {
    let mut raw = Vec::new();
    std::io::stdin().read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).replace('\0', "");
    store_text(text, args.kind, args.memory, json)
}
