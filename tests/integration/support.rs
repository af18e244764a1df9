//! A temporary home for one test: its own data directory, temp directory and store, and a
//! builder that runs the real `aletheia` binary against them.

use assert_cmd::Command;
use rusqlite::Connection;
use std::path::{Path, PathBuf};

pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        Env { dir }
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn db(&self) -> PathBuf {
        self.data().join("hub.db")
    }

    pub fn spool(&self) -> PathBuf {
        self.data().join("spool").join("hook-spool.jsonl")
    }

    pub fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    /// The binary with this environment and nothing inherited that could point elsewhere.
    pub fn cmd(&self) -> Command {
        Command::from_std(self.std_cmd())
    }

    /// [`Env::cmd`] as a plain `std::process::Command`, for a test that runs several at once.
    pub fn std_cmd(&self) -> std::process::Command {
        self.std_cmd_of(&assert_cmd::cargo::cargo_bin("aletheia"))
    }

    /// [`Env::std_cmd`] running `program` instead (the hook binary, or a copy of aletheia).
    pub fn std_cmd_of(&self, program: &Path) -> std::process::Command {
        let mut c = std::process::Command::new(program);
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("TMPDIR", self.tmp())
            .env("ALETHEIA_DATA_DIR", self.data())
            .env("ALETHEIA_CWD", "/home/dev/shop");
        c
    }

    /// Run a hook with a payload; asserts exit 0 and returns stdout.
    pub fn hook(&self, tool: &str, event: &str, payload: impl AsRef<[u8]>) -> String {
        let out = self
            .cmd()
            .args(["hook", tool, event])
            .write_stdin(payload.as_ref().to_vec())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "hook {tool} {event}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn conn(&self) -> Connection {
        Connection::open(self.db()).unwrap()
    }

    /// Another connection holding the store's write lock until it rolls back or is dropped.
    pub fn hold_write_lock(&self) -> Connection {
        let conn = self.conn();
        conn.execute_batch("BEGIN IMMEDIATE; INSERT INTO captures VALUES ('lock-holder', 0);")
            .unwrap();
        conn
    }

    /// How many memories are stored.
    pub fn count(&self) -> i64 {
        if !self.db().exists() {
            return 0;
        }
        self.conn()
            .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
            .unwrap()
    }

    /// (kind, title, text) of every memory, in id order.
    pub fn memories(&self) -> Vec<(String, String, String)> {
        if !self.db().exists() {
            return vec![];
        }
        let c = self.conn();
        let mut s = c
            .prepare("SELECT kind, title, text FROM memories ORDER BY id")
            .unwrap();
        s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    pub fn spool_lines(&self) -> usize {
        std::fs::read_to_string(self.spool())
            .map(|s| s.lines().filter(|l| !l.trim().is_empty()).count())
            .unwrap_or(0)
    }
}

/// The fixture folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A Claude Code UserPromptSubmit payload with `prompt`.
pub fn prompt_payload(prompt: &str) -> String {
    serde_json::json!({
        "session_id": "s1", "cwd": "/home/dev/shop", "hook_event_name": "UserPromptSubmit",
        "prompt": prompt
    })
    .to_string()
}

/// Write an executable file at `path` from a child process. A file this test process opened
/// for writing could not be run ("Text file busy", ETXTBSY) while any child another test thread
/// forks still holds that descriptor between its fork and its exec; a descriptor that only
/// ever lived in a `sh` that has exited is held by nobody.
pub fn write_executable(path: &Path, contents: &str) {
    use std::io::Write;
    let mut sh = std::process::Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    sh.stdin
        .take()
        .unwrap()
        .write_all(contents.as_bytes())
        .unwrap();
    assert!(
        sh.wait().unwrap().success(),
        "cannot write {}",
        path.display()
    );
}

/// Copy the executable `from` to `to` from a child process, for the reason
/// [`write_executable`] gives.
pub fn copy_executable(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "cannot copy {} to {}",
        from.display(),
        to.display()
    );
}

/// What [`write_executable`] and [`copy_executable`] are for: with other threads forking all the
/// while (as the other tests' threads do, spawning the binary), every executable they write can
/// be run at once. Written from this process instead, about one in a hundred is refused as busy,
/// so this many rounds catch it nearly every run.
#[test]
fn executables_written_while_other_threads_fork_are_never_busy() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let forkers: Vec<_> = (0..2)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::process::Command::new("true").status().unwrap();
                }
            })
        })
        .collect();
    let run = |path: &Path| {
        let status = std::process::Command::new(path)
            .status()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", path.display()));
        assert!(status.success(), "{} failed", path.display());
    };
    for i in 0..200 {
        let written = dir.path().join(format!("written-{i}"));
        write_executable(&written, "#!/bin/sh\nexit 0\n");
        run(&written);
        let copied = dir.path().join(format!("copied-{i}"));
        copy_executable(&written, &copied);
        run(&copied);
    }
    stop.store(true, Ordering::Relaxed);
    for f in forkers {
        f.join().unwrap();
    }
}

/// Every file below `dir`.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// The files below `dir` whose bytes hold `needle`: what anyone reading the data folder (the
/// store, its WAL, the spool, a database server's cluster) would find. A file gone before it
/// is read (a running database server's temporary files come and go) held nothing to find.
pub fn files_holding(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    files_below(dir)
        .into_iter()
        .filter(|p| match std::fs::read(p) {
            Ok(bytes) => bytes.windows(needle.len()).any(|w| w == needle),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => panic!("{}: {e}", p.display()),
        })
        .collect()
}

/// Spawn `cmd` (an `aletheia server --port 0 …`) with stderr piped and read the port from the
/// line it prints at start; returns the child, the port, that line and the rest of stderr,
/// which the caller must keep reading so the server never blocks on a full pipe.
pub fn start_server(
    mut cmd: std::process::Command,
) -> (
    std::process::Child,
    u16,
    String,
    std::io::Lines<std::io::BufReader<std::process::ChildStderr>>,
) {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().expect("the server prints a line").unwrap();
    let port = first
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    (child, port, first, lines)
}

/// The body of a chunked HTTP answer, its chunks joined.
pub fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// `text` with each age a recalled line ends with (`3 weeks ago`, `moments ago`) as `AGE`:
/// ages count from the real clock, so a test that pins a line pins the rest of it.
pub fn ages(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" ago") {
        let head = &rest[..at];
        // The span before " ago": "moments", or a number and a unit, each word starting after
        // a space or an opening parenthesis.
        let word_start = |s: &str| s.rfind([' ', '(']).map_or(0, |i| i + 1);
        let last = word_start(head);
        let unit = &head[last..];
        let cut = if unit == "moments" {
            Some(last)
        } else if !unit.is_empty() && unit.chars().all(|c| c.is_ascii_lowercase()) && last > 0 {
            let before = &head[..last - 1];
            let n_start = word_start(before);
            let n = &before[n_start..];
            (!n.is_empty() && n.chars().all(|c| c.is_ascii_digit())).then_some(n_start)
        } else {
            None
        };
        match cut {
            Some(cut) => {
                out.push_str(&head[..cut]);
                out.push_str("AGE");
            }
            None => out.push_str(&rest[..at + 4]),
        }
        rest = &rest[at + 4..];
    }
    out.push_str(rest);
    out
}

#[test]
fn ages_are_replaced_wherever_they_stand() {
    assert_eq!(
        ages("(shop, note by cli, 5 weeks ago, pinned) (moments ago) 12 days agog a while ago"),
        "(shop, note by cli, AGE, pinned) (AGE) AGEg a while ago"
    );
}
