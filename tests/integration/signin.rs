//! Signing in to `aletheia server` with its API key, as an attacker would try it: the real
//! binary on a loopback port, spoken to over real HTTP. The dashboard takes the key as a
//! browser sends it (HTTP Basic, kept by the browser for one origin) and never sets a cookie,
//! which a browser would hand to every other server on 127.0.0.1; its form token is served
//! only after the key; wrong keys are throttled and logged; a key that cannot guard the
//! server is refused before it starts.

#![cfg(feature = "server")]

use crate::support;

use base64::Engine as _;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Child;
use std::time::{Duration, Instant};
use support::Env;

const KEY: &str = "k-signin-0123456789abcdef";

struct Server {
    env: Env,
    child: Child,
    port: u16,
}

/// One answer: status, headers (names lower-cased) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The form token of a dashboard page.
    fn csrf(&self) -> String {
        let at = self
            .body
            .find("name=\"csrf\" value=\"")
            .unwrap_or_else(|| panic!("no form token in {}", self.body));
        self.body[at + 19..at + 19 + 64].to_owned()
    }
}

impl Server {
    fn start(key: &str) -> Server {
        Server::start_in(Env::new(), key)
    }

    fn start_in(env: Env, key: &str) -> Server {
        let mut cmd = env.std_cmd();
        cmd.env("ALETHEIA_API_KEY", key)
            .args(["server", "--port", "0", "--no-worker"]);
        let (child, port, _, lines) = support::start_server(cmd);
        std::thread::spawn(move || for _ in lines {});
        Server { env, child, port }
    }

    fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nConnection: close\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out).into_owned();
        let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut head_lines = head.lines();
        let status = head_lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let headers: Vec<(String, String)> = head_lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = if chunked {
            support::dechunk(rest)
        } else {
            rest.to_owned()
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    /// A page as a browser that has the key asks for it.
    fn page(&self, path: &str, password: &str) -> Answer {
        let auth = basic("me", password);
        self.send(
            "GET",
            path,
            &[("Authorization", &auth), ("Accept", "text/html")],
            "",
        )
    }

    /// A dashboard form sent as the browser sends it from this server's page.
    fn post_form(&self, path: &str, password: &str, form: &str) -> Answer {
        let auth = basic("me", password);
        let origin = format!("http://127.0.0.1:{}", self.port);
        self.send(
            "POST",
            path,
            &[
                ("Authorization", &auth),
                ("Origin", &origin),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            form,
        )
    }

    fn api(&self, method: &str, path: &str, body: &str) -> Answer {
        let auth = format!("Bearer {KEY}");
        self.send(
            method,
            path,
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
            ],
            body,
        )
    }

    fn stop(mut self) -> Env {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
        let env = std::mem::replace(&mut self.env, Env::new());
        drop(self);
        env
    }

    /// Every line of the server's JSON log so far.
    fn log(&self) -> String {
        let dir = self.env.data().join("logs");
        let mut all = String::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            all.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
        all
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn basic(user: &str, password: &str) -> String {
    let pair = format!("{user}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

#[test]
fn without_the_key_no_page_shows_a_memory_or_the_form_token() {
    let s = Server::start(KEY);
    let saved = s.api(
        "POST",
        "/v1/memories",
        r#"{"text": "the staging deploy runs on Mondays"}"#,
    );
    assert_eq!(saved.status, 201, "{}", saved.body);
    let id = saved.json()["id"].as_i64().unwrap_or(1);
    let detail = format!("/memories/{id}");
    for path in ["/", "/login", "/new", "/rules", "/jobs", detail.as_str()] {
        let a = s.send("GET", path, &[("Accept", "text/html")], "");
        assert_eq!(a.status, 401, "{path}: {}", a.body);
        assert_eq!(
            a.header("www-authenticate"),
            Some("Basic realm=\"aletheia\", charset=\"UTF-8\""),
            "{path}"
        );
        assert!(!a.body.contains("csrf"), "{path} shows the form token");
        assert!(!a.body.contains("Mondays"), "{path} shows a memory");
        // A wrong key gets the same page and nothing more.
        let a = s.page(path, "k-wrong");
        assert_eq!(a.status, 401, "{path}");
        assert!(!a.body.contains("csrf") && !a.body.contains("Mondays"));
    }
    let rules = s.page("/rules", KEY);
    assert_eq!(rules.status, 200, "{}", rules.body);
    assert_eq!(rules.csrf().len(), 64);
    assert!(s.page(&detail, KEY).body.contains("Mondays"));
}

#[test]
fn the_dashboard_sets_no_cookie_and_a_sign_in_cookie_opens_nothing() {
    let s = Server::start(KEY);
    let mut answers = vec![
        s.send("GET", "/", &[("Accept", "text/html")], ""),
        s.page("/", KEY),
        s.page("/rules", KEY),
    ];
    let token = answers[2].csrf();
    answers.push(s.post_form(
        "/rules",
        KEY,
        &format!("csrf={token}&then=Use+tabs&scopeTier=everywhere"),
    ));
    for a in &answers {
        assert_eq!(a.header("set-cookie"), None, "{}", a.status);
    }
    // What a browser would have sent with the old sign-in cookie, replayed from another port.
    let cookie = format!("aletheia_session={}", "ab".repeat(32));
    let a = s.send(
        "GET",
        "/",
        &[("Cookie", &cookie), ("Accept", "text/html")],
        "",
    );
    assert_eq!(a.status, 401);
}

#[test]
fn the_browsers_credential_does_not_open_the_api() {
    let s = Server::start(KEY);
    let auth = basic("me", KEY);
    for (method, path) in [("GET", "/v1/memories"), ("POST", "/mcp")] {
        let a = s.send(
            method,
            path,
            &[
                ("Authorization", &auth),
                ("Accept", "application/json, text/event-stream"),
            ],
            "",
        );
        assert_eq!(a.status, 401, "{path}: {}", a.body);
        assert_eq!(a.json()["error"]["code"], "unauthorized", "{path}");
    }
    assert_eq!(s.api("GET", "/v1/health", "").status, 200);
}

#[test]
fn a_form_token_from_another_server_changes_nothing() {
    let a = Server::start(KEY);
    let b = Server::start(KEY);
    let theirs = a.page("/rules", KEY).csrf();
    let ours = b.page("/rules", KEY).csrf();
    assert_ne!(theirs, ours);
    let form = |t: &str| format!("csrf={t}&then=Always+push+to+main&scopeTier=everywhere");
    let refused = b.post_form("/rules", KEY, &form(&theirs));
    assert_eq!(refused.status, 403, "{}", refused.body);
    let refused = b.post_form(
        "/rules",
        KEY,
        "then=Always+push+to+main&scopeTier=everywhere",
    );
    assert_eq!(refused.status, 403);
    assert!(!b.api("GET", "/v1/rules", "").body.contains("push to main"));
    let added = b.post_form("/rules", KEY, &form(&ours));
    assert_eq!(added.status, 303, "{}", added.body);
    assert!(b.api("GET", "/v1/rules", "").body.contains("push to main"));
}

#[test]
fn after_a_restart_with_a_new_key_the_old_one_opens_nothing() {
    let s = Server::start(KEY);
    assert_eq!(s.page("/", KEY).status, 200);
    let old_token = s.page("/rules", KEY).csrf();
    let env = s.stop();
    let fresh = "k-after-restart-0123456789";
    let s = Server::start_in(env, fresh);
    assert_eq!(
        s.page("/", KEY).status,
        401,
        "the old key still opens pages"
    );
    assert_eq!(s.page("/", fresh).status, 200);
    let form = format!("csrf={old_token}&then=Stale&scopeTier=everywhere");
    assert_eq!(s.post_form("/rules", fresh, &form).status, 403);
}

#[test]
fn wrong_keys_are_refused_with_429_after_ten_and_logged_without_the_key() {
    let s = Server::start(KEY);
    // Browser sign-ins and bearer tokens count alike.
    for n in 0..10 {
        let a = if n % 2 == 0 {
            let auth = format!("Bearer guess-number-{n}");
            s.send("GET", "/v1/health", &[("Authorization", &auth)], "")
        } else {
            s.page("/", &format!("guess-number-{n}"))
        };
        assert_eq!(a.status, 401, "attempt {n}: {}", a.body);
    }
    let auth = format!("Bearer {KEY}");
    for path in ["/v1/health", "/"] {
        let a = s.send("GET", path, &[("Authorization", &auth)], "");
        assert_eq!(a.status, 429, "{path}: even the right key waits");
        assert_eq!(a.json()["error"]["code"], "too_many_attempts", "{}", a.body);
        let wait: u64 = a.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=60).contains(&wait), "{wait}");
    }
    // The log is written by a background thread: poll it.
    let deadline = Instant::now() + Duration::from_secs(20);
    let log = loop {
        let log = s.log();
        if log.matches("refused a wrong API key").count() >= 10
            && log.contains("too many wrong API keys")
            || Instant::now() > deadline
        {
            break log;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let failures: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("refused a wrong API key"))
        .collect();
    assert_eq!(failures.len(), 10, "{log}");
    for line in &failures {
        assert!(line.contains("\"peer\":\"127.0.0.1\""), "{line}");
        assert!(line.contains("WARN"), "{line}");
    }
    assert!(log.contains("too many wrong API keys"), "{log}");
    assert!(
        !log.contains("guess-number"),
        "the log holds a key tried: {log}"
    );
    assert!(!log.contains(KEY), "the log holds the key");
}

#[test]
fn a_short_key_is_refused_for_a_network_bind_with_one_line() {
    let env = Env::new();
    let out = env
        .cmd()
        .env("ALETHEIA_API_KEY", "k-0123456789")
        .args(["server", "--bind", "0.0.0.0", "--port", "0"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("12 characters"), "{err}");
    assert!(err.contains("openssl rand -hex 24"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_key_with_spaces_around_it_is_refused_with_one_line() {
    let env = Env::new();
    for padded in [format!(" {KEY}"), format!("{KEY} "), format!("{KEY}\n")] {
        let out = env
            .cmd()
            .env("ALETHEIA_API_KEY", &padded)
            .args(["server", "--port", "0"])
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{padded:?} started a server");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("space or line break"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
