//! The project key: which project a memory belongs to.
//!
//! From a working directory, walk up to the git root and use its folder name; a linked git
//! worktree becomes `parent/worktree` so its memories stay apart from the main checkout's but
//! still sort beside them; with no git folder at all, the folder's own name. The walk only reads
//! a `.git` entry per level, so it costs microseconds on the hook path.

use std::path::{Path, PathBuf};

/// The project key for `cwd`.
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
    let text = std::fs::read_to_string(git_file).ok()?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = if Path::new(gitdir).is_absolute() {
        PathBuf::from(gitdir)
    } else {
        git_file.parent()?.join(gitdir)
    };
    let worktrees = gitdir.parent()?;
    if worktrees.file_name()? != "worktrees" {
        return None;
    }
    let dot_git = worktrees.parent()?;
    Some(dot_git.parent()?.to_path_buf())
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
    fn no_git_uses_the_folder_name() {
        assert_eq!(
            project_key(Path::new("/nonexistent-aletheia/home/dev/shop")),
            "shop"
        );
        assert_eq!(project_key(Path::new("/")), "default");
    }
}
