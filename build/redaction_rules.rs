//! Turns the built-in redaction rules (`src/redact/rules/*.toml`) into Rust statics.
//!
//! The rules are data people edit, so they live in TOML beside the code; the hook cannot afford
//! a TOML parser at every event, so the build writes them out as `&'static` tables, and a rule
//! with a bad field fails the build instead of a hook. The examples go to a second file that only
//! the unit tests include, so they cost the binary nothing.

use std::collections::HashSet;
use std::fmt::Write;
use std::path::Path;

/// The rule files, in the order their rules run and win: where two rules' matches overlap, the
/// earlier rule's marker names the merged span, so specific shapes come before generic ones.
const FILES: &[&str] = &["blocks.toml", "providers.toml", "generic.toml"];

/// The value checks a rule may name (see `src/redact/checks.rs`), with their Rust names.
const CHECKS: &[(&str, &str)] = &[
    ("password", "Password"),
    ("credential", "Credential"),
    ("pem-base64", "PemBase64"),
    ("jwt-base64", "JwtBase64"),
    ("mixed-token", "MixedToken"),
    ("base64-secret", "Base64Secret"),
];

const FIELDS: &[&str] = &[
    "id",
    "description",
    "keywords",
    "regex",
    "marker",
    "entropy",
    "multiline",
    "assignment",
    "assignment_except",
    "check",
    "examples",
    "negatives",
];

pub fn generate() {
    // Read at run time: a build script compiled in another checkout (a copied `target/`) must
    // still read this checkout's rules.
    let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join("src/redact/rules");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut rules = String::from("pub static RULES: &[Rule] = &[\n");
    let mut examples =
        String::from("/// Every rule's examples.\npub static EXAMPLES: &[Examples] = &[\n");
    let mut keywords: Vec<(u32, String, usize, Option<i64>)> = Vec::new();
    let mut ids = HashSet::new();
    let mut index = 0;
    for name in FILES {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let Ok(text) = std::fs::read_to_string(&path) else {
            panic!("{} is missing", path.display())
        };
        let file: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let list = file
            .get("rule")
            .and_then(|r| r.as_array())
            .unwrap_or_else(|| panic!("{name}: no [[rule]] entries"));
        for rule in list {
            let rule = rule
                .as_table()
                .unwrap_or_else(|| panic!("{name}: a rule is not a table"));
            let id = str_field(rule, "id", name);
            let at = format!("{name}: rule {id}");
            for key in rule.keys() {
                assert!(FIELDS.contains(&key.as_str()), "{at}: unknown field {key}");
            }
            assert!(ids.insert(id.clone()), "{at}: the id is used twice");
            let description = str_field(rule, "description", &at);
            let pattern = after_escapes(&str_field(rule, "regex", &at));
            let marker = rule
                .get("marker")
                .map(|_| str_field(rule, "marker", &at))
                .unwrap_or_else(|| format!("[redacted:{id}]"));
            let entropy = rule.get("entropy").map(|v| {
                v.as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .unwrap_or_else(|| panic!("{at}: entropy is not a number"))
            });
            let multiline = rule
                .get("multiline")
                .map(|v| v.as_bool().unwrap_or_else(|| panic!("{at}: multiline")))
                .unwrap_or(false);
            // How many name characters may follow a keyword before the assignment, per keyword
            // (see `assignment_follows` in src/redact/keywords.rs).
            let assignment = rule.get("assignment").map(|v| {
                let n = v.as_integer().filter(|n| (0..=u8::MAX as i64).contains(n));
                n.unwrap_or_else(|| panic!("{at}: assignment must be a count of characters"))
            });
            assert!(
                !(assignment.is_some() && multiline),
                "{at}: an assignment rule searches single lines"
            );
            let except: Vec<(String, i64)> = match rule.get("assignment_except") {
                None => vec![],
                Some(v) => {
                    assert!(
                        assignment.is_some(),
                        "{at}: assignment_except without assignment"
                    );
                    let t = v
                        .as_table()
                        .unwrap_or_else(|| panic!("{at}: assignment_except"));
                    t.iter()
                        .map(|(k, n)| {
                            let n = n.as_integer().filter(|n| (0..=u8::MAX as i64).contains(n));
                            (
                                k.clone(),
                                n.unwrap_or_else(|| panic!("{at}: assignment_except.{k}")),
                            )
                        })
                        .collect()
                }
            };
            let check = match rule.get("check") {
                None => "None".to_owned(),
                Some(v) => {
                    let c = v.as_str().unwrap_or_else(|| panic!("{at}: check"));
                    let Some((_, rust)) = CHECKS.iter().find(|(n, _)| *n == c) else {
                        panic!("{at}: unknown check {c:?}")
                    };
                    (*rust).to_owned()
                }
            };
            let words = strings(rule, "keywords", &at);
            assert!(!words.is_empty(), "{at}: needs at least one keyword");
            for (k, _) in &except {
                assert!(
                    words.contains(k),
                    "{at}: assignment_except.{k} is not a keyword"
                );
            }
            for w in words {
                let after = except
                    .iter()
                    .find(|(k, _)| *k == w)
                    .map(|(_, n)| *n)
                    .or(assignment);
                assert!(
                    w.len() >= 3 && w.is_ascii() && w == w.to_ascii_lowercase(),
                    "{at}: keyword {w:?} must be lowercase ASCII of 3 bytes or more"
                );
                let b = w.as_bytes();
                keywords.push((u32::from_be_bytes([0, b[0], b[1], b[2]]), w, index, after));
            }
            writeln!(
                rules,
                "    Rule {{ id: {id:?}, description: {description:?}, pattern: {pattern:?}, \
                 marker: {marker:?}, entropy: {entropy:?}, multiline: {multiline}, check: Check::{check} }},"
            )
            .unwrap();
            let pairs = rule
                .get("examples")
                .and_then(|v| v.as_array())
                .unwrap_or_else(|| panic!("{at}: needs examples = [[input, expected], ...]"));
            let mut pair_text = String::new();
            for p in pairs {
                let p = p.as_array().filter(|p| p.len() == 2);
                let p = p.unwrap_or_else(|| panic!("{at}: an example is not [input, expected]"));
                let (Some(input), Some(expected)) = (p[0].as_str(), p[1].as_str()) else {
                    panic!("{at}: an example is not two strings")
                };
                write!(pair_text, "({input:?}, {expected:?}), ").unwrap();
            }
            let negatives = strings(rule, "negatives", &at);
            assert!(
                !pairs.is_empty() && !negatives.is_empty(),
                "{at}: needs at least one example and one negative"
            );
            writeln!(
                examples,
                "    Examples {{ id: {id:?}, changed: &[{pair_text}], unchanged: &{negatives:?} }},"
            )
            .unwrap();
            index += 1;
        }
    }
    assert!(index < u16::MAX as usize, "too many rules");
    rules.push_str("];\n\n");
    examples.push_str("];\n");
    keywords.sort();
    rules.push_str(
        "/// Every rule's keywords, sorted by their first three bytes (as a big-endian number).\n\
         pub static KEYWORDS: &[Keyword] = &[\n",
    );
    for (prefix, text, rule, assignment) in keywords {
        writeln!(
            rules,
            "    Keyword {{ prefix: {prefix}, text: {text:?}, rule: {rule}, assignment: {assignment:?} }},"
        )
        .unwrap();
    }
    rules.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).to_owned();
    std::fs::write(out.join("redact_rules.rs"), rules).unwrap();
    std::fs::write(out.join("redact_examples.rs"), examples).unwrap();
}

/// A token right after an escaped newline in JSON text (`"line\\nghp_…"`) has no word boundary
/// before it (`n` is a word character), so every leading `\b` (at the start of the pattern or of
/// a group or alternative), and every leading `(?:\A|…)` guard, also accepts a preceding `\n`,
/// `\r` or `\t` escape; the engine trims the escape off a match again.
fn after_escapes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut rest = pattern;
    while let Some(i) = rest.find("\\b") {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let escaped = out.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1;
        let leading = out.is_empty()
            || out.ends_with("(?:")
            || out.ends_with('|')
            || out.ends_with('(')
            || (out.ends_with(')') && out.starts_with("(?") && !out[1..].contains('('))
            || (out.ends_with('>') && out.rfind("(?P<").is_some_and(|p| !out[p..].contains(')')));
        if leading && !escaped {
            out.push_str("(?:\\b|\\\\[nrt])");
        } else {
            out.push_str("\\b");
        }
        rest = &tail[2..];
    }
    out.push_str(rest);
    // Rules that guard a token's start with "text start or a character outside its alphabet"
    // get the same allowance.
    out.replace("(?:\\A|", "(?:\\A|\\\\[nrt]|")
}

fn str_field(rule: &toml::Table, key: &str, at: &str) -> String {
    rule.get(key)
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("{at}: {key} must be a string"))
        .to_owned()
}

fn strings(rule: &toml::Table, key: &str, at: &str) -> Vec<String> {
    let Some(list) = rule.get(key) else {
        return Vec::new();
    };
    list.as_array()
        .unwrap_or_else(|| panic!("{at}: {key} must be a list of strings"))
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("{at}: {key} must be a list of strings"))
                .to_owned()
        })
        .collect()
}
