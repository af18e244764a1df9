use super::*;
use proptest::prelude::*;
use std::collections::HashMap;

fn key(n: u8) -> MachineKey {
    MachineKey::from_seed(&[n; 32])
}

fn change<'a>(action: &'a str, item: &'a str, text: &str, at_ms: i64) -> Change<'a> {
    Change {
        action,
        item,
        content_hash: content_hash(&[text]),
        actor: "claude-code",
        at_ms,
    }
}

/// A chain of `n` entries of machine `machine`, signed with `k` (the sync tests' too).
pub(crate) fn chain(k: &MachineKey, machine: &str, n: usize) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for i in 0..n {
        let item = format!("memory:{i}");
        let at = 1_000 + i64::try_from(i).unwrap();
        let c = change("memory.save", &item, &format!("text {i}"), at);
        let e = append(k, machine, out.last(), &c);
        out.push(e);
    }
    out
}

fn keys(pairs: &[(&str, &MachineKey)]) -> impl Fn(&str) -> Option<PublicKey> + use<> {
    let map: HashMap<String, PublicKey> = pairs
        .iter()
        .map(|(m, k)| ((*m).to_owned(), k.public()))
        .collect();
    move |m| map.get(m).copied()
}

#[test]
fn a_chain_of_several_entries_verifies() {
    let k = key(1);
    let entries = chain(&k, "m1", 6);
    assert_eq!(entries[0].seq, 1);
    assert_eq!(entries[0].prev, GENESIS);
    assert_eq!(entries[5].seq, 6);
    assert_eq!(entries[5].prev, entries[4].hash);
    assert_eq!(verify_chain(&entries, keys(&[("m1", &k)])), Ok(6));
}

#[test]
fn a_changed_content_hash_breaks_the_hash_of_that_entry() {
    let k = key(1);
    let mut entries = chain(&k, "m1", 5);
    entries[2].content_hash[7] ^= 1;
    let b = verify_chain(&entries, keys(&[("m1", &k)])).unwrap_err();
    assert_eq!((b.seq, b.what.clone()), (3, BreakKind::Hash));
    assert_eq!(b.item, "memory:2");
}

#[test]
fn every_field_is_covered_by_the_hash() {
    let k = key(1);
    let base = chain(&k, "m1", 1).remove(0);
    let edits: [fn(&mut Entry); 6] = [
        |e| e.at_ms += 1,
        |e| e.action.push('x'),
        |e| e.item.push('x'),
        |e| e.actor.push('x'),
        |e| e.prev[0] ^= 1,
        |e| e.machine.push('x'),
    ];
    for edit in edits {
        let mut e = base.clone();
        edit(&mut e);
        assert_ne!(e.computed_hash(), base.hash);
    }
}

#[test]
fn a_removed_middle_entry_is_missing() {
    let k = key(1);
    let mut entries = chain(&k, "m1", 5);
    entries.remove(2);
    let b = verify_chain(&entries, keys(&[("m1", &k)])).unwrap_err();
    assert_eq!(b.seq, 4);
    assert_eq!(b.what, BreakKind::Missing { expected_seq: 3 });
    assert_eq!(
        b.to_string(),
        "entry 4 of machine m1 (memory:3, memory.save by claude-code) does not hold: \
         entry 3 before it is missing"
    );
}

#[test]
fn a_removed_first_entry_is_missing() {
    let k = key(1);
    let entries = chain(&k, "m1", 3);
    let b = verify_chain(&entries[1..], keys(&[("m1", &k)])).unwrap_err();
    assert_eq!((b.seq, b.what), (2, BreakKind::Missing { expected_seq: 1 }));
}

#[test]
fn a_signature_by_another_key_is_refused() {
    let k = key(1);
    let mut entries = chain(&k, "m1", 4);
    entries[1].signature = key(2).sign(&entries[1].hash);
    let b = verify_chain(&entries, keys(&[("m1", &k)])).unwrap_err();
    let fingerprint = k.public().fingerprint();
    assert_eq!(
        (b.seq, b.what.clone()),
        (
            2,
            BreakKind::Signature {
                fingerprint: fingerprint.clone()
            }
        )
    );
    assert_eq!(
        b.to_string(),
        format!(
            "entry 2 of machine m1 (memory:1, memory.save by claude-code) does not hold: \
             its signature is not machine m1's (key {fingerprint})"
        )
    );
}

#[test]
fn a_rewritten_chain_does_not_verify_with_the_pinned_key() {
    let k = key(1);
    let entries = chain(&k, "m1", 3);
    let forged = chain(&key(2), "m1", 3);
    let b = verify_chain(&forged, keys(&[("m1", &k)])).unwrap_err();
    assert_eq!(b.seq, 1);
    assert!(matches!(b.what, BreakKind::Signature { .. }));
    assert_eq!(verify_chain(&entries, keys(&[("m1", &k)])), Ok(3));
}

#[test]
fn an_entry_from_an_unknown_machine_is_reported() {
    let k = key(1);
    let mut entries = chain(&k, "m1", 2);
    entries.extend(chain(&key(2), "m2", 2));
    let b = verify_chain(&entries, keys(&[("m1", &k)])).unwrap_err();
    assert_eq!((b.machine.as_str(), b.seq), ("m2", 1));
    assert_eq!(b.what, BreakKind::UnknownMachine);
    assert!(
        b.to_string()
            .ends_with("no public key is known for machine m2")
    );
}

#[test]
fn interleaved_chains_of_two_machines_verify() {
    let (k1, k2) = (key(1), key(2));
    let a = chain(&k1, "m1", 5);
    let b = chain(&k2, "m2", 4);
    // As sync might hand them over: interleaved, and each machine's out of order too.
    let mut mixed: Vec<&Entry> = Vec::new();
    for i in (0..5).rev() {
        mixed.push(&a[i]);
        if let Some(e) = b.get(i) {
            mixed.push(e);
        }
    }
    let key_of = keys(&[("m1", &k1), ("m2", &k2)]);
    assert_eq!(verify_chain(mixed.iter().copied(), &key_of), Ok(9));
    // A break in one machine's chain is found among the other's entries.
    let mut b2 = b.clone();
    b2[2].actor = "someone".into();
    let broken = verify_chain(a.iter().chain(&b2), &key_of).unwrap_err();
    assert_eq!((broken.machine.as_str(), broken.seq), ("m2", 3));
}

#[test]
fn the_earliest_break_is_reported_when_several_chains_break() {
    let (k1, k2) = (key(1), key(2));
    let mut a = chain(&k1, "a", 4);
    let mut b = chain(&k2, "b", 4);
    a[3].item.push('!');
    b[1].item.push('!');
    let broken = verify_chain(a.iter().chain(&b), keys(&[("a", &k1), ("b", &k2)])).unwrap_err();
    assert_eq!((broken.machine.as_str(), broken.seq), ("b", 2));
}

#[test]
fn an_entry_linked_to_another_predecessor_breaks_the_linkage() {
    let k = key(1);
    let a = chain(&k, "m1", 2);
    let other = append(&k, "m1", None, &change("rule.add", "rule:1", "x", 5));
    let stray = append(
        &k,
        "m1",
        Some(&other),
        &change("rule.add", "rule:2", "y", 6),
    );
    let b = verify_chain([&a[0], &stray], keys(&[("m1", &k)])).unwrap_err();
    assert_eq!((b.seq, b.what.clone()), (2, BreakKind::Linkage));
    assert!(
        b.to_string()
            .ends_with("the entry before it that it names is not entry 1")
    );
    // And the chain's first entry may name none.
    let b = verify_chain([&stray], keys(&[("m1", &k)])).unwrap_err();
    assert_eq!(b.what, BreakKind::Missing { expected_seq: 1 });
}

#[test]
fn two_entries_in_one_place_are_a_fork_and_a_repeated_entry_is_not() {
    let k = key(1);
    let a = chain(&k, "m1", 3);
    let twin = append(
        &k,
        "m1",
        Some(&a[0]),
        &change("memory.edit", "memory:0", "z", 9),
    );
    let b = verify_chain([&a[0], &a[1], &twin, &a[2]], keys(&[("m1", &k)])).unwrap_err();
    assert_eq!((b.seq, b.what), (2, BreakKind::Fork));
    let again = [&a[0], &a[1], &a[1], &a[2], &a[2]];
    assert_eq!(verify_chain(again, keys(&[("m1", &k)])), Ok(3));
}

#[test]
fn check_continues_a_chain_from_its_newest_entry() {
    let k = key(1);
    let a = chain(&k, "m1", 4);
    assert_eq!(a[3].check(Some(&a[2]), &k.public()), Ok(()));
    assert_eq!(a[0].check(None, &k.public()), Ok(()));
    assert_eq!(
        a[3].check(Some(&a[1]), &k.public()),
        Err(BreakKind::Missing { expected_seq: 3 })
    );
    assert_eq!(a[1].check(Some(&a[2]), &k.public()), Err(BreakKind::Fork));
}

#[test]
fn content_hashes_prefix_each_part_with_its_length() {
    assert_ne!(content_hash(&["ab", "c"]), content_hash(&["a", "bc"]));
    assert_ne!(content_hash(&["a"]), content_hash(&["a", ""]));
    assert_ne!(content_hash(&[]), REMOVED);
    assert_eq!(content_hash(&["a", "b"]), content_hash(&["a", "b"]));
}

#[test]
fn rows_changed_removed_or_unrecorded_are_reported() {
    let k = key(1);
    let mut a = chain(&k, "m1", 3);
    let dismissed = change("memory.dismiss", "memory:2", "", 2_000);
    let mut gone = change("memory.forget", "memory:1", "", 2_001);
    gone.content_hash = REMOVED;
    a.push(append(&k, "m1", a.last(), &dismissed));
    a.push(append(&k, "m1", a.last(), &gone));
    // The newest per item: memory:0 from entry 1, memory:2 from entry 4, memory:1 from entry 5.
    let newest = [&a[0], &a[1], &a[2], &a[3], &a[4]];
    let mut current: HashMap<String, [u8; 32]> = HashMap::new();
    current.insert("memory:0".into(), content_hash(&["text 0"]));
    current.insert("memory:2".into(), content_hash(&[""]));
    assert_eq!(mismatches(newest, &current), vec![]);

    current.insert("memory:0".into(), content_hash(&["edited by hand"]));
    current.remove("memory:2");
    current.insert("memory:1".into(), content_hash(&["back"]));
    current.insert("memory:9".into(), content_hash(&["new"]));
    let found = mismatches(newest, &current);
    assert_eq!(
        found,
        vec![
            Mismatch::Changed { newest: &a[0] },
            Mismatch::Changed { newest: &a[4] },
            Mismatch::Removed { newest: &a[3] },
            Mismatch::Unrecorded { item: "memory:9" },
        ]
    );
    assert_eq!(
        found[0].to_string(),
        "memory:0 was changed outside aletheia: it is not as entry 1 of machine m1 \
         (memory.save by claude-code) left it"
    );
}

#[test]
fn public_keys_round_trip_as_text_and_garbage_is_refused() {
    let p = key(3).public();
    let text = p.to_text();
    assert!(text.starts_with("ed25519:"), "{text}");
    assert_eq!(PublicKey::from_text(&text), Ok(p));
    assert_eq!(text.parse::<PublicKey>(), Ok(p));
    assert_eq!(
        serde_json::from_str::<PublicKey>(&serde_json::to_string(&p).unwrap()).unwrap(),
        p
    );
    assert_eq!(p.fingerprint().len(), 16);
    assert_ne!(p.fingerprint(), key(4).public().fingerprint());
    for bad in [
        "",
        "ed25519:",
        "ed25519:!!!!",
        "rsa:AAAA",
        &text[..text.len() - 4],
    ] {
        assert!(PublicKey::from_text(bad).is_err(), "{bad}");
    }
}

#[test]
fn pins_tell_new_same_and_changed_keys() {
    let (a, b) = (key(1).public(), key(2).public());
    assert_eq!(pin(None, &a), Pin::New);
    assert_eq!(pin(Some(&a), &a), Pin::Same);
    assert_eq!(pin(Some(&a), &b), Pin::Changed { was: a });
}

#[test]
fn hex_round_trips_and_refuses_other_spellings() {
    let bytes = [0x00, 0x7f, 0xab, 0xff];
    assert_eq!(to_hex(&bytes), "007fabff");
    assert_eq!(from_hex::<4>("007fabff"), Some(bytes));
    assert_eq!(from_hex::<4>("007FABFF"), None);
    assert_eq!(from_hex::<4>("007fab"), None);
    assert_eq!(from_hex::<2>("0g00"), None);
}

#[test]
fn entries_serialise_with_hex_hashes() {
    let e = chain(&key(1), "m1", 1).remove(0);
    let json: serde_json::Value = serde_json::to_value(&e).unwrap();
    assert_eq!(json["hash"], to_hex(&e.hash));
    assert_eq!(json["signature"].as_str().unwrap().len(), 128);
    assert_eq!(json["prev"], "0".repeat(64));
    let mut bad = json.clone();
    bad["hash"] = "AB".repeat(32).into();
    assert!(serde_json::from_value::<Entry>(bad).is_err());
}

proptest! {
    #[test]
    fn entries_round_trip_through_json(
        seq in any::<i64>(),
        machine in ".{0,20}",
        at_ms in any::<i64>(),
        action in ".{0,20}",
        item in ".{0,40}",
        actor in "\\PC{0,20}",
        content_hash in any::<[u8; 32]>(),
        prev in any::<[u8; 32]>(),
        hash in any::<[u8; 32]>(),
        signature in proptest::collection::vec(any::<u8>(), 64),
    ) {
        let e = Entry {
            seq, machine, at_ms, action, item, actor, content_hash, prev, hash,
            signature: signature.try_into().unwrap(),
        };
        let json = serde_json::to_string(&e).unwrap();
        prop_assert_eq!(serde_json::from_str::<Entry>(&json).unwrap(), e);
    }
}

mod key_file {
    use super::super::*;
    use std::fs;
    use std::sync::{Arc, Barrier};

    #[test]
    fn is_created_private_and_reloads_as_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let k = MachineKey::load_or_create(&data).unwrap();
        let path = data.join(KEY_FILE);
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("aletheia-machine-key-v1 ed25519\n"),
            "{text}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        let again = MachineKey::load_or_create(&data).unwrap();
        assert_eq!(again.public(), k.public());
        let names: Vec<_> = fs::read_dir(&data)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [KEY_FILE]);
        // What it signs, its public key checks.
        let e = append(&k, "m1", None, &super::change("fact.add", "fact:1", "f", 1));
        assert_eq!(verify_chain([&e], |_| Some(again.public())), Ok(1));
    }

    #[cfg(unix)]
    #[test]
    fn is_refused_when_others_can_read_it() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        MachineKey::load_or_create(dir.path()).unwrap();
        let path = dir.path().join(KEY_FILE);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let err = MachineKey::load_or_create(dir.path()).unwrap_err();
        assert!(
            matches!(err, KeyError::Exposed { mode: 0o640, .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&format!("run `chmod 600 {}`", path.display())),
            "{message}"
        );
        assert!(!message.contains('\n'));
    }

    #[test]
    fn a_damaged_file_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        MachineKey::load_or_create(dir.path()).unwrap();
        let path = dir.path().join(KEY_FILE);
        let text = fs::read_to_string(&path).unwrap();
        for damaged in [
            &text[..text.len() - 5],
            "",
            "aletheia-machine-key-v1 ed25519\n",
            "junk\n",
        ] {
            fs::write(&path, damaged).unwrap();
            let err = MachineKey::load_or_create(dir.path()).unwrap_err();
            assert!(
                matches!(err, KeyError::Malformed { .. }),
                "{damaged:?}: {err:?}"
            );
            assert_eq!(fs::read_to_string(&path).unwrap(), damaged);
        }
    }

    #[test]
    fn racing_creators_end_with_one_key() {
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let barrier = Arc::new(Barrier::new(4));
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    let (dir, barrier) = (dir.path().to_owned(), Arc::clone(&barrier));
                    std::thread::spawn(move || {
                        barrier.wait();
                        MachineKey::load_or_create(&dir).unwrap().public()
                    })
                })
                .collect();
            let keys: Vec<PublicKey> = threads.into_iter().map(|t| t.join().unwrap()).collect();
            let on_disk = MachineKey::load_or_create(dir.path()).unwrap().public();
            assert!(
                keys.iter().all(|k| *k == on_disk),
                "{keys:?} vs {on_disk:?}"
            );
            assert_eq!(
                fs::read_dir(dir.path()).unwrap().count(),
                1,
                "temporary files left"
            );
        }
    }
}
