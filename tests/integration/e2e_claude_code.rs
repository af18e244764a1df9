//! The real host: Claude Code runs our SessionStart hook offline and reports it succeeded, and
//! `claude doctor` finds nothing wrong with the settings we register.
//!
//! Needs Claude Code and Node 22, which `scripts/test` installs and names in `ALETHEIA_CLAUDE`
//! (the `claude` executable) and `ALETHEIA_NODE_DIR` (a folder with Node 22's `node`).

use crate::support;

use serde_json::Value;
use std::process::Command;

fn claude() -> (String, String) {
    let bin = std::env::var("ALETHEIA_CLAUDE").expect(
        "ALETHEIA_CLAUDE must name Claude Code's executable: run scripts/test, which installs it",
    );
    let node = std::env::var("ALETHEIA_NODE_DIR")
        .expect("ALETHEIA_NODE_DIR must name Node 22's bin folder");
    (bin, node)
}

#[test]
#[ignore = "needs Claude Code from npm; scripts/test installs it and runs this"]
fn claude_code_runs_the_session_start_hook_and_doctor_accepts_the_settings() {
    let (bin, node) = claude();
    let env = support::Env::new();
    let home = env.dir.path();
    let project = home.join("shop");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    env.cmd()
        .args([
            "save",
            "Use pnpm, not npm, in the shop repo",
            "--project",
            "shop",
            "--pinned",
            "--type",
            "decision",
        ])
        .assert()
        .success();
    let aletheia = assert_cmd::cargo::cargo_bin("aletheia");
    let command = format!(
        "ALETHEIA_DATA_DIR={} {} hook claude-code",
        env.data().display(),
        aletheia.display()
    );
    let settings = serde_json::json!({"hooks": {
        "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": format!("{command} SessionStart"), "timeout": 10}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": format!("{command} UserPromptSubmit")}]}],
        "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": format!("{command} PostToolUse")}]}],
        "Stop": [{"hooks": [{"type": "command", "command": format!("{command} Stop")}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": format!("{command} SessionEnd")}]}]
    }});
    std::fs::write(
        home.join(".claude/settings.json"),
        serde_json::to_vec_pretty(&settings).unwrap(),
    )
    .unwrap();
    let path = format!("{node}:{}", std::env::var("PATH").unwrap_or_default());
    let run = |args: &[&str]| {
        Command::new(&bin)
            .args(args)
            .current_dir(&project)
            .env_clear()
            .env("HOME", home)
            .env("PATH", &path)
            .env("TMPDIR", env.tmp())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&["-p", "hi", "--output-format", "stream-json", "--verbose"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let response = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["subtype"] == "hook_response" && v["hook_event"] == "SessionStart")
        .unwrap_or_else(|| {
            panic!(
                "Claude Code did not run the SessionStart hook:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert_eq!(response["exit_code"], 0, "{response}");
    assert_eq!(response["outcome"], "success", "{response}");
    let hook_out: Value = serde_json::from_str(response["stdout"].as_str().unwrap()).unwrap();
    let block = hook_out["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        block.contains("[decision] Use pnpm, not npm, in the shop repo"),
        "{block}"
    );

    let out = run(&["doctor"]);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("Invalid settings"), "{text}");
    assert!(text.contains("Claude Code doctor"), "{text}");
}
