//! The built-in rules: the types that `build/redaction_rules.rs` writes out from
//! `src/redact/rules/*.toml`, and the compiled regexes, made on first need.
//!
//! A rule's regex is compiled only when one of its keywords occurs in the text (see
//! [`super::keywords`]), so a process that redacts an ordinary prompt compiles almost none of
//! several hundred rules.

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use std::sync::{LazyLock, OnceLock};

/// One built-in rule.
#[derive(Debug)]
pub struct Rule {
    /// Kebab-case name, shown by `aletheia redact --explain`.
    pub id: &'static str,
    pub description: &'static str,
    pub pattern: &'static str,
    /// What a match (or its `secret…` group) becomes.
    pub marker: &'static str,
    /// Least Shannon entropy (bits per character) of a secret worth replacing.
    pub entropy: Option<f64>,
    /// The rule runs over the whole text rather than over the lines holding its keywords,
    /// because its matches span lines (a private key block).
    pub multiline: bool,
    /// The test a matched value must also pass.
    pub check: Check,
}

/// Tests on a matched value that a regex cannot express.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    None,
    /// A value assigned to a password-like name: anything but code, a type or a placeholder.
    Password,
    /// A value assigned to a name that only might be a credential (`*key`, `auth*`): it must
    /// also look like one (length, alphabet, entropy).
    Credential,
    /// Base64 that decodes to a PEM private key header.
    PemBase64,
    /// Base64 that decodes to a JSON Web Token (header and payload).
    JwtBase64,
    /// A bare token known by its shape alone: both cases and digits, random enough.
    MixedToken,
    /// Base64 that decodes to text in which a built-in rule finds a secret.
    Base64Secret,
}

/// A keyword of a rule; `prefix` is its first three bytes as a big-endian number.
#[derive(Debug)]
pub struct Keyword {
    pub prefix: u32,
    pub text: &'static str,
    pub rule: u16,
    /// For a rule that only matches a value assigned to a name holding the keyword: how many
    /// name characters may follow the keyword before the assignment. The keyword then counts
    /// only where such an assignment follows (see [`super::keywords::assignment_follows`]), so
    /// "tests passed" or a `file_path` does not compile the rule's large regex.
    pub assignment: Option<u8>,
}

include!(concat!(env!("OUT_DIR"), "/redact_rules.rs"));

/// A rule's examples, which the unit tests check.
#[cfg(test)]
pub struct Examples {
    pub id: &'static str,
    /// (input, the whole text after redaction) pairs.
    pub changed: &'static [(&'static str, &'static str)],
    /// Inputs that must come back unchanged.
    pub unchanged: &'static [&'static str],
}

#[cfg(test)]
include!(concat!(env!("OUT_DIR"), "/redact_examples.rs"));

static COMPILED: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| RULES.iter().map(|_| OnceLock::new()).collect());

impl Rule {
    /// The compiled regex of rule `index`. The patterns are constants that a unit test compiles.
    ///
    /// Compiling is most of what redaction costs a hook, so it is made cheap. The patterns are
    /// compiled without Unicode classes (`\s`, `\b`, `(?i)` and `[^...]` work on ASCII and pass
    /// other bytes through): every shape they describe is ASCII, and Unicode-aware classes made
    /// the generic rules take up to 6 ms each. They get no literal prefilter: extracting one from
    /// a case-insensitive alternation took most of a compile (0.45 of 0.5 ms for one rule), and
    /// a rule only searches the few lines that hold its keywords, where a prefilter saves
    /// nothing. `^` and `$` match at line ends: a rule searches a window of one or several
    /// lines, and must find the same thing in either. Matches are widened to character
    /// boundaries where they are used.
    pub fn regex(index: usize) -> &'static Regex {
        COMPILED[index].get_or_init(|| {
            let rule = &RULES[index];
            meta::Builder::new()
                .syntax(
                    syntax::Config::new()
                        .unicode(false)
                        .utf8(false)
                        .multi_line(true),
                )
                .configure(meta::Config::new().auto_prefilter(false))
                .build(rule.pattern)
                .unwrap_or_else(|e| panic!("built-in redaction rule {} is invalid: {e}", rule.id))
        })
    }
}
