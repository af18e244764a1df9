//! Transcript back-fill: `aletheia backfill claude-code [--since DATE]` and the `backfill`
//! operation under it, on the recorded transcripts in `fixtures/transcripts/claude-code/`
//! (laid out as `~/.claude/projects/` is; its README lists what each file holds).
//!
//! The promises held here: only a person's prompts and each session's closing text are stored,
//! as the hooks would have stored them, so a session the hooks captured is not stored twice and
//! a second run stores (and queues) nothing; `--since` leaves older sessions out; secrets are
//! redacted; a cut-off line is counted, never fatal; a missing `~/.claude/projects` is one line.

use crate::support;

use aletheia::capture::transcript::{self, Entry, EntryKind};
use aletheia::config::Paths;
use aletheia::ops::backfill::{Backfill, Backfilled};
use aletheia::ops::recall::When;
use aletheia::ops::{Caller, Context, OpError};
use aletheia::redact::Redactor;
use aletheia::store::{OpenOptions, Store};
use aletheia::time::Clock;
use std::path::{Path, PathBuf};
use support::{Env, fixtures};

/// 2026-07-25T16:26:40Z: after every fixture session.
const T0: i64 = 1_785_000_000_000;
/// 2026-01-01T00:00:00Z: between the old shop session and the others.
const NEW_YEAR: i64 = 1_767_225_600_000;

const SHOP_SESSION: &str = "3f2a9c41-7b5e-4d2a-9c1f-8e6b0d4a2c17";
const OLD_SESSION: &str = "5b7e0d2a-1c4f-4e8b-a6d3-2f9c8e7b1a04";
const BILLING_SESSION: &str = "9d0c1b7e-4a2f-4c6d-8e1a-7b3f5c9d2e60";

/// The recorded `~/.claude/projects`.
fn projects() -> PathBuf {
    fixtures().join("transcripts/claude-code/projects")
}

/// The session transcripts, as the command line finds them.
fn transcript_files() -> Vec<PathBuf> {
    vec![
        projects().join(format!("-home-dev-billing/{BILLING_SESSION}.jsonl")),
        projects().join(format!("-home-dev-shop/{SHOP_SESSION}.jsonl")),
        projects().join(format!("-home-dev-shop/{OLD_SESSION}.jsonl")),
    ]
}

/// Every entry of the recorded transcripts, and how many lines could not be read.
fn entries() -> (Vec<Entry>, usize) {
    let mut all = Vec::new();
    let mut skipped = 0;
    for path in transcript_files() {
        let session = path.file_stem().unwrap().to_string_lossy().into_owned();
        let file = std::fs::File::open(&path).unwrap();
        let parsed = transcript::parse(std::io::BufReader::new(file), &session).unwrap();
        all.extend(parsed.entries);
        skipped += parsed.skipped;
    }
    (all, skipped)
}

/// A store in a temporary data directory and what an operation's context needs.
struct Home {
    _dir: tempfile::TempDir,
    paths: Paths,
    store: Store,
    redactor: Redactor,
}

impl Home {
    /// A connection of its own to the store's file, for set-up and for reading rows back.
    fn conn(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(&self.paths.db).unwrap()
    }

    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::within(dir.path());
        let store = Store::open_path(&paths.db, OpenOptions::INTERACTIVE).unwrap();
        Home {
            _dir: dir,
            paths,
            store,
            redactor: Redactor::builtin(),
        }
    }

    fn backfill_as(&mut self, caller: Caller, req: Backfill) -> Result<Backfilled, OpError> {
        let mut ctx = Context {
            store: &mut self.store,
            redactor: &self.redactor,
            clock: Clock::utc(T0),
            caller,
            paths: Some(&self.paths),
            semantic: None,
            extraction: None,
            root: None,
        };
        aletheia::ops::call(&mut ctx, req)
    }

    fn backfill(&mut self, entries: Vec<Entry>, since: Option<When>) -> Backfilled {
        let req = Backfill {
            host: "claude-code".into(),
            entries,
            since,
            exclude_projects: vec![],
        };
        self.backfill_as(Caller::local("cli", "shop"), req).unwrap()
    }

    /// (project, kind, title, text, tool, session, created_at) of every memory, in id order.
    fn memories(&self) -> Vec<(String, String, String, String, String, String, i64)> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT project, kind, title, text, tool, session_id, created_at
                 FROM memories ORDER BY id",
            )
            .unwrap();
        stmt.query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    }

    /// (project, session, state) of every queued session.
    fn queue(&self) -> Vec<(String, String, String)> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT project, session_id, state FROM session_queue ORDER BY project, id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }
}

/// The (kind, title) of every memory.
fn titles(h: &Home) -> Vec<(String, String)> {
    h.memories()
        .into_iter()
        .map(|m| (m.1, m.2))
        .collect::<Vec<_>>()
}

fn pair(kind: &str, title: &str) -> (String, String) {
    (kind.to_owned(), title.to_owned())
}

#[test]
fn only_prompts_and_each_sessions_closing_text_are_stored() {
    let (entries, skipped) = entries();
    // The billing transcript ends in a line cut off mid-write.
    assert_eq!(skipped, 1);
    let mut h = Home::new();
    let done = h.backfill(entries, None);
    assert_eq!(
        (done.prompts, done.summaries, done.duplicates),
        (6, 4, 0),
        "{done:?}"
    );
    assert_eq!(
        done.sessions,
        [BILLING_SESSION, SHOP_SESSION, OLD_SESSION],
        "in the order they were given"
    );
    // No tool result, meta line, slash command, shell command, interrupt notice, subagent
    // prompt, thinking, tool call or synthetic reply among them.
    assert_eq!(
        titles(&h),
        [
            pair("prompt", "Why does the invoice export skip credit notes?"),
            pair(
                "prompt",
                "Include credit notes in the export and add a regression test"
            ),
            pair(
                "summary",
                "Session summary: Credit notes are now exported with a negative total; a regression test covers it."
            ),
            pair("prompt", "Where is the checkout total computed?"),
            pair(
                "prompt",
                "Add a discount field to the checkout total and cover it with a test"
            ),
            pair("prompt", "Apply the discount before tax, not after"),
            pair(
                "summary",
                "Session summary: Checkout discount field with a unit test"
            ),
            pair(
                "summary",
                "Session summary: I added the discount parameter and a unit test; all tests pass."
            ),
            pair("prompt", "Rename the cart module to basket"),
            pair(
                "summary",
                "Session summary: Renamed `cart` to `basket` and updated the three imports."
            ),
        ]
    );
    let m = h.memories();
    // Project from each line's working directory, the host as the tool, the session, and the
    // time the line was written (2026-03-02T14:10:00Z), not the time of the back-fill.
    assert_eq!(
        (&m[0].0[..], &m[0].4[..], &m[0].5[..], m[0].6),
        ("billing", "claude-code", BILLING_SESSION, 1_772_460_600_000)
    );
    assert_eq!(
        m[7].3,
        "I added the discount parameter and a unit test; all tests pass."
    );
    assert!(m[3..].iter().all(|m| m.0 == "shop"));
    // Each session is queued for compression, as its Stop hook would have queued it.
    assert_eq!(
        h.queue(),
        [
            ("billing".into(), BILLING_SESSION.into(), "pending".into()),
            ("shop".into(), SHOP_SESSION.into(), "pending".into()),
            ("shop".into(), OLD_SESSION.into(), "pending".into()),
        ]
    );
}

#[test]
fn a_second_run_stores_nothing_and_leaves_compressed_sessions_alone() {
    let mut h = Home::new();
    h.backfill(entries().0, None);
    let before = h.memories();
    h.conn()
        .execute("UPDATE session_queue SET state = 'done'", [])
        .unwrap();
    let again = h.backfill(entries().0, None);
    assert_eq!(
        again,
        Backfilled {
            duplicates: 10,
            ..Backfilled::default()
        }
    );
    assert_eq!(h.memories(), before);
    assert!(h.queue().iter().all(|q| q.2 == "done"), "{:?}", h.queue());
}

#[test]
fn a_session_the_hooks_captured_is_not_stored_twice() {
    // What `aletheia hook claude-code UserPromptSubmit|Stop` stores for the recorded payloads
    // of the same session.
    let mut h = Home::new();
    let adapter = aletheia::capture::adapter::load("claude-code")
        .unwrap()
        .unwrap();
    for event in ["UserPromptSubmit", "Stop"] {
        let payload: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures().join(format!("claude-code/{event}.json"))).unwrap(),
        )
        .unwrap();
        let capture = adapter.capture(&adapter.events[event], &payload, T0);
        let m = aletheia::redact::Redacted::new(capture.memory.unwrap(), &h.redactor)
            .with_title_cut(aletheia::capture::adapter::HOOK_TITLE_CHARS);
        assert!(h.store.insert(&m).unwrap().new);
    }
    let done = h.backfill(entries().0, None);
    assert_eq!(
        (done.prompts, done.summaries, done.duplicates),
        (5, 3, 2),
        "{done:?}"
    );
    assert_eq!(h.memories().len(), 10);
}

#[test]
fn since_leaves_out_what_was_said_before_it() {
    let mut h = Home::new();
    let done = h.backfill(entries().0, Some(When::Text("2026-01-01".into())));
    assert_eq!((done.prompts, done.summaries, done.older), (5, 3, 2));
    assert!(!done.sessions.iter().any(|s| s == OLD_SESSION));
    assert!(h.memories().iter().all(|m| m.6 >= NEW_YEAR));
    let bad = Backfill {
        host: "claude-code".into(),
        entries: vec![],
        since: Some(When::Text("last blue moon".into())),
        exclude_projects: vec![],
    };
    let e = h
        .backfill_as(Caller::local("cli", "shop"), bad)
        .unwrap_err();
    assert!(
        e.to_string().starts_with("since: cannot read the date"),
        "{e}"
    );
}

#[test]
fn secrets_in_a_transcript_are_redacted_before_they_are_stored() {
    let token = "ghp_Q7vL4pT8wZ3nB6cF1hJ5dS0gY2aE7uR9xK2m";
    let line = serde_json::json!({
        "type": "user", "sessionId": "s-secret", "cwd": "/home/dev/shop", "userType": "external",
        "timestamp": "2026-03-03T08:00:00Z",
        "message": {"role": "user", "content": format!("Use the token {token} for the release")},
    });
    let parsed = transcript::parse(line.to_string().as_bytes(), "s-secret").unwrap();
    let mut h = Home::new();
    h.backfill(parsed.entries, None);
    let m = &h.memories()[0];
    assert_eq!(m.3, "Use the token [redacted:github-token] for the release");
    assert!(!m.2.contains(token));
}

#[test]
fn excluded_projects_and_projects_out_of_reach_are_not_written() {
    let mut h = Home::new();
    let req = |exclude: Vec<String>| Backfill {
        host: "claude-code".into(),
        entries: entries().0,
        since: None,
        exclude_projects: exclude,
    };
    let done = h
        .backfill_as(Caller::local("cli", "shop"), req(vec!["billing".into()]))
        .unwrap();
    assert_eq!(done.excluded, 3);
    assert!(h.memories().iter().all(|m| m.0 == "shop"));

    // A caller limited to shop is refused the whole batch, which holds billing's sessions.
    let mut h = Home::new();
    let shop_only = Caller {
        projects: Some(vec!["shop".into()]),
        ..Caller::local("hub", "shop")
    };
    let e = h.backfill_as(shop_only, req(vec![])).unwrap_err();
    assert!(matches!(e, OpError::Forbidden(_)), "{e:?}");
    assert!(h.memories().is_empty());
}

#[test]
fn entries_must_name_their_session_and_directory_and_hosts_must_have_transcripts() {
    let mut h = Home::new();
    let entry = Entry {
        session_id: "s1".into(),
        cwd: " ".into(),
        at: T0,
        kind: EntryKind::Prompt,
        text: "Where do invoices go?".into(),
    };
    let req = |host: &str, entry: Entry| Backfill {
        host: host.into(),
        entries: vec![entry],
        since: None,
        exclude_projects: vec![],
    };
    let e = h
        .backfill_as(
            Caller::local("cli", "shop"),
            req("claude-code", entry.clone()),
        )
        .unwrap_err();
    assert_eq!(e.to_string(), "entries[0].cwd is required.");
    let e = h
        .backfill_as(Caller::local("cli", "shop"), req("cursor", entry))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "host \"cursor\" has no transcripts aletheia can read: use claude-code."
    );
}

// ---------------------------------------------------------------------------------------------
// The command, through the real binary.
// ---------------------------------------------------------------------------------------------

/// Copy the recorded `projects` tree into the test's `~/.claude/projects`.
fn install_transcripts(env: &Env) {
    copy_tree(&projects(), &env.dir.path().join(".claude/projects"));
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn backfill(env: &Env, args: &[&str]) -> std::process::Output {
    env.cmd()
        .arg("backfill")
        .arg("claude-code")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn cli_backfill_after_the_hooks_stores_only_what_they_missed_then_nothing() {
    let env = Env::new();
    for event in ["UserPromptSubmit", "Stop"] {
        let payload = std::fs::read(fixtures().join(format!("claude-code/{event}.json"))).unwrap();
        env.hook("claude-code", event, payload);
    }
    assert_eq!(env.count(), 2);
    install_transcripts(&env);
    assert_eq!(
        stdout(&backfill(&env, &[])),
        "Back-filled 5 prompts and 3 summaries from 3 sessions (2 already stored, 1 lines skipped).\n"
    );
    assert_eq!(env.count(), 10);
    assert_eq!(
        stdout(&backfill(&env, &[])),
        "Back-filled 0 prompts and 0 summaries from 0 sessions (10 already stored, 1 lines skipped).\n"
    );
    assert_eq!(env.count(), 10);
    let queued: i64 = env
        .conn()
        .query_row("SELECT count(*) FROM session_queue", [], |r| r.get(0))
        .unwrap();
    assert_eq!(queued, 3);
}

#[test]
fn cli_backfill_since_and_json() {
    let env = Env::new();
    install_transcripts(&env);
    let out = stdout(&backfill(&env, &["--since", "2026-01-01", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&v["prompts"], &v["summaries"], &v["sessions"], &v["older"]),
        (&5.into(), &3.into(), &2.into(), &2.into()),
        "{v}"
    );
    assert_eq!((&v["skipped_lines"], &v["files"]), (&1.into(), &3.into()));
}

#[test]
fn cli_backfill_without_transcripts_says_so_in_one_line() {
    let env = Env::new();
    let out = stdout(&backfill(&env, &[]));
    assert_eq!(
        out,
        format!(
            "No Claude Code transcripts in {}: nothing to back-fill.\n",
            env.dir.path().join(".claude/projects").display()
        )
    );
}

#[test]
fn cli_backfill_refuses_a_bad_date_and_an_unknown_host_in_one_line() {
    let env = Env::new();
    let out = backfill(&env, &["--since", "last blue moon"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("aletheia: --since: cannot read the date") && err.lines().count() == 1,
        "{err}"
    );
    let out = env.cmd().args(["backfill", "cursor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "aletheia: aletheia backfill reads claude-code transcripts only; \"cursor\" has none it can read.\n"
    );
}
