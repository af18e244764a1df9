//! Every recorded payload of Codex, Gemini CLI, Windsurf, OpenCode and Command Code through the
//! real hook: what each event stores and queues, and what it prints in its host's own contract.
//! An event missing from `CASES` must leave nothing behind at all.

use crate::support;

use serde_json::Value;
use support::{Env, fixtures};

/// How a context event's block must come back.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Output {
    /// Nothing on stdout.
    Silent,
    /// `{"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<block>}}`.
    HookSpecific,
    /// The block itself.
    Plain,
}

/// What one recorded event must leave behind.
struct Case {
    host: &'static str,
    event: &'static str,
    /// (kind, title) of the one memory stored.
    memory: Option<(&'static str, &'static str)>,
    files: &'static [&'static str],
    queued: bool,
    output: Output,
}

const fn case(host: &'static str, event: &'static str) -> Case {
    Case {
        host,
        event,
        memory: None,
        files: &[],
        queued: false,
        output: Output::Silent,
    }
}

impl Case {
    const fn memory(self, kind: &'static str, title: &'static str) -> Case {
        Case {
            memory: Some((kind, title)),
            ..self
        }
    }
    const fn files(self, files: &'static [&'static str]) -> Case {
        Case { files, ..self }
    }
    const fn queued(self) -> Case {
        Case {
            queued: true,
            ..self
        }
    }
    const fn context(self, output: Output) -> Case {
        Case { output, ..self }
    }
}

const PROMPT: &str = "Add a discount field to the checkout total and cover it with a test";
const CHECKOUT: &[&str] = &["/home/dev/shop/src/checkout.rs"];

const CASES: &[Case] = &[
    case("codex", "SessionStart").context(Output::HookSpecific),
    case("codex", "UserPromptSubmit").memory("prompt", PROMPT),
    case("codex", "PostToolUse").memory("event", "Bash cargo test --workspace"),
    case("codex", "Stop")
        .memory(
            "summary",
            "Session summary: Added the discount parameter and a unit test; tests pass.",
        )
        .queued(),
    case("gemini", "SessionStart").context(Output::HookSpecific),
    case("gemini", "BeforeAgent").memory("prompt", PROMPT),
    case("gemini", "AfterTool")
        .memory("event", "write_file /home/dev/shop/src/checkout.rs")
        .files(CHECKOUT),
    case("gemini", "AfterAgent")
        .memory(
            "summary",
            "Session summary: Done: total() now takes a discount and a test covers it.",
        )
        .queued(),
    case("gemini", "SessionEnd").queued(),
    case("windsurf", "pre_user_prompt").memory("prompt", PROMPT),
    case("windsurf", "post_read_code")
        .memory("event", "Read /home/dev/shop/src/checkout.rs")
        .files(CHECKOUT),
    case("windsurf", "post_write_code")
        .memory("event", "Edit /home/dev/shop/src/checkout.rs")
        .files(CHECKOUT),
    case("windsurf", "post_run_command").memory("event", "Shell cargo test --workspace"),
    case("windsurf", "post_mcp_tool_use").memory("event", "MCP shop-db query"),
    case("windsurf", "post_cascade_response")
        .memory(
            "summary",
            "Session summary: I added the discount parameter and a unit test; all tests pass.",
        )
        .queued(),
    case("opencode", "event.session.created").context(Output::Plain),
    case("opencode", "experimental.chat.system.transform").context(Output::Plain),
    case("opencode", "chat.message").memory("prompt", PROMPT),
    case("opencode", "tool.execute.after").memory("event", "bash cargo test --workspace"),
    case("opencode", "event.session.idle").queued(),
    case("command-code", "SessionStart").context(Output::HookSpecific),
    case("command-code", "PostToolUse").memory("event", "shell_command cargo test --workspace"),
    case("command-code", "Stop").queued(),
];

/// Each host's session id in its recorded payloads.
const SESSIONS: &[(&str, &str)] = &[
    ("codex", "019ad4c0-2b7e-7c11-9f3a-5d6e7f8a9b0c"),
    ("gemini", "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e"),
    ("windsurf", "8a7b6c5d-4e3f-4a2b-9c1d-0e9f8a7b6c5d"),
    ("opencode", "ses_5b2e1f7a9ffeQk3M8zRt2LwVxY"),
    ("command-code", "2c9e7b1a-4d3f-4e8a-b6c5-1f0e9d8c7b6a"),
];

const PINNED: &str = "Use pnpm, not npm, in the shop repo";

fn payload(host: &str, event: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(host).join(format!("{event}.json"))).unwrap()
}

/// Every recorded event of `host`, by file name.
fn events(host: &str) -> Vec<String> {
    let mut out: Vec<_> = std::fs::read_dir(fixtures().join(host))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// (kind, title, project, tool, session_id, files) of every memory, in id order.
type Row = (String, String, String, String, Option<String>, String);

fn rows(env: &Env) -> Vec<Row> {
    if !env.db().exists() {
        return vec![];
    }
    let c = env.conn();
    let mut s = c
        .prepare("SELECT kind, title, project, tool, session_id, files FROM memories ORDER BY id")
        .unwrap();
    s.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// (project, session_id, tool) of every queued session.
fn queued(env: &Env) -> Vec<(String, String, String)> {
    if !env.db().exists() {
        return vec![];
    }
    let c = env.conn();
    let mut s = c
        .prepare("SELECT project, session_id, tool FROM session_queue")
        .unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The block in `stdout`, checked against the contract `output` names.
fn block(output: Output, event: &str, stdout: &str) -> String {
    match output {
        Output::Silent => {
            assert!(stdout.is_empty(), "{event} printed {stdout:?}");
            String::new()
        }
        Output::HookSpecific => {
            let v: Value = serde_json::from_str(stdout).unwrap();
            let inner = v["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
            assert_eq!(inner.len(), 2, "{v}");
            assert_eq!(inner["hookEventName"], event);
            inner["additionalContext"].as_str().unwrap().to_owned()
        }
        Output::Plain => {
            assert!(!stdout.trim_start().starts_with('{'), "{stdout}");
            stdout.trim_end().to_owned()
        }
    }
}

#[test]
fn every_recorded_event_stores_queues_and_prints_what_its_host_expects() {
    for c in CASES {
        assert!(
            events(c.host).iter().any(|e| e == c.event),
            "no fixture for {} {}",
            c.host,
            c.event
        );
    }
    for &(host, session) in SESSIONS {
        for event in events(host) {
            let what = format!("{host} {event}");
            let expected = CASES.iter().find(|c| c.host == host && c.event == event);
            let env = Env::new();
            let context = expected.is_some_and(|c| c.output != Output::Silent);
            if context {
                env.cmd()
                    .args(["save", PINNED, "--pinned", "--project", "shop"])
                    .assert()
                    .success();
            }
            let stdout = env.hook(host, &event, payload(host, &event));

            let mut stored = rows(&env);
            if context {
                assert_eq!(stored.remove(0).1, PINNED, "{what}");
            }
            match expected.and_then(|c| c.memory) {
                Some((kind, title)) => {
                    assert_eq!(stored.len(), 1, "{what} should store one memory");
                    let (k, t, project, tool, sid, files) = &stored[0];
                    assert_eq!((k.as_str(), t.as_str()), (kind, title), "{what}");
                    assert_eq!((project.as_str(), tool.as_str()), ("shop", host), "{what}");
                    assert_eq!(sid.as_deref(), Some(session), "{what}");
                    let files: Vec<String> = serde_json::from_str(files).unwrap();
                    assert_eq!(files, expected.unwrap().files, "{what}");
                }
                None => assert!(stored.is_empty(), "{what} stored {stored:?}"),
            }

            let want_queue = expected.is_some_and(|c| c.queued);
            let want: Vec<_> = want_queue
                .then(|| ("shop".to_owned(), session.to_owned(), host.to_owned()))
                .into_iter()
                .collect();
            assert_eq!(queued(&env), want, "{what}");

            let output = expected.map_or(Output::Silent, |c| c.output);
            let block = block(output, &event, &stdout);
            if context {
                assert!(
                    block.starts_with("<aletheia-memory>") && block.contains(PINNED),
                    "{what}: {block}"
                );
            }
        }
    }
}

#[test]
fn windsurf_never_prints_even_when_the_store_has_context() {
    let env = Env::new();
    env.cmd()
        .args(["save", PINNED, "--pinned", "--project", "shop"])
        .assert()
        .success();
    for event in events("windsurf") {
        let out = env
            .cmd()
            .args(["hook", "windsurf", &event])
            .write_stdin(payload("windsurf", &event))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty(), "windsurf {event} printed");
    }
}

#[test]
fn the_same_payload_is_stored_under_the_host_the_command_names() {
    // Claude Code's and Codex's payloads are near-identical: only the command tells them apart.
    // Separate stores, since one store keeps a memory once whichever host sent it.
    for host in ["codex", "claude-code"] {
        let env = Env::new();
        env.hook(host, "Stop", payload("codex", "Stop"));
        let stored: Vec<_> = rows(&env).into_iter().map(|r| (r.0, r.3)).collect();
        assert_eq!(stored, [("summary".to_owned(), host.to_owned())]);
        assert_eq!(queued(&env)[0].2, host);
    }
}

#[test]
fn opencode_plugin_fields_decide_the_project_prompt_and_summary() {
    let env = Env::new();
    let message: Value = serde_json::from_slice(&payload("opencode", "chat.message")).unwrap();
    let mut with_prompt = message.clone();
    with_prompt["directory"] = "/home/dev/billing".into();
    with_prompt["prompt"] = "Only the typed text".into();
    env.hook("opencode", "chat.message", with_prompt.to_string());

    let idle: Value = serde_json::from_slice(&payload("opencode", "event.session.idle")).unwrap();
    let mut with_reply = idle.clone();
    with_reply["directory"] = "/home/dev/billing".into();
    with_reply["last_assistant_message"] = "Added the discount; tests pass.".into();
    env.hook("opencode", "event.session.idle", with_reply.to_string());

    let stored: Vec<_> = rows(&env).into_iter().map(|r| (r.0, r.1, r.2)).collect();
    assert_eq!(
        stored,
        [
            (
                "prompt".into(),
                "Only the typed text".into(),
                "billing".into()
            ),
            (
                "summary".into(),
                "Session summary: Added the discount; tests pass.".into(),
                "billing".into()
            ),
        ]
    );
    assert_eq!(
        queued(&env),
        [(
            "billing".into(),
            "ses_5b2e1f7a9ffeQk3M8zRt2LwVxY".into(),
            "opencode".into()
        )]
    );
}

#[test]
fn a_spooled_gemini_event_keeps_its_notice_off_the_users_screen() {
    // Gemini CLI shows stderr to the user whenever stdout is empty: a JSON `{}` on stdout keeps
    // the spool notice to the host. Other hosts print nothing on stdout.
    let env = Env::new();
    for (host, event, stdout) in [
        ("gemini", "BeforeAgent", "{}\n"),
        ("claude-code", "UserPromptSubmit", ""),
    ] {
        let out = env
            .cmd()
            .env("ALETHEIA_HUB_DB", env.dir.path().join("unmounted/hub.db"))
            .args(["hook", host, event])
            .write_stdin(payload(host, event))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&out.stdout), stdout, "{host}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("spooled to"),
            "{host}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
