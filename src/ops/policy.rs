//! Every default and limit an operation applies, in one place (the README's "Defaults and
//! limits" lists them), with the figures the MCP tools are documented with.
//!
//! One policy for ranges: a count a caller asks for (`limit`, `before`, `after`) is clamped into
//! its range, so a model asking for 1,000 results gets 100 rather than an error; a value that
//! cannot mean anything (a negative offset, a text over its length) is refused with a message
//! naming the limit.

use super::OpError;

/// Results per page: default, smallest, largest.
pub const LIMIT: Range = Range {
    default: 20,
    min: 1,
    max: 100,
};

/// Timeline rows on each side of the anchor.
pub const TIMELINE_SIDE: Range = Range {
    default: 5,
    min: 0,
    max: 50,
};

/// The largest offset a search accepts; deeper pages are not worth reading.
pub const MAX_OFFSET: i64 = 1_000_000;

/// The longest saved memory text, in characters.
pub const TEXT_MAX_CHARS: usize = 20_000;

/// The longest title, in characters.
pub const TITLE_MAX_CHARS: usize = crate::model::TITLE_MAX_CHARS;

/// A title left out is the text's first this many characters.
pub const DEFAULT_TITLE_CHARS: usize = 100;

/// The longest rule (and rule situation), in characters.
pub const RULE_MAX_CHARS: usize = 800;

/// The longest rule scope name, and the longest list name, in characters.
pub const NAME_MAX_CHARS: usize = 200;

/// The most ids one `get_observations` call takes.
pub const MAX_IDS: usize = 100;

/// The largest work-state list, as JSON characters.
pub const LIST_MAX_JSON: usize = 100_000;

/// The longest text one imported memory keeps; the store holds memories, not files.
pub const IMPORT_TEXT_MAX: usize = 1 << 20;

/// The most records one import call takes (the command line sends a file in batches of this).
pub const IMPORT_BATCH: usize = 5_000;

/// Records per export page: small enough that a page of the largest memories (1 MiB each, from
/// imports) stays within a few hundred MiB, large enough that a page costs one query.
pub const EXPORT_PAGE: usize = 500;

/// Days in `older_than_days` beyond which the cutoff is simply "before everything".
const MAX_DAYS: f64 = 1e7;

/// A clamped range with its default.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

impl Range {
    /// The value asked for (or the default), clamped into the range, and then into `usize`:
    /// below 0 is 0, beyond `usize::MAX` (on a 32-bit target) is `usize::MAX`.
    pub fn clamp(self, asked: Option<i64>) -> usize {
        let v = asked.unwrap_or(self.default).clamp(self.min, self.max);
        usize::try_from(v.max(0)).unwrap_or(usize::MAX)
    }
}

/// Refuse `text` over `max` characters.
pub fn check_length(name: &str, text: &str, max: usize) -> Result<(), OpError> {
    if text.chars().count() > max {
        return Err(OpError::InvalidArgument(format!(
            "{name} is over {max} characters."
        )));
    }
    Ok(())
}

/// A required text: present and not blank, else `NAME is required.`.
pub fn required(name: &str, text: Option<&str>) -> Result<String, OpError> {
    match text {
        Some(t) if !t.trim().is_empty() => Ok(t.to_owned()),
        _ => Err(OpError::InvalidArgument(format!("{name} is required."))),
    }
}

/// An optional text, blank meaning absent.
pub fn optional(text: Option<String>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty())
}

/// The title to store, before redaction, and the length to cut it to after: a given title (up
/// to [`TITLE_MAX_CHARS`]), else the text on one line, cut to its first [`DEFAULT_TITLE_CHARS`].
/// The cut comes after redaction (`Redacted::with_title_cut`), so it never leaves part of a
/// secret that the rules no longer recognise.
pub fn title(given: Option<&str>, text: &str) -> (String, usize) {
    match given.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => (t.to_owned(), TITLE_MAX_CHARS),
        None => {
            let flat = text
                .trim()
                .chars()
                .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
                .collect();
            (flat, DEFAULT_TITLE_CHARS)
        }
    }
}

/// The instant `days` days before `now`, refusing what is not a number of days.
pub fn days_before(now: i64, days: f64) -> Result<i64, OpError> {
    if !(days.is_finite() && days >= 0.0) {
        return Err(OpError::InvalidArgument(
            "older_than_days must be a number of days, 0 or more.".into(),
        ));
    }
    #[allow(
        clippy::cast_possible_truncation,
        reason = "0 to MAX_DAYS days is at most 8.64e14 ms, well inside i64"
    )]
    let ms = (days.min(MAX_DAYS) * 86_400_000.0) as i64;
    Ok(now.saturating_sub(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_clamped_and_default() {
        assert_eq!(LIMIT.clamp(None), 20);
        assert_eq!(LIMIT.clamp(Some(1000)), 100);
        assert_eq!(LIMIT.clamp(Some(0)), 1);
        assert_eq!(TIMELINE_SIDE.clamp(Some(-3)), 0);
    }

    #[test]
    fn a_value_below_0_clamps_to_0_not_to_a_huge_count() {
        let r = Range {
            default: 0,
            min: -10,
            max: 10,
        };
        assert_eq!(r.clamp(Some(-3)), 0);
        assert_eq!(r.clamp(Some(i64::MIN)), 0);
        assert_eq!(r.clamp(Some(7)), 7);
    }

    #[test]
    fn a_default_title_is_the_text_on_one_line_cut_to_100() {
        assert_eq!(
            title(None, " line one\nline two "),
            ("line one line two".to_owned(), 100)
        );
        assert_eq!(title(Some("  "), "x"), ("x".to_owned(), 100));
        assert_eq!(title(Some(" Mine "), "x"), ("Mine".to_owned(), 400));
    }

    #[test]
    fn older_than_days_refuses_what_is_not_days() {
        assert_eq!(days_before(86_400_000 * 3, 1.0).unwrap(), 86_400_000 * 2);
        assert!(days_before(0, -1.0).is_err());
        assert!(days_before(0, f64::NAN).is_err());
    }
}
