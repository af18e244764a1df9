//! The `claude-cli` provider: extraction through the user's own Claude Code install.
//!
//! A user who already runs Claude Code has a logged-in model at hand and no API key to manage,
//! so this provider runs `claude -p --output-format json` with the prompt on stdin and reads
//! the one JSON result object it prints. The model's text is in that object's `result` and goes
//! through the same validation as any other reply.
//!
//! The child is a whole program that may start its own children, so it runs in its own process
//! group, and a timeout kills the group rather than leaving a stray process holding a model
//! session open.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{ProviderError, Reply, prompt, reply, var};

/// How often the child is checked while waiting: short next to any model call, long enough not
/// to spin.
const POLL: Duration = Duration::from_millis(20);

/// How much of the child's output goes into an error.
const LINE_CHARS: usize = 200;

/// The extraction run must not fire the user's hooks: aletheia's own would capture this
/// session as new work and queue it for compression, which would run `claude -p` again.
const HOOKS_OFF: &str = r#"{"disableAllHooks":true}"#;

pub struct ClaudeCli {
    bin: PathBuf,
    model: Option<String>,
    timeout: Duration,
}

impl ClaudeCli {
    /// The binary from `ALETHEIA_CLAUDE_BIN` (a path, or a name searched on `PATH`; default
    /// `claude`), and the model from `ALETHEIA_CLAUDE_MODEL` when set (else Claude Code's own
    /// default). Looking the binary up now makes a missing install a configuration error the
    /// user sees at start-up, not one failure per window.
    pub fn from_lookup(
        lookup: &dyn Fn(&str) -> Option<String>,
        timeout: Duration,
    ) -> Result<ClaudeCli, ProviderError> {
        let name = var(lookup, "ALETHEIA_CLAUDE_BIN").unwrap_or_else(|| "claude".to_string());
        let bin = if name.contains('/') {
            let path = PathBuf::from(&name);
            if !is_executable(&path) {
                return Err(ProviderError::Config(format!(
                    "claude-cli: ALETHEIA_CLAUDE_BIN is `{name}`, which is not an executable file"
                )));
            }
            path
        } else {
            lookup("PATH")
                .unwrap_or_default()
                .split(':')
                .filter(|dir| !dir.is_empty())
                .map(|dir| Path::new(dir).join(&name))
                .find(|path| is_executable(path))
                .ok_or_else(|| {
                    ProviderError::Config(format!(
                        "claude-cli: `{name}` not found on PATH; install Claude Code or set ALETHEIA_CLAUDE_BIN"
                    ))
                })?
        };
        Ok(ClaudeCli {
            bin,
            model: var(lookup, "ALETHEIA_CLAUDE_MODEL"),
            timeout,
        })
    }

    /// Run the binary with `prompt` on stdin; its exit status, stdout and stderr, or Timeout.
    fn run(&self, prompt: String) -> Result<(ExitStatus, Vec<u8>, Vec<u8>), ProviderError> {
        let deadline = Instant::now() + self.timeout;
        let mut command = Command::new(&self.bin);
        command.args(["-p", "--output-format", "json"]);
        // No tools: extraction reads only the prompt, so tools would only cost their
        // descriptions' tokens and give any request hidden in the notes something to act with.
        command.args(["--tools", "", "--settings", HOOKS_OFF]);
        // Each window would otherwise be saved as a session in the user's resume list.
        command.arg("--no-session-persistence");
        if let Some(model) = &self.model {
            command.args(["--model", model]);
        }
        command
            // Away from any project, so no project's instructions or settings are loaded into
            // what should be a plain extraction.
            .current_dir(std::env::temp_dir())
            // Set inside a Claude Code session, which a worker may have been started from; the
            // binary then takes this run for a nested session and refuses to start.
            .env_remove("CLAUDECODE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = spawn(&mut command, deadline).map_err(|e| {
            ProviderError::Process(format!("could not run {}: {e}", self.bin.display()))
        })?;

        // Writing and reading happen on their own threads: a child that answers before it
        // has read all of a long prompt would otherwise block on a full pipe, and so would we.
        let mut stdin = child.stdin.take().expect("stdin is piped");
        std::thread::spawn(move || {
            // A child that exits without reading is reported by its exit status, not here.
            let _ = stdin.write_all(prompt.as_bytes());
        });
        let (tx, rx) = mpsc::channel();
        drain(child.stdout.take().expect("stdout is piped"), 0, tx.clone());
        drain(child.stderr.take().expect("stderr is piped"), 1, tx);

        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
                Ok(None) => {
                    kill_group(&mut child);
                    return Err(ProviderError::Timeout);
                }
                Err(e) => {
                    kill_group(&mut child);
                    return Err(ProviderError::Process(format!(
                        "could not wait for {}: {e}",
                        self.bin.display()
                    )));
                }
            }
        };
        // The pipes close when the last process holding them exits, which may be a child the
        // binary left behind; that still counts against the deadline.
        let mut out = [Vec::new(), Vec::new()];
        for _ in 0..2 {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok((which, bytes)) => out[which] = bytes,
                Err(_) => {
                    kill_group(&mut child);
                    return Err(ProviderError::Timeout);
                }
            }
        }
        let [stdout, stderr] = out;
        Ok((status, stdout, stderr))
    }
}

impl super::Provider for ClaudeCli {
    fn name(&self) -> &str {
        "claude-cli"
    }

    fn model(&self) -> &str {
        self.model.as_deref().unwrap_or("default")
    }

    fn extract(&self, window: &str) -> Result<Reply, ProviderError> {
        let prompt = prompt::facts_v1(window);
        let chars_sent = prompt.chars().count();
        let (status, stdout, stderr) = self.run(prompt)?;
        let stdout = String::from_utf8_lossy(&stdout);
        let stderr = first_line(&String::from_utf8_lossy(&stderr));
        let output: Value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
        let result = output.get("result").and_then(Value::as_str);

        if !status.success() {
            let why = stderr
                .or_else(|| result.and_then(first_line))
                .or_else(|| first_line(&stdout))
                .unwrap_or_else(|| "no output".into());
            return Err(ProviderError::Process(format!(
                "{} {}: {why}",
                self.bin.display(),
                describe(status)
            )));
        }
        if !output.is_object() {
            return Err(ProviderError::Malformed(format!(
                "{} printed no JSON result object: {}",
                self.bin.display(),
                first_line(&stdout).unwrap_or_else(|| "no output".into())
            )));
        }
        if output.get("is_error").and_then(Value::as_bool) == Some(true) {
            let why = stderr
                .or_else(|| result.and_then(first_line))
                .or_else(|| {
                    output
                        .get("subtype")
                        .and_then(Value::as_str)
                        .map(String::from)
                })
                .unwrap_or_else(|| "no reason given".into());
            return Err(ProviderError::Process(format!(
                "{} reported an error: {why}",
                self.bin.display()
            )));
        }
        let Some(text) = result else {
            return Err(ProviderError::Malformed(
                "the result object has no \"result\" text".into(),
            ));
        };
        let usage = |field: &str| output.get("usage")?.get(field)?.as_u64();
        // The prompt's size is split across fresh and cached input; their sum is what was read.
        let input: Vec<u64> = [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .filter_map(|field| usage(field))
        .collect();
        Ok(Reply {
            facts: reply::parse(text)?,
            chars_sent,
            chars_received: text.chars().count(),
            tokens_in: (!input.is_empty()).then(|| input.iter().sum()),
            tokens_out: usage("output_tokens"),
            cost_usd: output.get("total_cost_usd").and_then(Value::as_f64),
        })
    }
}

/// Spawn `command`, retrying while its binary is "busy": a binary that was just written (an
/// update being installed) cannot be run while any process still holds it open for writing,
/// and a fork elsewhere in this process can briefly hold such a descriptor too.
fn spawn(command: &mut Command, deadline: Instant) -> std::io::Result<Child> {
    loop {
        match command.spawn() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && Instant::now() < deadline => {
                std::thread::sleep(POLL)
            }
            result => return result,
        }
    }
}

/// Read `pipe` to its end on a thread and send the bytes, tagged `which`.
fn drain(mut pipe: impl Read + Send + 'static, which: usize, tx: mpsc::Sender<(usize, Vec<u8>)>) {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        // A read error ends the output early; what arrived is still the best account of it.
        let _ = pipe.read_to_end(&mut bytes);
        let _ = tx.send((which, bytes));
    });
}

/// Kill the child's whole process group and reap the child.
fn kill_group(child: &mut Child) {
    // The group id is the child's pid, from `process_group(0)`. A pid that did not fit pid_t
    // would wrap, and its negation could name another process or our own group (0): then only
    // the child itself is killed.
    match libc::pid_t::try_from(child.id()) {
        Ok(group) if group > 0 => {
            // SAFETY: kill(2) with a negative pid signals that process group; it touches no
            // memory.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        _ => {
            let _ = child.kill();
        }
    }
    let _ = child.wait();
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first non-blank line of `text`, cut to a length that fits an error message.
fn first_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    Some(match line.char_indices().nth(LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    })
}

fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => format!("ended: {status}"),
    }
}
