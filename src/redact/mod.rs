//! The one redaction function.
//!
//! Every write path (hook, spool, every operation behind the CLI and MCP, import, scrub) goes
//! through [`Redactor::redact`]. The store only accepts [`Redacted`] values, so a write that
//! skipped redaction does not compile.
//!
//! Redaction sits on the hook's hot path, and compiling a few dozen regexes would cost more than
//! the whole insert. Each rule therefore names cheap keywords, like gitleaks does: a rule's regex
//! is compiled (once per process) and run only when one of its keywords occurs in the text.

mod builtin;
mod user_rules;

pub use builtin::{BUILTIN_RULES, BuiltinRule};
pub use user_rules::{RuleFileError, UserRule, check_rules, load_rule_file, parse_rules};

use crate::model::NewMemory;
use regex::Regex;
use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

/// Builtin rules with their compiled regexes, compiled on first need.
static COMPILED: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| BUILTIN_RULES.iter().map(|_| OnceLock::new()).collect());

/// The process's rules, loaded once: builtin plus the user's rule file, if
/// `ALETHEIA_REDACT_RULES` names one, or why that file could not be loaded.
static LOADED: LazyLock<Result<Redactor, String>> =
    LazyLock::new(|| Redactor::from_env().map_err(|e| e.to_string()));

/// What the hook falls back to when the user's file is bad: it must still store, so it reports
/// the problem once on stderr and uses the builtin rules.
static FALLBACK: LazyLock<Redactor> = LazyLock::new(|| {
    if let Err(e) = &*LOADED {
        eprintln!("aletheia: {e} (using the built-in rules only)");
    }
    Redactor::builtin()
});

/// Builtin rules plus optional user rules.
pub struct Redactor {
    user: Vec<UserRule>,
}

impl Redactor {
    /// Only the builtin rules.
    pub fn builtin() -> Redactor {
        Redactor { user: Vec::new() }
    }

    /// Builtin rules plus the given user rules.
    pub fn with_user_rules(user: Vec<UserRule>) -> Redactor {
        Redactor { user }
    }

    /// The loaded user rules.
    pub fn user_rules(&self) -> &[UserRule] {
        &self.user
    }

    /// Builtin rules plus the file named by `ALETHEIA_REDACT_RULES`, if any.
    pub fn from_env() -> Result<Redactor, RuleFileError> {
        match std::env::var_os("ALETHEIA_REDACT_RULES") {
            Some(p) if !p.is_empty() => Ok(Redactor {
                user: load_rule_file(std::path::Path::new(&p))?,
            }),
            _ => Ok(Redactor::builtin()),
        }
    }

    /// The process-wide redactor.
    pub fn global() -> &'static Redactor {
        match &*LOADED {
            Ok(r) => r,
            Err(_) => &FALLBACK,
        }
    }

    /// The process-wide redactor, or why the user's rule file could not be loaded: interactive
    /// commands refuse to run with a bad file, so the user sees the error where they can fix it.
    pub fn global_checked() -> Result<&'static Redactor, String> {
        LOADED.as_ref().map_err(Clone::clone)
    }

    /// Redact `text`: private blocks, known secret shapes, then credentials in URLs, headers and
    /// assignments. Redacting redacted text changes nothing: a replacement can make text that an
    /// earlier rule matches (a marker closing a URL's password, say), so the rules run again
    /// until nothing changes.
    pub fn redact(&self, text: &str) -> String {
        let mut out = self.redact_once(text);
        if out == text {
            return out;
        }
        for _ in 0..4 {
            let again = self.redact_once(&out);
            if again == out {
                break;
            }
            out = again;
        }
        out
    }

    fn redact_once(&self, text: &str) -> String {
        let lower = text.to_ascii_lowercase();
        let mut out: Cow<'_, str> = Cow::Borrowed(text);
        for (i, rule) in BUILTIN_RULES.iter().enumerate() {
            if !rule.keywords.is_empty() && !rule.keywords.iter().any(|k| lower.contains(k)) {
                continue;
            }
            let re = COMPILED[i].get_or_init(|| rule.regex());
            if let Cow::Owned(s) = replace_secrets(re, &out, rule.marker, None, None) {
                out = Cow::Owned(s);
            }
        }
        for rule in &self.user {
            if !rule.keywords.is_empty()
                && !rule.keywords.iter().any(|k| lower.contains(k.as_str()))
            {
                continue;
            }
            let Some(re) = rule.compiled() else { continue };
            if let Cow::Owned(s) =
                replace_secrets(re, &out, &rule.marker, rule.secret_group, rule.entropy)
            {
                out = Cow::Owned(s);
            }
        }
        out.into_owned()
    }
}

/// Values that are already markers, or that name a secret rather than hold one (a shell
/// variable, a placeholder): replacing them would only hide useful text.
fn is_placeholder(value: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "[redacted",
        "[private]",
        "$",
        "<",
        "%",
        "{{",
        "process.env",
        "os.environ",
        "env(",
        "env.",
        "getenv",
    ];
    PREFIXES.iter().any(|p| value.starts_with(p))
}

/// Replace every match's secret (group `group`, else the group named `secret`, else the whole
/// match) with the marker. Returns `Cow::Borrowed` when nothing changed.
fn replace_secrets<'t>(
    re: &Regex,
    text: &'t str,
    marker: &str,
    group: Option<usize>,
    min_entropy: Option<f64>,
) -> Cow<'t, str> {
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(text) {
        let whole = caps.get(0).expect("group 0 always matches");
        let group_match = match group {
            Some(i) => caps.get(i),
            None => caps.name("secret"),
        };
        let secret = group_match.unwrap_or(whole);
        let value = secret.as_str();
        // A value after a name may be a marker, a placeholder or code (`getpass()`,
        // `std::env::var(..)`); a whole-shape match never is.
        if group_match.is_some() && (is_placeholder(value) || text[secret.end()..].starts_with('('))
        {
            continue;
        }
        if let Some(min) = min_entropy
            && shannon_entropy(value) < min
        {
            continue;
        }
        out.push_str(&text[last..secret.start()]);
        out.push_str(marker);
        last = secret.end();
    }
    if last == 0 && out.is_empty() {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Shannon entropy in bits per character, as gitleaks uses it to skip low-entropy matches.
fn shannon_entropy(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// A value that went through redaction. The store writes only these: every stored type
/// (memories, rules with their evidence, work-state lists, facts, audit reasons) implements
/// [`Redact`], and the store's write functions take `Redacted<T>`, so a write path that skips
/// redaction does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<T>(T);

/// A type whose free text can be redacted: every text field a person or a model wrote.
pub trait Redact {
    /// The value with every text field redacted.
    fn redact(self, r: &Redactor) -> Self;
}

impl<T: Redact> Redacted<T> {
    /// Redact `value`: the only way to make a `Redacted<T>`.
    pub fn new(value: T, r: &Redactor) -> Redacted<T> {
        Redacted(value.redact(r))
    }
}

impl Redact for NewMemory {
    /// Title, text, file paths, and the coding tool and session names (an import takes them from
    /// whatever file it is given).
    fn redact(mut self, r: &Redactor) -> NewMemory {
        self.title = r.redact(&self.title);
        self.text = r.redact(&self.text);
        self.host = r.redact(&self.host);
        self.session_id = self.session_id.map(|s| r.redact(&s));
        for f in &mut self.files {
            *f = r.redact(f);
        }
        self
    }
}

impl Redact for serde_json::Value {
    /// JSON is redacted as its text, so a secret split across a key and its value
    /// (`{"password": "hunter22"}`) is caught like the same text anywhere else. When a
    /// replacement would leave text that is not JSON, each key and string is redacted on its
    /// own instead, so the value stays well formed.
    fn redact(self, r: &Redactor) -> serde_json::Value {
        let text = self.to_string();
        let out = r.redact(&text);
        if out == text {
            return self;
        }
        match serde_json::from_str(&out) {
            Ok(v) => v,
            Err(_) => redact_leaves(self, r),
        }
    }
}

fn redact_leaves(v: serde_json::Value, r: &Redactor) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(r.redact(&s)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|i| redact_leaves(i, r)).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    // The key gives a value its meaning (`password`), so it is redacted with it.
                    let v = match v {
                        Value::String(s) => {
                            let joined = r.redact(&format!("{k}={s}"));
                            let value = joined.strip_prefix(&format!("{k}=")).map(str::to_owned);
                            Value::String(value.unwrap_or_else(|| r.redact(&s)))
                        }
                        other => redact_leaves(other, r),
                    };
                    (r.redact(&k), v)
                })
                .collect(),
        ),
        other => other,
    }
}

impl Redacted<NewMemory> {
    /// Cut the title to `max` characters. Titles are cut after redaction, so a cut never splits
    /// a secret into a piece the rules no longer recognise.
    pub fn with_title_cut(mut self, max: usize) -> Redacted<NewMemory> {
        self.0.title = crate::model::cut_chars(&self.0.title, max);
        self
    }
}

impl<T> Redacted<T> {
    /// The redacted value.
    pub fn get(&self) -> &T {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_builtin_rule_catches_its_positives_and_spares_its_negatives() {
        let r = Redactor::builtin();
        for rule in BUILTIN_RULES {
            assert!(
                !rule.positives.is_empty(),
                "{} has no positive example",
                rule.name
            );
            assert!(
                !rule.negatives.is_empty(),
                "{} has no negative example",
                rule.name
            );
            for (input, expected) in rule.positives {
                assert_eq!(
                    &r.redact(input),
                    expected,
                    "rule {} on {input:?}",
                    rule.name
                );
            }
            for input in rule.negatives {
                assert_eq!(
                    &r.redact(input),
                    input,
                    "rule {} changed {input:?}",
                    rule.name
                );
            }
        }
    }

    #[test]
    fn every_builtin_regex_compiles() {
        for rule in BUILTIN_RULES {
            let _ = rule.regex();
        }
    }

    #[test]
    fn the_seed_example_redacts_key_and_private_block() {
        let r = Redactor::builtin();
        let input = "Deploy to staging with token sk-abcdefghijklmnopqrstuvwx1234 and \
                     <private>customer list: Acme</private> then run the tests";
        assert_eq!(
            r.redact(input),
            "Deploy to staging with token [redacted:api-key] and [private] then run the tests"
        );
    }

    #[test]
    fn ordinary_coding_text_comes_back_unchanged() {
        let r = Redactor::builtin();
        for text in [
            "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
            "id 123e4567-e89b-12d3-a456-426614174000",
            "integrity sha512-Q5nvJmYmbFP4Ld2DiNAIiB6sxYz0FSY2zK+0aX0yXlV4XG8eJrfnZq2ZKDIbYvQUa0xOn4ko2+6Q7HmA2A9ZrQ==",
            "see https://docs.rs/regex/latest/regex/ and http://localhost:8080/health",
            "max_tokens = 4096 and token_count: 12",
            "the task-runner-for-the-whole-repository-tree is fine",
        ] {
            assert_eq!(r.redact(text), text);
        }
    }

    #[test]
    fn regression_fuzz_redact_a_marker_that_completes_a_url_password() {
        // Found by `scripts/fuzz` (fuzz/artifacts/redact/crash-b0a2d49e…): the first pass left
        // text that the URL rule matched on a second pass.
        let input = "\u{fffd}\u{fffd}wd://:aa)pwd://:\x08!^@\x08)))ox2\u{fffd}p@";
        let r = Redactor::builtin();
        let once = r.redact(input);
        assert_eq!(r.redact(&once), once);
    }

    #[test]
    fn entropy_of_uniform_text() {
        assert_eq!(shannon_entropy("aaaa"), 0.0);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
    }

    proptest! {
        #[test]
        fn redaction_is_idempotent(s in ".{0,200}") {
            let r = Redactor::builtin();
            let once = r.redact(&s);
            prop_assert_eq!(r.redact(&once), once.clone());
        }

        #[test]
        fn redaction_is_idempotent_on_secret_like_text(
            prefix in "[a-z ]{0,20}",
            key in "(sk-|ghp_|AKIA|xoxb-|password=|Bearer )[A-Za-z0-9]{10,40}",
            suffix in "[a-z ]{0,20}",
        ) {
            let r = Redactor::builtin();
            let once = r.redact(&format!("{prefix}{key}{suffix}"));
            prop_assert_eq!(r.redact(&once), once.clone());
        }
    }
}
