//! Both hubs given the same pushes, edits and pulls, compared; and what only PostgreSQL must
//! hold up to: several hub processes pushing, pulling and editing at once.

use super::super::{PgStore, testing};
use crate::redact::{Redacted, Redactor};
use crate::store::contract::SyncHub;
use crate::store::sync::{Pusher, key_of};
use crate::store::{OpenOptions, Store};
use crate::sync::hlc::{first, rev};
use crate::sync::item::{
    Batch, Change, EpisodeItem, FactItem, Item, ListItem, MemoryItem, RuleItem,
};
use std::collections::HashSet;
use std::sync::{Arc, Barrier};

/// A time before every wall clock the tests run at: the hub's own edits, stamped at the
/// wall clock, come after every pushed revision.
const BASE: i64 = 1_700_000_000_000;
/// The hub's clock for pushes.
const NOW: i64 = BASE + 1_000_000;

fn redacted<T: crate::redact::Redact>(v: T) -> Redacted<T> {
    Redacted::new(v, &Redactor::builtin())
}

fn all(_: &str) -> bool {
    true
}

fn pusher(token: i64) -> Pusher<'static> {
    Pusher {
        token,
        allowed: &all,
        may_tie: true,
        now: NOW,
    }
}

const SHOP: &str = "github.com/acme/shop";
const PAYROLL: &str = "github.com/acme/payroll";

fn memory(uid: &str, project: &str, text: &str) -> MemoryItem {
    MemoryItem {
        uid: uid.into(),
        project: project.into(),
        kind: "note".into(),
        mtype: "note".into(),
        title: "t".into(),
        text: text.into(),
        tool: "cli".into(),
        session_id: None,
        files: vec![],
        pinned: false,
        dismissed: false,
        created_at: BASE,
    }
}

fn change(rev: String, base: Option<String>, item: Item) -> Change {
    let origin = rev.rsplit('-').next().unwrap_or_default().to_owned();
    Change {
        rev,
        base,
        origin,
        item,
    }
}

fn batch(machine: &str, changes: Vec<Change>) -> Redacted<Batch> {
    redacted(Batch {
        machine: machine.into(),
        projects: [
            (SHOP.to_owned(), "shop".to_owned()),
            (PAYROLL.to_owned(), "payroll".to_owned()),
        ]
        .into(),
        changes,
    })
}

/// One hub of either engine, with a way to edit it as its own MCP tools would.
enum Hub {
    Sqlite(Store),
    Pg(PgStore),
}

impl Hub {
    fn sync(&mut self) -> &mut dyn SyncHub {
        match self {
            Hub::Sqlite(s) => s,
            Hub::Pg(s) => s,
        }
    }

    fn edit(&mut self, sql: &str) {
        match self {
            Hub::Sqlite(s) => s.conn.execute_batch(sql).unwrap(),
            Hub::Pg(s) => s.with(|c| c.batch_execute(sql)).unwrap(),
        }
    }
}

/// `s` with each revision the hub made (its machine id, and for its own edits the wall
/// clock) and each other mention of its id replaced by one word, so that two hubs compare.
fn normalised(s: &str, hub: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(hub) {
        let before = &rest[..i];
        let head = before.len().checked_sub(23).and_then(|h| before.get(h..));
        let is_rev = head.is_some_and(|h| {
            let b = h.as_bytes();
            b[..15].iter().all(u8::is_ascii_digit)
                && b[15] == b'-'
                && b[16..22].iter().all(u8::is_ascii_digit)
                && b[22] == b'-'
        });
        if is_rev {
            out.push_str(&before[..before.len() - 23]);
            out.push_str("<the hub's revision>");
        } else {
            out.push_str(before);
            out.push_str("<the hub>");
        }
        rest = &rest[i + hub.len()..];
    }
    out.push_str(rest);
    out
}

/// Every page a machine pulls from 0, `limit` items at a time.
fn pull_all(
    hub: &mut dyn SyncHub,
    machine: &str,
    limit: usize,
    allowed: &dyn Fn(&str) -> bool,
) -> Vec<(Batch, i64, i64)> {
    let mut pages = Vec::new();
    let mut after = 0;
    loop {
        let page = hub
            .sync_changes_since(after, limit, machine, allowed)
            .unwrap();
        after = page.1;
        let done = page.2 == 0;
        pages.push(page);
        if done {
            return pages;
        }
    }
}

/// The same pushes, edits and pulls on a hub: everything each step answered.
fn script(hub: &mut Hub) -> Vec<String> {
    let me = hub.sync().enable_sync().unwrap();
    let mut log = Vec::new();
    let mut note = |what: &str, v: &dyn std::fmt::Debug| {
        log.push(normalised(&format!("{what}: {v:#?}"), &me));
    };
    let rule = |tier: &str, scope: &str, enabled: bool| RuleItem {
        when: "always".into(),
        then: format!("run the linter ({tier})"),
        scope_tier: tier.into(),
        scope_name: scope.into(),
        source: "cli".into(),
        enabled,
        recheck: None,
        evidence: serde_json::json!({"seen": 2}),
        created_at: BASE,
        confirmed_at: BASE,
    };
    let fact = |uid: &str, object: &str| FactItem {
        uid: uid.into(),
        project: SHOP.into(),
        subject: "db".into(),
        predicate: "is".into(),
        object: object.into(),
        confidence: 0.75,
        source: "rules".into(),
        memory_uid: Some("u1".into()),
        valid_from: BASE,
        valid_to: None,
        superseded_by: None,
        superseded_at: None,
        dismissed: false,
        created_at: BASE,
    };
    let list = |items: serde_json::Value| ListItem {
        project: SHOP.into(),
        name: "todo".into(),
        items,
        updated_at: BASE,
    };
    let episode = |uid: &str| EpisodeItem {
        memory_uid: uid.into(),
        title: "ran tests".into(),
        text: "the whole long output".into(),
        replaced_at: BASE,
        dismissed: false,
    };
    let m1_first = vec![
        change(
            first(BASE + 1, "m1"),
            None,
            Item::Memory(MemoryItem {
                files: vec!["src/deploy.rs".into(), "src/deploy.rs".into()],
                ..memory("u1", SHOP, "deploys go through staging")
            }),
        ),
        change(
            first(BASE + 2, "m1"),
            None,
            Item::Memory(memory("u2", SHOP, "the cache is warm")),
        ),
        change(
            first(BASE + 3, "m1"),
            None,
            Item::Memory(memory("u3", PAYROLL, "salaries on the 25th")),
        ),
        change(rev(BASE + 4, 0, "m1"), None, Item::Episode(episode("u1"))),
        // On a memory the hub does not hold: it has no project, so it is refused.
        change(
            rev(BASE + 5, 0, "m1"),
            None,
            Item::Episode(episode("nobody")),
        ),
        change(
            rev(BASE + 6, 0, "m1"),
            None,
            Item::Fact(fact("fa", "postgres 15")),
        ),
        change(
            rev(BASE + 7, 0, "m1"),
            None,
            Item::Fact(FactItem {
                valid_to: Some(BASE + 1),
                superseded_by: Some("fa".into()),
                superseded_at: Some(BASE + 1),
                memory_uid: None,
                ..fact("fb", "mysql")
            }),
        ),
        change(
            rev(BASE + 8, 0, "m1"),
            None,
            Item::Rule(rule("everywhere", "", true)),
        ),
        change(
            rev(BASE + 9, 0, "m1"),
            None,
            Item::Rule(rule("project", SHOP, true)),
        ),
        change(
            rev(BASE + 10, 0, "m1"),
            None,
            Item::List(list(serde_json::json!(["one"]))),
        ),
        change(
            first(BASE + 11, "m1"),
            None,
            Item::Memory(memory("big", SHOP, &"x".repeat(1_100_000))),
        ),
    ];
    let got = hub
        .sync()
        .sync_receive(&batch("m1", m1_first.clone()), &pusher(1))
        .unwrap();
    note("m1's first push", &got);
    note("a pull", &pull_all(hub.sync(), "m9", 100, &all));

    let m2 = vec![
        // The same text as u2 under another uid: one memory.
        change(
            first(BASE + 20, "m2"),
            None,
            Item::Memory(memory("u4", SHOP, "the cache is warm")),
        ),
        change(
            rev(BASE + 21, 0, "m2"),
            Some(first(BASE + 1, "m1")),
            Item::Memory(memory(
                "u1",
                SHOP,
                "deploys go through staging, then canary",
            )),
        ),
        // Concurrent, and later: m2's list wins.
        change(
            rev(BASE + 22, 0, "m2"),
            None,
            Item::List(list(serde_json::json!(["one", "two"]))),
        ),
        // Concurrent, and older: the hub's rule wins but stays disabled.
        change(
            rev(BASE + 5, 1, "m2"),
            None,
            Item::Rule(rule("everywhere", "", false)),
        ),
        change(
            rev(BASE + 23, 0, "m2"),
            Some(rev(BASE + 6, 0, "m1")),
            Item::Fact(FactItem {
                dismissed: true,
                ..fact("fa", "postgres 15")
            }),
        ),
        // On u4, which is u2 on the hub: refused as on SQLite, which asks for u4's project.
        change(rev(BASE + 24, 0, "m2"), None, Item::Episode(episode("u4"))),
        // Two memories new to the hub with one text in one push, and one of them changed
        // again later in the same push.
        change(
            first(BASE + 25, "m2"),
            None,
            Item::Memory(memory("u7", SHOP, "retries back off")),
        ),
        change(
            first(BASE + 26, "m2"),
            None,
            Item::Memory(memory("u8", SHOP, "retries back off")),
        ),
        change(
            rev(BASE + 27, 0, "m2"),
            Some(first(BASE + 25, "m2")),
            Item::Memory(memory("u7", SHOP, "retries back off, twice")),
        ),
    ];
    let got = hub
        .sync()
        .sync_receive(&batch("m2", m2), &pusher(2))
        .unwrap();
    note("m2's push", &got);
    let got = hub
        .sync()
        .sync_receive(&batch("m1", m1_first), &pusher(1))
        .unwrap();
    note("m1's first push again", &got);

    let scratch = |p: &str| p == "scratch";
    let limited = Pusher {
        token: 3,
        allowed: &scratch,
        may_tie: false,
        now: NOW,
    };
    let m3 = Batch {
        machine: "m3".into(),
        projects: [(PAYROLL.to_owned(), "scratch".to_owned())].into(),
        changes: vec![
            change(
                first(BASE + 30, "m3"),
                None,
                Item::Memory(memory("u3", PAYROLL, "overwritten")),
            ),
            change(
                first(BASE + 31, "m3"),
                None,
                Item::Memory(memory("u5", "scratch", "scratch notes")),
            ),
            change(rev(BASE + 32, 0, "m3"), None, Item::Episode(episode("u3"))),
            change(
                rev(BASE + 33, 0, "m3"),
                None,
                Item::Rule(rule("everywhere", "", true)),
            ),
        ],
    };
    let got = hub.sync().sync_receive(&redacted(m3), &limited).unwrap();
    note("a limited push", &got);
    for (what, machine, token, changes) in [
        ("another token's machine", "m2", 1, vec![]),
        (
            "a revision from the future",
            "m5",
            5,
            vec![change(
                rev(NOW + 3_600_000, 0, "m5"),
                None,
                Item::Memory(memory("u6", SHOP, "soon")),
            )],
        ),
        (
            "another machine's change",
            "m6",
            6,
            vec![change(
                first(BASE, "m1"),
                None,
                Item::Memory(memory("u7", SHOP, "not mine")),
            )],
        ),
        ("no machine", "", 7, vec![]),
    ] {
        let got = hub
            .sync()
            .sync_receive(&batch(machine, changes), &pusher(token))
            .unwrap();
        note(what, &got);
    }

    // The hub's own edits: a pin, and a memory saved through its MCP tools.
    hub.edit(
        "UPDATE memories SET pinned = true WHERE uid = 'u2';
         INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
             VALUES ('h1', 'shop', 'note', 'hub note', 'written on the hub', 'mcp', 1700000000500, 'hh');",
    );
    let got = hub
        .sync()
        .sync_receive(
            &batch(
                "m1",
                vec![change(
                    rev(BASE + 40, 0, "m1"),
                    Some(first(BASE + 2, "m1")),
                    Item::Memory(memory("u2", SHOP, "the cache is cold")),
                )],
            ),
            &pusher(1),
        )
        .unwrap();
    note("a push racing the hub's pin", &got);
    note("m9 pulls 4 at a time", &pull_all(hub.sync(), "m9", 4, &all));
    note("m1 pulls", &pull_all(hub.sync(), "m1", 100, &all));
    note("a limited pull", &pull_all(hub.sync(), "m3", 100, &scratch));
    let shop_only = |p: &str| p == "shop";
    note("a shop pull", &pull_all(hub.sync(), "m3", 100, &shop_only));
    note("conflicts", &hub.sync().sync_conflicts(100).unwrap());
    note("two conflicts", &hub.sync().sync_conflicts(2).unwrap());
    log
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn the_same_pushes_come_to_the_same_on_postgresql_and_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = script(&mut Hub::Sqlite(
        Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap(),
    ));
    let pg = script(&mut Hub::Pg(testing::fresh()));
    assert_eq!(sqlite.len(), pg.len());
    for (s, p) in sqlite.iter().zip(&pg) {
        assert_eq!(p, s);
    }
    // The script reaches what it means to: every outcome of a push, and conflicts kept.
    let all = sqlite.join("\n");
    for seen in [
        "accepted: 9",
        "refused: 1",
        "refused: 3",
        "conflicts: 2",
        "ahead of the hub's clock",
        "another token",
        "<the hub's revision>",
    ] {
        assert!(all.contains(seen), "{seen} missing from\n{all}");
    }
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn a_pull_stops_past_8_mib_as_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let mut sqlite = Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
    let mut pg = testing::fresh();
    let changes: Vec<Change> = (0..12)
        .map(|i| {
            let text = format!("{i} {}", "lorem ipsum ".repeat(75_000));
            change(
                first(BASE + i, "m1"),
                None,
                Item::Memory(memory(&format!("u{i}"), SHOP, &text)),
            )
        })
        .collect();
    let pushed = batch("m1", changes);
    let mut answers = Vec::new();
    for hub in [&mut sqlite as &mut dyn SyncHub, &mut pg] {
        assert_eq!(hub.sync_receive(&pushed, &pusher(1)).unwrap().accepted, 12);
        let (batch, next, left) = hub.sync_changes_since(0, 100, "m2", &all).unwrap();
        answers.push((batch.changes.len(), next, left));
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(
        answers[1],
        (10, 10, 2),
        "each is 900 kB: the tenth passes 8 MiB"
    );
}

/// The (kind, key, rev) of each item `machine` pulls after `after` until nothing is left.
fn drain(
    hub: &mut PgStore,
    machine: &str,
    after: &mut i64,
    limit: usize,
    seen: &mut Vec<(String, String, String)>,
) {
    loop {
        let (batch, next, left) = hub
            .sync_changes_since(*after, limit, machine, &all)
            .unwrap();
        for c in batch.changes {
            seen.push((c.item.kind().to_owned(), key_of(&c.item), c.rev));
        }
        *after = next;
        if left == 0 {
            return;
        }
    }
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn eight_machines_pushing_at_once_are_pulled_whole_and_once() {
    let url = testing::fresh_database();
    drop(PgStore::open(&url).unwrap());
    const MACHINES: i64 = 8;
    const BATCHES: i64 = 4;
    const PER_BATCH: i64 = 25;
    let start = Arc::new(Barrier::new(usize::try_from(MACHINES).unwrap() + 2));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let pushers: Vec<_> = (0..MACHINES)
        .map(|m| {
            let (url, start) = (url.clone(), start.clone());
            std::thread::spawn(move || {
                let mut hub = PgStore::open(&url).unwrap();
                let machine = format!("m{m}");
                start.wait();
                for b in 0..BATCHES {
                    let mut changes: Vec<Change> = (0..PER_BATCH)
                        .map(|i| {
                            let n = b * PER_BATCH + i;
                            let uid = format!("{machine}-{n}");
                            change(
                                first(BASE + n, &machine),
                                None,
                                Item::Memory(memory(&uid, SHOP, &format!("{uid} was here"))),
                            )
                        })
                        .collect();
                    changes.push(change(
                        rev(BASE + 1_000 + b, 0, &machine),
                        None,
                        Item::List(ListItem {
                            project: SHOP.into(),
                            name: format!("{machine} {b}"),
                            items: serde_json::json!([b]),
                            updated_at: BASE,
                        }),
                    ));
                    let got = hub
                        .sync_receive(&batch(&machine, changes), &pusher(m + 1))
                        .unwrap();
                    assert_eq!(
                        got.accepted,
                        usize::try_from(PER_BATCH + 1).unwrap(),
                        "{got:?}"
                    );
                }
            })
        })
        .collect();
    // The hub's own MCP saves meanwhile, each held open a little while another commits,
    // so their ids commit out of order.
    let saver = {
        let (url, start) = (url.clone(), start.clone());
        std::thread::spawn(move || {
            let mut a = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            let mut b = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            let insert = "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                          VALUES ($1, 'shop', 'note', 't', $1, 'mcp', 1700000000000, $1)";
            start.wait();
            for i in 0..20 {
                let mut slow = a.transaction().unwrap();
                slow.execute(insert, &[&format!("hub-slow-{i}")]).unwrap();
                b.execute(insert, &[&format!("hub-fast-{i}")]).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(15));
                slow.commit().unwrap();
            }
        })
    };
    // A machine pulling in small pages all the while.
    let puller = {
        let (url, start, done) = (url.clone(), start.clone(), done.clone());
        std::thread::spawn(move || {
            let mut hub = PgStore::open(&url).unwrap();
            let (mut after, mut seen) = (0, Vec::new());
            start.wait();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                drain(&mut hub, "puller", &mut after, 7, &mut seen);
            }
            drain(&mut hub, "puller", &mut after, 7, &mut seen);
            seen
        })
    };
    for p in pushers {
        p.join().unwrap();
    }
    saver.join().unwrap();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let during = puller.join().unwrap();

    let mut hub = PgStore::open(&url).unwrap();
    let (mut after, mut afterwards) = (0, Vec::new());
    drain(&mut hub, "late", &mut after, 5, &mut afterwards);
    let expected = usize::try_from(MACHINES * BATCHES * (PER_BATCH + 1)).unwrap() + 40;
    let distinct: HashSet<_> = afterwards.iter().cloned().collect();
    assert_eq!(afterwards.len(), expected, "every item, each once");
    assert_eq!(distinct.len(), expected);
    let during_distinct: HashSet<_> = during.iter().cloned().collect();
    assert_eq!(
        during.len(),
        expected,
        "a puller during the pushes missed none and saw none twice"
    );
    assert_eq!(during_distinct, distinct);
    let memories = afterwards.iter().filter(|(k, _, _)| k == "memory").count();
    assert_eq!(
        memories,
        usize::try_from(MACHINES * BATCHES * PER_BATCH).unwrap() + 40
    );
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn a_hub_memory_committed_after_a_later_one_still_travels() {
    let url = testing::fresh_database();
    let mut hub = PgStore::open(&url).unwrap();
    let mut a = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut b = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let insert =
        "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
                  VALUES ($1, 'shop', 'note', 't', $1, 'mcp', 5, $1) RETURNING id";
    let mut open = a.transaction().unwrap();
    let late: i64 = open.query_one(insert, &[&"late"]).unwrap().get(0);
    let early: i64 = b.query_one(insert, &[&"early"]).unwrap().get(0);
    assert!(late < early);
    let uids = |batch: &Batch| -> Vec<String> {
        batch
            .changes
            .iter()
            .map(|c| match &c.item {
                Item::Memory(m) => m.uid.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let (got, next, _) = hub.sync_changes_since(0, 10, "m1", &all).unwrap();
    assert_eq!(uids(&got), ["early"]);
    open.commit().unwrap();
    let (got, next, left) = hub.sync_changes_since(next, 10, "m1", &all).unwrap();
    assert_eq!((uids(&got), left), (vec!["late".to_owned()], 0));
    let (got, _, _) = hub.sync_changes_since(next, 10, "m1", &all).unwrap();
    assert!(got.changes.is_empty());
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn a_hub_edit_committed_while_a_push_waits_is_settled_not_overwritten() {
    let url = testing::fresh_database();
    let mut hub = PgStore::open(&url).unwrap();
    let pushed = first(BASE, "m1");
    let got = hub
        .sync_receive(
            &batch(
                "m1",
                vec![change(
                    pushed.clone(),
                    None,
                    Item::Memory(memory("u1", SHOP, "v1")),
                )],
            ),
            &pusher(1),
        )
        .unwrap();
    assert_eq!(got.accepted, 1);
    // An MCP client dismisses it; before that commits, m1 pushes an edit based on v1.
    let mut mcp = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let mut edit = mcp.transaction().unwrap();
    edit.execute("UPDATE memories SET dismissed = true WHERE uid = 'u1'", &[])
        .unwrap();
    let now = crate::time::now_ms();
    let push = {
        let url = url.clone();
        std::thread::spawn(move || {
            let mut hub = PgStore::open(&url).unwrap();
            let edited = change(
                rev(now + 1_000, 0, "m1"),
                Some(pushed),
                Item::Memory(memory("u1", SHOP, "v2")),
            );
            let p = Pusher {
                now: now + 2_000,
                ..pusher(1)
            };
            hub.sync_receive(&batch("m1", vec![edited]), &p).unwrap()
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!push.is_finished(), "the push waits for the edit's row");
    edit.commit().unwrap();
    let got = push.join().unwrap();
    assert_eq!((got.accepted, got.conflicts), (0, 1), "{got:?}");
    let Some(Item::Memory(now_held)) = got.current.changes.first().map(|c| &c.item) else {
        panic!("{got:?}")
    };
    assert_eq!((now_held.text.as_str(), now_held.dismissed), ("v2", true));
    let (dismissed, text): (bool, String) = {
        let r = mcp
            .query_one("SELECT dismissed, text FROM memories WHERE uid = 'u1'", &[])
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(
        (dismissed, text.as_str()),
        (true, "v2"),
        "the later text, still dismissed"
    );
}
