//! The git commands behind a [`super::Checker`], and reading what they print.
//!
//! Only commands that read the object database and the index: `log`, `ls-files` and
//! `diff-index --cached`. None of them reads the working tree, so no clean filter, fsmonitor or
//! external diff a repository's config names is ever run (`git status` and a worktree diff
//! would run them). Each command gets [`TIMEOUT`] and at most [`MAX_OUTPUT`] bytes; past either
//! it is stopped, and the caller falls back to modification times.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A session-start hook has a deadline of a second for everything it does; a repository that
/// takes longer than this to list its recent commits is better checked by modification time.
const TIMEOUT: Duration = Duration::from_millis(400);

/// The most output read from one command.
const MAX_OUTPUT: usize = 8 << 20;

/// The most commits listed: enough for months of a busy repository, few enough to read in
/// milliseconds.
const MAX_COMMITS: usize = 5000;

/// Variables that would point git at another repository or index than the one at `-C`: a hook
/// started from inside a git hook inherits them.
const LOCATION_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
];

/// The newest commit that touched a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Commit {
    pub at_ms: i64,
    pub hash: String,
}

/// Which paths the commits since a time touched.
#[derive(Debug)]
pub(super) struct History {
    /// Commits from this time on are listed (all of them unless `truncated`).
    pub since_ms: i64,
    /// The listing stopped at [`MAX_COMMITS`] or [`MAX_OUTPUT`]: it holds the newest commits
    /// only, and listing from an older time would not add any.
    pub truncated: bool,
    /// Repository-relative path (with `/`) → the newest commit that touched it.
    pub newest: HashMap<String, Commit>,
}

/// What the index recorded about a file's state when git last wrote or checked it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    pub mtime_secs: u64,
    pub mtime_nanos: u32,
    pub size: u64,
}

impl Stat {
    /// Whether a file with stat `now` is still what git recorded. The index keeps 32 bits of
    /// seconds and of size; git sets a size of 0 on an entry written in the same instant as the
    /// index ("racily clean") after checking its content, so 0 matches any size.
    pub fn matches(self, now: Stat) -> bool {
        let low = u64::from(u32::MAX);
        self.mtime_secs == (now.mtime_secs & low)
            && (self.mtime_nanos == now.mtime_nanos || self.mtime_nanos == 0)
            && (self.size == 0 || self.size == (now.size & low))
    }
}

/// The paths touched by the commits on the checked-out line since `since_ms`, newest first.
///
/// `--first-parent -m` lists a merge's changes against the branch it was merged into, dated
/// when the merge was made: a file changed on another branch last month but merged today
/// changed here today. `--no-renames` lists a renamed file's old path as gone.
pub(super) fn history(top: &Path, since_ms: i64) -> Option<History> {
    let since = format!("--since=@{}", since_ms.max(0).div_euclid(1000));
    let max_count = format!("--max-count={MAX_COMMITS}");
    let args = [
        "log",
        "-z",
        "--first-parent",
        "-m",
        "--name-only",
        "--no-renames",
        "--no-ext-diff",
        "--no-color",
        "--format=%x01%ct %h",
        &max_count,
        &since,
    ];
    let (out, cut) = run(top, &args)?;
    let (newest, commits) = parse_log(&out, cut);
    Some(History {
        since_ms,
        truncated: cut || commits >= MAX_COMMITS,
        newest,
    })
}

/// `log -z` prints, for each commit, `\x01<time> <hash>\0`, then (after a `\n`, when there are
/// any) its paths each ended by `\0`. When the output was cut, the last commit's list may be
/// incomplete and is dropped. Returns the newest commit per path, and how many commits were read.
fn parse_log(out: &[u8], cut: bool) -> (HashMap<String, Commit>, usize) {
    let mut commits: Vec<(Option<Commit>, Vec<&[u8]>)> = Vec::new();
    for field in out.split(|&b| b == 0) {
        if let Some(header) = field.strip_prefix(b"\x01") {
            commits.push((parse_header(header), Vec::new()));
        } else if let Some((_, paths)) = commits.last_mut() {
            let path = if paths.is_empty() {
                field.strip_prefix(b"\n").unwrap_or(field)
            } else {
                field
            };
            if !path.is_empty() {
                paths.push(path);
            }
        }
    }
    if cut {
        commits.pop();
    }
    let count = commits.len();
    let mut newest: HashMap<String, Commit> = HashMap::new();
    for (commit, paths) in commits {
        let Some(commit) = commit else { continue };
        for path in paths {
            let path = String::from_utf8_lossy(path).into_owned();
            match newest.get(&path) {
                Some(seen) if seen.at_ms >= commit.at_ms => {}
                _ => {
                    newest.insert(path, commit.clone());
                }
            }
        }
    }
    (newest, count)
}

fn parse_header(header: &[u8]) -> Option<Commit> {
    let header = std::str::from_utf8(header).ok()?;
    let (secs, hash) = header.split_once(' ')?;
    Some(Commit {
        at_ms: secs.parse::<i64>().ok()?.checked_mul(1000)?,
        hash: hash.to_owned(),
    })
}

/// The index's entries for `paths` (repository-relative): which are tracked, and the stat git
/// recorded for each.
pub(super) fn index(top: &Path, paths: &[&str]) -> Option<HashMap<String, Stat>> {
    let mut args = vec!["ls-files", "-z", "--debug", "--"];
    args.extend_from_slice(paths);
    let (out, cut) = run(top, &args)?;
    (!cut).then(|| parse_index(&out))
}

/// `ls-files -z --debug` prints each path ended by `\0`, then lines starting with two spaces:
/// `  mtime: <secs>:<nanos>` and `  size: <bytes>\tflags: <hex>` among them.
fn parse_index(mut out: &[u8]) -> HashMap<String, Stat> {
    let mut entries = HashMap::new();
    while let Some(end) = out.iter().position(|&b| b == 0) {
        let path = String::from_utf8_lossy(&out[..end]).into_owned();
        out = &out[end + 1..];
        let mut stat = Stat {
            mtime_secs: 0,
            mtime_nanos: 0,
            size: 0,
        };
        let mut complete = (false, false);
        while out.starts_with(b"  ") {
            let end = out.iter().position(|&b| b == b'\n').unwrap_or(out.len());
            let line = String::from_utf8_lossy(&out[2..end]);
            out = out.get(end + 1..).unwrap_or_default();
            if let Some(mtime) = line.strip_prefix("mtime: ")
                && let Some((secs, nanos)) = mtime.split_once(':')
                && let (Ok(secs), Ok(nanos)) = (secs.parse(), nanos.parse())
            {
                (stat.mtime_secs, stat.mtime_nanos) = (secs, nanos);
                complete.0 = true;
            } else if let Some(size) = line.strip_prefix("size: ")
                && let Some(Ok(size)) = size.split('\t').next().map(str::parse)
            {
                stat.size = size;
                complete.1 = true;
            }
        }
        // An entry whose stat could not be read is still tracked; a stat that matches nothing
        // makes its file count as edited, the safe side.
        if complete != (true, true) {
            stat.mtime_secs = u64::MAX;
        }
        entries.insert(path, stat);
    }
    entries
}

/// Which of `paths` (repository-relative) have changes staged in the index against `HEAD`.
pub(super) fn staged(top: &Path, paths: &[&str]) -> Option<HashSet<String>> {
    let mut args = vec![
        "diff-index",
        "-z",
        "--cached",
        "--name-only",
        "--no-renames",
        "--no-ext-diff",
        "HEAD",
        "--",
    ];
    args.extend_from_slice(paths);
    let (out, cut) = run(top, &args)?;
    if cut {
        return None;
    }
    Some(
        out.split(|&b| b == 0)
            .filter(|path| !path.is_empty())
            .map(|path| String::from_utf8_lossy(path).into_owned())
            .collect(),
    )
}

/// Runs `git -C top <args>`: its standard output, and whether that was cut at [`MAX_OUTPUT`].
/// `None` when git is missing, fails, or outlives [`TIMEOUT`].
fn run(top: &Path, args: &[&str]) -> Option<(Vec<u8>, bool)> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(top)
        .args(["--no-pager", "-c", "core.quotepath=off"])
        .args(["-c", "core.fsmonitor=false"])
        // A signature check per commit would run gpg for each.
        .args(["-c", "log.showSignature=false"])
        .args(args)
        // Never take the index lock, nor rewrite the index, in a repository someone is using.
        .env("GIT_OPTIONAL_LOCKS", "0")
        // Paths from memories are file names, not patterns.
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for name in LOCATION_VARIABLES {
        command.env_remove(name);
    }
    collect(&mut command, TIMEOUT, MAX_OUTPUT)
}

/// Runs `command` for at most `timeout`: its standard output, and whether that was cut at `max`
/// bytes. `None` when it cannot start, fails, or outlives `timeout` (it is killed then).
fn collect(command: &mut Command, timeout: Duration, max: usize) -> Option<(Vec<u8>, bool)> {
    let deadline = Instant::now() + timeout;
    let mut child = command.spawn().ok()?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = mpsc::channel();
    // Read on a thread so the deadline holds even while the command is silent. Stopping at the
    // cap closes the pipe, which ends it.
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = stdout
            .take(u64::try_from(max).map_or(u64::MAX, |max| max.saturating_add(1)))
            .read_to_end(&mut out);
        // The receiver is gone only after a timeout, when nobody wants the output.
        let _ = tx.send(read.map(|_| out));
    });
    let Ok(Ok(mut out)) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
    else {
        stop(&mut child);
        return None;
    };
    let cut = out.len() > max;
    out.truncate(max);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            _ => {
                stop(&mut child);
                return None;
            }
        }
    };
    // A command cut short dies of the closed pipe; what it printed before is still good.
    (cut || status.success()).then_some((out, cut))
}

fn stop(child: &mut Child) {
    // Either call fails only when the process has already ended, which is the aim.
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(at_ms: i64, hash: &str) -> Commit {
        Commit {
            at_ms,
            hash: hash.to_owned(),
        }
    }

    #[test]
    fn a_log_gives_each_path_its_newest_commit() {
        let out = b"\x011700000300 ccc\0\nsrc/a.rs\0src/b.rs\0\x011700000200 bbb\0\x01\
                    1700000100 aaa\0\nsrc/a.rs\0src/c d.rs\0";
        let (newest, count) = parse_log(out, false);
        assert_eq!(count, 3);
        assert_eq!(newest["src/a.rs"], commit(1_700_000_300_000, "ccc"));
        assert_eq!(newest["src/b.rs"], commit(1_700_000_300_000, "ccc"));
        assert_eq!(newest["src/c d.rs"], commit(1_700_000_100_000, "aaa"));
        assert_eq!(newest.len(), 3);
    }

    #[test]
    fn an_older_commit_listed_later_does_not_replace_a_newer_one() {
        let out = b"\x01100 old\0\nx.rs\0\x01300 new\0\nx.rs\0\x01200 mid\0\nx.rs\0";
        assert_eq!(parse_log(out, false).0["x.rs"], commit(300_000, "new"));
    }

    #[test]
    fn a_cut_log_drops_its_last_commit() {
        let out = b"\x01300 ccc\0\na.rs\0\x01200 bbb\0\nb.rs\0c.r";
        let (newest, count) = parse_log(out, true);
        assert_eq!(count, 1);
        assert_eq!(newest.keys().collect::<Vec<_>>(), ["a.rs"]);
    }

    #[test]
    fn the_index_listing_gives_each_path_its_stat() {
        let out = b"src/a.rs\0  ctime: 1:2\n  mtime: 1700000000:123\n  dev: 1\tino: 2\n  \
                    uid: 0\tgid: 0\n  size: 42\tflags: 0\nb c.rs\0  ctime: 1:2\n  mtime: 5:0\n  \
                    dev: 1\tino: 2\n  uid: 0\tgid: 0\n  size: 7\tflags: 0\n";
        let entries = parse_index(out);
        let a = Stat {
            mtime_secs: 1_700_000_000,
            mtime_nanos: 123,
            size: 42,
        };
        assert_eq!(entries["src/a.rs"], a);
        assert_eq!(entries["b c.rs"].size, 7);
        assert!(a.matches(a));
        assert!(!a.matches(Stat { size: 43, ..a }));
        assert!(!a.matches(Stat {
            mtime_nanos: 124,
            ..a
        }));
        // Smudged by git as racily clean, or from a git without nanoseconds.
        assert!(Stat { size: 0, ..a }.matches(a));
        assert!(
            Stat {
                mtime_nanos: 0,
                ..a
            }
            .matches(a)
        );
    }

    #[cfg(unix)]
    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command
            .args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        command
    }

    #[cfg(unix)]
    #[test]
    fn a_command_gives_its_output_or_nothing_when_it_fails() {
        let long = Duration::from_secs(60);
        assert_eq!(
            collect(&mut shell("printf 'a\\0b'"), long, 100),
            Some((b"a\0b".to_vec(), false))
        );
        assert_eq!(collect(&mut shell("printf a; exit 3"), long, 100), None);
        assert_eq!(collect(&mut Command::new("/no/such/git"), long, 100), None);
    }

    #[cfg(unix)]
    #[test]
    fn output_past_the_cap_is_cut_and_the_command_ended() {
        // Without the cap this would print forever.
        let (out, cut) = collect(&mut shell("yes"), Duration::from_secs(60), 1000).unwrap();
        assert!(cut);
        assert_eq!(out.len(), 1000);
        assert!(out.starts_with(b"y\ny\n"));
    }

    #[cfg(unix)]
    #[test]
    fn a_command_past_its_time_is_killed() {
        assert_eq!(
            collect(&mut shell("exec sleep 60"), Duration::from_millis(50), 100),
            None
        );
    }

    #[test]
    fn an_index_entry_without_its_stat_never_matches() {
        let entries = parse_index(b"a.rs\0  ctime: 1:2\n");
        let now = Stat {
            mtime_secs: 0,
            mtime_nanos: 0,
            size: 0,
        };
        assert!(!entries["a.rs"].matches(now));
    }
}
