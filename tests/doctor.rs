//! `doctor` names the fault and the fix, and exits non-zero while the user must act.

mod support;

use support::{Env, prompt_payload};

#[test]
fn doctor_reports_waiting_events_until_drained() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("first"));
    let out = env.cmd().arg("doctor").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("integrity: ok; search index consistent")
            && text.contains("memories: prompt 1"),
        "{text}"
    );
    assert!(text.contains("captured: claude-code last at"), "{text}");

    let conn = env.hold_write_lock();
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        prompt_payload("while locked"),
    );
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);
    let out = env.cmd().args(["doctor", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["spool"]["lines_waiting"], 1);
    assert!(
        report["spool"]["oldest_waiting"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert!(
        report["problems"][0]["fix"]
            .as_str()
            .unwrap()
            .contains("aletheia drain")
    );

    let out = env.cmd().arg("drain").output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Drained the spool: 1 stored, 0 already present, 0 rejected.\n"
    );
    env.cmd().arg("doctor").assert().success();
}

#[test]
fn doctor_finds_a_hook_command_that_does_not_exist_and_a_corrupt_store() {
    let env = Env::new();
    std::fs::create_dir_all(env.dir.path().join(".claude")).unwrap();
    std::fs::write(
        env.dir.path().join(".claude/settings.json"),
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/nonexistent/aletheia hook claude-code SessionStart"}]}]}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(env.data()).unwrap();
    std::fs::write(env.db(), vec![0x5a; 8192]).unwrap();
    let out = env.cmd().arg("doctor").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("the store cannot be opened") && text.contains("move it aside"),
        "{text}"
    );
    assert!(
        text.contains("COMMAND MISSING") && text.contains("name a command that does not exist"),
        "{text}"
    );
}
