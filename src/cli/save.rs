//! `aletheia save TEXT`: store one durable note.

use crate::model::{Kind, MemoryType, NewMemory, TITLE_MAX_CHARS, cut_chars, title_from_text};
use crate::redact::Redacted;
use clap::Args;

/// The longest text `save` and `capture` accept.
pub const TEXT_MAX_CHARS: usize = 20_000;

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
    /// The tool to record as the source.
    #[arg(long, default_value = "cli")]
    pub tool: String,
}

#[derive(Debug, Args)]
pub struct SaveArgs {
    /// The text to remember.
    pub text: String,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// Validate and store; prints `Saved as #N in P.` or `Already saved as #N.`.
pub fn store_text(text: &str, kind: Kind, args: &MemoryArgs) -> anyhow::Result<()> {
    let text = text.trim();
    if text.is_empty() {
        anyhow::bail!("the text is empty: give the words to remember.");
    }
    if text.chars().count() > TEXT_MAX_CHARS {
        anyhow::bail!("the text is over {TEXT_MAX_CHARS} characters: save a shorter note.");
    }
    if let Some(t) = &args.title
        && t.chars().count() > TITLE_MAX_CHARS
    {
        anyhow::bail!("the title is over {TITLE_MAX_CHARS} characters: shorten it.");
    }
    let project = args.project.clone().unwrap_or_else(super::default_project);
    let title = match &args.title {
        Some(t) if !t.trim().is_empty() => t.trim().to_owned(),
        _ => title_from_text(&cut_chars(text, 100), 101),
    };
    let m = NewMemory {
        project: project.clone(),
        kind,
        mtype: args.mtype,
        title,
        text: text.to_owned(),
        tool: args.tool.clone(),
        session_id: None,
        files: vec![],
        pinned: args.pinned,
        created_at: crate::time::now_ms(),
    };
    let redactor = super::redactor()?;
    let mut store = super::open_store()?;
    let ins = store.insert(&Redacted::memory(m, redactor))?;
    if ins.new {
        println!("Saved as #{} in {project}.", ins.id);
    } else {
        println!("Already saved as #{}.", ins.id);
    }
    Ok(())
}

pub fn run(args: SaveArgs) -> anyhow::Result<()> {
    store_text(&args.text, Kind::Note, &args.memory)
}
