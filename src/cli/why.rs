//! `aletheia why ID [--type fact]`: where a memory or fact came from (`why`).

use crate::ops::why::Why;
use crate::store::state::ItemType;
use clap::Args;

#[derive(Debug, Args)]
pub struct WhyArgs {
    /// A memory's id (from search, timeline or the session-start block), or a fact's with
    /// --type fact.
    pub id: i64,
    /// memory or fact.
    #[arg(long = "type", default_value = "memory")]
    pub item_type: ItemType,
}

pub fn run(a: WhyArgs, json: bool) -> anyhow::Result<()> {
    let request = Why {
        id: a.id,
        item_type: Some(a.item_type),
    };
    super::run(request, super::caller(None), json)
}
