//! The checker against real git repositories with fixed commit dates and file times.

use super::*;
use rstest::rstest;
use std::fs::File;
use std::process::Command;
use std::time::Duration;
use tempfile::TempDir;

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;
/// 2024-01-10T12:00:00Z, when each test's first commit is made.
const T0: i64 = 1_704_888_000_000;

/// A work tree in a temporary folder, driven by git with no system or user configuration.
struct Repo {
    tmp: TempDir,
    root: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("shop");
        std::fs::create_dir(&root).unwrap();
        let repo = Repo { tmp, root };
        repo.git(T0, &["init", "-q"]);
        repo
    }

    /// Runs git in the work tree with commits dated `at_ms`; its trimmed output.
    fn git(&self, at_ms: i64, args: &[&str]) -> String {
        self.git_in(&self.root, at_ms, args)
    }

    fn git_in(&self, dir: &Path, at_ms: i64, args: &[&str]) -> String {
        let date = format!("@{} +0000", at_ms / 1000);
        let out = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(["-c", "core.autocrlf=false"])
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env(
                "GIT_CONFIG_GLOBAL",
                self.tmp.path().join("no-such-gitconfig"),
            )
            .env("HOME", self.tmp.path())
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// Writes `text` to `path` and sets its modification time to `at_ms`.
    fn write(&self, path: &str, text: &str, at_ms: i64) {
        write_at(&self.root.join(path), text, at_ms);
    }

    /// Writes the files as edited at `at_ms` and commits them at that time; the commit's full
    /// hash.
    fn commit(&self, at_ms: i64, files: &[(&str, &str)]) -> String {
        for (path, text) in files {
            self.write(path, text, at_ms);
        }
        self.git(at_ms, &["add", "-A"]);
        self.git(at_ms, &["commit", "-q", "-m", "change"]);
        self.git(at_ms, &["rev-parse", "HEAD"])
    }

    fn abs(&self, path: &str) -> String {
        self.root.join(path).to_string_lossy().into_owned()
    }
}

fn write_at(path: &Path, text: &str, at_ms: i64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    set_mtime(path, at_ms);
}

fn set_mtime(path: &Path, at_ms: i64) {
    let at = UNIX_EPOCH + Duration::from_millis(u64::try_from(at_ms).unwrap());
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

fn paths(list: &[&str]) -> Vec<String> {
    list.iter().map(|p| (*p).to_owned()).collect()
}

/// The drift's commit hash, checked to abbreviate `full` (the abbreviation length is the
/// machine's git configuration).
fn committed(drift: &Drift, full: &str) -> i64 {
    let Change::Changed {
        at_ms,
        how: How::Commit(hash),
    } = &drift.change
    else {
        panic!("not a commit: {drift:?}");
    };
    assert!(
        hash.len() >= 4 && full.starts_with(hash.as_str()),
        "{hash} {full}"
    );
    *at_ms
}

fn deleted(path: &str) -> Drift {
    Drift {
        path: path.to_owned(),
        change: Change::Deleted,
    }
}

fn changed(path: &str, at_ms: i64, how: How) -> Drift {
    Drift {
        path: path.to_owned(),
        change: Change::Changed { at_ms, how },
    }
}

#[test]
fn a_file_unchanged_since_the_memory_is_not_stale() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1")]);
    let mut checker = Checker::new(&repo.root);
    let written = T0 + HOUR;
    let names = [repo.abs("src/checkout.rs"), "src/checkout.rs".to_owned()];
    assert_eq!(checker.check(written, &names), []);
}

#[test]
fn a_commit_after_the_memory_is_reported_with_its_time_and_hash() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1"), ("src/cart.rs", "v1")]);
    let written = T0 + HOUR;
    let hash = repo.commit(written + 2 * DAY, &[("src/checkout.rs", "v2")]);
    let mut checker = Checker::new(&repo.root);
    let names = [
        repo.abs("src/checkout.rs"),
        "src/cart.rs".to_owned(),
        "./src/checkout.rs".to_owned(),
    ];
    let found = checker.check(written, &names);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "src/checkout.rs");
    assert_eq!(committed(&found[0], &hash), written + 2 * DAY);
    assert_eq!(
        found[0].describe(written),
        "src/checkout.rs changed 2 days later"
    );
    // A memory written after that commit saw the new version.
    assert_eq!(checker.check(written + 3 * DAY, &names), []);
}

#[test]
fn a_deleted_file_is_reported_whether_or_not_the_deletion_is_committed() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/old.rs", "v1"), ("src/gone.rs", "v1")]);
    repo.git(T0 + DAY, &["rm", "-q", "src/old.rs"]);
    repo.git(T0 + DAY, &["commit", "-q", "-m", "drop old"]);
    std::fs::remove_file(repo.root.join("src/gone.rs")).unwrap();
    let mut checker = Checker::new(&repo.root);
    let names = paths(&["src/old.rs", "src/gone.rs"]);
    assert_eq!(
        checker.check(T0 + HOUR, &names),
        [deleted("src/old.rs"), deleted("src/gone.rs")]
    );
    assert_eq!(deleted("src/old.rs").describe(T0), "src/old.rs was deleted");
    // Written after the committed deletion, the memory named a file already gone; the other
    // is still tracked, so its deletion is still to come.
    assert_eq!(
        checker.check(T0 + 2 * DAY, &names),
        [deleted("src/gone.rs")]
    );
}

#[test]
fn a_path_the_repository_never_had_is_not_called_deleted() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1")]);
    let mut checker = Checker::new(&repo.root);
    let names = paths(&["checkout.rs", "src/nothing.rs", "/no/such/place.rs"]);
    assert_eq!(checker.check(T0 + HOUR, &names), []);
}

#[test]
fn an_uncommitted_edit_is_reported_at_its_modification_time() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1"), ("src/cart.rs", "v1")]);
    let written = T0 + HOUR;
    repo.write("src/checkout.rs", "v2, longer", written + 3 * HOUR);
    // Staged: the index now records the new file as it is, but it differs from HEAD.
    repo.write("src/cart.rs", "v2, longer", written + 4 * HOUR);
    repo.git(T0, &["add", "src/cart.rs"]);
    // Never committed at all.
    repo.write("notes/plan.md", "draft", written + 5 * HOUR);
    let mut checker = Checker::new(&repo.root);
    let found = checker.check(
        written,
        &paths(&["src/checkout.rs", "src/cart.rs", "notes/plan.md"]),
    );
    assert_eq!(
        found,
        [
            changed("src/checkout.rs", written + 3 * HOUR, How::Uncommitted),
            changed("src/cart.rs", written + 4 * HOUR, How::Uncommitted),
            changed("notes/plan.md", written + 5 * HOUR, How::Uncommitted),
        ]
    );
    assert_eq!(
        found[0].describe(written),
        "src/checkout.rs changed 3 hours later (uncommitted)"
    );
    // Edited before the memory: the memory saw the edit.
    assert_eq!(
        checker.check(written + DAY, &paths(&["src/checkout.rs"])),
        []
    );
}

#[test]
fn a_file_git_wrote_is_not_an_uncommitted_edit() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1"), ("src/cart.rs", "v1")]);
    // A fresh clone: every file written now, long after the memory.
    let clone = repo.tmp.path().join("clone");
    repo.git_in(
        repo.tmp.path(),
        T0,
        &["clone", "-q", repo.root.to_str().unwrap(), "clone"],
    );
    let written = T0 + HOUR;
    let mut checker = Checker::new(&clone);
    let names = paths(&["src/checkout.rs", "src/cart.rs"]);
    assert_eq!(checker.check(written, &names), []);
    // An edit in the clone is one.
    let edited_at = crate::time::now_ms() + MINUTE;
    write_at(&clone.join("src/cart.rs"), "v2", edited_at);
    assert_eq!(
        Checker::new(&clone).check(written, &names),
        [changed("src/cart.rs", edited_at, How::Uncommitted)]
    );
}

#[test]
fn a_merge_dates_a_change_when_it_reached_the_branch() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1"), ("src/cart.rs", "v1")]);
    repo.git(T0, &["checkout", "-q", "-b", "side"]);
    repo.commit(T0 + HOUR, &[("src/checkout.rs", "v2")]);
    repo.git(T0, &["checkout", "-q", "main"]);
    repo.commit(T0 + 2 * HOUR, &[("src/cart.rs", "v2")]);
    let written = T0 + 3 * HOUR;
    repo.git(
        written + DAY,
        &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
    );
    let merge = repo.git(T0, &["rev-parse", "HEAD"]);
    let mut checker = Checker::new(&repo.root);
    let found = checker.check(written, &paths(&["src/checkout.rs", "src/cart.rs"]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "src/checkout.rs");
    assert_eq!(committed(&found[0], &merge), written + DAY);
}

#[test]
fn an_older_memory_reaches_further_back_in_the_history() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1")]);
    let hash = repo.commit(T0 + 2 * DAY, &[("src/checkout.rs", "v2")]);
    let names = paths(&["src/checkout.rs"]);
    let mut checker = Checker::new(&repo.root);
    assert_eq!(checker.check(T0 + 3 * DAY, &names), []);
    let found = checker.check(T0 + HOUR, &names);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(committed(&found[0], &hash), T0 + 2 * DAY);

    let newest_first: [(i64, &[String]); 2] = [(T0 + 3 * DAY, &names), (T0 + HOUR, &names)];
    let found = Checker::new(&repo.root).check_many(&newest_first);
    assert_eq!(found[0], []);
    assert_eq!(committed(&found[1][0], &hash), T0 + 2 * DAY);
}

#[test]
fn paths_resolve_from_the_root_or_from_the_top_above_it() {
    let repo = Repo::new();
    repo.commit(T0, &[("crates/core/src/lib.rs", "v1"), ("README.md", "v1")]);
    let written = T0 + HOUR;
    repo.commit(
        written + DAY,
        &[("crates/core/src/lib.rs", "v2"), ("README.md", "v2")],
    );
    let mut checker = Checker::new(&repo.root.join("crates/core"));
    let found = checker.check(
        written,
        &paths(&[
            "src/lib.rs",
            "crates/core/src/lib.rs",
            "README.md",
            "crates/core",
        ]),
    );
    let shown: Vec<&str> = found.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(shown, ["src/lib.rs", "README.md"]);
}

#[test]
fn a_file_outside_the_project_is_checked_only_while_it_exists() {
    let repo = Repo::new();
    repo.commit(T0, &[("src/checkout.rs", "v1")]);
    let elsewhere = tempfile::tempdir().unwrap();
    let before = elsewhere.path().join("before.txt");
    let after = elsewhere.path().join("after.txt");
    let written = T0 + HOUR;
    write_at(&before, "x", written - MINUTE);
    write_at(&after, "x", written + 2 * HOUR);
    let gone = elsewhere.path().join("gone.txt");
    let names: Vec<String> = [&before, &after, &gone]
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let found = Checker::new(&repo.root).check(written, &names);
    assert_eq!(
        found,
        [changed(&names[1], written + 2 * HOUR, How::Modified)]
    );
}

#[test]
fn outside_git_the_modification_time_decides() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("notes");
    let written = T0 + HOUR;
    write_at(&root.join("plan.md"), "x", written - MINUTE);
    write_at(&root.join("todo.md"), "x", written + 3 * HOUR);
    std::fs::create_dir_all(root.join("drafts")).unwrap();
    let mut checker = Checker::new(&root);
    let found = checker.check(
        written,
        &paths(&["plan.md", "todo.md", "gone.md", "drafts"]),
    );
    assert_eq!(
        found,
        [
            changed("todo.md", written + 3 * HOUR, How::Modified),
            deleted("gone.md"),
        ]
    );
    assert_eq!(found[0].describe(written), "todo.md changed 3 hours later");
}

#[test]
fn a_repository_git_cannot_list_falls_back_to_modification_times() {
    // No commit yet: `git log` fails.
    let repo = Repo::new();
    let written = T0 + HOUR;
    repo.write("src/new.rs", "x", written + 2 * MINUTE);
    repo.write("src/old.rs", "x", written - 2 * MINUTE);
    let mut checker = Checker::new(&repo.root);
    let found = checker.check(
        written,
        &paths(&["src/new.rs", "src/old.rs", "src/gone.rs"]),
    );
    assert_eq!(
        found,
        [
            changed("src/new.rs", written + 2 * MINUTE, How::Modified),
            deleted("src/gone.rs"),
        ]
    );
}

#[rstest]
#[case::moments(20_000, How::Commit("abc1234".into()), "src/a.rs changed moments later")]
#[case::minute(MINUTE, How::Modified, "src/a.rs changed 1 minute later")]
#[case::hours(5 * HOUR + 59 * MINUTE, How::Uncommitted, "src/a.rs changed 5 hours later (uncommitted)")]
#[case::days(2 * DAY, How::Commit("abc1234".into()), "src/a.rs changed 2 days later")]
#[case::clock_moved_back(-HOUR, How::Modified, "src/a.rs changed moments later")]
fn a_change_says_how_much_later(#[case] gap: i64, #[case] how: How, #[case] said: &str) {
    assert_eq!(changed("src/a.rs", T0 + gap, how).describe(T0), said);
}

#[test]
fn paths_are_resolved_by_name() {
    assert_eq!(
        normalize(Path::new("/a/./b/../c/d.rs")),
        PathBuf::from("/a/c/d.rs")
    );
    assert_eq!(slashed(Path::new("src/a/b.rs")), "src/a/b.rs");
}
