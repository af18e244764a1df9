//! `aletheia install <host> --write` and `aletheia uninstall <host>`: write or remove the hook
//! entries and the MCP entry in a host's configuration (the user's, or with `--project` the
//! working directory's). Without `--write`, install prints what it would do, as `connect` does.

use super::print;
use crate::install::{self, Action, Change, FilePlan, Format, Outcome, Plan, Scope, Written};
use clap::Args;
use std::fmt::Write as _;

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// claude-code, cursor, codex, gemini, windsurf, opencode or command-code.
    pub host: String,
    /// The project's files (at the git root of the working directory) instead of the user's.
    #[arg(long)]
    pub project: bool,
    /// Write the files; without it, only show what would change.
    #[arg(long)]
    pub write: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// claude-code, cursor, codex, gemini, windsurf, opencode or command-code.
    pub host: String,
    /// The project's files (at the git root of the working directory) instead of the user's.
    #[arg(long)]
    pub project: bool,
}

pub fn scope(project: bool) -> Scope {
    if project { Scope::Project } else { Scope::User }
}

pub fn install(args: InstallArgs, json: bool) -> anyhow::Result<()> {
    let setting = install::Setting::from_env()?;
    let plan = install::plan(&args.host, scope(args.project), &setting, false)?;
    if !args.write {
        return dry_run(&plan, json, true);
    }
    let written = install::apply(&plan, &setting.created)?;
    report(&plan, &written, json)
}

pub fn uninstall(args: UninstallArgs, json: bool) -> anyhow::Result<()> {
    let setting = install::Setting::from_env()?;
    let plan = install::plan(&args.host, scope(args.project), &setting, true)?;
    let written = install::apply(&plan, &setting.created)?;
    report(&plan, &written, json)
}

/// Print what `plan` would change, and the ways to connect; `install_hint` adds the line that
/// says how to write it.
pub fn dry_run(plan: &Plan, json: bool, install_hint: bool) -> anyhow::Result<()> {
    if json {
        return Ok(print::json(
            &serde_json::json!({ "plan": plan, "written": [] }),
        )?);
    }
    let mut out = String::new();
    let changing = plan.files.iter().filter(|f| f.changed()).count();
    let _ = write!(out, "{}: ", heading(plan));
    if changing == 0 {
        let _ = writeln!(out, "already installed; nothing to write.");
    } else {
        let _ = writeln!(
            out,
            "`aletheia install {}{} --write` would change {changing} file{}.",
            plan.host,
            if plan.scope == Scope::Project {
                " --project"
            } else {
                ""
            },
            if changing == 1 { "" } else { "s" },
        );
    }
    for file in &plan.files {
        out.push('\n');
        file_section(&mut out, file);
    }
    if changing > 0 {
        ways_to_connect(&mut out, plan);
    }
    notes(&mut out, plan);
    if install_hint && changing > 0 {
        out.push_str("\nNothing was written: add --write to write it.\n");
    }
    Ok(print::line(out.trim_end())?)
}

/// What was written: one line per file, or the one line that says nothing needed writing.
fn report(plan: &Plan, written: &[Written], json: bool) -> anyhow::Result<()> {
    if json {
        return Ok(print::json(
            &serde_json::json!({ "plan": plan, "written": written }),
        )?);
    }
    let mut out = String::new();
    let _ = write!(out, "{}: ", heading(plan));
    if written.is_empty() {
        let _ = writeln!(
            out,
            "{}; nothing written.",
            if plan.uninstall {
                "not installed"
            } else {
                "already installed"
            }
        );
        notes(&mut out, plan);
        return Ok(print::line(out.trim_end())?);
    }
    let _ = writeln!(
        out,
        "{}.",
        if plan.uninstall {
            "uninstalled"
        } else {
            "installed"
        }
    );
    for w in written {
        written_line(&mut out, plan, w);
    }
    notes(&mut out, plan);
    Ok(print::line(out.trim_end())?)
}

/// One file written: what happened to it, and where the user's own version is kept.
fn written_line(out: &mut String, plan: &Plan, w: &Written) {
    let path = w.path.display();
    let file = plan.files.iter().find(|f| f.path == w.path);
    let summary = file.map(summary).unwrap_or_default();
    let _ = match (w.deleted, w.created_by_aletheia) {
        (true, true) => write!(out, "  removed {path}, which aletheia created"),
        (true, false) => write!(out, "  removed {path} ({summary})"),
        (false, _) if file.is_some_and(|f| !f.exists) => {
            write!(out, "  created {path} ({summary})")
        }
        // Uninstall took our entries out, and the host or the user put something else in.
        (false, true) if plan.uninstall => write!(
            out,
            "  wrote {path} ({summary}); aletheia created it, and kept it for what was added to it since"
        ),
        (false, _) => write!(out, "  wrote {path} ({summary})"),
    };
    if let Some(b) = &w.backup {
        let _ = write!(
            out,
            "; the version before aletheia first changed it is in {}",
            b.display()
        );
    }
    out.push('\n');
}

/// The two ways to connect, when the host has a command of its own for the MCP server: what
/// each writes, and when it is the one to use. Install is given first, as it is the one that
/// also writes the hooks that record sessions.
fn ways_to_connect(out: &mut String, plan: &Plan) {
    let name = install::display_name(&plan.host);
    let install = format!(
        "aletheia install {}{} --write",
        plan.host,
        if plan.scope == Scope::Project {
            " --project"
        } else {
            ""
        }
    );
    let Some(cmd) = &plan.host_command else {
        let _ = write!(out, "\nTo connect {name}, run:\n  {install}\n");
        return;
    };
    let help = cmd.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    let _ = write!(
        out,
        "\nTo connect {name}, run one of:\n  \
         {install}\n    \
         writes everything above: the hooks, which record your sessions, and the MCP server.\n  \
         {cmd}\n    \
         {name}'s own command: the MCP server alone, no hooks. Use it when that is all you\n    \
         want, or for options of {name}'s own that install does not offer (see `{help} --help`).\n"
    );
}

fn heading(plan: &Plan) -> String {
    let scope = match plan.scope {
        Scope::User => "user scope",
        Scope::Project => "project scope",
    };
    format!("{}, {scope}", install::display_name(&plan.host))
}

/// One file: its path, what it holds, and each of our entries marked `+`, `-` or `=`.
fn file_section(out: &mut String, file: &FilePlan) {
    let state = match (&file.outcome, file.exists) {
        (Outcome::Delete, _) => ", removed: it holds nothing else",
        (Outcome::Write(_), false) => ", new file",
        (Outcome::Keep, _) => ", unchanged",
        _ => "",
    };
    let _ = writeln!(out, "{} ({}{state})", file.path.display(), file.holds);
    if file.changes.is_empty() {
        let _ = writeln!(out, "  nothing of aletheia's in it");
    }
    for c in &file.changes {
        match c.action {
            Action::Add => entry_lines(out, '+', file.format, c, &c.entry),
            Action::Remove => entry_lines(out, '-', file.format, c, &c.entry),
            Action::Unchanged => entry_lines(out, '=', file.format, c, &c.entry),
            Action::Replace => {
                if let Some(prev) = &c.previous {
                    entry_lines(out, '-', file.format, c, prev);
                }
                entry_lines(out, '+', file.format, c, &c.entry);
            }
        }
    }
}

fn entry_lines(
    out: &mut String,
    mark: char,
    format: Format,
    c: &Change,
    value: &serde_json::Value,
) {
    let shown = install::render_entry(format, &c.at, value);
    match format {
        Format::Toml => {
            for line in shown.lines() {
                let _ = writeln!(out, "  {mark} {line}");
            }
        }
        Format::Json => {
            let _ = writeln!(out, "  {mark} {}: {shown}", c.at);
        }
        Format::File => {
            let _ = writeln!(out, "  {mark} the whole file ({shown})");
        }
    }
}

/// `3 added, 1 replaced` for one file.
fn summary(file: &FilePlan) -> String {
    let count = |a| file.changes.iter().filter(|c| c.action == a).count();
    [
        (Action::Add, "added"),
        (Action::Replace, "replaced"),
        (Action::Remove, "removed"),
    ]
    .iter()
    .filter(|(a, _)| count(*a) > 0)
    .map(|(a, word)| format!("{} {word}", count(*a)))
    .collect::<Vec<_>>()
    .join(", ")
}

fn notes(out: &mut String, plan: &Plan) {
    for note in &plan.notes {
        let _ = write!(out, "\nNote: {note}\n");
    }
}
