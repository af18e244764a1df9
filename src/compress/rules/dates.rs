//! When a fact started, as a sentence states it: a leading or trailing date phrase (an ISO
//! date or a written one), or a version that says from which release on.

use super::*;

// Dates ---------------------------------------------------------------------------------------

/// Phrases that say when a fact started, before an ISO date: "Since 2026-03-01, ...".
const DATE_OPENINGS: &[&str] = &[
    "starting from",
    "starting on",
    "beginning on",
    "starting",
    "beginning",
    "effective",
    "since",
    "as of",
    "from",
    "on",
];

/// The sentence without its date phrase, and the date as epoch milliseconds at 00:00 UTC.
///
/// A sentence that opens with "Since" or "As of" without a date ("Since the upgrade, ...")
/// keeps its opening and is then dropped as a qualified sentence: when it holds from depends on
/// when it was said. A version ("As of v3.0, ...") says from which release on, not from which
/// day: the opening goes and the fact is undated.
pub(super) fn dated(s: &str) -> (&str, Option<i64>) {
    match leading_date(s).or_else(|| trailing_date(s)) {
        Some((rest, ms)) => (rest, Some(ms)),
        None => (leading_version(s).unwrap_or(s), None),
    }
}

fn leading_date(s: &str) -> Option<(&str, i64)> {
    let lower = s.to_ascii_lowercase();
    let opening = DATE_OPENINGS
        .iter()
        .find(|o| lower.starts_with(*o) && lower[o.len()..].starts_with(' '))?;
    let at = opening.len() + 1;
    let (ms, len) = date_at(&s[at..])?;
    let mut rest = &s[at + len..];
    if let Some(after) = [" onwards", " onward", " on"]
        .iter()
        .find_map(|t| strip_word_prefix(rest, t))
    {
        rest = after;
    }
    let rest = rest.strip_prefix(',').unwrap_or(rest);
    rest.starts_with(' ').then(|| (rest.trim_start(), ms))
}

/// `rest` without `word` at its start, when `word` is whole there.
fn strip_word_prefix<'a>(rest: &'a str, word: &str) -> Option<&'a str> {
    let head = rest.get(..word.len())?;
    let after = &rest[word.len()..];
    (head.eq_ignore_ascii_case(word) && !after.starts_with(char::is_alphanumeric)).then_some(after)
}

/// "The API uses v2 since 2026-03-01": the same phrase at the end.
fn trailing_date(s: &str) -> Option<(&str, i64)> {
    let at = s.len().checked_sub(10)?;
    let ms = iso_date(s.get(at..)?)?;
    let head = s[..at].trim_end().to_ascii_lowercase();
    ["since", "as of", "starting", "starting on", "effective"]
        .iter()
        .find_map(|o| {
            let before = head.strip_suffix(o)?;
            before.ends_with([' ', ',']).then(|| {
                let rest = s[..before.len()].trim_end();
                (rest.strip_suffix(',').unwrap_or(rest), ms)
            })
        })
}

/// A date at the start of `s`, as epoch milliseconds, and its length: ISO ("2026-03-02") or
/// written out ("March 2, 2026", "2 March 2026", "9th of Feb 2026").
fn date_at(s: &str) -> Option<(i64, usize)> {
    if let Some(ms) = s.get(..10).and_then(iso_date) {
        return Some((ms, 10));
    }
    let mut words = leading_words(s, 5);
    // "From the 5th of June 2026".
    if words
        .first()
        .is_some_and(|(w, _)| w.eq_ignore_ascii_case("the"))
    {
        words.remove(0);
    }
    let word = |i: usize| words.get(i).map_or("", |(w, _)| w.trim_end_matches(','));
    let (month, day, year) = match (month(word(0)), month(word(1)), month(word(2))) {
        (Some(m), _, _) => (m, day(word(1))?, 2),
        (_, Some(m), _) => (m, day(word(0))?, 2),
        (_, _, Some(m)) if word(1).eq_ignore_ascii_case("of") => (m, day(word(0))?, 3),
        _ => return None,
    };
    let (text, end) = words.get(year)?;
    let digits = text.trim_end_matches(',');
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let date = Date::new(digits.parse().ok()?, month, day).ok()?;
    Some((midnight(date)?, end - (text.len() - digits.len())))
}

/// The first `n` whitespace-separated words of `s`, each with the offset of its end.
fn leading_words(s: &str, n: usize) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut end = 0;
    while out.len() < n {
        let Some(start) = s[end..].find(|c: char| !c.is_whitespace()).map(|i| end + i) else {
            break;
        };
        end = s[start..]
            .find(char::is_whitespace)
            .map_or(s.len(), |i| start + i);
        out.push((&s[start..end], end));
    }
    out
}

/// A month by its name or a three-letter abbreviation, 1 to 12.
fn month(word: &str) -> Option<i8> {
    let word = word.trim_end_matches('.').to_ascii_lowercase();
    let at = MONTHS.iter().position(|m| {
        *m == word || word.len() == 3 && m.starts_with(&word) || word == "sept" && *m == "september"
    })?;
    i8::try_from(at + 1).ok()
}

/// A day of the month, with or without an ordinal suffix ("2", "2nd").
fn day(word: &str) -> Option<i8> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|x| word.strip_suffix(x))
        .unwrap_or(word);
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// Openings that give the release a fact holds from.
const VERSION_OPENINGS: &[&str] = &[
    "as of",
    "since",
    "from",
    "starting with",
    "starting from",
    "beginning with",
];

/// The sentence after a leading version phrase: "As of v3.0," or "Since version 2".
fn leading_version(s: &str) -> Option<&str> {
    let lower = s.to_ascii_lowercase();
    let opening = VERSION_OPENINGS
        .iter()
        .find(|o| lower.starts_with(*o) && lower[o.len()..].starts_with(' '))?;
    let mut rest = s[opening.len()..].trim_start();
    let named = ["version ", "release "].iter().find_map(|w| {
        let head = rest.get(..w.len())?;
        head.eq_ignore_ascii_case(w).then(|| &rest[w.len()..])
    });
    if let Some(after) = named {
        rest = after.trim_start();
    }
    let end = rest.find([' ', ',']).unwrap_or(rest.len());
    let token = &rest[..end];
    let number = token.strip_prefix(['v', 'V']).or(named.map(|_| token))?;
    let version = number.starts_with(|c: char| c.is_ascii_digit())
        && number.chars().all(|c| c.is_ascii_digit() || c == '.')
        && !number.ends_with('.');
    let after = &rest[end..];
    let after = after.strip_prefix(',').unwrap_or(after);
    (version && after.starts_with(' ')).then(|| after.trim_start())
}

pub(super) fn iso_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let shape = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    if !shape {
        return None;
    }
    midnight(s.parse().ok()?)
}

/// The day's start at 00:00 UTC, as epoch milliseconds.
fn midnight(date: Date) -> Option<i64> {
    let start = date.to_zoned_datetime(TimeZone::UTC).ok()?;
    Some(start.timestamp().as_millisecond())
}
