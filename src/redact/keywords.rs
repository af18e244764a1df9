//! Finds, in one pass, which rules' keywords occur in a text and on which lines.
//!
//! A rule's regex runs only where one of its keywords occurs, as in gitleaks: with several
//! hundred rules, that is what keeps an ordinary prompt cheap. Looking for each keyword in turn
//! would cost a pass over the text per keyword, and an Aho-Corasick automaton over all of them
//! takes about 0.2 ms to build here, a tenth of a whole hook. Instead the first three bytes of
//! every keyword go into a 4,096-bit filter: one pass tests each position's three bytes against
//! it, and only the positions that pass compare the few keywords starting with those bytes.
//!
//! A rule then runs on the lines that hold its keywords rather than on the whole text, so a
//! 100 MB file with a secret every few kilobytes costs each rule a few lines, not 100 MB.

use super::rules::{KEYWORDS, RULES};
use std::sync::LazyLock;

/// Bit `bucket(prefix)` is set for the first three bytes of every keyword.
static FILTER: LazyLock<[u64; 64]> = LazyLock::new(|| {
    let mut bits = [0u64; 64];
    for k in KEYWORDS {
        let b = bucket(k.prefix);
        bits[b >> 6] |= 1 << (b & 63);
    }
    bits
});

fn bucket(prefix: u32) -> usize {
    (prefix.wrapping_mul(0x9E37_79B1) >> 20) as usize
}

/// How close (in bytes) a rule's next keyword must be to extend its last window.
const NEAR: usize = 4096;

/// A byte range of the text that rule `rule` must search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub rule: usize,
    pub start: usize,
    pub end: usize,
}

/// The windows to search in `text`, looking for keywords only inside `ranges` (sorted,
/// disjoint byte ranges, each starting at a line start or at the text's start). A line-based
/// rule gets each line (clipped to its range) holding one of its keywords, once; a multiline
/// rule gets the whole range. Windows come out in rule order.
pub fn windows(text: &str, ranges: &[(usize, usize)]) -> Vec<Window> {
    let bytes = text.as_bytes();
    let filter = &*FILTER;
    let mut out: Vec<Window> = Vec::new();
    // Per rule, its last window in `out` and the range it lies in: a hit before that window's
    // end is covered already, and a hit within `NEAR` bytes after it extends it, so
    // keyword-dense text costs a rule a few long searches rather than one per line. Made on the
    // first hit: most texts have none.
    let mut last: Vec<Option<(usize, usize)>> = Vec::new();
    for (r, &(from, to)) in ranges.iter().enumerate() {
        let mut key: u32 = 0;
        let mut line_start = from;
        let mut line_end: Option<usize> = None;
        for i in from..to {
            let b = bytes[i];
            if b == b'\n' {
                line_start = i + 1;
                line_end = None;
            }
            key = ((key << 8) | u32::from(b.to_ascii_lowercase())) & 0x00FF_FFFF;
            if i < from + 2 {
                continue;
            }
            let h = bucket(key);
            if filter[h >> 6] & (1 << (h & 63)) == 0 {
                continue;
            }
            let start = i - 2;
            let first = KEYWORDS.partition_point(|k| k.prefix < key);
            for k in KEYWORDS[first..].iter().take_while(|k| k.prefix == key) {
                let rule = usize::from(k.rule);
                let word = k.text.as_bytes();
                if last.is_empty() {
                    last = vec![None; RULES.len()];
                }
                if last[rule].is_some_and(|(w, _)| out[w].end > start)
                    || !bytes[start..]
                        .get(..word.len())
                        .is_some_and(|w| w.eq_ignore_ascii_case(word))
                {
                    continue;
                }
                if let Some(after) = k.assignment
                    && !assignment_follows(&bytes[start..to], word.len(), after)
                {
                    continue;
                }
                let (ws, we) = if RULES[rule].multiline {
                    (from, to)
                } else {
                    // Keywords hold no newline, so `line_start` is this keyword's line.
                    let end = *line_end.get_or_insert_with(|| {
                        bytes[i..to]
                            .iter()
                            .position(|&c| c == b'\n')
                            .map_or(to, |p| i + p)
                    });
                    (line_start, end)
                };
                match last[rule] {
                    Some((w, in_range)) if in_range == r && out[w].end + NEAR >= ws => {
                        out[w].end = we;
                    }
                    _ => {
                        last[rule] = Some((out.len(), r));
                        out.push(Window {
                            rule,
                            start: ws,
                            end: we,
                        });
                    }
                }
            }
        }
    }
    out.sort_by_key(|w| (w.rule, w.start));
    out
}

/// Whether `text`, which starts at a keyword `len` bytes long, continues as an assignment to
/// the name the keyword is part of: at most `after` more name characters (letters, digits,
/// `_ . $ -`) and a digit, at most three of `\ " ' ]`, at most three blanks, then `=`, `:`, `?=` or `||=`.
/// The assignment rules' regexes require this after the name, so where it fails they cannot
/// match. A keyword may itself end past the name (`auth"`): the name then ends inside it.
pub(super) fn assignment_follows(text: &[u8], len: usize, after: u8) -> bool {
    let name = |b: &u8| b.is_ascii_alphanumeric() || b"_.$-".contains(b);
    let mut i = text.iter().take_while(|b| name(b)).count();
    // The regexes allow one digit after the name (`password2`).
    let digit = usize::from(i > 0 && text[i - 1].is_ascii_digit());
    if i > len + usize::from(after) + digit {
        return false;
    }
    i += text[i..]
        .iter()
        .take(3)
        .take_while(|b| b"\\\"']".contains(b))
        .count();
    i += text[i..]
        .iter()
        .take(3)
        .take_while(|b| b" \t\r\x0b\x0c".contains(b))
        .count();
    let rest = &text[i..];
    rest.starts_with(b"=")
        || rest.starts_with(b":")
        || rest.starts_with(b"?=")
        || rest.starts_with(b"||=")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule_index(id: &str) -> usize {
        RULES.iter().position(|r| r.id == id).unwrap()
    }

    #[test]
    fn keywords_are_sorted_and_every_rule_has_one() {
        assert!(KEYWORDS.windows(2).all(|w| w[0].prefix <= w[1].prefix));
        for (i, rule) in RULES.iter().enumerate() {
            assert!(
                KEYWORDS.iter().any(|k| usize::from(k.rule) == i),
                "{} has no keyword",
                rule.id
            );
        }
    }

    #[test]
    fn a_keyword_opens_a_window_on_its_line_only() {
        let text = "first line\nuse ghp_abc here\nlast line";
        let w = windows(text, &[(0, text.len())]);
        let gh = rule_index("github-token");
        let hit: Vec<_> = w.iter().filter(|w| w.rule == gh).collect();
        assert_eq!(hit.len(), 1);
        assert_eq!(&text[hit[0].start..hit[0].end], "use ghp_abc here");
    }

    #[test]
    fn keywords_match_in_any_case_and_at_the_edges() {
        let gh = rule_index("github-token");
        for text in ["GHP_", "x GhP_", "ghp_"] {
            let w = windows(text, &[(0, text.len())]);
            assert!(w.iter().any(|w| w.rule == gh), "{text:?}");
        }
        assert!(windows("gh", &[(0, 2)]).is_empty());
    }

    #[test]
    fn an_assignment_rule_opens_only_where_an_assignment_follows() {
        let rule = rule_index("credential-assignment");
        let opens = |text: &str| {
            windows(text, &[(0, text.len())])
                .iter()
                .any(|w| w.rule == rule)
        };
        for text in [
            "test result: ok. 42 passed; 0 failed",
            "the token expired, rotate the secret",
            "passwords must be long",
        ] {
            assert!(!opens(text), "{text:?}");
        }
        for text in [
            "DB_PASSWORD=hunter22",
            "password: hunter22",
            "{\"api_token\" : \"abc\"}",
            "export GITHUB_TOKEN ?= abc",
            "x.secret_key\\\" => 'v'",
            "PASS1 ||= abc",
        ] {
            assert!(opens(text), "{text:?}");
        }
    }

    #[test]
    fn a_name_that_runs_past_the_keyword_opens_no_assignment_window() {
        let rule = rule_index("key-assignment");
        let opens = |text: &str| {
            windows(text, &[(0, text.len())])
                .iter()
                .any(|w| w.rule == rule)
        };
        assert!(!opens(
            "Write {\"file_path\":\"/home/dev/shop/src/checkout.rs\"}"
        ));
        assert!(!opens("keys = [1, 2]"));
        assert!(opens("ado_pat = \"abc\""));
        assert!(opens("license_key2: abc"));
        assert!(opens("secret_key_base: abc"));
        assert!(opens("auth\" : \"abc\""));
        assert!(opens("auth_credentials = abc"));
    }

    #[test]
    fn ordinary_prose_opens_no_provider_window() {
        let text = "please fix the failing test in src/cart.rs and rerun the checkout flow";
        let w = windows(text, &[(0, text.len())]);
        assert!(
            w.is_empty(),
            "{:?}",
            w.iter().map(|w| RULES[w.rule].id).collect::<Vec<_>>()
        );
    }
}
