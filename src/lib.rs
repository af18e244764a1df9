//! Aletheia: a memory for AI coding agents.
//!
//! The library holds everything the `aletheia` binary does, so that the hook, the CLI and the
//! later servers share one store, one redaction function and one recall path. `main.rs` only
//! parses arguments and dispatches here.

pub mod capture;
pub mod cli;
pub mod compress;
pub mod config;
pub mod drift;
pub mod embed;
pub mod features;
pub mod history;
pub mod install;
pub mod mcp;
pub mod model;
pub mod ops;
pub mod project;
pub mod recall;
pub mod redact;
#[cfg(feature = "server")]
pub mod server;
pub mod spool;
pub mod stall;
pub mod store;
pub mod supersession;
pub mod sync;
pub mod text;
pub mod time;
