//! Just-in-time recall through the real hook: as each host's agent is about to read or edit a
//! file (Claude Code's and Codex's PreToolUse, Cursor's preToolUse, Gemini CLI's AfterTool), the
//! few memories about that file its session was not told yet, in the host's own output
//! contract; nothing for a file with none, for a tool that touches no file, or a second time.

use crate::support::{self, Env, fixtures};
use serde_json::{Value, json};

const FILE: &str = "/home/dev/shop/src/checkout.rs";

/// Four memories about the file from an earlier session (and one about another file).
fn seeded() -> Env {
    let env = Env::new();
    let records: String = [
        ("gotcha", "Checkout rounds the discount before tax", FILE, 1),
        ("decision", "Checkout retries payment twice", FILE, 2),
        ("note", "Edit checkout.rs for the coupon field", FILE, 3),
        ("bugfix", "Fixed the empty-cart crash in checkout", FILE, 4),
        (
            "note",
            "The cart page lives in web/cart.tsx",
            "/home/dev/shop/web/cart.tsx",
            5,
        ),
    ]
    .iter()
    .map(|(t, title, file, day)| {
        format!(
            "{}\n",
            json!({"project": "shop", "kind": "note", "type": t, "title": title, "text": title,
                   "tool": "claude-code", "session_id": "earlier", "files": [file],
                   "created_at": format!("2026-11-0{day}T10:00:00Z")})
        )
    })
    .collect();
    env.cmd()
        .arg("import")
        .write_stdin(records)
        .assert()
        .success();
    env
}

/// A recorded payload of `host`'s `event`, with `change` applied to its JSON.
fn payload(host: &str, event: &str, change: impl FnOnce(&mut Value)) -> String {
    let path = fixtures().join(host).join(format!("{event}.json"));
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    change(&mut v);
    v.to_string()
}

/// The memory lines a Claude-shaped answer holds (`- #ID …`), or none for an empty stdout.
fn told(stdout: &str, event: &str) -> Vec<String> {
    if stdout.is_empty() {
        return vec![];
    }
    let v: Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{v}");
    assert_eq!(v["hookSpecificOutput"].as_object().unwrap().len(), 2, "{v}");
    lines(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap(),
    )
}

fn lines(text: &str) -> Vec<String> {
    assert!(text.starts_with("<aletheia-memory>\n"), "{text}");
    assert!(text.contains("Remembered about "), "{text}");
    text.lines()
        .filter(|l| l.starts_with("- #"))
        .map(support::ages)
        .collect()
}

#[test]
fn claude_code_is_told_three_new_memories_about_a_file_once_per_session() {
    let env = seeded();
    // The recorded payload is a Bash call: it names no file, so nothing is said.
    let bash = env.hook(
        "claude-code",
        "PreToolUse",
        std::fs::read(fixtures().join("claude-code/PreToolUse.json")).unwrap(),
    );
    assert_eq!(bash, "");
    let read = |session: &str, file: &str| {
        payload("claude-code", "PreToolUse", |v| {
            v["session_id"] = session.into();
            v["tool_name"] = "Read".into();
            v["tool_input"] = json!({ "file_path": file });
        })
    };
    let first = told(
        &env.hook("claude-code", "PreToolUse", read("s1", FILE)),
        "PreToolUse",
    );
    assert_eq!(
        first,
        vec![
            "- #4 [bugfix] Fixed the empty-cart crash in checkout (note by claude-code, AGE)",
            "- #3 [note] Edit checkout.rs for the coupon field (note by claude-code, AGE)",
            "- #2 [decision] Checkout retries payment twice (note by claude-code, AGE)",
        ]
    );
    // The fourth is still new to the session; then there is nothing left to tell.
    let second = told(
        &env.hook("claude-code", "PreToolUse", read("s1", FILE)),
        "PreToolUse",
    );
    assert_eq!(
        second,
        vec!["- #1 [gotcha] Checkout rounds the discount before tax (note by claude-code, AGE)"]
    );
    assert_eq!(env.hook("claude-code", "PreToolUse", read("s1", FILE)), "");
    // A file nobody remembers anything about, and another session.
    assert_eq!(
        env.hook(
            "claude-code",
            "PreToolUse",
            read("s1", "/home/dev/shop/README.md")
        ),
        ""
    );
    assert_eq!(
        told(
            &env.hook("claude-code", "PreToolUse", read("s2", FILE)),
            "PreToolUse"
        )
        .len(),
        3
    );
    // Telling stores nothing: the store holds the five memories it held.
    assert_eq!(env.count(), 5);
}

#[test]
fn what_the_session_start_block_listed_is_not_told_again() {
    let env = seeded();
    let start = payload("claude-code", "SessionStart", |v| {
        v["session_id"] = "s1".into();
    });
    let block = env.hook("claude-code", "SessionStart", start);
    assert!(block.contains("Fixed the empty-cart crash"), "{block}");
    let read = payload("claude-code", "PreToolUse", |v| {
        v["session_id"] = "s1".into();
        v["tool_name"] = "Edit".into();
        v["tool_input"] = json!({ "file_path": FILE, "old_string": "a", "new_string": "b" });
    });
    // Every memory about the file was in the block: nothing is new.
    assert_eq!(env.hook("claude-code", "PreToolUse", read), "");
}

#[test]
fn codex_is_told_about_the_files_its_patch_edits() {
    let env = seeded();
    assert_eq!(
        env.hook(
            "codex",
            "PreToolUse",
            std::fs::read(fixtures().join("codex/PreToolUse.json")).unwrap()
        ),
        ""
    );
    let patch = payload("codex", "PreToolUse", |v| {
        v["tool_name"] = "apply_patch".into();
        v["tool_input"] = json!({ "command": "*** Begin Patch\n*** Update File: web/cart.tsx\n@@\n-a\n+b\n*** End Patch\n" });
    });
    let out = told(&env.hook("codex", "PreToolUse", patch), "PreToolUse");
    assert_eq!(
        out,
        vec!["- #5 [note] The cart page lives in web/cart.tsx (note by claude-code, AGE)"]
    );
}

#[test]
fn cursor_is_told_through_the_agent_message_of_pre_tool_use() {
    let env = seeded();
    assert_eq!(
        env.hook(
            "cursor",
            "preToolUse",
            std::fs::read(fixtures().join("cursor/preToolUse.json")).unwrap()
        ),
        ""
    );
    let read = payload("cursor", "preToolUse", |v| {
        v["tool_name"] = "Read".into();
        v["tool_input"] = json!({ "file_path": FILE });
    });
    let out: Value = serde_json::from_str(&env.hook("cursor", "preToolUse", read.clone())).unwrap();
    assert_eq!(out.as_object().unwrap().len(), 1, "{out}");
    assert_eq!(lines(out["agent_message"].as_str().unwrap()).len(), 3);
    let again: Value =
        serde_json::from_str(&env.hook("cursor", "preToolUse", read.clone())).unwrap();
    assert_eq!(lines(again["agent_message"].as_str().unwrap()).len(), 1);
    assert_eq!(env.hook("cursor", "preToolUse", read), "");
}

#[test]
fn gemini_is_told_after_its_file_tool_and_never_about_its_own_call() {
    let env = seeded();
    // The recorded AfterTool wrote the file: it is stored, and the earlier session's memories
    // about the file are told; this call's own record is not.
    let out = env.hook(
        "gemini",
        "AfterTool",
        std::fs::read(fixtures().join("gemini/AfterTool.json")).unwrap(),
    );
    let first = told(&out, "AfterTool");
    assert_eq!(first.len(), 3, "{first:?}");
    assert!(first.iter().all(|l| !l.contains("write_file")), "{first:?}");
    assert_eq!(env.count(), 6, "the tool call itself is stored as before");
    // A shell command names no file: it is stored, and nothing is said.
    let shell = payload("gemini", "AfterTool", |v| {
        v["tool_name"] = "run_shell_command".into();
        v["tool_input"] = json!({ "command": "cargo test" });
    });
    assert_eq!(env.hook("gemini", "AfterTool", shell), "");
}
