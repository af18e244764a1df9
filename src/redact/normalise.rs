//! A second view of a text in which obfuscated secrets read as they were written.
//!
//! People paste secrets with a zero-width space or a soft hyphen inside (copied from chat or a
//! wiki), percent-encoded in a URL (`token%3Dghp_…`), JSON-escaped (`\u0067hp_…`), or wrapped
//! onto two lines by a terminal. The rules match the plain form, so the redactor also searches
//! a view with invisible characters removed and escapes decoded, and maps what it finds there
//! back to the bytes of the original that produced it. The original is what is kept: only the
//! mapped spans are replaced, so a text in which nothing matches comes back byte for byte.
//!
//! Most texts have none of this, and the hook is on the hot path: [`view`] returns `None` after
//! a few fast scans (`is_ascii`, searches for `%` and `\u`) when there is nothing to decode.

/// The decoded text and, for each of its bytes, the bytes of the original it came from.
pub(super) struct View {
    pub text: String,
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl View {
    /// The bytes of the original that the view's `start..end` came from.
    pub fn original(&self, start: usize, end: usize) -> (usize, usize) {
        (self.starts[start], self.ends[end - 1])
    }
}

/// Characters that display as nothing: zero-width spaces and joiners, the word joiner, the
/// byte-order mark and the soft hyphen (shown only where a line breaks).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{00ad}' | '\u{180e}'
    )
}

/// Whether `text` has anything the view would change.
fn needs_view(text: &str) -> bool {
    (!text.is_ascii() && text.chars().any(is_invisible))
        || (text.contains('%') && text.as_bytes().windows(3).any(|w| percent(w).is_some()))
        || text.contains("\\u")
}

/// The printable ASCII character that `%XX` at the start of `b` encodes.
fn percent(b: &[u8]) -> Option<u8> {
    if b.len() < 3 || b[0] != b'%' {
        return None;
    }
    let hex = |c: u8| (c as char).to_digit(16);
    let v = u8::try_from(hex(b[1])? * 16 + hex(b[2])?).ok()?;
    (0x20..0x7f).contains(&v).then_some(v)
}

/// The character that the JSON escape `\uXXXX` at the start of `b` encodes, unless it is a
/// control character or half of a surrogate pair.
fn unicode_escape(b: &[u8]) -> Option<char> {
    if b.len() < 6 || b[0] != b'\\' || b[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&b[2..6]).ok()?;
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    (!c.is_control()).then_some(c)
}

/// The view of `text`, or `None` when it would be the same text.
pub(super) fn view(text: &str) -> Option<View> {
    if !needs_view(text) {
        return None;
    }
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut starts = Vec::with_capacity(b.len());
    let mut ends = Vec::with_capacity(b.len());
    let mut changed = false;
    let mut push = |bytes: &[u8], from: usize, to: usize| {
        for &x in bytes {
            out.push(x);
            starts.push(from);
            ends.push(to);
        }
    };
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            // An escaped backslash: what follows it is not an escape.
            push(&b[i..i + 2], i, i + 2);
            i += 2;
        } else if let Some(c) = unicode_escape(&b[i..]) {
            if !is_invisible(c) {
                push(c.encode_utf8(&mut [0; 4]).as_bytes(), i, i + 6);
            }
            changed = true;
            i += 6;
        } else if let Some(v) = percent(&b[i..]) {
            push(&[v], i, i + 3);
            changed = true;
            i += 3;
        } else if b[i] < 0x80 {
            push(&b[i..=i], i, i + 1);
            i += 1;
        } else {
            let c = text[i..].chars().next().expect("i is a char boundary");
            let n = c.len_utf8();
            if is_invisible(c) {
                changed = true;
            } else {
                // Every byte of a character maps to the whole of it, so a span of the view that
                // starts or ends at a character boundary maps to one in the original.
                push(&b[i..i + n], i, i + n);
            }
            i += n;
        }
    }
    if !changed {
        return None;
    }
    Some(View {
        text: String::from_utf8(out).ok()?,
        starts,
        ends,
    })
}

/// A line break that may have cut a token in two, as a terminal wraps a long line: the bytes
/// `start..end` of the break (`\n`, `\r\n`, or the JSON escapes of either), with a run of at
/// least 12 token characters holding letters and digits right before it and a token character
/// right after it. Ordinary lines seldom end that way, so the joined search below is rare.
pub(super) fn wraps(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let b = text.as_bytes();
    let token = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    text.match_indices('\n')
        .map(|(i, _)| {
            let start = if i > 0 && b[i - 1] == b'\r' { i - 1 } else { i };
            (start, i + 1)
        })
        .chain(text.match_indices("\\n").map(|(i, _)| {
            let start = if text[..i].ends_with("\\r") { i - 2 } else { i };
            (start, i + 2)
        }))
        .filter(move |&(start, end)| {
            let run = b[..start].iter().rev().take_while(|&&c| token(c)).count();
            let before = &b[start - run..start];
            run >= 12
                && before.iter().any(u8::is_ascii_digit)
                && before.iter().any(u8::is_ascii_alphabetic)
                && b.get(end).is_some_and(|&c| token(c))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn invisible_characters_are_removed_and_mapped_to_the_original() {
        let text = "tok ghp_ab\u{200b}cd end";
        let v = view(text).unwrap();
        assert_eq!(v.text, "tok ghp_abcd end");
        let (s, e) = v.original(4, 12);
        assert_eq!(&text[s..e], "ghp_ab\u{200b}cd");
    }

    #[test]
    fn percent_and_json_escapes_are_decoded_and_mapped_to_the_escape() {
        let text = r"a%3Db \u0067hp_x";
        let v = view(text).unwrap();
        assert_eq!(v.text, "a=b ghp_x");
        assert_eq!(v.original(1, 2), (1, 4));
        assert_eq!(v.original(4, 9), (6, 16));
    }

    #[test]
    fn an_escaped_backslash_is_not_an_escape() {
        assert!(view(r"C:\\users\\me").is_none());
        assert_eq!(view(r"a\\u0041 %41").unwrap().text, r"a\\u0041 A");
    }

    #[test]
    fn a_break_after_a_long_mixed_run_is_a_possible_wrap() {
        let text = "echo ghp_abc123def456\nxyz and\nprose line\n";
        assert_eq!(wraps(text).collect::<Vec<_>>(), [(21, 22)]);
        assert_eq!(wraps(r"k sk-ant-api03-abc\r\nrest").count(), 1);
        assert_eq!(wraps("ordinary words end here\nand go on").count(), 0);
    }

    proptest! {
        /// Text with nothing to decode has no view, so the redactor searches it once, as before.
        #[test]
        fn text_without_escapes_or_invisible_characters_has_no_view(
            s in "[^%\\\\\u{200b}\u{200c}\u{200d}\u{2060}\u{feff}\u{ad}\u{180e}]{0,300}"
        ) {
            prop_assert!(view(&s).is_none());
        }

        /// Wherever a view exists, it only removes or decodes: mapping each of its bytes back
        /// gives spans in order, on character boundaries of the original.
        #[test]
        fn a_view_maps_back_in_order(s in "(%[0-9A-F]{2}|\\\\u00[4-7][0-9a-f]|\u{200b}|[a-z =])*") {
            if let Some(v) = view(&s) {
                let mut last = 0;
                for i in 0..v.text.len() {
                    let (a, b) = v.original(i, i + 1);
                    prop_assert!(a >= last && b > a && s.is_char_boundary(a) && s.is_char_boundary(b));
                    last = a;
                }
            }
        }
    }
}
