//! What ships beside the binary: the version line, shell completions and the manual pages, all
//! generated from the one command-line definition.

use crate::support;

use std::process::Command;
use support::Env;

#[test]
fn the_version_names_the_commit_and_the_store_schema() {
    let env = Env::new();
    let out = env.cmd().arg("--version").output().unwrap();
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let expected_start = format!("aletheia {} (commit ", env!("CARGO_PKG_VERSION"));
    assert!(line.starts_with(&expected_start), "{line}");
    // Built in this repository's own checkout, the commit is its HEAD (CI builds a clean clone;
    // a tree with edits says so after the commit); elsewhere it is the packaged crate's record.
    let root = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8(o.stdout).unwrap())
    };
    let ours = git(&["rev-parse", "--show-toplevel"]).is_some_and(|top| {
        std::path::Path::new(top.trim()).canonicalize().ok()
            == std::path::Path::new(root).canonicalize().ok()
    });
    if let Some(head) = git(&["rev-parse", "--short=12", "HEAD"]).filter(|_| ours) {
        assert!(
            line.starts_with(&format!("{expected_start}{}", head.trim())),
            "{line} is not built from HEAD {head}"
        );
    }
    let schema = aletheia::store::schema::CURRENT_VERSION;
    assert!(
        line.trim_end()
            .ends_with(&format!("store schema {schema})")),
        "{line}"
    );
}

#[test]
fn bash_loads_the_completions() {
    let env = Env::new();
    let out = env.cmd().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    let script = env.dir.path().join("aletheia.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let bash = Command::new("bash")
        .args(["--norc", "--noprofile", "-c"])
        .arg(format!(
            "source {} && complete -p aletheia",
            script.display()
        ))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&bash.stdout);
    assert!(
        bash.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&bash.stderr)
    );
    assert!(
        said.contains("_aletheia") && said.trim_end().ends_with(" aletheia"),
        "{said}"
    );
    for shell in ["zsh", "fish", "powershell"] {
        let out = env.cmd().args(["completions", shell]).output().unwrap();
        assert!(out.status.success() && out.stdout.len() > 100, "{shell}");
    }
}

#[test]
fn the_manual_pages_render_and_name_every_command() {
    let env = Env::new();
    let dir = env.dir.path().join("man1");
    let out = env.cmd().args(["man", "--dir"]).arg(&dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for page in ["aletheia.1", "aletheia-search.1", "aletheia-rules-add.1"] {
        let man = Command::new("man")
            .arg("-l")
            .arg(dir.join(page))
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&man.stdout);
        assert!(
            man.status.success() && text.contains("NAME"),
            "{page}: {text}"
        );
    }
    let top = env.cmd().arg("man").output().unwrap();
    assert!(
        top.stdout == std::fs::read(dir.join("aletheia.1")).unwrap(),
        "`aletheia man` prints another top page than `aletheia man --dir` writes"
    );
    let rendered = Command::new("man")
        .arg("-l")
        .arg(dir.join("aletheia.1"))
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&rendered.stdout);
    for heading in ["ENVIRONMENT", "FILES", "EXIT STATUS", "VERSION"] {
        assert!(
            text.lines().any(|l| l == heading),
            "the top page has no {heading} section: {text}"
        );
    }
    assert!(text.contains("ALETHEIA_SPOOL_MAX_MB"), "{text}");
    let roff = String::from_utf8(top.stdout).unwrap();
    for command in [
        "aletheia\\-search",
        "aletheia\\-server",
        "aletheia\\-completions",
    ] {
        assert!(
            roff.contains(command),
            "the top page does not list {command}"
        );
    }
}

/// The release archives ship `release/completions` and `release/man` as committed files; they must
/// be exactly what this binary prints, or a user's Tab would offer commands that no longer exist.
#[test]
fn the_shipped_completions_and_pages_match_the_binary() {
    let env = Env::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("release");
    let stale = "release/ is out of date: run scripts/release-files and commit the result";
    for (shell, file) in [
        ("bash", "aletheia.bash"),
        ("zsh", "_aletheia"),
        ("fish", "aletheia.fish"),
        ("powershell", "_aletheia.ps1"),
    ] {
        let out = env.cmd().args(["completions", shell]).output().unwrap();
        let shipped = std::fs::read(root.join("completions").join(file)).unwrap();
        assert!(out.stdout == shipped, "{file}: {stale}");
    }
    let dir = env.dir.path().join("man1");
    let out = env.cmd().args(["man", "--dir"]).arg(&dir).output().unwrap();
    assert!(out.status.success());
    let names = |d: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&dir), names(&root.join("man")), "{stale}");
    for page in names(&dir) {
        let made = std::fs::read(dir.join(&page)).unwrap();
        let shipped = std::fs::read(root.join("man").join(&page)).unwrap();
        assert!(made == shipped, "{page:?}: {stale}");
    }
}
