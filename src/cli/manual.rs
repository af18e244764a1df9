//! The manual pages: clap_mangen's page for every command, generated from the one command
//! definition, and on the top page the sections a reader of `man aletheia` looks for that no
//! command definition holds: the environment, the files, and the exit status.

use clap_mangen::roff::{Inline, Roff, bold, italic, roman};
use std::io::Write;
use std::path::Path;

/// Every variable the program reads, with what it does (the README's configuration table says
/// the same at more length; a test keeps the three in step).
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "ALETHEIA_DATA_DIR",
        "The data directory (default: the platform's, e.g. ~/.local/share/aletheia).",
    ),
    (
        "ALETHEIA_HUB_DB",
        "The store file (default: hub.db in the data directory); the spool stays in the data directory.",
    ),
    (
        "ALETHEIA_EXCLUDED_PROJECTS",
        "Project keys, separated by commas or spaces, that are never recorded.",
    ),
    (
        "ALETHEIA_REDACT_RULES",
        "A gitleaks-format TOML file of extra redaction rules; aletheia redact --check validates it.",
    ),
    (
        "ALETHEIA_HOOK_DEADLINE_MS",
        "The hook's hard deadline in milliseconds (default 1000); past it the event is spooled.",
    ),
    (
        "ALETHEIA_SPOOL_MAX_MB",
        "The cap on the spool in MB (default 256); a full spool refuses new events and counts them for aletheia doctor, and keeps every event it holds.",
    ),
    (
        "ALETHEIA_CWD",
        "The working directory that decides the default project.",
    ),
    (
        "ALETHEIA_MODEL_DIR",
        "The models folder, one folder per model named as the model (default: model/ in the data directory).",
    ),
    (
        "ALETHEIA_MODEL",
        "The sentence model: e5-small-v2 (the default), all-MiniLM-L6-v2 or bge-small-en-v1.5.",
    ),
    (
        "ALETHEIA_RERANKER",
        "The cross-encoder that re-ranks the best results: ms-marco-MiniLM-L-12-v2 (the default, when its folder is there) or off.",
    ),
    (
        "ALETHEIA_RERANK_DEPTH",
        "How many of a search's best results the re-ranker reads (default 4, at most 50); more finds more and costs more.",
    ),
    (
        "ALETHEIA_KEYWORD_INDEX",
        "on (the default): the server and the hub keep the keyword index in memory; off: every search reads FTS5, with the same results, more slowly.",
    ),
    (
        "ALETHEIA_MODEL_URL",
        "Where aletheia model fetch downloads from, for a mirror that serves each model in a folder of its name.",
    ),
    (
        "ALETHEIA_PROVIDER",
        "Who extracts facts: none (the rule extractor, the default), openai or claude-cli.",
    ),
    (
        "ALETHEIA_PROVIDERS",
        "An ordered, comma-separated list of providers to fall back through; set, it wins over ALETHEIA_PROVIDER.",
    ),
    (
        "ALETHEIA_OPENAI_BASE_URL",
        "The OpenAI-compatible endpoint (default https://api.openai.com/v1).",
    ),
    (
        "ALETHEIA_OPENAI_MODEL",
        "The model asked at that endpoint (default gpt-4o-mini).",
    ),
    (
        "ALETHEIA_OPENAI_API_KEY",
        "The endpoint's key (falls back to OPENAI_API_KEY).",
    ),
    (
        "ALETHEIA_CLAUDE_BIN",
        "The claude executable for the claude-cli provider (default: found on PATH).",
    ),
    ("ALETHEIA_CLAUDE_MODEL", "The --model given to claude."),
    (
        "ALETHEIA_PROVIDER_TIMEOUT_SECS",
        "One provider call's timeout in seconds (default 45).",
    ),
    (
        "ALETHEIA_PROVIDER_JOB_CHARS",
        "The most characters sent to providers for one job (default 100,000).",
    ),
    (
        "ALETHEIA_PROVIDER_DAY_CHARS",
        "The most characters sent to providers in one day (default 1,000,000).",
    ),
    (
        "ALETHEIA_WINDOW_ITEMS",
        "Memories in one compression window (default 20).",
    ),
    (
        "ALETHEIA_WINDOW_CHARS",
        "Characters in one compression window (default 12,000).",
    ),
    (
        "ALETHEIA_TOOL",
        "The caller's name, stored as a saved memory's tool and a rule's source (default: cli, or for MCP the client's name).",
    ),
    (
        "ALETHEIA_PORT",
        "The server's port (default 7749; --port wins; 0 picks a free one).",
    ),
    (
        "ALETHEIA_API_KEY",
        "The server's API key: requests to /v1 and /mcp then need it as a bearer token, and the dashboard asks for it to sign in. The server listens beyond loopback only with a key.",
    ),
    (
        "ALETHEIA_ALLOWED_ORIGINS",
        "Origins, comma separated, the server accepts requests from besides its own.",
    ),
    (
        "ALETHEIA_HUB_DATABASE",
        "The PostgreSQL database aletheia hub, mcp-link and hub audit use when neither --hub-db nor --database names a store (postgres://user@host/db; ?sslmode=require for TLS).",
    ),
    (
        "ALETHEIA_HUB_RATE",
        "Requests each hub token may make per minute (default 60); past it the hub answers 429 with Retry-After.",
    ),
    (
        "ALETHEIA_SYNC_TOKEN",
        "The token aletheia sync uses when --token gives none (else the one sync setup saved).",
    ),
    (
        "ALETHEIA_SYNC_BATCH",
        "Items in one sync batch, 1 to 10000 (default 1000).",
    ),
    (
        "ALETHEIA_SYNC_INTERVAL",
        "Seconds between the server's syncs once sync setup has run (default 300).",
    ),
    (
        "ALETHEIA_HOOK_PHASES",
        "When set, the hook prints the time each of its steps took as one line on stderr.",
    ),
    (
        "ALETHEIA_LOG",
        "The server's log filter (default info); the MCP library stays at warn unless the filter names rmcp.",
    ),
    (
        "ALETHEIA_MAX_CONNECTIONS",
        "The server's cap on open connections (default 512); at the cap a new one closes the connection idle (or still sending its request) the longest; one being answered is never closed.",
    ),
    (
        "ALETHEIA_HEADER_TIMEOUT_MS",
        "How long a connection to the server may take to send a request's header, from its opening or its previous answer (default 5000).",
    ),
    (
        "ALETHEIA_BODY_TIMEOUT_MS",
        "How long a request's body may take to arrive once its header has (default 30000); then 408.",
    ),
    (
        "ALETHEIA_MCP_SESSIONS",
        "The server's cap on live MCP sessions at /mcp (default 256); a new one past it ends the session idle longest.",
    ),
    (
        "ALETHEIA_MCP_SESSION_IDLE_SECS",
        "How long an MCP session at /mcp lives without a request (default 1800).",
    ),
    (
        "TZ",
        "The time zone times are shown and read in (default: the system's).",
    ),
];

/// The files, as paths under the data directory.
const FILES: &[(&str, &str)] = &[
    (
        "hub.db",
        "The store: memories, facts, rules, lists and jobs (SQLite).",
    ),
    (
        "sync-token",
        "The hub token aletheia sync setup saved, readable by its owner alone.",
    ),
    (
        "spool/hook-spool.jsonl",
        "Events a hook could not store, brought in by the next run (or aletheia drain). When the data directory cannot be written: $TMPDIR/aletheia-<uid>/hook-spool.jsonl.",
    ),
    (
        "spool/draining-*.jsonl",
        "A spool a drain took aside and did not finish; the next run finishes it.",
    ),
    (
        "spool/event-*.jsonl",
        "One event that found the spool's lock busy (a heavily loaded machine), kept in a file of its own and brought in like the spool.",
    ),
    (
        "spool/rejected-*.jsonl",
        "Spool lines that could not be read, kept rather than dropped.",
    ),
    (
        "spool/refused.json",
        "How many events the spool refused at its cap, and when; aletheia doctor reports it. When the data directory cannot be written: $TMPDIR/aletheia-<uid>/refused.json.",
    ),
    ("logs/server.log.*", "The server's log, a file a day."),
    (
        "model/",
        "The local embedding model for semantic search (aletheia model fetch).",
    ),
];

/// The top page, `aletheia.1`.
pub fn top(cmd: &clap::Command, w: &mut dyn Write) -> std::io::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut page)?;
    let page = String::from_utf8(page).expect("clap_mangen writes UTF-8");
    // Our sections go before VERSION, where man pages keep them.
    let at = page.find("\n.SH VERSION\n").map_or(page.len(), |i| i + 1);
    w.write_all(&page.as_bytes()[..at])?;
    w.write_all(sections().as_bytes())?;
    w.write_all(&page.as_bytes()[at..])
}

/// A page per command into `dir`, the top one with the sections above.
pub fn write_dir(cmd: clap::Command, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    clap_mangen::generate_to(cmd.clone(), dir)?;
    let mut file = std::fs::File::create(dir.join("aletheia.1"))?;
    top(&built(cmd), &mut file)?;
    file.flush()
}

/// The command as `generate_to` renders it, so `aletheia man` prints what `--dir` writes.
pub fn built(cmd: clap::Command) -> clap::Command {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// ENVIRONMENT, FILES and EXIT STATUS, as roff without its preamble (the page has one).
fn sections() -> String {
    let mut roff = Roff::default();
    roff.control("SH", ["ENVIRONMENT"]);
    tagged(&mut roff, ENVIRONMENT, bold);
    roff.control("SH", ["FILES"]);
    roff.text([roman(
        "In the data directory (ALETHEIA_DATA_DIR; aletheia doctor prints where it is):",
    )]);
    tagged(&mut roff, FILES, italic);
    roff.control("SH", ["EXIT STATUS"]);
    roff.text([roman(
        "0 on success. aletheia hook always exits 0: the host is never failed, and what it could not store waits in the spool. aletheia doctor exits 2 when it finds something to fix. Any other failure exits 1 with one line on standard error saying what to do; arguments that do not parse exit 2.",
    )]);
    let text = roff.render();
    // Roff puts its apostrophe preamble before the first line; the page already starts with it.
    let first = text.find("\n.SH ENVIRONMENT").map_or(0, |i| i + 1);
    text[first..].to_owned()
}

/// A tagged paragraph per entry: the name in `font`, then what it is.
fn tagged(
    roff: &mut Roff,
    entries: &[(&'static str, &'static str)],
    font: fn(&'static str) -> Inline,
) {
    for (name, what) in entries {
        roff.control("TP", [])
            .text([font(name)])
            .text([roman(*what)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `ALETHEIA_*` variable the code reads is in the manual and in the README, and
    /// neither names one the code no longer reads.
    #[test]
    fn the_manual_and_the_readme_name_every_variable_the_code_reads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut read = std::collections::BTreeSet::new();
        let mut dirs = vec![root.join("src")];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") && p != root.join(file!()) {
                    let text = std::fs::read_to_string(&p).unwrap();
                    for part in text.split("\"ALETHEIA_").skip(1) {
                        let name: String = part
                            .chars()
                            .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                            .collect();
                        if part[name.len()..].starts_with('"') {
                            read.insert(format!("ALETHEIA_{name}"));
                        }
                    }
                }
            }
        }
        // Set by the build and by the test suite, not by a user.
        read.remove("ALETHEIA_COMMIT");
        read.remove("ALETHEIA_TEST_MODEL_DIR");
        read.remove("ALETHEIA_TEST_POSTGRES");
        // Read by debug builds only, for the reliability tests (src/stall.rs).
        read.remove("ALETHEIA_TEST_STALL");
        let documented: std::collections::BTreeSet<String> = ENVIRONMENT
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| n.starts_with("ALETHEIA_"))
            .collect();
        assert_eq!(
            read, documented,
            "the manual's ENVIRONMENT and the code differ"
        );
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        for name in &documented {
            assert!(
                readme.contains(&format!("`{name}`")),
                "README.md does not describe {name}"
            );
        }
    }

    #[test]
    fn the_sections_sit_before_the_version() {
        let cmd = clap::Command::new("aletheia").version("1.2.3");
        let mut out = Vec::new();
        top(&cmd, &mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        let at = |s: &str| page.find(s).unwrap_or_else(|| panic!("no {s} in {page}"));
        assert!(at(".SH ENVIRONMENT") < at(".SH FILES"));
        assert!(at(".SH FILES") < at(".SH \"EXIT STATUS\""));
        assert!(at(".SH \"EXIT STATUS\"") < at(".SH VERSION"));
        assert!(page.contains("ALETHEIA_SPOOL_MAX_MB"));
        assert_eq!(page.matches(".ie \\n(.g .ds Aq").count(), 1, "{page}");
    }
}
