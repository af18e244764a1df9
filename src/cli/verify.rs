//! `aletheia verify`: check the signed history of this machine's store (`verify`); exit 1 when
//! an entry or an item does not hold.

use crate::ops::upkeep::Verify;

pub fn run(json: bool) -> anyhow::Result<()> {
    let mut edge = super::Edge::open(super::caller(None))?;
    let out = edge.call(Verify {})?;
    super::print::result(
        &out,
        edge.clock(),
        json,
        <Verify as crate::text::Text>::text,
    )?;
    if out.broken.is_some() || out.mismatched > 0 {
        anyhow::bail!(
            "the history does not hold (above): a row or an entry was changed outside aletheia"
        );
    }
    Ok(())
}
