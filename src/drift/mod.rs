//! Drift: whether what a memory says about files still holds.
//!
//! A memory that says "the bug is in src/checkout.rs" was true when it was written; once that
//! file changed or went away, the memory may describe code that no longer exists. This module
//! tells, for the files a memory names (its `files` list, or [`paths_in_text`] of its text),
//! which changed after the memory's time and which are gone, so that search results and the
//! session-start block can say `stale: src/checkout.rs changed 2 days later` and rank such
//! memories lower.
//!
//! A [`Checker`] serves one project directory. Inside a git work tree it asks git, once, which
//! files the commits since the oldest memory it is asked about touched, and answers every path
//! of every memory from that listing: a session start checks some twenty memories, and a `git
//! log` per path would cost a process each. A file modified on disk after the memory with no
//! commit since is an uncommitted edit, unless the index shows git itself wrote it that way (a
//! clone, a checkout, a stash). Outside git, or when git is missing, fails or takes too long,
//! the file's modification time alone decides, silently: a hint that might be stale is still
//! better than none. The git commands run as child processes rather than through `gix`, which
//! would add a large dependency tree and its start-up cost to a short-lived hook for three
//! small queries.
//!
//! Staleness is a hint shown next to a memory, so where the evidence is unclear the checker says
//! nothing rather than something false:
//! - In a repository, a missing file counts as deleted only when a commit after the memory
//!   touched it (the deletion) or the index still tracks it (a deletion not yet committed). A
//!   path the repository never had is usually a loose name from prose (`checkout.rs` for
//!   `src/checkout.rs`), and a file deleted before the memory was written did not go stale.
//! - Changes are dated by committer time on the checked-out branch; a merge dates what it brought
//!   in. A commit made before the memory but pulled in after it by a fast-forward is not seen.
//! - A path outside the project (neither under the root nor in its repository) is checked when
//!   it exists, by modification time; when it does not, it is skipped, since a scratch file in
//!   `/tmp` going away says nothing about the memory. Outside git there is no history to tell a
//!   loose name from a deleted file, so a missing path under the root counts as deleted.

mod git;
pub mod marks;
mod text;

use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

pub use text::paths_in_text;

/// A file a memory names that changed, or went away, after the memory was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// Relative to the checker's root (with `/`) when the file is under it; else relative to the
    /// repository when it was written that way, else absolute.
    pub path: String,
    pub change: Change,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The file no longer exists.
    Deleted,
    /// The file changed at `at_ms` (epoch milliseconds), after the memory was written.
    Changed { at_ms: i64, how: How },
}

/// What dates a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    /// A commit, by its short hash; `at_ms` is its committer time.
    Commit(String),
    /// An edit in a git work tree that is not committed; `at_ms` is the file's modification time.
    Uncommitted,
    /// Only the file's modification time: the file is not in a git repository, or git could not
    /// be asked.
    Modified,
}

impl Drift {
    /// `src/checkout.rs changed 2 days later`, `src/checkout.rs was deleted`,
    /// `src/checkout.rs changed 3 hours later (uncommitted)`, for a memory written at
    /// `written_at_ms`.
    pub fn describe(&self, written_at_ms: i64) -> String {
        match &self.change {
            Change::Deleted => format!("{} was deleted", self.path),
            Change::Changed { at_ms, how } => {
                let gap = crate::time::span(at_ms.saturating_sub(written_at_ms));
                let note = if *how == How::Uncommitted {
                    " (uncommitted)"
                } else {
                    ""
                };
                format!("{} changed {gap} later{note}", self.path)
            }
        }
    }
}

/// Checks the files memories name against one project directory. Keep one for all the
/// memories of a listing, and hand them to [`Checker::check_many`] together where possible: it
/// lists the repository's history once and reuses it.
#[derive(Debug)]
pub struct Checker {
    /// The project directory, absolute; then the same with symlinks resolved, when that
    /// differs, since a host may have recorded either.
    roots: Vec<PathBuf>,
    repo: Option<Repo>,
}

#[derive(Debug)]
struct Repo {
    /// The work tree's top (the folder holding `.git`), and its resolved form when it differs.
    tops: Vec<PathBuf>,
    history: Option<git::History>,
    /// git could not list the history: every check falls back to modification times.
    failed: bool,
}

/// A path from a memory, resolved.
struct Target {
    shown: String,
    file: PathBuf,
    /// Under the root or in its repository: a file the project had, whose absence counts.
    ours: bool,
    /// Relative to the repository's top, with `/`, as git lists it.
    in_repo: Option<String>,
}

/// What the history and the file system say about one path; the last two need the index.
enum Finding {
    Nothing,
    Found(Change),
    /// Gone, and no commit since the memory touched it: deleted if the index still tracks it,
    /// else a path the repository did not have.
    Missing,
    /// Modified after the memory with no commit since: an edit unless the index shows git wrote
    /// the file as it is.
    Touched {
        at_ms: i64,
        stat: git::Stat,
    },
}

impl Checker {
    /// A checker for the project at `root`, which is inside a git work tree when a folder at or
    /// above it holds a `.git` (a folder, or a worktree's or submodule's file).
    pub fn new(root: &Path) -> Checker {
        let root = normalize(&std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()));
        let top = root
            .ancestors()
            .find(|dir| dir.join(".git").symlink_metadata().is_ok())
            .map(|top| Repo {
                tops: with_resolved(top.to_path_buf()),
                history: None,
                failed: false,
            });
        Checker {
            roots: with_resolved(root),
            repo: top,
        }
    }

    /// What changed, of `paths` (absolute, or relative to the root or to the repository's top),
    /// since a memory written at `written_at_ms`; in the order of `paths`, each file once.
    pub fn check(&mut self, written_at_ms: i64, paths: &[String]) -> Vec<Drift> {
        self.check_many(&[(written_at_ms, paths)])
            .pop()
            .unwrap_or_default()
    }

    /// [`Checker::check`] for many memories at once, each given as its time and its paths: at
    /// most one history listing, one `ls-files` and one `diff-index` for all of them.
    pub fn check_many(&mut self, memories: &[(i64, &[String])]) -> Vec<Vec<Drift>> {
        let targets: Vec<Vec<Target>> = memories
            .iter()
            .map(|(_, paths)| self.targets(paths))
            .collect();
        let oldest = memories
            .iter()
            .zip(&targets)
            .filter(|(_, targets)| targets.iter().any(|t| t.in_repo.is_some()))
            .map(|((written_at, _), _)| *written_at)
            .min();
        if let Some(oldest) = oldest {
            self.load(oldest);
        }
        let history = self.repo.as_ref().and_then(|repo| repo.history.as_ref());
        let findings: Vec<Vec<Finding>> = memories
            .iter()
            .zip(&targets)
            .map(|((written_at, _), targets)| {
                targets
                    .iter()
                    .map(|t| look(*written_at, t, history))
                    .collect()
            })
            .collect();
        let answers = self.ask_index(&targets, &findings);
        targets
            .into_iter()
            .zip(findings)
            .map(|(targets, findings)| {
                targets
                    .into_iter()
                    .zip(findings)
                    .filter_map(|(target, finding)| {
                        let rel = target.in_repo.as_deref().unwrap_or_default();
                        let change = match finding {
                            Finding::Nothing => None,
                            Finding::Found(change) => Some(change),
                            Finding::Missing => answers.missing(rel),
                            Finding::Touched { at_ms, stat } => answers.touched(rel, at_ms, stat),
                        }?;
                        Some(Drift {
                            path: target.shown,
                            change,
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// Makes sure the history covers commits since `oldest`. Each reload reaches at least twice
    /// as far back as the last, so memories checked newest first cost a few listings, not one
    /// each.
    fn load(&mut self, oldest: i64) {
        let Some(repo) = &mut self.repo else { return };
        if repo.failed {
            return;
        }
        let since = match &repo.history {
            None => oldest,
            Some(loaded) if oldest >= loaded.since_ms || loaded.truncated => return,
            Some(loaded) => {
                let now = crate::time::now_ms();
                let reach = now.saturating_sub(loaded.since_ms).saturating_mul(2);
                oldest.min(now.saturating_sub(reach))
            }
        };
        repo.history = git::history(&repo.tops[0], since);
        repo.failed = repo.history.is_none();
    }

    /// Asks the index about every path whose finding needs it, in one `ls-files` and (for
    /// modified tracked files) one `diff-index`.
    fn ask_index(&self, targets: &[Vec<Target>], findings: &[Vec<Finding>]) -> IndexAnswers {
        let open = || {
            targets
                .iter()
                .flatten()
                .zip(findings.iter().flatten())
                .filter(|(_, finding)| {
                    matches!(finding, Finding::Missing | Finding::Touched { .. })
                })
        };
        let asked: Vec<&str> = open()
            .filter_map(|(target, _)| target.in_repo.as_deref())
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let top = match &self.repo {
            Some(repo) if !asked.is_empty() => &repo.tops[0],
            _ => {
                return IndexAnswers {
                    index: None,
                    staged: None,
                };
            }
        };
        let index = git::index(top, &asked);
        let touched: Vec<&str> = open()
            .filter(|(_, finding)| matches!(finding, Finding::Touched { .. }))
            .filter_map(|(target, _)| target.in_repo.as_deref())
            .filter(|rel| index.as_ref().is_some_and(|index| index.contains_key(*rel)))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let staged = if touched.is_empty() {
            Some(HashSet::new())
        } else {
            git::staged(top, &touched)
        };
        IndexAnswers { index, staged }
    }

    /// Each path resolved, once per shown name.
    fn targets(&self, paths: &[String]) -> Vec<Target> {
        let mut seen = HashSet::new();
        paths
            .iter()
            .filter_map(|path| self.resolve(path))
            .filter(|target| seen.insert(target.shown.clone()))
            .collect()
    }

    fn resolve(&self, path: &str) -> Option<Target> {
        if path.is_empty() {
            return None;
        }
        let given = Path::new(path);
        let file = if given.is_absolute() {
            normalize(given)
        } else {
            let at_root = normalize(&self.roots[0].join(given));
            // Prose names paths from the repository's top, which may be above the root.
            match &self.repo {
                Some(repo) if !at_root.exists() => {
                    let at_top = normalize(&repo.tops[0].join(given));
                    if at_top.exists() { at_top } else { at_root }
                }
                _ => at_root,
            }
        };
        // git's own files are not what a memory is about, and change on every command.
        if file.components().any(|c| c.as_os_str() == ".git") {
            return None;
        }
        let under_root = self
            .roots
            .iter()
            .find_map(|root| file.strip_prefix(root).ok())
            .map(slashed);
        let in_repo = self.repo.as_ref().and_then(|repo| {
            repo.tops
                .iter()
                .find_map(|top| file.strip_prefix(top).ok())
                .map(slashed)
        });
        // The root or the top itself is a folder, not a file a memory can be about.
        if under_root.as_deref() == Some("") || in_repo.as_deref() == Some("") {
            return None;
        }
        let shown = match (&under_root, &in_repo) {
            (Some(rel), _) => rel.clone(),
            (None, Some(rel)) if !given.is_absolute() => rel.clone(),
            _ => file.to_string_lossy().into_owned(),
        };
        Some(Target {
            shown,
            ours: under_root.is_some() || in_repo.is_some(),
            file,
            in_repo,
        })
    }
}

/// What the history (when there is one) and the file system say about `target` for a memory
/// written at `written_at`.
fn look(written_at: i64, target: &Target, history: Option<&git::History>) -> Finding {
    let meta = std::fs::metadata(&target.file).ok();
    // A folder's time changes with every file added to it: not a claim a memory makes.
    if meta.as_ref().is_some_and(Metadata::is_dir) {
        return Finding::Nothing;
    }
    let modified_after = meta
        .as_ref()
        .and_then(stat_of)
        .filter(|(at_ms, _)| *at_ms > written_at);
    if let (Some(rel), Some(history)) = (&target.in_repo, history) {
        if let Some(commit) = history.newest.get(rel)
            && commit.at_ms > written_at
        {
            return Finding::Found(match meta {
                None => Change::Deleted,
                Some(_) => Change::Changed {
                    at_ms: commit.at_ms,
                    how: How::Commit(commit.hash.clone()),
                },
            });
        }
        return match (meta, modified_after) {
            (None, _) => Finding::Missing,
            (Some(_), Some((at_ms, stat))) => Finding::Touched { at_ms, stat },
            (Some(_), None) => Finding::Nothing,
        };
    }
    match (meta, modified_after) {
        (None, _) if target.ours => Finding::Found(Change::Deleted),
        (Some(_), Some((at_ms, _))) => Finding::Found(Change::Changed {
            at_ms,
            how: How::Modified,
        }),
        _ => Finding::Nothing,
    }
}

/// What the index said about the paths that needed it; `None` where git could not be asked.
struct IndexAnswers {
    /// Tracked path → the stat git recorded for it.
    index: Option<HashMap<String, git::Stat>>,
    /// Tracked paths with changes staged against `HEAD`.
    staged: Option<HashSet<String>>,
}

impl IndexAnswers {
    /// A missing file is deleted when git still tracks it; without an answer, as outside git.
    fn missing(&self, rel: &str) -> Option<Change> {
        match &self.index {
            Some(index) if !index.contains_key(rel) => None,
            _ => Some(Change::Deleted),
        }
    }

    /// A file modified after its memory is an uncommitted edit unless git recorded it as it is
    /// and nothing of it is staged; without an answer, an edit.
    fn touched(&self, rel: &str, at_ms: i64, stat: git::Stat) -> Option<Change> {
        let as_git_wrote_it = self
            .index
            .as_ref()
            .and_then(|index| index.get(rel))
            .is_some_and(|recorded| recorded.matches(stat))
            && self
                .staged
                .as_ref()
                .is_some_and(|staged| !staged.contains(rel));
        (!as_git_wrote_it).then_some(Change::Changed {
            at_ms,
            how: How::Uncommitted,
        })
    }
}

/// A file's modification time in epoch milliseconds, and its stat as the index records one.
fn stat_of(meta: &Metadata) -> Option<(i64, git::Stat)> {
    let since_epoch = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    let at_ms = i64::try_from(since_epoch.as_millis()).ok()?;
    Some((
        at_ms,
        git::Stat {
            mtime_secs: since_epoch.as_secs(),
            mtime_nanos: since_epoch.subsec_nanos(),
            size: meta.len(),
        },
    ))
}

/// `dir`, and the same with symlinks resolved when that differs (`/tmp` → `/private/tmp`).
fn with_resolved(dir: PathBuf) -> Vec<PathBuf> {
    match std::fs::canonicalize(&dir) {
        Ok(resolved) if resolved != dir => vec![dir, resolved],
        _ => vec![dir],
    }
}

/// `.` and `..` resolved by the names alone, so `src/../src/a.rs` and `./src/a.rs` are
/// `src/a.rs`.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A relative path with `/` between its parts, as git and memories write it on every system.
fn slashed(rel: &Path) -> String {
    rel.components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests;
