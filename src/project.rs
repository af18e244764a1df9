//! The project key: which project a memory belongs to.
//!
//! From a working directory, walk up to the git root and use its folder name; a linked git
//! worktree becomes `parent/worktree` so its memories stay apart from the main checkout's but
//! still sort beside them; with no git folder at all, the folder's own name. The walk only reads
//! a `.git` entry per level, so it costs microseconds on the hook path.
//!
//! A key is stored in every table and shown on every page, so it is held to what any other
//! stored text is: at most [`MAX_CHARS`] characters, no control characters, and redacted. A
//! name someone typed (`--project`, an MCP or REST `project`, an import record) that breaks the
//! first two is refused with [`check`]; a name read from a folder cannot be refused without
//! losing the host's event, so it is made to fit instead. Both go through [`stored_key`], which
//! every stored type's redaction calls and every lookup uses, so a folder named after a token
//! is kept (and found) as `[redacted:github-token]` like the token anywhere else.

use crate::redact::Redactor;
use std::path::{Path, PathBuf};

/// The longest project key, in characters.
pub const MAX_CHARS: usize = 200;

/// Why a project name given as input is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadProjectName {
    #[error("project name is {} characters: use at most {MAX_CHARS}", thousands(*.0))]
    TooLong(usize),
    #[error("project name has a control character (U+{:04X}): use printable characters", u32::from(*.0))]
    Control(char),
}

/// Refuse a project name someone gave that is too long or holds a control character.
pub fn check(name: &str) -> Result<(), BadProjectName> {
    let chars = name.chars().count();
    if chars > MAX_CHARS {
        return Err(BadProjectName::TooLong(chars));
    }
    match name.chars().find(|c| c.is_control()) {
        Some(c) => Err(BadProjectName::Control(c)),
        None => Ok(()),
    }
}

/// Longer names are cut to this before redaction: no folder name is longer (file systems allow
/// 255 bytes, a worktree's key is two of them), only a payload's made-up `cwd` could be, and
/// redacting it whole would cost the hook its time.
const RAW_MAX_CHARS: usize = 1024;

/// The key as it is stored and looked up: redacted, each control character made `_`, and cut
/// to [`MAX_CHARS`] characters (without a mark, so the same cut name typed as `--project`
/// finds it). The cut comes after redaction, as a title's does, so it never leaves a piece of
/// a secret that the rules no longer recognise. Redaction can lengthen a name (`pwd=x` becomes
/// `pwd=[redacted]`) and a cut or a `_` can leave text a rule now matches, so this repeats
/// until the key no longer changes: the stored key of a stored key is itself.
pub fn stored_key(name: &str, r: &Redactor) -> String {
    let mut key = cut(name, RAW_MAX_CHARS);
    // Each round only cuts a key at its cap or replaces a secret by a marker; two are enough
    // for any name, the bound guards against a rule that breaks that.
    for _ in 0..4 {
        let next = cut(&r.redact(&key), MAX_CHARS)
            .chars()
            .map(|c| if c.is_control() { '_' } else { c })
            .collect();
        if next == key {
            break;
        }
        key = next;
    }
    key
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

/// `n` with a comma between each group of three digits, as the error says a length.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The project key for `cwd`, as the folder names it: [`stored_key`] makes it fit and redacts it.
pub fn project_key(cwd: &Path) -> String {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let git = d.join(".git");
        if let Ok(meta) = std::fs::symlink_metadata(&git) {
            if meta.is_file()
                && let Some(main) = worktree_main_root(&git)
            {
                return format!("{}/{}", folder_name(&main), folder_name(d));
            }
            return folder_name(d);
        }
        dir = d.parent();
    }
    folder_name(cwd)
}

/// For a `.git` file of a linked worktree (`gitdir: <main>/.git/worktrees/<name>`), the main
/// checkout's root. Submodules also have a `.git` file, pointing into `.git/modules/`: those are
/// projects of their own, so they return `None`.
fn worktree_main_root(git_file: &Path) -> Option<PathBuf> {
    let gitdir = gitdir_of(git_file)?;
    let worktrees = gitdir.parent()?;
    if worktrees.file_name()? != "worktrees" {
        return None;
    }
    let dot_git = worktrees.parent()?;
    Some(dot_git.parent()?.to_path_buf())
}

/// The folder a `.git` file points to (`gitdir: …`, relative to the file's folder or not).
pub fn gitdir_of(git_file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(git_file).ok()?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    Some(if Path::new(gitdir).is_absolute() {
        PathBuf::from(gitdir)
    } else {
        git_file.parent()?.join(gitdir)
    })
}

fn folder_name(dir: &Path) -> String {
    match dir.file_name() {
        Some(name) => name.to_string_lossy().into_owned(),
        None => "default".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_root_names_the_project_from_any_subfolder() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("shop");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        assert_eq!(project_key(&root.join("src/deep")), "shop");
        assert_eq!(project_key(&root), "shop");
    }

    #[test]
    fn a_worktree_is_parent_slash_worktree() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("shop");
        std::fs::create_dir_all(main.join(".git/worktrees/feat-x")).unwrap();
        let wt = tmp.path().join("feat-x");
        std::fs::create_dir_all(wt.join("src")).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/feat-x").display()),
        )
        .unwrap();
        assert_eq!(project_key(&wt.join("src")), "shop/feat-x");
    }

    #[test]
    fn a_submodule_is_its_own_project() {
        let tmp = tempfile::tempdir().unwrap();
        let sub = tmp.path().join("shop/vendor/lib");
        std::fs::create_dir_all(tmp.path().join("shop/.git/modules/lib")).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(".git"), "gitdir: ../../.git/modules/lib\n").unwrap();
        assert_eq!(project_key(&sub), "lib");
    }

    #[test]
    fn a_name_too_long_or_with_a_control_character_is_refused_in_one_line() {
        assert_eq!(
            check(&"a".repeat(3_500_000)).unwrap_err().to_string(),
            "project name is 3,500,000 characters: use at most 200"
        );
        assert_eq!(
            check("shop\nx").unwrap_err().to_string(),
            "project name has a control character (U+000A): use printable characters"
        );
        assert!(
            check(&"é".repeat(MAX_CHARS)).is_ok(),
            "characters, not bytes"
        );
        assert!(check(&"a".repeat(MAX_CHARS + 1)).is_err());
        assert!(check("shop/feat-x").is_ok());
    }

    #[test]
    fn a_folder_name_is_made_to_fit_not_refused() {
        let long = "b".repeat(250);
        let dir = PathBuf::from(format!("/nonexistent-aletheia/x\u{1b}[31m{long}"));
        let key = stored_key(&project_key(&dir), &Redactor::builtin());
        assert_eq!(key.chars().count(), MAX_CHARS);
        assert!(key.starts_with("x_[31mbbb"), "{key}");
        assert!(check(&key).is_ok());
    }

    #[test]
    fn a_stored_key_is_redacted_and_fits() {
        let r = Redactor::builtin();
        let token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB";
        assert_eq!(stored_key(token, &r), "[redacted:github-token]");
        assert_eq!(
            stored_key(&format!("acme/{token}"), &r),
            "acme/[redacted:github-token]"
        );
        assert_eq!(stored_key("shop", &r), "shop");
        // A cut that fell inside the token would have kept most of it in clear.
        let long = format!("{}{token}", "a ".repeat(95));
        let key = stored_key(&long, &r);
        assert!(
            key.chars().count() <= MAX_CHARS && !key.contains("ghp_12"),
            "{key}"
        );
        assert_eq!(stored_key(&key, &r), key, "a stored key is stored as it is");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(200), "200");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(3_500_000), "3,500,000");
    }

    #[test]
    fn no_git_uses_the_folder_name() {
        assert_eq!(
            project_key(Path::new("/nonexistent-aletheia/home/dev/shop")),
            "shop"
        );
        assert_eq!(project_key(Path::new("/")), "default");
    }
}
