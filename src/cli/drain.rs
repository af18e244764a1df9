//! `aletheia drain`: bring everything spooled into the store now.

use crate::ops::upkeep::Drain;
use crate::text::Text;

pub fn run(json: bool) -> anyhow::Result<()> {
    // The spool is the operation's to drain, so the store opens without draining it first.
    let mut edge = super::Edge::open_with(super::caller(None), false)?;
    let report = edge.call(Drain {})?;
    Ok(super::print::result(
        &report,
        edge.clock(),
        json,
        Drain::text,
    )?)
}
