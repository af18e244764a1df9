//! The operations layer's promises, checked through the library on a real SQLite file.
//!
//! Every front end (the CLI, `aletheia mcp`, and the team hub to come) dispatches through
//! `aletheia::ops::OPERATIONS`, so the rules that keep a caller in its lane live there once.
//! This file holds them to it:
//!
//! 1. Permissions, for every operation in the registry: a read-only caller may call exactly the
//!    read operations, a caller limited to one project never reaches another project's data,
//!    and a refused call leaves the store as it was. The table of arguments has a row for every
//!    registered operation (the test fails when one is missing), so a new operation cannot slip
//!    past; the team hub is meant to reuse it.
//! 2. The redaction gate for every stored type (rules, work-state lists, facts, audit reasons,
//!    memories saved and imported): a planted secret never reaches a byte of the store's files,
//!    and the read operations return the marker in its place.
//! 3. The one-line messages `ops::args::parse` gives for JSON of the wrong type.

use aletheia::config::Paths;
use aletheia::model::{Kind, MemoryType, NewMemory};
use aletheia::ops::args::parse;
use aletheia::ops::memories::SaveMemory;
use aletheia::ops::recall::{GetObservations, Search};
use aletheia::ops::trust::Standing;
use aletheia::ops::{Access, Caller, Context, Entry, OPERATIONS, OpError, Operation};
use aletheia::redact::{Redacted, Redactor};
use aletheia::spool::{self, SpoolLine};
use aletheia::store::facts::NewFact;
use aletheia::store::inbox::NewProposal;
use aletheia::store::{OpenOptions, Store};
use aletheia::time::Clock;
use rstest::rstest;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// 2026-07-25T16:26:40Z: a fixed instant, so every run stores the same times.
const T0: i64 = 1_785_000_000_000;

// ---------------------------------------------------------------------------------------------
// A store in a temporary data directory, and the callers that use it.
// ---------------------------------------------------------------------------------------------

/// A store in its own data directory, with everything an operation's context needs.
struct Home {
    dir: tempfile::TempDir,
    paths: Paths,
    store: Store,
    redactor: Redactor,
    /// The clock moves a second per call, so a change that only rewrites a timestamp (as
    /// confirm_rule does) still shows in the store's fingerprint.
    now: i64,
}

impl Home {
    /// A connection of its own to the store's file, for set-up and for reading rows back.
    fn conn(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(&self.paths.db).unwrap()
    }

    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        // The fallback spool inside the temporary directory too, so a drain never looks at
        // the real one in $TMPDIR.
        let paths = Paths::within(dir.path());
        // Each project's folder, as the command line would run in it (for `drift`).
        for p in ["shop", "billing"] {
            std::fs::create_dir_all(dir.path().join("work").join(p)).unwrap();
        }
        let store = Store::open_path(&paths.db, OpenOptions::INTERACTIVE).unwrap();
        Home {
            dir,
            paths,
            store,
            redactor: Redactor::builtin(),
            now: T0,
        }
    }

    /// Call `entry` as `caller` with JSON arguments, as a front end that dispatches by name does:
    /// a connected client's write as an MCP tool, through its trust level (the tool's text
    /// standing for the result), everything else through the registry.
    fn call(&mut self, caller: &Caller, entry: &dyn Entry, args: Value) -> Result<Value, OpError> {
        self.now += 1000;
        // The worker as `aletheia compress` runs it, with the rule extractor.
        let extraction = aletheia::compress::Extraction::rules();
        // The front end runs in the folder of the project the call names (else the default's).
        let project = args["project"].as_str().unwrap_or("shop");
        let root = self.dir.path().join("work").join(project);
        let mut ctx = Context {
            store: &mut self.store,
            redactor: &self.redactor,
            clock: Clock::utc(self.now),
            caller: caller.clone(),
            paths: Some(&self.paths),
            extraction: Some(&extraction),
            root: Some(&root),
            semantic: None,
        };
        if is_client(caller)
            && entry.access() != Access::Read
            && let Some(tool) = aletheia::mcp::tools::find(entry.name())
        {
            return tool.call(&mut ctx, object(args)).map(Value::String);
        }
        entry.call_json(&mut ctx, object(args))
    }

    /// Call the operation named `name`, which must succeed.
    fn ok(&mut self, caller: &Caller, name: &str, args: Value) -> Value {
        let entry = aletheia::ops::find(name).unwrap_or_else(|| panic!("no operation {name}"));
        self.call(caller, entry, args)
            .unwrap_or_else(|e| panic!("{name} failed: {e:?}"))
    }

    /// Every row of every table (except the full-text index, which follows `memories`), so that
    /// any change a call makes shows as a difference. Cheap: the stores here hold a dozen rows.
    fn fingerprint(&self) -> BTreeMap<String, Vec<String>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table'
                   AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'memories_fts%'",
            )
            .unwrap();
        let tables: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut out = BTreeMap::new();
        for table in tables {
            let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
            let width = stmt.column_count();
            let mut rows: Vec<String> = stmt
                .query_map([], |r| {
                    (0..width)
                        .map(|i| r.get::<_, rusqlite::types::Value>(i))
                        .collect::<Result<Vec<_>, _>>()
                        .map(|row| format!("{row:?}"))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            rows.sort();
            out.insert(table, rows);
        }
        out
    }

    /// Close the store (its last connection checkpoints the WAL into `hub.db`) and hand back
    /// the directory, which lives as long as the returned value.
    fn close(self) -> tempfile::TempDir {
        drop(self.store);
        self.dir
    }
}

/// A JSON object's map; panics on anything else, as only the tests build these.
fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("arguments must be an object, not {other}"),
    }
}

/// Every right, as the local CLI and stdio MCP server have.
fn full() -> Caller {
    Caller::local("test", "shop")
}

/// Whether `caller` is a connected client, whose writes go through its trust level.
fn is_client(caller: &Caller) -> bool {
    matches!(caller.standing, Standing::Client { .. })
}

/// Whether a client may call `entry` at all: it reads, or it is a write MCP offers.
fn client_reaches(entry: &dyn Entry) -> bool {
    entry.access() == Access::Read || aletheia::mcp::tools::find(entry.name()).is_some()
}

/// Every project, but reads only.
fn read_only() -> Caller {
    Caller {
        standing: Standing::Reader,
        ..full()
    }
}

/// Reads and writes, but only in `shop`.
fn shop_only() -> Caller {
    Caller {
        projects: Some(vec!["shop".into()]),
        ..full()
    }
}

// ---------------------------------------------------------------------------------------------
// The seeded store: two projects with one of each thing.
// ---------------------------------------------------------------------------------------------

/// What the seed stored for one project. Every text names its project, so a result that
/// mentions `billing` is a result that shows billing's data.
struct Ids {
    project: &'static str,
    memory: i64,
    fact: i64,
    rule: String,
    /// A client's save_memory waiting for review.
    proposal: i64,
}

struct Seed {
    shop: Ids,
    billing: Ids,
}

/// Which project's ids a call targets.
#[derive(Debug, Clone, Copy)]
enum Target {
    Shop,
    Billing,
}

impl Seed {
    fn ids(&self, t: Target) -> &Ids {
        match t {
            Target::Shop => &self.shop,
            Target::Billing => &self.billing,
        }
    }
}

/// Seed `shop` and `billing` through the operations, as a full-rights caller would, plus two
/// things only store-wide upkeep touches: a spooled event (for `drain`) and an old row stored
/// before its secret's shape had a rule (for `scrub`). So a refused drain or scrub that ran
/// anyway would show in the fingerprint.
fn seed(h: &mut Home) -> Seed {
    let mut project = |p: &'static str| -> Ids {
        let saved = h.ok(
            &full(),
            "save_memory",
            json!({
                "text": format!("The {p} ledger cache expires hourly."),
                "title": format!("{p} ledger cache"),
                "project": p,
            }),
        );
        let memory = saved["id"].as_i64().unwrap();
        let fact = NewFact {
            project: p.into(),
            subject: "ledger".into(),
            predicate: "cache ttl".into(),
            object: format!("one hour in {p}"),
            confidence: 0.9,
            source: "rules".into(),
            memory_id: Some(memory),
            valid_from: T0,
            job_id: None,
        };
        // A second answer with the same start: the two wait in a review, which the review
        // operations settle.
        let rival = NewFact {
            object: format!("two hours in {p}"),
            ..fact.clone()
        };
        let fact = h
            .store
            .insert_fact(&Redacted::new(fact, &h.redactor), T0)
            .unwrap()
            .id();
        h.store
            .insert_fact(&Redacted::new(rival, &h.redactor), T0)
            .unwrap();
        let rule = h.ok(
            &full(),
            "add_rule",
            json!({
                "then": format!("Run the {p} ledger tests before you commit"),
                "scopeTier": "project",
                "scopeName": p,
            }),
        );
        h.ok(
            &full(),
            "work_state_write",
            json!({ "list": "todo", "items": [format!("reconcile the {p} ledger")], "project": p }),
        );
        let args = json!({ "text": format!("The {p} ledger closes on the 3rd."), "project": p });
        let proposal = NewProposal {
            op: "save_memory".into(),
            key: args.to_string(),
            args: object(args),
            client: "agent".into(),
            project: p.into(),
            summary: format!("memory [note] The {p} ledger closes on the 3rd."),
            reference: None,
            why: "agent is at propose (aletheia trust)".into(),
            created_at: T0,
        };
        let (proposal, _) = h
            .store
            .propose(&Redacted::new(proposal, &h.redactor))
            .unwrap();
        Ids {
            project: p,
            memory,
            fact,
            rule: rule["id"].as_str().unwrap().to_owned(),
            proposal,
        }
    };
    let seed = Seed {
        shop: project("shop"),
        billing: project("billing"),
    };

    let spooled = NewMemory {
        project: "billing".into(),
        kind: Kind::Note,
        mtype: MemoryType::Note,
        title: "billing spooled note".into(),
        text: "billing spooled while the store was locked".into(),
        host: "test".into(),
        session_id: None,
        files: vec![],
        pinned: false,
        created_at: T0,
    };
    spool::append(
        &h.paths,
        &[SpoolLine::memory(&Redacted::new(spooled, &h.redactor))],
    )
    .unwrap();
    h.conn()
        .execute(
            "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
             VALUES ('old-row', 'billing', 'note', 'billing old note', ?1, 'test', ?2, 'old')",
            rusqlite::params![format!("billing key {}", github_token('o')), T0],
        )
        .unwrap();
    seed
}

// ---------------------------------------------------------------------------------------------
// The table: valid arguments for every operation, for either project.
// ---------------------------------------------------------------------------------------------

/// How a call's arguments reach a project's data; for a caller limited to other projects this
/// decides how the call must fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// The arguments name the project: refused with `Forbidden`.
    NamesProject,
    /// The arguments name the project's items by id: as unknown as a missing id, `NotFound`.
    ById,
    /// Neither (ids of a read, or no arguments): the call succeeds and leaves the other
    /// project's items out of its result.
    Filtered,
    /// The operation works on every project at once: refused with `Forbidden`.
    EveryProject,
}

/// Arguments for one operation, and how they reach their project.
struct Row {
    op: &'static str,
    reach: Reach,
    args: fn(&Ids) -> Value,
}

/// Valid arguments for every operation (some have two rows, to cover a second way in). Add a row
/// here with every new operation; `rows_for` fails the tests until there is one.
fn table() -> Vec<Row> {
    use Reach::*;
    fn row(op: &'static str, reach: Reach, args: fn(&Ids) -> Value) -> Row {
        Row { op, reach, args }
    }
    vec![
        row(
            "search",
            NamesProject,
            |p| json!({ "query": "ledger", "project": p.project }),
        ),
        row(
            "timeline",
            NamesProject,
            |p| json!({ "anchor": p.memory, "project": p.project }),
        ),
        // Without a project, a limited caller's timeline is its default project's.
        row("timeline", Filtered, |p| json!({ "anchor": p.memory })),
        row(
            "get_observations",
            Filtered,
            |p| json!({ "ids": [p.memory] }),
        ),
        row(
            "session_start_context",
            NamesProject,
            |p| json!({ "project": p.project }),
        ),
        row(
            "fact_history",
            NamesProject,
            |p| json!({ "subject": "ledger", "project": p.project }),
        ),
        // list_rules takes no project: a limited caller sees its default project's rules.
        row("list_rules", Filtered, |_| json!({})),
        row(
            "work_state_read",
            NamesProject,
            |p| json!({ "list": "todo", "project": p.project }),
        ),
        row("save_memory", NamesProject, |p| {
            json!({
                "text": format!("{} invoices are sent on the 1st", p.project),
                "project": p.project,
            })
        }),
        row("add_rule", NamesProject, |p| {
            json!({
                "then": format!("Ask before touching {} invoices", p.project),
                "scopeTier": "project",
                "scopeName": p.project,
            })
        }),
        // Evidence from another project is as unknown as a missing memory.
        row("add_rule", ById, |p| {
            json!({ "then": "Cite the ledger cache note", "scopeTier": "project",
                    "scopeName": "shop", "evidence_memory_ids": [p.memory] })
        }),
        row("confirm_rule", ById, |p| json!({ "id": p.rule })),
        row(
            "dismiss_memory",
            ById,
            |p| json!({ "id": p.memory, "reason": "out of date" }),
        ),
        row(
            "dismiss_memory",
            ById,
            |p| json!({ "id": p.fact, "type": "fact" }),
        ),
        // Restoring needs nothing dismissed: it clears the flag (and audits) either way.
        row("restore_memory", ById, |p| json!({ "id": p.memory })),
        row(
            "work_state_write",
            NamesProject,
            |p| json!({ "list": "todo", "items": ["close the month"], "project": p.project }),
        ),
        row("import", NamesProject, |p| {
            json!({ "records": [{
                "project": p.project,
                "kind": "note",
                "text": format!("{} imported note", p.project),
                "created_at": T0,
            }] })
        }),
        row("export", NamesProject, |p| json!({ "project": p.project })),
        row("scrub", EveryProject, |_| json!({})),
        row("drain", EveryProject, |_| json!({})),
        row(
            "review_list",
            NamesProject,
            |p| json!({ "project": p.project }),
        ),
        // Without a project, a limited caller sees its default project's reviews.
        row("review_list", Filtered, |_| json!({})),
        row("review_accept", ById, |p| json!({ "fact_id": p.fact })),
        row("review_reject", ById, |p| json!({ "fact_id": p.fact })),
        // Deciding on proposals and setting levels is for the owner with every project.
        row(
            "proposal_accept",
            EveryProject,
            |p| json!({ "id": p.proposal }),
        ),
        row(
            "proposal_reject",
            EveryProject,
            |p| json!({ "id": p.proposal, "reason": "not now" }),
        ),
        row(
            "set_trust",
            EveryProject,
            |_| json!({ "client": "cursor", "level": "propose" }),
        ),
        row("list_trust", EveryProject, |_| json!({})),
        row("why", ById, |p| json!({ "id": p.memory })),
        row("drift", NamesProject, |p| json!({ "project": p.project })),
        row("verify", EveryProject, |_| json!({})),
        row("why", ById, |p| json!({ "id": p.fact, "type": "fact" })),
        row(
            "compress",
            EveryProject,
            |p| json!({ "project": p.project }),
        ),
        row("jobs", EveryProject, |_| json!({})),
        row("sync_rules", EveryProject, |_| json!({})),
        row("capture_event", NamesProject, |p| {
            json!({ "tool": "claude-code", "event": "UserPromptSubmit", "payload": {
                "session_id": "s-event",
                "cwd": format!("/nonexistent-aletheia/{}", p.project),
                "prompt": format!("{} prompt sent to the server", p.project),
            } })
        }),
        row("backfill", NamesProject, |p| {
            json!({ "host": "claude-code", "entries": [{
                "session_id": "s-backfill",
                "cwd": format!("/nonexistent-aletheia/{}", p.project),
                "at": T0,
                "kind": "prompt",
                "text": format!("{} back-filled prompt", p.project),
            }] })
        }),
        row(
            "browse_memories",
            NamesProject,
            |p| json!({ "project": p.project, "show": "all" }),
        ),
        // Without a project, a limited caller browses its default project.
        row("browse_memories", Filtered, |_| json!({})),
        // A limited caller's listing leaves the other projects out.
        row("list_projects", Filtered, |_| json!({})),
        row(
            "list_facts",
            NamesProject,
            |p| json!({ "project": p.project, "include_superseded": true }),
        ),
        row("list_facts", Filtered, |_| json!({ "subject": "ledger" })),
        row(
            "fact_subjects",
            NamesProject,
            |p| json!({ "project": p.project, "include_superseded": true }),
        ),
        // As list_rules: a limited caller sees its default project's rules.
        row("list_all_rules", Filtered, |_| json!({})),
        row("pin_memory", ById, |p| json!({ "id": p.memory })),
        row("get_memory", ById, |p| json!({ "id": p.memory })),
        row("inspect", ById, |p| json!({ "id": p.memory })),
        row(
            "feedback",
            ById,
            |p| json!({ "id": p.memory, "vote": "positive" }),
        ),
        row(
            "edit_note",
            ById,
            |p| json!({ "id": p.memory, "text": format!("The {} ledger cache expires daily.", p.project) }),
        ),
        row(
            "set_rule_enabled",
            ById,
            |p| json!({ "id": p.rule, "enabled": false }),
        ),
        row("doctor", EveryProject, |_| json!({})),
        row("rebuild_search_index", EveryProject, |_| json!({})),
    ]
}

/// The rows for a registered operation; fails when it has none, so no operation goes unchecked.
fn rows_for<'t>(table: &'t [Row], op: &str) -> Vec<&'t Row> {
    let rows: Vec<&Row> = table.iter().filter(|r| r.op == op).collect();
    assert!(
        !rows.is_empty(),
        "operation {op} has no row in tests/ops.rs's table(): add valid arguments for it"
    );
    rows
}

/// One call on a freshly seeded store, so each result depends on nothing called before it.
struct Probe {
    result: Result<Value, OpError>,
    /// Whether the store differs after the call.
    changed: bool,
    /// Whether the spool still holds its line.
    spool_kept: bool,
}

fn probe(caller: &Caller, entry: &dyn Entry, args: fn(&Ids) -> Value, target: Target) -> Probe {
    let mut h = Home::new();
    let seed = seed(&mut h);
    let before = h.fingerprint();
    let result = h.call(caller, entry, args(seed.ids(target)));
    Probe {
        result,
        changed: h.fingerprint() != before,
        spool_kept: !spool::pending_files(&h.paths).is_empty(),
    }
}

fn is_forbidden(r: &Result<Value, OpError>) -> bool {
    matches!(r, Err(OpError::Forbidden(_)))
}

fn is_not_found(r: &Result<Value, OpError>) -> bool {
    matches!(r, Err(OpError::NotFound(_)))
}

/// Whether a result shows anything of billing's (every seeded billing text names billing).
fn shows_billing(r: &Result<Value, OpError>) -> bool {
    r.as_ref()
        .is_ok_and(|v| v.to_string().to_lowercase().contains("billing"))
}

// ---------------------------------------------------------------------------------------------
// 1. Permissions
// ---------------------------------------------------------------------------------------------

#[test]
fn the_table_covers_exactly_the_registered_operations() {
    let table = table();
    for entry in OPERATIONS {
        rows_for(&table, entry.name());
    }
    for row in &table {
        assert!(
            aletheia::ops::find(row.op).is_some(),
            "the table has a row for {}, which is not registered",
            row.op
        );
    }
}

/// The table's arguments are valid: with every right, each call succeeds for either project.
/// So when a narrower caller is refused, it is for its rights, not for a bad argument. And each
/// write does change the store, so the fingerprint the other tests compare would show a refused
/// call that ran anyway.
#[test]
fn every_row_succeeds_for_a_caller_with_every_right() {
    let table = table();
    let mut wrong = Vec::new();
    for entry in OPERATIONS {
        let name = entry.name();
        // sync_rules writes tools' rule files in a project folder, never the store, and only a
        // front end that owns a folder (the command line) can give it one: JSON cannot name
        // where files go. tests/rules_sync.rs covers it; the rights checks below still apply.
        if name == "sync_rules" {
            continue;
        }
        for row in rows_for(&table, name) {
            for target in [Target::Shop, Target::Billing] {
                let p = probe(&full(), *entry, row.args, target);
                if p.result.is_err() {
                    wrong.push(format!("{name} on {target:?}: {:?}", p.result));
                }
                let changed = p.changed || !p.spool_kept;
                // rebuild_search_index writes only the search index, which the fingerprint
                // leaves out: it must change nothing else. verify writes only when rows predate
                // the history, and none do here.
                let writes = entry.access() != Access::Read
                    && !matches!(name, "rebuild_search_index" | "verify");
                if changed != writes {
                    wrong.push(format!(
                        "{name} ({:?}) on {target:?}: changed the store: {changed}",
                        entry.access()
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_read_only_caller_may_call_exactly_the_read_operations() {
    let table = table();
    let mut wrong = Vec::new();
    for entry in OPERATIONS {
        let allowed = entry.access() == Access::Read;
        for row in rows_for(&table, entry.name()) {
            let p = probe(&read_only(), *entry, row.args, Target::Billing);
            let name = entry.name();
            match (&p.result, allowed) {
                (Ok(_), true) => {}
                (r, false) if is_forbidden(r) => {}
                (r, _) => wrong.push(format!(
                    "{name} ({:?}): expected {}, got {r:?}",
                    entry.access(),
                    if allowed { "Ok" } else { "Forbidden" }
                )),
            }
            // Allowed or refused, nothing a read-only caller does may change the store.
            if p.changed || !p.spool_kept {
                wrong.push(format!("{name}: a read-only call changed the store"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_caller_limited_to_shop_cannot_reach_billing() {
    held_to_shop(&shop_only());
}

/// What a hub token of `scope` calls as (the hub builds its caller the same way).
#[cfg(feature = "server")]
fn token_caller(scope: &str, projects: Option<Vec<String>>) -> Caller {
    let token = aletheia::store::hub::Token {
        id: 1,
        hash: String::new(),
        label: scope.into(),
        scope: scope.into(),
        projects,
        created_at: T0,
        expires_at: None,
        revoked_at: None,
        created_by: None,
    };
    aletheia::server::hub::tokens::caller(&token, "test", "shop")
}

/// The hub's scopes through the same table: `mcp` and `read` tokens may call exactly the read
/// operations, each other one refused with the documented sentence and the store unchanged;
/// `sync` and `admin` tokens are clients: they may call the reads and MCP's writes (as their
/// trust level allows), and every other write is refused with the store unchanged.
#[cfg(feature = "server")]
#[rstest]
#[case::mcp("mcp", false)]
#[case::read("read", false)]
#[case::sync("sync", true)]
#[case::admin("admin", true)]
fn each_hub_scope_calls_exactly_the_operations_it_declares(
    #[case] scope: &str,
    #[case] writes: bool,
) {
    let caller = token_caller(scope, None);
    let table = table();
    let mut wrong = Vec::new();
    for entry in OPERATIONS {
        let name = entry.name();
        // As for every right: sync_rules needs a folder, which only the command line gives.
        if name == "sync_rules" {
            continue;
        }
        let allowed = if writes {
            client_reaches(*entry)
        } else {
            entry.access() == Access::Read
        };
        for row in rows_for(&table, name) {
            let p = probe(&caller, *entry, row.args, Target::Shop);
            let refusal = if writes {
                format!(
                    "test cannot call {name} directly: a client's writes go through its trust level."
                )
            } else {
                format!("This token cannot call {name}.")
            };
            match (&p.result, allowed) {
                (Ok(_), true) => {}
                (Err(OpError::Forbidden(m)), false) if *m == refusal => {}
                (r, _) => wrong.push(format!("{scope} {name}: got {r:?}")),
            }
            if !allowed && (p.changed || !p.spool_kept) {
                wrong.push(format!("{scope} {name}: a refused call changed the store"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[cfg(feature = "server")]
#[test]
fn a_hub_token_limited_to_shop_cannot_reach_billing() {
    held_to_shop(&token_caller("sync", Some(vec!["shop".into()])));
}

/// Every row on billing's ids for `caller`, which may touch shop only: refused where the
/// request names billing or every project, unknown where it names billing's ids, filtered where
/// it leaves the project open; never billing's data, and never a change.
fn held_to_shop(caller: &Caller) {
    let table = table();
    let mut wrong = Vec::new();
    for entry in OPERATIONS {
        let name = entry.name();
        for &Row { reach, args, .. } in rows_for(&table, name) {
            let p = probe(caller, *entry, args, Target::Billing);
            let (expected, fits) = match reach {
                Reach::NamesProject | Reach::EveryProject => ("Forbidden", is_forbidden(&p.result)),
                // A client's write that MCP does not offer is refused before any id is read.
                Reach::ById if is_client(caller) && !client_reaches(*entry) => {
                    ("Forbidden", is_forbidden(&p.result))
                }
                Reach::ById => ("NotFound", is_not_found(&p.result)),
                Reach::Filtered => ("Ok", p.result.is_ok()),
            };
            if !fits {
                wrong.push(format!(
                    "{name} ({reach:?}) on billing: expected {expected}, got {:?}",
                    p.result
                ));
            }
            if shows_billing(&p.result) {
                wrong.push(format!("{name} showed billing's data: {:?}", p.result));
            }
            // A refused call, or a read, leaves the store as it was.
            let must_not_change = p.result.is_err() || entry.access() == Access::Read;
            if must_not_change && (p.changed || !p.spool_kept) {
                wrong.push(format!("{name} ({reach:?}) on billing changed the store"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_caller_limited_to_shop_may_call_everything_on_shop_but_store_wide_upkeep() {
    let table = table();
    let mut wrong = Vec::new();
    for entry in OPERATIONS {
        let name = entry.name();
        for &Row { reach, args, .. } in rows_for(&table, name) {
            let p = probe(&shop_only(), *entry, args, Target::Shop);
            if reach == Reach::EveryProject {
                if !is_forbidden(&p.result) {
                    wrong.push(format!("{name}: expected Forbidden, got {:?}", p.result));
                }
                if p.changed || !p.spool_kept {
                    wrong.push(format!("{name}: a refused call changed the store"));
                }
            } else if p.result.is_err() {
                wrong.push(format!("{name} on shop: {:?}", p.result));
            }
            if shows_billing(&p.result) {
                wrong.push(format!(
                    "{name} on shop showed billing's data: {:?}",
                    p.result
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Reads that may leave the project open: for a limited caller they cover its projects only.
#[rstest]
#[case::search("search", json!({ "query": "ledger" }))]
#[case::timeline_by_query("timeline", json!({ "query": "ledger" }))]
#[case::fact_history("fact_history", json!({ "subject": "ledger" }))]
#[case::export("export", json!({}))]
#[case::list_rules("list_rules", json!({}))]
fn reads_without_a_project_show_a_limited_caller_only_its_projects(
    #[case] op: &str,
    #[case] args: Value,
) {
    let mut h = Home::new();
    seed(&mut h);
    // The same call with every right sees both projects, so the query does reach billing.
    let everything = h.ok(&full(), op, args.clone()).to_string();
    assert!(everything.contains("billing"), "{everything}");
    let shop = h.ok(&shop_only(), op, args).to_string();
    assert!(shop.contains("shop"), "{shop}");
    assert!(!shop.contains("billing"), "{shop}");
}

#[test]
fn a_limited_caller_searching_every_project_gets_only_shop_rows() {
    let mut h = Home::new();
    seed(&mut h);
    let found = h.ok(&shop_only(), "search", json!({ "query": "ledger" }));
    let projects = |key: &str| -> Vec<String> {
        found[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["project"].as_str().unwrap().to_owned())
            .collect()
    };
    // Hits and facts both: the facts come first in a search and are filtered on their own.
    for key in ["hits", "facts"] {
        let projects = projects(key);
        assert!(!projects.is_empty(), "no {key}: {found}");
        assert!(projects.iter().all(|p| p == "shop"), "{key}: {projects:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. The redaction gate
// ---------------------------------------------------------------------------------------------

/// A GitHub token (`ghp_` and 36 or more letters and digits) whose body starts with `tag`, so
/// each field gets its own and a leak names its field.
fn github_token(tag: char) -> String {
    format!("ghp_{tag}Q7vL4pT8wZ3nB6cF1hJ5dS0gY2aE7uR9xK2m")
}

/// An Anthropic key (`sk-ant-api03-` and 20 or more key characters), tagged likewise.
fn anthropic_key(tag: char) -> String {
    format!("sk-ant-api03-{tag}Zr8Kq2Lm5Np7Tv9Wx3Yb6Cd1Fg4Hj0Ks8Qe")
}

const GITHUB_MARKER: &str = "[redacted:github-token]";
const ANTHROPIC_MARKER: &str = "[redacted:anthropic-key]";

/// A secret planted in one field.
struct Planted {
    field: &'static str,
    secret: String,
}

/// The secrets `plant` uses, by field.
struct Secrets {
    rule_then: String,
    rule_when: String,
    rule_scope: String,
    list_item: String,
    list_password: String,
    list_name: String,
    fact_object: String,
    fact_predicate: String,
    dismiss_reason: String,
    saved_text: String,
    saved_title: String,
    imported_text: String,
    imported_file: String,
}

impl Secrets {
    fn new() -> Secrets {
        Secrets {
            rule_then: github_token('a'),
            rule_when: anthropic_key('b'),
            rule_scope: github_token('c'),
            list_item: github_token('d'),
            // Not a known shape: caught because the JSON puts it after `"password":`.
            list_password: "hunter2hunter2".into(),
            list_name: github_token('e'),
            fact_object: github_token('f'),
            fact_predicate: anthropic_key('g'),
            dismiss_reason: anthropic_key('h'),
            saved_text: github_token('i'),
            saved_title: anthropic_key('j'),
            imported_text: github_token('k'),
            imported_file: github_token('l'),
        }
    }

    fn all(&self) -> Vec<Planted> {
        let p = |field, secret: &String| Planted {
            field,
            secret: secret.clone(),
        };
        vec![
            p("rule then", &self.rule_then),
            p("rule when", &self.rule_when),
            p("rule scopeName", &self.rule_scope),
            p("list item", &self.list_item),
            p("list object value", &self.list_password),
            p("list name", &self.list_name),
            p("fact object", &self.fact_object),
            p("fact predicate", &self.fact_predicate),
            p("dismiss reason", &self.dismiss_reason),
            p("saved memory text", &self.saved_text),
            p("saved memory title", &self.saved_title),
            p("imported memory text", &self.imported_text),
            p("imported memory file", &self.imported_file),
        ]
    }
}

/// The texts `plant` writes, so the read-back can compare whole values.
fn rule_then(s: &Secrets) -> String {
    format!("Push with {} only from CI", s.rule_then)
}
fn rule_when(s: &Secrets) -> String {
    format!("calling the API with {}", s.rule_when)
}
fn rule_scope(s: &Secrets) -> String {
    format!("deploys with {}", s.rule_scope)
}
fn list_name(s: &Secrets) -> String {
    format!("release {}", s.list_name)
}

/// Write a secret into every stored type through its write path.
fn plant(h: &mut Home, s: &Secrets) {
    h.ok(
        &full(),
        "add_rule",
        json!({
            "then": rule_then(s),
            "when": rule_when(s),
            "scopeTier": "situation",
            "scopeName": rule_scope(s),
        }),
    );
    h.ok(
        &full(),
        "work_state_write",
        json!({
            "list": "todo",
            "items": [format!("rotate {}", s.list_item), { "password": s.list_password }],
        }),
    );
    h.ok(
        &full(),
        "work_state_write",
        json!({ "list": list_name(s), "items": ["tag the release"] }),
    );
    let fact = NewFact {
        project: "shop".into(),
        subject: "ci".into(),
        predicate: format!("signs with {}", s.fact_predicate),
        object: s.fact_object.clone(),
        confidence: 0.9,
        source: "rules".into(),
        memory_id: None,
        valid_from: T0,
        job_id: None,
    };
    h.store
        .insert_fact(&Redacted::new(fact, &h.redactor), T0)
        .unwrap();
    let saved = h.ok(
        &full(),
        "save_memory",
        json!({
            "text": format!("Deploy with {}", s.saved_text),
            "title": format!("Deploy key {}", s.saved_title),
        }),
    );
    h.ok(
        &full(),
        "dismiss_memory",
        json!({ "id": saved["id"], "reason": format!("pasted {}", s.dismiss_reason) }),
    );
    // Restored, so search finds it again for the read-back.
    h.ok(&full(), "restore_memory", json!({ "id": saved["id"] }));
    h.ok(
        &full(),
        "import",
        json!({ "records": [{
            "project": "shop",
            "kind": "note",
            "title": "Imported deploy note",
            "text": format!("Imported: deploy with {}", s.imported_text),
            "files": [format!("/srv/{}/config.yml", s.imported_file)],
            "created_at": T0,
        }] }),
    );
}

/// Each planted shape is one the builtin rules catch; otherwise the tests below prove nothing.
#[test]
fn every_planted_secret_is_a_shape_the_redactor_catches() {
    let r = Redactor::builtin();
    for p in Secrets::new().all() {
        if p.field == "list object value" {
            continue; // Caught by its key, checked below.
        }
        let text = format!("x {} y", p.secret);
        assert!(!r.redact(&text).contains(&p.secret), "{}", p.field);
    }
    let json = json!({ "password": "hunter2hunter2" });
    assert_eq!(
        Redacted::new(json, &r),
        Redacted::new(json!({ "password": "[redacted]" }), &r)
    );
}

/// The read operations return what was stored: the marker where the secret was.
#[test]
fn the_read_operations_return_the_markers_not_the_secrets() {
    let s = Secrets::new();
    let mut h = Home::new();
    plant(&mut h, &s);
    let redact = |text: String| {
        text.replace(&s.rule_then, GITHUB_MARKER)
            .replace(&s.rule_when, ANTHROPIC_MARKER)
            .replace(&s.rule_scope, GITHUB_MARKER)
            .replace(&s.list_name, GITHUB_MARKER)
    };
    let mut outputs = Vec::new();

    let rules = h.ok(&full(), "list_rules", json!({}));
    let rule = &rules[0];
    assert_eq!(rule["then"], redact(rule_then(&s)), "{rules}");
    assert_eq!(rule["when"], redact(rule_when(&s)), "{rules}");
    assert_eq!(rule["scope_name"], redact(rule_scope(&s)), "{rules}");
    outputs.push(rules);

    let todo = h.ok(&full(), "work_state_read", json!({ "list": "todo" }));
    assert_eq!(
        todo["items"],
        json!([format!("rotate {GITHUB_MARKER}"), { "password": "[redacted]" }]),
        "{todo}"
    );
    outputs.push(todo);
    // The name was redacted before it was stored, so the list is found under the marker.
    let release = h.ok(
        &full(),
        "work_state_read",
        json!({ "list": redact(list_name(&s)) }),
    );
    assert_eq!(release["items"], json!(["tag the release"]), "{release}");
    outputs.push(release);

    let facts = h.ok(&full(), "fact_history", json!({ "subject": "ci" }));
    assert_eq!(facts["facts"][0]["object"], GITHUB_MARKER, "{facts}");
    assert_eq!(
        facts["facts"][0]["predicate"],
        format!("signs with {ANTHROPIC_MARKER}"),
        "{facts}"
    );
    outputs.push(facts);

    let found = h.ok(&full(), "search", json!({ "query": "deploy" }));
    let hit = |title: &str| {
        found["hits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["title"] == title)
            .unwrap_or_else(|| panic!("no hit titled {title}: {found}"))
            .clone()
    };
    let saved = hit(&format!("Deploy key {ANTHROPIC_MARKER}"));
    assert_eq!(saved["text"], format!("Deploy with {GITHUB_MARKER}"));
    let imported = hit("Imported deploy note");
    assert_eq!(
        imported["text"],
        format!("Imported: deploy with {GITHUB_MARKER}")
    );
    assert_eq!(
        imported["files"],
        json!([format!("/srv/{GITHUB_MARKER}/config.yml")])
    );
    outputs.push(found);

    // The audit trail has no read operation yet; its reason is read from the table.
    let reason: String = h
        .conn()
        .query_row(
            "SELECT reason FROM audit WHERE action = 'dismiss'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(reason, format!("pasted {ANTHROPIC_MARKER}"));

    for out in outputs {
        let text = out.to_string();
        for p in s.all() {
            assert!(!text.contains(&p.secret), "{} came back: {text}", p.field);
        }
    }
}

/// Every file of the data directory, below `dir`, with its bytes.
fn files_below(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_below(&path));
        } else {
            let bytes = std::fs::read(&path).unwrap();
            out.push((path, bytes));
        }
    }
    out
}

fn occurs(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The gate holds on disk: after every write path has stored its secret and the store is
/// closed, no file in the data directory (hub.db, and a -wal or -shm left behind) holds a
/// secret's bytes, nor the random part that follows a token's prefix.
#[test]
fn no_secret_reaches_a_byte_of_the_store_files() {
    let s = Secrets::new();
    let mut h = Home::new();
    plant(&mut h, &s);
    let dir = h.close();

    let files = files_below(dir.path());
    let db = files
        .iter()
        .find(|(p, _)| p.file_name().is_some_and(|n| n == "hub.db"))
        .expect("hub.db");
    // The markers are there, so the rows reached the file and the search below is meaningful.
    assert!(occurs(&db.1, GITHUB_MARKER.as_bytes()));
    assert!(occurs(&db.1, ANTHROPIC_MARKER.as_bytes()));

    for p in s.all() {
        let body = p
            .secret
            .strip_prefix("ghp_")
            .or_else(|| p.secret.strip_prefix("sk-ant-api03-"))
            .unwrap_or(&p.secret);
        for (path, bytes) in &files {
            for needle in [p.secret.as_str(), body] {
                assert!(
                    !occurs(bytes, needle.as_bytes()),
                    "the {} secret ({needle}) is in {}",
                    p.field,
                    path.display()
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Argument parsing
// ---------------------------------------------------------------------------------------------

/// The message `parse` gives for arguments operation `O` must refuse.
fn refusal<O: Operation>(args: Value) -> String {
    match parse::<O>(object(args)) {
        Ok(_) => panic!("{} accepted the arguments", O::NAME),
        Err(OpError::InvalidArgument(m)) => m,
        Err(e) => panic!("{} refused with the wrong kind: {e:?}", O::NAME),
    }
}

#[rstest]
#[case::not_a_string(refusal::<SaveMemory>(json!({ "text": 5 })), "text must be a string.")]
#[case::not_a_flag(
    refusal::<SaveMemory>(json!({ "text": "x", "pinned": "yes" })),
    "pinned must be true or false."
)]
#[case::ids_not_numbers(
    refusal::<GetObservations>(json!({ "ids": ["a"] })),
    "ids must be an array of numbers."
)]
#[case::ids_not_whole(
    refusal::<GetObservations>(json!({ "ids": [1.5] })),
    "ids must be an array of whole numbers."
)]
#[case::limit_not_whole(
    refusal::<Search>(json!({ "limit": 2.5 })),
    "limit must be a whole number."
)]
#[case::limit_not_a_number(refusal::<Search>(json!({ "limit": "5" })), "limit must be a number.")]
#[case::missing(refusal::<SaveMemory>(json!({})), "text is required.")]
#[case::null_is_missing(refusal::<GetObservations>(json!({ "ids": null })), "ids is required.")]
fn bad_json_types_get_one_line_naming_the_argument(#[case] got: String, #[case] want: &str) {
    assert_eq!(got, want);
}

#[test]
fn whole_floats_count_as_integers_and_null_as_absent() {
    let s = parse::<Search>(object(
        json!({ "query": "x", "limit": 2.0, "offset": null }),
    ))
    .unwrap();
    assert_eq!((s.limit, s.offset), (Some(2), None));
    let m = parse::<SaveMemory>(object(
        json!({ "text": "x", "title": null, "pinned": null }),
    ))
    .unwrap();
    assert_eq!((m.title, m.pinned), (None, false));
    let o = parse::<GetObservations>(object(json!({ "ids": [3.0, 4] }))).unwrap();
    assert_eq!(o.ids, [3, 4]);
}

/// An import record's `tool`, `session_id` and `uid` come from whatever file is given, so they
/// pass the gate too: no secret in an imported file's metadata may reach the store's files.
#[test]
fn import_lets_no_secret_through_in_a_records_metadata() {
    let secrets = [github_token('t'), anthropic_key('s'), github_token('u')];
    let mut h = Home::new();
    let _ = h.call(
        &full(),
        aletheia::ops::find("import").unwrap(),
        json!({ "records": [{
            "project": "shop",
            "kind": "note",
            "text": "an imported note",
            "tool": secrets[0],
            "session_id": secrets[1],
            "uid": secrets[2],
            "created_at": T0,
        }] }),
    );
    let dir = h.close();
    for (path, bytes) in files_below(dir.path()) {
        for secret in &secrets {
            assert!(
                !occurs(&bytes, secret.as_bytes()),
                "{secret} is in {}",
                path.display()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Regressions found by review.
// ---------------------------------------------------------------------------------------------

/// Titles used to be cut to 100 characters before redaction, so a secret crossing the cut lost
/// its tail, stopped matching its rule, and was stored as a title.
#[test]
fn a_default_title_is_cut_after_redaction_not_before() {
    let token = github_token('c');
    let mut h = Home::new();
    let text = format!("{} deploy with {token} now", "x".repeat(70));
    let saved = h.ok(&full(), "save_memory", json!({ "text": text }));
    h.ok(
        &full(),
        "import",
        json!({ "records": [{ "project": "shop", "kind": "note", "text": format!("{text} again"), "created_at": T0 }] }),
    );
    let titles: Vec<String> = {
        let conn = h.conn();
        let mut stmt = conn.prepare("SELECT title FROM memories").unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(titles.len(), 2, "{saved}");
    for t in titles {
        assert!(
            !t.contains("ghp_"),
            "a piece of the token is in the title {t:?}"
        );
        assert!(t.ends_with('…') && t.chars().count() <= 101, "{t:?}");
    }
}

/// Two records whose uids have a secret's shape used to become the same marker and collide, so
/// the second memory was counted as a duplicate and lost.
#[test]
fn secret_shaped_uids_are_replaced_not_collided() {
    let mut h = Home::new();
    let out = h.ok(
        &full(),
        "import",
        json!({ "records": [
            { "project": "shop", "kind": "note", "text": "first", "uid": github_token('1'), "created_at": T0 },
            { "project": "shop", "kind": "note", "text": "second", "uid": github_token('2'), "created_at": T0 },
        ] }),
    );
    assert_eq!(out, json!({ "new": 2, "duplicates": 0 }));
}

/// A caller's name is chosen by its client (`ALETHEIA_TOOL`, `clientInfo.name`); it is stored as
/// a rule's source and an audit row's actor, so it passes the gate like a memory's tool.
#[test]
fn a_callers_name_is_redacted_where_it_is_stored() {
    let token = github_token('n');
    let named = Caller {
        name: token.clone(),
        ..full()
    };
    let mut h = Home::new();
    let saved = h.ok(&named, "save_memory", json!({ "text": "a note" }));
    h.ok(&named, "add_rule", json!({ "then": "Run the tests" }));
    h.ok(&named, "dismiss_memory", json!({ "id": saved["id"] }));
    let dir = h.close();
    for (path, bytes) in files_below(dir.path()) {
        assert!(
            !occurs(&bytes, token.as_bytes()),
            "the name is in {}",
            path.display()
        );
    }
}

/// Text of nothing but NUL bytes is no text: it used to pass the check and store an empty memory.
#[test]
fn text_of_nul_bytes_is_refused() {
    let mut h = Home::new();
    let e = h
        .call(
            &full(),
            aletheia::ops::find("save_memory").unwrap(),
            json!({ "text": "\u{0}\u{0} " }),
        )
        .unwrap_err();
    assert_eq!(e, OpError::InvalidArgument("text is required.".into()));
}

/// A limited caller lists rules for everywhere; confirming one is refused as not its to write,
/// while another project's rule stays unknown to it.
#[test]
fn a_limited_caller_is_told_why_it_cannot_confirm_a_rule_it_can_see() {
    let mut h = Home::new();
    let everywhere = h.ok(&full(), "add_rule", json!({ "then": "Run the tests" }));
    let billing = h.ok(
        &full(),
        "add_rule",
        json!({ "then": "Bill monthly", "scopeTier": "project", "scopeName": "billing" }),
    );
    let confirm = aletheia::ops::find("confirm_rule").unwrap();
    let listed = h.ok(&shop_only(), "list_rules", json!({}));
    assert!(
        listed
            .to_string()
            .contains(everywhere["id"].as_str().unwrap())
    );
    assert!(matches!(
        h.call(&shop_only(), confirm, json!({ "id": everywhere["id"] })),
        Err(OpError::Forbidden(_))
    ));
    assert!(matches!(
        h.call(&shop_only(), confirm, json!({ "id": billing["id"] })),
        Err(OpError::NotFound(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// 4. Project keys
// ---------------------------------------------------------------------------------------------

/// The files below `dir` that hold `token` or the random body after its `ghp_`.
fn holding(dir: &Path, token: &str) -> Vec<PathBuf> {
    let body = token.strip_prefix("ghp_").unwrap();
    files_below(dir)
        .into_iter()
        .filter(|(_, bytes)| occurs(bytes, token.as_bytes()) || occurs(bytes, body.as_bytes()))
        .map(|(p, _)| p)
        .collect()
}

/// The projects named in every table that names one, as stored.
fn stored_projects(h: &Home) -> Vec<String> {
    let conn = h.conn();
    let mut stmt = conn
        .prepare(
            "SELECT project FROM memories UNION SELECT project FROM session_queue
             UNION SELECT project FROM facts UNION SELECT project FROM work_lists
             UNION SELECT project FROM jobs UNION SELECT project FROM fact_reviews
             UNION SELECT scope_name FROM rules WHERE scope_tier = 'project'",
        )
        .unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// Each write path that takes a project, given a folder or a project named after a GitHub
/// token: the key is stored (and queued, and compressed into facts) as the marker, and no byte
/// of the store's files holds the token.
#[rstest]
#[case::save_memory('a')]
#[case::the_callers_default_project('b')]
#[case::work_state_write('c')]
#[case::add_rule_with_a_project_scope('d')]
#[case::import('e')]
#[case::capture_event('f')]
#[case::backfill('g')]
#[case::compress('h')]
#[case::drain_of_a_spool_an_older_version_wrote('i')]
fn a_secret_shaped_project_key_is_stored_redacted(#[case] tag: char) {
    let token = github_token(tag);
    let cwd = format!("/nonexistent-aletheia/{token}");
    let mut h = Home::new();
    match tag {
        'a' => {
            h.ok(
                &full(),
                "save_memory",
                json!({ "text": "a note", "project": token }),
            );
        }
        'b' => {
            let here = Caller::local("test", &token);
            h.ok(&here, "save_memory", json!({ "text": "a note" }));
        }
        'c' => {
            h.ok(
                &full(),
                "work_state_write",
                json!({ "list": "todo", "items": ["ship"], "project": token }),
            );
        }
        'd' => {
            h.ok(
                &full(),
                "add_rule",
                json!({ "then": "Run the tests", "scopeTier": "project", "scopeName": token }),
            );
        }
        'e' => {
            h.ok(
                &full(),
                "import",
                json!({ "records": [{ "project": token, "kind": "note", "text": "imported", "created_at": T0 }] }),
            );
        }
        'f' => {
            for (event, key, text) in [
                ("UserPromptSubmit", "prompt", "fix the cart"),
                ("Stop", "x", ""),
            ] {
                h.ok(
                    &full(),
                    "capture_event",
                    json!({ "tool": "claude-code", "event": event, "payload": {
                        "session_id": "s1", "cwd": cwd, key: text,
                    } }),
                );
            }
        }
        'g' => {
            h.ok(
                &full(),
                "backfill",
                json!({ "host": "claude-code", "entries": [{
                    "session_id": "s1", "cwd": cwd, "at": T0, "kind": "prompt", "text": "fix the cart",
                }] }),
            );
        }
        'h' => {
            h.ok(
                &full(),
                "save_memory",
                json!({ "text": "The shop uses PostgreSQL 16 for orders.", "project": token }),
            );
            h.ok(&full(), "compress", json!({ "project": token }));
        }
        'i' => {
            let line = serde_json::json!({"kind": "queue", "queue": {"project": token, "tool": "claude-code", "sessionId": "s1"}, "at": T0});
            let memory = serde_json::json!({"kind": "memory", "memory": {"project": token, "tool": "claude-code", "kind": "prompt", "type": "note", "title": "fix", "narrative": "fix the cart"}, "at": T0});
            let spool: Vec<SpoolLine> = [memory, line]
                .into_iter()
                .map(|v| serde_json::from_value(v).unwrap())
                .collect();
            spool::append(&h.paths, &spool).unwrap();
            h.ok(&full(), "drain", json!({}));
        }
        _ => unreachable!(),
    }
    let projects = stored_projects(&h);
    assert!(
        projects.iter().any(|p| p.contains(GITHUB_MARKER)),
        "nothing stored under the marker: {projects:?}"
    );
    if tag == 'h' {
        let facts: i64 = h
            .conn()
            .query_row("SELECT count(*) FROM facts", [], |r| r.get(0))
            .unwrap();
        assert!(facts > 0, "compression wrote no facts: {projects:?}");
    }
    let dir = h.close();
    assert_eq!(holding(dir.path(), &token), Vec::<PathBuf>::new());
}

/// The redacted key is the one lookups use: a search or a list read that names the project
/// as its folder is named finds what was stored under it.
#[test]
fn a_project_named_after_a_secret_is_found_by_its_name() {
    let token = github_token('j');
    let mut h = Home::new();
    h.ok(
        &full(),
        "save_memory",
        json!({ "text": "pnpm cache lives in the home folder", "project": token }),
    );
    h.ok(
        &full(),
        "work_state_write",
        json!({ "list": "todo", "items": ["ship"], "project": token }),
    );
    let found = h.ok(
        &full(),
        "search",
        json!({ "query": "pnpm", "project": token }),
    );
    assert_eq!(found["hits"].as_array().unwrap().len(), 1, "{found}");
    let list = h.ok(
        &full(),
        "work_state_read",
        json!({ "list": "todo", "project": token }),
    );
    assert_eq!(list["items"], json!(["ship"]), "{list}");
    assert_eq!(list["project"], GITHUB_MARKER);
}

/// Every operation that takes a project name refuses one that is too long or holds a control
/// character, with one line that says what to do, and stores nothing.
#[rstest]
#[case::save_memory("save_memory", json!({ "text": "a note" }), "project")]
#[case::work_state_write("work_state_write", json!({ "list": "todo", "items": [] }), "project")]
#[case::search("search", json!({ "query": "x" }), "project")]
#[case::session_start_context("session_start_context", json!({}), "project")]
#[case::compress("compress", json!({}), "project")]
#[case::add_rule("add_rule", json!({ "then": "x", "scopeTier": "project" }), "scopeName")]
fn a_project_name_too_long_or_with_a_control_character_is_refused(
    #[case] op: &str,
    #[case] args: Value,
    #[case] field: &str,
) {
    let mut h = Home::new();
    let before = h.fingerprint();
    let entry = aletheia::ops::find(op).unwrap();
    for (name, want) in [
        (
            "x".repeat(3_500_000),
            "project name is 3,500,000 characters: use at most 200",
        ),
        (
            "shop\nrm -rf".to_owned(),
            "project name has a control character (U+000A): use printable characters",
        ),
    ] {
        let mut a = args.clone();
        a[field] = json!(name);
        match h.call(&full(), entry, a) {
            Err(OpError::InvalidArgument(m)) => {
                assert!(m.ends_with(want) && !m.contains('\n'), "{op}: {m}");
                assert!(m.len() < 200, "{op}: {m}");
            }
            other => panic!("{op} took it: {other:?}"),
        }
    }
    assert_eq!(h.fingerprint(), before, "{op} stored something");
    let mut a = args.clone();
    a[field] = json!("é".repeat(200));
    assert!(
        h.call(&full(), entry, a).is_ok(),
        "{op}: 200 characters are fine"
    );
}

/// An import names the record whose project it refuses.
#[test]
fn an_import_record_with_a_bad_project_is_refused_by_its_place() {
    let mut h = Home::new();
    let e = h
        .call(
            &full(),
            aletheia::ops::find("import").unwrap(),
            json!({ "records": [
                { "project": "shop", "kind": "note", "text": "fine", "created_at": T0 },
                { "project": "a\u{7}b", "kind": "note", "text": "bell", "created_at": T0 },
            ] }),
        )
        .unwrap_err();
    assert_eq!(
        e,
        OpError::InvalidArgument(
            "records[1].project: project name has a control character (U+0007): use printable characters".into()
        )
    );
    assert_eq!(
        h.store.count().unwrap(),
        0,
        "nothing of the batch was stored"
    );
}

/// A store that holds two projects in clear, whose keys both redact to one, comes out of a
/// scrub as one project: every table moved to the marker, the twin memory kept once with the
/// other's fact, file and pin, and the full-text index in step.
#[test]
fn scrub_merges_projects_that_redact_to_one_key() {
    let (a, b) = (github_token('k'), github_token('m'));
    let mut h = Home::new();
    // Rows as an older version wrote them: keys in clear, the same note in both projects.
    h.conn()
        .execute_batch(&format!(
            "INSERT INTO memories (uid, project, kind, type, title, text, tool, files, pinned, created_at, content_hash)
               VALUES ('u1', 'acme-{a}', 'note', 'note', 'cache', 'the cache expires hourly', 'cli', '[\"a.rs\"]', 0, 1, 'h1'),
                      ('u2', 'acme-{b}', 'note', 'note', 'cache', 'the cache expires hourly', 'cli', '[\"b.rs\"]', 1, 2, 'h1'),
                      ('u3', 'acme-{b}', 'note', 'note', 'queue', 'the queue retries twice', 'cli', '[]', 0, 3, 'h3');
             INSERT INTO memory_files (path, memory_id) VALUES ('a.rs', 1), ('b.rs', 2);
             INSERT INTO facts (project, subject, predicate, object, memory_id, valid_from, created_at)
               VALUES ('acme-{b}', 'cache', 'expires', 'hourly', 2, 1, 1);
             INSERT INTO work_lists (project, name, memory_id, items, updated_at)
               VALUES ('acme-{a}', 'todo', 1, '[\"old\"]', 1), ('acme-{b}', 'todo', 3, '[\"new\"]', 2);
             INSERT INTO session_queue (project, session_id, tool, enqueued_at) VALUES ('acme-{a}', 's1', 'cli', 1), ('acme-{b}', 's1', 'cli', 2);
             INSERT INTO jobs (type, project, session_id, run_after, created_at, updated_at)
               VALUES ('extract_session', 'acme-{a}', 's1', 1, 1, 1), ('extract_session', 'acme-{b}', 's1', 1, 1, 1);
             INSERT INTO rules (id, then_text, scope_tier, scope_name, source, created_at, confirmed_at)
               VALUES ('r_a', 'Run the tests', 'project', 'acme-{a}', 'cli', 1, 1), ('r_b', 'Run the tests', 'project', 'acme-{b}', 'cli', 2, 2);"
        ))
        .unwrap();
    let out = h.ok(&full(), "scrub", json!({}));
    assert!(out["projects"].as_u64().unwrap() > 0, "{out}");
    let key = format!("acme-{GITHUB_MARKER}");
    assert_eq!(stored_projects(&h), vec![key.clone()]);
    let count = |sql: &str| -> i64 { h.conn().query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(
        count("SELECT count(*) FROM memories"),
        2,
        "the twin is kept once"
    );
    assert_eq!(count("SELECT count(*) FROM rules"), 1);
    assert_eq!(count("SELECT count(*) FROM session_queue"), 1);
    assert_eq!(count("SELECT count(*) FROM jobs"), 1);
    assert_eq!(count("SELECT count(*) FROM work_lists"), 1);
    let (files, pinned): (String, bool) = h
        .conn()
        .query_row(
            "SELECT files, pinned FROM memories WHERE uid = 'u1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(files, r#"["a.rs","b.rs"]"#);
    assert!(pinned, "the other's pin moved to the one kept");
    assert_eq!(
        count(
            "SELECT count(*) FROM facts f JOIN memories m ON m.id = f.memory_id WHERE m.uid = 'u1'"
        ),
        1,
        "the other's fact points at the one kept"
    );
    assert_eq!(
        count("SELECT count(*) FROM memory_files WHERE memory_id = 1"),
        2
    );
    let items: String = h
        .conn()
        .query_row("SELECT items FROM work_lists", [], |r| r.get(0))
        .unwrap();
    assert_eq!(items, r#"["new"]"#, "the list written last is kept");
    h.conn()
        .execute(
            "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')",
            [],
        )
        .expect("the full-text index matches the table");
    let found = h.ok(
        &full(),
        "search",
        json!({ "query": "queue retries", "project": key }),
    );
    assert_eq!(found["hits"].as_array().unwrap().len(), 1, "{found}");
    let again = h.ok(&full(), "scrub", json!({}));
    assert_eq!(again["projects"], 0, "a second scrub changes nothing");
    // What the scrub replaced is gone from the files too, not left in freed pages, old
    // full-text segments or the WAL.
    let dir = h.close();
    for token in [&a, &b] {
        assert_eq!(holding(dir.path(), token), Vec::<PathBuf>::new(), "{token}");
    }
}

/// A key an older version stored too long or with a control character (a 3.5 MB name made the
/// dashboard's page 10.8 MB) is cut to 200 characters, each control character made `_`.
#[test]
fn scrub_fits_a_project_key_stored_too_long_or_with_a_control_character() {
    let mut h = Home::new();
    let long = format!("a\nb{}", "x".repeat(3_500_000));
    h.conn()
        .execute(
            "INSERT INTO memories (uid, project, kind, type, title, text, tool, created_at, content_hash)
             VALUES ('u1', ?1, 'note', 'note', 'cache', 'the cache expires hourly', 'cli', 1, 'h1')",
            [&long],
        )
        .unwrap();
    h.ok(&full(), "scrub", json!({}));
    let want: String = format!("a_b{}", "x".repeat(197));
    assert_eq!(stored_projects(&h), vec![want.clone()]);
    let listed = h.ok(&full(), "list_projects", json!({}));
    assert_eq!(listed[0]["project"], want, "{listed}");
}

/// The gate itself, apart from the operations that also look projects up redacted: each stored
/// type that names a project redacts it, so a write path that builds one from a key in clear
/// (a compression job, a spool line, a future front end) cannot store it.
#[test]
fn every_stored_type_redacts_its_project_key() {
    use aletheia::store::QueuedSession;
    use aletheia::store::rules::NewRule;
    use aletheia::store::state::NewList;
    let r = Redactor::builtin();
    let token = github_token('p');
    let memory = NewMemory {
        project: token.clone(),
        kind: Kind::Note,
        mtype: MemoryType::Note,
        title: "t".into(),
        text: "x".into(),
        host: "cli".into(),
        session_id: None,
        files: vec![],
        pinned: false,
        created_at: T0,
    };
    assert_eq!(Redacted::new(memory, &r).get().project, GITHUB_MARKER);
    let list = NewList {
        project: token.clone(),
        name: "todo".into(),
        items: json!([]),
    };
    assert_eq!(Redacted::new(list, &r).get().project, GITHUB_MARKER);
    let fact = NewFact {
        project: token.clone(),
        subject: "ci".into(),
        predicate: "uses".into(),
        object: "x".into(),
        confidence: 0.5,
        source: "rules".into(),
        memory_id: None,
        valid_from: T0,
        job_id: None,
    };
    assert_eq!(Redacted::new(fact, &r).get().project, GITHUB_MARKER);
    let rule = NewRule {
        when: "always".into(),
        then: "x".into(),
        scope_tier: "project".into(),
        scope_name: format!("{token}\n{}", "y".repeat(300)),
        source: "cli".into(),
        evidence: json!({}),
    };
    let scope = Redacted::new(rule, &r).get().scope_name.clone();
    assert_eq!(scope, format!("{GITHUB_MARKER}_{}", "y".repeat(176)));
    let queued = QueuedSession {
        project: token.clone(),
        session_id: "s1".into(),
        host: "cli".into(),
    };
    assert_eq!(Redacted::new(queued, &r).get().project, GITHUB_MARKER);
}
