//! User redaction rules in the gitleaks TOML format (`ALETHEIA_REDACT_RULES`).
//!
//! Teams already keep their secret shapes for gitleaks; reading that format lets them reuse the
//! file as it is. Each `[[rules]]` entry with a `regex` becomes a rule whose match (or its
//! `secretGroup`) is replaced by `[redacted:<id>]`; `keywords` and `entropy` work as in gitleaks.
//! Path-only rules describe files, not text, and are skipped. Regexes compile on first use so a
//! large file costs the hook nothing until one of its keywords shows up; `aletheia redact
//! --check` compiles them all.

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What is wrong with a rule file. Each message names the file and, where it applies, the rule.
#[derive(Debug, thiserror::Error)]
pub enum RuleFileError {
    #[error("cannot read redaction rules {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("redaction rules {path} are not valid gitleaks TOML: {message}")]
    Toml { path: PathBuf, message: String },
    #[error("redaction rule \"{rule}\" in {path}: {message}")]
    Rule {
        path: PathBuf,
        rule: String,
        message: String,
    },
}

#[derive(Deserialize)]
struct RuleFile {
    #[serde(default)]
    rules: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRule {
    id: Option<String>,
    regex: Option<String>,
    path: Option<String>,
    secret_group: Option<i64>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
}

/// One loaded user rule.
pub struct UserRule {
    pub id: String,
    pub pattern: String,
    /// Lowercased keywords.
    pub keywords: Vec<String>,
    pub secret_group: Option<usize>,
    pub entropy: Option<f64>,
    pub marker: String,
    compiled: OnceLock<Option<Regex>>,
}

impl UserRule {
    /// Compile the regex.
    /// gitleaks' generic rules are large once Unicode classes expand; allow for them.
    pub fn compile(&self) -> Result<Regex, String> {
        meta::Builder::new()
            .syntax(syntax::Config::new().utf8(false))
            .configure(meta::Config::new().nfa_size_limit(Some(256 << 20)))
            .build(&self.pattern)
            // The error's own text only says which pattern failed; its source says why.
            .map_err(|e| {
                std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string)
            })
    }

    /// The compiled regex, or `None` when it does not compile (reported once on stderr).
    pub fn compiled(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| match self.compile() {
                Ok(re) => Some(re),
                Err(e) => {
                    eprintln!("aletheia: redaction rule \"{}\" is skipped: {e}", self.id);
                    None
                }
            })
            .as_ref()
    }
}

/// Load a gitleaks-format rule file.
pub fn load_rule_file(path: &Path) -> Result<Vec<UserRule>, RuleFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| RuleFileError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_rules(path, &text)
}

/// Parse rule-file text (`path` only names it in errors).
pub fn parse_rules(path: &Path, text: &str) -> Result<Vec<UserRule>, RuleFileError> {
    let file: RuleFile = toml::from_str(text).map_err(|e| RuleFileError::Toml {
        path: path.to_owned(),
        message: e.message().to_owned(),
    })?;
    let mut out = Vec::new();
    for (index, raw) in file.rules.into_iter().enumerate() {
        let id = raw.id.unwrap_or_else(|| format!("#{}", index + 1));
        let bad = |message: String| RuleFileError::Rule {
            path: path.to_owned(),
            rule: id.clone(),
            message,
        };
        let Some(pattern) = raw.regex else {
            if raw.path.is_some() {
                continue;
            }
            return Err(bad("it has no regex; add regex = '''...'''".into()));
        };
        if pattern.trim().is_empty() {
            return Err(bad("its regex is empty".into()));
        }
        let secret_group = match raw.secret_group {
            None | Some(0) => None,
            // A group past usize::MAX cannot exist, and the group check below says so.
            Some(n) if n > 0 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            Some(n) => return Err(bad(format!("secretGroup {n} must be 0 or more"))),
        };
        out.push(UserRule {
            marker: format!("[redacted:{id}]"),
            id: id.clone(),
            keywords: raw
                .keywords
                .iter()
                .map(|k| k.to_ascii_lowercase())
                .collect(),
            secret_group,
            entropy: raw.entropy,
            pattern,
            compiled: OnceLock::new(),
        });
    }
    Ok(out)
}

/// Compile every rule, reporting the first that fails by name.
pub fn check_rules(path: &Path, rules: &[UserRule]) -> Result<(), RuleFileError> {
    for rule in rules {
        let re = rule.compile().map_err(|e| RuleFileError::Rule {
            path: path.to_owned(),
            rule: rule.id.clone(),
            message: format!("the regex does not compile: {}", first_line(&e)),
        })?;
        let groups = re.group_info().group_len(regex_automata::PatternID::ZERO);
        if let Some(g) = rule.secret_group
            && g >= groups
        {
            return Err(RuleFileError::Rule {
                path: path.to_owned(),
                rule: rule.id.clone(),
                message: format!("secretGroup {g} but the regex has {} group(s)", groups - 1),
            });
        }
    }
    Ok(())
}

fn first_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| l.trim_start().starts_with("error:"))
        .unwrap_or(s)
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Redactor;

    fn redactor(text: &str) -> Redactor {
        Redactor::with_user_rules(parse_rules(Path::new("rules.toml"), text).unwrap())
    }

    #[test]
    fn a_gitleaks_rule_redacts_its_secret_group() {
        let r = redactor(
            r#"
            [[rules]]
            id = "acme-key"
            regex = '''acme_key\s*=\s*([a-z0-9]{12})'''
            secretGroup = 1
            keywords = ["ACME_KEY"]
            "#,
        );
        assert_eq!(
            r.redact("acme_key = abcdefghijkl"),
            "acme_key = [redacted:acme-key]"
        );
        assert_eq!(r.redact("acme_key = short"), "acme_key = short");
    }

    #[test]
    fn entropy_skips_low_entropy_matches() {
        let r = redactor(
            r#"
            [[rules]]
            id = "hexy"
            regex = '''hex:([0-9a-f]{16})'''
            secretGroup = 1
            entropy = 3.0
            "#,
        );
        assert_eq!(r.redact("hex:0000000000000000"), "hex:0000000000000000");
        assert_eq!(r.redact("hex:0123456789abcdef"), "hex:[redacted:hexy]");
    }

    #[test]
    fn bad_files_name_the_rule() {
        let p = Path::new("rules.toml");
        let e = parse_rules(p, "[[rules]]\nid = \"nore\"\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("\"nore\"") && e.contains("no regex"), "{e}");
        let e = parse_rules(p, "[[rules]\n").err().unwrap().to_string();
        assert!(e.contains("not valid gitleaks TOML"), "{e}");
        let rules =
            parse_rules(p, "[[rules]]\nid = \"broken\"\nregex = '''(unclosed'''\n").unwrap();
        let e = check_rules(p, &rules).unwrap_err().to_string();
        assert!(
            e.contains("\"broken\"") && e.contains("does not compile"),
            "{e}"
        );
        let rules = parse_rules(
            p,
            "[[rules]]\nid = \"grp\"\nregex = '''a(b)'''\nsecretGroup = 3\n",
        )
        .unwrap();
        let e = check_rules(p, &rules).unwrap_err().to_string();
        assert!(e.contains("secretGroup 3"), "{e}");
    }

    #[test]
    fn the_largest_secret_group_is_refused_as_missing() {
        let p = Path::new("r.toml");
        let rules = parse_rules(
            p,
            "[[rules]]\nid = \"grp\"\nregex = '''a(b)'''\nsecretGroup = 9223372036854775807\n",
        )
        .unwrap();
        let e = check_rules(p, &rules).unwrap_err().to_string();
        assert!(e.contains("secretGroup 9223372036854775807 but"), "{e}");
    }

    #[test]
    fn path_only_rules_are_skipped() {
        let rules = parse_rules(
            Path::new("r.toml"),
            "[[rules]]\nid = \"pkcs12\"\npath = '''\\.p12$'''\n",
        )
        .unwrap();
        assert!(rules.is_empty());
    }
}
