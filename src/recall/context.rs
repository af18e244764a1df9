//! The session-start context block: what a new session is told before its first prompt.
//!
//! Pinned memories first, then recent memories grouped by day, cut to about 6,000 characters
//! without cutting a line, wrapped as data (see [`super::wrap`]), and closed by the context
//! economics line so the user sees what the block costs.

use super::wrap::{neutralise, wrap};
use crate::model::{Kind, Memory};
use crate::store::{COLUMNS, Store, StoreError, from_row};
use rusqlite::params;

/// The block's size cap, in characters.
pub const MAX_CHARS: usize = 6000;

/// What to build the block for.
#[derive(Debug, Clone)]
pub struct ContextOptions {
    pub project: String,
    /// The calling host (rules are per tool).
    pub tool: String,
    /// Recent unpinned memories, 1 to 100.
    pub limit: usize,
    pub max_chars: usize,
}

impl ContextOptions {
    /// The defaults for a project.
    pub fn for_project(project: &str, tool: &str) -> ContextOptions {
        ContextOptions {
            project: project.to_owned(),
            tool: tool.to_owned(),
            limit: 20,
            max_chars: MAX_CHARS,
        }
    }
}

fn query(store: &Store, sql: &str, project: &str, limit: usize) -> Result<Vec<Memory>, StoreError> {
    let mut stmt = store.conn().prepare_cached(sql).map_err(|e| store.err(e))?;
    let rows = stmt
        .query_map(params![project, limit as i64], from_row)
        .map_err(|e| store.err(e))?;
    rows.collect::<Result<_, _>>().map_err(|e| store.err(e))
}

/// One line of the block for a memory.
fn line(m: &Memory) -> String {
    let title = neutralise(&m.title.replace('\n', " "));
    format!(
        "- #{} {} [{}] {}",
        m.id,
        crate::time::hour_minute(m.created_at),
        m.mtype,
        title
    )
}

/// Build the block.
pub fn build(store: &Store, opts: &ContextOptions) -> Result<String, StoreError> {
    let pinned = query(
        store,
        &format!(
            "SELECT {COLUMNS} FROM memories WHERE project = ?1 AND pinned = 1 AND dismissed = 0
             ORDER BY created_at DESC, id DESC LIMIT ?2"
        ),
        &opts.project,
        20,
    )?;
    // Tool events are raw and many; the block lists what people said and decided.
    let recent = query(
        store,
        &format!(
            "SELECT {COLUMNS} FROM memories WHERE project = ?1 AND pinned = 0 AND dismissed = 0
             AND kind != '{}' ORDER BY created_at DESC, id DESC LIMIT ?2",
            Kind::Event.as_str()
        ),
        &opts.project,
        opts.limit.clamp(1, 100),
    )?;

    let mut lines = vec![format!("# Memory for {}", neutralise(&opts.project))];
    let mut items = 0;
    if pinned.is_empty() && recent.is_empty() {
        lines.push(format!(
            "No memories yet for {}.",
            neutralise(&opts.project)
        ));
    }
    if !pinned.is_empty() {
        lines.push("## Pinned".into());
        for m in &pinned {
            lines.push(line(m));
            items += 1;
        }
    }
    if !recent.is_empty() {
        lines.push("## Recent".into());
        let mut day = String::new();
        for m in &recent {
            let d = crate::time::date(m.created_at);
            if d != day {
                lines.push(format!("### {d}"));
                day = d;
            }
            lines.push(line(m));
            items += 1;
        }
    }
    Ok(fit(lines, items, opts.max_chars))
}

/// Keep whole lines while the wrapped block stays within `max_chars`, then add the economics
/// line.
fn fit(lines: Vec<String>, total_items: usize, max_chars: usize) -> String {
    let overhead = wrap("").chars().count() + 120;
    let mut body = String::new();
    let mut used = 0;
    let mut listed = 0;
    for l in lines {
        let n = l.chars().count() + 1;
        if used + n + overhead > max_chars {
            break;
        }
        if l.starts_with("- #") {
            listed += 1;
        }
        body.push_str(&l);
        body.push('\n');
        used += n;
    }
    let omitted = total_items - listed;
    let mut economics = format!("Context economics: {listed} items listed");
    if omitted > 0 {
        economics.push_str(&format!(", {omitted} left out to fit"));
    }
    let estimate = (body.chars().count() + overhead) / 4;
    economics.push_str(&format!(
        "; ~{estimate} tokens for this block (estimate, chars/4)."
    ));
    body.push_str(&economics);
    wrap(&body)
}
