//! Model providers against real endpoints: an HTTP server on 127.0.0.1 that speaks the
//! chat-completions shape, and stand-in `claude` executables written as shell scripts.
//!
//! The real services are out of reach for the test suite, and what matters here is our side
//! of the wire: what we send, and how each kind of answer (good, refused, slow, garbled) is
//! turned into facts or into an error a worker can record and move past. Settings go through
//! `from_lookup`, never the process environment, so the tests can run in parallel.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aletheia::compress::Candidate;
use aletheia::compress::provider::{Provider, ProviderError, from_lookup, prompt};
use serde_json::{Value, json};

const WINDOW: &str = "The shop service stores orders in PostgreSQL 16 since 2026-03-01.";

/// What the model says, as the facts-v1 reply.
fn facts_json() -> String {
    json!({"facts": [{
        "subject": "shop service",
        "predicate": "stores orders in",
        "object": "PostgreSQL 16",
        "valid_from": "2026-03-01",
        "confidence": 0.9,
    }]})
    .to_string()
}

fn expected_facts() -> Vec<Candidate> {
    vec![Candidate {
        subject: "shop service".into(),
        predicate: "stores orders in".into(),
        object: "PostgreSQL 16".into(),
        valid_from: Some(1_772_323_200_000), // 2026-03-01T00:00:00Z
        confidence: 0.9,
    }]
}

/// A lookup over fixed settings, standing in for the environment.
fn settings(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

fn providers(pairs: &[(&str, &str)]) -> Vec<Box<dyn Provider>> {
    match from_lookup(&settings(pairs)) {
        Ok(providers) => providers,
        Err(e) => panic!("from_lookup: {e}"),
    }
}

fn config_error(pairs: &[(&str, &str)]) -> String {
    match from_lookup(&settings(pairs)) {
        Err(ProviderError::Config(why)) => why,
        Err(e) => panic!("expected a Config error, got {e:?}"),
        Ok(p) => panic!("expected a Config error, got {} providers", p.len()),
    }
}

fn names(providers: &[Box<dyn Provider>]) -> Vec<&str> {
    providers.iter().map(|p| p.name()).collect()
}

// ---------------------------------------------------------------------------------------------
// A chat-completions server

/// One request as the server received it.
#[derive(Debug, Clone)]
struct Request {
    method: String,
    path: String,
    /// Header names lowercased.
    headers: HashMap<String, String>,
    body: String,
}

impl Request {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

/// Answers every request with one canned response after an optional delay, and keeps what it
/// was sent.
struct Server {
    /// Base URL, without a trailing slash: `http://127.0.0.1:PORT/v1`.
    base: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    fn start(status: u16, body: impl Into<String>) -> Server {
        Server::start_slow(status, body, Duration::ZERO)
    }

    fn start_slow(status: u16, body: impl Into<String>, delay: Duration) -> Server {
        let body = body.into();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        // Never joined: the thread ends with the test process.
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Some(request) = read_request(&stream) else {
                    continue;
                };
                seen.lock().unwrap().push(request);
                std::thread::sleep(delay);
                let reason = match status {
                    200 => "OK",
                    401 => "Unauthorized",
                    429 => "Too Many Requests",
                    500 => "Internal Server Error",
                    _ => "Other",
                };
                let head = format!(
                    "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                // The client may have given up already (the timeout test).
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(body.as_bytes());
            }
        });
        Server { base, requests }
    }

    /// A chat-completions answer whose message content is `content`.
    fn answering(content: &str) -> Server {
        Server::start(200, completion(content))
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366},
    })
    .to_string()
}

fn read_request(stream: &std::net::TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 || header == "\r\n" {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
    }
    let length: usize = headers.get("content-length")?.parse().ok()?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body: String::from_utf8(body).ok()?,
    })
}

/// The one openai provider configured against `server`, with extra settings.
fn openai(server: &Server, extra: &[(&str, &str)]) -> Vec<Box<dyn Provider>> {
    let mut pairs = vec![
        ("ALETHEIA_PROVIDER", "openai"),
        ("ALETHEIA_OPENAI_BASE_URL", server.base.as_str()),
    ];
    pairs.extend_from_slice(extra);
    providers(&pairs)
}

fn extract_err(providers: &[Box<dyn Provider>]) -> ProviderError {
    match providers[0].extract(WINDOW) {
        Err(e) => e,
        Ok(reply) => panic!("expected an error, got {reply:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// openai

#[test]
fn openai_good_reply_gives_facts_and_sends_the_specified_request() {
    let server = Server::answering(&facts_json());
    let base = format!("{}/", server.base); // a trailing slash is tolerated
    let p = providers(&[
        ("ALETHEIA_PROVIDER", "openai"),
        ("ALETHEIA_OPENAI_BASE_URL", &base),
        ("ALETHEIA_OPENAI_MODEL", "test-model"),
        ("ALETHEIA_OPENAI_API_KEY", "sk-test-123"),
    ]);
    assert_eq!((p[0].name(), p[0].model()), ("openai", "test-model"));

    let reply = p[0].extract(WINDOW).unwrap();
    assert_eq!(reply.facts, expected_facts());
    assert_eq!(
        reply.chars_sent,
        prompt::facts_v1(WINDOW).chars().count(),
        "chars_sent is the prompt's length"
    );
    assert_eq!(reply.chars_received, facts_json().chars().count());
    assert_eq!((reply.tokens_in, reply.tokens_out), (Some(321), Some(45)));
    assert_eq!(reply.cost_usd, None);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.headers["authorization"], "Bearer sk-test-123");
    assert!(request.headers["content-type"].starts_with("application/json"));
    let body = request.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    let content = messages[0]["content"].as_str().unwrap();
    assert_eq!(content, prompt::facts_v1(WINDOW));
    assert!(content.contains(WINDOW));
    assert!(content.contains("at most 5 facts"));
    assert!(content.contains(r#""valid_from":"YYYY-MM-DD or null","confidence":0.8"#));
    assert!(content.contains("Reply with the JSON object only."));
}

#[test]
fn openai_on_loopback_needs_no_key_and_sends_no_authorization() {
    let server = Server::answering(&facts_json());
    let p = openai(&server, &[]);
    assert_eq!(p[0].model(), "gpt-4o-mini");
    assert_eq!(p[0].extract(WINDOW).unwrap().facts, expected_facts());
    assert!(!server.requests()[0].headers.contains_key("authorization"));
}

#[test]
fn openai_falls_back_to_openai_api_key() {
    let server = Server::answering(&facts_json());
    let p = openai(&server, &[("OPENAI_API_KEY", "sk-plain")]);
    p[0].extract(WINDOW).unwrap();
    assert_eq!(
        server.requests()[0].headers["authorization"],
        "Bearer sk-plain"
    );
}

#[test]
fn openai_remote_url_without_a_key_is_a_config_error() {
    let why = config_error(&[("ALETHEIA_PROVIDER", "openai")]);
    assert_eq!(
        why,
        "openai: no API key for https://api.openai.com/v1; set ALETHEIA_OPENAI_API_KEY (any value if the server needs none)"
    );
    let why = config_error(&[
        ("ALETHEIA_PROVIDER", "openai"),
        ("ALETHEIA_OPENAI_BASE_URL", "localhost:8080/v1"),
    ]);
    assert!(why.contains("must start with http:// or https://"), "{why}");
}

#[test]
fn openai_500_is_an_http_error_with_the_start_of_the_body() {
    let server = Server::start(500, r#"{"error":{"message":"the model crashed"}}"#);
    match extract_err(&openai(&server, &[])) {
        ProviderError::Http { status, body } => {
            assert_eq!(status, 500);
            assert_eq!(body, r#"{"error":{"message":"the model crashed"}}"#);
        }
        e => panic!("expected Http, got {e:?}"),
    }
}

#[test]
fn openai_429_says_to_try_later() {
    let server = Server::start(429, r#"{"error":{"message":"Rate limit reached"}}"#);
    let e = extract_err(&openai(&server, &[]));
    assert!(
        matches!(e, ProviderError::Http { status: 429, .. }),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains("HTTP 429") && text.contains("try again later"),
        "{text}"
    );
    assert!(text.contains("Rate limit reached"), "{text}");
    assert!(!text.contains('\n'));
}

#[test]
fn openai_long_error_body_is_cut_to_200_characters() {
    let server = Server::start(500, "x".repeat(5000));
    match extract_err(&openai(&server, &[])) {
        ProviderError::Http { body, .. } => assert_eq!(body, format!("{}…", "x".repeat(200))),
        e => panic!("expected Http, got {e:?}"),
    }
}

#[test]
fn openai_error_text_never_carries_the_key() {
    let key = "sk-test-very-secret-4242";
    let server = Server::start(
        401,
        format!(r#"{{"error":{{"message":"Incorrect API key provided: {key}"}}}}"#),
    );
    let e = extract_err(&openai(&server, &[("ALETHEIA_OPENAI_API_KEY", key)]));
    assert!(
        matches!(e, ProviderError::Http { status: 401, .. }),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(!text.contains(key), "{text}");
    assert!(text.contains("check ALETHEIA_OPENAI_API_KEY"), "{text}");
    assert!(!format!("{e:?}").contains(key));
}

#[test]
fn openai_non_json_body_is_malformed() {
    let server = Server::start(200, "<html>Bad gateway</html>");
    let e = extract_err(&openai(&server, &[]));
    assert!(
        matches!(&e, ProviderError::Malformed(why) if why.starts_with("the response is not JSON")),
        "{e:?}"
    );
}

#[test]
fn openai_response_without_content_is_malformed() {
    let server = Server::start(200, r#"{"choices":[]}"#);
    let e = extract_err(&openai(&server, &[]));
    assert!(
        matches!(&e, ProviderError::Malformed(why) if why.contains("choices[0].message.content")),
        "{e:?}"
    );
}

#[test]
fn openai_content_that_is_not_json_is_malformed() {
    let server = Server::answering("The project uses PostgreSQL.");
    let e = extract_err(&openai(&server, &[]));
    assert!(matches!(e, ProviderError::Malformed(_)), "{e:?}");
}

#[test]
fn openai_fact_with_a_missing_field_is_malformed() {
    let content =
        r#"{"facts":[{"subject":"shop service","predicate":"stores orders in","confidence":0.9}]}"#;
    let server = Server::answering(content);
    match extract_err(&openai(&server, &[])) {
        ProviderError::Malformed(why) => assert_eq!(why, r#"fact 1: "object" is missing"#),
        e => panic!("expected Malformed, got {e:?}"),
    }
}

#[test]
fn openai_slow_reply_is_a_timeout() {
    let server = Server::start_slow(200, completion(&facts_json()), Duration::from_secs(4));
    let p = openai(&server, &[("ALETHEIA_PROVIDER_TIMEOUT_SECS", "1")]);
    let e = extract_err(&p);
    assert!(matches!(e, ProviderError::Timeout), "{e:?}");
    assert!(e.to_string().contains("ALETHEIA_PROVIDER_TIMEOUT_SECS"));
}

#[test]
fn openai_unreachable_server_is_a_transport_error() {
    // A port that was just free and has nobody listening.
    let base = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let p = providers(&[
        ("ALETHEIA_PROVIDER", "openai"),
        ("ALETHEIA_OPENAI_BASE_URL", &base),
    ]);
    let e = extract_err(&p);
    assert!(
        matches!(&e, ProviderError::Transport(why) if why.contains(&base)),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// claude-cli

/// A temp dir holding a stand-in `claude` that records its arguments and stdin there, then
/// runs `body`.
struct Stand {
    dir: tempfile::TempDir,
}

impl Stand {
    fn new(body: &str) -> Stand {
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            "#!/bin/sh\ncat > '{d}/stdin.txt'\nprintf '%s\\n' \"$@\" > '{d}/args.txt'\n{body}\n",
            d = dir.path().display()
        );
        let bin = dir.path().join("claude");
        crate::support::write_executable(&bin, &script);
        Stand { dir }
    }

    /// A stand-in that prints `output` (a `claude -p --output-format json` result) on stdout.
    fn printing(output: &Value) -> Stand {
        Stand::new(&format!("cat <<'EOF'\n{output}\nEOF"))
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("claude")
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).unwrap()
    }

    fn provider(&self, extra: &[(&str, &str)]) -> Vec<Box<dyn Provider>> {
        let bin = self.bin().display().to_string();
        let mut pairs = vec![
            ("ALETHEIA_PROVIDER", "claude-cli"),
            ("ALETHEIA_CLAUDE_BIN", bin.as_str()),
        ];
        pairs.extend_from_slice(extra);
        providers(&pairs)
    }
}

fn result_object(result: &str) -> Value {
    json!({
        "type": "result",
        "subtype": "success",
        "is_error": false,
        "duration_ms": 2345,
        "num_turns": 1,
        "result": result,
        "session_id": "0b7c1c6e-0000-4000-8000-000000000000",
        "total_cost_usd": 0.0012,
        "usage": {
            "input_tokens": 4,
            "cache_creation_input_tokens": 300,
            "cache_read_input_tokens": 20,
            "output_tokens": 45,
        },
    })
}

#[test]
fn claude_cli_success_gives_facts_and_gets_the_prompt_on_stdin() {
    let stand = Stand::printing(&result_object(&format!("```json\n{}\n```", facts_json())));
    let p = stand.provider(&[]);
    assert_eq!((p[0].name(), p[0].model()), ("claude-cli", "default"));

    let reply = p[0].extract(WINDOW).unwrap();
    assert_eq!(reply.facts, expected_facts());
    assert_eq!(reply.chars_sent, prompt::facts_v1(WINDOW).chars().count());
    assert_eq!(reply.chars_received, facts_json().chars().count() + 12);
    assert_eq!((reply.tokens_in, reply.tokens_out), (Some(324), Some(45)));
    assert_eq!(reply.cost_usd, Some(0.0012));

    assert_eq!(stand.read("stdin.txt"), prompt::facts_v1(WINDOW));
    let args = stand.read("args.txt");
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        [
            "-p",
            "--output-format",
            "json",
            "--tools",
            "",
            "--settings",
            r#"{"disableAllHooks":true}"#,
            "--no-session-persistence",
        ]
    );
}

#[test]
fn claude_cli_passes_the_chosen_model() {
    let stand = Stand::printing(&result_object(&facts_json()));
    let p = stand.provider(&[("ALETHEIA_CLAUDE_MODEL", "haiku")]);
    assert_eq!(p[0].model(), "haiku");
    p[0].extract(WINDOW).unwrap();
    assert!(stand.read("args.txt").ends_with("--model\nhaiku\n"));
}

#[test]
fn claude_cli_is_found_on_path_by_name() {
    let stand = Stand::printing(&result_object(&facts_json()));
    let path = format!("/nonexistent:{}", stand.dir.path().display());
    let p = providers(&[("ALETHEIA_PROVIDER", "claude-cli"), ("PATH", &path)]);
    assert_eq!(p[0].extract(WINDOW).unwrap().facts, expected_facts());
}

#[test]
fn claude_cli_missing_binary_is_a_config_error() {
    let empty = tempfile::tempdir().unwrap();
    let path = empty.path().display().to_string();
    let why = config_error(&[("ALETHEIA_PROVIDER", "claude-cli"), ("PATH", &path)]);
    assert_eq!(
        why,
        "claude-cli: `claude` not found on PATH; install Claude Code or set ALETHEIA_CLAUDE_BIN"
    );
    let missing = empty.path().join("claude").display().to_string();
    let why = config_error(&[
        ("ALETHEIA_PROVIDER", "claude-cli"),
        ("ALETHEIA_CLAUDE_BIN", &missing),
    ]);
    assert!(why.contains("not an executable file"), "{why}");
}

#[test]
fn claude_cli_is_error_is_a_failed_attempt() {
    let mut output = result_object("Credit balance is too low");
    output["is_error"] = json!(true);
    let stand = Stand::printing(&output);
    match extract_err(&stand.provider(&[])) {
        ProviderError::Process(why) => assert_eq!(
            why,
            format!(
                "{} reported an error: Credit balance is too low",
                stand.bin().display()
            )
        ),
        e => panic!("expected Process, got {e:?}"),
    }
}

#[test]
fn claude_cli_non_zero_exit_reports_the_first_line_of_stderr() {
    let stand =
        Stand::new("echo 'Invalid API key. Please run /login' >&2\necho second >&2\nexit 1");
    match extract_err(&stand.provider(&[])) {
        ProviderError::Process(why) => {
            assert!(
                why.ends_with("exited with status 1: Invalid API key. Please run /login"),
                "{why}"
            );
        }
        e => panic!("expected Process, got {e:?}"),
    }
}

#[test]
fn claude_cli_malformed_result_text_is_malformed() {
    let stand = Stand::printing(&result_object("Sure! The shop service uses PostgreSQL."));
    let e = extract_err(&stand.provider(&[]));
    assert!(matches!(e, ProviderError::Malformed(_)), "{e:?}");
}

#[test]
fn claude_cli_output_that_is_not_json_is_malformed() {
    let stand = Stand::new("echo 'Welcome to Claude Code'");
    match extract_err(&stand.provider(&[])) {
        ProviderError::Malformed(why) => assert_eq!(
            why,
            format!(
                "{} printed no JSON result object: Welcome to Claude Code",
                stand.bin().display()
            )
        ),
        e => panic!("expected Malformed, got {e:?}"),
    }
}

#[test]
fn claude_cli_timeout_kills_the_child_and_its_children() {
    // The script waits on a child of its own, as the real binary may; the timeout must not
    // leave that one running.
    let stand = Stand::new("sleep 30 &\necho $! > \"$(dirname \"$0\")/sleeper.pid\"\nwait");
    let p = stand.provider(&[("ALETHEIA_PROVIDER_TIMEOUT_SECS", "1")]);
    let e = extract_err(&p);
    assert!(matches!(e, ProviderError::Timeout), "{e:?}");
    let sleeper: i32 = stand.read("sleeper.pid").trim().parse().unwrap();
    let gone_by = Instant::now() + Duration::from_secs(10);
    while is_running(sleeper) {
        assert!(
            Instant::now() < gone_by,
            "the sleeper {sleeper} outlived the timeout"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Alive and not a zombie: whoever inherits an orphan may be slow to reap it.
fn is_running(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state follows the command name, which is in parentheses.
    !stat
        .rsplit_once(')')
        .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
}

// ---------------------------------------------------------------------------------------------
// Choosing providers, and falling back

#[test]
fn nothing_set_or_none_means_the_rule_extractor() {
    assert!(providers(&[]).is_empty());
    assert!(providers(&[("ALETHEIA_PROVIDER", "none")]).is_empty());
    assert!(providers(&[("ALETHEIA_PROVIDER", "")]).is_empty());
    assert!(providers(&[("ALETHEIA_PROVIDERS", " None ")]).is_empty());
}

#[test]
fn the_list_wins_over_the_single_name_and_keeps_its_order() {
    let stand = Stand::printing(&result_object(&facts_json()));
    let bin = stand.bin().display().to_string();
    let p = providers(&[
        ("ALETHEIA_PROVIDERS", "claude-cli, openai-compatible,"),
        // Refused as unknown, if it were the one read.
        ("ALETHEIA_PROVIDER", "bogus"),
        ("ALETHEIA_CLAUDE_BIN", &bin),
        ("ALETHEIA_OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
    ]);
    assert_eq!(names(&p), ["claude-cli", "openai"]);
}

#[test]
fn unknown_names_and_none_in_a_list_are_config_errors() {
    assert_eq!(
        config_error(&[("ALETHEIA_PROVIDER", "gpt")]),
        "ALETHEIA_PROVIDER: unknown provider `gpt`; use one of: none, openai (or openai-compatible), claude-cli"
    );
    let why = config_error(&[("ALETHEIA_PROVIDERS", "openai,none")]);
    assert!(
        why.starts_with("ALETHEIA_PROVIDERS: `none` cannot be part of a list"),
        "{why}"
    );
}

#[test]
fn a_bad_timeout_is_a_config_error() {
    for bad in ["0", "-5", "ten", "1.5"] {
        let why = config_error(&[
            ("ALETHEIA_PROVIDER", "openai"),
            ("ALETHEIA_OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
            ("ALETHEIA_PROVIDER_TIMEOUT_SECS", bad),
        ]);
        assert!(why.contains("ALETHEIA_PROVIDER_TIMEOUT_SECS"), "{why}");
    }
}
