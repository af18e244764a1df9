//! `aletheia search QUERY`: the index of matching memories, one line each, or JSON.

use crate::model::{Kind, MemoryType};
use crate::recall::search::{Order, SearchQuery, hit_line, search};
use clap::Args;

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to search for.
    pub query: Option<String>,
    /// An exact file path instead of words.
    #[arg(long)]
    pub file: Option<String>,
    /// With --file: match paths that end with the text.
    #[arg(long = "file-suffix")]
    pub file_suffix: bool,
    /// Only this project (default: every project).
    #[arg(long)]
    pub project: Option<String>,
    #[arg(long = "type")]
    pub mtype: Option<MemoryType>,
    #[arg(long)]
    pub kind: Option<Kind>,
    /// ISO date, date-time or epoch milliseconds.
    #[arg(long)]
    pub since: Option<String>,
    /// ISO date, date-time or epoch milliseconds; a bare date includes that day.
    #[arg(long)]
    pub until: Option<String>,
    /// Only results older than this many days.
    #[arg(long = "older-than-days")]
    pub older_than_days: Option<f64>,
    /// 1 to 100.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// relevance, date_desc or date_asc.
    #[arg(long, default_value = "relevance")]
    pub order: Order,
    /// Pass the query to SQLite FTS5 as written.
    #[arg(long)]
    pub raw: bool,
    /// One JSON object per line, for scripts.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    if args.query.as_deref().is_none_or(|q| q.trim().is_empty()) && args.file.is_none() {
        anyhow::bail!("query is required: give words to search for, or --file PATH.");
    }
    if !(1..=100).contains(&args.limit) {
        anyhow::bail!("--limit must be from 1 to 100.");
    }
    let since = args
        .since
        .as_deref()
        .map(|s| crate::time::parse_time(s, false))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut until = args
        .until
        .as_deref()
        .map(|s| crate::time::parse_time(s, true))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if let Some(days) = args.older_than_days {
        if !(days.is_finite() && days >= 0.0) {
            anyhow::bail!("--older-than-days must be a number of days, 0 or more.");
        }
        let cutoff = crate::time::now_ms() - (days * 86_400_000.0) as i64;
        until = Some(until.map_or(cutoff, |u| u.min(cutoff)));
    }
    let store = super::open_store()?;
    let result = search(
        &store,
        &SearchQuery {
            query: args.query,
            file: args.file,
            file_suffix: args.file_suffix,
            project: args.project,
            mtype: args.mtype,
            kind: args.kind,
            since,
            until,
            limit: args.limit,
            offset: args.offset,
            order: args.order,
            raw: args.raw,
        },
    )?;
    let mut out = std::io::stdout().lock();
    use std::io::Write;
    if args.json {
        for h in &result.hits {
            writeln!(out, "{}", serde_json::to_string(h)?)?;
        }
        return Ok(());
    }
    if result.hits.is_empty() && result.facts.is_empty() {
        writeln!(out, "No matches. {}", result.reason.unwrap_or_default())?;
    }
    for f in &result.facts {
        writeln!(out, "fact #{} {}", f.id, f.line())?;
    }
    for h in &result.hits {
        writeln!(out, "{}", hit_line(&h.memory))?;
    }
    Ok(())
}
