//! `aletheia inspect ID` (a memory's versions, `inspect`) and `aletheia edit ID` (replace a
//! note's text, keeping the old one as a version, `edit_note`).

use crate::ops::curate::EditNote;
use crate::ops::inspect::Inspect;
use clap::Args;

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A memory's id (from search, timeline or the session-start block).
    pub id: i64,
}

pub fn run(a: InspectArgs, json: bool) -> anyhow::Result<()> {
    super::run(Inspect { id: a.id }, super::caller(None), json)
}

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The note's id.
    pub id: i64,
    /// The new text (`-` reads it from stdin).
    pub text: String,
    /// The new title (default: the first 100 characters of the text).
    #[arg(long)]
    pub title: Option<String>,
}

pub fn edit(a: EditArgs, json: bool) -> anyhow::Result<()> {
    let text = if a.text == "-" {
        std::io::read_to_string(std::io::stdin())?
    } else {
        a.text
    };
    let request = EditNote {
        id: a.id,
        text,
        title: a.title,
    };
    super::run(request, super::caller(None), json)
}
