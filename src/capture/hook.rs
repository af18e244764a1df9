//! `aletheia hook <tool> <event>`: the hot path.
//!
//! Runs in the host's critical path, so it does the least it can and never fails the host: it
//! reads one payload, builds and redacts the record, then stores it (draining any spool first).
//! Whatever goes wrong, the record goes to the spool and the process exits 0. A watchdog thread
//! enforces a hard deadline on the whole run: past it, the record is spooled and the process
//! exits 0 even if SQLite is stuck. If the store commits at the same moment, the spooled copy is
//! a duplicate the next drain ignores. Once the run itself has begun to spool, the watchdog
//! leaves that to it, so an event is never spooled (or refused and counted) twice.

use super::adapter::{self, Adapter, Capture};
use crate::config::Paths;
use crate::redact::{Redacted, Redactor};
use crate::spool::{self, SpoolLine, SpoolQueue};
use crate::store::{OpenOptions, Store, StoreError};
use std::io::Read;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The default hard deadline for one hook run (`ALETHEIA_HOOK_DEADLINE_MS` overrides).
pub const DEFAULT_DEADLINE: Duration = Duration::from_millis(1000);

/// How long the watchdog, at the deadline, waits for a run that is spooling its event: longer
/// than that run's lock waits (400 ms, then 200 ms at the fallback spool, then the refusal count).
const SPOOL_WAIT: Duration = Duration::from_millis(1500);

/// The most payload read from stdin; the rest is left unread.
const MAX_PAYLOAD: u64 = 64 * 1024 * 1024;

/// Where a run is, for the watchdog: it spools only a run that has not begun to spool itself.
const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const TIMED_OUT: u8 = 2;
/// The run is appending to the spool (each lock it waits for is bounded).
const SPOOLING: u8 = 3;
/// The run has spooled (or was refused) and is reading the session-start notice.
const SPOOLED: u8 = 4;

/// The front door of both binaries (`aletheia` and `aletheia-hook`) for `hook <tool> <event>`,
/// looked at before anything else is built: `None` when `args` (the process's, program first)
/// are not a hook run. A hook run always exits 0: a malformed command gets a usage line.
pub fn entry(args: &[String]) -> Option<u8> {
    if args.get(1).map(String::as_str) != Some("hook") {
        return None;
    }
    crate::stall::at("main");
    match (args.get(2), args.get(3)) {
        (Some(tool), Some(event)) => Some(run_caught(tool, event)),
        _ => {
            say("aletheia: usage: aletheia hook <tool> <event>");
            Some(0)
        }
    }
}

/// [`run`], with a panic caught: the hook never fails the host, so it still exits 0.
pub fn run_caught(host: &str, event: &str) -> u8 {
    let _ = std::panic::catch_unwind(|| run(host, event));
    crate::stall::at("end");
    crate::stall::report();
    0
}

/// Run the hook. Always returns exit code 0: the host must never see us fail.
pub fn run(host: &str, event: &str) -> i32 {
    let started = Instant::now();
    let adapter = match adapter::load(host) {
        Some(Ok(a)) => a,
        Some(Err(e)) => {
            say(&format!("aletheia: {e}"));
            return 0;
        }
        None => {
            say(&format!(
                "aletheia: unknown tool \"{host}\" for hook: use one of {}.",
                adapter::hosts().join(", ")
            ));
            return 0;
        }
    };
    // Read the payload even for events we ignore, so the host never writes into a closed pipe.
    let mut raw = Vec::new();
    let _ = std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD)
        .read_to_end(&mut raw);
    crate::stall::at("read");
    let Some(spec) = adapter.events.get(event) else {
        return 0;
    };
    let payload = match serde_json::from_str::<serde_json::Value>(&String::from_utf8_lossy(&raw)) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        _ => return 0,
    };
    let mut capture = adapter.capture(spec, &payload, crate::time::now_ms());
    crate::stall::at("parse");
    if crate::config::excluded_projects().contains(&capture.project) {
        return 0;
    }
    let paths = Paths::from_env();
    let redactor = Redactor::global();
    // Spooled, queued and looked up as it is stored: redacted and cut to fit.
    capture.project = crate::project::stored_key(&capture.project, redactor);
    let memory = capture
        .memory
        .take()
        .map(|m| Redacted::new(m, redactor).with_title_cut(adapter::HOOK_TITLE_CHARS));
    let mut lines = Vec::new();
    if let Some(m) = &memory {
        lines.push(SpoolLine::memory(m));
    }
    if capture.queue
        && let Some(session) = &capture.session_id
    {
        // Redacted like the memory's line: a spool line holds nothing a store row would not.
        let queued = Redacted::new(
            crate::store::QueuedSession {
                project: capture.project.clone(),
                session_id: session.clone(),
                host: adapter.host.clone(),
            },
            redactor,
        );
        let queued = queued.get();
        lines.push(SpoolLine::Queue {
            queue: SpoolQueue {
                project: queued.project.clone(),
                host: queued.host.clone(),
                session_id: queued.session_id.clone(),
            },
            at: crate::time::now_ms(),
        });
    }

    crate::stall::at("redact");

    let state = Arc::new(AtomicU8::new(RUNNING));
    // What the run's own spooling came to, for the watchdog to say if the deadline falls after it.
    let spool_outcome = Arc::new(OnceLock::new());
    let deadline = started + deadline();
    start_watchdog(
        deadline,
        Watched {
            state: state.clone(),
            spool_outcome: spool_outcome.clone(),
            paths: paths.clone(),
            lines: lines.clone(),
            empty_stdout: adapter.empty_stdout.clone(),
        },
    );

    crate::stall::at("start");
    let outcome = store_and_recall(
        &paths,
        &adapter,
        &capture,
        memory.as_ref(),
        redactor,
        deadline,
    );
    crate::stall::at("closed");
    let spooled = match &outcome {
        Err(e) if !lines.is_empty() => {
            crate::stall::at("spool");
            advance(&state, RUNNING, SPOOLING);
            let spooled = spool::append(&paths, &lines);
            let _ = spool_outcome.set(said(&spooled));
            state.store(SPOOLED, Ordering::SeqCst);
            Some((e.to_string(), spooled))
        }
        _ => None,
    };
    // A session start that cannot reach the store says so in its block: otherwise the person
    // learns of it only when memories turn out to be missing. Read before the run counts as
    // done, so the deadline covers it too.
    crate::stall::at("notice");
    let notice = match &outcome {
        Err(_) if capture.context => spool::waiting(&paths).map(|w| w.notice()),
        _ => None,
    };
    crate::stall::at("finish");
    // Only now is the run done: until here, the watchdog may still exit at the deadline (and
    // spool, if the run had not begun to).
    advance(
        &state,
        if spooled.is_some() { SPOOLED } else { RUNNING },
        FINISHED,
    );
    match (outcome, spooled) {
        (Ok(Some(Answer::Block(block))), _) => {
            if let Some(out) = adapter.context_output(event, &block) {
                answer(&out);
            }
        }
        (Ok(Some(Answer::Recall(told))), _) => {
            if let Some(out) = adapter.recall_output(event, &told) {
                answer(&out);
            }
        }
        (Ok(None), _) => {}
        (Err(e), spooled) => {
            let out = notice
                .as_deref()
                .and_then(|n| adapter.context_output(event, n))
                .or_else(|| adapter.empty_stdout.clone());
            if let Some(out) = out {
                answer(&out);
            }
            let notice = notice.map(|n| format!(" {n}")).unwrap_or_default();
            match spooled {
                Some((e, Ok(p))) => say(&format!(
                    "aletheia: {e}; spooled to {}.{notice}",
                    p.display()
                )),
                Some((e, Err(se))) => say(&format!("aletheia: {e}; {}.{notice}", refusal(&se))),
                None => say(&format!("aletheia: {e}.{notice}")),
            }
        }
    }
    0
}

fn deadline() -> Duration {
    std::env::var("ALETHEIA_HOOK_DEADLINE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_DEADLINE)
}

/// Move the run from `from` to `to`, unless the watchdog has taken it over: then this thread
/// waits for the watchdog to end the process.
fn advance(state: &AtomicU8, from: u8, to: u8) {
    if state
        .compare_exchange(from, to, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        loop {
            std::thread::park();
        }
    }
}

/// What became of the event at the spool, as the watchdog's line says it.
fn said(spooled: &Result<std::path::PathBuf, spool::SpoolError>) -> String {
    match spooled {
        Ok(_) => "the event was spooled".to_owned(),
        Err(e) => refusal(e),
    }
}

/// What the hook says when it could not spool an event: a spool at its cap refused it on
/// purpose (and counted it), anything else is a failed write.
fn refusal(e: &spool::SpoolError) -> String {
    if e.at_cap() {
        e.source.to_string()
    } else {
        format!("and {e}: this event is lost")
    }
}

/// What the watchdog needs to finish a run at its deadline.
struct Watched {
    state: Arc<AtomicU8>,
    spool_outcome: Arc<OnceLock<String>>,
    paths: Paths,
    lines: Vec<SpoolLine>,
    empty_stdout: Option<String>,
}

impl Watched {
    /// Spool the event from the watchdog, and say what became of it.
    fn spool(&self) -> String {
        if self.lines.is_empty() {
            "nothing to keep".to_owned()
        } else {
            said(&spool::append(&self.paths, &self.lines))
        }
    }
}

fn start_watchdog(deadline: Instant, w: Watched) {
    std::thread::spawn(move || {
        loop {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            std::thread::park_timeout(deadline - now);
        }
        let waiting_since = Instant::now();
        let spooled = loop {
            match w
                .state
                .compare_exchange(RUNNING, TIMED_OUT, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => break w.spool(),
                // The run is appending the event itself: wait for it rather than append a
                // second copy, unless its file system has stalled (a second copy of a memory is
                // stored once; exiting is what matters now).
                Err(SPOOLING) if waiting_since.elapsed() < SPOOL_WAIT => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                Err(SPOOLING) => {
                    let spooled = w.spool();
                    // The run's own write, cut short by this exit, would leave a hidden file.
                    spool::abandon_unfinished();
                    break spooled;
                }
                Err(SPOOLED)
                    if w.state
                        .compare_exchange(SPOOLED, TIMED_OUT, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok() =>
                {
                    break w.spool_outcome.get().cloned().unwrap_or_default();
                }
                Err(SPOOLED) => {}
                Err(_) => return,
            }
        };
        if let Some(empty) = &w.empty_stdout {
            answer(empty);
        }
        say(&format!("aletheia: the hook hit its deadline; {spooled}."));
        std::process::exit(0);
    });
}

/// What the hook prints for the host, when it has something to say.
enum Answer {
    /// The session-start block.
    Block(String),
    /// What is remembered about the files of a tool call.
    Recall(String),
}

/// Open the store, drain the spool, write the capture and build the context block if asked.
fn store_and_recall(
    paths: &Paths,
    adapter: &Adapter,
    capture: &Capture,
    memory: Option<&Redacted<crate::model::NewMemory>>,
    redactor: &Redactor,
    deadline: Instant,
) -> Result<Option<Answer>, StoreError> {
    if memory.is_none() && !capture.queue && !capture.context && capture.recall.is_empty() {
        return Ok(None);
    }
    crate::stall::at("open");
    let mut store = Store::open(paths, OpenOptions::HOOK)?;
    crate::stall::at("opened");
    let writes = memory.is_some() || capture.queue;
    if !spool::pending_files(paths).is_empty() {
        // Half the remaining time at most, so the event itself still gets stored.
        let budget = Instant::now() + deadline.saturating_duration_since(Instant::now()) / 2;
        if let Err(e) = spool::drain_until(paths, &mut store, redactor, Some(budget)) {
            match e {
                // The store is busy or broken: this event would wait out the same timeout
                // again, so it goes straight to the spool. A context block can still be read.
                spool::DrainError::Store(e) if writes => return Err(e),
                e => say(&format!("aletheia: could not drain the spool yet: {e}")),
            }
        }
    }
    if writes {
        crate::stall::at("write");
        super::record(
            &mut store,
            &adapter.host,
            capture,
            memory,
            redactor,
            crate::time::now_ms(),
        )?;
    }
    crate::stall::at("written");
    if let Some(dir) = &capture.dir {
        note_remote(&mut store, &capture.project, dir, redactor);
    }
    if capture.context {
        crate::stall::at("context");
        // The session's own folder, from the host: the memories the block prints are checked
        // there for files that changed since they were written.
        let opts = crate::recall::context::ContextOptions {
            root: capture.dir.clone().filter(|d| d.is_dir()),
            ..crate::recall::context::ContextOptions::for_project(&capture.project)
        };
        let block = crate::recall::context::build(
            &store,
            &opts,
            // Only a session start reads the time zone; other events never pay for it.
            &crate::time::Clock::system(),
        )?;
        // What the block lists counts as told: a file's memories do not repeat it later. A
        // store too busy to record it still gets its block to the session.
        if let Some(session) = &capture.session_id {
            let listed = super::recall::listed_in(&block);
            let _ = store.tell(session, &listed, crate::time::now_ms(), true);
        }
        return Ok(Some(Answer::Block(block)));
    }
    if !capture.recall.is_empty() {
        crate::stall::at("recall");
        let told = super::recall::about_files(
            &mut store,
            &capture.project,
            capture.session_id.as_deref(),
            &capture.recall,
            crate::time::now_ms(),
        )?;
        return Ok(told.map(Answer::Recall));
    }
    Ok(None)
}

/// In a store that syncs, tie the session's project to its git remote, once per project.
fn note_remote(store: &mut Store, project: &str, dir: &std::path::Path, redactor: &Redactor) {
    if !store.sync_enabled().unwrap_or(false) {
        return;
    }
    let Some(identity) = crate::sync::remote::identity_of(dir) else {
        return;
    };
    let project = crate::project::stored_key(project, redactor);
    let identity = crate::project::stored_key(&identity, redactor);
    if let Err(e) = store.note_project_identity(&project, &identity) {
        say(&format!(
            "aletheia: could not record this project's git remote: {e}"
        ));
    }
}

/// Write one diagnostic line on stderr. A host that closed stderr is not told, and the hook
/// still exits 0 (`eprintln!` would panic, and in the watchdog's thread stop it short of its exit).
pub fn say(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Write the host's answer on stdout. A host that closed its end no longer wants it, and the
/// hook must still exit 0, so a failed write is dropped rather than raised (`println!` would
/// panic and exit 101).
fn answer(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
}
