//! Project names at the two front ends a client speaks to: `aletheia mcp` over real stdio, and
//! `aletheia server`'s REST routes over real HTTP on loopback. A name that is too long or holds
//! a control character is refused with one line; a name shaped like a secret is stored (and
//! found) as the marker, and no byte of the store's files holds it.

use crate::support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
// What the REST half needs, in a build with the server.
#[cfg(feature = "server")]
use std::{io::Read, net::TcpStream, process::Child};
use support::Env;

const TOKEN: &str = "ghp_Zq7vL4pT8wZ3nB6cF1hJ5dS0gY2aE7uR9xK2m";
const MARKER: &str = "[redacted:github-token]";
const TOO_LONG: &str = "project name is 3,500,000 characters: use at most 200";
const CONTROL: &str = "project name has a control character (U+000A): use printable characters";

/// The files below `dir` that hold the token's random body.
fn holding_token(dir: &Path) -> Vec<PathBuf> {
    support::files_holding(dir, TOKEN.strip_prefix("ghp_").unwrap().as_bytes())
}

fn stored_projects(env: &Env) -> Vec<String> {
    let c = env.conn();
    let mut s = c
        .prepare("SELECT project FROM memories UNION SELECT project FROM work_lists")
        .unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Send one `tools/call` per `(tool, arguments)` to a fresh `aletheia mcp` working in `cwd`;
/// returns each call's result.
fn mcp_calls(env: &Env, cwd: &str, calls: &[(&str, Value)]) -> Vec<Value> {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("aletheia"))
        .arg("mcp")
        .env_clear()
        .env("ALETHEIA_DATA_DIR", env.data())
        .env("ALETHEIA_CWD", cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2024-11-05","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
    )
    .unwrap();
    for (i, (tool, args)) in calls.iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        writeln!(stdin, "{call}").unwrap();
    }
    drop(stdin);
    let replies: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    child.wait().unwrap();
    assert_eq!(replies.len(), calls.len() + 1, "{replies:?}");
    replies[1..].iter().map(|r| r["result"].clone()).collect()
}

fn tool_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

#[test]
fn mcp_refuses_a_project_name_too_long_or_with_a_control_character() {
    let env = Env::new();
    let r = mcp_calls(
        &env,
        "/home/dev/shop",
        &[
            (
                "save_memory",
                json!({"text": "a note", "project": "x".repeat(3_500_000)}),
            ),
            (
                "work_state_write",
                json!({"list": "todo", "items": [], "project": "shop\nx"}),
            ),
            ("search", json!({"query": "note", "project": "shop\nx"})),
        ],
    );
    assert_eq!(r[0]["isError"], true, "{}", r[0]);
    assert_eq!(tool_text(&r[0]), TOO_LONG);
    for out in &r[1..] {
        assert_eq!(out["isError"], true, "{out}");
        assert_eq!(tool_text(out), CONTROL);
    }
    assert_eq!(env.count(), 0);
}

#[test]
fn mcp_stores_a_token_shaped_project_redacted_and_finds_it_by_name() {
    let env = Env::new();
    let folder = format!("/nonexistent-aletheia/{TOKEN}");
    let r = mcp_calls(
        &env,
        &folder,
        &[
            // The working folder's project, then the same named outright.
            ("save_memory", json!({"text": "pnpm cache lives at home"})),
            (
                "work_state_write",
                json!({"list": "todo", "items": ["ship"], "project": TOKEN}),
            ),
            ("search", json!({"query": "pnpm", "project": TOKEN})),
        ],
    );
    assert_eq!(tool_text(&r[0]), format!("Saved as #1 in {MARKER}."));
    assert!(tool_text(&r[2]).contains("pnpm cache"), "{}", r[2]);
    assert_eq!(stored_projects(&env), vec![MARKER.to_owned()]);
    assert_eq!(holding_token(&env.data()), Vec::<PathBuf>::new());
}

/// `aletheia server` on a loopback port, for as long as the value lives.
#[cfg(feature = "server")]
struct Server {
    env: Env,
    child: Child,
    port: u16,
}

#[cfg(feature = "server")]
impl Server {
    fn start() -> Server {
        let env = Env::new();
        let mut cmd = env.std_cmd();
        cmd.args(["server", "--port", "0"]);
        let (child, port, _, lines) = support::start_server(cmd);
        std::thread::spawn(move || for _ in lines {});
        Server { env, child, port }
    }

    /// One request; the status and the body as JSON.
    fn req(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.port,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let rest = text.split_once("\r\n\r\n").map_or("", |(_, r)| r);
        // A chunked body: the JSON sits between the first chunk size and the last.
        let json = rest
            .find('{')
            .and_then(|a| rest.rfind('}').map(|b| &rest[a..=b]))
            .unwrap_or("");
        (status, serde_json::from_str(json).unwrap_or(Value::Null))
    }
}

#[cfg(feature = "server")]
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(feature = "server")]
#[test]
fn rest_refuses_a_project_name_too_long_or_with_a_control_character() {
    let s = Server::start();
    for (path, body, want) in [
        (
            "/v1/memories",
            json!({"text": "a note", "project": "x".repeat(3_500_000)}),
            TOO_LONG,
        ),
        (
            "/v1/memories",
            json!({"text": "a note", "project": "shop\nx"}),
            CONTROL,
        ),
        (
            "/v1/rules",
            json!({"then": "x", "scopeTier": "project", "scopeName": "shop\nx"}),
            "scopeName: project name has a control character (U+000A): use printable characters",
        ),
    ] {
        let (status, v) = s.req("POST", path, Some(body));
        assert_eq!(status, 400, "{path}: {v}");
        assert_eq!(v["error"]["code"], "invalid_argument", "{v}");
        assert_eq!(v["error"]["message"], want, "{v}");
    }
    let (status, v) = s.req("GET", "/v1/memories?query=x&project=a%07b", None);
    assert_eq!(status, 400, "{v}");
    assert_eq!(s.env.count(), 0);
}

#[cfg(feature = "server")]
#[test]
fn rest_stores_a_token_shaped_project_redacted_and_finds_it_by_name() {
    let s = Server::start();
    let (status, v) = s.req(
        "POST",
        "/v1/memories",
        Some(json!({"text": "pnpm cache lives at home", "project": TOKEN})),
    );
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["project"], MARKER, "{v}");
    let event = json!({"tool": "claude-code", "event": "UserPromptSubmit", "payload": {
        "session_id": "s1", "cwd": format!("/nonexistent-aletheia/{TOKEN}"), "prompt": "fix the cart"}});
    let (status, v) = s.req("POST", "/v1/events", Some(event));
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["project"], MARKER, "{v}");
    let (status, found) = s.req(
        "GET",
        &format!("/v1/memories?query=pnpm&project={TOKEN}"),
        None,
    );
    assert_eq!(status, 200, "{found}");
    assert!(found.to_string().contains("pnpm cache"), "{found}");
    assert_eq!(stored_projects(&s.env), vec![MARKER.to_owned()]);
    assert_eq!(holding_token(&s.env.data()), Vec::<PathBuf>::new());
}
