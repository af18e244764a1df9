//! The commands around the store: save, capture, search, import/export, scrub, redact.

use crate::support;

use support::Env;

#[test]
fn save_is_idempotent_and_search_finds_it() {
    let env = Env::new();
    let out = env
        .cmd()
        .args([
            "save",
            "Use pnpm, not npm, in the shop repo",
            "--type",
            "decision",
            "--pinned",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Saved as #1 in shop.\n"
    );
    let out = env
        .cmd()
        .args([
            "save",
            "Use pnpm, not npm, in the shop repo",
            "--type",
            "decision",
            "--pinned",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Already saved as #1.\n"
    );
    let out = env.cmd().args(["search", "pnpm"]).output().unwrap();
    let line = support::ages(&String::from_utf8(out.stdout).unwrap());
    assert!(
        line.starts_with("#1 ")
            && line.ends_with(
                "[decision] Use pnpm, not npm, in the shop repo (shop, note by cli, AGE, pinned)\n"
            ),
        "{line}"
    );
    let out = env
        .cmd()
        .args(["search", "pnpm", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["id"], 1);
    assert_eq!(v["type"], "decision");
    let out = env
        .cmd()
        .args(["search", "pnpm", "--project", "billing"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "No matches. No memories in project \"billing\".\n"
    );
}

#[test]
fn capture_reads_stdin_and_redacts() {
    let env = Env::new();
    env.cmd()
        .args([
            "capture",
            "--kind",
            "observation",
            "--title",
            "deploy notes",
        ])
        .write_stdin("DATABASE_URL=postgres://app:s3cr3tpass@db:5432/shop")
        .assert()
        .success();
    let m = env.memories();
    assert_eq!(
        m,
        vec![(
            "observation".into(),
            "deploy notes".into(),
            "DATABASE_URL=postgres://app:[redacted]@db:5432/shop".into()
        )]
    );
}

#[test]
fn export_imports_into_an_empty_store_unchanged() {
    let a = Env::new();
    a.cmd()
        .args(["save", "first note", "--project", "shop"])
        .assert()
        .success();
    a.cmd()
        .args([
            "save",
            "second note",
            "--project",
            "billing",
            "--type",
            "gotcha",
            "--pinned",
        ])
        .assert()
        .success();
    a.hook(
        "claude-code",
        "PostToolUse",
        std::fs::read(support::fixtures().join("claude-code/PostToolUse.json")).unwrap(),
    );
    let export = a.cmd().arg("export").output().unwrap().stdout;
    assert_eq!(String::from_utf8_lossy(&export).lines().count(), 3);
    let b = Env::new();
    let out = b
        .cmd()
        .arg("import")
        .write_stdin(export.clone())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Imported 3 memories (0 already present).\n"
    );
    assert_eq!(b.cmd().arg("export").output().unwrap().stdout, export);
    // Importing again changes nothing.
    let out = b
        .cmd()
        .arg("import")
        .write_stdin(export.clone())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Imported 0 memories (3 already present).\n"
    );
    let out = b
        .cmd()
        .args(["search", "--file", "/home/dev/shop/src/checkout.rs"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 1);
}

#[test]
fn import_of_a_file_that_is_not_jsonl_says_so() {
    let env = Env::new();
    let out = env
        .cmd()
        .arg("import")
        .write_stdin(
            "hello\n{\"project\":\"shop\",\"kind\":\"note\",\"text\":\"ok\",\"created_at\":1}\n",
        )
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("1 line(s) are not memory JSON") && err.contains("line 1"),
        "{err}"
    );
    assert_eq!(env.count(), 1);
    let out = env
        .cmd()
        .args(["import", "/nonexistent-aletheia.jsonl"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("cannot open /nonexistent-aletheia.jsonl")
    );
}

#[test]
fn import_redacts_too() {
    let env = Env::new();
    env.cmd()
        .arg("import")
        .write_stdin(r#"{"project":"shop","kind":"note","text":"key AKIAIOSFODNN7EXAMPLE here","created_at":1}"#)
        .assert()
        .success();
    assert_eq!(env.memories()[0].2, "key [redacted:aws-key-id] here");
}

#[test]
fn scrub_redacts_rows_an_older_version_stored() {
    let env = Env::new();
    env.cmd().args(["save", "harmless"]).assert().success();
    env.conn()
        .execute(
            "INSERT INTO memories (uid, project, kind, title, text, tool, created_at, content_hash)
             VALUES ('old-1', 'shop', 'note', 'old', 'token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB', 'old', 1, 'x')",
            [],
        )
        .unwrap();
    let out = env.cmd().arg("scrub").output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Scrubbed 1 memories.\n"
    );
    let out = env.cmd().args(["search", "token"]).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("#2"));
    let text: String = env
        .conn()
        .query_row("SELECT text FROM memories WHERE uid = 'old-1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(text, "token [redacted:github-token]");
    let out = env.cmd().arg("scrub").output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Scrubbed 0 memories.\n"
    );
}

#[test]
fn redact_shows_what_would_be_stored_with_user_rules() {
    let env = Env::new();
    let out = env
        .cmd()
        .arg("redact")
        .write_stdin("pw: Authorization: Bearer abc123def456 <private>x</private>")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "pw: Authorization: Bearer [redacted] [private]"
    );
    let rules = env.dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"acme-key\"\nregex = '''acme_[a-z0-9]{12}'''\nkeywords = [\"acme_\"]\n",
    )
    .unwrap();
    let out = env
        .cmd()
        .env("ALETHEIA_REDACT_RULES", &rules)
        .arg("redact")
        .write_stdin("k=acme_abcdefghijkl")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "k=[redacted:acme-key]"
    );
    // The hook applies the same rules.
    env.cmd()
        .env("ALETHEIA_REDACT_RULES", &rules)
        .args(["hook", "claude-code", "UserPromptSubmit"])
        .write_stdin(support::prompt_payload("use acme_abcdefghijkl"))
        .assert()
        .success();
    assert_eq!(env.memories()[0].2, "use [redacted:acme-key]");
    std::fs::write(
        &rules,
        "[[rules]]\nid = \"broken-rule\"\nregex = '''(oops'''\n",
    )
    .unwrap();
    let out = env
        .cmd()
        .env("ALETHEIA_REDACT_RULES", &rules)
        .arg("redact")
        .write_stdin("x")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("\"broken-rule\"") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn the_gitleaks_default_rules_load_as_a_user_rule_file() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/secrets/gitleaks.toml");
    if !path.exists() {
        // The reference copy sits beside the checkout; a lone clone has no copy to read.
        eprintln!("skipped: {} not present", path.display());
        return;
    }
    let env = Env::new();
    let out = env
        .cmd()
        .env("ALETHEIA_REDACT_RULES", &path)
        .args(["redact", "--check"])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("user rules; all compile"), "{text}");
}

#[test]
fn dates_are_read_and_shown_in_the_users_time_zone() {
    // 2026-03-08 is the day New York springs forward (a 23-hour day). 23:30 that evening in New
    // York is already 2026-03-09 in UTC, so a bare `--until 2026-03-08` includes the memory
    // only when it is read in the user's zone, up to the next local midnight.
    let env = Env::new();
    env.cmd()
        .args(["import"])
        .write_stdin(
            r#"{"project":"shop","kind":"note","text":"late night deploy of the cart","created_at":"2026-03-08T23:30:00-04:00"}"#,
        )
        .assert()
        .success();
    let search = |tz: &str, until: &str| {
        let out = env
            .cmd()
            .env("TZ", tz)
            .args(["search", "cart deploy", "--until", until])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let ny = search("America/New_York", "2026-03-08");
    assert!(ny.starts_with("#1 2026-03-08 [note]"), "{ny}");
    assert!(search("UTC", "2026-03-08").starts_with("No matches."));
    assert!(search("UTC", "2026-03-09").starts_with("#1 2026-03-09 [note]"));
    // A full timestamp carries its offset; JSON keeps UTC epoch milliseconds.
    let out = env
        .cmd()
        .env("TZ", "America/New_York")
        .args(["observations", "1"])
        .output()
        .unwrap();
    assert!(
        support::ages(&String::from_utf8(out.stdout).unwrap())
            .contains("shop · 2026-03-08T23:30:00.000-04:00 · source: note by import, AGE"),
    );
    let out = env
        .cmd()
        .args(["observations", "1", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["created_at"], 1_773_027_000_000_i64);
    // A date-time without an offset is the importer's local time, like every date typed here.
    env.cmd()
        .env("TZ", "Europe/Berlin")
        .args(["import"])
        .write_stdin(
            r#"{"project":"shop","kind":"note","text":"berlin standup notes","created_at":"2026-10-29T10:00"}"#,
        )
        .assert()
        .success();
    let out = env
        .cmd()
        .env("TZ", "Europe/Berlin")
        .args(["observations", "2"])
        .output()
        .unwrap();
    assert!(
        support::ages(&String::from_utf8(out.stdout).unwrap())
            .contains("shop · 2026-10-29T10:00:00.000+01:00 · source: note by import, AGE"),
    );
}

// ---------------------------------------------------------------------------------------------
// Project keys
// ---------------------------------------------------------------------------------------------

const TOKEN: &str = "ghp_Pq7vL4pT8wZ3nB6cF1hJ5dS0gY2aE7uR9xK2m";
const MARKER: &str = "[redacted:github-token]";

/// The files below `dir` (the store, its WAL, the spool) that hold `TOKEN` or its random body.
fn holding_token(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    support::files_holding(dir, TOKEN.strip_prefix("ghp_").unwrap().as_bytes())
}

fn projects(env: &Env) -> Vec<String> {
    let c = env.conn();
    let mut s = c
        .prepare("SELECT project FROM memories UNION SELECT project FROM session_queue")
        .unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A hook run in a folder named after a token stores the memory and queues the session under
/// the marker, and neither the store (with its WAL) nor the spool holds the token.
#[test]
fn a_hook_in_a_folder_named_after_a_token_stores_the_key_redacted() {
    let env = Env::new();
    let cwd = format!("/nonexistent-aletheia/{TOKEN}");
    let prompt = serde_json::json!({"session_id": "s1", "cwd": cwd, "prompt": "fix the cart"});
    env.hook("claude-code", "UserPromptSubmit", prompt.to_string());
    let stop = serde_json::json!({"session_id": "s1", "cwd": cwd});
    env.hook("claude-code", "Stop", stop.to_string());
    assert_eq!(projects(&env), vec![MARKER.to_owned()]);
    assert_eq!(
        holding_token(env.dir.path()),
        Vec::<std::path::PathBuf>::new()
    );
}

/// With the store locked, the hook spools the event: the spool holds the key redacted too,
/// and the drain stores it under the marker.
#[test]
fn a_spooled_event_holds_its_project_key_redacted() {
    let env = Env::new();
    env.cmd().args(["save", "first"]).assert().success();
    let cwd = format!("/nonexistent-aletheia/{TOKEN}");
    let lock = env.hold_write_lock();
    for (event, payload) in [
        (
            "UserPromptSubmit",
            serde_json::json!({"session_id": "s1", "cwd": cwd, "prompt": "fix the cart"}),
        ),
        ("Stop", serde_json::json!({"session_id": "s1", "cwd": cwd})),
    ] {
        env.hook("claude-code", event, payload.to_string());
    }
    // A drain that found the store locked leaves its file aside: count the lines of all.
    let spooled: String = std::fs::read_dir(env.data().join("spool"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(spooled.lines().count(), 2, "{spooled}");
    assert_eq!(spooled.matches(MARKER).count(), 2, "{spooled}");
    assert_eq!(
        holding_token(env.dir.path()),
        Vec::<std::path::PathBuf>::new()
    );
    drop(lock);
    env.cmd().arg("drain").assert().success();
    assert_eq!(projects(&env), vec![MARKER.to_owned(), "shop".to_owned()]);
    assert_eq!(
        holding_token(env.dir.path()),
        Vec::<std::path::PathBuf>::new()
    );
}

/// A folder name no project name may be (over 200 characters, a control character in it)
/// still keeps the host's event: the hook exits 0 and stores it under the name cut to 200
/// characters, each control character made `_`.
#[test]
fn a_hook_in_a_folder_with_an_unfit_name_keeps_the_event_under_a_fitted_key() {
    let env = Env::new();
    let name = format!("bad\u{1b}[2Jname{}", "x".repeat(300));
    let cwd = format!("/nonexistent-aletheia/{name}");
    let prompt = serde_json::json!({"session_id": "s1", "cwd": cwd, "prompt": "fix the cart"});
    env.hook("claude-code", "UserPromptSubmit", prompt.to_string());
    let key: String = name
        .chars()
        .take(200)
        .map(|c| if c.is_control() { '_' } else { c })
        .collect();
    assert_eq!(projects(&env), vec![key.clone()]);
    // The fitted key is a name `--project` takes, and finds the event by.
    let out = env
        .cmd()
        .args(["search", "cart", "--project", &key])
        .output()
        .unwrap();
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("fix the cart"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `aletheia save --project` with a token, and a working folder named after one, store the
/// marker; neither file holds the token.
#[test]
fn save_stores_a_token_shaped_project_redacted() {
    let env = Env::new();
    env.cmd()
        .args(["save", "use pnpm", "--project", TOKEN])
        .assert()
        .success()
        .stdout(format!("Saved as #1 in {MARKER}.\n"));
    env.cmd()
        .args(["save", "use yarn"])
        .env("ALETHEIA_CWD", format!("/nonexistent-aletheia/{TOKEN}"))
        .assert()
        .success();
    assert_eq!(projects(&env), vec![MARKER.to_owned()]);
    assert_eq!(
        holding_token(env.dir.path()),
        Vec::<std::path::PathBuf>::new()
    );
}

/// `--project` too long or with a control character is refused with one line, and nothing is
/// stored.
#[test]
fn the_command_line_refuses_a_bad_project_name_in_one_line() {
    let env = Env::new();
    for (args, want) in [
        (
            vec![
                "save".to_owned(),
                "x".into(),
                "--project".into(),
                "p".repeat(201),
            ],
            "aletheia: project name is 201 characters: use at most 200\n",
        ),
        (
            vec![
                "save".to_owned(),
                "x".into(),
                "--project".into(),
                "a\tb".into(),
            ],
            "aletheia: project name has a control character (U+0009): use printable characters\n",
        ),
        (
            vec![
                "search".to_owned(),
                "x".into(),
                "--project".into(),
                "p".repeat(5000),
            ],
            "aletheia: project name is 5,000 characters: use at most 200\n",
        ),
    ] {
        let out = env.cmd().args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(String::from_utf8(out.stderr).unwrap(), want, "{args:?}");
    }
    assert_eq!(env.count(), 0);
}

/// An import file whose record names a bad project is refused, naming the record.
#[test]
fn import_refuses_a_record_with_a_bad_project_name() {
    let env = Env::new();
    let file = env.tmp().join("in.jsonl");
    let long = "p".repeat(250);
    std::fs::write(
        &file,
        format!(
            "{{\"project\":\"shop\",\"kind\":\"note\",\"text\":\"fine\",\"created_at\":1}}\n\
             {{\"project\":\"{long}\",\"kind\":\"note\",\"text\":\"long\",\"created_at\":1}}\n"
        ),
    )
    .unwrap();
    let out = env.cmd().arg("import").arg(&file).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with("project name is 250 characters: use at most 200\n")
            && err.lines().count() == 1,
        "{err}"
    );
    assert_eq!(env.count(), 0);
}

/// A store with 300 memories that all match "pipeword", each with a 2 KB title and text, so
/// that a page of 100 hits is far more than a pipe holds (64 KB on Linux).
fn store_with_many_hits() -> Env {
    let env = Env::new();
    let mut lines = String::new();
    for i in 0..300 {
        let words = format!("pipeword memory {i} ").repeat(100);
        let line = serde_json::json!({
            "uid": format!("00000000-0000-7000-8000-{i:012}"),
            "project": "shop", "kind": "note", "type": "note",
            "title": words, "text": words, "tool": "cli",
            "files": [], "pinned": false, "dismissed": false,
            "created_at": 1_796_000_000_000_i64 + i,
        });
        lines.push_str(&format!("{line}\n"));
    }
    env.cmd()
        .arg("import")
        .write_stdin(lines)
        .assert()
        .success();
    env
}

/// Run `args` with stdout a real pipe whose reader reads `keep` lines (none: it is closed
/// before the command starts) and then closes; returns the exit status, stderr and what was read.
fn with_early_closing_reader(
    env: &Env,
    args: &[&str],
    keep: usize,
) -> (std::process::ExitStatus, String, Vec<String>) {
    use std::io::BufRead;
    let (reader, writer) = std::io::pipe().unwrap();
    let reader = (keep > 0).then_some(reader);
    let child = env
        .std_cmd()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut read = Vec::new();
    if let Some(reader) = reader {
        let mut lines = std::io::BufReader::new(reader).lines();
        for _ in 0..keep {
            read.push(lines.next().expect("a line").unwrap());
        }
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        read,
    )
}

/// `println!` panicked ("failed printing to stdout: Broken pipe", exit 101) when the reader
/// went away; every command now prints through one printer and exits 0 silently instead.
#[test]
fn search_piped_into_head_exits_quietly_when_the_reader_closes() {
    let env = store_with_many_hits();
    for args in [
        &["search", "pipeword", "--limit", "100"][..],
        &["search", "pipeword", "--limit", "100", "--json"],
        &["export"],
    ] {
        let (status, stderr, read) = with_early_closing_reader(&env, args, 1);
        assert!(status.success(), "{args:?}: {status}, stderr {stderr:?}");
        assert_eq!(stderr, "", "{args:?}");
        assert!(
            read[0].contains("pipeword memory"),
            "{args:?}: {:?}",
            read[0]
        );
    }
    // A reader gone before the first byte: every command's first write fails. (A list that
    // is not there would fail first, by the exit rule: this one is.)
    env.cmd()
        .args(["list", "write", "todo"])
        .write_stdin(r#"["ship docs"]"#)
        .assert()
        .success();
    for args in [
        &["search", "pipeword"][..],
        &["list", "read", "todo"],
        &["export"],
        &["redact", "--check"],
        &["redact", "--rules"],
        &["compress"],
        &["backfill", "claude-code"],
        &["completions", "bash"],
        &["man"],
    ] {
        let (status, stderr, _) = with_early_closing_reader(&env, args, 0);
        assert!(status.success(), "{args:?}: {status}, stderr {stderr:?}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

/// A build without the server keeps `aletheia server` (its help and manual page match the
/// release build's) and answers it with one line that says how to get one, exit 2.
#[cfg(not(feature = "server"))]
#[test]
fn a_build_without_the_server_says_how_to_get_one() {
    let env = Env::new();
    let out = env.cmd().args(["server", "--port", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "aletheia: this aletheia was built without the server feature; install the release build or build with --features server\n"
    );
    assert!(out.stdout.is_empty());
}

/// Without the model's feature, the model commands say how to get it (exit 2), and a search
/// uses words alone, as when no model is installed.
#[cfg(not(feature = "semantic"))]
#[test]
fn a_build_without_the_model_says_how_to_get_one_and_searches_by_words() {
    let env = Env::new();
    for args in [
        &["model", "fetch"][..],
        &["index"],
        &["search", "--semantic", "pnpm"],
    ] {
        let out = env.cmd().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "aletheia: this aletheia was built without the semantic feature; install the release build or build with --features semantic\n",
            "{args:?}"
        );
    }
    env.cmd()
        .args(["save", "Use pnpm, not npm"])
        .assert()
        .success();
    let out = env.cmd().args(["search", "pnpm"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Use pnpm, not npm"));
}

/// `aletheia-hook`, the binary the hosts' hook commands run, stores an event as `aletheia hook`
/// does and answers a session start with the same block; anything but a hook run is refused in
/// one line that points at `aletheia`.
#[test]
fn the_hook_binary_runs_the_same_hook_and_nothing_else() {
    let env = Env::new();
    let hook_bin = assert_cmd::cargo::cargo_bin("aletheia-hook");
    let run = |bin: &std::path::Path, event: &str, payload: &str| {
        let mut c = env.std_cmd_of(bin);
        c.args(["hook", "claude-code", event])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        String::from_utf8(out.stdout).unwrap()
    };
    run(
        &hook_bin,
        "UserPromptSubmit",
        &support::prompt_payload("the ledger export runs nightly at two"),
    );
    let titles: Vec<String> = env
        .memories()
        .into_iter()
        .map(|(_, title, _)| title)
        .collect();
    assert_eq!(titles, ["the ledger export runs nightly at two"]);
    let start = r#"{"session_id":"s2","cwd":"/home/dev/shop","hook_event_name":"SessionStart","source":"startup"}"#;
    let lean = run(&hook_bin, "SessionStart", start);
    let full = run(
        &assert_cmd::cargo::cargo_bin("aletheia"),
        "SessionStart",
        start,
    );
    assert!(lean.contains("ledger export"), "{lean}");
    assert_eq!(lean, full);

    let out = std::process::Command::new(&hook_bin)
        .arg("search")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("everything else is `aletheia`"), "{err}");
    let out = std::process::Command::new(&hook_bin)
        .arg("--version")
        .output()
        .unwrap();
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("aletheia-hook ")
    );
}

// ---------------------------------------------------------------------------------------------
// The exit rule (src/cli/exit.rs): a command about something named that is not there exits 1
// with one line on stderr; a search or listing that finds nothing exits 0.
// ---------------------------------------------------------------------------------------------

/// Run `aletheia ARGS`: its exit code, stdout and stderr.
fn run(env: &Env, args: &[&str]) -> (Option<i32>, String, String) {
    let out = env.cmd().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A store holding memory #1 (a note in shop) and `facts`, each `(id, project, subject,
/// predicate, object)`, all current.
fn store_with_facts(facts: &[(i64, &str, &str, &str, &str)]) -> Env {
    let env = Env::new();
    env.cmd()
        .args(["save", "Use pnpm, not npm, in the shop repo"])
        .assert()
        .success();
    let conn = env.conn();
    for (id, project, subject, predicate, object) in facts {
        conn.execute(
            "INSERT INTO facts (id, project, subject, predicate, object, confidence, valid_from, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 0.8, 1793232000000, 1793232000000)",
            rusqlite::params![id, project, subject, predicate, object],
        )
        .unwrap();
    }
    env
}

#[test]
fn a_command_about_an_id_that_is_not_there_exits_1_with_one_line_on_stderr() {
    let env = store_with_facts(&[(1, "shop", "cache", "ttl", "30 s")]);
    for args in [
        &["observations", "999"][..],
        &["observations", "999", "--json"],
        &["dismiss", "999"],
        &["restore", "999"],
        &["inspect", "999"],
        &["edit", "999", "new text"],
        &["why", "999"],
        &["why", "999", "--type", "fact"],
        &["timeline", "--anchor", "999"],
        &["feedback", "999", "--positive"],
        &["rules", "confirm", "r_missing"],
        &["review", "accept", "999"],
        &["review", "reject", "999"],
        &["review", "accept", "p999"],
        &["list", "read", "nope"],
    ] {
        let (code, out, err) = run(&env, args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert_eq!(out, "", "{args:?}");
        assert!(
            err.starts_with("aletheia: ") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        run(&env, &["observations", "999"]).2,
        "aletheia: No memory #999 to show: none has that id, or it is dismissed.\n"
    );
    assert_eq!(
        run(&env, &["list", "read", "nope"]).2,
        "aletheia: No list named \"nope\" in shop.\n"
    );
}

#[test]
fn observations_print_the_memories_found_then_fail_for_the_others() {
    let env = store_with_facts(&[]);
    let (code, out, err) = run(&env, &["observations", "1", "999", "1", "998"]);
    assert_eq!(code, Some(1));
    assert!(out.starts_with("#1 [note] Use pnpm"), "{out}");
    assert_eq!(
        err,
        "aletheia: No memories #999, #998 to show: none has those ids, or they are dismissed.\n"
    );
    let (code, out, err) = run(&env, &["observations", "1", "--json"]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.starts_with("[{"), "{out}");
    // A dismissed memory is hidden here as from search: as missing as an unknown one.
    env.cmd().args(["dismiss", "1"]).assert().success();
    assert_eq!(run(&env, &["observations", "1"]).0, Some(1));
}

#[test]
fn timeline_fails_for_an_anchor_not_there_and_not_for_words_that_match_nothing() {
    let env = store_with_facts(&[]);
    let (code, out, _) = run(&env, &["timeline", "--anchor", "1"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("→ #1 "), "{out}");
    assert_eq!(
        run(&env, &["timeline", "--anchor", "1", "--project", "billing"]),
        (
            Some(1),
            String::new(),
            "aletheia: No memory #1 in billing to show: none there has that id, or it is dismissed.\n"
                .into()
        )
    );
    assert_eq!(
        run(&env, &["timeline", "--query", "zebra"]),
        (Some(0), "Nothing to anchor on.\n".into(), String::new())
    );
}

#[test]
fn a_search_or_listing_that_finds_nothing_exits_0_and_says_so() {
    let env = store_with_facts(&[]);
    for (args, says) in [
        (&["search", "zebra"][..], "No matches."),
        (&["timeline", "--query", "zebra"], "Nothing to anchor on."),
        (&["facts", "zebra"], "No facts found for subject \"zebra\"."),
        (&["facts"], "No facts yet: "),
        (
            &["facts", "--project", "billing"],
            "No facts in billing yet: ",
        ),
        (&["rules", "list"], "No rules yet."),
        (&["review", "list"], "Nothing waits for review."),
    ] {
        let (code, out, err) = run(&env, args);
        assert_eq!((code, err.as_str()), (Some(0), ""), "{args:?}");
        assert!(out.starts_with(says), "{args:?}: {out}");
    }
}

#[test]
fn facts_lists_the_subjects_and_finds_one_by_any_of_its_words() {
    let env = store_with_facts(&[
        (1, "shop", "postgres database", "version", "16"),
        (2, "shop", "the postgres", "role", "replica"),
        (3, "blog", "PostgreSQL", "port", "5432"),
        (4, "shop", "cache", "ttl", "30 s"),
        (5, "shop", "Cache", "backend", "redis"),
    ]);
    // "cache" and "Cache" are one subject, shown in the spelling first byte by byte.
    let hint = "`aletheia facts WORDS` shows the facts of every subject holding those words.\n";
    assert_eq!(
        run(&env, &["facts"]),
        (
            Some(0),
            format!(
                "- Cache: 2 facts\n- postgres database: 1 fact\n- PostgreSQL: 1 fact\n- the postgres: 1 fact\n{hint}"
            ),
            String::new()
        )
    );
    assert_eq!(
        run(&env, &["facts", "--project", "blog"]).1,
        format!("- PostgreSQL: 1 fact\n{hint}")
    );
    assert_eq!(
        run(&env, &["facts", "--limit", "1"]).1,
        format!(
            "- Cache: 2 facts\n1 of 4 subjects, most facts first: --limit (up to 100) shows more.\n{hint}"
        )
    );
    // Words, in any case, each found within the subject: subject by subject.
    let (code, out, _) = run(&env, &["facts", "Postgres"]);
    assert_eq!(code, Some(0));
    let subjects: Vec<&str> = out
        .lines()
        .map(|l| l.split(' ').nth(2).unwrap_or_default())
        .collect();
    assert_eq!(subjects, ["postgres", "PostgreSQL", "the"], "{out}");
    let (_, out, _) = run(&env, &["facts", "postgres database", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["facts"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["facts"][0]["object"], "16");
    // --predicate and --as-of are about a subject's facts: without one, clap refuses them.
    assert_eq!(run(&env, &["facts", "--predicate", "ttl"]).0, Some(2));
}

#[test]
fn rules_add_names_the_scope_it_chose_the_other_and_rules_sync() {
    let env = Env::new();
    let (code, out, _) = run(&env, &["rules", "add", "Keep commits small"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("Rule saved (r_"), "{out}");
    assert!(
        out.contains(") [everywhere]: sessions in every project start with it; to keep a rule to this project, add it with --scope-tier project --scope-name shop. `aletheia rules sync` writes the rules into this project's tool rule files.\n"),
        "{out}"
    );
    let out = run(
        &env,
        &[
            "rules",
            "add",
            "Deploy from main",
            "--scope-tier",
            "project",
            "--scope-name",
            "shop",
        ],
    )
    .1;
    assert!(
        out.contains(") [project: shop]: only that project's sessions start with it; for every project, add it without --scope-tier."),
        "{out}"
    );
    let again = run(&env, &["rules", "add", "Keep commits small"]).1;
    assert!(
        again.starts_with("That rule is already saved (r_"),
        "{again}"
    );
    let help = run(&env, &["--help"]).1;
    assert!(
        help.contains("Standing rules: list, add, confirm, sync"),
        "{help}"
    );
}

#[test]
fn search_describes_every_flag_and_without_words_names_file() {
    let env = Env::new();
    let help = run(&env, &["search", "--help"]).1;
    for flag in ["--type <MTYPE>", "--kind <KIND>", "--offset <OFFSET>"] {
        let mut lines = help
            .lines()
            .skip_while(|l| !l.trim_start().starts_with(flag));
        lines
            .next()
            .unwrap_or_else(|| panic!("{flag} missing: {help}"));
        let described = lines.next().unwrap_or_default().trim();
        assert!(
            !described.is_empty() && !described.starts_with('-'),
            "{flag} has no description: {help}"
        );
    }
    for args in [&["search"][..], &["search", "  "], &["search", "--json"]] {
        assert_eq!(
            run(&env, args),
            (
                Some(1),
                String::new(),
                "aletheia: Nothing to search for: give words (aletheia search WORDS) or a file path (aletheia search --file PATH).\n"
                    .into()
            ),
            "{args:?}"
        );
    }
    assert!(!env.db().exists(), "refused before the store is opened");
}
