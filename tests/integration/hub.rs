//! `aletheia hub` as its clients see it: the real binary on a loopback port, tokens made with
//! `aletheia mcp-link`, and MCP spoken over real HTTP (and TLS). Every scope against every tool,
//! project limits in every tool that takes a project, the rate limit, the audit, revocation,
//! and what the hub's files hold.

#![cfg(feature = "server")]

use crate::hub_engines::{Engine, On, both};
use crate::support;

use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Child;
use support::Env;

struct Hub {
    env: Env,
    store: Engine,
    child: Child,
    base: String,
    agent: ureq::Agent,
}

impl Hub {
    fn start(on: On) -> Hub {
        Hub::start_with(on, &[])
    }

    /// A hub with `vars` set in its environment.
    fn start_with(on: On, vars: &[(&str, &std::ffi::OsStr)]) -> Hub {
        let env = Env::new();
        std::fs::create_dir_all(env.data()).unwrap();
        let store = Engine::fresh(on, &env.data());
        let mut cmd = env.std_cmd();
        cmd.args(["hub", "--port", "0"]).args(store.args());
        cmd.envs(vars.iter().copied());
        let (child, port, first, lines) = support::start_server(cmd);
        std::thread::spawn(move || for _ in lines {});
        assert!(first.contains("MCP at /mcp"), "{first}");
        Hub {
            env,
            store,
            child,
            base: format!("http://127.0.0.1:{port}"),
            agent: agent(None),
        }
    }

    /// `aletheia --json <args> <this hub's store>` (`mcp-link`, `hub audit`), as a person at
    /// the hub would run it; its JSON answer.
    fn cli(&self, args: &[&str]) -> Value {
        let out = self
            .env
            .std_cmd()
            .arg("--json")
            .args(args)
            .args(self.store.args())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// A new token of `scope`, limited to `projects` when given.
    fn token(&self, scope: &str, projects: Option<&str>) -> String {
        let mut args = vec!["mcp-link", "create", "--scope", scope, "--label", scope];
        if let Some(p) = projects {
            args.extend(["--projects", p]);
        }
        self.cli(&args)["token"].as_str().unwrap().to_owned()
    }

    fn session(&self, token: &str) -> Session<'_> {
        Session::open(&self.agent, &self.base, token)
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A JSON body, as the MCP client libraries send it.
trait SendJson {
    fn send_json(self, body: &Value) -> Result<ureq::http::Response<ureq::Body>, ureq::Error>;
}

impl SendJson for ureq::RequestBuilder<ureq::typestate::WithBody> {
    fn send_json(self, body: &Value) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        self.header("Content-Type", "application/json")
            .send(body.to_string().as_bytes())
    }
}

fn agent(root: Option<&[u8]>) -> ureq::Agent {
    let mut config = ureq::Agent::config_builder().http_status_as_error(false);
    if let Some(pem) = root {
        let cert = ureq::tls::Certificate::from_pem(pem).unwrap().to_owned();
        config = config.tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::Specific(std::sync::Arc::new(vec![
                    cert,
                ])))
                .build(),
        );
    }
    config.build().into()
}

/// One MCP session with one token.
struct Session<'a> {
    agent: &'a ureq::Agent,
    url: String,
    token: String,
    id: Option<String>,
    next: u64,
}

impl<'a> Session<'a> {
    fn open(agent: &'a ureq::Agent, base: &str, token: &str) -> Session<'a> {
        let mut s = Session {
            agent,
            url: format!("{base}/mcp"),
            token: token.to_owned(),
            id: None,
            next: 1,
        };
        let (status, answer, session) = s.post(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hub-test", "version": "1"}}}));
        assert_eq!(status, 200, "{answer}");
        s.id = session;
        s.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    /// POST one message: the status, the JSON answer (`null` for none), the session id.
    fn post(&self, body: Value) -> (u16, Value, Option<String>) {
        let mut req = self
            .agent
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", &format!("Bearer {}", self.token));
        if let Some(id) = &self.id {
            req = req.header("Mcp-Session-Id", id);
        }
        let mut res = req.send_json(&body).unwrap();
        let status = res.status().as_u16();
        let session = res
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = res.body_mut().read_to_string().unwrap_or_default();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            session,
        )
    }

    /// tools/call: whether it is an error, and its text.
    fn call(&mut self, tool: &str, args: Value) -> (bool, String) {
        self.next += 1;
        let (status, answer, _) = self.post(
            json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}),
        );
        assert_eq!(status, 200, "{tool}: {answer}");
        let result = &answer["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (result["isError"].as_bool().unwrap_or(false), text)
    }

    fn tools(&mut self) -> Vec<Value> {
        self.next += 1;
        let (_, answer, _) =
            self.post(json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/list"}));
        answer["result"]["tools"].as_array().unwrap().clone()
    }
}

/// What the seed stored in `shop`.
struct Seeded {
    memory: i64,
    rule: String,
}

fn seed(h: &Hub) -> Seeded {
    // Through the hub's own tools, as a team member's agent would store them.
    let mut s = h.session(&h.token("admin", None));
    let memory = saved(&mut s, "The shop ledger cache expires hourly.", "shop");
    saved(&mut s, "Billing closes the month on the 3rd.", "billing");
    let (is_error, rule) = s.call(
        "add_rule",
        json!({ "then": "Run the shop ledger tests before you commit", "scopeTier": "project", "scopeName": "shop" }),
    );
    assert!(!is_error, "{rule}");
    // "Rule saved (<id>). It reaches sessions once you accept it: aletheia review."
    assert!(
        rule.ends_with("once you accept it: aletheia review."),
        "{rule}"
    );
    let rule = rule
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(id, _)| id.to_owned())
        .unwrap_or_else(|| panic!("{rule}"));
    // A client's rule waits for the hub's owner, who accepts it at the hub.
    let accepted = h.cli(&["review", "accept", "p1"]);
    assert_eq!(accepted["proposal"]["reference"], json!(rule), "{accepted}");
    assert_eq!(accepted["proposal"]["state"], "accepted", "{accepted}");
    Seeded { memory, rule }
}

/// Save a memory through `save_memory`: its id, from "Saved as #<id> in <project>.".
fn saved(s: &mut Session<'_>, text: &str, project: &str) -> i64 {
    let (is_error, answer) = s.call("save_memory", json!({ "text": text, "project": project }));
    assert!(!is_error, "{answer}");
    answer
        .split_once('#')
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("{answer}"))
}

/// A call of every tool that succeeds for a caller with every right, in shop; `tag` makes
/// what each run adds its own.
fn calls(s: &Seeded, tag: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("search", json!({ "query": "ledger", "project": "shop" })),
        ("timeline", json!({ "anchor": s.memory, "project": "shop" })),
        ("get_observations", json!({ "ids": [s.memory] })),
        ("session_start_context", json!({ "project": "shop" })),
        (
            "fact_history",
            json!({ "subject": "ledger", "project": "shop" }),
        ),
        ("list_rules", json!({})),
        (
            "work_state_read",
            json!({ "list": "todo", "project": "shop" }),
        ),
        (
            "save_memory",
            json!({ "text": format!("Invoices go out on the 1st ({tag})."), "project": "shop" }),
        ),
        (
            "add_rule",
            json!({ "then": format!("Ask before touching invoices ({tag})"), "scopeTier": "project", "scopeName": "shop" }),
        ),
        ("confirm_rule", json!({ "id": s.rule })),
        (
            "dismiss_memory",
            json!({ "id": s.memory, "reason": "out of date" }),
        ),
        ("restore_memory", json!({ "id": s.memory })),
        (
            "work_state_write",
            json!({ "list": "todo", "items": ["close the month"], "project": "shop" }),
        ),
    ]
}

const WRITE_TOOLS: [&str; 6] = [
    "save_memory",
    "add_rule",
    "confirm_rule",
    "dismiss_memory",
    "restore_memory",
    "work_state_write",
];

fn every_scope_calls_exactly_the_tools_it_is_documented_to(on: On) {
    let h = Hub::start(on);
    let seeded = seed(&h);
    let table = calls(&seeded, "listing");
    let mut tools: Vec<String> = h
        .session(&h.token("admin", None))
        .tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let mut covered: Vec<String> = table.iter().map(|(t, _)| t.to_string()).collect();
    tools.sort();
    covered.sort();
    assert_eq!(tools, covered, "the matrix covers every tool, once");
    for scope in ["mcp", "read", "sync", "admin"] {
        let token = h.token(scope, None);
        let mut s = h.session(&token);
        for (tool, args) in &calls(&seeded, scope) {
            let (is_error, text) = s.call(tool, args.clone());
            let writes = WRITE_TOOLS.contains(tool);
            if writes && (scope == "mcp" || scope == "read") {
                assert!(is_error, "{scope} {tool}: {text}");
                assert_eq!(text, format!("This token cannot call {tool}."), "{scope}");
            } else {
                assert!(!is_error, "{scope} {tool} should be allowed: {text}");
            }
        }
    }
}

fn a_token_limited_to_shop_is_refused_billing_in_every_tool_that_takes_a_project(on: On) {
    let h = Hub::start(on);
    let seeded = seed(&h);
    let token = h.token("sync", Some("shop"));
    let mut s = h.session(&token);
    let refusal = "Project \"billing\" is not allowed for this token.";
    let mut tried = Vec::new();
    for tool in s.tools() {
        let name = tool["name"].as_str().unwrap().to_owned();
        let (_, args) = calls(&seeded, "limited")
            .into_iter()
            .find(|(t, _)| *t == name)
            .unwrap();
        let mut args = args.as_object().unwrap().clone();
        if tool["inputSchema"]["properties"].get("project").is_some() {
            args.insert("project".into(), json!("billing"));
        } else if name == "add_rule" {
            args.insert("scopeName".into(), json!("billing"));
        } else {
            continue;
        }
        let (is_error, text) = s.call(&name, Value::Object(args));
        assert!(is_error, "{name}: {text}");
        assert_eq!(text, refusal, "{name}");
        tried.push(name);
    }
    for must in [
        "search",
        "timeline",
        "session_start_context",
        "save_memory",
        "work_state_write",
        "add_rule",
    ] {
        assert!(
            tried.iter().any(|t| t == must),
            "{must} takes a project: {tried:?}"
        );
    }
    // With no project named, search is this token's projects, and the context is its first.
    let (_, found) = s.call("search", json!({ "query": "billing closes month" }));
    assert!(!found.contains("Billing closes"), "{found}");
    let (_, context) = s.call("session_start_context", json!({}));
    assert!(!context.contains("Billing"), "{context}");
}

fn a_token_limited_to_two_projects_searches_both_when_it_names_none(on: On) {
    let h = Hub::start(on);
    seed(&h);
    saved(
        &mut h.session(&h.token("admin", None)),
        "The docs ledger page explains refunds.",
        "docs",
    );
    let token = h.token("sync", Some("shop,docs"));
    let mut s = h.session(&token);
    let (is_error, found) = s.call("search", json!({ "query": "ledger" }));
    assert!(!is_error, "{found}");
    assert!(found.contains("shop ledger cache"), "{found}");
    assert!(found.contains("docs ledger page"), "{found}");
    let (_, found) = s.call("search", json!({ "query": "month" }));
    assert!(!found.contains("Billing closes"), "{found}");
    assert!(
        found.contains("this token's projects (shop, docs)"),
        "{found}"
    );
    // Named, one project only, as for any caller.
    let (_, found) = s.call("search", json!({ "query": "ledger", "project": "docs" }));
    assert!(
        found.contains("docs ledger page") && !found.contains("shop ledger cache"),
        "{found}"
    );
}

fn requests_without_a_live_token_get_401_and_say_why(on: On) {
    let h = Hub::start(on);
    let post = |auth: Option<&str>| {
        let mut req = h
            .agent
            .post(&format!("{}/mcp", h.base))
            .header("Accept", "application/json, text/event-stream");
        if let Some(a) = auth {
            req = req.header("Authorization", a);
        }
        let mut res = req
            .send_json(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
            .unwrap();
        let status = res.status().as_u16();
        let www = res
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_owned());
        let body: Value =
            serde_json::from_str(&res.body_mut().read_to_string().unwrap()).unwrap_or(Value::Null);
        (
            status,
            www,
            body["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    };
    let token = h.token("read", None);
    let (status, www, message) = post(None);
    assert_eq!((status, www.as_deref()), (401, Some("Bearer")));
    assert!(message.contains("Authorization: Bearer"), "{message}");
    let mut wrong = token.clone();
    wrong.replace_range(wrong.len() - 4.., "0000");
    for bad in [
        format!("Bearer {wrong}"),
        "Bearer alh_9_00".to_owned(),
        token.clone(),
        format!("Basic {token}"),
    ] {
        let (status, _, message) = post(Some(&bad));
        assert_eq!(status, 401, "{bad}");
        assert!(
            !message.contains(&token[token.len() - 16..]),
            "the answer repeats the token"
        );
    }
    assert_eq!(post(Some(&format!("Bearer {token}"))).0, 200);
    let id = token.split('_').nth(1).unwrap();
    let revoked = h
        .env
        .std_cmd()
        .args(["mcp-link", "revoke"])
        .args(h.store.args())
        .arg(id)
        .output()
        .unwrap();
    assert!(revoked.status.success());
    let (status, _, message) = post(Some(&format!("Bearer {token}")));
    assert_eq!(status, 401);
    assert!(message.contains("revoked"), "{message}");
}

fn the_61st_request_in_a_minute_gets_429_with_retry_after(on: On) {
    let h = Hub::start(on);
    let token = h.token("read", None);
    let other = h.token("read", None);
    let mut s = h.session(&token);
    // initialize and notifications/initialized were two; 58 more make 60.
    for _ in 0..58 {
        s.call("list_rules", json!({}));
    }
    let mut res = h
        .agent
        .post(&format!("{}/mcp", h.base))
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", &format!("Bearer {token}"))
        .header("Mcp-Session-Id", s.id.as_deref().unwrap())
        .send_json(&json!({"jsonrpc": "2.0", "id": 999, "method": "tools/list"}))
        .unwrap();
    assert_eq!(res.status().as_u16(), 429);
    // Its body unread, the connection ends: the client must not reuse it.
    assert_eq!(res.headers()["connection"], "close");
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let body = res.body_mut().read_to_string().unwrap();
    assert!(body.contains("try again in"), "{body}");
    // Another token has its own minute.
    let mut o = h.session(&other);
    assert!(!o.call("list_rules", json!({})).0);
}

fn every_call_is_audited_without_its_arguments_and_no_file_holds_a_token(on: On) {
    let h = Hub::start(on);
    let token = h.token("sync", Some("shop"));
    let mut s = h.session(&token);
    let marker = "quartzmarker";
    s.call(
        "save_memory",
        json!({ "text": format!("a {marker} note"), "project": "shop" }),
    );
    s.call("search", json!({ "query": marker }));
    s.call(
        "save_memory",
        json!({ "text": marker, "project": "billing" }),
    );
    s.call("no_such_tool", json!({}));
    let rows = h.cli(&["hub", "audit"]);
    let rows = rows.as_array().unwrap();
    let seen: Vec<(String, Option<String>, String)> = rows
        .iter()
        .map(|r| {
            (
                r["tool"].as_str().unwrap().to_owned(),
                r["project"].as_str().map(str::to_owned),
                r["result"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "save_memory".to_owned(),
                Some("shop".to_owned()),
                "ok".to_owned()
            ),
            (
                "search".to_owned(),
                Some("shop".to_owned()),
                "ok".to_owned()
            ),
            (
                "save_memory".to_owned(),
                Some("billing".to_owned()),
                "refused".to_owned()
            ),
        ],
        "an unknown tool is not a call of a tool"
    );
    assert!(
        rows.iter()
            .all(|r| r["label"] == "sync" && r["token_id"].as_i64().is_some())
    );
    // The audit table holds no argument; the memory itself is where the text lives.
    let audit = h
        .store
        .texts("SELECT tool || coalesce(project, '') || label || result FROM hub_audit");
    assert_eq!(audit.len(), 3, "{audit:?}");
    assert!(!audit.iter().any(|a| a.contains(marker)), "{audit:?}");
    let only_by_token = h.cli(&["hub", "audit", "--token", "999"]);
    assert_eq!(only_by_token, json!([]));
    let secret = token.rsplit('_').next().unwrap();
    for dir in [h.env.data(), h.store.files()] {
        assert_eq!(
            support::files_holding(&dir, secret.as_bytes()),
            Vec::<PathBuf>::new()
        );
    }
}

#[test]
fn beyond_loopback_the_hub_needs_tls_or_a_proxy() {
    let env = Env::new();
    let out = env
        .std_cmd()
        .args(["hub", "--bind", "0.0.0.0", "--port", "0", "--hub-db"])
        .arg(env.data().join("team.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--tls-cert and --tls-key") && err.contains("--behind-proxy"),
        "{err}"
    );
}

fn the_hub_serves_tls_with_a_certificate_made_here(on: On) {
    let env = Env::new();
    std::fs::create_dir_all(env.data()).unwrap();
    let dir = env.data();
    let (ca, cert, key) = (
        dir.join("ca.pem"),
        dir.join("cert.pem"),
        dir.join("key.pem"),
    );
    // A certificate authority of the test's own, and the hub's certificate signed by it.
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    std::fs::write(
        dir.join("leaf.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    let steps: [Vec<std::ffi::OsString>; 3] = [
        ["req", "-x509"]
            .iter()
            .chain(&ec)
            .chain(&["-days", "2", "-subj", "/CN=aletheia test CA", "-keyout"])
            .map(Into::into)
            .chain([dir.join("ca.key").into(), "-out".into(), ca.clone().into()])
            .collect(),
        ["req"]
            .iter()
            .chain(&ec)
            .chain(&["-subj", "/CN=localhost", "-keyout"])
            .map(Into::into)
            .chain([
                key.clone().into(),
                "-out".into(),
                dir.join("leaf.csr").into(),
            ])
            .collect(),
        ["x509", "-req", "-days", "2", "-in"]
            .iter()
            .map(Into::into)
            .chain([
                dir.join("leaf.csr").into(),
                "-CA".into(),
                ca.clone().into(),
                "-CAkey".into(),
                dir.join("ca.key").into(),
                "-CAcreateserial".into(),
                "-extfile".into(),
                dir.join("leaf.ext").into(),
                "-out".into(),
                cert.clone().into(),
            ])
            .collect(),
    ];
    for args in steps {
        let made = std::process::Command::new("openssl")
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            made.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&made.stderr)
        );
    }
    let store = Engine::fresh(on, &env.data());
    let mut cmd = env.std_cmd();
    cmd.args(["hub", "--port", "0", "--tls-cert"])
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .args(store.args());
    let mut child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    std::thread::spawn(move || for _ in lines {});
    let port: u16 = first
        .split("https://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{first}"));
    let token = {
        let out = env
            .std_cmd()
            .args(["--json", "mcp-link", "create", "--scope", "read"])
            .args(store.args())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["token"].as_str().unwrap().to_owned()
    };
    let agent = agent(Some(&std::fs::read(&ca).unwrap()));
    let mut s = Session::open(&agent, &format!("https://localhost:{port}"), &token);
    assert!(!s.call("list_rules", json!({})).0);
    // The same port does not answer plain HTTP.
    let plain = ureq::get(&format!("http://127.0.0.1:{port}/mcp")).call();
    assert!(plain.is_err(), "{plain:?}");
    let _ = child.kill();
    let _ = child.wait();
}

fn only_an_admin_token_manages_tokens_and_reads_the_audit_over_http(on: On) {
    let h = Hub::start(on);
    let admin = h.token("admin", None);
    let sync = h.token("sync", None);
    let call = |token: &str, method: &str, path: &str, body: Option<Value>| -> (u16, Value) {
        let url = format!("{}{path}", h.base);
        let auth = format!("Bearer {token}");
        let res = match (method, body) {
            ("POST", Some(b)) => h
                .agent
                .post(&url)
                .header("Authorization", &auth)
                .send_json(&b),
            ("DELETE", _) => h.agent.delete(&url).header("Authorization", &auth).call(),
            _ => h.agent.get(&url).header("Authorization", &auth).call(),
        };
        let mut res = res.unwrap();
        let status = res.status().as_u16();
        let text = res.body_mut().read_to_string().unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    };
    for (method, path, body) in [
        ("GET", "/v1/tokens", None),
        ("POST", "/v1/tokens", Some(json!({ "scope": "admin" }))),
        ("DELETE", "/v1/tokens/1", None),
        ("GET", "/v1/audit", None),
    ] {
        let (status, v) = call(&sync, method, path, body);
        assert_eq!(status, 403, "{method} {path}: {v}");
    }
    let (status, made) = call(
        &admin,
        "POST",
        "/v1/tokens",
        Some(json!({ "scope": "read", "projects": ["shop"], "label": "ci" })),
    );
    assert_eq!(status, 201, "{made}");
    let new = made["token"].as_str().unwrap().to_owned();
    assert!(!h.session(&new).call("list_rules", json!({})).0);
    let (_, listed) = call(&admin, "GET", "/v1/tokens", None);
    assert_eq!(listed["tokens"].as_array().unwrap().len(), 3, "{listed}");
    assert!(!listed.to_string().contains(new.rsplit('_').next().unwrap()));
    let id = made["id"].as_i64().unwrap();
    assert_eq!(
        call(&admin, "DELETE", &format!("/v1/tokens/{id}"), None).0,
        200
    );
    assert_eq!(call(&admin, "DELETE", "/v1/tokens/999", None).0, 404);
    let (status, audit) = call(&admin, "GET", "/v1/audit", None);
    assert_eq!(status, 200);
    let rows: Vec<(&str, &str)> = audit["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["tool"].as_str().unwrap(), r["label"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            ("create_token", "admin"),
            ("list_rules", "ci"),
            ("revoke_token", "admin")
        ],
        "{audit}"
    );
    let (_, listed) = call(&admin, "GET", "/v1/tokens", None);
    let admin_id: i64 = admin.split('_').nth(1).unwrap().parse().unwrap();
    assert_eq!(listed["tokens"][2]["created_by"], admin_id, "{listed}");
    // An admin limited to a project could otherwise make a token for every project.
    let limited = h.token("admin", Some("shop"));
    for (method, path, body) in [
        ("GET", "/v1/tokens", None),
        ("POST", "/v1/tokens", Some(json!({ "scope": "admin" }))),
        ("GET", "/v1/audit", None),
    ] {
        let (status, v) = call(&limited, method, path, body);
        assert_eq!(status, 403, "{method} {path}: {v}");
    }
    let (status, v) = call(
        &admin,
        "POST",
        "/v1/tokens",
        Some(json!({ "scope": "read", "expires_in_days": 0 })),
    );
    assert_eq!(status, 400, "{v}");
}

fn an_address_that_keeps_sending_wrong_tokens_is_refused_for_a_while(on: On) {
    let h = Hub::start(on);
    let token = h.token("read", None);
    let post = |auth: &str| {
        h.agent
            .post(&format!("{}/mcp", h.base))
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", auth)
            .send_json(&json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list"}))
            .unwrap()
            .status()
            .as_u16()
    };
    for _ in 0..10 {
        assert_eq!(post("Bearer alh_1_00"), 401);
    }
    assert_eq!(post("Bearer alh_1_00"), 429);
    // Even the right token, from that address, until the block ends.
    assert_eq!(post(&format!("Bearer {token}")), 429);
}

fn a_session_is_its_tokens_alone(on: On) {
    let h = Hub::start(on);
    let (a, b) = (h.token("read", None), h.token("admin", None));
    let mut mine = h.session(&a);
    let theirs = Session {
        agent: &h.agent,
        url: format!("{}/mcp", h.base),
        token: b.clone(),
        id: mine.id.clone(),
        next: 100,
    };
    let (status, answer, _) =
        theirs.post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert_eq!(status, 404, "{answer}");
    let deleted = h
        .agent
        .delete(&format!("{}/mcp", h.base))
        .header("Authorization", &format!("Bearer {b}"))
        .header("Mcp-Session-Id", mine.id.as_deref().unwrap())
        .call()
        .unwrap();
    assert_eq!(
        deleted.status().as_u16(),
        404,
        "another token cannot end it"
    );
    assert!(
        !mine.call("list_rules", json!({})).0,
        "the session still serves its own token"
    );
}

both!(
    every_scope_calls_exactly_the_tools_it_is_documented_to,
    a_token_limited_to_shop_is_refused_billing_in_every_tool_that_takes_a_project,
    a_token_limited_to_two_projects_searches_both_when_it_names_none,
    requests_without_a_live_token_get_401_and_say_why,
    the_61st_request_in_a_minute_gets_429_with_retry_after,
    every_call_is_audited_without_its_arguments_and_no_file_holds_a_token,
    the_hub_serves_tls_with_a_certificate_made_here,
    only_an_admin_token_manages_tokens_and_reads_the_audit_over_http,
    an_address_that_keeps_sending_wrong_tokens_is_refused_for_a_while,
    a_session_is_its_tokens_alone,
);

impl Hub {
    /// A second hub process on this hub's store, as a load balancer would have behind it.
    fn beside(&self) -> Hub {
        let env = Env::new();
        std::fs::create_dir_all(env.data()).unwrap();
        let mut cmd = env.std_cmd();
        cmd.args(["hub", "--port", "0"]).args(self.store.args());
        let (child, port, _first, lines) = support::start_server(cmd);
        std::thread::spawn(move || for _ in lines {});
        Hub {
            env,
            store: self.store.clone(),
            child,
            base: format!("http://127.0.0.1:{port}"),
            agent: agent(None),
        }
    }
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn two_hubs_on_one_database_share_revocations_and_one_rate_limit() {
    let a = Hub::start(On::Postgres);
    let b = a.beside();
    let admin = a.token("admin", None);
    let read = a.token("read", None);
    // Opening a session on each is four requests; 56 calls spread over both make 60.
    let (mut on_a, mut on_b) = (a.session(&read), b.session(&read));
    for i in 0..56 {
        let s = if i % 2 == 0 { &mut on_a } else { &mut on_b };
        let (is_error, text) = s.call("list_rules", json!({}));
        assert!(!is_error, "call {}: {text}", i + 5);
    }
    for (hub, s) in [(&a, &on_a), (&b, &on_b)] {
        let res = hub
            .agent
            .post(&format!("{}/mcp", hub.base))
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", &format!("Bearer {read}"))
            .header("Mcp-Session-Id", s.id.as_deref().unwrap())
            .send_json(&json!({"jsonrpc": "2.0", "id": 999, "method": "tools/list"}))
            .unwrap();
        assert_eq!(res.status().as_u16(), 429, "the 61st, on either hub");
    }
    // Revoked through A's API, refused by B at once.
    let fresh = a.token("read", None);
    assert!(!b.session(&fresh).call("list_rules", json!({})).0);
    let id = fresh.split('_').nth(1).unwrap();
    let revoked = a
        .agent
        .delete(&format!("{}/v1/tokens/{id}", a.base))
        .header("Authorization", &format!("Bearer {admin}"))
        .call()
        .unwrap();
    assert_eq!(revoked.status().as_u16(), 200);
    let mut res = b
        .agent
        .post(&format!("{}/mcp", b.base))
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", &format!("Bearer {fresh}"))
        .send_json(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .unwrap();
    assert_eq!(res.status().as_u16(), 401);
    assert!(res.body_mut().read_to_string().unwrap().contains("revoked"));
    // One audit, whichever hub took the call.
    let audited = a
        .store
        .count("SELECT count(*) FROM hub_audit WHERE tool = 'list_rules'");
    assert_eq!(audited, 57);
}

#[test]
#[ignore = "needs PostgreSQL: scripts/test starts one"]
fn the_hub_reaches_postgresql_over_tls_when_the_url_asks_and_refuses_an_unknown_certificate() {
    let url = crate::hub_engines::fresh_database();
    let ca = std::env::var("ALETHEIA_TEST_POSTGRES_CA")
        .expect("scripts/test sets ALETHEIA_TEST_POSTGRES_CA");
    let env = Env::new();
    std::fs::create_dir_all(env.data()).unwrap();
    let tls = format!("{url}?sslmode=require&sslrootcert={ca}");
    let made = env
        .std_cmd()
        .args([
            "--json",
            "mcp-link",
            "create",
            "--scope",
            "read",
            "--database",
            &tls,
        ])
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    // The server's sessions say which were encrypted: ours was.
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let before: i64 = c
        .query_one("SELECT count(*) FROM pg_stat_ssl WHERE ssl", &[])
        .unwrap()
        .get(0);
    let mut cmd = env.std_cmd();
    cmd.args(["hub", "--port", "0", "--database", &tls]);
    let (mut child, port, _first, lines) = support::start_server(cmd);
    std::thread::spawn(move || for _ in lines {});
    let v: Value = serde_json::from_slice(&made.stdout).unwrap();
    let token = v["token"].as_str().unwrap();
    let agent = agent(None);
    assert!(
        !Session::open(&agent, &format!("http://127.0.0.1:{port}"), token)
            .call("list_rules", json!({}))
            .0
    );
    let during: i64 = c
        .query_one("SELECT count(*) FROM pg_stat_ssl WHERE ssl", &[])
        .unwrap()
        .get(0);
    assert!(during > before, "the hub's connections use TLS");
    let _ = child.kill();
    let _ = child.wait();
    // Without the CA, the server's certificate is unknown: refused, in one line, no password.
    let refused = env
        .std_cmd()
        .env_remove("PGSSLROOTCERT")
        .args([
            "mcp-link",
            "list",
            "--database",
            &format!("{url}?sslmode=require"),
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("certificate") || err.contains("tls") || err.contains("TLS"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// The hub scores by meaning once its user has fetched the model, on either engine: it gives
/// the memories stored through it vectors in its own store, and finds a paraphrase the words
/// miss, in a search and as a timeline's anchor.
#[cfg(feature = "semantic")]
fn a_hub_with_the_model_finds_by_meaning_what_the_words_miss(on: On) {
    let model = std::env::var_os("ALETHEIA_TEST_MODEL_DIR")
        .expect("ALETHEIA_TEST_MODEL_DIR names the model folder (scripts/test sets it)");
    let h = Hub::start_with(on, &[("ALETHEIA_MODEL_DIR", &model)]);
    let mut s = h.session(&h.token("admin", None));
    saved(&mut s, "We store everything in PostgreSQL 16.", "shop");
    saved(&mut s, "The cat sat on the mat all afternoon.", "shop");
    let started = std::time::Instant::now();
    while h.store.count("SELECT count(*) FROM memory_vectors") < 2 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the hub gave its memories no vectors"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (is_error, found) = s.call(
        "search",
        json!({ "query": "which relational db holds our data", "project": "shop" }),
    );
    assert!(!is_error, "{found}");
    let postgres = found
        .find("PostgreSQL 16")
        .unwrap_or_else(|| panic!("{found}"));
    assert!(
        found.find("cat sat").is_none_or(|cat| postgres < cat),
        "{found}"
    );
    // The timeline finds its anchor the same way.
    let (is_error, around) = s.call(
        "timeline",
        json!({ "query": "which relational db holds our data", "project": "shop" }),
    );
    assert!(!is_error, "{around}");
    let anchor = around
        .lines()
        .find(|l| l.contains('→'))
        .unwrap_or_else(|| panic!("{around}"));
    assert!(anchor.contains("PostgreSQL 16"), "{around}");
}

#[cfg(feature = "semantic")]
mod a_hub_with_the_model_finds_by_meaning_what_the_words_miss {
    use crate::hub_engines::On;

    #[test]
    #[ignore = "needs the model files: scripts/test fetches them and sets ALETHEIA_TEST_MODEL_DIR"]
    fn sqlite() {
        super::a_hub_with_the_model_finds_by_meaning_what_the_words_miss(On::Sqlite);
    }

    #[test]
    #[ignore = "needs the model files and PostgreSQL: scripts/test fetches the one and starts the other"]
    fn postgres() {
        super::a_hub_with_the_model_finds_by_meaning_what_the_words_miss(On::Postgres);
    }
}

/// A hub's file in a folder that does not exist: the hub says so in one line and that it is
/// the folder, before SQLite says only "unable to open database file".
#[test]
fn a_hub_file_in_a_missing_folder_is_named_with_what_to_do() {
    let env = Env::new();
    let file = env.dir.path().join("no-such-folder/team.db");
    let out = env
        .std_cmd()
        .args(["hub", "--port", "0", "--hub-db"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "aletheia: the folder of --hub-db {} does not exist: create it, or name a file in a folder that does\n",
            file.display()
        )
    );
}
