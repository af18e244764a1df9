//! Memories that change over time, through the real binary: a note that replaces an older one
//! marks it (search ranks it below and says so, the session-start block leaves it out,
//! `inspect` shows the link), `--as-of` answers as the store stood before an edit and before a
//! replacement, and feedback moves a tie but never a clearly better match.

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

/// The hits of a search, one JSON object each (`search --json` prints one per line).
fn hits(env: &Env, args: &[&str]) -> Vec<Value> {
    let out = env
        .cmd()
        .args(["--json", "search"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text(env: &Env, args: &[&str]) -> String {
    let out = env.cmd().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn save(env: &Env, note: &str) -> i64 {
    json(env, &["save", "--project", "shop", note])["id"]
        .as_i64()
        .unwrap()
}

fn ids(hits: &[Value]) -> Vec<i64> {
    hits.iter().map(|h| h["id"].as_i64().unwrap()).collect()
}

#[test]
fn a_replacing_note_marks_the_old_one_everywhere_and_as_of_sees_before_it() {
    let env = Env::new();
    let npm = save(&env, "We deploy the shop with npm");
    let unrelated = save(&env, "The shop's docs site also builds with npm");
    let before = json(&env, &["inspect", &npm.to_string()])["versions"][0]["written_at"]
        .as_i64()
        .unwrap();
    // Every save is its own process, so the replacement is stored a few milliseconds later.
    std::thread::sleep(std::time::Duration::from_millis(5));

    let out = text(
        &env,
        &[
            "save",
            "--project",
            "shop",
            "We switched the shop deploy from npm to pnpm",
        ],
    );
    let pnpm = npm + 2;
    assert_eq!(
        out,
        format!("Saved as #{pnpm} in shop. It replaces #{npm}, which stays, marked as replaced.\n")
    );

    // Search: the current one first, the replaced one marked, the docs note untouched.
    let found = hits(&env, &["npm", "--project", "shop"]);
    let order = ids(&found);
    let at = |id| order.iter().position(|&x| x == id).unwrap();
    assert!(at(pnpm) < at(npm), "{found:?}");
    let old = &found[at(npm)];
    assert_eq!(old["replaced_by"], pnpm);
    assert!(found[at(unrelated)].get("replaced_by").is_none());
    assert!(
        text(&env, &["search", "npm", "--project", "shop"])
            .contains(&format!("[replaced by #{pnpm}]"))
    );

    // The block does not tell the replaced note as current.
    let block = text(&env, &["context", "--project", "shop"]);
    assert!(block.contains("switched the shop deploy"), "{block}");
    assert!(!block.contains("We deploy the shop with npm"), "{block}");

    // Inspect shows the relationship from both sides.
    let i = text(&env, &["inspect", &npm.to_string()]);
    assert!(
        i.contains(&format!("Replaced by #{pnpm} (replaced)")),
        "{i}"
    );
    let i = json(&env, &["inspect", &pnpm.to_string()]);
    assert_eq!(i["links"][0]["older"], npm);

    // As of before the replacement: the replacing note did not exist and nothing is marked.
    let then = hits(
        &env,
        &["npm", "--project", "shop", "--as-of", &before.to_string()],
    );
    assert!(!ids(&then).contains(&pnpm), "{then:?}");
    assert!(then.iter().all(|h| h.get("replaced_by").is_none()));
}

#[test]
fn as_of_reads_a_memory_as_it_was_before_an_edit() {
    let env = Env::new();
    let id = save(&env, "The cache keeps entries for ten minutes");
    let written = json(&env, &["inspect", &id.to_string()])["versions"][0]["written_at"]
        .as_i64()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    env.cmd()
        .args([
            "edit",
            &id.to_string(),
            "The cache keeps entries for one hour",
        ])
        .assert()
        .success();
    let now = hits(&env, &["cache"]);
    assert_eq!(now[0]["text"], "The cache keeps entries for one hour");
    let then = hits(&env, &["cache", "--as-of", &written.to_string()]);
    assert_eq!(then[0]["text"], "The cache keeps entries for ten minutes");
    // Before it was saved, it was not there.
    let earlier = (written - 1).to_string();
    assert!(hits(&env, &["cache", "--as-of", &earlier]).is_empty());
}

#[test]
fn feedback_moves_a_tie_but_never_a_clearly_better_match_and_a_negative_hides_from_the_block() {
    let env = Env::new();
    // Two equal matches for "retries": the newer wins the tie by recency alone.
    let first = save(&env, "Webhook retries back off exponentially");
    let second = save(&env, "Payment retries back off exponentially");
    assert_eq!(ids(&hits(&env, &["retries"]))[..2], [second, first]);
    let out = text(&env, &["feedback", &first.to_string(), "--favourite"]);
    assert_eq!(
        out,
        format!("#{first}: favourite, 0 helpful, 0 not helpful.\n")
    );
    assert_eq!(
        ids(&hits(&env, &["retries"]))[..2],
        [first, second],
        "a favourite wins a tie"
    );

    // A clearly better match (both words of the query) stays above a favoured weaker one.
    let better = save(
        &env,
        "Queue consumer retries use jitter and a dead letter queue",
    );
    let order = ids(&hits(&env, &["retries jitter"]));
    assert_eq!(order[0], better, "{order:?}");

    // Not helpful, more than helpful: left out of the block, still found by search.
    let block = text(&env, &["context", "--project", "shop"]);
    assert!(block.contains("Payment retries"), "{block}");
    let out = text(&env, &["feedback", &second.to_string(), "--negative"]);
    assert!(out.contains("left out of the session-start block"), "{out}");
    let block = text(&env, &["context", "--project", "shop"]);
    assert!(!block.contains("Payment retries"), "{block}");
    assert!(ids(&hits(&env, &["payment"])).contains(&second));
    let f = json(&env, &["inspect", &second.to_string()])["feedback"].clone();
    assert_eq!(f["negative"], 1);

    // A vote needs one of the four flags, and a memory that exists.
    env.cmd()
        .args(["feedback", &first.to_string()])
        .assert()
        .failure();
    let out = env
        .cmd()
        .args(["feedback", "999", "--positive"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("No memory #999."));
}

#[test]
fn an_imported_memory_keeps_when_it_was_said_apart_from_when_it_was_stored() {
    let env = Env::new();
    let file = env.dir.path().join("old.jsonl");
    std::fs::write(
        &file,
        r#"{"project":"shop","kind":"note","text":"The shop launched on Heroku","occurred_at":"2024-05-01"}"#,
    )
    .unwrap();
    env.cmd()
        .args(["import", file.to_str().unwrap()])
        .assert()
        .success();
    let i = json(&env, &["inspect", "1"]);
    let said = i["memory"]["created_at"].as_i64().unwrap();
    let stored = i["stored_at"].as_i64().unwrap();
    assert!(
        said < 1_715_000_000_000 && stored > 1_760_000_000_000,
        "{i}"
    );
    let out = text(&env, &["inspect", "1"]);
    assert!(out.contains("Said or done 2024-05-01"), "{out}");
    // Search's date filters apply to when it was said.
    assert!(ids(&hits(&env, &["heroku", "--until", "2024-06-01"])).contains(&1));
    assert!(hits(&env, &["heroku", "--since", "2025-01-01"]).is_empty());
}
