//! The storage contract: what the operations, recall, compression, the server and MCP need
//! from a store, named engine-neutrally so that a second engine can stand behind them.
//!
//! The SQLite [`Store`] is the first engine; the team hub's PostgreSQL store will be the
//! second. The operations, recall, compression and the semantic index take `&dyn Storage` or
//! `&mut dyn Storage`, so none of them knows which engine answers; the front ends that open
//! the file (the CLI, MCP's stdio server, the HTTP server's pool and worker) hold the SQLite
//! store and hand it on as `&mut dyn Storage`. The hook's hot path (capture, the spool's
//! drain) keeps calling the SQLite store directly: it opens a local file on every event and
//! must stay as fast as it is.
//!
//! # What a second engine must provide
//!
//! - Every method of every part below, with the same meaning: the same rows written and read,
//!   the same filters (project, dismissed, pinned, kinds, types, dates), the same orders and
//!   ties (date order ties by id), the same limits, the same idempotence (a memory with the
//!   same content hash is stored once; a rule or fact already known is reported as known; a
//!   job finishes only while its lease is the caller's, and writes nothing otherwise).
//! - Writes that take [`Redacted`] values for every text a person, a model or a provider wrote:
//!   redaction happens before the contract, never inside an engine. The plain `&str` arguments
//!   left are names, not free text: the coding tool of an event or list (the front ends take
//!   it from the adapter or redact the client's own name) and the provider of a usage record
//!   (from the user's own configuration).
//! - A job's result, written through [`JobWrites`], in one transaction that commits whole or
//!   not at all.
//! - Errors as [`StoreError`]: the engine's own error boxed as the source of
//!   [`StoreError::Engine`], classified (`constraint` when a write clashed with stored data,
//!   which callers report as a conflict rather than a failure).
//!
//! # What it may answer its own way
//!
//! - Term statistics ([`SearchIndex::each_match_counted`], [`SearchIndex::term_sample`],
//!   [`SearchIndex::indexed_rows`]) come from its own index. Parity means: the same memories
//!   match the same terms, and the counts are the same when both engines tokenise alike
//!   (unicode61 without diacritics, lower case). The ranking built on them is computed above
//!   the store, so equal counts give equal scores.
//! - [`SearchIndex::native_scores`] takes a query in the engine's own syntax (FTS5's for
//!   SQLite) and answers with the engine's own relevance: higher is better, and only the order
//!   of the matches is comparable across engines, never the values.
//! - [`Upkeep::quick_check`], [`Upkeep::search_index_consistent`] and
//!   [`Upkeep::rebuild_search_index`] check and repair what the engine has: an engine whose
//!   index cannot drift answers `true` and rebuilds nothing. [`Upkeep::rescrub`] must leave no
//!   replaced text readable in its files; how is its own (SQLite: `secure_delete`, an index
//!   optimise and a WAL checkpoint).
//! - [`Upkeep::schema_version`] is the engine's own numbering.
//!
//! The shared contract test set (`tests.rs`) runs against the SQLite store through
//! `&mut dyn Storage`; a second engine runs the same set.
//!
//! # Audit and sync state
//!
//! The audit trail of a machine is written, never read: dismissals, restores and review
//! decisions carry a [`Redacted<AuditEntry>`] and the engine records it in the same
//! transaction as the change it explains.
//!
//! A hub's store is the one a second engine stands behind first, so what only a hub keeps has
//! parts of its own, outside [`Storage`]: [`HubTokens`] (tokens as hashes, and the audit of
//! every call made with them) and [`SyncHub`] (taking a machine's push, settling concurrent
//! versions with the loser kept, serving what the hub gained by its own sequence) and
//! [`HistoryHub`] (the machines' signed histories, checked and pinned as they arrive).
//! [`HubStorage`] is all of it. A machine's own side of sync (stamping, cursors, batches out)
//! stays on the SQLite store: a machine's store is always the local file the hook writes.

pub(in crate::store) mod sqlite;
#[cfg(test)]
mod tests;

use super::compression::{Comparable, Source, Summary};
use super::facts::{Accepted, FactOutcome, NewFact, Rejected};
use super::hub::{AuditEntry as CallEntry, NewToken, Token};
use super::inbox::{ClientTrust, NewProposal, Proposal};
use super::jobs::{Failure, Job, JobCounts, JobRow, Retry};
use super::rules::NewRule;
use super::search::{
    CandidateReader, Candidates, DateOrder, FileMatch, Filter, TermSample, TextQuery,
};
use super::standing::{Cause, Feedback, Link, Standing, Vote};
use super::state::{AuditEntry, ItemType, NewList};
use super::sync::{Conflict, Pusher, Received};
use super::term_counts::TermCounts;
use super::usage::Usage;
use super::vectors::StoredVector;
use super::versions::MemoryVersion;
use super::{Inserted, MemoryFilter, QueuedSession, Rescrubbed, Store, StoreError};
use crate::history::sync::{Page, Pinned, Push, Refusal};
use crate::model::{Fact, Memory, NewMemory, Review, Rule};
use crate::redact::{Redacted, Redactor};
use crate::store::fact_queries::{HistoryQuery, Subjects};
use crate::sync::item::Batch;
use std::collections::HashSet;

/// Declares each part of the contract and implements it for the SQLite [`Store`] by calling
/// the inherent method of the same name, so the contract and the engine cannot drift apart
/// without a compile error, and each signature is written once. (Were an inherent method
/// renamed, `Store::name` would resolve to the trait's own method and call itself: the impls
/// deny `unconditional_recursion`, which makes that a compile error too.) Tests also get an engine that
/// is not the hook's store (`tests::Elsewhere`, SQLite underneath), to show that the layers
/// above run on any engine.
macro_rules! contract {
    ($( $(#[$doc:meta])* pub trait $part:ident { $($body:tt)* } )*) => {
        $(
            $(#[$doc])*
            pub trait $part { $($body)* }
            contract!(@sqlite $part [] [] $($body)*);
        )*
    };
    (@sqlite $part:ident [$($done:tt)*] [$($elsewhere:tt)*]) => {
        #[deny(unconditional_recursion)]
        impl $part for Store { $($done)* }
        #[cfg(test)]
        #[deny(unconditional_recursion)]
        impl $part for tests::Elsewhere { $($elsewhere)* }
    };
    (@sqlite $part:ident [$($done:tt)*] [$($elsewhere:tt)*]
        $(#[$doc:meta])* fn $name:ident(&mut $me:ident $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty;
        $($rest:tt)*
    ) => {
        contract!(@sqlite $part [$($done)*
            fn $name(&mut $me $(, $arg: $ty)*) -> $ret { Store::$name($me $(, $arg)*) }
        ] [$($elsewhere)*
            fn $name(&mut $me $(, $arg: $ty)*) -> $ret { Store::$name(&mut $me.0 $(, $arg)*) }
        ] $($rest)*);
    };
    (@sqlite $part:ident [$($done:tt)*] [$($elsewhere:tt)*]
        $(#[$doc:meta])* fn $name:ident(&$me:ident $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty;
        $($rest:tt)*
    ) => {
        contract!(@sqlite $part [$($done)*
            fn $name(&$me $(, $arg: $ty)*) -> $ret { Store::$name($me $(, $arg)*) }
        ] [$($elsewhere)*
            fn $name(&$me $(, $arg: $ty)*) -> $ret { Store::$name(&$me.0 $(, $arg)*) }
        ] $($rest)*);
    };
}

contract! {
    /// Memories: writing, reading and curating them.
    pub trait Memories {
        /// Store one memory; one already stored with the same content is returned, not doubled.
        fn insert(&mut self, m: &Redacted<NewMemory>) -> Result<Inserted, StoreError>;
        /// The memories with these ids that exist, in the order asked.
        fn get_many(&self, ids: &[i64]) -> Result<Vec<Memory>, StoreError>;
        /// Store imported memories (each with its record's uid and dismissed flag) in one
        /// transaction: how many were new and how many already stored.
        fn import(
            &mut self,
            batch: &[(Redacted<NewMemory>, Option<String>, bool)],
        ) -> Result<(usize, usize), StoreError>;
        /// Store past sessions' memories and queue their sessions, as their hooks would have:
        /// for each, whether it was new.
        fn backfill(
            &mut self,
            batch: &[(Redacted<NewMemory>, Option<Redacted<QueuedSession>>)],
            at: i64,
        ) -> Result<Vec<bool>, StoreError>;
        /// Up to `limit` memories in time order after the one at `after` (its time and id),
        /// for export.
        fn memories_page(
            &self,
            project: Option<&str>,
            after: Option<(i64, i64)>,
            limit: usize,
        ) -> Result<Vec<Memory>, StoreError>;
        /// Memories per kind.
        fn count_by_kind(&self) -> Result<Vec<(String, i64)>, StoreError>;
        /// Every memory, dismissed or not.
        fn count(&self) -> Result<i64, StoreError>;
        /// Memories matching `f`, newest first, for browsing.
        fn browse(
            &self,
            f: &MemoryFilter<'_>,
            limit: usize,
            offset: i64,
        ) -> Result<Vec<Memory>, StoreError>;
        /// Memories per project.
        fn project_counts(&self) -> Result<Vec<(String, i64)>, StoreError>;
        /// Pin or unpin; whether the memory exists.
        fn set_pinned(&mut self, id: i64, pinned: bool) -> Result<bool, StoreError>;
        /// Another memory that holds what `m` would make `id` hold.
        fn content_twin(&self, id: i64, m: &Redacted<NewMemory>)
        -> Result<Option<i64>, StoreError>;
        /// Replace a memory's title and text, written by `m`'s host at `now`, keeping the text
        /// it held as a version; whether it changed.
        fn replace_text(&mut self, id: i64, m: &Redacted<NewMemory>, now: i64)
        -> Result<bool, StoreError>;
        /// Every text a memory held, the current one first (empty: no such memory).
        fn memory_versions(&self, id: i64) -> Result<Vec<MemoryVersion>, StoreError>;
        /// When this store took memory `id` in (apart from when it was said or done); `None`
        /// when it is not known (stored before this was recorded) or there is no such memory.
        fn stored_at(&self, id: i64) -> Result<Option<i64>, StoreError>;
        /// Mark `older` as replaced by `newer`; whether a link was made.
        fn link_superseded(&mut self, older: i64, newer: i64, cause: Cause, now: i64)
        -> Result<bool, StoreError>;
        /// The supersessions a memory takes part in, either side, oldest first.
        fn memory_links(&self, id: i64) -> Result<Vec<Link>, StoreError>;
        /// Supersession and feedback in a scope, as they stood at `as_of` (now when `None`).
        fn standing(&self, project: Option<&str>, as_of: Option<i64>)
        -> Result<Standing, StoreError>;
        /// Record a vote on a memory: its feedback now, `None` when there is no such memory.
        fn give_feedback(&mut self, id: i64, vote: Vote, now: i64)
        -> Result<Option<Feedback>, StoreError>;
        /// The feedback a memory has.
        fn feedback_of(&self, id: i64) -> Result<Feedback, StoreError>;
        /// A project's pinned memories, for the context block.
        fn pinned_memories(&self, project: &str) -> Result<Vec<Memory>, StoreError>;
        /// A project's newest memories worth telling a new session.
        fn newest_told(&self, project: &str, limit: usize) -> Result<Vec<Memory>, StoreError>;
        /// The first of `ids` whose memory compression rewrote, keeping an episode.
        fn first_with_episode(&self, ids: &[i64]) -> Result<Option<i64>, StoreError>;
        /// The original message compression kept for a memory it rewrote.
        fn episode(&self, memory_id: i64) -> Result<Option<String>, StoreError>;
        /// The first memories of one session, dismissed or not, in time order.
        fn session_memories(
            &self,
            project: &str,
            session_id: &str,
            limit: usize,
        ) -> Result<Vec<Memory>, StoreError>;
        /// Memories just before and after `anchor`, in time order.
        fn memories_around(
            &self,
            anchor: &Memory,
            project: Option<&str>,
            before: usize,
            after: usize,
        ) -> Result<(Vec<Memory>, Vec<Memory>), StoreError>;
    }

    /// The full-text index: search candidates, and the term statistics ranking needs.
    pub trait SearchIndex {
        /// Up to `n` memories matching `query` and `filter`, in date order.
        fn matching_by_date(
            &self,
            query: TextQuery<'_>,
            filter: &Filter<'_>,
            order: DateOrder,
            n: usize,
        ) -> Result<Vec<Memory>, StoreError>;
        /// Memories that touched a file, in date order.
        fn touching_file(
            &self,
            file: FileMatch<'_>,
            filter: &Filter<'_>,
            order: DateOrder,
            limit: usize,
            offset: usize,
        ) -> Result<Vec<Memory>, StoreError>;
        /// Whether any memory is stored.
        fn has_memories(&self) -> Result<bool, StoreError>;
        /// Whether `project` has any memory that is not dismissed.
        fn project_has_memories(&self, project: &str) -> Result<bool, StoreError>;
        /// Rows in the index (the N of BM25's document frequency).
        fn indexed_rows(&self) -> Result<u64, StoreError>;
        /// How many of the newest `sample` rows hold `term`, and the oldest of them.
        fn term_sample(&self, term: &str, sample: u64) -> Result<TermSample, StoreError>;
        /// The newest memory's time in scope (ages are measured from it).
        fn newest_in_scope(&self, project: Option<&str>) -> Result<i64, StoreError>;
        /// Pinned, undismissed memories in scope.
        fn pinned_ids(&self, project: Option<&str>) -> Result<HashSet<i64>, StoreError>;
        /// Each row holding any of `terms` among `candidates`, with its term counts; with
        /// `only`, rows outside it are skipped.
        fn each_match_counted(
            &self,
            terms: &[String],
            candidates: Candidates<'_>,
            only: Option<Vec<i64>>,
            each: &mut dyn FnMut(i64, &TermCounts),
        ) -> Result<(), StoreError>;
        /// Every match of a query in the engine's own syntax, with the engine's own score.
        fn native_scores(
            &self,
            query: &str,
            candidates: Candidates<'_>,
        ) -> Result<Vec<(i64, f64)>, StoreError>;
        /// A reader of the rows a ranking looks at, one id at a time.
        fn candidate_rows(&self) -> Result<Box<dyn CandidateReader + '_>, StoreError>;
    }

    /// Facts: what compression learned, with their history and reviews.
    pub trait Facts {
        /// A project's current facts, most trusted first.
        fn trusted_facts(&self, project: &str, limit: usize) -> Result<Vec<Fact>, StoreError>;
        /// Current facts mentioning any of `terms`.
        fn facts_mentioning(
            &self,
            terms: &[String],
            project: Option<&str>,
            limit: usize,
        ) -> Result<Vec<Fact>, StoreError>;
        /// One fact by id, dismissed or not.
        fn fact_by_id(&self, id: i64) -> Result<Option<Fact>, StoreError>;
        /// The facts read from one memory.
        fn facts_of_memory(&self, memory_id: i64) -> Result<Vec<Fact>, StoreError>;
        /// A subject's facts through time.
        fn fact_history(&self, q: &HistoryQuery) -> Result<Vec<Fact>, StoreError>;
        /// The facts through time of every subject holding each word of `q.subject`.
        fn fact_history_by_words(&self, q: &HistoryQuery) -> Result<Vec<Fact>, StoreError>;
        /// The subjects of facts with their counts, most facts first.
        fn fact_subjects(
            &self,
            project: Option<&str>,
            include_superseded: bool,
            limit: usize,
        ) -> Result<Subjects, StoreError>;
        /// Tied facts waiting for a decision.
        fn open_fact_reviews(&self, project: Option<&str>) -> Result<Vec<Review>, StoreError>;
        /// Facts for curation, each with whether it is dismissed.
        fn list_facts(
            &self,
            project: Option<&str>,
            subject: Option<&str>,
            include_superseded: bool,
            limit: usize,
        ) -> Result<Vec<(Fact, bool)>, StoreError>;
        /// Store a fact: new, known, superseding, or tied for review.
        fn insert_fact(&mut self, f: &Redacted<NewFact>, now: i64)
        -> Result<FactOutcome, StoreError>;
        /// Accept a fact under review, closing the one it tied with.
        fn accept_fact(
            &mut self,
            id: i64,
            entry: &Redacted<AuditEntry>,
            now: i64,
        ) -> Result<Option<Accepted>, StoreError>;
        /// Reject a fact under review.
        fn reject_fact(
            &mut self,
            id: i64,
            entry: &Redacted<AuditEntry>,
            now: i64,
        ) -> Result<Option<Rejected>, StoreError>;
    }

    /// Rules: standing instructions, global or per project.
    pub trait Rules {
        /// Add a rule (its id, and whether it was new).
        fn add_rule(&mut self, r: &Redacted<NewRule>, now: i64) -> Result<(String, bool), StoreError>;
        /// A rule's scope and project.
        fn rule_scope(&self, id: &str) -> Result<Option<(String, String)>, StoreError>;
        /// Mark a rule confirmed now; whether it exists.
        fn confirm_rule(&mut self, id: &str, now: i64) -> Result<bool, StoreError>;
        /// The enabled rules for a project (with the global ones).
        fn enabled_rules(&self, project: Option<&str>) -> Result<Vec<Rule>, StoreError>;
        /// Every rule, each with whether it is enabled.
        fn all_rules(&self, project: Option<&str>) -> Result<Vec<(Rule, bool)>, StoreError>;
        /// Enable or disable a rule; whether it exists.
        fn set_rule_enabled(&mut self, id: &str, enabled: bool) -> Result<bool, StoreError>;
    }

    /// Named work-state lists, and dismissing items (with the audit entry it leaves).
    pub trait Lists {
        /// Write a named list; its id.
        fn write_list(&mut self, list: &Redacted<NewList>, host: &str, now: i64)
        -> Result<i64, StoreError>;
        /// A named list's items, as JSON.
        fn read_list(&self, project: &str, name: &str) -> Result<Option<String>, StoreError>;
        /// Dismiss or restore an item, recording who and why; whether it changed.
        fn set_dismissed(
            &mut self,
            item: ItemType,
            id: i64,
            dismissed: bool,
            entry: &Redacted<AuditEntry>,
            now: i64,
        ) -> Result<bool, StoreError>;
        /// The project an item belongs to.
        fn item_project(&self, item: ItemType, id: i64) -> Result<Option<String>, StoreError>;
    }

    /// Compression jobs: the queue, leases, their sources and the providers' usage.
    pub trait Jobs {
        /// Turn queued sessions into jobs; how many.
        fn jobs_from_queue(&mut self, now: i64) -> Result<usize, StoreError>;
        /// Queue a job for a project's memories saved outside sessions; whether it was new.
        fn queue_project_job(&mut self, project: &str, now: i64) -> Result<bool, StoreError>;
        /// Lease the next due job to `owner`.
        fn claim_job(
            &mut self,
            owner: &str,
            now: i64,
            lease_ms: i64,
            max_attempts: i64,
        ) -> Result<Option<Job>, StoreError>;
        /// Extend a lease; whether it is still the owner's.
        fn renew_lease(&mut self, job: &Job, now: i64, lease_ms: i64) -> Result<bool, StoreError>;
        /// Record a failed attempt.
        fn fail_job(
            &mut self,
            job: &Job,
            error: &Redacted<Failure>,
            now: i64,
            retry_at: i64,
            max_attempts: i64,
        ) -> Result<Retry, StoreError>;
        /// Give a job back without counting the attempt.
        fn release_job(&mut self, job: &Job, now: i64) -> Result<Retry, StoreError>;
        /// Write a job's result through `write` and mark it done, in one transaction, only
        /// while the lease is still the job owner's; `write` answers the result to keep on the
        /// job. Whether it was written (`false`: the lease was lost, nothing was written).
        fn finish_job(
            &mut self,
            job: &Job,
            now: i64,
            write: &mut dyn FnMut(&mut dyn JobWrites) -> Result<String, StoreError>,
        ) -> Result<bool, StoreError>;
        /// Jobs by state.
        fn job_counts(&self) -> Result<JobCounts, StoreError>;
        /// The newest jobs.
        fn recent_jobs(&self, limit: usize) -> Result<Vec<JobRow>, StoreError>;
        /// When the next job is due.
        fn next_job_due(&self) -> Result<Option<i64>, StoreError>;
        /// A job's source memories, oldest first.
        fn compression_sources(
            &self,
            project: &str,
            session_id: Option<&str>,
        ) -> Result<Vec<Source>, StoreError>;
        /// A project's newest memories, to compare for merging.
        fn merge_candidates(&self, project: &str, limit: usize)
        -> Result<Vec<Comparable>, StoreError>;
        /// Count one provider call.
        fn record_usage(
            &mut self,
            day: &str,
            provider: &str,
            job: i64,
            chars_sent: usize,
            chars_received: usize,
        ) -> Result<(), StoreError>;
        /// Usage per day and provider between two days.
        fn usage_between(&self, first: &str, last: &str) -> Result<Vec<Usage>, StoreError>;
        /// Characters sent on a day.
        fn sent_on(&self, day: &str) -> Result<usize, StoreError>;
        /// Characters sent for a job, over all its attempts.
        fn sent_for_job(&self, job: i64) -> Result<usize, StoreError>;
        /// Whether a provider was ever called.
        fn ever_used(&self, provider: &str) -> Result<bool, StoreError>;
    }

    /// Sentence vectors for semantic search.
    pub trait Vectors {
        /// Memories after `after` without a vector of `model`, with their text.
        fn memories_without_vector(
            &self,
            model: &str,
            after: i64,
            limit: usize,
        ) -> Result<Vec<(i64, String)>, StoreError>;
        /// How many memories lack a vector of `model`.
        fn count_without_vector(&self, model: &str) -> Result<u64, StoreError>;
        /// Vectors of `model` stored after `seq`, for an index to catch up.
        fn vectors_since(&self, model: &str, seq: i64) -> Result<Vec<StoredVector>, StoreError>;
        /// Store vectors made by `model`; how many.
        fn put_vectors(&mut self, model: &str, vectors: &[(i64, Vec<f32>)])
        -> Result<usize, StoreError>;
    }

    /// A hub's tokens, stored as hashes of their secrets, and the audit of the calls made with
    /// them.
    pub trait HubTokens {
        /// Store a token; its id.
        fn create_token(&mut self, t: &Redacted<NewToken>) -> Result<i64, StoreError>;
        /// One token by id.
        fn token(&self, id: i64) -> Result<Option<Token>, StoreError>;
        /// Every token, oldest first.
        fn tokens(&self) -> Result<Vec<Token>, StoreError>;
        /// Revoke a token from `now`; whether it was live.
        fn revoke_token(&mut self, id: i64, now: i64) -> Result<bool, StoreError>;
        /// Count a request by `token` at `now` against `per_minute` over the last minute, or
        /// refuse it with the whole seconds to wait (a refused request is not counted). Every
        /// process on the store counts the same requests.
        fn admit_request(
            &mut self,
            token: i64,
            now: i64,
            per_minute: usize,
        ) -> Result<Result<(), u64>, StoreError>;
        /// Record one call made with a token.
        fn record_call(&mut self, e: &Redacted<CallEntry>) -> Result<(), StoreError>;
        /// Calls since `since` (with `token`'s alone), oldest first, at most `limit`.
        fn calls(
            &self,
            since: i64,
            token: Option<i64>,
            limit: usize,
        ) -> Result<Vec<CallEntry>, StoreError>;
    }

    /// A hub's side of sync.
    pub trait SyncHub {
        /// Make the sync state if it is missing; the hub's own machine id.
        fn enable_sync(&mut self) -> Result<String, StoreError>;
        /// Take a machine's pushed batch, writing only items of projects the pusher may write
        /// (and refusing the whole push when its machine or revisions are not its own): a
        /// change based on what the hub holds replaces it, a concurrent one is settled by
        /// the later revision with the loser's tombstones kept and the loser recorded. Answers
        /// with the hub's version of each item it did not take as sent.
        fn sync_receive(
            &mut self,
            batch: &Redacted<Batch>,
            pusher: &Pusher<'_>,
        ) -> Result<Received, StoreError>;
        /// Up to `limit` items gained after `after` in the hub's sequence, without `machine`'s
        /// own revisions or what `allowed` refuses: the batch, the cursor to continue after,
        /// and how many sequence numbers remain past it.
        fn sync_changes_since(
            &mut self,
            after: i64,
            limit: usize,
            machine: &str,
            allowed: &dyn Fn(&str) -> bool,
        ) -> Result<(Batch, i64, i64), StoreError>;
        /// The kept losing versions, newest first.
        fn sync_conflicts(&self, limit: usize) -> Result<Vec<Conflict>, StoreError>;
    }

    /// A hub's copy of the machines' signed histories (see [`crate::history::sync`]).
    pub trait HistoryHub {
        /// Take a machine's push with `token` in one transaction (see
        /// [`crate::history::sync::receive`]): refuse it whole when its sync machine is
        /// another token's, its key is not the one pinned for its sync machine, or an entry
        /// does not hold as the next of its chain; else keep the entries not held yet,
        /// numbered in the order taken, and pin the key once one proved it. How many were new,
        /// or why none were kept.
        fn history_receive(
            &mut self,
            push: &Push,
            token: i64,
            now: i64,
        ) -> Result<Result<usize, Refusal>, StoreError>;
        /// Up to `limit` entries taken after `after`, without machine `except`'s (a
        /// fingerprint), with their machines' keys; numbers are handed out in commit order, so
        /// a cursor never passes an entry it was not given.
        fn history_since(&self, after: i64, limit: usize, except: &str)
        -> Result<Page, StoreError>;
        /// Every key pinned, oldest first, with how many entries of its machine are held.
        fn history_pins(&self) -> Result<Vec<(Pinned, i64)>, StoreError>;
        /// Forget which key `sync_machine` signs with, so that its next push pins the key it
        /// comes with (the old key stays, to check the entries it signed); whether one was
        /// pinned.
        fn forget_history_pin(&mut self, sync_machine: &str) -> Result<bool, StoreError>;
    }

    /// The review inbox: what clients trusted only to propose asked for, and the trust levels
    /// the owner set for clients.
    pub trait Inbox {
        /// Store a proposal, or find the same request already waiting: its id, and whether it
        /// was new.
        fn propose(&mut self, p: &Redacted<NewProposal>) -> Result<(i64, bool), StoreError>;
        /// Waiting proposals oldest first, or (`pending` false) decided ones newest first.
        fn proposals(
            &self,
            project: Option<&str>,
            pending: bool,
            limit: usize,
        ) -> Result<Vec<Proposal>, StoreError>;
        /// One proposal by id.
        fn proposal(&self, id: i64) -> Result<Option<Proposal>, StoreError>;
        /// Accept or reject a waiting proposal, recording who and what came of it; whether it
        /// was waiting.
        fn settle_proposal(
            &mut self,
            id: i64,
            accepted: bool,
            by: &str,
            outcome: &str,
            now: i64,
        ) -> Result<bool, StoreError>;
        /// The level the owner set for a client.
        fn client_trust(&self, client: &str) -> Result<Option<String>, StoreError>;
        /// Set a client's level, or forget it; whether anything changed.
        fn set_client_trust(
            &mut self,
            client: &str,
            level: Option<&str>,
            now: i64,
        ) -> Result<bool, StoreError>;
        /// Every level the owner set.
        fn client_trusts(&self) -> Result<Vec<ClientTrust>, StoreError>;
    }

    /// Checking, repairing and scrubbing the store as a whole.
    pub trait Upkeep {
        /// The schema version, in the engine's own numbering.
        fn schema_version(&self) -> Result<i64, StoreError>;
        /// The engine's integrity check: `ok`, or what it found.
        fn quick_check(&self) -> Result<String, StoreError>;
        /// Whether the search index agrees with the memories.
        fn search_index_consistent(&self) -> Result<bool, StoreError>;
        /// Rebuild the search index from the memories.
        fn rebuild_search_index(&self) -> Result<(), StoreError>;
        /// Each host that ever sent an event, with the time of its last.
        fn last_captures(&self) -> Result<Vec<(String, i64)>, StoreError>;
        /// Redact everything stored again with `r`, leaving nothing replaced readable.
        fn rescrub(&mut self, r: &Redactor) -> Result<Rescrubbed, StoreError>;
    }
}

/// What a finished job writes, inside the transaction [`Jobs::finish_job`] holds. Like every
/// write, each takes redacted values: a summary that went through redaction is written,
///
/// ```
/// use aletheia::redact::{Redacted, Redactor};
/// use aletheia::store::{JobWrites, Jobs, OpenOptions, Store, compression::Summary};
///
/// let dir = tempfile::tempdir()?;
/// let mut store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)?;
/// store.queue_project_job("shop", 0)?;
/// let job = store.claim_job("w", 0, 1000, 5)?.unwrap();
/// let summary = Summary { title: "t".into(), text: "ghp_unredacted".into() };
/// let summary = Redacted::new(summary, &Redactor::builtin());
/// Jobs::finish_job(&mut store, &job, 1, &mut |w: &mut dyn JobWrites| {
///     w.replace_summary(1, &summary, 1)?;
///     Ok("{}".into())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// and one that skipped it does not compile (mismatched types):
///
/// ```compile_fail,E0308
/// use aletheia::store::{JobWrites, Jobs, OpenOptions, Store, compression::Summary};
///
/// let dir = tempfile::tempdir()?;
/// let mut store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)?;
/// store.queue_project_job("shop", 0)?;
/// let job = store.claim_job("w", 0, 1000, 5)?.unwrap();
/// let summary = Summary { title: "t".into(), text: "ghp_unredacted".into() };
/// Jobs::finish_job(&mut store, &job, 1, &mut |w: &mut dyn JobWrites| {
///     w.replace_summary(1, &summary, 1)?;
///     Ok("{}".into())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait JobWrites {
    /// Which of `ids` are dismissed (or gone) now.
    fn dismissed_among(&mut self, ids: &[i64]) -> Result<HashSet<i64>, StoreError>;
    /// Mark memories read by the job; those not marked before.
    fn mark_extracted(
        &mut self,
        ids: &[i64],
        job_id: i64,
        now: i64,
    ) -> Result<HashSet<i64>, StoreError>;
    /// Store a fact the job found.
    fn insert_fact(&mut self, f: &Redacted<NewFact>, now: i64) -> Result<FactOutcome, StoreError>;
    /// Mark the memories the facts `closed` were drawn from as replaced by memory `newer`,
    /// whose fact closed them, when none of their facts is current any more: how many links
    /// were made.
    fn supersede_by_facts(
        &mut self,
        closed: &[i64],
        newer: i64,
        now: i64,
    ) -> Result<usize, StoreError>;
    /// Dismiss `id` as a near-duplicate of `into`; whether it was.
    fn merge_into(
        &mut self,
        id: i64,
        into: i64,
        similarity: f32,
        now: i64,
    ) -> Result<bool, StoreError>;
    /// Write a session summary over its row, keeping the original as an episode.
    fn replace_summary(
        &mut self,
        memory_id: i64,
        summary: &Redacted<Summary>,
        now: i64,
    ) -> Result<bool, StoreError>;
    /// The current facts a summary lists, best first, one line each.
    fn summary_facts(&mut self, project: &str, limit: usize) -> Result<Vec<String>, StoreError>;
    /// Write the project's summary memory; its id.
    fn upsert_project_summary(
        &mut self,
        m: &Redacted<NewMemory>,
        job_id: i64,
        now: i64,
    ) -> Result<Option<i64>, StoreError>;
}

/// Everything the layers above the store use: one engine behind `&mut dyn Storage`.
pub trait Storage:
    Memories + SearchIndex + Facts + Rules + Lists + Jobs + Vectors + Inbox + Upkeep
{
    /// The local SQLite store the hook writes, when this engine is it. The two operations that
    /// act as a hook would (`capture_event` routes a raw host event through its adapter, and
    /// `drain` brings the local spool in) take the hook's own path, which stays on SQLite for
    /// speed; any other engine answers `None`, and they answer that they need the local store.
    fn hook_store(&mut self) -> Option<&mut Store> {
        None
    }

    /// Where the engine's keyword index in memory stands (`ready`, `building`, `off`): only a
    /// SQLite store opened to serve searches keeps one.
    fn keyword_index(&self) -> &'static str {
        "off"
    }

    /// Whether the engine's connection is gone (a database server that restarted), so that a
    /// pool drops it rather than handing it out again. A local file never is.
    fn is_closed(&self) -> bool {
        false
    }
}

impl Storage for Store {
    fn hook_store(&mut self) -> Option<&mut Store> {
        Some(self)
    }

    fn keyword_index(&self) -> &'static str {
        self.keyword_index_state()
    }
}

/// Everything a hub uses: a machine's parts, and the tokens, audit and sync only a hub keeps.
pub trait HubStorage: Storage + HubTokens + SyncHub + HistoryHub {}

impl HubStorage for Store {}
