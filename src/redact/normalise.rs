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
//! a few fast scans (`is_ascii`, searches for `%` and `\u`) when there is nothing to decode, and
//! otherwise holds only the lines that have something to decode.

/// The decoded lines of the original that had something to decode, each followed by a line
/// break, where each lies in the view, and for each byte of the view the bytes of the original
/// it came from.
pub(super) struct View {
    pub text: String,
    pub lines: Vec<(usize, usize)>,
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
/// byte-order mark, the soft hyphen (shown only where a line breaks) and the Mongolian vowel
/// separator.
const INVISIBLE: [char; 7] = [
    '\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}', '\u{00ad}', '\u{180e}',
];

fn is_invisible(c: char) -> bool {
    INVISIBLE.contains(&c)
}

/// Where in `text` the view might differ: each invisible character, `%XX` and `\uXXXX`. Each
/// kind costs one fast scan (`is_ascii`, a search for `%`, for `\u`) when it is absent.
fn candidates(text: &str) -> Vec<usize> {
    let mut at: Vec<usize> = Vec::new();
    if !text.is_ascii() {
        for c in INVISIBLE {
            at.extend(text.match_indices(c).map(|(i, _)| i));
        }
    }
    let b = text.as_bytes();
    if text.contains('%') {
        at.extend(
            text.match_indices('%')
                .map(|(i, _)| i)
                .filter(|&i| percent(&b[i..]).is_some()),
        );
    }
    // A one-byte search is a `memchr`; a two-byte one is not.
    at.extend(
        text.match_indices('\\')
            .map(|(i, _)| i)
            .filter(|&i| b.get(i + 1) == Some(&b'u')),
    );
    at.sort_unstable();
    at
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

/// The view of the lines of `text` that have something to decode, or `None` when none has.
pub(super) fn view(text: &str) -> Option<View> {
    let at = candidates(text);
    if at.is_empty() {
        return None;
    }
    let mut v = View {
        text: String::new(),
        lines: Vec::new(),
        starts: Vec::new(),
        ends: Vec::new(),
    };
    let mut out = Vec::new();
    let mut done = 0;
    for i in at {
        if i < done {
            continue;
        }
        let start = text[..i].rfind('\n').map_or(0, |p| p + 1);
        let end = text[i..].find('\n').map_or(text.len(), |p| i + p);
        let from = out.len();
        if decode(text, start, end, &mut out, &mut v) {
            v.lines.push((from, out.len()));
            out.push(b'\n');
            v.starts.push(end);
            v.ends.push(end);
        } else {
            out.truncate(from);
            v.starts.truncate(from);
            v.ends.truncate(from);
        }
        done = end + 1;
    }
    if v.lines.is_empty() {
        return None;
    }
    v.text = String::from_utf8(out).ok()?;
    Some(v)
}

/// Append the decoded bytes `start..end` of `text` to `out`, and their origins to `v`; whether
/// anything was decoded or removed.
fn decode(text: &str, start: usize, end: usize, out: &mut Vec<u8>, v: &mut View) -> bool {
    let b = text.as_bytes();
    let mut push = |out: &mut Vec<u8>, bytes: &[u8], from: usize, to: usize| {
        out.extend_from_slice(bytes);
        v.starts.extend(std::iter::repeat_n(from, bytes.len()));
        v.ends.extend(std::iter::repeat_n(to, bytes.len()));
    };
    let mut changed = false;
    let percent_encoded = (start..end).any(|i| percent(&b[i..end]).is_some());
    let mut i = start;
    while i < end {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            // An escaped backslash: what follows it is not an escape.
            push(out, &b[i..i + 2], i, i + 2);
            i += 2;
        } else if let Some(c) = unicode_escape(&b[i..end]) {
            if !is_invisible(c) {
                push(out, c.encode_utf8(&mut [0; 4]).as_bytes(), i, i + 6);
            }
            changed = true;
            i += 6;
        } else if let Some(x) = percent(&b[i..end]) {
            push(out, &[x], i, i + 3);
            changed = true;
            i += 3;
        } else if b[i] == b'+' && percent_encoded {
            // On a line with percent escapes, `+` is a form's space.
            push(out, b" ", i, i + 1);
            i += 1;
        } else if b[i] < 0x80 {
            push(out, &b[i..=i], i, i + 1);
            i += 1;
        } else {
            let c = text[i..].chars().next().expect("i is a char boundary");
            let n = c.len_utf8();
            if is_invisible(c) {
                changed = true;
            } else {
                // Every byte of a character maps to the whole of it, so a span of the view that
                // starts or ends at a character boundary maps to one in the original.
                push(out, &b[i..i + n], i, i + n);
            }
            i += n;
        }
    }
    changed
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
        .chain(
            text.match_indices('\\')
                .filter(move |&(i, _)| b.get(i + 1) == Some(&b'n'))
                .map(|(i, _)| {
                    let start = if text[..i].ends_with("\\r") { i - 2 } else { i };
                    (start, i + 2)
                }),
        )
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
        assert_eq!(v.text, "tok ghp_abcd end\n");
        assert_eq!(v.lines, [(0, 16)]);
        let (s, e) = v.original(4, 12);
        assert_eq!(&text[s..e], "ghp_ab\u{200b}cd");
    }

    #[test]
    fn percent_and_json_escapes_are_decoded_and_mapped_to_the_escape() {
        let text = r"a%3Db \u0067hp_x";
        let v = view(text).unwrap();
        assert_eq!(v.text, "a=b ghp_x\n");
        assert_eq!(v.original(1, 2), (1, 4));
        assert_eq!(v.original(4, 9), (6, 16));
    }

    #[test]
    fn only_the_lines_that_changed_are_searched_again() {
        let text = "plain\nhas %41 here\nplain\n";
        let v = view(text).unwrap();
        assert_eq!(v.text, "has A here\n");
        assert_eq!(v.lines, [(0, 10)]);
        assert_eq!(v.original(0, 10), (6, 18));
    }

    #[test]
    fn an_escaped_backslash_is_not_an_escape() {
        assert!(view(r"C:\\users\\me").is_none());
        assert_eq!(view(r"a\\u0041 %41").unwrap().text, "a\\\\u0041 A\n");
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
                for i in 0..v.text.len() - 1 {
                    let (a, b) = v.original(i, i + 1);
                    prop_assert!(a >= last && b > a && s.is_char_boundary(a) && s.is_char_boundary(b));
                    last = a;
                }
            }
        }
    }
}
