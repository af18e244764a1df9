//! `aletheia dismiss ID` and `aletheia restore ID`: hide an item from search and context, and
//! bring it back (`dismiss_memory`, `restore_memory`).

use crate::ops::memories::{DismissMemory, RestoreMemory};
use crate::store::state::ItemType;
use clap::Args;

#[derive(Debug, Args)]
pub struct DismissArgs {
    /// The item id.
    pub id: i64,
    /// memory, observation, fact or episode.
    #[arg(long = "type", default_value = "memory")]
    pub item_type: ItemType,
    /// Why; kept in the audit trail, cut to 300 characters.
    #[arg(long)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The item id.
    pub id: i64,
    /// memory, observation, fact or episode.
    #[arg(long = "type", default_value = "memory")]
    pub item_type: ItemType,
}

pub fn dismiss(args: DismissArgs, json: bool) -> anyhow::Result<()> {
    let request = DismissMemory {
        id: args.id,
        item_type: Some(args.item_type),
        reason: args.reason,
    };
    super::run(request, super::caller(None), json)
}

pub fn restore(args: RestoreArgs, json: bool) -> anyhow::Result<()> {
    let request = RestoreMemory {
        id: args.id,
        item_type: Some(args.item_type),
    };
    super::run(request, super::caller(None), json)
}
