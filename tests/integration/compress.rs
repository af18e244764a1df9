//! Compression end to end, through the real binary: sessions captured by the hooks, then
//! `aletheia compress` (the rule extractor, an OpenAI-compatible server on loopback that speaks
//! chat completions with its failure modes, and a stand-in `claude` on PATH), then the facts,
//! summaries, episodes and context block. Also two workers racing on one queue, a worker killed
//! with SIGKILL mid-job and recovered after its lease, a source dismissed while its job runs,
//! and a daemon stopped by SIGTERM.

use crate::support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::Env;

/// A Stop payload for `session` whose last message is `message`.
fn stop(session: &str, message: &str) -> String {
    json!({
        "session_id": session, "cwd": "/home/dev/shop", "hook_event_name": "Stop",
        "stop_hook_active": false, "last_assistant_message": message
    })
    .to_string()
}

/// Run the binary; returns (exit code, stdout, stderr).
fn run(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let mut c = env.cmd();
    c.env("TZ", "UTC");
    for (k, v) in vars {
        c.env(k, v);
    }
    let out = c.args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn ok(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> (String, String) {
    let (code, out, err) = run(env, vars, args);
    assert_eq!(code, 0, "{args:?}: {err}");
    (out, err)
}

/// The binary as a child process (to signal or kill it).
fn spawn(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> Child {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_aletheia"));
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.dir.path())
        .env("TMPDIR", env.tmp())
        .env("TZ", "UTC")
        .env("ALETHEIA_DATA_DIR", env.data())
        .env("ALETHEIA_CWD", "/home/dev/shop");
    for (k, v) in vars {
        c.env(k, v);
    }
    c.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait for a child, at most `limit`; returns (exit code, stdout, stderr).
fn finish(mut child: Child, limit: Duration) -> (i32, String, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut out = String::new();
            let mut err = String::new();
            child
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code().unwrap_or(-1), out, err);
        }
        assert!(
            start.elapsed() < limit,
            "the process did not end within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn query<T: rusqlite::types::FromSql>(env: &Env, sql: &str) -> Vec<T> {
    let c = env.conn();
    let mut s = c.prepare(sql).unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn one<T: rusqlite::types::FromSql>(env: &Env, sql: &str) -> T {
    env.conn().query_row(sql, [], |r| r.get(0)).unwrap()
}

// ---------------------------------------------------------------------------------------------
// A chat-completions server on loopback, answering from a script.
// ---------------------------------------------------------------------------------------------

/// One scripted answer: status, body, delay.
#[derive(Clone)]
struct Answer(u16, String, Duration);

fn completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340},
    })
    .to_string()
}

fn facts_reply(facts: Value) -> Answer {
    Answer(
        200,
        completion(&json!({ "facts": facts }).to_string()),
        Duration::ZERO,
    )
}

/// Answers the n-th request with the n-th answer (the last one repeats) and keeps each body.
struct ChatServer {
    base: String,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl ChatServer {
    fn start(script: Vec<Answer>) -> ChatServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&bodies);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let seen = Arc::clone(&seen);
                let script = script.clone();
                // One thread per connection, so a slow answer holds up no other worker.
                std::thread::spawn(move || {
                    let Some(body) = read_body(&stream) else {
                        return;
                    };
                    let n = {
                        let mut s = seen.lock().unwrap();
                        s.push(body);
                        s.len() - 1
                    };
                    let Answer(status, body, delay) = script[n.min(script.len() - 1)].clone();
                    std::thread::sleep(delay);
                    let head = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body.as_bytes());
                });
            }
        });
        ChatServer { base, bodies }
    }

    fn requests(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }

    /// The settings that make `aletheia compress` use this server.
    fn vars(&self) -> Vec<(&'static str, String)> {
        vec![
            ("ALETHEIA_PROVIDER", "openai".into()),
            ("ALETHEIA_OPENAI_BASE_URL", self.base.clone()),
            ("ALETHEIA_OPENAI_MODEL", "test-model".into()),
        ]
    }

    fn wait_for_requests(&self, n: usize) {
        let start = Instant::now();
        while self.requests().len() < n {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no request arrived"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn read_body(stream: &std::net::TcpStream) -> Option<String> {
    let mut reader = BufReader::new(stream);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    String::from_utf8(body).ok()
}

fn as_refs<'a>(vars: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    vars.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

// ---------------------------------------------------------------------------------------------
// The rule extractor
// ---------------------------------------------------------------------------------------------

#[test]
fn a_recorded_session_becomes_a_fact_a_summary_and_an_episode() {
    let env = Env::new();
    let fx = support::fixtures().join("claude-code");
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        std::fs::read(fx.join("UserPromptSubmit.json")).unwrap(),
    );
    env.hook(
        "claude-code",
        "PostToolUse",
        std::fs::read(fx.join("PostToolUse.json")).unwrap(),
    );
    let message = "The shop service uses SQLite for storage. Then I ran the tests and they passed.";
    let session = "3f2a9c41-7b5e-4d2a-9c1f-8e6b0d4a2c17"; // the fixtures' session
    env.hook("claude-code", "Stop", stop(session, message));
    let summary_id: i64 = one(&env, "SELECT id FROM memories WHERE kind = 'summary'");
    assert_eq!(
        one::<i64>(&env, "SELECT count(*) FROM facts"),
        0,
        "the hook only queues"
    );

    let (out, err) = ok(&env, &[], &["compress"]);
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 1 new fact(s), 0 already known."
    );
    assert!(
        err.contains("done: 1 memories in 1 window, 1 new fact, summary written"),
        "{err}"
    );

    // The row keeps its id and now holds the summary; the message stays as its episode.
    let (title, text): (String, String) = env
        .conn()
        .query_row(
            "SELECT title, text FROM memories WHERE id = ?1",
            [summary_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        title,
        "Session summary: shop service uses SQLite for storage"
    );
    assert_eq!(
        text,
        "Session summary:\n- shop service uses SQLite for storage"
    );
    assert_eq!(
        one::<String>(&env, "SELECT text FROM episodes"),
        message,
        "the original message is kept"
    );
    let (obs, _) = ok(&env, &[], &["observations", &summary_id.to_string()]);
    assert!(
        obs.contains(&format!(
            "Original message (episode #{summary_id}): {message}"
        )),
        "{obs}"
    );
    ok(
        &env,
        &[],
        &["dismiss", &summary_id.to_string(), "--type", "episode"],
    );
    let (obs, _) = ok(&env, &[], &["observations", &summary_id.to_string()]);
    assert!(
        !obs.contains("Original message"),
        "a dismissed episode is hidden: {obs}"
    );
    let fact: (String, f64, String, Option<i64>) = env
        .conn()
        .query_row(
            "SELECT subject || '|' || predicate || '|' || object, confidence, source, valid_to FROM facts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        fact,
        (
            "shop service|uses|SQLite for storage".into(),
            0.45,
            "rules".into(),
            None
        )
    );
    assert_eq!(
        query::<String>(
            &env,
            "SELECT type || '|' || state || '|' || attempts FROM jobs"
        ),
        vec!["extract_session|done|1"]
    );
    // The project summary lists the project's current facts.
    let project: String = one(
        &env,
        "SELECT text FROM memories WHERE title LIKE 'Project summary:%'",
    );
    assert_eq!(
        project,
        "Project summary: shop\n- shop service uses SQLite for storage"
    );

    // Its message dismissed (above), the summary is all there is to tell: the next session
    // starts with it, not the raw prompt; a rule fact at 0.45 stays out of the Facts section.
    let (block, _) = ok(&env, &[], &["context", "--project", "shop"]);
    assert!(
        block.contains(&format!("- #{summary_id} "))
            && block.contains("[summary] Session summary: shop service uses SQLite for storage"),
        "{block}"
    );
    assert!(
        !block.contains("Add a discount"),
        "the prompt is replaced: {block}"
    );
    assert!(!block.contains("## Facts"), "{block}");
    // A prompt sent after the compression is still the session's news.
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        json!({"session_id": session, "cwd": "/home/dev/shop", "hook_event_name": "UserPromptSubmit",
               "prompt": "now add a discount code field"})
        .to_string(),
    );
    let (block, _) = ok(&env, &[], &["context", "--project", "shop"]);
    let last = block.split("## Recent").next().unwrap();
    assert!(
        last.contains("now add a discount code field")
            && last.contains("Session summary: shop service"),
        "{block}"
    );
    // Search lists the matching fact first; fact_history shows it.
    let (found, _) = ok(&env, &[], &["search", "SQLite"]);
    assert!(
        found.starts_with("fact #1 shop service uses SQLite for storage"),
        "{found}"
    );
    let (history, _) = ok(&env, &[], &["facts", "shop service"]);
    assert!(
        history.contains("uses SQLite for storage (confidence 0.45"),
        "{history}"
    );

    // Nothing is read twice; a later stop of the same session queues it again.
    let (out, _) = ok(&env, &[], &["compress"]);
    assert_eq!(out.trim(), "Nothing to compress: no session is waiting.");
    env.hook(
        "claude-code",
        "Stop",
        stop(
            session,
            "The checkout worker requires Redis 7 for its job queue.",
        ),
    );
    let (out, _) = ok(&env, &[], &["compress"]);
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 1 new fact(s), 0 already known."
    );
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM facts"), 2);
    assert_eq!(
        one::<i64>(&env, "SELECT count(*) FROM jobs WHERE state = 'done'"),
        2
    );
}

#[test]
fn a_session_without_a_fact_keeps_the_pasted_message() {
    let env = Env::new();
    let message = "I added the discount parameter and a unit test; all tests pass.";
    env.hook("claude-code", "Stop", stop("s1", message));
    let (out, _) = ok(&env, &[], &["compress"]);
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 0 new fact(s), 0 already known."
    );
    assert_eq!(
        one::<String>(&env, "SELECT title FROM memories WHERE kind = 'summary'"),
        format!("Session summary: {message}")
    );
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM episodes"), 0);
    assert_eq!(one::<String>(&env, "SELECT state FROM jobs"), "done");
}

#[test]
fn a_note_saved_twice_with_a_small_change_is_merged_and_project_notes_compress_on_request() {
    let env = Env::new();
    ok(
        &env,
        &[],
        &[
            "save",
            "The billing worker stores invoices in Postgres, one row per invoice.",
        ],
    );
    ok(
        &env,
        &[],
        &[
            "save",
            "The billing worker stores invoices in Postgres: one row per invoice.",
        ],
    );
    let (out, _) = ok(&env, &[], &["compress"]);
    assert_eq!(
        out.trim(),
        "Nothing to compress: no session is waiting.",
        "notes wait until asked"
    );
    let (_, err) = ok(&env, &[], &["compress", "--project", "shop"]);
    assert!(err.contains("1 near-duplicate(s) merged"), "{err}");
    assert_eq!(
        query::<i64>(
            &env,
            "SELECT dismissed FROM memories WHERE kind = 'note' ORDER BY id"
        ),
        vec![0, 1],
        "the newer copy is dismissed"
    );
    let reason: String = one(&env, "SELECT reason FROM audit WHERE action = 'merge'");
    assert!(
        reason.starts_with("near-duplicate of #1 (similarity"),
        "{reason}"
    );
    assert_eq!(
        query::<String>(&env, "SELECT subject || '|' || object FROM facts"),
        vec!["billing worker|invoices in Postgres, one row per invoice"]
    );
}

// ---------------------------------------------------------------------------------------------
// Model providers
// ---------------------------------------------------------------------------------------------

#[test]
fn an_openai_compatible_provider_extracts_facts_that_reach_the_context_block() {
    let env = Env::new();
    let server = ChatServer::start(vec![facts_reply(json!([
        {"subject": "shop service", "predicate": "uses", "object": "SQLite", "valid_from": "2026-11-02", "confidence": 0.8}
    ]))]);
    let secret = "ghp_R8sWx3Lq9Vb2Nz7Kd4Tf6Hj1Mp5Yc0Ga3Ue8";
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "Since November the shop service uses SQLite. The deploy token was ghp_R8sWx3Lq9Vb2Nz7Kd4Tf6Hj1Mp5Yc0Ga3Ue8."),
    );
    let vars = server.vars();
    let (out, err) = ok(&env, &as_refs(&vars), &["compress"]);
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 1 new fact(s), 0 already known."
    );
    // The first run says what it will send and the caps.
    assert!(
        err.contains("will send session summaries and notes, redacted, to openai (test-model)")
            && err.contains("1000000 a day"),
        "{err}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].contains("Since November the shop service uses SQLite."));
    assert!(
        !requests[0].contains(secret),
        "the window is redacted before it is sent"
    );

    let fact: (String, f64, String, i64) = env
        .conn()
        .query_row(
            "SELECT object, confidence, source, valid_from FROM facts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        fact,
        ("SQLite".into(), 0.8, "openai".into(), 1_793_577_600_000)
    );
    let (block, _) = ok(&env, &[], &["context", "--project", "shop"]);
    assert!(
        block.contains(
            "## Facts\n- shop service uses SQLite (confidence 0.80, since 2026-11-02, from #"
        ),
        "{block}"
    );

    // What was sent is counted, logged, and shown by doctor; a second run says nothing new.
    let (doctor, _) = ok(&env, &as_refs(&vars), &["doctor"]);
    let sent = doctor
        .lines()
        .find(|l| l.starts_with("sent:"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        sent.starts_with("sent:     openai: today ") && sent.contains("in 1 call(s)"),
        "{doctor}"
    );
    let log = std::fs::read_to_string(env.data().join("provider-calls.jsonl")).unwrap();
    let line: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(
        (line["provider"].as_str(), line["facts"].as_u64()),
        (Some("openai"), Some(1))
    );
    assert!(line["chars_sent"].as_u64().unwrap() > 100);
    assert!(
        !log.contains(secret) && !log.contains("SQLite"),
        "the log holds sizes, not text"
    );
    env.hook(
        "claude-code",
        "Stop",
        stop("s2", "The cart service requires Node 22."),
    );
    let (_, err) = ok(&env, &as_refs(&vars), &["compress"]);
    assert!(!err.contains("will send"), "{err}");
}

#[test]
fn past_a_cap_the_rule_extractor_reads_the_window_and_nothing_is_sent() {
    for cap in ["ALETHEIA_PROVIDER_JOB_CHARS", "ALETHEIA_PROVIDER_DAY_CHARS"] {
        let env = Env::new();
        let server = ChatServer::start(vec![facts_reply(json!([]))]);
        env.hook(
            "claude-code",
            "Stop",
            stop("s1", "The cart service requires Node 22."),
        );
        let mut vars = server.vars();
        vars.push((cap, "100".into()));
        let (out, err) = ok(&env, &as_refs(&vars), &["compress"]);
        assert_eq!(
            out.trim(),
            "Compressed 1 job(s): 1 new fact(s), 0 already known.",
            "{cap}"
        );
        assert!(
            err.contains("1 window(s) by rules: a provider cap was reached"),
            "{err}"
        );
        assert!(server.requests().is_empty(), "{cap}: nothing was sent");
        assert_eq!(
            query::<String>(&env, "SELECT source FROM facts"),
            vec!["rules"]
        );
        assert_eq!(one::<i64>(&env, "SELECT count(*) FROM provider_usage"), 0);
    }
}

#[test]
fn a_pinned_near_copy_is_never_merged_away() {
    let env = Env::new();
    ok(
        &env,
        &[],
        &[
            "save",
            "The billing worker stores invoices in Postgres, one row per invoice.",
        ],
    );
    ok(
        &env,
        &[],
        &[
            "save",
            "The billing worker stores invoices in Postgres: one row per invoice.",
            "--pinned",
        ],
    );
    let (_, err) = ok(&env, &[], &["compress", "--project", "shop"]);
    assert!(!err.contains("merged"), "{err}");
    assert_eq!(
        one::<i64>(&env, "SELECT count(*) FROM memories WHERE dismissed = 1"),
        0
    );
}

#[test]
fn failed_replies_are_retried_with_backoff_until_one_is_good() {
    let env = Env::new();
    let server = ChatServer::start(vec![
        Answer(
            500,
            r#"{"error":{"message":"overloaded"}}"#.into(),
            Duration::ZERO,
        ),
        Answer(200, "this is not json".into(), Duration::ZERO),
        Answer(
            200,
            completion(r#"{"facts":[{"subject":"cart","predicate":"uses"}]}"#),
            Duration::ZERO,
        ),
        facts_reply(
            json!([{"subject": "cart service", "predicate": "requires", "object": "Node 22", "valid_from": null, "confidence": 0.7}]),
        ),
    ]);
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let vars = server.vars();
    let started = Instant::now();
    let (out, err) = ok(&env, &as_refs(&vars), &["compress"]);
    // 1 s, 2 s and 4 s of backoff between the four attempts.
    assert!(
        started.elapsed() >= Duration::from_secs(7),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 1 new fact(s), 0 already known.",
        "{err}"
    );
    assert!(
        err.contains(
            "attempt 1 failed, retrying in 1 s: every model provider failed: openai: the model provider answered HTTP 500"
        ),
        "{err}"
    );
    assert!(
        err.contains("attempt 2 failed, retrying in 2 s: every model provider failed: openai: the model's reply is malformed"),
        "{err}"
    );
    assert!(
        err.contains("attempt 3 failed, retrying in 4 s: every model provider failed: openai:")
            && err.contains("\"object\""),
        "{err}"
    );
    assert_eq!(
        query::<String>(&env, "SELECT object FROM facts"),
        vec!["Node 22"]
    );
    assert_eq!(
        one::<String>(&env, "SELECT state || '|' || attempts FROM jobs"),
        "done|4"
    );
    assert_eq!(server.requests().len(), 4);
}

#[test]
fn a_provider_that_always_fails_fails_the_job_after_five_attempts_with_the_reason() {
    let env = Env::new();
    let server = ChatServer::start(vec![Answer(
        500,
        r#"{"error":"down"}"#.into(),
        Duration::ZERO,
    )]);
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let vars = server.vars();
    let (out, _) = ok(&env, &as_refs(&vars), &["compress"]);
    assert!(
        out.contains("1 job(s) failed: see aletheia compress --status."),
        "{out}"
    );
    assert_eq!(server.requests().len(), 5);
    let (state, attempts, error): (String, i64, String) = env
        .conn()
        .query_row("SELECT state, attempts, last_error FROM jobs", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!((state.as_str(), attempts), ("failed", 5));
    assert!(error.contains("answered HTTP 500"), "{error}");
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM facts"), 0);
    let (status, _) = ok(&env, &[], &["compress", "--status"]);
    assert!(
        status.contains("failed, attempt 5: every model provider failed: openai: the model provider answered HTTP 500"),
        "{status}"
    );
    // The user's calls are counted even though none was useful.
    assert_eq!(one::<i64>(&env, "SELECT calls FROM provider_usage"), 5);
}

/// A stand-in `claude` on PATH that answers like `claude -p --output-format json`.
fn claude_stand_in(env: &Env, result: &str) -> std::path::PathBuf {
    let bin = env.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let reply = json!({"type": "result", "subtype": "success", "is_error": false, "result": result, "total_cost_usd": 0.0012});
    let path = bin.join("claude");
    support::write_executable(
        &path,
        &format!(
            "#!/bin/sh\ncat > \"{}\"\nprintf '%s' '{}'\n",
            env.dir.path().join("prompt.txt").display(),
            reply.to_string().replace('\'', "'\\''")
        ),
    );
    bin
}

#[test]
fn claude_cli_answers_when_the_first_provider_fails() {
    let env = Env::new();
    let server = ChatServer::start(vec![Answer(500, "{}".into(), Duration::ZERO)]);
    let bin = claude_stand_in(
        &env,
        r#"{"facts":[{"subject":"cart service","predicate":"requires","object":"Node 22","valid_from":null,"confidence":0.9}]}"#,
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let vars = [
        ("PATH", path.as_str()),
        ("ALETHEIA_PROVIDERS", "openai,claude-cli"),
        ("ALETHEIA_OPENAI_BASE_URL", server.base.as_str()),
    ];
    let (out, _) = ok(&env, &vars, &["compress"]);
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 1 new fact(s), 0 already known."
    );
    assert_eq!(
        query::<String>(&env, "SELECT source || '|' || object FROM facts"),
        vec!["claude-cli|Node 22"]
    );
    let prompt = std::fs::read_to_string(env.dir.path().join("prompt.txt")).unwrap();
    assert!(
        prompt.contains("The cart service requires Node 22."),
        "{prompt}"
    );
    // Both calls count: the failed one sent its characters too.
    assert_eq!(
        query::<String>(
            &env,
            "SELECT provider || '|' || calls FROM provider_usage ORDER BY provider"
        ),
        vec!["claude-cli|1", "openai|1"]
    );
}

// ---------------------------------------------------------------------------------------------
// Workers
// ---------------------------------------------------------------------------------------------

#[test]
fn two_workers_racing_on_one_queue_run_each_job_once() {
    let env = Env::new();
    let n = 30;
    for i in 0..n {
        env.hook(
            "claude-code",
            "Stop",
            stop(
                &format!("s{i}"),
                &format!("The service{i} worker listens on port {}.", 8000 + i),
            ),
        );
    }
    let a = spawn(&env, &[], &["compress"]);
    let b = spawn(&env, &[], &["compress"]);
    let (ca, _, ea) = finish(a, Duration::from_secs(60));
    let (cb, _, eb) = finish(b, Duration::from_secs(60));
    assert_eq!((ca, cb), (0, 0), "{ea}\n{eb}");
    assert_eq!(
        one::<i64>(&env, "SELECT count(*) FROM jobs WHERE state = 'done'"),
        n
    );
    assert_eq!(
        one::<i64>(&env, "SELECT count(*) FROM jobs"),
        n,
        "no job twice"
    );
    assert_eq!(one::<i64>(&env, "SELECT max(attempts) FROM jobs"), 1);
    assert_eq!(
        one::<i64>(&env, "SELECT count(*) FROM facts"),
        n,
        "each fact once"
    );
    assert_eq!(
        one::<i64>(&env, "SELECT count(DISTINCT subject || object) FROM facts"),
        n
    );
    let per_worker = [ea, eb].map(|e| e.lines().filter(|l| l.contains(": done:")).count());
    assert_eq!(
        per_worker.iter().sum::<usize>(),
        n as usize,
        "{per_worker:?}"
    );
}

#[test]
fn a_worker_killed_mid_job_leaves_nothing_and_the_job_runs_again_after_its_lease() {
    let env = Env::new();
    let good = facts_reply(
        json!([{"subject": "cart service", "predicate": "requires", "object": "Node 22", "valid_from": null, "confidence": 0.7}]),
    );
    let server = ChatServer::start(vec![
        Answer(200, good.1.clone(), Duration::from_secs(30)),
        good,
    ]);
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let vars = server.vars();
    let mut worker = spawn(&env, &as_refs(&vars), &["compress"]);
    server.wait_for_requests(1);
    worker.kill().unwrap(); // SIGKILL
    worker.wait().unwrap();
    assert_eq!(
        one::<String>(&env, "SELECT state || '|' || attempts FROM jobs"),
        "running|1"
    );
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM facts"), 0);
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM extracted"), 0);

    // While the dead worker's lease lasts, nobody takes the job.
    let (out, _) = ok(&env, &as_refs(&vars), &["compress"]);
    assert_eq!(
        out.trim(),
        "Nothing to compress now: 1 job(s) running in another worker, or waiting for a stopped worker's lease to expire."
    );
    assert_eq!(server.requests().len(), 1);
    // Sixty seconds later (moved forward here rather than waited for), it is claimable again.
    env.conn()
        .execute("UPDATE jobs SET lease_until = lease_until - 60000", [])
        .unwrap();
    let (out, _) = ok(&env, &as_refs(&vars), &["compress"]);
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 1 new fact(s), 0 already known."
    );
    assert_eq!(
        one::<String>(&env, "SELECT state || '|' || attempts FROM jobs"),
        "done|2"
    );
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM facts"), 1);
}

#[test]
fn a_source_dismissed_while_its_job_runs_yields_no_fact() {
    let env = Env::new();
    let server = ChatServer::start(vec![Answer(
        200,
        facts_reply(json!([{"subject": "cart service", "predicate": "requires", "object": "Node 22", "valid_from": null, "confidence": 0.7}])).1,
        Duration::from_secs(2),
    )]);
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let id: i64 = one(&env, "SELECT id FROM memories WHERE kind = 'summary'");
    let vars = server.vars();
    let worker = spawn(&env, &as_refs(&vars), &["compress"]);
    server.wait_for_requests(1);
    ok(&env, &[], &["dismiss", &id.to_string()]);
    let (code, out, err) = finish(worker, Duration::from_secs(30));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim(),
        "Compressed 1 job(s): 0 new fact(s), 0 already known."
    );
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM facts"), 0);
    assert_eq!(
        one::<i64>(&env, "SELECT count(*) FROM extracted"),
        0,
        "restoring it lets a later job read it"
    );
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM episodes"), 0);
}

#[test]
fn a_daemon_finishes_its_job_on_sigterm_and_stops_idle_on_sigint() {
    let env = Env::new();
    let server = ChatServer::start(vec![Answer(
        200,
        facts_reply(json!([{"subject": "cart service", "predicate": "requires", "object": "Node 22", "valid_from": null, "confidence": 0.7}])).1,
        Duration::from_millis(1500),
    )]);
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let vars = server.vars();
    let daemon = spawn(&env, &as_refs(&vars), &["compress", "--daemon"]);
    server.wait_for_requests(1);
    // SAFETY: kill has no memory preconditions; the pid is our own child's.
    unsafe { libc::kill(daemon.id() as i32, libc::SIGTERM) };
    let (code, _, err) = finish(daemon, Duration::from_secs(20));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("compress worker on (openai (test-model))"),
        "{err}"
    );
    assert!(
        err.contains("done: 1 memories in 1 window, 1 new fact")
            && err.ends_with("compress worker stopped.\n"),
        "{err}"
    );
    assert_eq!(one::<String>(&env, "SELECT state FROM jobs"), "done");

    let idle = spawn(&env, &[], &["compress", "--daemon"]);
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: as above.
    unsafe { libc::kill(idle.id() as i32, libc::SIGINT) };
    let (code, _, err) = finish(idle, Duration::from_secs(10));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("compress worker on (rule-based)"), "{err}");
}

#[test]
fn a_daemon_picks_up_a_session_that_stops_while_it_runs() {
    let env = Env::new();
    let daemon = spawn(&env, &[], &["compress", "--daemon"]);
    std::thread::sleep(Duration::from_millis(300));
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let start = Instant::now();
    while one::<i64>(&env, "SELECT count(*) FROM facts") == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "the daemon never ran the job"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: as above.
    unsafe { libc::kill(daemon.id() as i32, libc::SIGTERM) };
    let (code, _, _) = finish(daemon, Duration::from_secs(10));
    assert_eq!(code, 0);
}

#[test]
fn a_bad_provider_setting_is_a_clear_error_and_nothing_runs() {
    let env = Env::new();
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    let (code, _, err) = run(&env, &[("ALETHEIA_PROVIDER", "gpt")], &["compress"]);
    assert_ne!(code, 0);
    assert!(err.contains("gpt") && err.lines().count() == 1, "{err}");
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM jobs"), 0);
}

#[test]
fn a_project_job_reads_only_notes_saved_outside_sessions() {
    let env = Env::new();
    env.hook(
        "claude-code",
        "Stop",
        stop("s1", "The cart service requires Node 22."),
    );
    ok(
        &env,
        &[],
        &["save", "The billing worker stores invoices in Postgres."],
    );
    let (out, _) = ok(&env, &[], &["compress", "--project", "shop"]);
    assert_eq!(
        out.trim(),
        "Compressed 2 job(s): 2 new fact(s), 0 already known."
    );
    // The session's own job read its summary, so the summary was written over the row.
    assert_eq!(one::<i64>(&env, "SELECT count(*) FROM episodes"), 1);
    assert_eq!(
        query::<String>(
            &env,
            "SELECT ifnull(session_id, '-') || '|' || (SELECT count(*) FROM extracted e JOIN memories m ON m.id = e.memory_id WHERE e.job_id = jobs.id AND m.title NOT LIKE 'Project summary:%') FROM jobs ORDER BY id"
        ),
        vec!["-|1", "s1|1"]
    );
}

#[test]
fn a_session_whose_fact_replaces_an_older_one_marks_the_older_session_as_replaced() {
    let env = Env::new();
    env.hook(
        "claude-code",
        "Stop",
        stop("s-fly", "The shop service runs on Fly."),
    );
    ok(&env, &[], &["compress"]);
    env.hook(
        "claude-code",
        "Stop",
        stop("s-aws", "The shop service runs on AWS."),
    );
    ok(&env, &[], &["compress"]);
    let fly: i64 = one(&env, "SELECT id FROM memories WHERE session_id = 's-fly'");
    let aws: i64 = one(&env, "SELECT id FROM memories WHERE session_id = 's-aws'");
    let links: Vec<String> = query(
        &env,
        "SELECT older || '>' || newer || ' ' || cause FROM memory_links",
    );
    assert_eq!(links, [format!("{fly}>{aws} facts")]);
    let (out, _) = ok(&env, &[], &["search", "shop service"]);
    assert!(out.contains(&format!("[replaced by #{aws}]")), "{out}");
}

// ---------------------------------------------------------------------------------------------
// What the next session is told of a compressed session
// ---------------------------------------------------------------------------------------------

/// The Stop message a new user saw shrink to one fact.
const CI_MESSAGE: &str = "Switched CI to pnpm with a cached store; staging deploy done and the \
                          checkout tests pass again. Staging deploys require the VPN.";

/// A session of one prompt and `message` as its Stop; returns the summary row's id.
fn ci_session(env: &Env, message: &str) -> i64 {
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        json!({"session_id": "s-ci", "cwd": "/home/dev/shop", "hook_event_name": "UserPromptSubmit",
               "prompt": "move CI to pnpm"})
        .to_string(),
    );
    env.hook("claude-code", "Stop", stop("s-ci", message));
    one(env, "SELECT id FROM memories WHERE kind = 'summary'")
}

/// The block's Last session section.
fn last_session(env: &Env) -> String {
    let (block, _) = ok(env, &[], &["context", "--project", "shop"]);
    let from = block.find("## Last session").expect(&block);
    let to = block[from..]
        .find("\n## ")
        .map_or(block.len(), |n| from + n + 1);
    block[from..to].to_owned()
}

/// The title each item of `section` shows, after its `[type]`.
fn titles(section: &str) -> Vec<String> {
    section
        .lines()
        .filter(|l| l.starts_with("- #"))
        .filter_map(|l| l.split_once("] ").map(|(_, t)| t.to_owned()))
        .collect()
}

#[test]
fn after_a_rule_compression_the_block_still_tells_what_the_stop_message_said() {
    let env = Env::new();
    let id = ci_session(&env, CI_MESSAGE);
    let before = last_session(&env);
    let said = before
        .lines()
        .find(|l| l.starts_with(&format!("- #{id} ")))
        .and_then(|l| l.split_once("] "))
        .map(|(_, t)| t.rsplit_once(" (").unwrap().0.to_owned())
        .expect(&before);
    assert!(
        said.starts_with("Session summary: Switched CI to pnpm"),
        "{before}"
    );

    ok(&env, &[], &["compress"]);
    let facts: Vec<String> = query(
        &env,
        "SELECT subject || ' ' || predicate || ' ' || object FROM facts ORDER BY id",
    );
    assert!(!facts.is_empty(), "the rules read a fact");
    let after = last_session(&env);
    // The message's line as before, the facts after it, and the prompt as before.
    assert!(
        after.contains(&format!("{said} — facts: {}", facts.join("; "))),
        "{before}\n{after}"
    );
    assert!(after.contains("move CI to pnpm"), "{after}");
    for title in titles(&after) {
        assert!(!title.starts_with(['-', '*', '•']), "{after}");
    }
    let stored: String = one(
        &env,
        "SELECT title FROM memories WHERE kind = 'summary' AND session_id IS NOT NULL",
    );
    assert!(!stored.contains(": - "), "{stored}");
}

#[test]
fn a_provider_summary_that_says_what_the_message_said_replaces_it() {
    let env = Env::new();
    let server = ChatServer::start(vec![facts_reply(json!([
        {"subject": "CI", "predicate": "uses", "object": "pnpm with a cached store", "confidence": 0.8},
        {"subject": "the staging deploy", "predicate": "is", "object": "done", "confidence": 0.8},
        {"subject": "the checkout tests", "predicate": "pass", "object": "again", "confidence": 0.8},
        {"subject": "staging deploys", "predicate": "require", "object": "the VPN", "confidence": 0.8}
    ]))]);
    let id = ci_session(&env, CI_MESSAGE);
    let vars = server.vars();
    ok(&env, &as_refs(&vars), &["compress"]);
    let after = last_session(&env);
    assert_eq!(
        titles(&after).len(),
        1,
        "the summary alone tells the session: {after}"
    );
    let told = after
        .lines()
        .find(|l| l.starts_with(&format!("- #{id} ")))
        .expect(&after);
    assert!(
        told.contains(
            "[summary] Session summary: CI uses pnpm with a cached store; the staging deploy is \
             done; the checkout tests pass again; staging deploys require the VPN ("
        ),
        "{after}"
    );
}
