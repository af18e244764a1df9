//! Embeds every host spec in `adapters/` and the built-in redaction rules in
//! `src/redact/rules/` into the binary, so adding a host or a secret shape is editing a data
//! file, and links the programs as fixed-address executables on Linux (see `link_without_pie`).
//!
//! Specs are written in TOML for people and embedded as JSON: the hook already parses its
//! payload with serde_json, so reading its adapter costs no TOML parser at every event (that
//! parser's code alone was a fifth of the hook's page faults), and a file that is not TOML
//! fails the build instead of a hook.

#![allow(
    clippy::unwrap_used,
    reason = "a build script fails by panicking, and cargo shows the panic with its line; what \
              is unwrapped is writes to a String, JSON from parsed TOML, OUT_DIR and the files \
              written into it"
)]

use std::fmt::Write;
use std::path::Path;

#[path = "build/redaction_rules.rs"]
mod redaction_rules;

fn main() {
    link_without_pie();
    commit();
    redaction_rules::generate();
    host_specs();
}

/// Each `adapters/<host>.toml` is the whole spec of one host. It is split here in two: the
/// capture part (how payloads become memories, what goes back to the host) for the hook, and
/// the install part (the name, config files, MCP entry, rules file) for everything else, so the
/// hook never parses what only install needs. A plugin a spec names is read into its spec.
fn host_specs() {
    let dir = manifest_dir().join("adapters");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("adapters/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut capture = String::from(
        "/// (host, capture part of its spec as JSON) for every file in adapters/.\npub static ADAPTER_FILES: &[(&str, &str)] = &[\n",
    );
    let mut specs = Vec::new();
    for f in files {
        println!("cargo:rerun-if-changed={}", f.display());
        let host = f.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut adapter: toml::Table =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut spec = toml::Table::new();
        spec.insert("host".into(), host.clone().into());
        for key in ["name", "install"] {
            let value = adapter
                .remove(key)
                .unwrap_or_else(|| panic!("{}: no `{key}`", f.display()));
            spec.insert(key.into(), value);
        }
        embed_plugins(&dir, &f, &mut spec);
        let order = spec["install"]
            .get("order")
            .and_then(toml::Value::as_integer)
            .unwrap_or_else(|| panic!("{}: no `install.order`", f.display()));
        let json = serde_json::to_string(&adapter).unwrap();
        writeln!(capture, "    ({host:?}, {json:?}),").unwrap();
        specs.push((order, host, serde_json::to_string(&spec).unwrap()));
    }
    capture.push_str("];\n");
    specs.sort();
    for pair in specs.windows(2) {
        assert!(
            pair[0].0 != pair[1].0,
            "adapters/{}.toml and adapters/{}.toml have the same install.order",
            pair[0].1,
            pair[1].1
        );
    }
    let mut install = String::from(
        "/// Every host, in the order lists show them (`install.order`).\npub const HOSTS: &[&str] = &[\n",
    );
    for (_, host, _) in &specs {
        writeln!(install, "    {host:?},").unwrap();
    }
    install.push_str(
        "];\n\n/// (host, its spec without the capture part, as JSON), in [`HOSTS`] order.\npub static SPEC_FILES: &[(&str, &str)] = &[\n",
    );
    for (_, host, json) in &specs {
        writeln!(install, "    ({host:?}, {json:?}),").unwrap();
    }
    install.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).to_path_buf();
    std::fs::write(out.join("adapters.rs"), capture).unwrap();
    std::fs::write(out.join("host_specs.rs"), install).unwrap();
}

/// A file of ours as a whole (`plugin = { source = "x.js", .. }`) gets its text as `contents`.
fn embed_plugins(dir: &Path, spec_file: &Path, spec: &mut toml::Table) {
    let files = spec
        .get_mut("install")
        .and_then(|i| i.get_mut("files"))
        .and_then(toml::Value::as_array_mut);
    for file in files.into_iter().flatten() {
        let Some(plugin) = file.get_mut("plugin").and_then(toml::Value::as_table_mut) else {
            continue;
        };
        let source = plugin
            .get("source")
            .and_then(toml::Value::as_str)
            .unwrap_or_else(|| panic!("{}: a plugin without `source`", spec_file.display()));
        let path = dir.join(source);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", spec_file.display(), path.display()));
        plugin.insert("contents".into(), text.into());
    }
}

/// The checkout being built, read when the script runs: `env!` would fix the folder the script
/// was compiled in, and a target folder copied to another checkout would go on reading that one.
fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .expect("cargo sets CARGO_MANIFEST_DIR")
        .into()
}

/// `ALETHEIA_COMMIT`: the commit the binary is built from, for `aletheia --version` and bug
/// reports: from git in a checkout of this repository, from `.cargo_vcs_info.json` in the
/// published crate, else `unknown`.
fn commit() {
    let root = &manifest_dir();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    // Only this repository's own checkout: the crate unpacked inside some other repository (a
    // home directory kept in git, say) must not report that repository's commit.
    let ours = git(&["rev-parse", "--show-toplevel"])
        .and_then(|top| Path::new(&top).canonicalize().ok())
        .is_some_and(|top| root.canonicalize().is_ok_and(|r| r == top));
    let commit = if ours {
        let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
        let dirty =
            git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        format!("{commit}{}", if dirty { ", modified" } else { "" })
    } else {
        packaged_commit(root).unwrap_or_else(|| "unknown".into())
    };
    println!("cargo:rustc-env=ALETHEIA_COMMIT={commit}");
    // A new commit moves HEAD or the branch it names, and an edit to a built file changes
    // "modified": any of these reruns this. Only paths that exist are named: cargo reruns a
    // build script at every build for a missing one.
    let mut watch = vec![
        Some("src".to_owned()),
        Some("Cargo.toml".to_owned()),
        Some(".cargo_vcs_info.json".to_owned()),
    ];
    if ours {
        watch.push(git(&["rev-parse", "--git-path", "HEAD"]));
        // Every commit appends to HEAD's log, also when the branch lives only in packed-refs.
        watch.push(git(&["rev-parse", "--git-path", "logs/HEAD"]));
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch.push(git(&["rev-parse", "--git-path", &branch]));
            watch.push(git(&["rev-parse", "--git-path", "packed-refs"]));
        }
    }
    for path in watch.into_iter().flatten() {
        let path = root.join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

/// The commit `cargo package` recorded in the published crate (`git.sha1`, and `git.dirty`
/// when the tree had changes).
fn packaged_commit(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join(".cargo_vcs_info.json")).ok()?;
    let info: serde_json::Value = serde_json::from_str(&text).ok()?;
    let sha = info["git"]["sha1"].as_str()?;
    let dirty = info["git"]["dirty"].as_bool() == Some(true);
    Some(format!(
        "{}{}",
        sha.get(..12)?,
        if dirty { ", modified" } else { "" }
    ))
}

/// The hook is a process started for every event, so what the loader does before `main` counts.
/// A position-independent executable makes the loader apply some 15,000 relocations to the
/// binary at every start; linked at a fixed address, it applies none (about 0.3 ms of a 3 ms
/// hook here). The code stays position-independent; only the final link changes.
fn link_without_pie() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg=-no-pie");
    }
}
