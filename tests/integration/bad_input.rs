//! Bad input never breaks the host: the hook exits 0, prints nothing the host could misread, and
//! records what it can. Interactive commands fail with a one-line error and a non-zero exit.

use crate::support;

use support::{Env, prompt_payload};

#[test]
fn malformed_payloads_exit_0_silently_and_store_nothing() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("invalid json", b"{\"prompt\": ".to_vec()),
        ("array", b"[1,2,3]".to_vec()),
        ("string", b"\"just a string\"".to_vec()),
        ("missing fields", b"{\"session_id\":\"s\"}".to_vec()),
        (
            "wrong types",
            br#"{"prompt": null, "cwd": ["x"], "session_id": {"a": 1}}"#.to_vec(),
        ),
        ("raw NUL byte", b"{\"prompt\":\"a\0b\"}".to_vec()),
        (
            "cursor edit payload to claude's prompt event",
            std::fs::read(support::fixtures().join("cursor/afterFileEdit.json")).unwrap(),
        ),
    ];
    for (name, payload) in cases {
        let env = Env::new();
        let out = env
            .cmd()
            .args(["hook", "claude-code", "UserPromptSubmit"])
            .write_stdin(payload)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert!(out.stdout.is_empty(), "{name}: {:?}", out.stdout);
        assert_eq!(env.count(), 0, "{name}");
    }
}

#[test]
fn a_payload_of_another_host_records_what_it_can() {
    let env = Env::new();
    // Cursor's prompt event carries a `prompt` too, so Claude Code's adapter still finds it.
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        std::fs::read(support::fixtures().join("cursor/beforeSubmitPrompt.json")).unwrap(),
    );
    let m = env.memories();
    assert_eq!(m.len(), 1);
    assert_eq!(
        m[0].1,
        "Add a discount field to the checkout total and cover it with a test"
    );
}

#[test]
fn wrong_types_still_record_what_they_can() {
    let env = Env::new();
    // A numeric prompt is still a prompt; a cwd that is not a string falls back to ALETHEIA_CWD.
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        br#"{"prompt": 42, "cwd": 7}"#,
    );
    assert_eq!(
        env.memories(),
        vec![("prompt".into(), "42".into(), "42".into())]
    );
}

#[test]
fn invalid_utf8_and_escaped_nul_are_stored_cleanly() {
    let env = Env::new();
    let mut payload = br#"{"cwd":"/home/dev/shop","prompt":"caf"#.to_vec();
    payload.extend_from_slice(&[0xff, 0xfe]);
    payload.extend_from_slice(br#" ok \u0000 done"}"#);
    env.hook("claude-code", "UserPromptSubmit", payload);
    let m = env.memories();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].2, "caf\u{fffd}\u{fffd} ok  done");
}

#[test]
fn a_10_mb_tool_response_is_cut_with_a_marker() {
    let env = Env::new();
    let big = "log line with words\n".repeat(10 * 1024 * 1024 / 20);
    let payload = serde_json::json!({
        "session_id": "s", "cwd": "/home/dev/shop", "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": "cat big.log"},
        "tool_response": {"stdout": big, "stderr": ""}
    });
    env.hook("claude-code", "PostToolUse", payload.to_string());
    let m = env.memories();
    assert_eq!(m.len(), 1);
    assert!(m[0].2.len() < 32 * 1024, "stored {} bytes", m[0].2.len());
    assert!(m[0].2.contains("[truncated]"));
    assert_eq!(m[0].1, "Bash cat big.log");
}

#[test]
fn unknown_events_and_hosts_exit_0() {
    let env = Env::new();
    for event in ["NoSuchEvent", "", "PreToolUse"] {
        assert!(
            env.hook("claude-code", event, prompt_payload("x"))
                .is_empty()
        );
    }
    let out = env
        .cmd()
        .args(["hook", "vim", "Save"])
        .write_stdin(prompt_payload("x"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("unknown tool \"vim\"")
            && err.contains("claude-code, codex, command-code, cursor, gemini, opencode, windsurf"),
        "{err}"
    );
    let out = env.cmd().arg("hook").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(env.count(), 0);
}

#[test]
fn interactive_commands_refuse_bad_input_with_one_line() {
    let env = Env::new();
    for args in [
        vec!["search", "x", "--type", "idea"],
        vec!["search"],
        // A count out of range is clamped (one policy for every front end); a negative offset
        // means nothing and is refused.
        vec!["search", "x", "--offset=-1"],
        vec!["search", "x", "--since", "someday"],
        vec!["save", ""],
        vec!["save", "x", "--type", "nonsense"],
    ] {
        let out = env.cmd().args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.trim().lines().count() <= 3 && !err.is_empty(),
            "{args:?}: {err}"
        );
    }
    let long = "x".repeat(20_001);
    let out = env.cmd().args(["save", &long]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("over 20000 characters"));
}

#[test]
fn fts_syntax_in_queries_never_errors() {
    let env = Env::new();
    env.cmd()
        .args(["save", "pnpm workspace caching", "--project", "shop"])
        .assert()
        .success();
    for q in [
        "\"unbalanced",
        "pnpm AND",
        "NEAR(",
        "(((",
        "*",
        "-pnpm",
        "a:b",
        "' OR 1=1 --",
    ] {
        let out = env.cmd().args(["search", "--", q]).output().unwrap();
        assert!(
            out.status.success(),
            "{q}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
