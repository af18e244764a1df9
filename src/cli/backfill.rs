//! `aletheia backfill claude-code [--since DATE]`: store the prompts and summaries of past
//! sessions from Claude Code's transcripts (`~/.claude/projects/<folder>/<session>.jsonl`), for
//! the sessions that ran before the hooks were installed or while they were not.
//!
//! Each file is parsed here and its entries go to the `backfill` operation a batch at a time, so
//! a long history moves in bounded memory and what is stored is exactly what the hooks would
//! have stored; running it twice stores nothing new. A progress bar over the files on a
//! terminal, one summary line otherwise. Lines and files that cannot be read are counted and
//! reported, never fatal.

use super::print;
use crate::capture::transcript::{self, Parsed};
use crate::ops::backfill::{BACKFILL_BATCH, Backfill};
use crate::ops::recall::When;
use crate::time::{Bound, Clock};
use clap::Args;
use serde::Serialize;
use std::collections::BTreeSet;
use std::io::{BufReader, IsTerminal};
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct BackfillArgs {
    /// The host whose transcripts to read: claude-code.
    pub host: String,
    /// Only what was said since this time (YYYY-MM-DD, yesterday, 2w, 3 days ago, ...).
    #[arg(long)]
    pub since: Option<String>,
}

/// What a whole run did, as the summary line and `--json` show it.
#[derive(Debug, Default, Serialize)]
struct Report {
    prompts: usize,
    summaries: usize,
    /// Sessions something new was stored for.
    sessions: usize,
    /// Entries already stored, by the hooks or an earlier run.
    duplicates: usize,
    /// Lines that could not be read.
    skipped_lines: usize,
    /// Entries from before `--since`.
    older: usize,
    /// Entries of a project in ALETHEIA_EXCLUDED_PROJECTS.
    excluded: usize,
    files: usize,
    unreadable_files: usize,
}

pub fn run(args: BackfillArgs, json: bool) -> anyhow::Result<()> {
    if args.host != transcript::HOST {
        anyhow::bail!(
            "aletheia backfill reads {} transcripts only; \"{}\" has none it can read.",
            transcript::HOST,
            args.host
        );
    }
    // The date is read before anything is opened, so a typo costs nothing.
    let since = args
        .since
        .as_deref()
        .map(|s| Clock::system().parse(s, Bound::Start))
        .transpose()
        .map_err(|e| anyhow::anyhow!("--since: {e}"))?;
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .ok_or_else(|| {
            anyhow::anyhow!("HOME is not set, so ~/.claude/projects cannot be found.")
        })?;
    let root = PathBuf::from(home).join(".claude").join("projects");
    let mut report = Report::default();
    if !root.is_dir() {
        if json {
            print::json(&report)?;
        } else {
            print::line(&format!(
                "No Claude Code transcripts in {}: nothing to back-fill.",
                root.display()
            ))?;
        }
        return Ok(());
    }
    let files = transcript_files(&root, since);
    report.files = files.len();
    let mut edge = super::Edge::open(super::caller(None))?;
    let exclude = crate::config::excluded_projects();
    let bar = (std::io::stderr().is_terminal() && !json && !files.is_empty()).then(|| {
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} transcripts ({eta} left)",
            )
            .expect("a valid template"),
        );
        bar
    });
    let warn = |line: String| match &bar {
        Some(bar) => bar.println(line),
        None => eprintln!("{line}"),
    };
    let mut sessions = BTreeSet::new();
    for file in &files {
        let parsed = match read(file) {
            Ok(p) => p,
            Err(e) => {
                report.unreadable_files += 1;
                warn(format!("aletheia: cannot read {}: {e}", file.display()));
                continue;
            }
        };
        report.skipped_lines += parsed.skipped;
        for chunk in parsed.entries.chunks(BACKFILL_BATCH) {
            let done = edge.call(Backfill {
                host: transcript::HOST.to_owned(),
                entries: chunk.to_vec(),
                since: since.map(When::Millis),
                exclude_projects: exclude.clone(),
            })?;
            report.prompts += done.prompts;
            report.summaries += done.summaries;
            report.duplicates += done.duplicates;
            report.older += done.older;
            report.excluded += done.excluded;
            sessions.extend(done.sessions);
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    report.sessions = sessions.len();
    if json {
        print::json(&report)?;
    } else {
        print::line(&format!(
            "Back-filled {} prompts and {} summaries from {} sessions ({} already stored, {} lines skipped).",
            report.prompts,
            report.summaries,
            report.sessions,
            report.duplicates,
            report.skipped_lines
        ))?;
        if report.unreadable_files > 0 {
            eprintln!(
                "aletheia: {} transcript file(s) could not be read (see above).",
                report.unreadable_files
            );
        }
    }
    Ok(())
}

/// Every session transcript: `<root>/<folder>/*.jsonl`, in name order. Subagent transcripts in
/// deeper folders are left out (their lines are the model's own conversations). A file last
/// written before `since` holds nothing newer, so it is not even opened.
fn transcript_files(root: &Path, since: Option<i64>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(folders) = std::fs::read_dir(root) else {
        return files;
    };
    for folder in folders.flatten() {
        let Ok(entries) = std::fs::read_dir(folder.path()) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "jsonl") || !path.is_file() {
                continue;
            }
            let modified = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
            if let (Some(since), Some(modified)) = (since, modified)
                && modified < since
            {
                continue;
            }
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Parse one transcript; its name (the session id) stands for lines that name no session.
fn read(path: &Path) -> std::io::Result<Parsed> {
    let file = std::fs::File::open(path)?;
    let session = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    transcript::parse(BufReader::with_capacity(1 << 20, file), &session)
}
