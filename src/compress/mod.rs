//! Compression: finished sessions become facts and summaries, away from the hook.
//!
//! The Stop hook only queues a session. A worker (`aletheia compress`, or its `--daemon`)
//! turns queue entries into `extract_session` jobs, claims one at a time under a lease,
//! and runs it: the session's summary and note memories are cut into windows, each window goes
//! to an extractor (the deterministic rule extractor, or a model provider the user chose), and
//! the facts, the summaries and the merged observations are written in one transaction that
//! only commits while the job's lease is still this worker's.

pub mod job;
pub mod merge;
pub mod provider;
pub mod rules;
pub mod window;
pub mod worker;

pub use worker::Extraction;

/// A fact an extractor proposes, before it is redacted and stored.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Candidate {
    pub subject: String,
    pub predicate: String,
    pub object: String,
    /// When it became true in the world (epoch milliseconds), when the text says; else the
    /// job uses the source memory's time.
    pub valid_from: Option<i64>,
    /// 0 to 1.
    pub confidence: f64,
}
