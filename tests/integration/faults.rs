//! The fail-open promise: whatever is wrong with the store, the hook exits 0, the event lands in
//! the spool, and the next run that reaches the store brings it in exactly once.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use support::{Env, prompt_payload};

/// Titles of stored prompts, to check "exactly once".
fn titles(env: &Env) -> Vec<String> {
    env.memories().into_iter().map(|(_, t, _)| t).collect()
}

/// After a fault: the event is spooled; once the fault is gone, the next hook drains it.
fn assert_recovers(env: &Env, spooled_at: &std::path::Path) {
    let line = std::fs::read_to_string(spooled_at).unwrap();
    assert!(
        line.contains(r#""kind":"memory""#) && line.contains("remember the cache TTL"),
        "{line}"
    );
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        prompt_payload("second prompt after the fault"),
    );
    let t = titles(env);
    assert_eq!(
        t.iter()
            .filter(|t| *t == "remember the cache TTL is 60 seconds")
            .count(),
        1,
        "{t:?}"
    );
    assert!(
        t.contains(&"second prompt after the fault".to_string()),
        "{t:?}"
    );
    assert_eq!(
        std::fs::metadata(spooled_at).map(|m| m.len()).unwrap_or(0),
        0,
        "spool not emptied"
    );
    // A further run does not bring anything in twice.
    let before = env.count();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("third"));
    assert_eq!(env.count(), before + 1);
    let t = titles(env);
    let unique: std::collections::HashSet<_> = t.iter().collect();
    assert_eq!(unique.len(), t.len(), "doubled: {t:?}");
}

const FIRST: &str = "remember the cache TTL is 60 seconds";

#[test]
fn a_missing_store_path_spools_in_the_data_directory() {
    let env = Env::new();
    let out = env
        .cmd()
        .env("ALETHEIA_HUB_DB", env.dir.path().join("nonexistent/hub.db"))
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(prompt_payload(FIRST))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("spooled to"));
    assert!(
        !env.dir.path().join("nonexistent").exists(),
        "an explicit store folder is never created"
    );
    assert_eq!(env.spool_lines(), 1);
    assert_recovers(&env, &env.spool());
}

#[test]
fn a_store_locked_by_another_writer_spools() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("warm up"));
    let conn = env.hold_write_lock();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload(FIRST));
    assert_eq!(env.spool_lines(), 1);
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);
    assert_recovers(&env, &env.spool());
}

#[test]
fn a_corrupt_store_spools_until_it_is_replaced() {
    let env = Env::new();
    std::fs::create_dir_all(env.data()).unwrap();
    let garbage: Vec<u8> = (0..64 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(env.db(), &garbage).unwrap();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload(FIRST));
    assert_eq!(env.spool_lines(), 1);
    std::fs::remove_file(env.db()).unwrap();
    assert_recovers(&env, &env.spool());
}

#[test]
fn a_newer_schema_spools_instead_of_writing() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("warm up"));
    env.conn().pragma_update(None, "user_version", 999).unwrap();
    let out = env
        .cmd()
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(prompt_payload(FIRST))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("upgrade aletheia"));
    assert_eq!(env.spool_lines(), 1);
    let search = env.cmd().args(["search", "anything"]).output().unwrap();
    assert!(!search.status.success());
    assert!(String::from_utf8_lossy(&search.stderr).contains("schema version 999"));
}

/// Run as an unprivileged user when the suite runs as root, since root ignores file modes.
fn unprivileged(env: &Env) -> assert_cmd::Command {
    let mut c = env.cmd();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let bin = env.dir.path().join("bin/aletheia");
        if !bin.exists() {
            std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
            support::copy_executable(&assert_cmd::cargo::cargo_bin("aletheia"), &bin);
        }
        let mut std_cmd = std::process::Command::new(&bin);
        std_cmd
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", env.dir.path())
            .env("TMPDIR", env.tmp())
            .env("ALETHEIA_DATA_DIR", env.data())
            .env("ALETHEIA_CWD", "/home/dev/shop")
            .uid(65534)
            .gid(65534);
        c = assert_cmd::Command::from_std(std_cmd);
    }
    c
}

fn chmod(p: &std::path::Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_read_only_store_spools_and_drains_once_writable() {
    let env = Env::new();
    chmod(env.dir.path(), 0o755);
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("warm up"));
    std::fs::create_dir_all(env.spool().parent().unwrap()).unwrap();
    chmod(&env.data(), 0o777);
    chmod(env.spool().parent().unwrap(), 0o777);
    for f in ["hub.db", "hub.db-wal", "hub.db-shm"] {
        if env.data().join(f).exists() {
            chmod(&env.data().join(f), 0o444);
        }
    }
    let out = unprivileged(&env)
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(prompt_payload(FIRST))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        env.spool_lines(),
        1,
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in ["hub.db", "hub.db-wal", "hub.db-shm"] {
        if env.data().join(f).exists() {
            chmod(&env.data().join(f), 0o644);
        }
    }
    assert_recovers(&env, &env.spool());
}

#[test]
fn an_unwritable_data_directory_falls_back_to_the_temp_spool() {
    let env = Env::new();
    chmod(env.dir.path(), 0o755);
    chmod(&env.tmp(), 0o777);
    std::fs::create_dir_all(env.data()).unwrap();
    chmod(&env.data(), 0o555);
    let out = unprivileged(&env)
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(prompt_payload(FIRST))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let fallback: Vec<_> = std::fs::read_dir(env.tmp())
        .unwrap()
        .map(|e| e.unwrap().path().join("hook-spool.jsonl"))
        .filter(|p| p.exists())
        .collect();
    assert_eq!(
        fallback.len(),
        1,
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    chmod(&env.data(), 0o777);
    let out = unprivileged(&env)
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(prompt_payload("second prompt after the fault"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let t = titles(&env);
    assert_eq!(
        t,
        vec![
            FIRST.to_string(),
            "second prompt after the fault".to_string()
        ]
    );
    // Drained: the spool is taken aside and removed.
    assert_eq!(
        std::fs::metadata(&fallback[0])
            .map(|m| m.len())
            .unwrap_or(0),
        0
    );
    assert!(
        std::fs::read_dir(fallback[0].parent().unwrap())
            .unwrap()
            .all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("draining-"))
    );
}

#[test]
fn an_unparsable_spool_line_is_moved_aside_not_dropped() {
    let env = Env::new();
    std::fs::create_dir_all(env.spool().parent().unwrap()).unwrap();
    let good = r#"{"kind":"memory","memory":{"project":"shop","tool":"claude-code","sessionId":"s3","kind":"prompt","type":"note","title":"remember that the cache TTL is 60 seconds","narrative":"remember that the cache TTL is 60 seconds"},"at":1793304017358}"#;
    // A half-written last line, as a crash mid-append leaves it.
    std::fs::write(
        env.spool(),
        format!("{good}\nnot json at all\n{{\"kind\":\"memory\",\"mem"),
    )
    .unwrap();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("after"));
    assert_eq!(env.count(), 2);
    let rejected: Vec<_> = std::fs::read_dir(env.spool().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("rejected-")
        })
        .collect();
    assert_eq!(rejected.len(), 1);
    let kept = std::fs::read_to_string(&rejected[0]).unwrap();
    assert_eq!(kept, "not json at all\n{\"kind\":\"memory\",\"mem\n");
    assert_eq!(env.spool_lines(), 0);
    let created: i64 = env
        .conn()
        .query_row(
            "SELECT created_at FROM memories WHERE title LIKE 'remember%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        created, 1_793_304_017_358,
        "the spooled event keeps its own time"
    );
}

#[test]
fn an_append_after_a_half_written_line_starts_a_fresh_line() {
    let env = Env::new();
    std::fs::create_dir_all(env.spool().parent().unwrap()).unwrap();
    std::fs::write(env.spool(), "{\"kind\":\"mem").unwrap();
    let out = env
        .cmd()
        .env("ALETHEIA_HUB_DB", env.dir.path().join("nonexistent/hub.db"))
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(prompt_payload(FIRST))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("next"));
    assert_eq!(titles(&env), vec![FIRST.to_string(), "next".to_string()]);
}

#[test]
fn the_deadline_spools_when_the_store_hangs() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("warm up"));
    let conn = env.hold_write_lock();
    // A deadline shorter than the busy timeout: the watchdog, not the store error, spools.
    let out = env
        .cmd()
        .env("ALETHEIA_HOOK_DEADLINE_MS", "100")
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(prompt_payload(FIRST))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("deadline"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(env.spool_lines(), 1);
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);
    assert_recovers(&env, &env.spool());
}

#[test]
fn a_drain_that_was_cut_short_is_finished_by_the_next_run() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("create"));
    // What a drain killed after taking the spool aside leaves behind.
    std::fs::create_dir_all(env.spool().parent().unwrap()).unwrap();
    let aside = env.spool().with_file_name("draining-99999-1.jsonl");
    let line = |t: &str| {
        format!(
            r#"{{"kind":"memory","memory":{{"project":"shop","tool":"claude-code","kind":"prompt","type":"note","title":"{t}","narrative":"{t}"}},"at":1}}"#
        )
    };
    std::fs::write(
        &aside,
        format!("{}\n{}\n", line("left aside one"), line("left aside two")),
    )
    .unwrap();
    let out = env.cmd().arg("doctor").output().unwrap();
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("2 line(s) waiting")
    );
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("next"));
    let t = titles(&env);
    assert!(
        t.contains(&"left aside one".to_string()) && t.contains(&"left aside two".to_string()),
        "{t:?}"
    );
    assert!(!aside.exists());
}

#[test]
fn a_full_spool_refuses_new_events_counts_them_and_keeps_what_it_holds() {
    let env = Env::new();
    let unreachable = env.dir.path().join("nonexistent/hub.db");
    let hook = |text: &str| {
        env.cmd()
            .env("ALETHEIA_HUB_DB", &unreachable)
            .env("ALETHEIA_SPOOL_MAX_MB", "0.002")
            .args(["hook", "claude-code", "UserPromptSubmit"])
            .write_stdin(prompt_payload(text))
            .output()
            .unwrap()
    };
    let (mut spooled, mut refused) = (vec![], 0);
    for i in 0..12 {
        let text = format!("event {i}: {}", "a long prompt about the cache ".repeat(10));
        let out = hook(&text);
        assert_eq!(out.status.code(), Some(0), "the hook never fails the host");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        if err.contains("spooled to") {
            spooled.push(text);
        } else {
            assert!(err.contains("the spool is at its cap of 0.002 MB"), "{err}");
            assert!(err.contains("refused and counted"), "{err}");
            refused += 1;
        }
    }
    assert!(
        !spooled.is_empty() && refused > 0,
        "{} spooled, {refused} refused",
        spooled.len()
    );
    let size = std::fs::metadata(env.spool()).unwrap().len();
    assert!(
        size <= (0.002f64 * 1024.0 * 1024.0) as u64,
        "the spool grew past its cap: {size}"
    );
    assert_eq!(
        env.spool_lines(),
        spooled.len(),
        "what was spooled is all still there"
    );

    let mut doctor = env.cmd();
    doctor.env("ALETHEIA_HUB_DB", &unreachable);
    assert_doctor_counts_refused(doctor, refused);

    // Once the store is back, every spooled event comes in once, and the count stays for the
    // person to read.
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        prompt_payload("back again"),
    );
    let t = titles(&env);
    for text in &spooled {
        let title: String = text.chars().take(40).collect();
        assert_eq!(
            t.iter().filter(|s| s.starts_with(&title)).count(),
            1,
            "{title}"
        );
    }
    assert_eq!(env.count() as usize, spooled.len() + 1);
}

#[test]
fn refusals_at_the_temp_spool_cap_are_counted_and_reported_too() {
    let env = Env::new();
    chmod(env.dir.path(), 0o755);
    chmod(&env.tmp(), 0o777);
    std::fs::create_dir_all(env.data()).unwrap();
    chmod(&env.data(), 0o555);
    let mut refused = 0;
    for i in 0..12 {
        let text = format!("event {i}: {}", "a long prompt about the cache ".repeat(10));
        let out = unprivileged(&env)
            .env("ALETHEIA_SPOOL_MAX_MB", "0.002")
            .args(["hook", "claude-code", "UserPromptSubmit"])
            .write_stdin(prompt_payload(&text))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("refused and counted") {
            refused += 1;
        } else {
            assert!(err.contains("spooled to"), "{err}");
        }
    }
    assert!(refused > 0, "the temporary spool never reached its cap");
    assert_doctor_counts_refused(unprivileged(&env), refused);
}

/// `doctor` names the refused events as a problem and on its spool line, with the cap of 0.002
/// MB the hooks ran with, though doctor itself runs with the default cap.
fn assert_doctor_counts_refused(mut doctor: assert_cmd::Command, refused: usize) {
    let out = doctor
        .env_remove("ALETHEIA_SPOOL_MAX_MB")
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "lost events are a problem to fix"
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains(&format!(
            "{refused} event(s) were lost: the spool was at its cap of 0.002 MB"
        )),
        "{report}"
    );
    assert!(
        report.contains(&format!("{refused} refused at the cap of 0.002 MB")),
        "{report}"
    );
    assert!(report.contains("refused.json to clear this"), "{report}");
}

#[test]
fn a_session_start_says_when_events_wait_because_the_store_is_unreachable() {
    let env = Env::new();
    let unreachable = env.dir.path().join("nonexistent/hub.db");
    let run = |event: &str, payload: String| {
        env.cmd()
            .env("ALETHEIA_HUB_DB", &unreachable)
            .args(["hook", "claude-code", event])
            .write_stdin(payload)
            .output()
            .unwrap()
    };
    for i in 0..500 {
        let out = run(
            "UserPromptSubmit",
            prompt_payload(&format!("prompt {i} while away")),
        );
        assert_eq!(out.status.code(), Some(0));
    }
    assert_eq!(env.spool_lines(), 500);
    let start = serde_json::json!({
        "session_id": "s2", "cwd": "/home/dev/shop", "hook_event_name": "SessionStart",
        "source": "startup"
    });
    let out = run("SessionStart", start.to_string());
    assert_eq!(out.status.code(), Some(0));
    let stdout: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let block = stdout["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(
        block.starts_with("Aletheia could not reach its store: 500 event(s) since ")
            && block.ends_with("wait in the spool. Run `aletheia doctor` to fix it."),
        "{block}"
    );
    assert_eq!(block.lines().count(), 1, "one short line: {block}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("500 event(s)"), "{err}");

    let doctor = env
        .cmd()
        .env("ALETHEIA_HUB_DB", &unreachable)
        .arg("doctor")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        report.contains("500 event(s) wait in the spool"),
        "{report}"
    );

    // With the store back, a session start drains and shows no notice (given the time to drain
    // 500 events on a busy machine).
    let out = env
        .cmd()
        .env("ALETHEIA_HOOK_DEADLINE_MS", "20000")
        .args(["hook", "claude-code", "SessionStart"])
        .write_stdin(start.to_string())
        .output()
        .unwrap();
    let stdout: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let block = stdout["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(
        !block.is_empty() && !block.contains("could not reach"),
        "{block}"
    );
    assert_eq!(env.count(), 500);
}

/// Start `n` hooks at once, each with its own prompt `"{label} {i}"`, with `env_vars` set;
/// returns each one's stderr after asserting it exited 0.
fn concurrent_prompts(env: &Env, n: usize, label: &str, env_vars: &[(&str, &str)]) -> Vec<String> {
    let children: Vec<_> = (0..n)
        .map(|i| {
            let mut c = env.std_cmd();
            c.envs(env_vars.iter().copied())
                .args(["hook", "claude-code", "UserPromptSubmit"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            let payload = serde_json::json!({
                "session_id": format!("{label}-{i}"), "cwd": "/home/dev/shop",
                "hook_event_name": "UserPromptSubmit", "prompt": format!("{label} {i}"),
            });
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.to_string().as_bytes())
                .unwrap();
            child
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.status.code(), Some(0), "{stderr}");
            stderr
        })
        .collect()
}

/// After the store is free again: one drain brings in every prompt `"{label} {i}"`, exactly
/// once, and leaves no spool file behind.
fn assert_all_stored(env: &Env, n: usize, label: &str, stderr: &[String]) {
    let out = env.cmd().arg("drain").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = titles(env);
    for i in 0..n {
        let want = format!("{label} {i}");
        assert_eq!(
            t.iter().filter(|t| **t == want).count(),
            1,
            "{want} is not stored once; the hooks said: {stderr:#?}"
        );
    }
    for dir in [env.spool().parent().unwrap().to_owned(), env.tmp()] {
        let left: Vec<_> = support::files_below(&dir)
            .into_iter()
            .filter(|p| !p.ends_with("refused.json"))
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
            .collect();
        assert!(left.is_empty(), "left behind after the drain: {left:?}");
    }
}

/// Under heavy load, hooks that all found the store busy queued behind each other's fsyncs at
/// the spool's lock; past the 400 ms wait (and 200 ms at the temporary spool) the event was
/// dropped with a line on stderr, and the hook still exited 0. A lock that stays busy now puts
/// the event in a file of its own.
#[test]
fn hooks_queued_behind_a_slow_spool_lock_lose_no_event() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("create"));
    let conn = env.hold_write_lock();
    // Each hook holds the spool's lock 700 ms, as a stalled fsync would: eight of them queue
    // far past every lock wait.
    let n = 8;
    let stderr = concurrent_prompts(
        &env,
        n,
        "queued prompt",
        &[
            ("ALETHEIA_TEST_STALL", "spool-locked:700"),
            ("ALETHEIA_HOOK_DEADLINE_MS", "5000"),
        ],
    );
    assert!(stderr.iter().all(|e| !e.contains("lost")), "{stderr:#?}");
    let alone = support::files_below(env.spool().parent().unwrap())
        .into_iter()
        .chain(support::files_below(&env.tmp()))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("event-")
        })
        .count();
    assert!(alone > 0, "no event needed a file of its own: {stderr:#?}");
    let doctor = env.cmd().arg("doctor").output().unwrap();
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains(&format!("{n} line(s) waiting")),
        "{}",
        String::from_utf8_lossy(&doctor.stdout)
    );
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);
    assert_all_stored(&env, n, "queued prompt", &stderr);
}

/// A loaded machine can stall a hook at any step of its run. With a spool waiting to drain, a
/// short deadline and concurrent hooks, a stall at each step (shorter and longer than the
/// deadline, with the store free and with it locked) loses nothing and doubles nothing.
#[test]
fn a_stall_at_any_step_of_the_hook_loses_no_event() {
    const STEPS: [&str; 10] = [
        "start",
        "open",
        "drain",
        "write",
        "context",
        "spool",
        "spool-locked",
        "spool-alone",
        "notice",
        "finish",
    ];
    // The steps run side by side (each in its own data directory): the load is the point.
    std::thread::scope(|scope| {
        for step in STEPS {
            scope.spawn(move || stall_at(step));
        }
    });
}

/// Four prompts at once and then a session start, with `step` stalled for each length.
fn stall_at(step: &str) {
    for (ms, locked) in [
        ("150", false),
        ("700", false),
        ("700", true),
        ("2000", true),
    ] {
        let env = Env::new();
        env.hook("claude-code", "UserPromptSubmit", prompt_payload("create"));
        // Something waiting in the spool, so the runs drain too.
        {
            let conn = env.hold_write_lock();
            env.hook(
                "claude-code",
                "UserPromptSubmit",
                prompt_payload("waiting 0"),
            );
            drop(conn);
        }
        assert_eq!(env.spool_lines(), 1);
        let conn = locked.then(|| env.hold_write_lock());
        let label = format!("{step} {ms}");
        let stall = format!("{step}:{ms}");
        let stderr = concurrent_prompts(
            &env,
            4,
            &label,
            &[
                ("ALETHEIA_TEST_STALL", &stall),
                ("ALETHEIA_HOOK_DEADLINE_MS", "400"),
            ],
        );
        assert!(
            stderr.iter().all(|e| !e.contains("lost")),
            "{label}: {stderr:#?}"
        );
        // A session start reads the context block (or the spool's notice) at the same steps.
        let start = env
            .std_cmd()
            .envs([("ALETHEIA_TEST_STALL", &stall)])
            .env("ALETHEIA_HOOK_DEADLINE_MS", "400")
            .args(["hook", "claude-code", "SessionStart"])
            .stdin(
                std::fs::File::open(support::fixtures().join("claude-code/SessionStart.json"))
                    .unwrap(),
            )
            .output()
            .unwrap();
        assert_eq!(start.status.code(), Some(0), "{label}");
        drop(conn);
        assert_all_stored(&env, 4, &label, &stderr);
        assert_all_stored(&env, 1, "waiting", &stderr);
    }
}
