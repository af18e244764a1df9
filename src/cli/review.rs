//! `aletheia review list|accept|reject`: the facts that disagree, and the user's answer
//! (`review_list`, `review_accept`, `review_reject`).

use crate::ops::review::{ReviewAccept, ReviewList, ReviewReject};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// List the facts that wait for review.
    List {
        /// Only this project (default: every project).
        #[arg(long)]
        project: Option<String>,
    },
    /// Keep a fact under review; the fact it disagreed with is closed and kept as history.
    Accept {
        /// A fact id from `aletheia review list`.
        fact_id: i64,
    },
    /// Dismiss a fact under review; the fact it disagreed with stays current.
    Reject {
        /// A fact id from `aletheia review list`.
        fact_id: i64,
    },
}

pub fn run(cmd: ReviewCommand, json: bool) -> anyhow::Result<()> {
    let caller = super::caller(None);
    match cmd {
        ReviewCommand::List { project } => super::run(ReviewList { project }, caller, json),
        ReviewCommand::Accept { fact_id } => super::run(ReviewAccept { fact_id }, caller, json),
        ReviewCommand::Reject { fact_id } => super::run(ReviewReject { fact_id }, caller, json),
    }
}
