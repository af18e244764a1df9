//! `aletheia scrub`: redact rows that an older version (or a looser rule set) stored.

use crate::ops::upkeep::Scrub;

pub fn run(json: bool) -> anyhow::Result<()> {
    super::run(Scrub {}, super::caller(None), json)
}
