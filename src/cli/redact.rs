//! `aletheia redact`: show what would be stored for the text on stdin, or with `--explain`,
//! which rule replaced which span, so a user can see why a line changed (or did not) and report
//! a miss or a false positive without pasting the secret anywhere; `--rules` lists the rules.

use super::print;
use crate::redact::{Finding, Redactor};
use clap::Args;
use std::io::Read;

#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Only check the rule file named by ALETHEIA_REDACT_RULES and report how many rules it has.
    #[arg(long)]
    pub check: bool,
    /// List which rule matched where (line, column, length), never the secret itself.
    #[arg(long, conflicts_with = "check")]
    pub explain: bool,
    /// List the rules: each built-in rule's name and what it catches, then the user's.
    #[arg(long, conflicts_with_all = ["check", "explain"])]
    pub rules: bool,
}

pub fn run(args: RedactArgs, json: bool) -> anyhow::Result<()> {
    let redactor = Redactor::from_env()?;
    if let Some(path) = std::env::var_os("ALETHEIA_REDACT_RULES").filter(|p| !p.is_empty()) {
        crate::redact::check_rules(std::path::Path::new(&path), redactor.user_rules())?;
    }
    if args.check {
        return Ok(print::line(&format!(
            "{} built-in rules, {} user rules; all compile.",
            crate::redact::rules::RULES.len(),
            redactor.user_rules().len()
        ))?);
    }
    if args.rules {
        let mut out = String::new();
        for rule in crate::redact::rules::RULES {
            out.push_str(&format!("{}: {}\n", rule.id, rule.description));
        }
        for rule in redactor.user_rules() {
            out.push_str(&format!("{}: from ALETHEIA_REDACT_RULES\n", rule.id));
        }
        return Ok(print::raw(out.as_bytes())?);
    }
    let mut raw = Vec::new();
    std::io::stdin().read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw);
    let out = if args.explain {
        explain(&text, &redactor.explain(&text), json)
    } else {
        redactor.redact(&text)
    };
    Ok(print::raw(out.as_bytes())?)
}

/// One line per replaced span: where it is (line and column, counted in characters from 1),
/// how long it is, the rules that matched it and what replaces it.
fn explain(text: &str, findings: &[Finding], json: bool) -> String {
    let mut out = String::new();
    // Findings come in text order, so lines and columns are counted in one walk.
    let (mut line, mut column, mut seen) = (1, 1, 0);
    for f in findings {
        for c in text[seen..f.start].chars() {
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        seen = f.start;
        let length = text[f.start..f.end].chars().count();
        if json {
            let v = serde_json::json!({
                "line": line, "column": column, "length": length,
                "rules": f.rules, "marker": f.marker,
            });
            out.push_str(&format!("{v}\n"));
        } else {
            out.push_str(&format!(
                "line {line}, column {column}: {length} characters matched by {} -> {}\n",
                f.rules.join(", "),
                f.marker
            ));
        }
    }
    if !json {
        out.push_str(&match findings.len() {
            0 => "Nothing to redact.\n".to_owned(),
            1 => "1 span would be replaced.\n".to_owned(),
            n => format!("{n} spans would be replaced.\n"),
        });
    }
    out
}
