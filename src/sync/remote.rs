//! A project's identity across machines: its git remote's URL, normalised, so the same
//! repository cloned into differently named folders is one project on a hub, and two
//! unrelated repositories that share a folder name are two.
//!
//! `git@github.com:Acme/shop.git`, `https://user:tok@github.com/acme/shop/` and
//! `ssh://git@github.com:22/acme/shop` are all `github.com/acme/shop`: the user, password,
//! port and `.git` are dropped, the host is lower-cased (and the path too on hosts that ignore
//! its case). A linked worktree is `<remote>#<worktree folder>`, as its local key keeps it apart
//! from the main checkout. A project with no remote keeps its folder-name key as its identity.
//!
//! The remote is read from `.git/config` with a few lines of parsing rather than a git crate:
//! only `[remote "…"] url` is needed, and the hook that reads it must stay small.

use std::path::{Path, PathBuf};

/// Hosts whose paths are not case-sensitive.
const CASELESS_HOSTS: &[&str] = &["github.com", "gitlab.com", "bitbucket.org"];

/// The identity of the repository `cwd` is in, when it has a remote.
pub fn identity_of(cwd: &Path) -> Option<String> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let git = d.join(".git");
        if let Ok(meta) = std::fs::symlink_metadata(&git) {
            return if meta.is_dir() {
                remote_url(&git.join("config")).and_then(|u| normalise(&u))
            } else {
                let (common, worktree) = worktree_common_dir(&git)?;
                let id = normalise(&remote_url(&common.join("config"))?)?;
                if worktree {
                    Some(format!("{id}#{}", d.file_name()?.to_string_lossy()))
                } else {
                    Some(id)
                }
            };
        }
        dir = d.parent();
    }
    None
}

/// The git folder a `.git` file points to: a linked worktree's common folder (and `true`), or
/// a submodule's own folder (and `false`).
fn worktree_common_dir(git_file: &Path) -> Option<(PathBuf, bool)> {
    let gitdir = crate::project::gitdir_of(git_file)?;
    let parent = gitdir.parent()?;
    if parent.file_name()? == "worktrees" {
        Some((parent.parent()?.to_path_buf(), true))
    } else {
        Some((gitdir, false))
    }
}

/// The URL of the `origin` remote in a git config file, else of the first remote it names.
fn remote_url(config: &Path) -> Option<String> {
    let text = std::fs::read_to_string(config).ok()?;
    let mut section = String::new();
    let mut first = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_owned();
            continue;
        }
        let Some(remote) = section.strip_prefix("remote ") else {
            continue;
        };
        if let Some((k, v)) = line.split_once('=')
            && k.trim().eq_ignore_ascii_case("url")
        {
            let url = v.trim().trim_matches('"').to_owned();
            if remote.trim_matches('"') == "origin" {
                return Some(url);
            }
            first.get_or_insert(url);
        }
    }
    first
}

/// A remote URL as an identity: `host/path`, or `None` for text that names no repository.
pub fn normalise(url: &str) -> Option<String> {
    let url = url.trim();
    let (host, path) = if let Some((scheme, rest)) = url.split_once("://") {
        if scheme.eq_ignore_ascii_case("file") {
            ("", rest)
        } else {
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            // The port goes (ssh and https reach one repository on two); an IPv6 host keeps
            // its brackets.
            let host = match host.find(']') {
                Some(end) if host.starts_with('[') => &host[..=end],
                _ => host.split(':').next().unwrap_or(host),
            };
            (host, path)
        }
    } else if let Some((before, path)) = url.split_once(':')
        && !before.contains('/')
        && before.len() > 1
    {
        // scp-like: [user@]host:path (one letter before the colon is a Windows drive).
        (before.rsplit_once('@').map_or(before, |(_, h)| h), path)
    } else {
        ("", url)
    };
    let host = host.to_ascii_lowercase();
    let mut path: String = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/");
    if let Some(p) = path.strip_suffix(".git") {
        path = p.to_owned();
    }
    if path.is_empty() {
        return None;
    }
    if CASELESS_HOSTS.contains(&host.as_str()) {
        path = path.to_lowercase();
    }
    Some(if host.is_empty() {
        format!("file/{path}")
    } else {
        format!("{host}/{path}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_of_one_remote_are_one_identity() {
        for url in [
            "git@github.com:Acme/shop.git",
            "https://github.com/acme/shop",
            "https://user:ghp_secret@GitHub.com/acme/shop.git/",
            "ssh://git@github.com:22/acme/shop.git",
            "git://github.com/acme/shop",
        ] {
            assert_eq!(
                normalise(url).as_deref(),
                Some("github.com/acme/shop"),
                "{url}"
            );
        }
        assert_eq!(
            normalise("git@git.example.com:Team/Shop.git").as_deref(),
            Some("git.example.com/Team/Shop")
        );
        assert_ne!(
            normalise("git@github.com:acme/shop"),
            normalise("git@github.com:other/shop")
        );
        assert_eq!(
            normalise("/srv/git/shop.git").as_deref(),
            Some("file/srv/git/shop")
        );
        assert_eq!(normalise("https://github.com/"), None);
    }

    #[test]
    fn a_checkout_is_known_by_its_origin_and_a_worktree_apart() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("shop-clone");
        std::fs::create_dir_all(main.join(".git/worktrees/feature")).unwrap();
        std::fs::create_dir_all(main.join("src")).unwrap();
        std::fs::write(
            main.join(".git/config"),
            "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@github.com:up/shop.git\n[remote \"origin\"]\n\turl = https://github.com/acme/shop.git\n",
        )
        .unwrap();
        assert_eq!(
            identity_of(&main.join("src")).as_deref(),
            Some("github.com/acme/shop")
        );
        let wt = dir.path().join("feature");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!(
                "gitdir: {}\n",
                main.join(".git/worktrees/feature").display()
            ),
        )
        .unwrap();
        assert_eq!(
            identity_of(&wt).as_deref(),
            Some("github.com/acme/shop#feature")
        );
        let bare = dir.path().join("scratch");
        std::fs::create_dir_all(bare.join(".git")).unwrap();
        assert_eq!(identity_of(&bare), None);
    }
}
