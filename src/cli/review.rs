//! `aletheia review list|accept|reject`: the review inbox. What clients proposed (`p12`:
//! `proposal_accept`, `proposal_reject`) and facts that disagree (`12`: `review_accept`,
//! `review_reject`), listed together (`review_list`); on this machine's store or, with
//! `--hub-db` or `--database`, on a hub's.

use crate::ops::review::{ProposalAccept, ProposalReject, ReviewAccept, ReviewList, ReviewReject};
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub command: ReviewCommand,
    #[cfg(feature = "server")]
    #[command(flatten)]
    pub hub: super::hub::HubStoreArgs,
}

#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// List what waits: clients' proposals, then facts that disagree.
    List {
        /// Only this project (default: every project).
        #[arg(long)]
        project: Option<String>,
    },
    /// Accept a proposal (pID: it is written as the client asked) or keep a fact under review
    /// (FACT_ID: the fact it disagreed with is closed and kept as history).
    Accept {
        /// pID from `aletheia review list`, or a fact's id.
        id: Item,
    },
    /// Reject a proposal (pID: nothing it asked for is written) or a fact under review
    /// (FACT_ID: the fact it disagreed with stays current).
    Reject {
        /// pID from `aletheia review list`, or a fact's id.
        id: Item,
        /// Why, kept with a rejected proposal.
        #[arg(long)]
        reason: Option<String>,
    },
}

/// What `accept` and `reject` name: a proposal (`p12`) or a fact (`12`, `#12`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Proposal(i64),
    Fact(i64),
}

impl std::str::FromStr for Item {
    type Err = String;
    fn from_str(s: &str) -> Result<Item, String> {
        let s = s.trim();
        let bad = || {
            format!(
                "\"{s}\" is neither pID (a proposal) nor a fact's id: aletheia review list shows both"
            )
        };
        if let Some(n) = s.strip_prefix(['p', 'P']) {
            return n.parse().map(Item::Proposal).map_err(|_| bad());
        }
        s.trim_start_matches('#')
            .parse()
            .map(Item::Fact)
            .map_err(|_| bad())
    }
}

/// Run `request` on the hub's store when one is named, else on this machine's.
macro_rules! on_store {
    ($a:expr, $request:expr, $json:expr) => {{
        #[cfg(feature = "server")]
        {
            let hub = super::hub::StoreArgs::from($a.hub.clone());
            if hub.names_one() {
                return super::hub::run_op(hub, $request, $json);
            }
        }
        super::run($request, super::caller(None), $json)
    }};
}

pub fn run(a: ReviewArgs, json: bool) -> anyhow::Result<()> {
    match a.command {
        ReviewCommand::List { ref project } => {
            let project = project.clone();
            on_store!(a, ReviewList { project }, json)
        }
        ReviewCommand::Accept {
            id: Item::Proposal(id),
        } => on_store!(a, ProposalAccept { id }, json),
        ReviewCommand::Accept {
            id: Item::Fact(fact_id),
        } => on_store!(a, ReviewAccept { fact_id }, json),
        ReviewCommand::Reject {
            id: Item::Proposal(id),
            ref reason,
        } => {
            let reason = reason.clone();
            on_store!(a, ProposalReject { id, reason }, json)
        }
        ReviewCommand::Reject {
            id: Item::Fact(fact_id),
            ..
        } => on_store!(a, ReviewReject { fact_id }, json),
    }
}

#[cfg(test)]
mod tests {
    use super::Item;

    #[rstest::rstest]
    #[case("p12", Item::Proposal(12))]
    #[case("P3", Item::Proposal(3))]
    #[case("12", Item::Fact(12))]
    #[case("#7", Item::Fact(7))]
    fn an_item_reads_as_a_proposal_or_a_fact(#[case] s: &str, #[case] item: Item) {
        assert_eq!(s.parse::<Item>(), Ok(item));
    }

    #[test]
    fn anything_else_is_refused_with_where_to_look() {
        for bad in ["p", "px", "r_abc", ""] {
            let e = bad.parse::<Item>().unwrap_err();
            assert!(e.contains("aletheia review list"), "{e}");
        }
    }
}
