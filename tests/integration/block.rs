//! The session-start block through the binary: rows the store keeps for itself (a named
//! list's note, the project summary compression writes) are not told as recent memories.

use crate::support;

use support::Env;

fn ok(env: &Env, args: &[&str], stdin: &str) -> String {
    let out = env
        .cmd()
        .env("TZ", "UTC")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn lists_and_the_project_summary_are_not_listed_as_recent() {
    let env = Env::new();
    ok(&env, &["save", "The checkout needs Redis 7"], "");
    ok(
        &env,
        &["list", "write", "todo"],
        r#"["ship docs", "test hooks"]"#,
    );
    env.hook(
        "claude-code",
        "Stop",
        serde_json::json!({
            "session_id": "s1", "cwd": "/home/dev/shop", "hook_event_name": "Stop",
            "stop_hook_active": false,
            "last_assistant_message": "The cart service requires Node 22."
        })
        .to_string(),
    );
    ok(&env, &["compress"], "");
    let rows: i64 = env
        .conn()
        .query_row(
            "SELECT count(*) FROM memories WHERE title LIKE 'Project summary:%' OR title LIKE 'Work state:%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 2, "both rows are there to be left out");

    let block = ok(&env, &["context", "--project", "shop"], "");
    let recent = &block[block.find("## Recent").expect(&block)..];
    assert!(recent.contains("The checkout needs Redis 7"), "{block}");
    assert!(
        !recent.contains("Work state:") && !block.contains("Project summary:"),
        "{block}"
    );
    assert!(
        block.contains("## Work-state lists\n- todo (2 items)\n"),
        "{block}"
    );
}
