//! The `aletheia` binary: parse arguments, dispatch, map errors to exit codes (the rule is
//! [`cli::exit`]'s).
//!
//! `hook` is dispatched before clap is even built: it runs on every host event and must stay
//! minimal; it always exits 0.

use aletheia::cli;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "aletheia",
    version,
    about = "A memory for AI coding agents.",
    // Wrapped by hand: clap prints it as written (and the manual page refills it).
    long_about = "A memory for AI coding agents.\n\n\
        Each host (Claude Code, Cursor, Codex, Gemini CLI, Windsurf, OpenCode, Command Code) runs\n\
        `aletheia hook <tool> <event>` from its hooks: the event is redacted and stored in a local\n\
        SQLite file, or spooled when the store cannot be reached, and the hook always exits 0.\n\
        Finished sessions are compressed into facts and summaries, each new session starts with a\n\
        short block of what mattered, and `aletheia mcp` or `aletheia server` gives any MCP client\n\
        the same store.\n\n\
        Start with `aletheia connect <tool>`, then `aletheia install <tool> --write`;\n\
        `aletheia doctor` says what to fix."
)]
struct Cli {
    /// Print the result as JSON (times in UTC epoch milliseconds) instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run as a host hook: read one JSON payload on stdin (always exits 0).
    Hook { tool: String, event: String },
    /// Serve the MCP tools over stdio.
    Mcp,
    /// Serve the REST API, MCP over HTTP and the dashboard on a loopback port, with the worker.
    Server(cli::server::ServerArgs),
    /// Serve one store to several machines or a team over HTTP, each request with a token.
    Hub(cli::hub::HubArgs),
    /// Push this store's new memories and changes to a hub, and pull what it has from others.
    Sync(cli::sync::SyncArgs),
    /// The hub's tokens: create, list, revoke.
    #[command(name = "mcp-link", subcommand)]
    McpLink(cli::hub::LinkCommand),
    /// Show what `install` would write for a host (hooks and MCP entry); writes nothing.
    Connect(cli::connect::ConnectArgs),
    /// Register the hooks and the MCP server with a host (with --write).
    Install(cli::install::InstallArgs),
    /// Remove what `install` added to a host's configuration.
    Uninstall(cli::install::UninstallArgs),
    /// Standing rules: list, add, confirm, sync (into each tool's rule file).
    #[command(subcommand)]
    Rules(cli::rules::RulesCommand),
    /// Turn finished sessions into facts and summaries now (or keep a worker running).
    Compress(cli::compress::CompressArgs),
    /// What waits for you: clients' proposals and facts that disagree. list, accept, reject.
    Review(cli::review::ReviewArgs),
    /// How far each connected client's writes are trusted: read, propose or write.
    Trust(cli::trust::TrustArgs),
    /// Named work-state lists: read, write.
    #[command(subcommand)]
    List(cli::list::ListCommand),
    /// Store one note.
    Save(cli::save::SaveArgs),
    /// Store one memory read from stdin.
    Capture(cli::capture::CaptureArgs),
    /// Search memories.
    Search(cli::search::SearchArgs),
    /// Show the memories before and after one memory.
    Timeline(cli::timeline::TimelineArgs),
    /// Show memories in full by id.
    Observations(cli::observations::ObservationsArgs),
    /// Where a memory or fact came from: the fact, its memory, the original message, the
    /// session, and the hook event or call that stored it, with times.
    Why(cli::why::WhyArgs),
    /// One memory with every text it held, newest first: who wrote each and when; the
    /// memories it replaced or that replaced it; its feedback.
    Inspect(cli::inspect::InspectArgs),
    /// Replace a note's text (and title); the old text is kept as a version.
    Edit(cli::inspect::EditArgs),
    /// Say what a memory is worth: --favourite, --unfavourite, --positive or --negative.
    Feedback(cli::inspect::FeedbackArgs),
    /// The memories whose files changed or went away since they were written, in this folder.
    Drift(cli::drift::DriftArgs),
    /// Check the signed history: every chain and signature, and that nothing was changed
    /// behind aletheia's back.
    Verify,
    /// The facts about a subject and how they changed (subjects matched by words), or every
    /// subject with its count.
    Facts(cli::facts::FactsArgs),
    /// Hide a memory (or fact) from search and context without deleting it.
    Dismiss(cli::items::DismissArgs),
    /// Undo dismiss.
    Restore(cli::items::RestoreArgs),
    /// Print the session-start context block.
    Context(cli::context::ContextArgs),
    /// Import memories from JSONL (a file or stdin).
    Import(cli::import::ImportArgs),
    /// Store the prompts and summaries of past sessions from a host's transcripts.
    Backfill(cli::backfill::BackfillArgs),
    /// Export every memory as JSONL to stdout.
    Export(cli::export::ExportArgs),
    /// Redact stored rows again with the current rules.
    Scrub,
    /// Report the store, the spool, captures and host hooks, and what to fix.
    Doctor(cli::doctor::DoctorArgs),
    /// Bring everything spooled into the store now.
    Drain,
    /// Print stdin as it would be stored, secrets redacted.
    Redact(cli::redact::RedactArgs),
    /// The local embedding model for semantic search.
    #[command(subcommand)]
    Model(cli::model::ModelCommand),
    /// Give every memory a vector for semantic search (needs the model: aletheia model fetch).
    Index,
    /// Print a shell's completion script (bash, zsh, fish, powershell, elvish).
    Completions { shell: clap_complete::Shell },
    /// Print the manual page (roff: `aletheia man | man -l -`), or write one page per command.
    Man {
        /// Write aletheia.1 and a page per subcommand (aletheia-search.1, ...) into this folder.
        #[arg(long)]
        dir: Option<std::path::PathBuf>,
    },
}

/// What `--version` prints after the name: the version, the commit the binary was built from
/// and the store schema it writes (a store written by a newer schema is refused).
fn version_line() -> String {
    format!(
        "{} (commit {}, store schema {})",
        env!("CARGO_PKG_VERSION"),
        env!("ALETHEIA_COMMIT"),
        aletheia::store::schema::CURRENT_VERSION
    )
}

/// The command-line definition, with the full version line.
fn command() -> clap::Command {
    // clap takes a static version string: leaked, a few dozen bytes once or twice a process.
    Cli::command().version(&*version_line().leak())
}

fn main() -> ExitCode {
    aletheia::store::configure_process();
    let args: Vec<String> = std::env::args().collect();
    if let Some(code) = aletheia::capture::hook::entry(&args) {
        return ExitCode::from(code);
    }
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    let json = cli.json;
    let result = match cli.command {
        Command::Hook { tool, event } => {
            return ExitCode::from(aletheia::capture::hook::run_caught(&tool, &event));
        }
        Command::Mcp => aletheia::mcp::stdio::serve().map_err(Into::into),
        Command::Server(a) => cli::server::run(a),
        Command::Hub(a) => cli::hub::hub(a, json),
        Command::McpLink(c) => cli::hub::link(c, json),
        Command::Sync(a) => cli::sync::run(a, json),
        Command::Connect(a) => cli::connect::run(a, json),
        Command::Install(a) => cli::install::install(a, json),
        Command::Uninstall(a) => cli::install::uninstall(a, json),
        Command::Rules(c) => cli::rules::run(c, json),
        Command::Compress(a) => cli::compress::run(a, json),
        Command::Backfill(a) => cli::backfill::run(a, json),
        Command::Review(c) => cli::review::run(c, json),
        Command::Trust(a) => cli::trust::run(a, json),
        Command::List(c) => cli::list::run(c, json),
        Command::Save(a) => cli::save::run(a, json),
        Command::Capture(a) => cli::capture::run(a, json),
        Command::Search(a) => cli::search::run(a, json),
        Command::Context(a) => cli::context::run(a, json),
        Command::Timeline(a) => cli::timeline::run(a, json),
        Command::Observations(a) => cli::observations::run(a, json),
        Command::Why(a) => cli::why::run(a, json),
        Command::Inspect(a) => cli::inspect::run(a, json),
        Command::Edit(a) => cli::inspect::edit(a, json),
        Command::Feedback(a) => cli::inspect::feedback(a, json),
        Command::Drift(a) => cli::drift::run(a, json),
        Command::Verify => cli::verify::run(json),
        Command::Facts(a) => cli::facts::run(a, json),
        Command::Dismiss(a) => cli::items::dismiss(a, json),
        Command::Restore(a) => cli::items::restore(a, json),
        Command::Import(a) => cli::import::run(a, json),
        Command::Export(a) => cli::export::run(a),
        Command::Scrub => cli::scrub::run(json),
        Command::Drain => cli::drain::run(json),
        Command::Doctor(a) => match cli::doctor::run(a, json) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(cli::exit::NOT_AS_ASKED),
            Err(e) => Err(e),
        },
        Command::Redact(a) => cli::redact::run(a, json),
        #[cfg(feature = "semantic")]
        Command::Index => cli::index::run(json),
        #[cfg(not(feature = "semantic"))]
        Command::Index => Err(aletheia::features::NotBuilt::SEMANTIC.into()),
        Command::Model(c) => cli::model::run(c, json),
        Command::Completions { shell } => {
            // Into a buffer first: clap_complete panics when its writer fails (`| head`).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command(), "aletheia", &mut script);
            cli::print::raw(&script).map_err(Into::into)
        }
        // The pages carry the plain version, not the commit: the release archives ship copies
        // checked against this output, which would otherwise differ at every commit.
        Command::Man { dir: None } => {
            let mut page = Vec::new();
            cli::manual::top(&cli::manual::built(Cli::command()), &mut page)
                .and_then(|()| cli::print::raw(&page))
                .map_err(Into::into)
        }
        Command::Man { dir: Some(dir) } => {
            cli::manual::write_dir(Cli::command(), &dir).map_err(|e| {
                anyhow::anyhow!("cannot write the manual pages into {}: {e}", dir.display())
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`aletheia search … | head -1`): it has all it wanted.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aletheia: {e:#}");
            cli::exit::code(&e)
        }
    }
}

/// Whether a broken pipe is anywhere in the error's chain: a write to stdout may fail under
/// context added on the way up, or inside a JSON error (which keeps the I/O error to itself,
/// not as its source).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(pipe_closed)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// An I/O error of a closed pipe, or one wrapping it (`io::Error::other(e)` hides the inner
/// error from the chain: it is reached through `get_ref`).
fn pipe_closed(io: &std::io::Error) -> bool {
    io.kind() == std::io::ErrorKind::BrokenPipe
        || io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<std::io::Error>())
            .is_some_and(pipe_closed)
}

#[cfg(test)]
mod tests {
    use super::is_broken_pipe;
    use anyhow::Context as _;
    use std::io;

    /// A writer whose reader has gone away.
    struct Closed;

    impl io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_broken_pipe_is_recognised_anywhere_in_the_error_chain() {
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(is_broken_pipe(&pipe().into()));
        let under_context = Err::<(), _>(pipe())
            .context("printing the hits")
            .context("search")
            .unwrap_err();
        assert!(is_broken_pipe(&under_context));
        let in_json = serde_json::to_writer(Closed, &[1, 2, 3]).unwrap_err();
        assert!(is_broken_pipe(
            &Err::<(), _>(in_json).context("export").unwrap_err()
        ));
        assert!(is_broken_pipe(&io::Error::other(pipe()).into()));

        let not_found = Err::<(), _>(io::Error::from(io::ErrorKind::NotFound))
            .context("opening the store")
            .unwrap_err();
        assert!(!is_broken_pipe(&not_found));
        assert!(!is_broken_pipe(&anyhow::anyhow!("broken pipe")));
    }
}
