//! Many hook processes at once (parallel panes, parallel tool calls): nothing lost, nothing doubled.

use crate::support;

use support::{Env, prompt_payload};

#[test]
fn eight_processes_of_200_events_store_all_1600_exactly_once() {
    let env = std::sync::Arc::new(Env::new());
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        prompt_payload("create the store first"),
    );
    let workers: Vec<_> = (0..8)
        .map(|w| {
            let env = env.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    env.hook(
                        "claude-code",
                        "UserPromptSubmit",
                        prompt_payload(&format!("worker {w} event {i}")),
                    );
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    // One more run drains whatever was spooled under contention.
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("drain"));
    let c = env.conn();
    let total: i64 = c
        .query_row(
            "SELECT count(*) FROM memories WHERE title LIKE 'worker %'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let distinct: i64 = c
        .query_row(
            "SELECT count(DISTINCT title) FROM memories WHERE title LIKE 'worker %'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!((total, distinct), (1600, 1600));
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    assert_eq!(env.spool_lines(), 0);
}
