//! `backfill`: the prompts and summaries of past sessions, read from a host's transcripts, stored
//! as its hooks would have stored them.
//!
//! Each entry is turned back into the payload its hook would have received and goes through the
//! host's adapter, the redactor and the title cut exactly as a live hook's does. So the title
//! and text, and with them the content hash the store dedupes on, are the ones a hook would
//! have written: a session the hooks already captured is not stored twice, and running the same
//! back-fill again stores nothing. The reading of transcript files is the front end's (see
//! [`crate::capture::transcript`]); this operation takes their entries in batches, each batch
//! one transaction, like `import`.

use super::recall::When;
use super::{Access, Context, OpError, Operation};
use crate::capture::adapter::{self, HOOK_TITLE_CHARS};
use crate::capture::transcript::{self, Entry, EntryKind};
use crate::redact::Redacted;
use crate::store::QueuedSession;
use crate::time::Bound;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most entries one call takes (the command line sends a transcript in batches of this).
pub const BACKFILL_BATCH: usize = super::policy::IMPORT_BATCH;

/// `backfill`: a batch of transcript entries, through the host's adapter, redaction and dedupe.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Backfill {
    /// The host the transcripts come from: claude-code.
    pub host: String,
    /// At most 5000 prompts and session summaries read from transcripts.
    pub entries: Vec<Entry>,
    /// Leave out entries from before this time.
    pub since: Option<When>,
    /// Projects never to record (the command line passes ALETHEIA_EXCLUDED_PROJECTS, which
    /// keeps them from the hooks too).
    #[serde(default)]
    pub exclude_projects: Vec<String>,
}

/// What one call stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Backfilled {
    /// New prompts stored.
    pub prompts: usize,
    /// New session summaries stored.
    pub summaries: usize,
    /// Entries already stored (by a hook, or an earlier back-fill).
    pub duplicates: usize,
    /// Entries from before `since`.
    pub older: usize,
    /// Entries of an excluded project.
    pub excluded: usize,
    /// The sessions something new was stored for, each queued for compression.
    pub sessions: Vec<String>,
}

impl Operation for Backfill {
    const NAME: &'static str = "backfill";
    const DESCRIPTION: &'static str = "Store the prompts and summaries of past sessions read from a host's transcripts, as its hooks would have; what is already stored is not stored again and secrets are redacted.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = Backfilled;

    fn run(self, ctx: &mut Context<'_>) -> Result<Backfilled, OpError> {
        if self.host != transcript::HOST {
            return Err(OpError::InvalidArgument(format!(
                "host \"{}\" has no transcripts aletheia can read: use {}.",
                self.host,
                transcript::HOST
            )));
        }
        if self.entries.len() > BACKFILL_BATCH {
            return Err(OpError::InvalidArgument(format!(
                "entries takes at most {BACKFILL_BATCH} entries per call."
            )));
        }
        let since = When::resolve(self.since.as_ref(), "since", &ctx.clock, Bound::Start)?;
        let adapter = adapter::load(transcript::HOST)
            .expect("the claude-code adapter is built in")
            .expect("built-in adapters parse (checked by their tests)");
        let mut out = Backfilled::default();
        let mut batch = Vec::with_capacity(self.entries.len());
        // Everything is checked before anything is written, so a refused entry leaves the store
        // as it was.
        for (i, e) in self.entries.iter().enumerate() {
            for (name, value) in [("session_id", &e.session_id), ("cwd", &e.cwd)] {
                // The adapter would fall back to this process's directory and to no session,
                // which for an old transcript would be a wrong project.
                if value.trim().is_empty() {
                    return Err(OpError::InvalidArgument(format!(
                        "entries[{i}].{name} is required."
                    )));
                }
            }
            if since.is_some_and(|s| e.at < s) {
                out.older += 1;
                continue;
            }
            let (event, payload) = e.hook_payload();
            let spec = &adapter.events[event];
            let capture = adapter.capture(spec, &payload, e.at);
            if self.exclude_projects.contains(&capture.project) {
                out.excluded += 1;
                continue;
            }
            ctx.caller
                .check_project(&crate::project::stored_key(&capture.project, ctx.redactor))?;
            if let Some(m) = capture.memory {
                let m = Redacted::new(m, ctx.redactor).with_title_cut(HOOK_TITLE_CHARS);
                batch.push((m, e.kind));
            }
        }
        let now = ctx.clock.now();
        let host = adapter.host.clone();
        // A session's hooks would have queued it at Stop; the store queues only sessions with
        // something new, so a second run does not put compressed sessions back to pending.
        let mut records = Vec::with_capacity(batch.len());
        let mut kinds = Vec::with_capacity(batch.len());
        for (m, kind) in batch {
            // The redacted session id, so the queue names the session as its memories do.
            let session = m.get().session_id.clone().map(|session_id| {
                let session = QueuedSession {
                    project: m.get().project.clone(),
                    session_id,
                    host: host.clone(),
                };
                Redacted::new(session, ctx.redactor)
            });
            records.push((m, session));
            kinds.push(kind);
        }
        let new = ctx.store.backfill(&records, now)?;
        for (((m, _), kind), new) in records.iter().zip(kinds).zip(new) {
            if !new {
                out.duplicates += 1;
                continue;
            }
            match kind {
                EntryKind::Prompt => out.prompts += 1,
                EntryKind::Summary => out.summaries += 1,
            }
            if let Some(session) = &m.get().session_id
                && !out.sessions.contains(session)
            {
                out.sessions.push(session.clone());
            }
        }
        Ok(out)
    }
}
