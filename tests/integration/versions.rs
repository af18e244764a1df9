//! A memory's versions: an edit keeps the text it replaced, and `aletheia inspect` shows every
//! text newest first with who wrote it and when, through the real binary.

use crate::support::Env;
use serde_json::Value;

fn json(env: &Env, args: &[&str]) -> Value {
    let out = env.cmd().arg("--json").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn each_edit_keeps_the_text_it_replaced_and_inspect_lists_them_newest_first() {
    let env = Env::new();
    let id = json(&env, &["save", "We deploy with npm"])["id"]
        .as_i64()
        .unwrap();
    let once = json(&env, &["inspect", &id.to_string()]);
    assert_eq!(once["versions"].as_array().unwrap().len(), 1, "{once}");
    assert_eq!(once["versions"][0]["classification"], "original");

    env.cmd()
        .args(["edit", &id.to_string(), "We deploy with pnpm"])
        .assert()
        .success()
        .stdout(format!(
            "Edited #{id}; the text it replaced is kept (aletheia inspect {id}).\n"
        ));
    env.cmd()
        .args([
            "edit",
            &id.to_string(),
            "We deploy with pnpm 9",
            "--title",
            "Deploys",
        ])
        .assert()
        .success();
    let all = json(&env, &["inspect", &id.to_string()]);
    let texts: Vec<(&str, &str)> = all["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["text"].as_str().unwrap(),
                v["classification"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            ("We deploy with pnpm 9", "edit"),
            ("We deploy with pnpm", "edit"),
            ("We deploy with npm", "original"),
        ]
    );
    // Each earlier version ends when the next began.
    let v = all["versions"].as_array().unwrap();
    assert_eq!(v[1]["replaced_at"], v[0]["written_at"]);
    assert_eq!(v[2]["replaced_at"], v[1]["written_at"]);
    assert_eq!(all["memory"]["title"], "Deploys");

    // The text shows them too, and the same text again keeps nothing new.
    env.cmd()
        .args([
            "edit",
            &id.to_string(),
            "We deploy with pnpm 9",
            "--title",
            "Deploys",
        ])
        .assert()
        .success();
    let text = String::from_utf8(
        env.cmd()
            .args(["inspect", &id.to_string()])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(text.contains("3 versions, newest first:"), "{text}");
    assert!(text.contains("v1 original by cli"), "{text}");
    assert!(text.contains("We deploy with npm"), "{text}");

    // A memory that does not exist is named.
    let out = env.cmd().args(["edit", "999", "x"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("No memory #999."),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn what_a_hook_captured_is_not_edited_and_an_edit_is_redacted() {
    let env = Env::new();
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        crate::support::prompt_payload("deploy the shop"),
    );
    let out = env
        .cmd()
        .args(["edit", "1", "something else"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only notes can be edited"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = json(&env, &["save", "the staging key is in the vault"])["id"]
        .as_i64()
        .unwrap();
    let secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    env.cmd()
        .args(["edit", &id.to_string(), &format!("use token {secret}")])
        .assert()
        .success();
    let all = json(&env, &["inspect", &id.to_string()]);
    assert!(!all.to_string().contains(secret), "{all}");
}
