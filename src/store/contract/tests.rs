//! The shared contract test set: what any engine behind [`Storage`] must answer, written
//! against `&mut dyn Storage` alone so that a second engine runs the very same cases on a
//! fresh store of its own. Here they run against the SQLite store.

use super::*;
use crate::model::{Kind, MemoryType};
use crate::store::OpenOptions;
use crate::store::search::{Candidates, DateOrder, Filter, TextQuery};

/// An engine that is not the hook's local store (SQLite underneath, every part delegated to
/// it, but no [`Storage::hook_store`]): what the operations do on the hub's engine.
pub(crate) struct Elsewhere(pub(crate) Store);

impl Storage for Elsewhere {}
impl HubStorage for Elsewhere {}

/// One case: it gets an empty store and panics when the engine breaks the contract.
type Case = fn(&mut dyn Storage);

/// Each case, by what it pins.
pub(crate) const CASES: &[(&str, Case)] = &[
    (
        "a_memory_stored_twice_is_kept_once",
        a_memory_stored_twice_is_kept_once,
    ),
    (
        "what_is_stored_is_read_back_redacted",
        what_is_stored_is_read_back_redacted,
    ),
    (
        "search_candidates_and_term_counts_agree",
        search_candidates_and_term_counts_agree,
    ),
    (
        "a_dismissed_memory_is_no_search_candidate",
        a_dismissed_memory_is_no_search_candidate,
    ),
    (
        "a_rule_added_twice_is_known_and_can_be_disabled",
        a_rule_added_twice_is_known_and_can_be_disabled,
    ),
    (
        "a_list_reads_back_what_was_written",
        a_list_reads_back_what_was_written,
    ),
    (
        "a_fact_stored_twice_is_a_duplicate",
        a_fact_stored_twice_is_a_duplicate,
    ),
    (
        "a_job_whose_lease_was_lost_writes_nothing",
        a_job_whose_lease_was_lost_writes_nothing,
    ),
    (
        "vectors_are_read_back_after_their_sequence",
        vectors_are_read_back_after_their_sequence,
    ),
    ("a_fresh_store_is_healthy", a_fresh_store_is_healthy),
    (
        "a_proposal_waits_once_and_is_settled_once",
        a_proposal_waits_once_and_is_settled_once,
    ),
    (
        "a_clients_level_is_set_changed_and_forgotten",
        a_clients_level_is_set_changed_and_forgotten,
    ),
];

fn memory(project: &str, title: &str, text: &str, at: i64) -> Redacted<NewMemory> {
    let m = NewMemory {
        project: project.into(),
        kind: Kind::Note,
        mtype: MemoryType::Note,
        title: title.into(),
        text: text.into(),
        host: "cli".into(),
        session_id: None,
        files: vec![],
        pinned: false,
        created_at: at,
    };
    Redacted::new(m, &Redactor::builtin())
}

fn redacted<T: crate::redact::Redact>(v: T) -> Redacted<T> {
    Redacted::new(v, &Redactor::builtin())
}

fn a_memory_stored_twice_is_kept_once(s: &mut dyn Storage) {
    let m = memory("shop", "deploys", "deploys go through staging", 1);
    let first = s.insert(&m).unwrap();
    let again = s.insert(&m).unwrap();
    assert!(first.new && !again.new);
    assert_eq!(first.id, again.id);
    assert_eq!(s.count().unwrap(), 1);
}

fn what_is_stored_is_read_back_redacted(s: &mut dyn Storage) {
    let key = format!("ghp_{}", "a".repeat(36));
    let id = s
        .insert(&memory("shop", "key", &format!("the key is {key}"), 1))
        .unwrap()
        .id;
    let read = s.get_many(&[id]).unwrap();
    assert_eq!(read.len(), 1);
    assert!(!read[0].text.contains(&key), "{}", read[0].text);
    assert_eq!(read[0].project, "shop");
}

fn search_candidates_and_term_counts_agree(s: &mut dyn Storage) {
    let a = s
        .insert(&memory("shop", "billing", "billing stores invoices", 1))
        .unwrap()
        .id;
    let b = s
        .insert(&memory("shop", "invoices", "invoices are sent monthly", 2))
        .unwrap()
        .id;
    s.insert(&memory("shop", "deploys", "deploys go through staging", 3))
        .unwrap();
    let terms = vec!["invoices".to_owned()];
    let found = s
        .matching_by_date(
            TextQuery::AnyWord(&terms),
            &Filter::default(),
            DateOrder::NewestFirst,
            10,
        )
        .unwrap();
    assert_eq!(found.iter().map(|m| m.id).collect::<Vec<_>>(), [b, a]);
    let mut counted = Vec::new();
    s.each_match_counted(&terms, Candidates::default(), None, &mut |id, c| {
        counted.push((id, c.clone()))
    })
    .unwrap();
    counted.sort_by_key(|(id, _)| *id);
    assert_eq!(
        counted.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        [a, b]
    );
    assert_eq!(s.indexed_rows().unwrap(), 3);
    let mut rows = s.candidate_rows().unwrap();
    assert_eq!(rows.get(a).unwrap().unwrap().project, "shop");
    assert!(rows.get(a + b + 100).unwrap().is_none());
}

fn a_dismissed_memory_is_no_search_candidate(s: &mut dyn Storage) {
    let id = s
        .insert(&memory("shop", "billing", "billing stores invoices", 1))
        .unwrap()
        .id;
    let entry = redacted(AuditEntry {
        actor: "cli".into(),
        reason: Some("wrong".into()),
    });
    assert!(
        s.set_dismissed(ItemType::Memory, id, true, &entry, 2)
            .unwrap()
    );
    let terms = vec!["invoices".to_owned()];
    let found = s
        .matching_by_date(
            TextQuery::AnyWord(&terms),
            &Filter::default(),
            DateOrder::NewestFirst,
            10,
        )
        .unwrap();
    assert!(found.is_empty());
    assert_eq!(
        s.item_project(ItemType::Memory, id).unwrap().as_deref(),
        Some("shop")
    );
}

fn a_rule_added_twice_is_known_and_can_be_disabled(s: &mut dyn Storage) {
    let rule = redacted(NewRule {
        when: "deploying".into(),
        then: "go through staging".into(),
        scope_tier: "project".into(),
        scope_name: "shop".into(),
        source: "cli".into(),
        evidence: serde_json::json!({}),
    });
    let (id, new) = s.add_rule(&rule, 1).unwrap();
    let (again, new_again) = s.add_rule(&rule, 2).unwrap();
    assert!(new && !new_again);
    assert_eq!(id, again);
    assert_eq!(s.enabled_rules(Some("shop")).unwrap().len(), 1);
    assert!(s.enabled_rules(Some("other")).unwrap().is_empty());
    assert!(s.set_rule_enabled(&id, false).unwrap());
    assert!(s.enabled_rules(Some("shop")).unwrap().is_empty());
    assert_eq!(s.all_rules(Some("shop")).unwrap().len(), 1);
}

fn a_list_reads_back_what_was_written(s: &mut dyn Storage) {
    let list = redacted(NewList {
        project: "shop".into(),
        name: "todo".into(),
        items: serde_json::json!(["ship it"]),
    });
    s.write_list(&list, "cli", 1).unwrap();
    let read = s.read_list("shop", "todo").unwrap().unwrap();
    let items: serde_json::Value = serde_json::from_str(&read).unwrap();
    assert_eq!(items, serde_json::json!(["ship it"]));
    assert_eq!(s.read_list("shop", "none").unwrap(), None);
}

fn a_fact_stored_twice_is_a_duplicate(s: &mut dyn Storage) {
    let fact = redacted(NewFact {
        project: "shop".into(),
        subject: "billing".into(),
        predicate: "uses".into(),
        object: "postgres".into(),
        confidence: 0.9,
        source: "rules".into(),
        memory_id: None,
        valid_from: 1,
        job_id: None,
    });
    let first = s.insert_fact(&fact, 1).unwrap();
    assert!(matches!(first, FactOutcome::New(_)), "{first:?}");
    assert_eq!(
        s.insert_fact(&fact, 2).unwrap(),
        FactOutcome::Duplicate(first.id())
    );
    let trusted = s.trusted_facts("shop", 10).unwrap();
    assert_eq!(trusted.len(), 1);
    assert_eq!(trusted[0].object, "postgres");
}

fn a_job_whose_lease_was_lost_writes_nothing(s: &mut dyn Storage) {
    const LEASE: i64 = 1000;
    let id = s
        .insert(&memory("shop", "billing", "billing stores invoices", 1))
        .unwrap()
        .id;
    assert!(s.queue_project_job("shop", 0).unwrap());
    let first = s.claim_job("w1", 0, LEASE, 5).unwrap().unwrap();
    let second = s.claim_job("w2", LEASE, LEASE, 5).unwrap().unwrap();
    let mut mark = |w: &mut dyn JobWrites| {
        w.mark_extracted(&[id], first.id, LEASE + 1)?;
        Ok("{}".to_owned())
    };
    assert!(!s.finish_job(&first, LEASE + 1, &mut mark).unwrap());
    assert_eq!(
        s.compression_sources("shop", None).unwrap().len(),
        1,
        "the lost job marked nothing read"
    );
    assert!(s.finish_job(&second, LEASE + 2, &mut mark).unwrap());
    assert!(s.compression_sources("shop", None).unwrap().is_empty());
    assert_eq!(s.job_counts().unwrap().done, 1);
}

fn vectors_are_read_back_after_their_sequence(s: &mut dyn Storage) {
    let a = s
        .insert(&memory("shop", "billing", "billing stores invoices", 1))
        .unwrap()
        .id;
    let b = s
        .insert(&memory("shop", "deploys", "deploys go through staging", 2))
        .unwrap()
        .id;
    assert_eq!(s.count_without_vector("m").unwrap(), 2);
    assert_eq!(s.put_vectors("m", &[(a, vec![0.6, 0.8])]).unwrap(), 1);
    assert_eq!(s.count_without_vector("m").unwrap(), 1);
    let missing = s.memories_without_vector("m", 0, 10).unwrap();
    assert_eq!(missing.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [b]);
    let stored = s.vectors_since("m", 0).unwrap();
    assert_eq!(stored.len(), 1);
    assert!(s.vectors_since("m", stored[0].seq).unwrap().is_empty());
    // Another model's vectors are neither read nor count as this one's: a switch of model
    // gives every memory a vector of the new one.
    assert!(s.vectors_since("other", 0).unwrap().is_empty());
    assert_eq!(s.count_without_vector("other").unwrap(), 2);
    assert_eq!(s.put_vectors("other", &[(a, vec![0.8, 0.6])]).unwrap(), 1);
    assert_eq!(s.count_without_vector("m").unwrap(), 2);
    assert_eq!(s.vectors_since("other", 0).unwrap().len(), 1);
}

fn proposal(text: &str, project: &str, at: i64) -> Redacted<crate::store::inbox::NewProposal> {
    let args = serde_json::json!({ "text": text, "project": project });
    redacted(crate::store::inbox::NewProposal {
        op: "save_memory".into(),
        key: args.to_string(),
        args: args.as_object().cloned().unwrap_or_default(),
        client: "agent".into(),
        project: project.into(),
        summary: format!("memory [note] {text}"),
        reference: None,
        why: "agent is at propose".into(),
        created_at: at,
    })
}

fn a_proposal_waits_once_and_is_settled_once(s: &mut dyn Storage) {
    use crate::store::inbox::ProposalState;
    let (a, new) = s
        .propose(&proposal(
            "Deploys use ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
            "shop",
            10,
        ))
        .unwrap();
    assert!(new);
    assert_eq!(
        s.propose(&proposal(
            "Deploys use ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
            "shop",
            11
        ))
        .unwrap(),
        (a, false)
    );
    let (b, _) = s
        .propose(&proposal("Invoices on the 1st", "billing", 12))
        .unwrap();
    let waiting = s.proposals(None, true, 10).unwrap();
    assert_eq!(waiting.iter().map(|p| p.id).collect::<Vec<_>>(), vec![a, b]);
    // Stored redacted, arguments and summary alike.
    let first = &waiting[0];
    assert_eq!(first.args["text"], "Deploys use [redacted:github-token]");
    assert_eq!(
        first.summary,
        "memory [note] Deploys use [redacted:github-token]"
    );
    assert_eq!(first.state, ProposalState::Pending);
    assert_eq!(s.proposals(Some("billing"), true, 10).unwrap().len(), 1);
    assert!(s.settle_proposal(a, true, "cli", "{\"id\":1}", 20).unwrap());
    assert!(
        !s.settle_proposal(a, false, "cli", "", 21).unwrap(),
        "settled once"
    );
    let settled = s.proposal(a).unwrap().unwrap();
    assert_eq!(settled.state, ProposalState::Accepted);
    assert_eq!(settled.decided_at, Some(20));
    assert_eq!(settled.outcome.as_deref(), Some("{\"id\":1}"));
    assert_eq!(s.proposals(None, false, 10).unwrap()[0].id, a);
    // Once settled, the same request may wait again.
    let (again, new) = s
        .propose(&proposal(
            "Deploys use ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
            "shop",
            30,
        ))
        .unwrap();
    assert!(new && again != a);
    assert!(s.proposal(9999).unwrap().is_none());
}

fn a_clients_level_is_set_changed_and_forgotten(s: &mut dyn Storage) {
    assert_eq!(s.client_trust("cursor").unwrap(), None);
    assert!(s.set_client_trust("cursor", Some("propose"), 1).unwrap());
    assert!(
        !s.set_client_trust("cursor", Some("propose"), 2).unwrap(),
        "no change"
    );
    assert!(s.set_client_trust("cursor", Some("read"), 3).unwrap());
    assert!(s.set_client_trust("agent", Some("write"), 4).unwrap());
    assert_eq!(s.client_trust("cursor").unwrap().as_deref(), Some("read"));
    let all: Vec<(String, String, i64)> = s
        .client_trusts()
        .unwrap()
        .into_iter()
        .map(|c| (c.client, c.level, c.set_at))
        .collect();
    assert_eq!(
        all,
        vec![
            ("agent".into(), "write".into(), 4),
            ("cursor".into(), "read".into(), 3)
        ]
    );
    assert!(s.set_client_trust("cursor", None, 5).unwrap());
    assert!(!s.set_client_trust("cursor", None, 6).unwrap());
    assert_eq!(s.client_trust("cursor").unwrap(), None);
}

fn a_fresh_store_is_healthy(s: &mut dyn Storage) {
    s.insert(&memory("shop", "billing", "billing stores invoices", 1))
        .unwrap();
    assert_eq!(s.quick_check().unwrap(), "ok");
    assert!(s.search_index_consistent().unwrap());
    assert!(s.schema_version().unwrap() > 0);
}

#[test]
fn the_sqlite_store_keeps_the_storage_contract() {
    for (name, case) in CASES {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("contract case {name}");
        let storage: &mut dyn Storage = &mut store;
        case(storage);
    }
}

#[test]
fn operations_run_on_an_engine_that_is_not_the_hooks_store() {
    use crate::ops::{Caller, Context, OpError, call};
    use crate::time::Clock;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
    let mut engine = Elsewhere(store);
    let redactor = Redactor::builtin();
    let paths = crate::config::Paths::within(dir.path());
    let mut ctx = Context {
        store: &mut engine,
        redactor: &redactor,
        clock: Clock::utc(1_780_000_000_000),
        caller: Caller::local("cli", "shop"),
        paths: Some(&paths),
        semantic: None,
        extraction: None,
        root: None,
    };
    let save: crate::ops::memories::SaveMemory = serde_json::from_value(serde_json::json!({
        "text": "invoices are sent monthly", "project": "shop"
    }))
    .unwrap();
    let saved = call(&mut ctx, save).unwrap();
    let search: crate::ops::recall::Search =
        serde_json::from_value(serde_json::json!({ "query": "invoices" })).unwrap();
    let found = call(&mut ctx, search).unwrap();
    assert_eq!(
        found.hits.iter().map(|h| h.memory.id).collect::<Vec<_>>(),
        [saved.id]
    );
    let capture: crate::ops::capture::CaptureEvent = serde_json::from_value(serde_json::json!({
        "tool": "claude-code", "event": "UserPromptSubmit",
        "payload": { "session_id": "s1", "cwd": "/home/dev/shop", "prompt": "add a discount" }
    }))
    .unwrap();
    let refused = call(&mut ctx, capture).unwrap_err();
    assert!(
        matches!(&refused, OpError::StoreUnavailable(m) if m.contains("hook path")),
        "{refused:?}"
    );
    let drained = call(&mut ctx, crate::ops::upkeep::Drain {}).unwrap_err();
    assert!(matches!(drained, OpError::NotFound(_)), "{drained:?}");
}

/// A case of the hub's parts: it gets an empty hub store.
type HubCase = fn(&mut dyn HubStorage);

/// The hub's cases, by what they pin.
pub(crate) const HUB_CASES: &[(&str, HubCase)] = &[
    (
        "a_token_is_kept_by_its_hash_and_revoked_once",
        a_token_is_kept_by_its_hash_and_revoked_once,
    ),
    (
        "a_push_taken_twice_changes_nothing_and_is_served_once",
        a_push_taken_twice_changes_nothing_and_is_served_once,
    ),
    (
        "the_61st_request_in_a_minute_is_refused_until_the_first_is_a_minute_old",
        the_61st_request_in_a_minute_is_refused_until_the_first_is_a_minute_old,
    ),
];

fn the_61st_request_in_a_minute_is_refused_until_the_first_is_a_minute_old(s: &mut dyn HubStorage) {
    for i in 0..60 {
        assert_eq!(
            s.admit_request(1, 1_000 + i * 100, 60).unwrap(),
            Ok(()),
            "request {}",
            i + 1
        );
    }
    // The first was at 1,000 ms: it leaves the window at 61,000.
    assert_eq!(s.admit_request(1, 7_000, 60).unwrap(), Err(54));
    assert_eq!(s.admit_request(1, 60_999, 60).unwrap(), Err(1));
    assert_eq!(
        s.admit_request(2, 7_000, 60).unwrap(),
        Ok(()),
        "another token has its own window"
    );
    assert_eq!(s.admit_request(1, 61_000, 60).unwrap(), Ok(()));
    assert_eq!(
        s.admit_request(1, 61_050, 60).unwrap(),
        Err(1),
        "the second leaves at 61,100"
    );
}

fn a_token_is_kept_by_its_hash_and_revoked_once(s: &mut dyn HubStorage) {
    let t = crate::store::hub::NewToken {
        hash: "ab".repeat(32),
        label: "laptop".into(),
        scope: "sync".into(),
        projects: Some(vec!["shop".into()]),
        created_at: 1,
        expires_at: None,
        created_by: None,
    };
    let id = s.create_token(&redacted(t)).unwrap();
    let got = s.token(id).unwrap().unwrap();
    assert_eq!(
        (got.hash.as_str(), got.projects.as_deref()),
        ("ab".repeat(32).as_str(), Some(&["shop".to_owned()][..]))
    );
    assert!(s.revoke_token(id, 5).unwrap());
    assert!(!s.revoke_token(id, 6).unwrap());
    assert_eq!(s.tokens().unwrap()[0].revoked_at, Some(5));
    let call = CallEntry {
        at: 7,
        token_id: id,
        label: "laptop".into(),
        tool: "search".into(),
        project: Some("shop".into()),
        result: "ok".into(),
    };
    s.record_call(&redacted(call.clone())).unwrap();
    assert_eq!(s.calls(0, Some(id), 10).unwrap(), vec![call]);
}

fn a_push_taken_twice_changes_nothing_and_is_served_once(s: &mut dyn HubStorage) {
    use crate::sync::item::{Change, Item, MemoryItem};
    s.enable_sync().unwrap();
    let change = Change {
        rev: crate::sync::hlc::first(1_000, "m1"),
        base: None,
        origin: "m1".into(),
        item: Item::Memory(MemoryItem {
            uid: "u1".into(),
            project: "github.com/acme/shop".into(),
            kind: "note".into(),
            mtype: "note".into(),
            title: "t".into(),
            text: "the cache is warm".into(),
            tool: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            dismissed: false,
            created_at: 1_000,
        }),
    };
    let batch = Batch {
        machine: "m1".into(),
        projects: [("github.com/acme/shop".to_owned(), "shop".to_owned())].into(),
        changes: vec![change],
    };
    let all = |_: &str| true;
    let pusher = Pusher {
        token: 1,
        allowed: &all,
        may_tie: true,
        now: 2_000,
    };
    let first = s.sync_receive(&redacted(batch.clone()), &pusher).unwrap();
    let again = s.sync_receive(&redacted(batch.clone()), &pusher).unwrap();
    let other = Pusher { token: 2, ..pusher };
    let stolen = s.sync_receive(&redacted(batch), &other).unwrap();
    assert!(
        stolen.rejected.is_some(),
        "a machine id is its first token's"
    );
    assert_eq!((first.accepted, again.accepted, again.unchanged), (1, 0, 1));
    let (served, next, left) = s.sync_changes_since(0, 10, "m2", &all).unwrap();
    assert_eq!((served.changes.len(), left), (1, 0));
    assert_eq!(
        served
            .projects
            .get("github.com/acme/shop")
            .map(String::as_str),
        Some("shop")
    );
    let (own, _, _) = s.sync_changes_since(0, 10, "m1", &all).unwrap();
    assert!(
        own.changes.is_empty(),
        "a machine is not served its own revisions"
    );
    let (after, _, _) = s.sync_changes_since(next, 10, "m2", &all).unwrap();
    assert!(after.changes.is_empty());
    assert!(s.sync_conflicts(10).unwrap().is_empty());
}

#[test]
fn the_sqlite_hub_store_keeps_the_hub_contract() {
    for (name, case) in HUB_CASES {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open_hub(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("hub contract case {name}");
        let storage: &mut dyn HubStorage = &mut store;
        case(storage);
    }
}

#[cfg(feature = "server")]
#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn the_postgresql_store_keeps_the_storage_and_hub_contracts() {
    for (name, case) in CASES {
        eprintln!("contract case {name} on PostgreSQL");
        let mut store = crate::store::postgres::testing::fresh();
        case(&mut store);
    }
    for (name, case) in HUB_CASES {
        eprintln!("hub contract case {name} on PostgreSQL");
        let mut store = crate::store::postgres::testing::fresh();
        case(&mut store);
    }
}
