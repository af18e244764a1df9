//! `aletheia-hook`: the hook alone, the program hosts run on every event.
//!
//! It takes the same `hook <tool> <event>` as `aletheia hook` and does the same, from a binary
//! that links only what a hook runs: a quarter of `aletheia`'s size, without the server, the
//! model or the command line. A hook is mostly process start-up, and a smaller binary starts
//! with fewer symbols for the loader to resolve and fewer pages of code to fault in (measured:
//! 70 fewer page faults a run, a fifth of them; `docs/benchmarks.md`). `install` writes hook
//! commands with it when it sits beside `aletheia`, as the release archives and
//! `cargo install` put it.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    aletheia::store::configure_process();
    let args: Vec<String> = std::env::args().collect();
    if let Some(code) = aletheia::capture::hook::entry(&args) {
        return ExitCode::from(code);
    }
    if args.get(1).is_some_and(|a| a == "--version" || a == "-V") {
        let _ = writeln!(
            std::io::stdout(),
            "aletheia-hook {} (commit {}, store schema {})",
            env!("CARGO_PKG_VERSION"),
            env!("ALETHEIA_COMMIT"),
            aletheia::store::schema::CURRENT_VERSION
        );
        return ExitCode::SUCCESS;
    }
    aletheia::capture::hook::say(
        "aletheia-hook runs only `aletheia-hook hook <tool> <event>`, the command a host's hook runs; everything else is `aletheia` (see aletheia --help).",
    );
    ExitCode::from(2)
}
