//! The words of a memory as supersession compares them: lowercased tokens that keep names
//! whole (`config.toml`, `20.11`, `ESP-IDF`), a crude stem so "deploys", "deployed" and
//! "deploying" meet, and the sentences a note is made of.
//!
//! A stemmer crate (Porter, Snowball) would stem better, but the comparison here is only ever
//! "does the older memory say this word too", where a suffix cut is enough and a real stemmer's
//! mistakes on names ("redis" → "redi") would cost more than they save.

use std::collections::HashSet;

/// Words that carry no subject: function words, pronouns, and the verbs and adverbs every
/// statement of a switch is made of.
const FILLER: &str = "a an the and or but of to in on at by for from with into onto as is are was \
    were be been being it its this that these those there here we our us you your they their \
    them i my me he she his her all any some every each also still just only now currently \
    today use uses used using via per than then so do does did done has have had will would \
    should can could may might must not no yes one two both either own same other \
    after before since until when while which who what where how why off out up down over \
    instead rather longer anymore more less about";

/// Whether `w` (lowercase) is a filler word.
pub(crate) fn filler(w: &str) -> bool {
    static SET: std::sync::LazyLock<HashSet<&'static str>> =
        std::sync::LazyLock::new(|| FILLER.split_whitespace().collect());
    SET.contains(w)
}

/// The tokens of `s`, lowercased: whitespace-separated, with surrounding punctuation, quotes
/// and backticks cut and a possessive `'s` dropped; inner dots, dashes, slashes and colons stay.
pub(crate) fn tokens(s: &str) -> Vec<String> {
    s.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '"' | '`'))
        .map(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '$' | '~'));
            let w = w.strip_suffix("'s").unwrap_or(w);
            w.to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// `w` without a plural or verb ending, so that inflections of one word meet.
pub(crate) fn stem(w: &str) -> String {
    let n = w.chars().count();
    if !w.chars().all(char::is_alphabetic) || n <= 3 {
        return w.to_owned();
    }
    let mut head = w.to_owned();
    for (end, to, min) in [
        ("ies", "y", 5),
        ("sses", "ss", 5),
        ("ing", "", 6),
        ("ed", "", 5),
        ("es", "", 5),
        ("s", "", 4),
    ] {
        if n >= min
            && let Some(h) = w.strip_suffix(end)
            // "redis", "status", "class": an s after i, u or s is the word's own.
            && !(end == "s" && h.ends_with(['s', 'i', 'u']))
        {
            head = format!("{h}{to}");
            break;
        }
    }
    // "shipped" and "ship", "based" and "base" meet: a doubled last consonant is one, and a
    // final e goes.
    let bytes = head.as_bytes();
    if let [.., a, b] = bytes
        && a == b
        && !matches!(a, b's' | b'l' | b'z' | b'e' | b'o')
    {
        head.pop();
    }
    if head.len() > 3 && head.ends_with('e') {
        head.pop();
    }
    head
}

/// The stems of `s`'s words that are not filler: what a text is about.
pub(crate) fn content(s: &str) -> Vec<String> {
    tokens(s)
        .iter()
        .filter(|w| !filler(w))
        .map(|w| stem(w))
        .collect()
}

/// The sentences and clauses of a note: cut at `.`, `!`, `?` or `;` before a space or the end,
/// at a colon that opens a clause, and at line breaks. A dot inside a token (`config.toml`,
/// `5.0.4`) does not cut.
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let ends = match c {
            '\n' => true,
            '.' | '!' | '?' | ';' | ':' => bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace),
            _ => false,
        };
        if ends {
            let s = text[start..i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + c.len_utf8();
        }
    }
    let s = text[start..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_names_whole_and_stems_meet() {
        assert_eq!(
            tokens("Use `config.toml`, Node 20.11 (ESP-IDF's driver)."),
            ["use", "config.toml", "node", "20.11", "esp-idf", "driver"]
        );
        for (a, b) in [
            ("deploys", "deploy"),
            ("deployed", "deploy"),
            ("deploying", "deploy"),
        ] {
            assert_eq!(stem(a), stem(b));
        }
        assert_eq!(stem("libraries"), "library");
        assert_eq!(stem("shipped"), stem("ships"));
        assert_eq!(stem("based"), stem("base"));
        assert_eq!(
            stem("redis"),
            "redis",
            "a name ending in s keeps it when short"
        );
        assert_eq!(stem("class"), "class");
        assert_eq!(content("We now use the Redis caches"), ["redis", "cach"]);
    }

    #[test]
    fn sentences_cut_at_ends_not_inside_names() {
        assert_eq!(
            sentences("Decision: use uv. Django 5.0.4 is pinned in `requirements.txt`; done\nnext"),
            [
                "Decision",
                "use uv",
                "Django 5.0.4 is pinned in `requirements.txt`",
                "done",
                "next"
            ]
        );
    }
}
