//! `aletheia rules sync` and the uninstall that undoes it, through the real binary, against a
//! temporary HOME and a temporary git project with a sub-folder. What must hold: the rules land
//! in the rule files of the connected tools only, at the project root, inside a block that the
//! next sync replaces; nothing is written inside `.git`, into a sub-folder, or for a tool that
//! is not connected unless named; the user's text around the block is kept byte for byte; and
//! uninstall takes the block (or our own file) away again.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::Env;

const START: &str = "<!-- aletheia:rules:start -->";
const END: &str = "<!-- aletheia:rules:end -->";
const MDC: &str = ".cursor/rules/aletheia.mdc";

struct Setup {
    env: Env,
    project: PathBuf,
}

impl Setup {
    /// A project `shop` with an empty `.git/` (with one file in it) and a `src/` sub-folder.
    fn new() -> Setup {
        let env = Env::new();
        let project = env.dir.path().join("work/shop");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::write(project.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(project.join("src")).unwrap();
        Setup { env, project }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.env
            .cmd()
            .env("ALETHEIA_CWD", &self.project)
            .args(args)
            .output()
            .unwrap()
    }

    /// Run and require success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Claude Code and Cursor installed in the project, and two rules for it.
    fn connected_with_rules() -> Setup {
        let s = Setup::new();
        s.ok(&["install", "claude-code", "--project", "--write"]);
        s.ok(&["install", "cursor", "--project", "--write"]);
        s.ok(&["rules", "add", "Run the tests before you commit"]);
        s.ok(&[
            "rules",
            "add",
            "Ask before touching the ledger",
            "--scope-tier",
            "project",
            "--scope-name",
            "shop",
        ]);
        // Another project's rule, which shop's files must not show.
        s.ok(&[
            "rules",
            "add",
            "Invoices go out on the 1st",
            "--scope-tier",
            "project",
            "--scope-name",
            "billing",
        ]);
        s
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.project.join(rel)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// Every file under `rel` with its bytes.
    fn tree(&self, rel: &str) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.insert(path.clone(), std::fs::read(&path).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.path(rel), &mut out);
        out
    }
}

/// The block in `text`, markers included.
fn block(text: &str) -> &str {
    let start = text
        .find(START)
        .unwrap_or_else(|| panic!("no block in {text:?}"));
    let end = text[start..].find(END).unwrap() + start + END.len();
    &text[start..end]
}

#[test]
fn sync_writes_the_rules_into_the_connected_tools_files_only() {
    let s = Setup::connected_with_rules();
    let git = s.tree(".git");
    let out = s.ok(&["rules", "sync"]);
    assert_eq!(out.lines().count(), 2, "one line per file: {out}");
    assert!(
        out.contains("created") && out.contains("CLAUDE.md"),
        "{out}"
    );

    for rel in ["CLAUDE.md", MDC] {
        let b = block(&s.read(rel)).to_owned();
        assert!(
            b.contains("- Run the tests before you commit"),
            "{rel}: {b}"
        );
        assert!(b.contains("- Ask before touching the ledger"), "{rel}: {b}");
        assert!(!b.contains("Invoices"), "{rel} shows billing's rule: {b}");
        assert!(b.contains("aletheia rules sync"), "{rel}: {b}");
    }
    let claude = s.read("CLAUDE.md");
    assert!(
        claude.starts_with(START),
        "created with the block alone: {claude}"
    );
    let mdc = s.read(MDC);
    assert!(mdc.starts_with("---\n"), "{mdc}");
    assert!(mdc.contains("\nalwaysApply: true\n") && mdc.contains("\ndescription: "));

    assert_eq!(s.tree(".git"), git, "nothing written inside .git");
    assert!(s.tree("src").is_empty(), "nothing written in a sub-folder");
    for rel in ["AGENTS.md", "GEMINI.md", ".windsurf"] {
        assert!(
            !s.path(rel).exists(),
            "{rel} written for a tool not connected"
        );
    }
}

#[test]
fn the_users_text_is_kept_and_a_second_sync_writes_nothing() {
    let s = Setup::connected_with_rules();
    let before = "# Shop\r\n\r\nUse the staging database for experiments.\r\n";
    std::fs::write(s.path("CLAUDE.md"), before).unwrap();
    s.ok(&["rules", "sync"]);
    let synced = s.read("CLAUDE.md");
    assert!(synced.starts_with(before), "{synced:?}");
    assert!(synced.trim_end().ends_with(END), "{synced:?}");
    assert!(s.path("CLAUDE.md.aletheia-backup").exists());

    // Text the user adds after the block survives the next sync too.
    let edited = format!("{synced}\nMore of mine.\n");
    std::fs::write(s.path("CLAUDE.md"), &edited).unwrap();
    let stamp = |rel: &str| std::fs::metadata(s.path(rel)).unwrap().modified().unwrap();
    let (claude, mdc) = (stamp("CLAUDE.md"), stamp(MDC));
    let out = s.ok(&["rules", "sync"]);
    assert_eq!(out.matches("unchanged").count(), 2, "{out}");
    assert_eq!(s.read("CLAUDE.md"), edited);
    assert_eq!((stamp("CLAUDE.md"), stamp(MDC)), (claude, mdc), "rewritten");
}

#[test]
fn a_rule_disabled_or_added_changes_the_block() {
    let s = Setup::connected_with_rules();
    s.ok(&["rules", "sync"]);
    s.env
        .conn()
        .execute(
            "UPDATE rules SET enabled = 0 WHERE then_text = 'Ask before touching the ledger'",
            [],
        )
        .unwrap();
    s.ok(&["rules", "add", "Never push to main", "--when", "you push"]);
    let out = s.ok(&["rules", "sync"]);
    assert_eq!(out.matches("updated").count(), 2, "{out}");
    for rel in ["CLAUDE.md", MDC] {
        let text = s.read(rel);
        let b = block(&text);
        assert!(!b.contains("ledger"), "{rel}: {b}");
        assert!(
            b.contains("- When you push: Never push to main"),
            "{rel}: {b}"
        );
        assert_eq!(text.matches(START).count(), 1, "{rel}: {text}");
    }
}

#[test]
fn the_last_rule_disabled_removes_the_block_and_our_own_file() {
    let s = Setup::connected_with_rules();
    std::fs::write(s.path("CLAUDE.md"), "Mine.\n").unwrap();
    s.ok(&["rules", "sync"]);
    s.env
        .conn()
        .execute("UPDATE rules SET enabled = 0", [])
        .unwrap();
    let out = s.ok(&["rules", "sync"]);
    assert_eq!(out.matches("removed").count(), 2, "{out}");
    assert_eq!(s.read("CLAUDE.md"), "Mine.\n");
    assert!(!s.path(MDC).exists());
}

#[test]
fn a_tool_named_is_written_even_when_not_connected() {
    let s = Setup::connected_with_rules();
    let out = s.ok(&["rules", "sync", "--tool", "gemini"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(block(&s.read("GEMINI.md")).contains("- Run the tests before you commit"));
    assert!(!s.path("CLAUDE.md").exists(), "only the named tool's file");

    let bad = s.run(&["rules", "sync", "--tool", "vim"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown host \"vim\""));
}

#[test]
fn tools_sharing_agents_md_get_one_block() {
    let s = Setup::new();
    s.ok(&["install", "codex", "--project", "--write"]);
    s.ok(&["install", "opencode", "--project", "--write"]);
    s.ok(&["rules", "add", "Run the tests before you commit"]);
    let out = s.ok(&["rules", "sync"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("codex, opencode"), "{out}");
    assert_eq!(s.read("AGENTS.md").matches(START).count(), 1);

    // OpenCode still reads AGENTS.md, so uninstalling Codex keeps the rules there.
    s.ok(&["uninstall", "codex", "--project"]);
    assert!(s.read("AGENTS.md").contains(START));
    s.ok(&["uninstall", "opencode", "--project"]);
    assert!(!s.path("AGENTS.md").exists());
}

#[test]
fn uninstall_cursor_removes_its_rules_file() {
    let s = Setup::connected_with_rules();
    s.ok(&["rules", "sync"]);
    let out = s.ok(&["uninstall", "cursor", "--project"]);
    assert!(out.contains(MDC), "{out}");
    assert!(!s.path(MDC).exists());
    assert!(
        s.read("CLAUDE.md").contains(START),
        "Claude Code's block stays"
    );
}

#[test]
fn uninstall_claude_code_removes_the_block_and_keeps_the_users_text() {
    let s = Setup::connected_with_rules();
    let before = "# Shop\n\nUse the staging database for experiments.\n";
    std::fs::write(s.path("CLAUDE.md"), before).unwrap();
    s.ok(&["rules", "sync"]);
    s.ok(&["uninstall", "claude-code", "--project"]);
    assert_eq!(s.read("CLAUDE.md"), before);
    assert!(s.read(MDC).contains(START), "Cursor's file stays");
}

#[test]
fn with_no_tool_connected_nothing_is_written() {
    let s = Setup::new();
    s.ok(&["rules", "add", "Run the tests before you commit"]);
    let out = s.ok(&["rules", "sync"]);
    assert!(out.contains("No tool is connected"), "{out}");
    assert!(out.contains("nothing written"), "{out}");
    let names: Vec<_> = std::fs::read_dir(&s.project)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "only .git and src: {names:?}");
}

#[test]
fn run_from_a_sub_folder_it_writes_at_the_project_root() {
    let s = Setup::connected_with_rules();
    let out = s
        .env
        .cmd()
        .env("ALETHEIA_CWD", s.path("src"))
        .args(["rules", "sync"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(s.read("CLAUDE.md").contains(START));
    assert!(s.tree("src").is_empty());
}

#[test]
fn another_projects_rules_are_refused() {
    let s = Setup::connected_with_rules();
    let out = s.run(&["rules", "sync", "--project", "billing"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not \"billing\""));
    assert!(!s.path("CLAUDE.md").exists());
}

#[cfg(unix)]
#[test]
fn a_rule_file_linked_outside_the_project_or_into_git_is_refused() {
    let s = Setup::connected_with_rules();
    let outside = s.env.dir.path().join("work/CLAUDE.md");
    std::fs::write(&outside, "Shared notes.\n").unwrap();
    std::os::unix::fs::symlink(&outside, s.path("CLAUDE.md")).unwrap();
    std::os::unix::fs::symlink(s.path(".git"), s.path(".cursor/rules")).unwrap();
    let git = s.tree(".git");
    let out = s.ok(&["rules", "sync"]);
    assert_eq!(out.matches("skipped").count(), 2, "{out}");
    assert!(
        out.contains("outside the project") && out.contains("inside .git"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "Shared notes.\n"
    );
    assert_eq!(s.tree(".git"), git);
}
