//! `aletheia review`: two facts about one subject and predicate that started at the same moment
//! wait for the user, who keeps one. The facts are stored through the library, as the
//! compression worker stores them, into the store the real binary then reads.

use crate::support;

use aletheia::config::Paths;
use aletheia::redact::{Redacted, Redactor};
use aletheia::store::facts::{FactOutcome, NewFact};
use aletheia::store::{OpenOptions, Store};
use aletheia::time::Clock;
use support::Env;

const DAY: i64 = 86_400_000;
/// 2026-10-29T00:00:00Z: when both facts started to hold.
const T0: i64 = 1_793_232_000_000;

/// Store `shop`'s two disagreeing answers for the cache's ttl, learned a day after they began;
/// returns the two fact ids.
fn tied(env: &Env) -> (i64, i64) {
    let mut store = Store::open(&Paths::within(&env.data()), OpenOptions::INTERACTIVE).unwrap();
    let mut put = |object: &str| {
        let f = NewFact {
            project: "shop".into(),
            subject: "cache".into(),
            predicate: "ttl".into(),
            object: object.into(),
            confidence: 0.8,
            source: "rules".into(),
            memory_id: None,
            valid_from: T0,
            job_id: None,
        };
        store
            .insert_fact(&Redacted::new(f, &Redactor::builtin()), T0 + DAY)
            .unwrap()
    };
    let a = put("30 s");
    let b = put("60 s");
    assert_eq!(b, FactOutcome::Tied { id: 2, review: 1 });
    (a.id(), b.id())
}

/// Run the binary in UTC; returns (exit code, stdout, stderr).
fn run(env: &Env, args: &[&str]) -> (i32, String, String) {
    let out = env.cmd().env("TZ", "UTC").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn ok(env: &Env, args: &[&str]) -> String {
    let (code, out, err) = run(env, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

const LISTED: &str = "\
Review #1 (shop, since 2026-10-30): two facts disagree about cache ttl:
- fact #1: cache ttl 30 s (confidence 0.70, since 2026-10-29)
- fact #2: cache ttl 60 s (confidence 0.70, since 2026-10-29)
Keep one with: aletheia review accept FACT_ID (or reject FACT_ID).
";

#[test]
fn accepting_one_fact_closes_the_other_and_empties_the_queue() {
    let env = Env::new();
    tied(&env);
    assert_eq!(ok(&env, &["review", "list"]), LISTED);
    assert_eq!(ok(&env, &["review", "list", "--project", "shop"]), LISTED);
    assert_eq!(
        ok(&env, &["review", "list", "--project", "billing"]),
        "Nothing waits for review.\n"
    );

    let before = Clock::utc(aletheia::time::now_ms()).date(aletheia::time::now_ms());
    assert_eq!(
        ok(&env, &["review", "accept", "2"]),
        "Kept fact #2; closed fact #1, which stays as history.\n"
    );
    let after = Clock::utc(aletheia::time::now_ms()).date(aletheia::time::now_ms());

    let history = ok(&env, &["facts", "cache", "--include-superseded"]);
    let replaced = |day: &str| {
        format!(
            "- #1 cache ttl 30 s (confidence 0.70, since 2026-10-29, until 2026-10-29, replaced {day}) [shop]\n\
             - #2 cache ttl 60 s (confidence 0.80, since 2026-10-29) [shop]\n"
        )
    };
    assert!(
        history == replaced(&before) || history == replaced(&after),
        "{history}"
    );
    assert_eq!(
        ok(&env, &["facts", "cache"]),
        "- #2 cache ttl 60 s (confidence 0.80, since 2026-10-29) [shop]\n"
    );
    assert_eq!(ok(&env, &["review", "list"]), "Nothing waits for review.\n");
}

#[test]
fn rejecting_one_fact_dismisses_it_and_keeps_the_other_current() {
    let env = Env::new();
    tied(&env);
    let json = ok(&env, &["review", "reject", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v,
        serde_json::json!({ "dismissed": 1, "kept": [2], "reviews": [1] })
    );
    assert_eq!(
        ok(&env, &["facts", "cache", "--include-superseded"]),
        "- #2 cache ttl 60 s (confidence 0.80, since 2026-10-29) [shop]\n"
    );
    assert_eq!(
        ok(&env, &["review", "list", "--json"]),
        "{\"proposals\":[],\"facts\":[]}\n"
    );
    let audit: Vec<(String, String)> = {
        let conn = env.conn();
        let mut stmt = conn.prepare("SELECT action, item_id FROM audit").unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(audit, vec![("review_reject".to_owned(), "1".to_owned())]);
}

#[test]
fn a_fact_not_under_review_is_refused_with_what_to_do() {
    let env = Env::new();
    tied(&env);
    ok(&env, &["review", "accept", "1"]);
    for args in [
        ["review", "accept", "1"],
        ["review", "reject", "2"],
        ["review", "accept", "99"],
    ] {
        let (code, out, err) = run(&env, &args);
        assert_ne!(code, 0, "{args:?}");
        assert_eq!(out, "");
        let id = args[2];
        assert_eq!(
            err,
            format!(
                "aletheia: Fact #{id} is not waiting for review; run `aletheia review list` to see those that are.\n"
            ),
            "{args:?}"
        );
    }
}

#[test]
fn the_review_list_as_json_holds_both_facts() {
    let env = Env::new();
    tied(&env);
    let v: serde_json::Value =
        serde_json::from_str(&ok(&env, &["review", "list", "--json"])).unwrap();
    let review = &v["facts"][0];
    assert_eq!(review["id"], 1);
    assert_eq!(review["project"], "shop");
    assert_eq!(review["created_at"], T0 + DAY);
    let facts = review["facts"].as_array().unwrap();
    assert_eq!(facts.len(), 2);
    assert_eq!(facts[0]["object"], "30 s");
    assert_eq!(facts[1]["recorded_at"], T0 + DAY);
    assert_eq!(facts[1]["superseded_at"], serde_json::Value::Null);
}
