//! The real hosts read what `aletheia install <host> --write` wrote for them. Each test installs
//! into a temporary HOME, then asks the host's own CLI, offline and without a login, what it
//! made of the files: whether our MCP server connects, which hooks it found, and (where the CLI
//! can run a session without a model) whether our SessionStart hook ran and its context arrived.
//!
//! Needs the hosts from npm and Node 22, which `scripts/test` installs and names in
//! `ALETHEIA_CLAUDE`, `ALETHEIA_CODEX`, `ALETHEIA_GEMINI`, `ALETHEIA_OPENCODE` (the executables)
//! and `ALETHEIA_NODE_DIR` (a folder with Node 22's `node`). Most of these CLIs exit 0 even when
//! a server fails, so the tests read what they print.

use crate::support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};
use support::Env;

/// How long one host command may take; past it, the host and everything it started is killed.
/// A guard against a host that hangs, not a measure of speed: OpenCode's first command in a
/// fresh HOME with a plugin installed fetches the plugin's dependency from npm first, 19 s on
/// a 2-core machine and 48 s when that machine was busy building, past the 30 s this was.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The memory every test saves first, so a context block that reached the host can be recognised.
const PINNED: &str = "Use pnpm, not npm, in the shop repo";

/// A temporary HOME and project with aletheia installed for one host, and the host's executable.
struct Sandbox {
    env: Env,
    project: PathBuf,
    bin: PathBuf,
    /// `PATH` with Node 22 first: the hosts' launchers run `node`.
    path: String,
}

impl Sandbox {
    /// Check that the host named by `var` runs, save the pinned memory, and install for `host`.
    fn install(host: &str, var: &str) -> Sandbox {
        let bin = PathBuf::from(std::env::var(var).unwrap_or_else(|_| {
            panic!("{var} must name {host}'s executable: run scripts/test, which installs it")
        }));
        let node = std::env::var("ALETHEIA_NODE_DIR")
            .expect("ALETHEIA_NODE_DIR must name Node 22's bin folder: run scripts/test");
        let path = format!("{node}:{}", std::env::var("PATH").unwrap_or_default());
        let env = Env::new();
        let project = env.dir.path().join("shop");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let sandbox = Sandbox {
            env,
            project,
            bin,
            path,
        };

        // A broken install must fail here, loudly, not pass because the host printed nothing.
        let out = sandbox.host(&["--version"]);
        assert!(
            out.status.success(),
            "{var}={} does not run: {}",
            sandbox.bin.display(),
            text(&out)
        );

        sandbox.aletheia(&[
            "save",
            PINNED,
            "--project",
            "shop",
            "--pinned",
            "--type",
            "decision",
        ]);
        let out = sandbox.aletheia(&["install", host, "--write"]);
        assert!(out.contains("installed"), "{out}");
        sandbox
    }

    fn home(&self) -> &Path {
        self.env.dir.path()
    }

    /// Every variable a host might use to find its configuration or state points into the
    /// temporary HOME, and hooks inherit `ALETHEIA_DATA_DIR` from the host.
    fn setup(&self, cmd: &mut Command) {
        let home = self.home();
        cmd.current_dir(&self.project)
            .env_clear()
            .env("HOME", home)
            .env("PATH", &self.path)
            .env("TMPDIR", self.env.tmp())
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("ALETHEIA_DATA_DIR", self.env.data());
    }

    /// Run the real aletheia in the project; require success and return stdout.
    fn aletheia(&self, args: &[&str]) -> String {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_aletheia"));
        self.setup(&mut cmd);
        cmd.env("ALETHEIA_CWD", &self.project).args(args);
        let out = run(cmd);
        assert!(out.status.success(), "aletheia {args:?}: {}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    fn host_cmd(&self, args: &[&str], vars: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(&self.bin);
        self.setup(&mut cmd);
        cmd.args(args).envs(vars.iter().copied());
        cmd
    }

    /// Run the host with `args`, stdin closed.
    fn host(&self, args: &[&str]) -> Output {
        run(self.host_cmd(args, &[]))
    }

    /// The prompts the hooks stored, as (tool, text).
    fn prompts(&self) -> Vec<(String, String)> {
        let conn = self.env.conn();
        let mut stmt = conn
            .prepare("SELECT tool, text FROM memories WHERE kind = 'prompt' ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }
}

/// The aletheia executable as the installed commands name it.
fn exe() -> String {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_aletheia"))
        .unwrap()
        .display()
        .to_string()
}

/// The hook binary as the installed hook commands name it.
fn hook_exe() -> String {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_aletheia-hook"))
        .unwrap()
        .display()
        .to_string()
}

/// Start `cmd` in its own process group, so that whatever it starts (MCP servers, hooks) can be
/// killed with it.
fn spawn(mut cmd: Command) -> Child {
    cmd.process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"))
}

fn kill_group(child: &Child) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: signalling a process group we created; a group already gone is ESRCH, ignored.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        buf
    })
}

/// Run `cmd` with its stdin closed, for at most `TIMEOUT`. Whatever it left running is
/// killed when it exits; a run past the deadline panics with what it printed so far.
fn run(cmd: Command) -> Output {
    let shown = format!("{cmd:?}");
    let mut child = spawn(cmd);
    drop(child.stdin.take());
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    kill_group(&child);
    let timed_out = status.is_none();
    let status = status.unwrap_or_else(|| child.wait().unwrap());
    let out = Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    assert!(
        !timed_out,
        "{shown} ran past {TIMEOUT:?} and was killed:\n{}",
        text(&out)
    );
    out
}

/// Stdout then stderr, for assertion messages and for CLIs that print results on either.
fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// `s` without ANSI colour sequences.
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ parameters final-byte
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Fail unless a line of `listing` contains `want`.
fn assert_listed(listing: &str, want: &str) {
    assert!(
        listing.lines().any(|l| l.contains(want)),
        "no line with {want:?} in:\n{listing}"
    );
}

/// The events the host's adapter handles, which are the hooks `install` registers.
fn events(host: &str) -> Vec<String> {
    let adapter = aletheia::capture::adapter::load(host).unwrap().unwrap();
    adapter.events.into_keys().collect()
}

#[test]
#[ignore = "needs Claude Code from npm; scripts/test installs it and runs this"]
fn claude_code_connects_to_the_installed_server_and_runs_its_hooks() {
    let s = Sandbox::install("claude-code", "ALETHEIA_CLAUDE");

    let out = s.host(&["mcp", "list"]);
    assert_listed(
        &text(&out),
        &format!("aletheia: {} mcp - ✔ Connected", exe()),
    );

    // Without a login the session stops at "Not logged in", after the SessionStart and
    // UserPromptSubmit hooks ran and the MCP servers were started.
    let out = s.host(&["-p", "hi", "--output-format", "stream-json", "--verbose"]);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let find = |pred: &dyn Fn(&Value) -> bool| {
        lines.iter().find(|v| pred(v)).cloned().unwrap_or_else(|| {
            panic!("not in Claude Code's stream:\n{}", text(&out));
        })
    };
    let response = find(&|v| v["subtype"] == "hook_response" && v["hook_event"] == "SessionStart");
    assert_eq!(response["exit_code"], 0, "{response}");
    assert_eq!(response["outcome"], "success", "{response}");
    let hook_out: Value = serde_json::from_str(response["stdout"].as_str().unwrap()).unwrap();
    let block = hook_out["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no context in {hook_out}"));
    assert!(block.contains(PINNED), "{block}");
    let init = find(&|v| v["subtype"] == "init");
    assert!(
        init["mcp_servers"]
            .as_array()
            .unwrap()
            .contains(&json!({"name": "aletheia", "status": "connected", "source": "user"})),
        "{}",
        init["mcp_servers"]
    );
    assert_eq!(
        s.prompts(),
        [("claude-code".to_owned(), "hi".to_owned())],
        "the UserPromptSubmit hook should have stored the prompt"
    );
}

/// `codex app-server` over stdio: JSON-RPC requests one per line, answers and notifications
/// one per line back.
struct AppServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    next_id: u64,
    /// Notifications seen while waiting for answers, oldest first.
    notes: Vec<Value>,
}

impl AppServer {
    fn start(s: &Sandbox) -> AppServer {
        let mut child = spawn(s.host_cmd(&["app-server"], &[]));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        // Stderr is only the server's log; drain it so a full pipe cannot stall the server.
        drain(child.stderr.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let v = serde_json::from_str(&line)
                    .unwrap_or_else(|e| json!({"unparsed": line, "error": e.to_string()}));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut server = AppServer {
            child,
            stdin,
            lines,
            next_id: 1,
            notes: Vec::new(),
        };
        server.request(
            "initialize",
            json!({"clientInfo": {"name": "aletheia-tests", "version": "1"}}),
        );
        server.send(json!({"jsonrpc": "2.0", "method": "initialized"}));
        server
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn next(&mut self, deadline: Instant, waiting_for: &str) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => {
                panic!(
                    "no {waiting_for} from codex app-server in {TIMEOUT:?}; saw {:?}",
                    self.notes
                )
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!(
                    "codex app-server exited while waiting for {waiting_for}; saw {:?}",
                    self.notes
                )
            }
        }
    }

    /// Send a request and return its result; an error answer fails the test.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let v = self.next(deadline, method);
            if v["id"] == id {
                assert!(v["error"].is_null(), "{method}: {v}");
                return v["result"].clone();
            }
            self.notes.push(v);
        }
    }

    /// The first notification `method` (already seen or still to come) that `pred` accepts.
    fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let hit = |v: &Value| v["method"] == method && pred(&v["params"]);
        if let Some(v) = self.notes.iter().find(|v| hit(v)) {
            return v["params"].clone();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let v = self.next(deadline, method);
            let found = hit(&v);
            self.notes.push(v);
            if found {
                return self.notes.last().unwrap()["params"].clone();
            }
        }
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        kill_group(&self.child);
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs Codex from npm; scripts/test installs it and runs this"]
fn codex_app_server_lists_the_installed_hooks_and_connects_to_the_server() {
    let s = Sandbox::install("codex", "ALETHEIA_CODEX");
    let mut codex = AppServer::start(&s);
    let cwd = s.project.display().to_string();

    let listed = codex.request("hooks/list", json!({"cwds": [cwd]}));
    let entry = &listed["data"][0];
    assert_eq!(entry["cwd"], cwd, "{listed}");
    assert_eq!(entry["warnings"], json!([]), "{listed}");
    assert_eq!(entry["errors"], json!([]), "{listed}");
    let hooks = entry["hooks"].as_array().unwrap();
    let events = events("codex");
    assert_eq!(hooks.len(), events.len(), "{listed}");
    let hooks_file = s.home().join(".codex/hooks.json").display().to_string();
    for event in &events {
        // Codex names events in lower camel case: SessionStart is sessionStart.
        let camel = event[..1].to_lowercase() + &event[1..];
        let hook = hooks
            .iter()
            .find(|h| h["eventName"] == camel.as_str())
            .unwrap_or_else(|| panic!("no {camel} hook in {listed}"));
        assert_eq!(
            hook["command"],
            format!("{} hook codex {event}", hook_exe()),
            "{hook}"
        );
        assert_eq!(hook["sourcePath"], hooks_file.as_str(), "{hook}");
        assert_eq!(hook["enabled"], true, "{hook}");
    }

    // MCP servers start with a thread; starting one needs no login or model.
    let thread = codex.request("thread/start", json!({"cwd": cwd, "ephemeral": true}));
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_owned();
    let startup = codex.notification("mcpServer/startupStatus/updated", |p| {
        p["name"] == "aletheia" && p["status"] != "starting"
    });
    assert_eq!(startup["status"], "ready", "{startup}");
    let status = codex.request(
        "mcpServerStatus/list",
        json!({"threadId": thread_id, "detail": "toolsAndAuthOnly"}),
    );
    let server = status["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "aletheia")
        .unwrap_or_else(|| panic!("aletheia not in {status}"));
    assert_eq!(server["runtimeStatus"], "connected", "{server}");
    assert!(server["toolsError"].is_null(), "{server}");
    assert!(server["tools"]["search"].is_object(), "{server}");
}

#[test]
#[ignore = "needs Gemini CLI from npm; scripts/test installs it and runs this"]
fn gemini_lists_the_installed_server_as_connected() {
    let s = Sandbox::install("gemini", "ALETHEIA_GEMINI");
    let out = run(s.host_cmd(&["mcp", "list"], &[("GEMINI_CLI_TRUST_WORKSPACE", "true")]));
    assert_listed(
        &plain(&text(&out)),
        &format!("✓ aletheia: {} mcp (stdio) - Connected", exe()),
    );
}

/// A headless Gemini session that stops before it would call the model: a project hook on
/// BeforeAgent (beside ours) saves its payload and asks Gemini to stop. The payload's prompt is
/// what Gemini would send the model, SessionStart context included. Returns that payload.
fn gemini_session(s: &Sandbox) -> Value {
    let payload = s.env.tmp().join("before-agent.json");
    let stop = json!({"continue": false, "stopReason": "stopped by the test before the model"});
    let hook = format!("cat > '{}'; echo '{stop}'", payload.display());
    let settings =
        json!({"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": hook}]}]}});
    std::fs::create_dir_all(s.project.join(".gemini")).unwrap();
    std::fs::write(
        s.project.join(".gemini/settings.json"),
        serde_json::to_vec_pretty(&settings).unwrap(),
    )
    .unwrap();
    let out = run(s.host_cmd(
        &["-p", "hi"],
        &[
            ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
            ("GEMINI_API_KEY", "dummy"),
        ],
    ));
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("stopped by the test"), "{shown}");
    let saved = std::fs::read_to_string(&payload)
        .unwrap_or_else(|e| panic!("the BeforeAgent hook did not run ({e}):\n{shown}"));
    serde_json::from_str(&saved).unwrap()
}

#[test]
#[ignore = "needs Gemini CLI from npm; scripts/test installs it and runs this"]
fn gemini_runs_the_session_start_hook_and_its_context_reaches_the_prompt() {
    let s = Sandbox::install("gemini", "ALETHEIA_GEMINI");
    let payload = gemini_session(&s);
    assert_eq!(payload["hook_event_name"], "BeforeAgent", "{payload}");
    // Gemini puts SessionStart's additionalContext before the user's prompt, escaping `<`.
    let prompt = payload["prompt"].as_str().unwrap();
    assert!(prompt.contains("&lt;aletheia-memory&gt;"), "{prompt}");
    assert!(prompt.contains(PINNED), "{prompt}");
    assert!(prompt.ends_with("hi"), "{prompt}");
}

/// Gemini hands BeforeAgent the prompt with the SessionStart context in front of it
/// (`<hook_context>…</hook_context>\n\nhi`). Storing that as the prompt puts the recalled block
/// back into the store, and the next session recalls it again, one layer deeper each time.
#[test]
#[ignore = "needs Gemini CLI from npm; scripts/test installs it and runs this"]
fn gemini_stores_the_typed_prompt_without_the_recalled_context() {
    let s = Sandbox::install("gemini", "ALETHEIA_GEMINI");
    gemini_session(&s);
    assert_eq!(s.prompts(), [("gemini".to_owned(), "hi".to_owned())]);
}

#[test]
#[ignore = "needs OpenCode from npm; scripts/test installs it and runs this"]
fn opencode_lists_the_installed_server_as_connected_and_loads_the_plugin() {
    let s = Sandbox::install("opencode", "ALETHEIA_OPENCODE");
    let out = s.host(&["mcp", "list"]);
    assert_listed(&plain(&text(&out)), "✓ aletheia connected");

    let out = s.host(&["debug", "config"]);
    let config: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("opencode debug config: {e}\n{}", text(&out)));
    let plugin = s.home().join(".config/opencode/plugins/aletheia.js");
    assert_eq!(
        config["plugin"],
        json!([format!("file://{}", plugin.display())]),
        "{config}"
    );
}
