//! The small template language of the adapter files.
//!
//! `{a.b}` is a payload field; `{a|b}` the first of several that is present and non-empty;
//! `a[].b` (in `files`) walks an array. Strings are inserted as they are, other values as JSON.
//! Every inserted value is cut to [`FIELD_MAX`] bytes with a marker, and objects are serialised
//! through a writer that stops at that size, so a 10 MB tool response costs the hook only the
//! parse, never a 10 MB copy, redaction or insert.

use serde_json::Value;
use std::io::Write;

/// The most bytes one placeholder contributes.
pub const FIELD_MAX: usize = 8 * 1024;

/// The marker left where a value was cut.
pub const CUT_MARKER: &str = " … [truncated]";

/// A rendered template: the text, and whether any placeholder produced something.
#[derive(Debug, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub filled: bool,
}

/// Render `template` against `payload`.
pub fn render(template: &str, payload: &Value) -> Rendered {
    let mut text = String::new();
    let mut filled = false;
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        text.push_str(&rest[..open]);
        let spec = &rest[open + 1..open + close];
        let value = spec
            .split('|')
            .map(|p| lookup(payload, p.trim()))
            .find_map(|v| v.and_then(value_text).filter(|s| !s.trim().is_empty()));
        if let Some(v) = value {
            filled = true;
            text.push_str(&v);
        }
        rest = &rest[open + close + 1..];
    }
    text.push_str(rest);
    Rendered { text, filled }
}

/// The value at a dotted path (`a.b.c`; a numeric segment indexes an array; an array where an
/// object is expected yields its first element, as for `workspace_roots`).
pub fn lookup<'v>(payload: &'v Value, path: &str) -> Option<&'v Value> {
    let mut v = payload;
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        v = match v {
            Value::Object(map) => map.get(seg)?,
            Value::Array(items) => match seg.parse::<usize>() {
                Ok(i) => items.get(i)?,
                Err(_) => items.first()?.get(seg)?,
            },
            _ => return None,
        };
    }
    Some(v)
}

/// The first string at any of `paths` (arrays yield their first string).
pub fn first_string(payload: &Value, paths: &[String]) -> Option<String> {
    paths.iter().find_map(|p| {
        let v = lookup(payload, p)?;
        let s = match v {
            Value::Array(items) => items.iter().find_map(Value::as_str)?,
            other => other.as_str()?,
        };
        (!s.trim().is_empty()).then(|| s.to_owned())
    })
}

/// Every string at `path`, where `x[]` walks the array `x` (`attachments[].file_path`).
pub fn strings_at(payload: &Value, path: &str, out: &mut Vec<String>) {
    match path.split_once("[]") {
        None => match lookup(payload, path) {
            Some(Value::String(s)) if !s.is_empty() => out.push(s.clone()),
            Some(Value::Array(items)) => out.extend(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            ),
            _ => {}
        },
        Some((head, tail)) => {
            if let Some(Value::Array(items)) = lookup(payload, head) {
                let tail = tail.trim_start_matches('.');
                for item in items {
                    if tail.is_empty() {
                        if let Some(s) = item.as_str() {
                            out.push(s.to_owned());
                        }
                    } else {
                        strings_at(item, tail, out);
                    }
                }
            }
        }
    }
}

/// A value as text, cut to [`FIELD_MAX`]. Null is nothing.
fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(cut(s, FIELD_MAX)),
        Value::Bool(_) | Value::Number(_) => Some(v.to_string()),
        Value::Array(_) | Value::Object(_) => {
            let mut w = Bounded {
                buf: Vec::new(),
                limit: FIELD_MAX + 1024,
            };
            // The writer fails on purpose when full; the bytes kept so far are what we want, and
            // being longer than FIELD_MAX they get the cut marker.
            let _ = serde_json::to_writer(&mut w, v);
            Some(cut(&String::from_utf8_lossy(&w.buf), FIELD_MAX))
        }
    }
}

/// Cut `s` to at most `max` bytes. The cut falls after a separator (white space, a quote, a comma)
/// where one is near, so no word, and so no secret, is split in half: redaction runs after this
/// and must still see whole secrets.
pub fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let window_start = end.saturating_sub(1024);
    if let Some(sep) =
        s[window_start..end].rfind(|c: char| c.is_whitespace() || "\"',;".contains(c))
    {
        end = window_start + sep + 1;
    }
    let mut out = String::with_capacity(end + CUT_MARKER.len());
    out.push_str(&s[..end]);
    out.push_str(CUT_MARKER);
    out
}

/// A writer that keeps at most `limit` bytes, then fails.
struct Bounded {
    buf: Vec<u8>,
    limit: usize,
}

impl Write for Bounded {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let room = self.limit - self.buf.len();
        if data.len() > room {
            self.buf.extend_from_slice(&data[..room]);
            return Err(std::io::Error::other("full"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_fields_alternatives_and_json() {
        let p = json!({"a": "x", "n": 3, "o": {"k": [1, 2]}, "empty": ""});
        assert_eq!(
            render("{a} {n}", &p),
            Rendered {
                text: "x 3".into(),
                filled: true
            }
        );
        assert_eq!(render("{empty|a}", &p).text, "x");
        assert_eq!(render("{o}", &p).text, r#"{"k":[1,2]}"#);
        assert_eq!(render("{o.k.1}", &p).text, "2");
        assert_eq!(
            render("S: {missing}", &p),
            Rendered {
                text: "S: ".into(),
                filled: false
            }
        );
        assert_eq!(render("unclosed {a", &p).text, "unclosed {a");
    }

    #[test]
    fn arrays_and_first_strings() {
        let p = json!({"roots": ["/w/shop", "/w/x"], "att": [{"f": "/a"}, {"f": "/b"}, {"g": 1}]});
        assert_eq!(
            first_string(&p, &["cwd".into(), "roots".into()]).unwrap(),
            "/w/shop"
        );
        let mut files = Vec::new();
        strings_at(&p, "att[].f", &mut files);
        strings_at(&p, "roots", &mut files);
        assert_eq!(files, ["/a", "/b", "/w/shop", "/w/x"]);
    }

    #[test]
    fn huge_values_are_cut_with_a_marker_at_a_separator() {
        let big = "word ".repeat(10_000);
        let out = render("{b}", &json!({ "b": big })).text;
        assert!(out.len() <= FIELD_MAX + CUT_MARKER.len());
        assert!(
            out.ends_with("word  … [truncated]"),
            "{}",
            &out[out.len() - 30..]
        );
        let obj = json!({ "list": vec!["abcdefgh"; 100_000] });
        let out = render("{list}", &obj).text;
        assert!(out.len() <= FIELD_MAX + CUT_MARKER.len() && out.ends_with(CUT_MARKER));
    }

    #[test]
    fn cut_respects_char_boundaries() {
        let s = "é".repeat(FIELD_MAX);
        let out = cut(&s, FIELD_MAX + 1);
        assert!(out.ends_with(CUT_MARKER));
    }
}
