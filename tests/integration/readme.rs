//! Every shell command in README.md, run as a new user following it would run it, so that the
//! README cannot drift from what the binary and the scripts do.
//!
//! The commands are the lines of the README's ```` ```sh ````, ```` ```bash ```` and
//! ```` ```console ```` blocks (in a console block, the lines that start with `$ `), a line
//! ending in a backslash joined with the next, comment lines and blank lines left out. Each runs
//! with `bash -c`, in README order, all of them in one temporary HOME (nothing else of this
//! machine's environment but PATH, with this build's `aletheia` and `aletheia-hook` first on it)
//! and one temporary working folder named `shop`; the README's `scripts/…` commands run in the
//! repository instead. Each must exit 0, unless [`NOT_RUN`] names it.
//!
//! What the test adds to the README, and nothing more:
//! - The store starts with 15 notes of project `shop` and three rule proposals from an MCP
//!   client named `cursor`, so that the memories and the proposal the examples name (`12`, `15`,
//!   `p3`) are there, as they would be in the store of a user who has used it a while.
//! - A long-running server (`aletheia server`, `aletheia hub …` but its subcommands, `aletheia
//!   mcp`) is started in the background and checked instead of waited for: the HTTP ones with
//!   `--port 0` (a free port, so a server already running on the default one cannot fail the
//!   test) and a request to `/v1/health`, which must be answered (200; the hub asks every
//!   request for a token, so 401 is its answer); `aletheia mcp` with `initialize`. They run
//!   until every command has run, then are stopped (SIGTERM; `aletheia mcp` by the end of its
//!   input) and must exit 0.
//! - Placeholders: `alh_...` is the token the last `aletheia mcp-link create` printed, and the
//!   default addresses `127.0.0.1:7749` (the server) and `127.0.0.1:7750` (the hub) are those of
//!   the servers started above.
//! - `scripts/demo` gets `ALETHEIA_BIN` (this build) and so builds nothing.
//!
//! A command added to the README runs like the others: one that cannot run here fails this
//! test until it goes into [`NOT_RUN`] with its reason, and an entry of [`NOT_RUN`] that the
//! README no longer has fails it too.

// The README's server, hub and semantic commands need both features (a build without them
// answers those commands with exit 2, as tests/integration/cli.rs checks).
#![cfg(all(feature = "server", feature = "semantic"))]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Why a README command is not run as written.
#[derive(Clone, Copy, Debug)]
enum Unless {
    /// Never run by this test.
    Never,
    /// Run, with `ALETHEIA_MODEL_DIR` set to the models `scripts/test` fetched
    /// (`$ALETHEIA_TEST_MODEL_DIR`), when this test has them; skipped otherwise.
    TestModels,
    /// Run when this program is on PATH; skipped otherwise.
    Program(&'static str),
}

/// The README's commands this test does not run as written: the command (as the README has
/// it, without its comment), when it is not run, and why.
const NOT_RUN: &[(&str, Unless, &str)] = &[
    (
        "curl -fsSL https://github.com/aletheia-mem/aletheia/releases/latest/download/install.sh | sh",
        Unless::Never,
        "downloads the latest release from GitHub (network) and installs it into ~/.local/bin; \
         tests/e2e/test_release.py runs the same install.sh on this build's archive (--from)",
    ),
    (
        "cargo install --locked aletheia-mem",
        Unless::Never,
        "downloads from crates.io (network) and builds a release: minutes",
    ),
    (
        "cargo install --locked --path .",
        Unless::Never,
        "a release build of this checkout: minutes (the README says how many)",
    ),
    (
        "aletheia man | man -l -",
        Unless::Program("man"),
        "needs man (man-db), which a minimal system may not have",
    ),
    (
        "aletheia hub --database postgres://aletheia@db.internal/team",
        Unless::Never,
        "needs a PostgreSQL server at db.internal; the hub's tests run on a throwaway one \
         (scripts/postgres)",
    ),
    (
        "aletheia hub migrate --from ~/team/hub.db --to postgres://aletheia@db.internal/team",
        Unless::Never,
        "needs a PostgreSQL server at db.internal; tests/integration/hub_migrate.rs migrates \
         into a throwaway one",
    ),
    (
        "aletheia model fetch",
        Unless::Never,
        "downloads two models, about 130 MB each, from Hugging Face (network); \
         tests/integration/model_fetch.rs fetches from a local mirror",
    ),
    (
        "aletheia index",
        Unless::TestModels,
        "needs the models that `aletheia model fetch` downloads",
    ),
    (
        "aletheia search --semantic \"which database do we use\"",
        Unless::TestModels,
        "needs the models that `aletheia model fetch` downloads",
    ),
    (
        "scripts/test",
        Unless::Never,
        "the whole suite, this test among it: installs hosts and tools, then takes 13 minutes \
         or more",
    ),
    (
        "scripts/torture",
        Unless::Never,
        "the long reliability run (tens of minutes) and it rewrites docs/reliability.md; \
         scripts/test runs its --quick form",
    ),
    (
        "scripts/fuzz 60",
        Unless::Never,
        "six minutes of fuzzing, and cargo-fuzz to build; scripts/test fuzzes 5 s a target",
    ),
    (
        "scripts/bench",
        Unless::Never,
        "the benchmarks: stores of 100,000 memories and more, tens of minutes, and it rewrites \
         docs/benchmarks.md",
    ),
    (
        "scripts/bench --hook-breakdown",
        Unless::Never,
        "a store of 100,000 memories, minutes, and it rewrites its section of \
         docs/benchmarks.md",
    ),
];

/// How long one command may take before it counts as hung.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// One command of the README: its first line's number and its text as written.
#[derive(Debug, PartialEq)]
struct ReadmeCommand {
    line: usize,
    text: String,
}

/// Where a README line stands.
#[derive(Clone, Copy, PartialEq)]
enum Fence {
    Outside,
    /// A ```sh, ```bash or ```shell block: every line is a command.
    Shell,
    /// A ```console block: the lines that start with `$ ` are commands, the others output.
    Console,
    /// Any other block.
    Other,
}

/// The commands of `readme`'s shell blocks, in order.
fn commands(readme: &str) -> Vec<ReadmeCommand> {
    let mut out = Vec::new();
    let mut fence = Fence::Outside;
    let mut pending: Option<ReadmeCommand> = None;
    for (i, raw) in readme.lines().enumerate() {
        if let Some(info) = raw.trim_start().strip_prefix("```") {
            fence = match fence {
                Fence::Outside => match info.trim_start_matches('`').trim() {
                    "sh" | "bash" | "shell" => Fence::Shell,
                    "console" => Fence::Console,
                    _ => Fence::Other,
                },
                _ => Fence::Outside,
            };
            if let Some(p) = pending.take() {
                out.push(p);
            }
            continue;
        }
        if !matches!(fence, Fence::Shell | Fence::Console) {
            continue;
        }
        if let Some(p) = pending.as_mut() {
            // The line before ended with a backslash: this one continues it.
            p.text.push(' ');
            p.text.push_str(raw.trim());
        } else {
            let text = match fence {
                Fence::Console => match raw.trim_start().strip_prefix("$ ") {
                    Some(t) => t,
                    None => continue,
                },
                _ => raw,
            };
            let text = text.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            pending = Some(ReadmeCommand {
                line: i + 1,
                text: text.to_string(),
            });
        }
        let p = pending.as_mut().expect("a command is being read");
        match p.text.strip_suffix('\\') {
            Some(head) => p.text = head.trim_end().to_string(),
            None => out.extend(pending.take()),
        }
    }
    out.extend(pending);
    out
}

/// `line` without its trailing shell comment: from the first `#` that starts a word outside
/// quotes.
fn without_comment(line: &str) -> &str {
    let (mut single, mut double, mut escaped, mut word_start) = (false, false, false, true);
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
        } else {
            match c {
                '\\' if !single => escaped = true,
                '\'' if !double => single = !single,
                '"' if !single => double = !double,
                '#' if !single && !double && word_start => return line[..i].trim_end(),
                _ => {}
            }
        }
        word_start = c.is_whitespace();
    }
    line.trim_end()
}

/// A command that runs until it is stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Server {
    /// `aletheia server` or `aletheia hub`: HTTP, with this default port.
    Http(u16),
    /// `aletheia mcp`: JSON-RPC over stdio.
    Stdio,
}

/// Whether `command` (without its comment) starts a server, and which.
fn server(command: &str) -> Option<Server> {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["aletheia", "server", ..] => Some(Server::Http(7749)),
        // `aletheia hub --hub-db FILE`, not `aletheia hub migrate …` or `aletheia hub audit`.
        ["aletheia", "hub"] => Some(Server::Http(7750)),
        ["aletheia", "hub", option, ..] if option.starts_with('-') => Some(Server::Http(7750)),
        ["aletheia", "mcp"] => Some(Server::Stdio),
        _ => None,
    }
}

/// A server started from the README, running in the background.
struct Running {
    line: usize,
    command: String,
    child: Child,
    /// `aletheia mcp`'s stdin, held open so that it keeps serving.
    stdin: Option<std::process::ChildStdin>,
    /// What it wrote to stderr (and stdout, for `aletheia mcp`), for a failure's message.
    log: std::sync::Arc<std::sync::Mutex<String>>,
}

/// Read `from` to its end into `log`, on a thread of its own; each line is also sent on the
/// channel returned.
fn drain(
    from: impl Read + Send + 'static,
    log: std::sync::Arc<std::sync::Mutex<String>>,
) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            let mut log = log.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
            drop(log);
            let _ = tx.send(line);
        }
    });
    rx
}

/// The port a server says it listens on, in the first of its lines (within 30 s) that names
/// `http://127.0.0.1:PORT`.
fn listening_port(lines: &mpsc::Receiver<String>) -> Result<u16, String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .map_err(|_| "printed no line saying where it listens".to_string())?;
        if let Some(port) = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse::<u16>().ok())
        {
            return Ok(port);
        }
    }
}

/// The last `alh_…` token in `text`.
fn last_token(text: &str) -> Option<String> {
    text.match_indices("alh_")
        .map(|(at, _)| {
            text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|t| t.len() > 12)
        .last()
}

/// The status line of `GET path` on 127.0.0.1:`port`.
fn http_status(port: u16, path: &str) -> Result<String, String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut line = String::new();
    BufReader::new(s)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    Ok(line.trim_end().to_string())
}

/// The last `n` characters of `text`, for a failure's message.
fn tail(text: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(text);
    let skip = text.chars().count().saturating_sub(n);
    let kept: String = text.chars().skip(skip).collect();
    if skip > 0 { format!("…{kept}") } else { kept }
}

/// Kill `pid`'s process group (each command runs in a group of its own).
/// A background server is stopped however the test ends, a panic included, so no `aletheia
/// server` outlives its temporary HOME.
impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            kill_group(self.child.id(), libc::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn kill_group(pid: u32, signal: i32) {
    // SAFETY: kill has no memory preconditions; the group is our own child's.
    unsafe { libc::kill(-(pid as i32), signal) };
}

/// Wait for `child` at most `timeout`; None when it is still running.
fn wait_for(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One run of the README's commands.
struct Run {
    repo: PathBuf,
    home: PathBuf,
    work: PathBuf,
    tmp: PathBuf,
    bin: PathBuf,
    path: std::ffi::OsString,
    /// The models scripts/test fetched, when this test has them.
    models: Option<PathBuf>,
    /// The token the last `mcp-link create` printed.
    token: Option<String>,
    /// Each server's default address and the one it listens on.
    addresses: Vec<(String, String)>,
    servers: Vec<Running>,
    failures: Vec<String>,
    ran: usize,
    skipped: Vec<String>,
}

impl Run {
    /// The environment every command gets: this run's HOME, TMPDIR and PATH, nothing else.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>, dir: &Path) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env("TMPDIR", &self.tmp)
            .env("ALETHEIA_BIN", &self.bin)
            .current_dir(dir)
            .stdin(Stdio::null())
            .process_group(0);
        c
    }

    fn shell(&self, command: &str, dir: &Path) -> Command {
        let mut c = self.command("bash", dir);
        // A pipeline fails when any command in it does (`aletheia man | man -l -`).
        c.arg("-c").arg(format!("set -o pipefail; {command}"));
        c
    }

    fn on_path(&self, program: &str) -> bool {
        std::env::split_paths(&self.path).any(|d| d.join(program).is_file())
    }

    /// What the store holds before the first command (see the module's comment).
    fn seed(&self) {
        let notes: String = (1..=15_i64)
            .map(|i| {
                let text = match i {
                    12 => "We deploy with npm from the CI runner".to_string(),
                    _ => format!("Shop note {i}: the checkout service keeps its carts in Redis"),
                };
                serde_json::json!({"project": "shop", "kind": "note", "text": text,
                                   "created_at": 1_790_000_000_000_i64 + i * 60_000})
                .to_string()
                    + "\n"
            })
            .collect();
        let (ok, out) = self.feed(&["import"], &notes);
        assert!(
            ok && out.contains("Imported 15 memories"),
            "seeding the store: {out}"
        );
        let mut rpc = vec![
            serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "cursor", "version": "1"}}}),
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ];
        for (i, then) in [
            "Run the linter before pushing",
            "Keep migrations reversible",
            "Tag releases from main",
        ]
        .iter()
        .enumerate()
        {
            rpc.push(
                serde_json::json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "add_rule", "arguments": {"then": then}}}),
            );
        }
        let input: String = rpc.iter().map(|m| m.to_string() + "\n").collect();
        let (ok, out) = self.feed(&["mcp"], &input);
        assert!(
            ok && out.matches("Rule saved").count() == 3,
            "seeding the proposals: {out}"
        );
    }

    /// Run this build's aletheia with `args` and `input` on stdin; whether it exited 0, and
    /// its stdout and stderr.
    fn feed(&self, args: &[&str], input: &str) -> (bool, String) {
        let mut c = self.command(&self.bin, &self.work);
        let mut child = c
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    }

    /// `command` with the placeholders the module's comment lists filled in.
    fn substitute(&self, command: &str) -> Result<String, String> {
        let mut c = command.to_string();
        if c.contains("alh_...") {
            let token = self.token.as_deref().ok_or(
                "it uses a token (alh_...) before any `aletheia mcp-link create` printed one",
            )?;
            c = c.replace("alh_...", token);
        }
        for (default, actual) in &self.addresses {
            c = c.replace(default.as_str(), actual);
        }
        Ok(c)
    }

    fn fail(&mut self, line: usize, command: &str, what: impl std::fmt::Display) {
        self.failures
            .push(format!("README.md:{line}: `{command}`: {what}"));
    }

    /// Run the README's command `c` as the module's comment says.
    fn one(&mut self, c: &ReadmeCommand) {
        let bare = without_comment(&c.text);
        let mut model_dir = None;
        if let Some((_, unless, reason)) = NOT_RUN.iter().find(|(t, _, _)| *t == bare) {
            let skip = match unless {
                Unless::Never => true,
                Unless::Program(p) => !self.on_path(p),
                Unless::TestModels => {
                    model_dir.clone_from(&self.models);
                    model_dir.is_none()
                }
            };
            if skip {
                self.skipped
                    .push(format!("README.md:{}: {bare}: {reason}", c.line));
                return;
            }
        }
        let text = match self.substitute(&c.text) {
            Ok(t) => t,
            Err(e) => return self.fail(c.line, &c.text, e),
        };
        self.ran += 1;
        if let Some(kind) = server(bare) {
            return self.start(c.line, without_comment(&text), kind);
        }
        let dir = if bare.starts_with("scripts/") {
            self.repo.clone()
        } else {
            self.work.clone()
        };
        let mut cmd = self.shell(&text, &dir);
        if let Some(m) = model_dir {
            cmd.env("ALETHEIA_MODEL_DIR", m);
        }
        let child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        let out = match rx.recv_timeout(COMMAND_TIMEOUT) {
            Ok(out) => out.unwrap(),
            Err(_) => {
                kill_group(pid, libc::SIGKILL);
                let _ = rx.recv();
                return self.fail(
                    c.line,
                    &c.text,
                    format!(
                        "still running after {} s, killed",
                        COMMAND_TIMEOUT.as_secs()
                    ),
                );
            }
        };
        if let Some(t) = last_token(&String::from_utf8_lossy(&out.stdout)) {
            self.token = Some(t);
        }
        if !out.status.success() {
            let what = format!(
                "{}\n--- stdout\n{}\n--- stderr\n{}",
                out.status,
                tail(&out.stdout, 1500),
                tail(&out.stderr, 1500)
            );
            self.fail(c.line, &c.text, what);
        }
    }

    /// Start a server in the background and check that it serves.
    fn start(&mut self, line: usize, command: &str, kind: Server) {
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let run = match kind {
            Server::Http(_) => format!("exec {command} --port 0"),
            Server::Stdio => format!("exec {command}"),
        };
        let mut cmd = self.shell(&run, &self.work);
        cmd.stderr(Stdio::piped());
        match kind {
            Server::Http(_) => cmd.stdout(Stdio::null()),
            Server::Stdio => cmd.stdin(Stdio::piped()).stdout(Stdio::piped()),
        };
        let mut child = cmd.spawn().unwrap();
        let stderr = drain(child.stderr.take().unwrap(), log.clone());
        let mut stdin = child.stdin.take();
        let checked = match kind {
            Server::Http(default) => listening_port(&stderr).and_then(|port| {
                let status = http_status(port, "/v1/health")?;
                if status.starts_with("HTTP/1.1 200") || status.starts_with("HTTP/1.1 401") {
                    self.addresses
                        .push((format!("127.0.0.1:{default}"), format!("127.0.0.1:{port}")));
                    Ok(())
                } else {
                    Err(format!("GET /v1/health answered {status}"))
                }
            }),
            Server::Stdio => {
                let out = drain(child.stdout.take().unwrap(), log.clone());
                let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "readme-test", "version": "1"}}});
                let pipe = stdin.as_mut().unwrap();
                writeln!(pipe, "{init}")
                    .and_then(|()| pipe.flush())
                    .map_err(|e| e.to_string())
                    .and_then(|()| {
                        out.recv_timeout(Duration::from_secs(30))
                            .map_err(|_| "no answer to initialize".to_string())
                    })
                    .and_then(|answer| {
                        if answer.contains("\"result\"") {
                            Ok(())
                        } else {
                            Err(format!("initialize answered {answer}"))
                        }
                    })
            }
        };
        if let Err(e) = checked {
            kill_group(child.id(), libc::SIGKILL);
            let _ = child.wait();
            let log = log.lock().unwrap().clone();
            return self.fail(line, command, format!("{e}\n--- its output\n{log}"));
        }
        self.servers.push(Running {
            line,
            command: command.to_string(),
            child,
            stdin,
            log,
        });
    }

    /// Stop every server started: each must exit 0.
    fn stop_servers(&mut self) {
        for mut s in std::mem::take(&mut self.servers) {
            match s.stdin.take() {
                Some(stdin) => drop(stdin),
                None => kill_group(s.child.id(), libc::SIGTERM),
            }
            let status = wait_for(&mut s.child, Duration::from_secs(20));
            if status.is_none() {
                kill_group(s.child.id(), libc::SIGKILL);
                let _ = s.child.wait();
            }
            if !status.is_some_and(|st| st.success()) {
                let log = s.log.lock().unwrap().clone();
                let what = match status {
                    Some(st) => format!("told to stop, it ended with {st}"),
                    None => "still running 20 s after it was told to stop".to_string(),
                };
                self.fail(s.line, &s.command, format!("{what}\n--- its output\n{log}"));
            }
        }
    }
}

/// Each README command, run in a fresh HOME in README order: see the module's comment.
#[test]
fn every_command_in_the_readme_runs_in_a_fresh_home() {
    let started = Instant::now();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let all = commands(&readme);
    assert!(
        all.len() > 30,
        "only {} commands found in README.md",
        all.len()
    );
    for (listed, _, _) in NOT_RUN {
        assert!(
            all.iter().any(|c| without_comment(&c.text) == *listed),
            "NOT_RUN names `{listed}`, which README.md no longer has: take it out"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (
        dir.path().join("home"),
        dir.path().join("shop"),
        dir.path().join("tmp"),
    );
    for d in [&home, &work, &tmp] {
        std::fs::create_dir_all(d).unwrap();
    }
    let bin = assert_cmd::cargo::cargo_bin("aletheia");
    let bin_dir = bin.parent().unwrap().to_path_buf();
    assert!(
        bin_dir.join("aletheia-hook").is_file(),
        "aletheia-hook is not built beside {}",
        bin.display()
    );
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let mut run = Run {
        repo,
        home,
        work,
        tmp,
        bin,
        path,
        models: std::env::var_os("ALETHEIA_TEST_MODEL_DIR")
            .map(PathBuf::from)
            .filter(|d| d.is_dir()),
        token: None,
        addresses: Vec::new(),
        servers: Vec::new(),
        failures: Vec::new(),
        ran: 0,
        skipped: Vec::new(),
    };
    run.seed();
    for c in &all {
        run.one(c);
    }
    run.stop_servers();
    eprintln!(
        "README.md: {} commands, {} run, {} not run, in {:.1} s",
        all.len(),
        run.ran,
        run.skipped.len(),
        started.elapsed().as_secs_f64()
    );
    for s in &run.skipped {
        eprintln!("  not run: {s}");
    }
    assert!(
        run.failures.is_empty(),
        "{} README command(s) failed in a fresh HOME (a command that cannot run in this test \
         goes into NOT_RUN in tests/integration/readme.rs, with its reason):\n\n{}",
        run.failures.len(),
        run.failures.join("\n\n")
    );
}

#[test]
fn readme_commands_are_read_as_a_shell_would_read_them() {
    let md = "text\n```sh\n# a comment\naletheia save \"a # b\" \\\n  --pinned   # a note\n\n\
              echo hi\n```\n```json\n{\"not\": \"a command\"}\n```\n```console\n$ aletheia doctor\n\
              store: ok\n```\n";
    let got = commands(md);
    let texts: Vec<&str> = got.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "aletheia save \"a # b\" --pinned   # a note",
            "echo hi",
            "aletheia doctor"
        ]
    );
    assert_eq!(got.iter().map(|c| c.line).collect::<Vec<_>>(), [4, 7, 13]);
    assert_eq!(
        without_comment(&got[0].text),
        "aletheia save \"a # b\" --pinned"
    );
    assert_eq!(
        without_comment("aletheia trust '*' propose   # every"),
        "aletheia trust '*' propose"
    );
    assert_eq!(without_comment("echo a#b \\# c # d"), "echo a#b \\# c");
    assert_eq!(server("aletheia server"), Some(Server::Http(7749)));
    assert_eq!(
        server("aletheia hub --hub-db ~/team/hub.db"),
        Some(Server::Http(7750))
    );
    assert_eq!(server("aletheia hub migrate --from a --to b"), None);
    assert_eq!(server("aletheia mcp-link create --scope sync"), None);
    assert_eq!(server("aletheia mcp"), Some(Server::Stdio));
    assert_eq!(
        last_token("Token 1 (sync): alh_1_ab12cd34ef56\nalh_..."),
        Some("alh_1_ab12cd34ef56".into())
    );
}
