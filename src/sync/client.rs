//! `aletheia sync`: push what this store has that the hub lacks, then pull what the hub has
//! that this store lacks, in bounded batches.
//!
//! Each batch commits here with its cursor before the next is asked for, so a sync that is
//! killed or cut off resumes after the last batch that landed, and a batch sent twice (the
//! hub took it, the answer was lost) changes nothing the second time. A hub that answers 429
//! is waited for as long as its `Retry-After` says.

use crate::redact::{Redacted, Redactor};
use crate::store::Store;
use crate::store::sync::{Applied, Outgoing};
use crate::sync::item::Batch;
use std::time::Duration;

/// Items in one batch when `ALETHEIA_SYNC_BATCH` sets no other count.
pub const DEFAULT_BATCH: usize = 1000;

/// History entries in one push or pull. Not `ALETHEIA_SYNC_BATCH`: an entry is a few hundred
/// bytes with no text in it, and every machine's chain records each item it pulled too, so
/// there are several entries for each item that travels.
const HISTORY_BATCH: usize = 1000;

/// The most pages of other machines' histories one sync pulls: ten million entries.
const MAX_HISTORY_PAGES: usize = 10_000;

/// Text in one pushed batch, below the hub's 4 MiB request limit with room for the JSON.
const MAX_BATCH_BYTES: usize = 2 * 1024 * 1024;

/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// The longest wait a 429 may ask for before the sync gives up.
const MAX_WAIT: Duration = Duration::from_secs(120);

/// How many 429s in a row one request waits out before the sync gives up (its work so far is
/// kept).
const MAX_WAITS: u32 = 20;

/// A hub and the token to reach it with.
#[derive(Debug, Clone)]
pub struct Hub {
    /// The hub's base URL, without `/v1/...`.
    pub url: String,
    pub token: String,
}

/// What one sync did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    pub pushed_memories: usize,
    pub pushed_changes: usize,
    /// Items the hub settled against a version it held (kept as conflicts there).
    pub conflicts: usize,
    /// Items the token may not write (another project's).
    pub refused: usize,
    /// What applying the hub's answers and pulled batches came to.
    pub pulled: Applied,
    /// Entries of this machine's signed history the hub took.
    pub history_pushed: usize,
    /// Other machines' entries checked and kept here.
    pub history_pulled: usize,
    /// Pulled entries not kept, and keys that changed: one line each.
    pub history_warnings: Vec<String>,
}

/// Why a sync stopped.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("{0}")]
    Store(#[from] crate::store::StoreError),
    #[error(
        "cannot reach the hub at {url}: {cause} (is `aletheia hub` running there? the work so far is kept; run `aletheia sync` again)"
    )]
    Network { url: String, cause: String },
    #[error(
        "the hub refused the token ({status}): {body} (make one with `aletheia mcp-link create --scope sync`, then `aletheia sync setup`)"
    )]
    Token { status: u16, body: String },
    #[error("the hub answered {status}: {body}")]
    Hub { status: u16, body: String },
}

/// The number of items per batch: `ALETHEIA_SYNC_BATCH`, else [`DEFAULT_BATCH`].
pub fn batch_size() -> Result<usize, String> {
    match std::env::var("ALETHEIA_SYNC_BATCH") {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=10_000).contains(n))
            .ok_or_else(|| {
                format!("ALETHEIA_SYNC_BATCH must be a count of items from 1 to 10000, not \"{v}\"")
            }),
        _ => Ok(DEFAULT_BATCH),
    }
}

struct Client {
    agent: ureq::Agent,
    hub: Hub,
}

impl Client {
    fn new(hub: Hub) -> Client {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(REQUEST_TIMEOUT))
            .http_status_as_error(false)
            .user_agent(concat!("aletheia/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client { agent, hub }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.hub.url.trim_end_matches('/'))
    }

    /// Send one request, waiting out 429s; the answer's JSON.
    fn call<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: Option<&str>,
    ) -> Result<T, SyncError> {
        let url = self.url(path);
        let auth = format!("Bearer {}", self.hub.token);
        let mut waits = 0;
        loop {
            let sent = match body {
                Some(b) => self
                    .agent
                    .post(&url)
                    .header("Authorization", &auth)
                    .content_type("application/json")
                    .send(b),
                None => self.agent.get(&url).header("Authorization", &auth).call(),
            };
            let mut response = sent.map_err(|e| SyncError::Network {
                url: self.hub.url.clone(),
                cause: match e {
                    ureq::Error::Io(e) => e.to_string(),
                    e => e.to_string(),
                },
            })?;
            let status = response.status().as_u16();
            let wait = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let text = response
                .body_mut()
                .with_config()
                .limit(64 * 1024 * 1024)
                .read_to_string()
                .map_err(|e| SyncError::Network {
                    url: self.hub.url.clone(),
                    cause: e.to_string(),
                })?;
            match status {
                200 => {
                    return serde_json::from_str(&text).map_err(|e| SyncError::Hub {
                        status,
                        body: format!(
                            "an answer that is not the sync API's ({e}): is {} a hub?",
                            self.hub.url
                        ),
                    });
                }
                429 if waits < MAX_WAITS
                    && wait.is_some_and(|w| Duration::from_secs(w) <= MAX_WAIT) =>
                {
                    waits += 1;
                    std::thread::sleep(Duration::from_secs(wait.unwrap_or(1).max(1)));
                }
                401 | 403 => {
                    return Err(SyncError::Token {
                        status,
                        body: message(&text),
                    });
                }
                _ => {
                    return Err(SyncError::Hub {
                        status,
                        body: message(&text),
                    });
                }
            }
        }
    }
}

/// The error line of a hub's JSON error, else the text itself (cut short).
fn message(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(|m| m.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| crate::model::cut_chars(text.trim(), 300))
}

#[derive(serde::Deserialize)]
struct PushAnswer {
    conflicts: usize,
    refused: usize,
    #[serde(default)]
    current: Batch,
}

#[derive(serde::Deserialize)]
struct PullAnswer {
    #[serde(flatten)]
    batch: Batch,
    next: i64,
    left: i64,
}

/// A progress bar on a terminal, nothing elsewhere.
fn bar(show: bool, len: u64, what: &'static str) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg:>8} [{bar:30}] {pos}/{len} ({per_sec}, {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(what);
    bar
}

/// Send one batch and take the hub's answer.
fn push(
    store: &mut Store,
    client: &Client,
    redactor: &Redactor,
    out: Outgoing,
    report: &mut Report,
    bar: &indicatif::ProgressBar,
) -> Result<(), SyncError> {
    let body = serde_json::to_string(&out.batch).unwrap_or_default();
    let answer: PushAnswer = client.call("/v1/sync/push", Some(&body))?;
    report.conflicts += answer.conflicts;
    report.refused += answer.refused;
    let applied = store.sync_pushed(&out, &Redacted::new(answer.current, redactor))?;
    report.pulled.stored += applied.stored;
    bar.inc(out.batch.changes.len() as u64);
    crate::stall::at("sync-batch");
    Ok(())
}

/// Push, then pull, until both sides hold the same items, and record how it ended (the line
/// `aletheia sync status` shows as the last sync).
pub fn sync(
    store: &mut Store,
    redactor: &Redactor,
    hub: Hub,
    show_progress: bool,
) -> Result<Report, SyncError> {
    let outcome = push_then_pull(store, redactor, hub, show_progress);
    let when = jiff::Timestamp::now();
    let line = match &outcome {
        Ok(r) => format!(
            "{when} ok: pushed {} memories and {} changes, pulled {}{}",
            r.pushed_memories,
            r.pushed_changes,
            r.pulled.stored,
            if r.history_warnings.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} warnings about other machines' histories",
                    r.history_warnings.len()
                )
            }
        ),
        Err(e) => format!("{when} failed: {e}"),
    };
    let recorded = store.set_last_sync(&line);
    let report = outcome?;
    recorded?;
    Ok(report)
}

fn push_then_pull(
    store: &mut Store,
    redactor: &Redactor,
    hub: Hub,
    show_progress: bool,
) -> Result<Report, SyncError> {
    let batch = batch_size().map_err(|m| SyncError::Hub { status: 0, body: m })?;
    let client = Client::new(hub);
    let machine = store.enable_sync()?;
    store.sync_stamp()?;
    let status = store.sync_status()?;
    let mut report = Report::default();
    let push_bar = bar(
        show_progress,
        u64::try_from(status.memories_to_push + status.changes_to_push).unwrap_or(0),
        "push",
    );
    loop {
        let out = store.sync_memories_out(batch, MAX_BATCH_BYTES)?;
        if out.batch.changes.is_empty() {
            break;
        }
        report.pushed_memories += out.batch.changes.len();
        push(store, &client, redactor, out, &mut report, &push_bar)?;
    }
    let mut after = None;
    loop {
        let out = store.sync_changes_out(after.as_ref(), batch, MAX_BATCH_BYTES)?;
        let Some(last) = out.last_key.clone() else {
            break;
        };
        after = Some(last);
        if out.batch.changes.is_empty() {
            continue;
        }
        report.pushed_changes += out.batch.changes.len();
        push(store, &client, redactor, out, &mut report, &push_bar)?;
    }
    push_bar.finish_and_clear();
    let pull_bar = bar(show_progress, 0, "pull");
    loop {
        let cursor = store.sync_pulled_up_to()?;
        let answer: PullAnswer = client.call(
            &format!("/v1/sync/pull?after={cursor}&limit={batch}&machine={machine}"),
            None,
        )?;
        pull_bar.set_length(
            pull_bar.position()
                + answer.batch.changes.len() as u64
                + u64::try_from(answer.left).unwrap_or(0),
        );
        let n = answer.batch.changes.len() as u64;
        let applied = store.sync_pulled(&Redacted::new(answer.batch, redactor), answer.next)?;
        pull_bar.inc(n);
        report.pulled.add(applied);
        crate::stall::at("sync-batch");
        if answer.left == 0 || answer.next <= cursor {
            break;
        }
    }
    pull_bar.finish_and_clear();
    histories(store, &client, &machine, &mut report)?;
    Ok(report)
}

/// Push this machine's signed history, then pull the other machines', each checked before it
/// is kept (see [`crate::history::sync`]). A hub from before histories travelled answers 404,
/// and the sync goes on without them. What the hub refuses, or a pulled entry that does not
/// hold, is a warning: the items synced, and the next sync tries the history again.
fn histories(
    store: &mut Store,
    client: &Client,
    machine: &str,
    report: &mut Report,
) -> Result<(), SyncError> {
    #[derive(serde::Deserialize)]
    struct Stored {
        stored: usize,
    }
    let batch = HISTORY_BATCH;
    loop {
        let Some(push) = store.history_out(machine, batch)? else {
            break;
        };
        let Some(last) = push.entries.last().map(|e| e.seq) else {
            break;
        };
        let body = serde_json::to_string(&push).unwrap_or_default();
        let answer: Stored = match client.call("/v1/sync/history", Some(&body)) {
            Err(SyncError::Hub { status: 404, .. }) => return Ok(()),
            Err(SyncError::Hub {
                status: 403 | 409 | 422,
                body,
            }) => {
                report.history_warnings.push(format!(
                    "the hub refused this machine's signed history: {body}"
                ));
                break;
            }
            other => other?,
        };
        report.history_pushed += answer.stored;
        store.history_pushed(&push, last)?;
    }
    let own = store.history_machine().unwrap_or_default();
    // A hub that keeps answering with more cannot hold a sync forever.
    for _ in 0..MAX_HISTORY_PAGES {
        let cursor = store.history_pulled_up_to()?;
        let page: crate::history::sync::Page = match client.call(
            &format!("/v1/sync/history?after={cursor}&limit={batch}&except={own}"),
            None,
        ) {
            Err(SyncError::Hub { status: 404, .. }) => return Ok(()),
            other => other?,
        };
        let pulled = store.history_pulled(&page, crate::time::now_ms())?;
        report.history_pulled += pulled.stored;
        report.history_warnings.extend(pulled.warnings);
        if pulled.stalled || page.left == 0 || page.next <= cursor {
            break;
        }
    }
    Ok(())
}

/// The hub's kept losing versions.
pub fn conflicts(hub: Hub, limit: usize) -> Result<Vec<crate::store::sync::Conflict>, SyncError> {
    #[derive(serde::Deserialize)]
    struct Answer {
        conflicts: Vec<crate::store::sync::Conflict>,
    }
    let answer: Answer =
        Client::new(hub).call(&format!("/v1/sync/conflicts?limit={limit}"), None)?;
    Ok(answer.conflicts)
}
