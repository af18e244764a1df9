//! The interactive commands, one file each. They parse flags into an operation's request, build
//! the operation's context from the environment (this is the command line's edge: the store,
//! the redactor, the clock and the caller are decided here and nowhere below), call it, and
//! print its text, or its JSON with `--json`.

pub mod backfill;
pub mod capture;
pub mod compress;
pub mod connect;
pub mod context;
pub mod doctor;
pub mod drain;
pub mod export;
pub mod facts;
pub mod import;
pub mod index;
pub mod install;
pub mod items;
pub mod list;
pub mod manual;
pub mod model;
pub mod observations;
pub mod redact;
pub mod review;
pub mod rules;
pub mod save;
pub mod scrub;
pub mod search;
pub mod server;
pub mod timeline;

use crate::config::Paths;
use crate::ops::{self, Caller, Context, Operation};
use crate::redact::Redactor;
use crate::store::{OpenOptions, Store};
use crate::text::Text;
use crate::time::Clock;
use anyhow::Context as _;

/// Open the store for an interactive command and bring in anything spooled (a drain with
/// nothing spooled only looks for the files).
fn open_store(paths: &Paths, redactor: &Redactor) -> anyhow::Result<Store> {
    let mut store = Store::open(paths, OpenOptions::INTERACTIVE)?;
    let report = crate::spool::drain(paths, &mut store, redactor).context("draining the spool")?;
    if report.rejected > 0 {
        eprintln!(
            "aletheia: {} spool line(s) could not be read and were moved to {}",
            report.rejected,
            paths.spool_dir().display()
        );
    }
    Ok(store)
}

/// The project of the working directory (`ALETHEIA_CWD` or the process's).
pub fn default_project() -> String {
    crate::project::project_key(&crate::config::working_dir())
}

/// The redactor for commands: a bad rule file is an error here, so the user sees it.
pub fn redactor() -> anyhow::Result<&'static Redactor> {
    Redactor::global_checked().map_err(anyhow::Error::msg)
}

/// The command line's caller: every right, named by `--tool`, else `ALETHEIA_TOOL`, else `cli`.
pub fn caller(tool: Option<&str>) -> Caller {
    let env = std::env::var("ALETHEIA_TOOL").ok();
    let name = tool
        .or(env.as_deref())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or("cli");
    Caller::local(name, &default_project())
}

/// Everything an operation runs with, built from the environment.
pub struct Edge {
    paths: Paths,
    store: Store,
    redactor: &'static Redactor,
    clock: Clock,
    caller: Caller,
    semantic: Option<crate::embed::semantic::Semantic>,
    extraction: Option<crate::compress::Extraction>,
}

impl Edge {
    /// Open the store (draining the spool first) for `caller`.
    pub fn open(caller: Caller) -> anyhow::Result<Edge> {
        Edge::open_with(caller, true)
    }

    /// Like [`Edge::open`]; `drain_first: false` leaves the spool for the operation itself.
    pub fn open_with(caller: Caller, drain_first: bool) -> anyhow::Result<Edge> {
        let redactor = redactor()?;
        let paths = Paths::from_env();
        let store = if drain_first {
            open_store(&paths, redactor)?
        } else {
            Store::open(&paths, OpenOptions::INTERACTIVE)?
        };
        Ok(Edge {
            paths,
            store,
            redactor,
            clock: Clock::system(),
            caller,
            semantic: None,
            extraction: None,
        })
    }

    /// Load the embedding model, so that searches fuse meaning with words. A missing model is
    /// an error that says how to get one.
    pub fn load_model(&mut self) -> anyhow::Result<()> {
        let dir = self.paths.model_dir();
        let embedder = crate::embed::model::Embedder::load(&dir)?;
        self.semantic = Some(crate::embed::semantic::Semantic::new(std::sync::Arc::new(
            embedder,
        )));
        Ok(())
    }

    /// Call operation `O`; its error becomes the command's one-line error.
    pub fn call<O: Operation>(&mut self, request: O) -> anyhow::Result<O::Output> {
        let mut ctx = Context {
            store: &mut self.store,
            redactor: self.redactor,
            clock: self.clock.clone(),
            caller: self.caller.clone(),
            paths: Some(&self.paths),
            semantic: self.semantic.as_ref(),
            extraction: self.extraction.as_ref(),
        };
        Ok(ops::call(&mut ctx, request)?)
    }

    /// Let operations compress with `ex` (`aletheia compress`).
    pub fn set_extraction(&mut self, ex: crate::compress::Extraction) {
        self.extraction = Some(ex);
    }

    /// The extractor in use, as `compress` prints it.
    pub fn extraction_name(&self) -> String {
        self.extraction
            .as_ref()
            .map_or_else(|| "rule-based".into(), |e| e.describe())
    }

    /// The open store, for what the edge reads before calling (`compress`'s first-use notice).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Where the data lives.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The clock the results are shown in.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

/// Run one operation and print its result: the text, or one line of JSON.
pub fn run<O: Operation + Text>(request: O, caller: Caller, json: bool) -> anyhow::Result<()> {
    let mut edge = Edge::open(caller)?;
    let out = edge.call(request)?;
    print(&out, edge.clock(), json, O::text)
}

/// Print a result as text or as one line of JSON.
pub fn print<T: serde::Serialize>(
    out: &T,
    clock: &Clock,
    json: bool,
    text: fn(&T, &Clock) -> crate::text::Rendered,
) -> anyhow::Result<()> {
    if json {
        emit(&serde_json::to_string(out)?, true)
    } else {
        emit(text(out, clock).text(), false)
    }
}

/// Write one result and a newline to stdout. On a terminal, control characters in it are shown
/// escaped rather than sent raw, so that stored text cannot retitle, recolour or drive the
/// terminal; piped, the output is exactly the text.
pub fn emit(text: &str, json: bool) -> anyhow::Result<()> {
    use std::io::{IsTerminal, Write};
    let mut stdout = std::io::stdout().lock();
    if stdout.is_terminal() {
        writeln!(stdout, "{}", for_terminal(text, json))?;
    } else {
        writeln!(stdout, "{text}")?;
    }
    Ok(())
}

/// `text` with its control characters escaped for a terminal. Text keeps tabs and newlines and
/// shows every other C0 control and DEL as `\x1b`, and a C1 control (U+0080 to U+009F, which
/// some terminals obey as escapes) as `\u{9b}`. JSON already escapes C0; DEL and C1 become
/// `\u009b`, which keeps it valid JSON meaning the same.
pub fn for_terminal(text: &str, json: bool) -> std::borrow::Cow<'_, str> {
    let raw = |c: char| {
        if json {
            matches!(c, '\u{7f}'..='\u{9f}')
        } else {
            c.is_control() && c != '\n' && c != '\t'
        }
    };
    if !text.chars().any(raw) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c as u32 {
            _ if !raw(c) => out.push(c),
            n if json => out.push_str(&format!("\\u{n:04x}")),
            n if n < 0x80 => out.push_str(&format!("\\x{n:02x}")),
            n => out.push_str(&format!("\\u{{{n:x}}}")),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::for_terminal;

    #[test]
    fn a_terminal_sees_control_characters_escaped_but_tabs_and_newlines_kept() {
        let stored = "title\x1b]0;pwned\x07 \x1b[31mred\r\x7f\u{9b}2J\tcol\nnext é";
        assert_eq!(
            for_terminal(stored, false),
            "title\\x1b]0;pwned\\x07 \\x1b[31mred\\x0d\\x7f\\u{9b}2J\tcol\nnext é"
        );
        assert!(matches!(
            for_terminal("plain\ttext\n", false),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn json_on_a_terminal_stays_json_with_c1_and_del_escaped() {
        let line = serde_json::to_string(&serde_json::json!({"t": "a\x1bb\u{9b}c\x7f"})).unwrap();
        let shown = for_terminal(&line, true);
        assert_eq!(shown, r#"{"t":"a\u001bb\u009bc\u007f"}"#);
        let back: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(back["t"], "a\x1bb\u{9b}c\x7f");
    }
}
