//! `aletheia server` as a client sees it: the real binary on a loopback port, spoken to over
//! real HTTP. Every REST route, the API key on and off, Host and Origin refusals, the body cap,
//! the error shape, and a shutdown on SIGTERM that ends cleanly.

#![cfg(feature = "server")]

use crate::support;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Child;
use support::Env;

struct Server {
    env: Env,
    child: Child,
    port: u16,
    key: Option<String>,
}

impl Server {
    fn start(extra: &[(&str, &str)]) -> Server {
        let env = Env::new();
        Server::start_in(env, extra)
    }

    fn start_in(env: Env, extra: &[(&str, &str)]) -> Server {
        let mut cmd = env.std_cmd();
        cmd.args(["server", "--port", "0"])
            .envs(extra.iter().copied());
        let (child, port, first, lines) = support::start_server(cmd);
        // Keep reading stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        assert!(
            first.contains("extraction: worker on (rule-based)"),
            "{first}"
        );
        let key = extra
            .iter()
            .find(|(k, _)| *k == "ALETHEIA_API_KEY")
            .map(|(_, v)| v.to_string());
        Server {
            env,
            child,
            port,
            key,
        }
    }

    /// One request; returns the status and the body as JSON (`null` if it is not JSON).
    fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, Value) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            req.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
        if !body.is_empty() {
            req.push_str("Content-Type: application/json\r\n");
        }
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).unwrap();
        // A refused large body may close the connection before it is all sent.
        let _ = s.write_all(body);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        let status: u16 = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            support::dechunk(rest)
        } else {
            rest.to_owned()
        };
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    fn req(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let auth = self.key.as_ref().map(|k| format!("Bearer {k}"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        self.raw(method, path, &headers, body.as_bytes())
    }

    fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, v) = self.req(method, path, body);
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {v}"
        );
        v
    }

    fn stop(mut self) -> std::process::ExitStatus {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_code(v: &Value) -> &str {
    v["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error body: {v}"))
}

#[test]
fn every_route_answers_through_its_operation() {
    let s = Server::start(&[]);
    let health = s.ok("GET", "/v1/health", None);
    assert_eq!(health["status"], "ok");
    assert_eq!(health["memories"], 0);

    let (status, saved) = s.req("POST", "/v1/memories", Some(json!({"text": "The shop deploys with pnpm; the cache lives in ~/.pnpm-store", "type": "decision"})));
    assert_eq!(status, 201, "{saved}");
    let id = saved["id"].as_i64().unwrap();
    assert_eq!(saved["project"], "shop");
    s.ok(
        "POST",
        "/v1/memories",
        Some(json!({"text": "Checkout totals are rounded half-even"})),
    );

    let found = s.ok("GET", "/v1/memories?query=pnpm+cache&limit=5", None);
    assert_eq!(found["hits"][0]["id"], id, "{found}");
    assert_eq!(found["hits"][0]["tool"], "api");
    let one = s.ok("GET", &format!("/v1/memories/{id}"), None);
    assert_eq!(one["type"], "decision");
    let (status, v) = s.req("GET", "/v1/memories/999999", None);
    assert_eq!((status, error_code(&v)), (404, "not_found"));
    let (status, v) = s.req("GET", "/v1/memories/abc", None);
    assert_eq!((status, error_code(&v)), (400, "invalid_argument"), "{v}");

    // An edit keeps the text it replaced: the versions list it, newest first.
    s.ok(
        "PUT",
        &format!("/v1/memories/{id}"),
        Some(json!({"text": "The shop deploys with pnpm 9; the cache lives in ~/.pnpm-store"})),
    );
    let versions = s.ok("GET", &format!("/v1/memories/{id}/versions"), None);
    let v = versions["versions"].as_array().unwrap();
    assert_eq!(
        v.iter()
            .map(|v| (
                v["version"].as_i64(),
                v["classification"].as_str(),
                v["source"].as_str()
            ))
            .collect::<Vec<_>>(),
        [
            (Some(2), Some("edit"), Some("api")),
            (Some(1), Some("original"), Some("api"))
        ],
        "{versions}"
    );
    assert!(
        v[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("The shop deploys with pnpm;")
    );
    assert!(v[1]["replaced_at"].is_i64() && v[0]["replaced_at"].is_null());

    let around = s.ok("GET", &format!("/v1/memories/{id}/timeline"), None);
    assert!(around.to_string().contains("rounded half-even"), "{around}");

    s.ok(
        "POST",
        &format!("/v1/memories/{id}/dismiss"),
        Some(json!({"reason": "moved to yarn"})),
    );
    let found = s.ok("GET", "/v1/memories?query=pnpm", None);
    assert_eq!(found["hits"].as_array().unwrap().len(), 0, "{found}");
    s.ok("POST", &format!("/v1/memories/{id}/restore"), None);
    assert_eq!(
        s.ok("GET", "/v1/memories?query=pnpm", None)["hits"][0]["id"],
        id
    );

    let context = s.ok("GET", "/v1/context?project=shop", None);
    assert!(
        context["block"].as_str().unwrap().contains("pnpm"),
        "{context}"
    );

    let (status, rule) = s.req(
        "POST",
        "/v1/rules",
        Some(json!({"then": "run pnpm install --frozen-lockfile in CI"})),
    );
    assert_eq!(status, 201, "{rule}");
    let rule_id = rule["id"].as_str().unwrap().to_owned();
    s.ok("POST", &format!("/v1/rules/{rule_id}/confirm"), None);
    let rules = s.ok("GET", "/v1/rules", None);
    assert!(rules.to_string().contains("frozen-lockfile"), "{rules}");

    s.ok(
        "PUT",
        "/v1/lists/todo",
        Some(json!({"items": ["ship the server", "write the docs"]})),
    );
    let todo = s.ok("GET", "/v1/lists/todo", None);
    assert_eq!(todo["items"], json!(["ship the server", "write the docs"]));

    let facts = s.ok("GET", "/v1/facts/shop", None);
    assert_eq!(facts["subject"], "shop");
    s.ok("GET", "/v1/facts/shop/history", None);
    s.ok("GET", "/v1/review", None);
    let (status, v) = s.req("POST", "/v1/review/12345/accept", None);
    assert_eq!((status, error_code(&v)), (404, "not_found"), "{v}");
    let jobs = s.ok("GET", "/v1/jobs", None);
    assert!(jobs["counts"].is_object(), "{jobs}");

    let doc = s.ok("GET", "/v1/openapi.json", None);
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["paths"]["/v1/memories/{id}/timeline"]["get"].is_object());
    let (status, v) = s.req("GET", "/v1/nothing-here", None);
    assert_eq!((status, error_code(&v)), (404, "not_found"));
}

#[test]
fn a_host_event_is_stored_once_as_the_hook_stores_it() {
    let s = Server::start(&[]);
    let payload = json!({
        "session_id": "s-1", "cwd": "/home/dev/shop", "hook_event_name": "UserPromptSubmit",
        "prompt": "make checkout round half-even; the token is ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
    });
    let body = json!({"tool": "claude-code", "event": "UserPromptSubmit", "payload": payload});
    let (status, first) = s.req("POST", "/v1/events", Some(body.clone()));
    assert_eq!(status, 201, "{first}");
    assert_eq!(
        (first["new"].clone(), first["project"].clone()),
        (json!(true), json!("shop"))
    );
    let again = s.ok("POST", "/v1/events", Some(body));
    assert_eq!(
        (again["new"].clone(), again["memory_id"].clone()),
        (json!(false), first["memory_id"].clone())
    );
    // The hook stores the same event as the same memory.
    s.env
        .hook("claude-code", "UserPromptSubmit", payload.to_string());
    assert_eq!(s.env.count(), 1);
    let one = s.ok("GET", &format!("/v1/memories/{}", first["memory_id"]), None);
    assert!(
        !one.to_string().contains("ghp_1234"),
        "the token is redacted: {one}"
    );

    let start = json!({"tool": "claude-code", "event": "SessionStart", "payload": {"session_id": "s-2", "cwd": "/home/dev/shop", "source": "startup"}});
    let started = s.ok("POST", "/v1/events", Some(start));
    assert!(
        started["context"].as_str().unwrap().contains("half-even"),
        "{started}"
    );

    let (status, v) = s.req(
        "POST",
        "/v1/events",
        Some(json!({"tool": "emacs", "event": "x", "payload": {}})),
    );
    assert_eq!((status, error_code(&v)), (400, "invalid_argument"), "{v}");
    let (status, v) = s.raw("POST", "/v1/events", &[], b"not json");
    assert_eq!((status, error_code(&v)), (400, "invalid_body"), "{v}");
}

#[test]
fn host_origin_and_size_are_checked_before_any_route() {
    let s = Server::start(&[("ALETHEIA_ALLOWED_ORIGINS", "https://tools.example")]);
    let (status, v) = s.raw(
        "GET",
        "/v1/health",
        &[("Origin", "http://evil.example")],
        b"",
    );
    assert_eq!((status, error_code(&v)), (403, "forbidden_origin"));
    let (status, v) = s.raw("GET", "/v1/health", &[("Host", "evil.example")], b"");
    assert_eq!((status, error_code(&v)), (403, "forbidden_host"));
    let own = format!("http://localhost:{}", s.port);
    assert_eq!(
        s.raw("GET", "/v1/health", &[("Origin", own.as_str())], b"")
            .0,
        200
    );
    assert_eq!(
        s.raw(
            "GET",
            "/v1/health",
            &[("Origin", "https://tools.example")],
            b""
        )
        .0,
        200
    );
    let (status, v) = s.raw(
        "POST",
        "/mcp",
        &[
            ("Origin", "http://evil.example"),
            ("Accept", "application/json, text/event-stream"),
        ],
        b"{}",
    );
    assert_eq!(status, 403, "{v}");

    let big = json!({"text": "x".repeat(5 * 1024 * 1024)}).to_string();
    let (status, v) = s.raw("POST", "/v1/memories", &[], big.as_bytes());
    assert_eq!((status, error_code(&v)), (413, "payload_too_large"), "{v}");
    let (status, v) = s.raw("POST", "/v1/events", &[], big.as_bytes());
    assert_eq!((status, error_code(&v)), (413, "payload_too_large"), "{v}");
    let (status, v) = s.raw("DELETE", "/v1/memories", &[], b"");
    assert_eq!((status, error_code(&v)), (405, "method_not_allowed"), "{v}");
    assert_eq!(s.env.count(), 0);
}

#[test]
fn with_an_api_key_every_request_needs_it() {
    let s = Server::start(&[("ALETHEIA_API_KEY", "k-0123456789")]);
    let (status, v) = s.raw("GET", "/v1/health", &[], b"");
    assert_eq!((status, error_code(&v)), (401, "unauthorized"));
    let (status, _) = s.raw(
        "GET",
        "/v1/health",
        &[("Authorization", "Bearer k-wrong")],
        b"",
    );
    assert_eq!(status, 401);
    let (status, _) = s.raw(
        "POST",
        "/mcp",
        &[("Accept", "application/json, text/event-stream")],
        b"{}",
    );
    assert_eq!(status, 401);
    assert_eq!(s.ok("GET", "/v1/health", None)["status"], "ok");
}

#[test]
fn a_non_loopback_address_needs_a_key_and_a_signal_stops_the_server_cleanly() {
    let env = Env::new();
    let out = env
        .cmd()
        .args(["server", "--bind", "0.0.0.0", "--port", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("set ALETHEIA_API_KEY first"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let s = Server::start(&[]);
    s.ok(
        "POST",
        "/v1/memories",
        Some(json!({"text": "kept across a restart"})),
    );
    let status = s.stop();
    assert!(status.success(), "{status:?}");
}

#[test]
fn the_worker_inside_the_server_compresses_a_finished_session() {
    let s = Server::start(&[]);
    let stop = json!({"tool": "claude-code", "event": "Stop", "payload": {
        "session_id": "s-worker", "cwd": "/home/dev/shop", "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": "The billing worker stores invoices in Postgres, one row per invoice.",
    }});
    let queued = s.ok("POST", "/v1/events", Some(stop));
    assert_eq!(queued["queued"], true, "{queued}");
    // The worker ticks every 2 s; give it a few ticks on a busy machine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let jobs = s.ok("GET", "/v1/jobs", None);
        if jobs["jobs"]
            .as_array()
            .is_some_and(|j| j.iter().any(|j| j["state"] == "done"))
        {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no job done: {jobs}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let facts = s.ok("GET", "/v1/facts/billing%20worker", None);
    assert!(
        facts.to_string().contains("invoices in Postgres"),
        "{facts}"
    );
}

/// Bytes sent as they are (write errors ignored: a refused request may be closed early), then
/// everything the server answers until it closes; `None` when it neither answers nor closes
/// within `patience`.
fn exchange(port: u16, bytes: &[u8], patience: std::time::Duration) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(patience)).unwrap();
    let _ = s.write_all(bytes);
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&out).into_owned()),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(String::from_utf8_lossy(&out).into_owned());
            }
            Err(_) => return None,
        }
    }
}

/// The status and JSON body of a whole answer read by [`exchange`].
fn answer(text: &str) -> (u16, Value) {
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

const MCP_ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");

fn initialize(s: &Server) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        s.port,
        body.to_string().len()
    );
    let text = exchange(s.port, head.as_bytes(), std::time::Duration::from_secs(60)).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .unwrap_or_else(|| panic!("no session in {text}"))
        .trim()
        .to_owned()
}

fn list_tools(s: &Server, session: &str) -> (u16, Value) {
    s.raw(
        "POST",
        "/mcp",
        &[MCP_ACCEPT, ("Mcp-Session-Id", session)],
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    )
}

/// Regression: every `initialize` kept a session for an hour, so a client initializing in a
/// loop took the server to a gigabyte. Past the cap the session idle longest ends; DELETE
/// ends one at once.
#[test]
fn mcp_sessions_past_the_cap_end_the_longest_idle_and_delete_ends_one() {
    let s = Server::start(&[("ALETHEIA_MCP_SESSIONS", "3")]);
    let sessions: Vec<String> = (0..5).map(|_| initialize(&s)).collect();
    for gone in &sessions[..2] {
        let (status, v) = list_tools(&s, gone);
        assert_eq!((status, error_code(&v)), (404, "session_not_found"), "{v}");
    }
    for live in &sessions[2..] {
        let (status, v) = list_tools(&s, live);
        assert_eq!(status, 200, "{v}");
        assert!(v["result"]["tools"].is_array(), "{v}");
    }
    let (status, _) = s.raw("DELETE", "/mcp", &[("Mcp-Session-Id", &sessions[2])], b"");
    assert_eq!(status, 204);
    assert_eq!(list_tools(&s, &sessions[2]).0, 404);
    // A place was freed: a new session ends none of the two left.
    let fresh = initialize(&s);
    for live in [&sessions[3], &sessions[4], &fresh] {
        assert_eq!(list_tools(&s, live).0, 200);
    }
}

#[test]
fn an_idle_mcp_session_ends_after_its_idle_time() {
    let s = Server::start(&[("ALETHEIA_MCP_SESSION_IDLE_SECS", "1")]);
    let session = initialize(&s);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        // Asking keeps a session alive, so ask no more often than its idle time.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let (status, v) = list_tools(&s, &session);
        if status == 404 {
            assert_eq!(error_code(&v), "session_not_found");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still alive: {v}");
    }
}

/// Regression: a connection that sent nothing, half a header or half a body stayed open for
/// minutes, and some 20,000 of them used up the server's open files.
#[test]
fn connections_that_send_nothing_half_a_header_or_half_a_body_are_closed() {
    let s = Server::start(&[
        ("ALETHEIA_HEADER_TIMEOUT_MS", "300"),
        ("ALETHEIA_BODY_TIMEOUT_MS", "300"),
    ]);
    let patience = std::time::Duration::from_secs(30);
    assert_eq!(
        exchange(s.port, b"", patience).as_deref(),
        Some(""),
        "nothing"
    );
    let half = format!("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", s.port);
    assert_eq!(
        exchange(s.port, half.as_bytes(), patience).as_deref(),
        Some("")
    );
    let half_body = format!(
        "POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"text\":",
        s.port
    );
    let text = exchange(s.port, half_body.as_bytes(), patience).expect("answered and closed");
    let (status, v) = answer(&text);
    assert_eq!((status, error_code(&v)), (408, "request_timeout"), "{text}");
    // A kept-alive connection that asks nothing more is closed too.
    let one = format!(
        "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        s.port
    );
    let text = exchange(s.port, one.as_bytes(), patience).expect("closed after its answer");
    assert_eq!(answer(&text).0, 200, "{text}");
    assert_eq!(s.env.count(), 0);
}

/// Regression: idle connections held every place, so health checks timed out. At the cap a
/// new connection closes the one that has waited longest, and the server's files stay bounded.
#[test]
fn health_answers_while_idle_connections_exceed_the_cap() {
    let s = Server::start(&[
        ("ALETHEIA_MAX_CONNECTIONS", "16"),
        ("ALETHEIA_HEADER_TIMEOUT_MS", "600000"),
    ]);
    let idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(("127.0.0.1", s.port)).unwrap())
        .collect();
    let (status, v) = s.raw("GET", "/v1/health", &[], b"");
    assert_eq!((status, v["status"].as_str()), (200, Some("ok")), "{v}");
    let files = || {
        std::fs::read_dir(format!("/proc/{}/fd", s.child.id()))
            .unwrap()
            .count()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    // The cap, plus the store, the logs and the runtime's own.
    while files() > 16 + 40 {
        assert!(
            std::time::Instant::now() < deadline,
            "{} files open with 200 idle connections",
            files()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(idle);
}

/// Regression: malformed JSON to /mcp answered 415, a too-long URL an empty body, and rmcp's
/// refusals plain text. Every error is JSON with its status: JSON-RPC errors for a message
/// that is not one, the server's shape for the rest.
#[test]
fn every_error_is_json_with_its_status() {
    let s = Server::start(&[]);
    let (status, v) = s.raw("POST", "/mcp", &[MCP_ACCEPT], b"{not json");
    assert_eq!(
        (status, v["error"]["code"].as_i64()),
        (400, Some(-32700)),
        "{v}"
    );
    assert_eq!(v["jsonrpc"], "2.0");
    let (status, v) = s.raw("POST", "/mcp", &[MCP_ACCEPT], br#"[{"id":1}]"#);
    assert_eq!(
        (status, v["error"]["code"].as_i64()),
        (400, Some(-32600)),
        "{v}"
    );
    let (status, v) = s.raw(
        "POST",
        "/mcp",
        &[MCP_ACCEPT, ("Mcp-Session-Id", "no-such-session")],
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!((status, error_code(&v)), (404, "session_not_found"), "{v}");
    let (status, v) = s.raw(
        "POST",
        "/mcp",
        &[MCP_ACCEPT],
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!((status, error_code(&v)), (400, "session_required"), "{v}");
    let (status, v) = s.raw("POST", "/mcp", &[], b"{}");
    assert_eq!((status, error_code(&v)), (406, "not_acceptable"), "{v}");
    let (status, v) = s.raw(
        "POST",
        "/mcp",
        &[MCP_ACCEPT, ("Content-Type", "text/plain")],
        b"",
    );
    assert_eq!(
        (status, error_code(&v)),
        (415, "unsupported_media_type"),
        "{v}"
    );
    let (status, v) = s.raw("GET", "/mcp", &[MCP_ACCEPT], b"");
    assert_eq!((status, error_code(&v)), (405, "method_not_allowed"), "{v}");
    let (status, v) = s.raw("GET", "/no/such/page", &[], b"");
    assert_eq!((status, error_code(&v)), (404, "not_found"), "{v}");
    let patience = std::time::Duration::from_secs(30);
    for (len, status, code) in [
        (70_000, 414, "uri_too_long"),
        (200_000, 431, "headers_too_large"),
    ] {
        let req = format!(
            "GET /v1/memories?query={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            "a".repeat(len),
            s.port
        );
        let text = exchange(s.port, req.as_bytes(), patience).unwrap();
        let (got, v) = answer(&text);
        assert_eq!((got, error_code(&v)), (status, code), "{text}");
    }
    let text = exchange(s.port, b"NOT HTTP AT ALL\r\n\r\n", patience).unwrap();
    let (got, v) = answer(&text);
    assert_eq!((got, error_code(&v)), (400, "bad_request"), "{text}");
}

/// Making every error JSON also turned the dashboard's error pages into JSON holding their HTML;
/// a page for a person stays a page.
#[test]
fn a_dashboard_error_page_stays_a_page() {
    let s = Server::start(&[]);
    let req = format!(
        "GET /memories/999999 HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        s.port
    );
    let text = exchange(s.port, req.as_bytes(), std::time::Duration::from_secs(30)).unwrap();
    let head = text.split("\r\n\r\n").next().unwrap().to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 404"), "{text}");
    assert!(head.contains("content-type: text/html"), "{text}");
    assert!(!text.contains(r#"{"error""#), "{text}");
}
