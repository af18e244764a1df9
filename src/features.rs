//! The optional parts of a build (`semantic`, `server`; both in the release build) and the error
//! a command gives when this build lacks the one it needs.
//!
//! A lean build (`--no-default-features`) keeps every subcommand, so that its help, manual pages
//! and shell completions match the release build's and a user who types `aletheia server` learns
//! why it cannot run rather than being told the command does not exist.

/// A command needs a feature this build was compiled without. `main` prints it and exits 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "this aletheia was built without the {0} feature; install the release build or build with --features {0}"
)]
pub struct NotBuilt(pub &'static str);

impl NotBuilt {
    /// Search by meaning: the embedding model, its download and indexing.
    pub const SEMANTIC: NotBuilt = NotBuilt("semantic");
    /// `aletheia server`: REST, MCP over HTTP and the dashboard.
    pub const SERVER: NotBuilt = NotBuilt("server");
}
