//! `aletheia redact`: show what would be stored for the text on stdin.

use clap::Args;
use std::io::{Read, Write};

#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Only check the rule file named by ALETHEIA_REDACT_RULES and report how many rules it has.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: RedactArgs) -> anyhow::Result<()> {
    let redactor = crate::redact::Redactor::from_env()?;
    if let Some(path) = std::env::var_os("ALETHEIA_REDACT_RULES").filter(|p| !p.is_empty()) {
        crate::redact::check_rules(std::path::Path::new(&path), redactor.user_rules())?;
    }
    if args.check {
        println!(
            "{} built-in rules, {} user rules; all compile.",
            crate::redact::BUILTIN_RULES.len(),
            redactor.user_rules().len()
        );
        return Ok(());
    }
    let mut raw = Vec::new();
    std::io::stdin().read_to_end(&mut raw)?;
    let out = redactor.redact(&String::from_utf8_lossy(&raw));
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
