//! `aletheia search QUERY`: the index of matching memories, one line each; with `--json`, one
//! JSON object per hit.

use super::print;
use crate::model::{Kind, MemoryType};
use crate::ops::OpError;
use crate::ops::recall::{Search, When};
use crate::recall::search::Order;
use crate::text::Text;
use clap::Args;

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to search for (or --file instead).
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
    /// Only memories of this type: decision, gotcha, bugfix, feature, refactor, change,
    /// discovery or note.
    #[arg(long = "type")]
    pub mtype: Option<MemoryType>,
    /// Only memories of this kind: prompt, event, observation, summary or note.
    #[arg(long)]
    pub kind: Option<Kind>,
    /// A date, date-time, relative time (yesterday, 3 days ago, 2w) or epoch milliseconds.
    #[arg(long)]
    pub since: Option<String>,
    /// Like --since; a bare date includes that day.
    #[arg(long)]
    pub until: Option<String>,
    /// Answer as memory stood then (a date, date-time, relative time or epoch milliseconds):
    /// memories said or done later, later edits and later replacements are left out. Matching
    /// is on today's words.
    #[arg(long = "as-of")]
    pub as_of: Option<String>,
    /// Only results older than this many days.
    #[arg(long = "older-than-days")]
    pub older_than_days: Option<f64>,
    /// 1 to 100 (default 20).
    #[arg(long)]
    pub limit: Option<i64>,
    /// Hits to skip, for the next page: with --limit 20, --offset 20 shows hits 21 to 40
    /// (default 0).
    #[arg(long)]
    pub offset: Option<i64>,
    /// relevance, date_desc or date_asc.
    #[arg(long)]
    pub order: Option<Order>,
    /// Pass the query to SQLite FTS5 as written.
    #[arg(long)]
    pub raw: bool,
    /// Also search by meaning with the local embedding model, fused with the words. Off by
    /// default on the command line: loading the model costs more than a keyword search.
    #[arg(long)]
    pub semantic: bool,
}

/// What a search with nothing to look for says on the command line, where the flag that can
/// replace the words is `--file` (MCP's tool answers "query is required.", as documented).
const NOTHING_TO_SEARCH: &str = "Nothing to search for: give words (aletheia search WORDS) or a file path (aletheia search --file PATH).";

/// Whether the search names something to look for: words that are not all blank, or a file.
fn has_target(args: &SearchArgs) -> bool {
    [&args.query, &args.file]
        .into_iter()
        .any(|given| given.as_deref().is_some_and(|t| !t.trim().is_empty()))
}

pub fn run(args: SearchArgs, json: bool) -> anyhow::Result<()> {
    if !has_target(&args) {
        return Err(OpError::InvalidArgument(NOTHING_TO_SEARCH.into()).into());
    }
    let request = Search {
        query: args.query,
        file: args.file,
        file_suffix: args.file_suffix,
        project: args.project,
        mtype: args.mtype,
        kind: args.kind,
        limit: args.limit,
        offset: args.offset,
        since: args.since.map(When::Text),
        until: args.until.map(When::Text),
        older_than_days: args.older_than_days,
        order: args.order,
        raw: args.raw,
        as_of: args.as_of.map(When::Text),
    };
    let mut edge = super::Edge::open(super::caller(None))?;
    if args.semantic {
        edge.load_model()?;
    }
    let result = edge.call(request)?;
    if json {
        // One object per hit, so a script can stream them; why nothing matched goes to stderr.
        let mut out = print::Printer::stdout();
        for h in &result.hits {
            out.json(h)?;
        }
        out.flush()?;
        if let (true, Some(reason)) = (result.hits.is_empty(), &result.reason) {
            eprintln!("aletheia: no matches: {reason}");
        }
        return Ok(());
    }
    Ok(print::line(Search::text(&result, edge.clock()).text())?)
}
