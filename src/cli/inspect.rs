//! `aletheia inspect ID` (a memory's versions and relationships, `inspect`), `aletheia edit ID`
//! (replace a note's text, keeping the old one as a version, `edit_note`) and `aletheia
//! feedback ID` (say what a memory is worth, `feedback`).

use crate::ops::curate::EditNote;
use crate::ops::feedback::{GiveFeedback, VoteName};
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

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("vote").required(true)))]
pub struct FeedbackArgs {
    /// The memory's id.
    pub id: i64,
    /// Mark it a favourite: lifted a little in search, and never left out of the session-start
    /// block for not-helpful votes.
    #[arg(long, group = "vote")]
    pub favourite: bool,
    /// Take the favourite mark away.
    #[arg(long, group = "vote")]
    pub unfavourite: bool,
    /// It helped.
    #[arg(long, group = "vote")]
    pub positive: bool,
    /// It did not help: lowered a little in search; more of these than helpful votes leave it
    /// out of the session-start block.
    #[arg(long, group = "vote")]
    pub negative: bool,
}

pub fn feedback(a: FeedbackArgs, json: bool) -> anyhow::Result<()> {
    let vote = if a.favourite {
        VoteName::Favourite
    } else if a.unfavourite {
        VoteName::Unfavourite
    } else if a.positive {
        VoteName::Positive
    } else {
        VoteName::Negative
    };
    super::run(GiveFeedback { id: a.id, vote }, super::caller(None), json)
}
