//! `aletheia sync` between machines and a hub, as a person runs it: the real binary for each
//! machine (each with its own data folder) and for the hub on a loopback port. Both
//! directions, a repeat that doubles nothing, a sync killed mid-push and mid-pull that
//! resumes, a dismissal that sticks, a list changed on two machines, the hub's own redaction,
//! project identity by git remote, and what a token may sync.

#![cfg(feature = "server")]

use crate::hub_engines::{Engine, On, both};
use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Child;
use support::Env;

struct Hub {
    env: Env,
    store: Engine,
    child: Child,
    url: String,
}

impl Hub {
    fn start(on: On, extra_env: &[(&str, &str)]) -> Hub {
        let env = Env::new();
        std::fs::create_dir_all(env.data()).unwrap();
        let store = Engine::fresh(on, &env.data());
        let mut cmd = env.std_cmd();
        cmd.env("ALETHEIA_HUB_RATE", "100000");
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        cmd.args(["hub", "--port", "0"]).args(store.args());
        let (child, port, _first, lines) = support::start_server(cmd);
        std::thread::spawn(move || for _ in lines {});
        Hub {
            env,
            store,
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    fn token(&self, scope: &str, projects: Option<&str>) -> String {
        let mut args = vec!["--json", "mcp-link", "create", "--scope", scope];
        if let Some(p) = projects {
            args.extend(["--projects", p]);
        }
        let out = self
            .env
            .std_cmd()
            .args(&args)
            .args(self.store.args())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["token"].as_str().unwrap().to_owned()
    }
}

impl Hub {
    /// Memories on the hub.
    fn memories(&self) -> i64 {
        self.store.count("SELECT count(*) FROM memories")
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One machine: its own data folder, a working directory, and the hub it syncs with.
struct Machine {
    env: Env,
    cwd: PathBuf,
}

impl Machine {
    fn new(hub: &Hub, token: &str) -> Machine {
        let m = Machine {
            env: Env::new(),
            cwd: PathBuf::from("/home/dev/shop"),
        };
        m.ok(&["sync", "setup", "--hub", &hub.url, "--token", token]);
        m
    }

    fn cmd(&self) -> std::process::Command {
        let mut c = self.env.std_cmd();
        c.env("ALETHEIA_CWD", &self.cwd);
        c
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend(args);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    fn sync(&self) -> Value {
        self.json(&["sync"])
    }

    fn save(&self, text: &str) {
        self.ok(&["save", text]);
    }

    fn id_of(&self, text: &str) -> i64 {
        self.env
            .conn()
            .query_row("SELECT id FROM memories WHERE text = ?1", [text], |r| {
                r.get(0)
            })
            .unwrap()
    }

    /// (uid, project, text, pinned, dismissed) of every memory but work-list ones, by uid.
    fn content(&self) -> Vec<(String, String, String, bool, bool)> {
        let c = self.env.conn();
        let mut s = c
            .prepare(
                "SELECT uid, project, text, pinned, dismissed FROM memories
                 WHERE id NOT IN (SELECT memory_id FROM work_lists) ORDER BY uid",
            )
            .unwrap();
        s.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    }

    /// Texts and flags only: two machines may know one project by two names.
    fn texts(&self) -> Vec<(String, String, bool, bool)> {
        self.content()
            .into_iter()
            .map(|(uid, _, t, p, d)| (uid, t, p, d))
            .collect()
    }
}

fn stored(v: &Value) -> i64 {
    v["pulled"]["stored"].as_i64().unwrap()
}

fn two_machines_sync_both_ways_and_a_second_round_changes_nothing(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let (a, b) = (Machine::new(&hub, &token), Machine::new(&hub, &token));
    for i in 0..3 {
        a.save(&format!("laptop note {i} about the billing retries"));
    }
    for i in 0..2 {
        b.save(&format!("desktop note {i} about the deploy script"));
    }
    assert_eq!(a.sync()["pushed_memories"], 3);
    let rb = b.sync();
    assert_eq!((rb["pushed_memories"].as_i64(), stored(&rb)), (Some(2), 3));
    assert_eq!(stored(&a.sync()), 2);
    assert_eq!(a.content(), b.content());
    assert_eq!(a.content().len(), 5);
    // Again, both ways: nothing travels, nothing doubles.
    for m in [&a, &b, &a] {
        let r = m.sync();
        assert_eq!(
            (
                r["pushed_memories"].as_i64(),
                r["pushed_changes"].as_i64(),
                stored(&r)
            ),
            (Some(0), Some(0), 0),
            "{r}"
        );
    }
    assert_eq!(a.content(), b.content());
    let on_hub = hub.store.count("SELECT count(*) FROM memories");
    assert_eq!(on_hub, 5);
    // What B found is searchable there.
    assert!(
        b.ok(&["search", "billing retries"])
            .contains("laptop note 2")
    );
    // An edit travels; the text it replaced stays a version only where the edit was made (a
    // pulled text may be another machine's scrub of a secret).
    let id = a.id_of("laptop note 0 about the billing retries");
    a.ok(&[
        "edit",
        &id.to_string(),
        "laptop note 0: the billing retries back off",
    ]);
    a.sync();
    b.sync();
    let on_b = b.id_of("laptop note 0: the billing retries back off");
    let versions = |m: &Machine, id: i64| {
        m.json(&["inspect", &id.to_string()])["versions"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!((versions(&a, id), versions(&b, on_b)), (2, 1));
    assert_eq!(a.content(), b.content());
    let status = b.json(&["sync", "status"]);
    assert_eq!(status["memories_to_push"], 0);
    assert!(
        status["last_sync"].as_str().unwrap().contains("ok"),
        "{status}"
    );
}

/// Wait until `f` holds, or fail after ten seconds.
fn wait_for(what: &str, f: impl Fn() -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !f() {
        assert!(
            std::time::Instant::now() < until,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn count(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .and_then(|c| c.query_row("SELECT count(*) FROM memories", [], |r| r.get(0)))
        .unwrap_or(0)
}

fn a_sync_killed_mid_push_and_mid_pull_resumes_and_ends_with_the_same_content(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let (a, b) = (Machine::new(&hub, &token), Machine::new(&hub, &token));
    let lines: String = (0..60)
        .map(|i| format!("{{\"project\":\"shop\",\"kind\":\"note\",\"title\":\"n{i}\",\"text\":\"imported note {i} on the cache layer\",\"tool\":\"cli\",\"created_at\":{}}}\n", 1_700_000_000_000_i64 + i))
        .collect();
    let mut import = a
        .cmd()
        .args(["import", "-"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(import.stdin.as_mut().unwrap(), lines.as_bytes()).unwrap();
    drop(import.stdin.take());
    assert!(import.wait().unwrap().success());
    assert_eq!(a.content().len(), 60);

    // Five memories a batch, a pause after each (the debug build's stall): killed after some.
    let slow = |m: &Machine| {
        let mut c = m.cmd();
        c.args(["sync"])
            .env("ALETHEIA_SYNC_BATCH", "5")
            .env("ALETHEIA_TEST_STALL", "sync-batch:150");
        c.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c.spawn().unwrap()
    };
    let mut push = slow(&a);
    wait_for("a few batches on the hub", || hub.memories() >= 15);
    push.kill().unwrap();
    push.wait().unwrap();
    let partial = hub.memories();
    assert!(
        (15..60).contains(&partial),
        "killed mid-push: {partial} on the hub"
    );
    let resumed = a.sync();
    // The resume sends what the hub lacks, and again the one batch the hub may have taken
    // just before the kill, whose answer the killed process never recorded: harmless.
    let resent = resumed["pushed_memories"].as_i64().unwrap() + partial - 60;
    assert!((0..=5).contains(&resent), "{resumed} after {partial}");
    assert_eq!(hub.memories(), 60);

    let mut pull = slow(&b);
    wait_for("a few batches pulled", || count(&b.env.db()) >= 15);
    pull.kill().unwrap();
    pull.wait().unwrap();
    let partial = count(&b.env.db());
    assert!(
        (15..60).contains(&partial),
        "killed mid-pull: {partial} here"
    );
    b.sync();
    assert_eq!(a.content(), b.content());
    assert_eq!(b.content().len(), 60);
    assert_eq!(hub.memories(), 60);
}

fn a_dismissal_sticks_against_a_stale_copy_and_a_concurrent_edit(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let (a, b) = (Machine::new(&hub, &token), Machine::new(&hub, &token));
    a.save("the staging database is at db-staging-2");
    a.save("use pnpm, not npm, in the web folder");
    a.sync();
    b.sync();
    // A dismisses one; B, not yet knowing, pins it a moment later (the later revision).
    a.ok(&[
        "dismiss",
        &a.id_of("the staging database is at db-staging-2")
            .to_string(),
    ]);
    std::thread::sleep(std::time::Duration::from_millis(5));
    // (Pinning is the dashboard's and REST's; the same update on B's file.)
    b.env
        .conn()
        .execute(
            "UPDATE memories SET pinned = 1 WHERE id = ?1",
            [b.id_of("the staging database is at db-staging-2")],
        )
        .unwrap();
    a.sync();
    let r = b.sync();
    assert_eq!(r["conflicts"], 1, "{r}");
    a.sync();
    for m in [&a, &b] {
        let staging = m
            .content()
            .into_iter()
            .find(|c| c.2.contains("db-staging-2"))
            .unwrap();
        assert!(staging.4, "dismissed everywhere: {staging:?}");
        assert!(staging.3, "and the later edit's pin kept: {staging:?}");
        assert!(
            !m.ok(&["search", "staging database"])
                .contains("db-staging-2")
        );
    }
    // Rounds more bring nothing back.
    b.sync();
    a.sync();
    assert_eq!(a.texts(), b.texts());
    assert!(
        a.texts()
            .iter()
            .any(|t| t.1.contains("db-staging-2") && t.3)
    );
}

fn a_list_changed_on_two_machines_ends_the_same_and_the_loser_is_listed(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let (a, b) = (Machine::new(&hub, &token), Machine::new(&hub, &token));
    let write = |m: &Machine, items: &str| {
        let mut c = m.cmd();
        c.args(["list", "write", "todo"])
            .stdin(std::process::Stdio::piped());
        c.stdout(std::process::Stdio::null());
        let mut child = c.spawn().unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), items.as_bytes()).unwrap();
        drop(child.stdin.take());
        assert!(child.wait().unwrap().success());
    };
    write(&a, r#"["ship the fix"]"#);
    a.sync();
    b.sync();
    assert!(b.ok(&["list", "read", "todo"]).contains("ship the fix"));
    write(&a, r#"["from the laptop"]"#);
    std::thread::sleep(std::time::Duration::from_millis(5));
    write(&b, r#"["from the desktop"]"#);
    a.sync();
    assert_eq!(b.sync()["conflicts"], 1);
    a.sync();
    let (la, lb) = (
        a.ok(&["list", "read", "todo"]),
        b.ok(&["list", "read", "todo"]),
    );
    assert_eq!(la, lb);
    assert!(
        la.contains("from the desktop"),
        "the later write wins: {la}"
    );
    let conflicts = a.json(&["sync", "conflicts"]);
    let rows = conflicts.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{conflicts}");
    assert_eq!(rows[0]["kind"], "list");
    assert_eq!(rows[0]["loser"]["items"][0], "from the laptop");
    // Nothing more to settle.
    assert_eq!(a.sync()["conflicts"], 0);
    assert_eq!(b.sync()["conflicts"], 0);
}

fn the_hub_redacts_with_its_own_rules_what_a_machine_sends(on: On) {
    let rules = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        rules.path(),
        "[[rules]]\nid = \"acme-ticket-key\"\nregex = '''ACMEKEY-[0-9]{8}'''\nkeywords = [\"acmekey\"]\n",
    )
    .unwrap();
    let hub = Hub::start(
        on,
        &[("ALETHEIA_REDACT_RULES", rules.path().to_str().unwrap())],
    );
    let token = hub.token("sync", None);
    let (a, b) = (Machine::new(&hub, &token), Machine::new(&hub, &token));
    a.save("the vendor key is ACMEKEY-12345678 for now");
    a.sync();
    b.sync();
    let texts = hub.store.texts("SELECT text FROM memories");
    assert!(
        texts.iter().all(|t| !t.contains("ACMEKEY-12345678")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("[redacted:acme-ticket-key]")),
        "{texts:?}"
    );
    for dir in [hub.env.data(), hub.store.files()] {
        assert!(support::files_holding(&dir, b"ACMEKEY-12345678").is_empty());
    }
    let on_b = b.texts();
    assert!(
        on_b.iter().all(|t| !t.1.contains("ACMEKEY-12345678")),
        "{on_b:?}"
    );
}

/// A checkout at `dir` whose origin is `remote`.
fn checkout(dir: &Path, remote: &str) {
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(
        dir.join(".git/config"),
        format!(
            "[remote \"origin\"]\n\turl = {remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        ),
    )
    .unwrap();
}

fn one_repository_in_two_folders_is_one_project_and_two_repositories_with_one_name_are_two(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let code = tempfile::tempdir().unwrap();
    let here = |sub: &str, remote: &str| {
        let dir = code.path().join(sub);
        checkout(&dir, remote);
        dir
    };
    let mut a = Machine {
        env: Env::new(),
        cwd: here("a/shop-main", "git@github.com:acme/shop.git"),
    };
    let mut b = Machine {
        env: Env::new(),
        cwd: here("b/shop", "https://github.com/Acme/shop"),
    };
    let mut c = Machine {
        env: Env::new(),
        cwd: here("c/shop", "git@gitlab.com:someone-else/shop.git"),
    };
    for m in [&mut a, &mut b, &mut c] {
        m.ok(&["sync", "setup", "--hub", &hub.url, "--token", &token]);
    }
    a.save("acme shop: the checkout page caches prices");
    b.save("acme shop: the cart uses redis");
    c.save("the other shop: a hobby project");
    for m in [&a, &b, &c, &a, &b] {
        m.sync();
    }
    let project_of = |m: &Machine, text: &str| {
        m.content()
            .into_iter()
            .find(|x| x.2.contains(text))
            .unwrap()
            .1
    };
    // On B, A's memory is in B's own project, beside B's.
    assert_eq!(project_of(&b, "checkout page"), "shop");
    assert_eq!(project_of(&b, "cart uses redis"), "shop");
    // On A, B's is in A's.
    assert_eq!(project_of(&a, "cart uses redis"), "shop-main");
    // C's repository shares the folder name only: kept apart everywhere.
    assert_ne!(project_of(&b, "hobby project"), "shop");
    assert_ne!(project_of(&a, "hobby project"), "shop-main");
    assert_eq!(project_of(&c, "hobby project"), "shop");
    assert_ne!(project_of(&c, "cart uses redis"), "shop");
    let hub_projects = hub
        .store
        .texts("SELECT DISTINCT project FROM memories ORDER BY project");
    assert_eq!(hub_projects.len(), 2, "{hub_projects:?}");
    let status = b.json(&["sync", "status"]);
    assert!(
        status["projects"]
            .to_string()
            .contains("github.com/acme/shop"),
        "{status}"
    );
}

fn a_token_syncs_only_its_projects_and_a_read_token_not_at_all(on: On) {
    let hub = Hub::start(on, &[]);
    let shop_only = hub.token("sync", Some("shop"));
    let a = Machine::new(&hub, &hub.token("sync", None));
    a.save("shop: the price job runs hourly");
    a.ok(&[
        "save",
        "--project",
        "billing",
        "billing: invoices close on the 1st",
    ]);
    a.sync();
    let b = Machine::new(&hub, &shop_only);
    b.ok(&[
        "save",
        "--project",
        "billing",
        "billing from b: must stay here",
    ]);
    let r = b.sync();
    assert_eq!(r["refused"], 1, "{r}");
    // A's history names billing's items too: a token limited to projects pulls none of it,
    // while its own machine's history still reaches the hub.
    assert_eq!(
        (
            r["history_pulled"].as_i64(),
            r["history_pushed"].as_i64() > Some(0)
        ),
        (Some(0), true),
        "{r}"
    );
    let texts: Vec<String> = b.texts().into_iter().map(|t| t.1).collect();
    assert!(texts.iter().any(|t| t.contains("price job")), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("invoices close")),
        "{texts:?}"
    );
    assert_eq!(
        hub.store
            .count("SELECT count(*) FROM memories WHERE text LIKE '%must stay here%'"),
        0
    );

    let reader = Machine::new(&hub, &hub.token("read", None));
    let out = reader.cmd().args(["sync"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot sync") && err.contains("--scope sync"),
        "{err}"
    );
}

fn a_session_start_ties_its_project_to_the_git_remote_once_the_store_syncs(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let code = tempfile::tempdir().unwrap();
    let dir = code.path().join("storefront");
    checkout(&dir, "git@github.com:acme/storefront.git");
    let start = |m: &Machine| {
        let payload = serde_json::json!({
            "session_id": "s1", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"
        });
        m.env
            .hook("claude-code", "SessionStart", payload.to_string());
    };
    // A store that does not sync is left as it was.
    let plain = Machine {
        env: Env::new(),
        cwd: PathBuf::from("/home/dev/elsewhere"),
    };
    plain.save("a note, so there is a store");
    start(&plain);
    let tables: i64 = plain
        .env
        .conn()
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'sync_%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0);
    let mut m = Machine::new(&hub, &token);
    m.cwd = PathBuf::from("/home/dev/elsewhere");
    start(&m);
    let status = m.json(&["sync", "status"]);
    assert_eq!(
        status["projects"],
        serde_json::json!([["storefront", "github.com/acme/storefront"]]),
        "{status}"
    );
}

fn the_server_syncs_on_its_own_once_set_up(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let m = Machine::new(&hub, &token);
    m.save("the server pushes this one by itself");
    let mut cmd = m.cmd();
    cmd.args(["server", "--port", "0"])
        .env("ALETHEIA_SYNC_INTERVAL", "1");
    let (mut child, _port, _first, lines) = support::start_server(cmd);
    std::thread::spawn(move || for _ in lines {});
    wait_for("the server's first sync", || hub.memories() == 1);
    m.save("and this one on its next round");
    wait_for("the server's next sync", || hub.memories() == 2);
    // The round that pushed it goes on (it pulls, then the histories travel) before it records
    // how it ended: the server is stopped only once it has.
    let ended_ok = || {
        m.json(&["sync", "status"])["last_sync"]
            .as_str()
            .is_some_and(|l| l.contains(" ok: "))
    };
    wait_for("the server's sync to record how it ended", ended_ok);
    let _ = child.kill();
    let _ = child.wait();
    assert!(ended_ok());
}

both!(
    two_machines_sync_both_ways_and_a_second_round_changes_nothing,
    a_sync_killed_mid_push_and_mid_pull_resumes_and_ends_with_the_same_content,
    a_dismissal_sticks_against_a_stale_copy_and_a_concurrent_edit,
    a_list_changed_on_two_machines_ends_the_same_and_the_loser_is_listed,
    one_repository_in_two_folders_is_one_project_and_two_repositories_with_one_name_are_two,
    a_token_syncs_only_its_projects_and_a_read_token_not_at_all,
    a_session_start_ties_its_project_to_the_git_remote_once_the_store_syncs,
    the_server_syncs_on_its_own_once_set_up,
    the_hub_redacts_with_its_own_rules_what_a_machine_sends,
    histories_travel_with_sync_and_every_side_checks_them,
);

impl Hub {
    /// A second hub process on this hub's store, as a load balancer would have behind it.
    fn beside(&self) -> Hub {
        let env = Env::new();
        std::fs::create_dir_all(env.data()).unwrap();
        let mut cmd = env.std_cmd();
        cmd.env("ALETHEIA_HUB_RATE", "100000");
        cmd.args(["hub", "--port", "0"]).args(self.store.args());
        let (child, port, _first, lines) = support::start_server(cmd);
        std::thread::spawn(move || for _ in lines {});
        Hub {
            env,
            store: self.store.clone(),
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Machine {
    /// Store `n` notes of its own through `aletheia import`.
    fn import_notes(&self, tag: &str, n: usize) {
        let lines: String = (0..n)
            .map(|i| format!("{{\"project\":\"shop\",\"kind\":\"note\",\"title\":\"{tag} {i}\",\"text\":\"note {i} from machine {tag}\",\"tool\":\"cli\",\"created_at\":{}}}\n", 1_700_000_000_000_i64 + i as i64))
            .collect();
        let mut import = self
            .cmd()
            .args(["import", "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(import.stdin.as_mut().unwrap(), lines.as_bytes()).unwrap();
        drop(import.stdin.take());
        assert!(import.wait().unwrap().success());
    }
}

impl Machine {
    /// `aletheia verify` here: (entries checked, the first break).
    fn verify(&self) -> (i64, Option<String>) {
        let v = self.json(&["verify"]);
        (
            v["entries"].as_i64().unwrap(),
            v["broken"].as_str().map(str::to_owned),
        )
    }

    /// This store's sync machine id.
    fn sync_id(&self) -> String {
        self.json(&["sync", "status"])["machine"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

impl Hub {
    /// `aletheia hub keys` on the hub's store, with `extra` arguments.
    fn keys(&self, extra: &[&str]) -> std::process::Output {
        self.env
            .std_cmd()
            .args(["--json", "hub", "keys"])
            .args(extra)
            .args(self.store.args())
            .output()
            .unwrap()
    }
}

fn histories_travel_with_sync_and_every_side_checks_them(on: On) {
    let hub = Hub::start(on, &[]);
    let token = hub.token("sync", None);
    let (a, b) = (Machine::new(&hub, &token), Machine::new(&hub, &token));
    a.save("the billing retries back off for ten minutes");
    a.save("the deploy script needs the staging flag");
    let (a_entries, _) = a.verify();
    let ra = a.sync();
    assert_eq!(ra["history_pushed"].as_i64(), Some(a_entries), "{ra}");
    assert_eq!(
        hub.store
            .count("SELECT count(*) FROM history WHERE arrival IS NOT NULL"),
        a_entries
    );
    // The hub pinned A's key to A's sync machine on first sight.
    let keys: Value = serde_json::from_slice(&hub.keys(&[]).stdout).unwrap();
    assert_eq!(
        keys[0]["pin"]["sync_machine"].as_str(),
        Some(a.sync_id().as_str())
    );
    assert_eq!(keys[0]["entries"].as_i64(), Some(a_entries));
    // B takes A's chain, checks it, and its own `verify` checks it again with A's pinned key.
    let rb = b.sync();
    assert_eq!(rb["history_pulled"].as_i64(), Some(a_entries), "{rb}");
    assert_eq!(rb["history_warnings"], serde_json::json!([]));
    let (b_entries, broken) = b.verify();
    assert_eq!(broken, None);
    assert!(b_entries > a_entries, "B's own writes and A's: {b_entries}");
    // Nothing travels twice.
    assert_eq!(a.sync()["history_pushed"].as_i64(), Some(0));
    assert_eq!(b.sync()["history_pulled"].as_i64(), Some(0));

    // Someone with the hub's database password alters the signature on one of A's entries:
    // a machine pulling it names the entry and keeps none of A's, and says so at every sync
    // until the hub's copy is repaired.
    let a_machine = a.json(&["verify"])["machine"].as_str().unwrap().to_owned();
    let entry_two = format!("WHERE seq = 2 AND machine = '{a_machine}'");
    let signature = hub
        .store
        .texts(&format!("SELECT signature FROM history {entry_two}"))[0]
        .clone();
    hub.store.execute(&format!(
        "UPDATE history SET signature = '{}' {entry_two}",
        "ab".repeat(64)
    ));
    let c = Machine::new(&hub, &token);
    let rc = c.sync();
    let warnings = rc["history_warnings"].to_string();
    assert!(
        warnings.contains("entry 2 of machine") && warnings.contains("its signature is not"),
        "{rc}"
    );
    assert_eq!(c.verify().1, None, "nothing unchecked was kept");
    a.save("the invoice job runs at midnight");
    a.sync();
    let text = c.ok(&["sync"]);
    assert!(
        text.contains("warning: not kept from the hub") && text.contains("its signature is not"),
        "{text}"
    );
    hub.store.execute(&format!(
        "UPDATE history SET signature = '{signature}' {entry_two}"
    ));
    let rc = c.sync();
    assert_eq!(rc["history_warnings"], serde_json::json!([]), "{rc}");
    assert!(rc["history_pulled"].as_i64().unwrap() > a_entries, "{rc}");
    let (c_entries, broken) = c.verify();
    assert_eq!(broken, None);
    assert!(c_entries > a_entries);

    // A's key file is replaced: the hub refuses its history signed with the new key, and the
    // sync (whose items went through) says how to accept it.
    std::fs::remove_file(a.env.data().join("machine.key")).unwrap();
    a.save("the cache keys carry the tenant id");
    let ra = a.sync();
    let forget = format!("aletheia hub keys --forget {}", a.sync_id());
    let warned = ra["history_warnings"].to_string();
    assert!(
        warned.contains("now signs with key") && warned.contains(&forget),
        "{ra}"
    );
    assert_eq!(ra["pushed_memories"].as_i64(), Some(1), "{ra}");
    let out = hub.keys(&["--forget", &a.sync_id()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ra = a.sync();
    assert!(ra["history_pushed"].as_i64().unwrap() > 0, "{ra}");
    assert_eq!(ra["history_warnings"], serde_json::json!([]), "{ra}");
    // B hears of the new key once, and keeps checking both of A's chains.
    let rb = b.sync();
    assert!(
        rb["history_warnings"]
            .to_string()
            .contains("signs with a new key"),
        "{rb}"
    );
    assert_eq!(b.verify().1, None);
    assert_eq!(b.sync()["history_warnings"], serde_json::json!([]));
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn eight_machines_pushing_at_once_through_two_hubs_on_one_database_end_with_every_row_once() {
    let a = Hub::start(On::Postgres, &[]);
    let b = a.beside();
    let token = a.token("sync", None);
    let machines: Vec<Machine> = (0..8)
        .map(|i| Machine::new(if i % 2 == 0 { &a } else { &b }, &token))
        .collect();
    for (i, m) in machines.iter().enumerate() {
        m.import_notes(&format!("m{i}"), 60);
    }
    // Small batches, so the eight pushes interleave on the two hubs many times over.
    let pushes: Vec<std::process::Child> = machines
        .iter()
        .map(|m| {
            m.cmd()
                .args(["sync"])
                .env("ALETHEIA_SYNC_BATCH", "7")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for p in pushes {
        let out = p.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(a.memories(), 480);
    assert_eq!(
        a.store.count("SELECT count(DISTINCT uid) FROM memories"),
        480
    );
    assert_eq!(
        a.store
            .count("SELECT count(*) FROM sync_revs WHERE kind = 'memory' AND seq IS NOT NULL"),
        480,
        "every memory has its place in the hub's sequence"
    );
    // Pulled in small pages, from either hub, every row arrives once.
    for (i, hub) in [&a, &b].into_iter().enumerate() {
        let fresh = Machine::new(hub, &token);
        let mut c = fresh.cmd();
        c.args(["sync"]).env("ALETHEIA_SYNC_BATCH", "11");
        assert!(c.output().unwrap().status.success());
        let content = fresh.content();
        assert_eq!(content.len(), 480, "pulled through hub {i}");
        let uids: std::collections::HashSet<&String> = content.iter().map(|c| &c.0).collect();
        assert_eq!(uids.len(), 480);
    }
    // And each machine, synced again, holds all of them.
    machines[3].sync();
    assert_eq!(machines[3].content().len(), 480);
    // Every machine's signed history reached the hub whole (the eight, and the two fresh
    // ones' records of what they pulled), and each checks on a machine that pulls them all.
    assert_eq!(
        a.store.count("SELECT count(DISTINCT machine) FROM history"),
        10
    );
    let (checked, broken) = machines[3].verify();
    assert_eq!(broken, None);
    assert!(checked >= 480, "{checked}");
}
