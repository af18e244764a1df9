//! The command line's exit codes: one rule for every command, here and nowhere else (the
//! README's "Exit codes" says the same).
//!
//! - **0**: the command did what it was asked. A search or a listing that finds nothing has
//!   done so too: `search`, `timeline --query`, `facts`, `rules list`, `review list` exit 0
//!   and say on stdout that nothing matched.
//! - **1**: it could not: a value the command refused (`search` with no words, a date it cannot
//!   read), with the reason, or a failure on the way. That includes every command about one
//!   thing named by its id or name
//!   when that thing is not there (or is not the caller's to see): `observations`, `inspect`,
//!   `edit`, `why`, `feedback`, `dismiss`, `restore`, `timeline --anchor`, `rules confirm`,
//!   `review accept|reject`, `list read`. The reason is one line on stderr (`aletheia: No
//!   memory #999.`), and stdout holds only what was found: `observations 1 999` prints #1,
//!   then fails for #999.
//! - **2**: it did not run as asked: the command line itself was refused (an unknown flag, a
//!   missing argument: clap's usage error), the feature is not in this build, or `doctor` found
//!   something to fix.
//!
//! `hook` is outside the rule: it always exits 0, so that a host never sees it fail.
//!
//! Most operations already refuse a missing item with [`OpError::NotFound`]. A few skip what is
//! missing instead, because their MCP tools are documented that way (`get_observations`,
//! `timeline`, `work_state_read`); their commands say what was [`Found`] and
//! [`super::run_naming`] applies the rule.

use crate::ops::OpError;
use std::process::ExitCode;

/// Exit 1: the command failed, or named something that is not there.
const FAILED: u8 = 1;
/// Exit 2: the command did not run as asked (clap exits 2 itself for refused arguments).
pub const NOT_AS_ASKED: u8 = 2;

/// What a command found of the things it named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Everything it named.
    All,
    /// Some of it: what was found is printed, then the command fails with this message.
    Partly(String),
    /// None of it: the command prints nothing and fails with this message.
    Nothing(String),
}

/// The error of a command that named something not there: exit 1 with `message`.
pub fn missing(message: String) -> anyhow::Error {
    OpError::NotFound(message).into()
}

/// The exit code of a command that failed with `err`.
pub fn code(err: &anyhow::Error) -> ExitCode {
    if err
        .chain()
        .any(|cause| cause.is::<crate::features::NotBuilt>())
    {
        ExitCode::from(NOT_AS_ASKED)
    } else {
        ExitCode::from(FAILED)
    }
}

/// `No memory #7`, or `No memories #7, #9`: the memories of `ids` a command could not show
/// (looked for in `project` alone when given), and why that may be: a dismissed memory is
/// hidden, as from search.
pub fn no_memories(ids: &[i64], project: Option<&str>) -> String {
    let list = ids
        .iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ");
    let (place, there) = match project {
        Some(p) => (format!(" in {p}"), " there"),
        None => (String::new(), ""),
    };
    if ids.len() == 1 {
        format!("No memory {list}{place} to show: none{there} has that id, or it is dismissed.")
    } else {
        format!(
            "No memories {list}{place} to show: none{there} has those ids, or they are dismissed."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_item_fails_and_a_build_without_a_feature_is_not_as_asked() {
        assert_eq!(code(&missing("No memory #9.".into())), ExitCode::from(1));
        assert_eq!(
            code(&anyhow::Error::from(crate::features::NotBuilt::SERVER).context("hub")),
            ExitCode::from(2)
        );
    }

    #[test]
    fn missing_memories_are_named_one_or_several_and_where_they_were_looked_for() {
        assert_eq!(
            no_memories(&[9], None),
            "No memory #9 to show: none has that id, or it is dismissed."
        );
        assert_eq!(
            no_memories(&[7, 9], None),
            "No memories #7, #9 to show: none has those ids, or they are dismissed."
        );
        assert_eq!(
            no_memories(&[9], Some("shop")),
            "No memory #9 in shop to show: none there has that id, or it is dismissed."
        );
    }
}
