//! `aletheia export`: every memory as JSONL on stdout, the shape `import` reads.

use crate::model::{Kind, Memory, MemoryType};
use clap::Args;
use serde::{Deserialize, Serialize};
use std::io::Write;

/// One line of an export or import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    #[serde(default)]
    pub uid: Option<String>,
    pub project: String,
    pub kind: Kind,
    #[serde(rename = "type", default = "default_type")]
    pub mtype: MemoryType,
    #[serde(default)]
    pub title: Option<String>,
    pub text: String,
    #[serde(default = "default_tool")]
    pub tool: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub pinned: bool,
    #[serde(default)]
    pub dismissed: bool,
    /// Epoch milliseconds.
    pub created_at: i64,
}

fn default_type() -> MemoryType {
    MemoryType::Note
}

fn default_tool() -> String {
    "import".into()
}

impl From<Memory> for Record {
    fn from(m: Memory) -> Record {
        Record {
            uid: Some(m.uid),
            project: m.project,
            kind: m.kind,
            mtype: m.mtype,
            title: Some(m.title),
            text: m.text,
            tool: m.tool,
            session_id: m.session_id,
            files: m.files,
            pinned: m.pinned,
            dismissed: m.dismissed,
            created_at: m.created_at,
        }
    }
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Only this project.
    #[arg(long)]
    pub project: Option<String>,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let store = super::open_store()?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    store.for_each_memory(args.project.as_deref(), |m| {
        serde_json::to_writer(&mut out, &Record::from(m))?;
        out.write_all(b"\n")
    })?;
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
