//! `connect`, `install` and `uninstall` through the real binary, against a temporary HOME and
//! a temporary project folder holding configuration files the user already had: comments,
//! other hooks, other MCP servers, odd TOML formatting. What must hold for every host with an
//! adapter: the entries land where the host reads them, the file still parses in the host's
//! format, a second install changes no byte, uninstall gives back the user's file byte for byte,
//! a backup is kept, and a file that does not parse is never touched. Where the user had no
//! file, install creates it with no backup, and uninstall leaves nothing of it behind.

use crate::support;

use aletheia::capture::adapter;
use aletheia::install::{Scope, Setting, created, spec, status};
use rstest::rstest;
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{Env, fixtures};

struct Setup {
    env: Env,
    project: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let env = Env::new();
        let project = env.dir.path().join("work/shop");
        std::fs::create_dir_all(&project).unwrap();
        Setup { env, project }
    }

    fn home(&self) -> &Path {
        self.env.dir.path()
    }

    /// Where a scope's files live.
    fn root(&self, project: bool) -> &Path {
        if project { &self.project } else { self.home() }
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
}

/// The binary as the MCP entries must name it: absolute, links resolved.
fn exe() -> String {
    let path = assert_cmd::cargo::cargo_bin("aletheia");
    std::fs::canonicalize(path).unwrap().display().to_string()
}

/// The binary as the hook commands and plugins must name it: the lean hook binary the build
/// puts beside `aletheia`.
fn hook_exe() -> String {
    let path = assert_cmd::cargo::cargo_bin("aletheia-hook");
    std::fs::canonicalize(path).unwrap().display().to_string()
}

/// A host's files in one scope, relative to HOME or the project: where the hooks go (and
/// whether they nest in matcher groups), where the MCP entry goes (and at which JSON pointer,
/// or TOML), and OpenCode's plugin.
struct Layout {
    hooks: Option<&'static str>,
    mcp: Option<(&'static str, &'static str)>,
    plugin: Option<&'static str>,
}

fn layout(host: &str, project: bool) -> Layout {
    let (hooks, mcp, plugin) = match (host, project) {
        ("claude-code", false) => (
            Some(".claude/settings.json"),
            Some((".claude.json", "/mcpServers/aletheia/command")),
            None,
        ),
        ("claude-code", true) => (
            Some(".claude/settings.json"),
            Some((".mcp.json", "/mcpServers/aletheia/command")),
            None,
        ),
        ("cursor", _) => (
            Some(".cursor/hooks.json"),
            Some((".cursor/mcp.json", "/mcpServers/aletheia/command")),
            None,
        ),
        ("codex", _) => (
            Some(".codex/hooks.json"),
            Some((".codex/config.toml", "toml")),
            None,
        ),
        ("gemini", _) => (
            Some(".gemini/settings.json"),
            Some((".gemini/settings.json", "/mcpServers/aletheia/command")),
            None,
        ),
        ("windsurf", false) => (
            Some(".codeium/windsurf/hooks.json"),
            Some((
                ".codeium/windsurf/mcp_config.json",
                "/mcpServers/aletheia/command",
            )),
            None,
        ),
        // Windsurf has no project MCP file.
        ("windsurf", true) => (Some(".windsurf/hooks.json"), None, None),
        ("opencode", false) => (
            None,
            Some((".config/opencode/opencode.json", "/mcp/aletheia/command/0")),
            Some(".config/opencode/plugins/aletheia.js"),
        ),
        ("opencode", true) => (
            None,
            Some(("opencode.json", "/mcp/aletheia/command/0")),
            Some(".opencode/plugins/aletheia.js"),
        ),
        ("command-code", false) => (
            Some(".commandcode/settings.json"),
            Some((".commandcode/mcp.json", "/mcpServers/aletheia/command")),
            None,
        ),
        ("command-code", true) => (
            Some(".commandcode/settings.json"),
            Some((".mcp.json", "/mcpServers/aletheia/command")),
            None,
        ),
        _ => unreachable!("{host}"),
    };
    Layout { hooks, mcp, plugin }
}

/// What a user already had in each file: realistic content with comments where the host reads
/// JSONC, other hooks in the events we add to, other MCP servers, and TOML written by hand.
fn original(file: &str) -> &'static str {
    match file {
        // Claude Code reads strict JSON.
        ".claude/settings.json" => {
            r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [{ "type": "command", "command": "npx prettier --write \"$CLAUDE_FILE_PATHS\"" }]
      }
    ]
  },
  "model": "opus"
}
"#
        }
        ".claude.json" => {
            r#"{
  "numStartups": 42,
  "theme": "dark",
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {}
    }
  },
  "projects": {
    "/home/dev/shop": { "allowedTools": [], "hasTrustDialogAccepted": true }
  }
}
"#
        }
        ".mcp.json" => {
            r#"{
  "mcpServers": {
    "postgres": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/shop"] }
  }
}
"#
        }
        ".cursor/hooks.json" => {
            r#"{
  // Team hooks: keep the formatter first.
  "version": 1,
  "hooks": {
    "afterFileEdit": [{ "command": "./hooks/format.sh" }], // runs on every edit
    "stop": [
      { "command": "./hooks/notify.sh", "timeout": 5 },
    ],
  },
}
"#
        }
        ".cursor/mcp.json" => {
            r#"{
  /* Servers shared by the team. */
  "mcpServers": {
    "linear": { "url": "https://mcp.linear.app/sse" }, // needs login
  }
}
"#
        }
        ".codex/hooks.json" => {
            r#"{
  "hooks": {
    "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]
  }
}
"#
        }
        ".codex/config.toml" => {
            r#"# Codex settings, by hand.
model = "gpt-5-codex"     # the default model
approval_policy="on-request"

[mcp_servers.github]   # GitHub tools
command="npx"
args = [ "-y",   "@modelcontextprotocol/server-github" ]
  [mcp_servers.github.env]
  GITHUB_TOKEN_ENV="GH_TOKEN"

[profiles.fast]
model = "gpt-5-mini"

# trailing notes stay too
"#
        }
        ".gemini/settings.json" => {
            r#"{
  // Gemini CLI reads comments here.
  "theme": "GitHub",
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [{ "name": "lint", "type": "command", "command": "./lint.sh", "timeout": 5000 }]
      }
    ]
  },
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] }
  }
}
"#
        }
        ".codeium/windsurf/hooks.json" | ".windsurf/hooks.json" => {
            r#"{
  "hooks": {
    // Block secrets before they are written.
    "pre_write_code": [{ "command": "python3 ~/guard.py", "show_output": true }]
  }
}
"#
        }
        ".codeium/windsurf/mcp_config.json" => {
            r#"{
  "mcpServers": {
    "browser": { "serverUrl": "http://localhost:3000/mcp" }
  }
}
"#
        }
        ".config/opencode/opencode.json" | "opencode.json" => {
            r#"{
  "$schema": "https://opencode.ai/config.json",
  // A local model for quick questions.
  "model": "anthropic/claude-sonnet-4",
  "mcp": {
    "docs": { "type": "remote", "url": "https://docs.example.com/mcp", "enabled": true }
  }
}
"#
        }
        ".commandcode/settings.json" => {
            r#"{
  "hooks": {
    "PreToolUse": [
      { "matcher": "SHELL", "hooks": [{ "type": "command", "command": "./check-shell.sh", "timeout": 30 }] }
    ]
  }
}
"#
        }
        ".commandcode/mcp.json" => {
            r#"{
  "mcpServers": {
    "sentry": { "transport": "http", "url": "https://mcp.sentry.dev/mcp" }
  }
}
"#
        }
        other => panic!("no original for {other}"),
    }
}

/// The host's files, each with the contents the test wrote first.
fn write_originals(s: &Setup, host: &str, project: bool) -> Vec<(PathBuf, &'static str)> {
    let l = layout(host, project);
    let mut files: Vec<&str> = l.hooks.into_iter().chain(l.mcp.map(|m| m.0)).collect();
    files.dedup();
    files
        .into_iter()
        .map(|rel| {
            let path = s.root(project).join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, original(rel)).unwrap();
            (path, original(rel))
        })
        .collect()
}

fn parse_jsonc(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.trim_start_matches('\u{feff}');
    jsonc_parser::cst::CstRootNode::parse(text, &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_serde_value()
        .unwrap()
}

/// Every string anywhere inside `v`.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Every file below `dir`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[rstest]
fn install_twice_then_uninstall_gives_back_the_users_files(
    #[values(
        "claude-code",
        "cursor",
        "codex",
        "gemini",
        "windsurf",
        "opencode",
        "command-code"
    )]
    host: &str,
    #[values(false, true)] project: bool,
) {
    let adapter = adapter::load(host)
        .unwrap_or_else(|| panic!("{host} has no adapter"))
        .unwrap();
    let s = Setup::new();
    let originals = write_originals(&s, host, project);
    let scope: &[&str] = if project { &["--project"] } else { &[] };
    let args = |cmd: &'static str| [&[cmd, host][..], scope].concat();

    // The dry runs write nothing.
    let before = snapshot(s.home());
    let shown = s.ok(&args("connect"));
    assert!(shown.contains(&exe()), "{shown}");
    let shown = s.ok(&args("install"));
    assert!(shown.contains("add --write"), "{shown}");
    assert_eq!(snapshot(s.home()), before, "a dry run wrote something");

    let out = s.ok(&[args("install"), vec!["--write"]].concat());
    assert!(out.contains("installed"), "{out}");
    let l = layout(host, project);
    let root = s.root(project);

    if let Some(hooks) = l.hooks {
        let v = parse_jsonc(&root.join(hooks));
        for event in adapter.events.keys() {
            let mut commands = Vec::new();
            strings(&v["hooks"][event], &mut commands);
            let want = format!("{} hook {host} {event}", hook_exe());
            assert_eq!(
                commands.iter().filter(|c| **c == want).count(),
                1,
                "{hooks}: {event}: {commands:?}"
            );
        }
        if host == "gemini" {
            // Gemini CLI counts in milliseconds.
            let group = &v["hooks"]["SessionStart"][0]["hooks"][0];
            assert_eq!(group["timeout"], 10_000, "{group}");
        }
    }
    match l.mcp {
        Some((file, "toml")) => {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            let doc: toml_edit::DocumentMut = text.parse().unwrap();
            let entry = &doc["mcp_servers"]["aletheia"];
            assert_eq!(entry["command"].as_str(), Some(exe().as_str()), "{text}");
            assert_eq!(entry["args"].as_array().unwrap().len(), 1);
            // The user's table is still before ours, with its comment.
            assert!(
                text.contains("[mcp_servers.github]   # GitHub tools"),
                "{text}"
            );
        }
        Some((file, pointer)) => {
            let v = parse_jsonc(&root.join(file));
            assert_eq!(
                v.pointer(pointer),
                Some(&Value::String(exe())),
                "{file}: {v}"
            );
        }
        None => {}
    }
    if let Some(plugin) = l.plugin {
        let js = std::fs::read_to_string(root.join(plugin)).unwrap();
        assert!(
            js.contains(&format!("const BIN = {:?}", hook_exe())),
            "{js}"
        );
        assert!(!js.contains("\"__ALETHEIA_BIN__\""));
    }
    for (path, text) in &originals {
        let backup = PathBuf::from(format!("{}.aletheia-backup", path.display()));
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), *text);
    }

    // A second install changes no byte.
    let installed = snapshot(s.home());
    let out = s.ok(&[args("install"), vec!["--write"]].concat());
    assert!(out.contains("already installed; nothing written"), "{out}");
    assert_eq!(snapshot(s.home()), installed);

    let out = s.ok(&args("uninstall"));
    assert!(out.contains("uninstalled"), "{out}");
    for (path, text) in &originals {
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            *text,
            "{}",
            path.display()
        );
        // The user's own file keeps its backup, and the message says where it is.
        let backup = format!("{}.aletheia-backup", path.display());
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), *text);
        assert!(
            out.contains(&format!("wrote {} (", path.display()))
                && out.contains(&format!("first changed it is in {backup}")),
            "{out}"
        );
    }
    if let Some(plugin) = l.plugin {
        assert!(!root.join(plugin).exists(), "the plugin was ours alone");
    }
    let out = s.ok(&args("uninstall"));
    assert!(out.contains("not installed; nothing written"), "{out}");
}

/// Every folder below `dir`.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.push(p.clone());
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every file below `dir` that is a backup install made.
fn backups(dir: &Path) -> Vec<PathBuf> {
    snapshot(dir)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.to_string_lossy().ends_with(".aletheia-backup"))
        .collect()
}

/// A new user's HOME (and project) had none of the host's files: install creates them with no
/// backup, and uninstall removes them, the folders made for them and its record of them, and
/// says so file by file. Only aletheia's data directory may stay, empty.
#[rstest]
fn where_there_were_no_files_uninstall_leaves_nothing_behind(
    #[values(
        "claude-code",
        "cursor",
        "codex",
        "gemini",
        "windsurf",
        "opencode",
        "command-code"
    )]
    host: &str,
    #[values(false, true)] project: bool,
) {
    let s = Setup::new();
    let scope: &[&str] = if project { &["--project"] } else { &[] };
    let (files_before, folders_before) = (snapshot(s.home()), folders(s.home()));

    let out = s.ok(&[&["install", host, "--write", "--json"][..], scope].concat());
    let v: Value = serde_json::from_str(&out).unwrap();
    let written = v["written"].as_array().unwrap();
    assert!(!written.is_empty(), "{out}");
    for w in written {
        assert_eq!(w["created_by_aletheia"], true, "{w}");
        assert!(w.get("backup").is_none(), "{w}");
    }
    if host == "cursor" {
        let hooks = s.root(project).join(".cursor/hooks.json");
        assert_eq!(
            parse_jsonc(&hooks)["version"],
            1,
            "Cursor needs the version key"
        );
    }
    assert_eq!(backups(s.home()), Vec::<PathBuf>::new());

    let out = s.ok(&[&["uninstall", host][..], scope].concat());
    for w in written {
        let path = w["path"].as_str().unwrap();
        assert!(
            out.contains(&format!("  removed {path}, which aletheia created\n")),
            "{path}: {out}"
        );
    }
    assert!(!out.contains("aletheia-backup"), "{out}");
    assert_eq!(snapshot(s.home()), files_before, "{out}");
    // Aletheia's own data directory may stay, empty: a hook may be creating the store in it.
    let data = s.env.data();
    let after: Vec<PathBuf> = folders(s.home())
        .into_iter()
        .filter(|d| {
            !(data.starts_with(d) && std::fs::read_dir(&data).is_ok_and(|mut e| e.next().is_none()))
                || folders_before.contains(d)
        })
        .collect();
    assert_eq!(after, folders_before, "{out}");
}

/// `~/.claude.json` did not exist, so install created it; Claude Code then wrote its own state
/// into it. No write of aletheia's ever backs it up, and uninstall keeps it with only our entry
/// taken out. The user's own settings file, beside it, keeps its backup as before.
#[test]
fn a_file_aletheia_created_and_the_host_then_added_to_is_kept_without_a_backup() {
    let s = Setup::new();
    let settings = s.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let mine = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(&settings, mine).unwrap();
    let claude_json = s.home().join(".claude.json");
    let settings_backup = s.home().join(".claude/settings.json.aletheia-backup");

    let out = s.ok(&["install", "claude-code", "--write"]);
    assert!(
        out.contains(&format!("  created {} (1 added)\n", claude_json.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "first changed it is in {}",
            settings_backup.display()
        )),
        "{out}"
    );
    // Claude Code rewrites the file with its own state; our entry loses a key, which the next
    // install puts back.
    let host_state =
        |entry: &str| format!("{{\n  \"numStartups\": 3,\n  \"mcpServers\": {{{entry}}}\n}}\n");
    let ours = format!(
        "\"aletheia\": {{ \"type\": \"stdio\", \"command\": {:?}, \"args\": [\"mcp\"] }}",
        exe()
    );
    std::fs::write(&claude_json, host_state(&ours)).unwrap();
    let out = s.ok(&["install", "claude-code", "--write"]);
    assert!(
        out.contains(&format!("  wrote {} (1 replaced)\n", claude_json.display())),
        "{out}"
    );
    assert_eq!(
        backups(s.home()),
        std::slice::from_ref(&settings_backup),
        "{out}"
    );

    let out = s.ok(&["uninstall", "claude-code"]);
    assert!(
        out.contains(&format!(
            "  wrote {} (1 removed); aletheia created it, and kept it for what was added to it since\n",
            claude_json.display()
        )),
        "{out}"
    );
    assert_eq!(
        parse_jsonc(&claude_json),
        serde_json::json!({ "numStartups": 3 })
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), mine);
    assert_eq!(std::fs::read_to_string(&settings_backup).unwrap(), mine);
    assert_eq!(
        backups(s.home()),
        std::slice::from_ref(&settings_backup),
        "{out}"
    );

    // It is still the file aletheia created: installing again backs it up no more.
    s.ok(&["install", "claude-code", "--write"]);
    s.ok(&["uninstall", "claude-code"]);
    assert_eq!(backups(s.home()), [settings_backup], "{out}");
}

/// The rule files `rules sync` creates are aletheia's too: a later sync backs them up no more,
/// and uninstall takes them away with the host's files.
#[test]
fn rule_files_aletheia_created_are_never_backed_up_and_go_with_uninstall() {
    let s = Setup::new();
    std::fs::create_dir_all(s.project.join(".git")).unwrap();
    let (files_before, folders_before) = (snapshot(&s.project), folders(&s.project));
    s.ok(&["install", "cursor", "--project", "--write"]);
    s.ok(&["rules", "add", "Run the tests", "--when", "you commit"]);
    let out = s.ok(&["rules", "sync"]);
    assert!(out.contains("created"), "{out}");
    s.ok(&["rules", "add", "Never push to main", "--when", "you push"]);
    let out = s.ok(&["rules", "sync"]);
    assert!(out.contains("updated"), "{out}");
    assert_eq!(backups(&s.project), Vec::<PathBuf>::new(), "{out}");
    let out = s.ok(&["uninstall", "cursor", "--project"]);
    let rules = s.project.join(".cursor/rules/aletheia.mdc");
    assert!(
        out.contains(&format!(
            "  removed {}, which aletheia created\n",
            rules.display()
        )),
        "{out}"
    );
    assert_eq!(snapshot(&s.project), files_before, "{out}");
    assert_eq!(folders(&s.project), folders_before, "{out}");
}

#[test]
fn a_moved_binary_is_updated_in_place_and_never_doubled() {
    let s = Setup::new();
    let settings = s.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    // An older install from another path, and one written by hand from the README.
    std::fs::write(
        &settings,
        r#"{
  "hooks": {
    "Stop": [
      { "hooks": [{ "type": "command", "command": "/old/bin/aletheia hook claude-code Stop" }] },
      { "hooks": [{ "type": "command", "command": "./mine.sh" }] }
    ],
    "SessionEnd": [
      { "hooks": [{ "type": "command", "command": "aletheia hook claude-code SessionEnd" },
                  { "type": "command", "command": "./cleanup.sh" }] }
    ],
    "PreCompact": [{ "hooks": [{ "type": "command", "command": "/old/bin/aletheia hook claude-code PreCompact" }] }]
  }
}
"#,
    )
    .unwrap();
    let shown = s.ok(&["connect", "claude-code"]);
    assert!(
        shown.contains(
            "- hooks.Stop: {\"hooks\":[{\"type\":\"command\",\"command\":\"/old/bin/aletheia"
        ),
        "{shown}"
    );
    s.ok(&["install", "claude-code", "--write"]);
    let v = parse_jsonc(&settings);
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "{v}");
    assert_eq!(
        stop[0]["hooks"][0]["command"],
        format!("{} hook claude-code Stop", hook_exe()),
        "replaced where it was"
    );
    assert_eq!(stop[1]["hooks"][0]["command"], "./mine.sh");
    // The hand-written one shared a group with the user's: only ours left it.
    let end = v["hooks"]["SessionEnd"].as_array().unwrap();
    assert_eq!(end[0]["hooks"].as_array().unwrap().len(), 1);
    assert_eq!(end[0]["hooks"][0]["command"], "./cleanup.sh");
    assert_eq!(
        end[1]["hooks"][0]["command"],
        format!("{} hook claude-code SessionEnd", hook_exe())
    );
    // An event the adapter no longer handles loses our entry.
    assert!(v["hooks"].get("PreCompact").is_none(), "{v}");
}

#[rstest]
#[case(
    "claude-code",
    ".claude/settings.json",
    "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n",
    "line 5"
)]
#[case(
    "codex",
    ".codex/config.toml",
    "model = \"o3\"\n[mcp_servers.github\ncommand = \"npx\"\n",
    "line 2"
)]
#[case(
    "gemini",
    ".gemini/settings.json",
    "{ \"theme\": \"x\" \"hooks\": {} }",
    "line 1"
)]
fn a_config_that_does_not_parse_is_left_untouched(
    #[case] host: &str,
    #[case] file: &str,
    #[case] broken: &str,
    #[case] position: &str,
) {
    let s = Setup::new();
    let path = s.home().join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, broken).unwrap();
    let before = snapshot(s.home());
    for args in [
        vec!["install", host, "--write"],
        vec!["uninstall", host],
        vec!["connect", host],
    ] {
        let out = s.run(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&path.display().to_string())
                && err.contains(position)
                && err.contains("left untouched"),
            "{err}"
        );
    }
    // Nothing written anywhere: not the broken file, not the host's other file.
    assert_eq!(snapshot(s.home()), before);
}

#[test]
fn an_entry_where_the_host_wants_an_object_stops_the_install() {
    let s = Setup::new();
    let path = s.home().join(".gemini/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{ \"hooks\": [] }\n").unwrap();
    let out = s.run(&["install", "gemini", "--write"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("`hooks` is not an object"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{ \"hooks\": [] }\n"
    );
}

#[test]
fn connect_shows_the_hosts_own_command_and_json_for_scripts() {
    let s = Setup::new();
    let out = s.ok(&["connect", "claude-code"]);
    // Install comes first, as the way that writes the hooks too; the host's command follows, with
    // when it is the one to use.
    let ways = format!(
        "To connect Claude Code, run one of:\n  aletheia install claude-code --write\n    \
         writes everything above: the hooks, which record your sessions, and the MCP server.\n  \
         claude mcp add --scope user aletheia -- {} mcp\n    \
         Claude Code's own command: the MCP server alone, no hooks.",
        exe()
    );
    assert!(out.contains(&ways), "{out}");
    assert!(out.starts_with("Claude Code, user scope: "), "{out}");
    let out = s.ok(&["connect", "cursor"]);
    assert!(
        out.contains("To connect Cursor, run:\n  aletheia install cursor --write\n"),
        "{out}"
    );
    s.ok(&["install", "claude-code", "--write"]);
    let out = s.ok(&["connect", "claude-code"]);
    assert!(
        out.contains("already installed") && !out.contains("To connect"),
        "{out}"
    );
    let out = s.ok(&["connect", "claude-code", "--project", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["plan"]["scope"], "project");
    let files: Vec<_> = v["plan"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        files,
        [
            s.project
                .join(".claude/settings.json")
                .display()
                .to_string(),
            s.project.join(".mcp.json").display().to_string()
        ]
    );
    assert!(
        v["plan"]["host_command"]
            .as_str()
            .unwrap()
            .starts_with("claude mcp add --scope project aletheia -- /")
    );
    let out = s.run(&["connect", "emacs"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown host \"emacs\""));
}

#[test]
fn an_installed_claude_code_hook_stores_a_memory() {
    // End to end through the file: the command Claude Code would run is the one in
    // settings.json, run here by a shell as the host runs it.
    let s = Setup::new();
    s.ok(&["install", "claude-code", "--write"]);
    let v = parse_jsonc(&s.home().join(".claude/settings.json"));
    let command = v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    let payload = std::fs::read(fixtures().join("claude-code/UserPromptSubmit.json")).unwrap();
    let out = assert_cmd::Command::new("sh")
        .args(["-c", &command])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", s.home())
        .env("TMPDIR", s.env.tmp())
        .env("ALETHEIA_DATA_DIR", s.env.data())
        .write_stdin(payload)
        .output()
        .unwrap();
    assert!(out.status.success());
    let memories = s.env.memories();
    assert_eq!(memories.len(), 1, "{memories:?}");
    assert_eq!(memories[0].0, "prompt");
    assert!(memories[0].2.contains("discount field"), "{memories:?}");
}

/// Install and uninstall Claude Code in HOME with `settings` as `.claude/settings.json`;
/// returns the file after install.
fn claude_settings(s: &Setup, settings: &str) -> Value {
    let path = s.home().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, settings).unwrap();
    s.ok(&["install", "claude-code", "--write"]);
    parse_jsonc(&path)
}

#[test]
fn a_users_hook_that_only_mentions_aletheia_is_left_alone() {
    let s = Setup::new();
    let log = "echo 'aletheia hook claude-code PreToolUse fired' >> ~/hooks.log";
    let team = "ALETHEIA_HOME=/srv/team aletheia hook claude-code Stop && notify-send done";
    let text = format!(
        r#"{{
  "hooks": {{
    "PreToolUse": [{{ "hooks": [{{ "type": "command", "command": "{log}" }}] }}],
    "Stop": [{{ "hooks": [{{ "type": "command", "command": "{team}" }}] }}]
  }}
}}
"#
    );
    let v = claude_settings(&s, &text);
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], log,
        "{v}"
    );
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "ours is added beside the look-alike: {v}");
    assert_eq!(stop[0]["hooks"][0]["command"], team);
    assert_eq!(
        stop[1]["hooks"][0]["command"],
        format!("{} hook claude-code Stop", hook_exe())
    );
    s.ok(&["uninstall", "claude-code"]);
    let back = std::fs::read_to_string(s.home().join(".claude/settings.json")).unwrap();
    assert_eq!(back, text);
}

/// Uninstall used to drop every `hooks` object it emptied, so a user's own `"hooks": {}` (and
/// an empty `mcpServers` they had) went with our entries.
#[test]
fn uninstall_keeps_an_empty_hooks_object_the_user_had() {
    let s = Setup::new();
    let text = "{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n";
    let v = claude_settings(&s, text);
    assert!(v["hooks"]["Stop"].is_array(), "{v}");
    s.ok(&["uninstall", "claude-code"]);
    let path = s.home().join(".claude/settings.json");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);

    // A file with no `hooks` of its own still loses the one install added.
    let text = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::remove_file(s.home().join(".claude/settings.json.aletheia-backup")).unwrap();
    claude_settings(&s, text);
    s.ok(&["uninstall", "claude-code"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);

    let mcp = s.project.join(".mcp.json");
    let text = "{\n  \"mcpServers\": {}\n}\n";
    std::fs::write(&mcp, text).unwrap();
    s.ok(&["install", "claude-code", "--project", "--write"]);
    assert!(parse_jsonc(&mcp)["mcpServers"].get("aletheia").is_some());
    s.ok(&["uninstall", "claude-code", "--project"]);
    assert_eq!(std::fs::read_to_string(&mcp).unwrap(), text);
}

#[test]
fn a_matcher_added_to_our_group_stays_on_reinstall() {
    let s = Setup::new();
    let v = claude_settings(
        &s,
        r#"{ "hooks": { "PostToolUse": [
  { "matcher": "Edit|Write", "hooks": [{ "type": "command", "command": "/old/aletheia hook claude-code PostToolUse", "timeout": 10 }] }
] } }
"#,
    );
    let post = v["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 1, "{v}");
    assert_eq!(post[0]["matcher"], "Edit|Write", "{v}");
    assert_eq!(
        post[0]["hooks"][0]["command"],
        format!("{} hook claude-code PostToolUse", hook_exe())
    );
}

#[test]
fn the_backup_keeps_the_file_from_before_the_first_change() {
    let s = Setup::new();
    let path = s.home().join(".gemini/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mine = original(".gemini/settings.json");
    std::fs::write(&path, mine).unwrap();
    let backup = s.home().join(".gemini/settings.json.aletheia-backup");
    let out = s.ok(&["install", "gemini", "--write"]);
    assert!(out.contains("before aletheia first changed it"), "{out}");
    s.ok(&["uninstall", "gemini"]);
    std::fs::write(&path, "{ \"theme\": \"later\" }\n").unwrap();
    s.ok(&["install", "gemini", "--write"]);
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), mine);
}

#[test]
fn uninstalling_one_host_keeps_the_mcp_entry_another_still_uses() {
    let s = Setup::new();
    let mcp = s.project.join(".mcp.json");
    let has_entry = || parse_jsonc(&mcp)["mcpServers"].get("aletheia").is_some();
    for (first, second) in [
        ("claude-code", "command-code"),
        ("command-code", "claude-code"),
    ] {
        s.ok(&["install", first, "--project", "--write"]);
        s.ok(&["install", second, "--project", "--write"]);
        let out = s.ok(&["uninstall", second, "--project"]);
        assert!(has_entry(), "{second}'s uninstall took {first}'s server");
        assert!(
            out.contains("was kept") && out.contains(".mcp.json"),
            "{out}"
        );
        s.ok(&["uninstall", first, "--project"]);
        assert!(
            !mcp.exists(),
            "the last host takes the entry, and the file it made"
        );
    }
}

#[test]
fn the_users_settings_on_our_mcp_entry_stay() {
    let s = Setup::new();
    let codex = s.home().join(".codex/config.toml");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    std::fs::write(
        &codex,
        "[mcp_servers.aletheia]\ncommand = \"/old/aletheia\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 30\n\n[mcp_servers.aletheia.env]\nALETHEIA_HOME = \"/srv\"\n",
    )
    .unwrap();
    s.ok(&["install", "codex", "--write"]);
    let doc: toml_edit::DocumentMut = std::fs::read_to_string(&codex).unwrap().parse().unwrap();
    let entry = &doc["mcp_servers"]["aletheia"];
    assert_eq!(entry["command"].as_str(), Some(exe().as_str()));
    assert_eq!(entry["startup_timeout_sec"].as_integer(), Some(30));
    assert_eq!(entry["env"]["ALETHEIA_HOME"].as_str(), Some("/srv"));

    let opencode = s.home().join(".config/opencode/opencode.json");
    std::fs::create_dir_all(opencode.parent().unwrap()).unwrap();
    std::fs::write(
        &opencode,
        r#"{ "mcp": { "aletheia": { "type": "local", "command": ["/old/aletheia", "mcp"], "enabled": false, "environment": { "A": "1" } } } }"#,
    )
    .unwrap();
    s.ok(&["install", "opencode", "--write"]);
    let v = parse_jsonc(&opencode);
    assert_eq!(v["mcp"]["aletheia"]["enabled"], false, "{v}");
    assert_eq!(v["mcp"]["aletheia"]["environment"]["A"], "1", "{v}");
    assert_eq!(v["mcp"]["aletheia"]["command"][0], exe(), "{v}");
    s.ok(&["uninstall", "opencode"]);
    assert!(parse_jsonc(&opencode)["mcp"].get("aletheia").is_none());
}

#[test]
fn an_aletheia_entry_that_is_not_ours_is_left_alone() {
    let s = Setup::new();
    let path = s.home().join(".cursor/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = "{ \"mcpServers\": { \"aletheia\": { \"url\": \"http://team:8080/mcp\", \"env\": { \"A\": \"1\" } } } }\n";
    std::fs::write(&path, text).unwrap();
    let out = s.ok(&["install", "cursor", "--write"]);
    assert!(out.contains("does not run an aletheia binary"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    s.ok(&["uninstall", "cursor"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[cfg(unix)]
#[test]
fn a_dangling_link_is_followed_and_a_failed_write_changes_nothing() {
    let s = Setup::new();
    let dotfiles = s.home().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("claude.json"), s.home().join(".claude.json"))
        .unwrap();
    s.ok(&["install", "claude-code", "--write"]);
    let v = parse_jsonc(&dotfiles.join("claude.json"));
    assert_eq!(v["mcpServers"]["aletheia"]["command"], exe(), "{v}");
    s.ok(&["uninstall", "claude-code"]);

    assert!(
        !dotfiles.join("claude.json").exists(),
        "it held only our entry"
    );

    // A link to where no file can be made: nothing at all is written, not even the folder the
    // hooks' file was staged in (which uninstall removed above, as install had made it).
    std::fs::remove_file(s.home().join(".claude.json")).unwrap();
    std::os::unix::fs::symlink("/dev/null/claude.json", s.home().join(".claude.json")).unwrap();
    let before = (folders(s.home()), snapshot(&dotfiles));
    let out = s.run(&["install", "claude-code", "--write"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert_eq!(
        (folders(s.home()), snapshot(&dotfiles)),
        before,
        "half installed"
    );
    assert!(!s.home().join(".claude").exists());
}

#[test]
fn the_project_is_the_git_root_and_never_home() {
    let s = Setup::new();
    std::fs::create_dir_all(s.project.join(".git")).unwrap();
    let deep = s.project.join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let out = s
        .env
        .cmd()
        .env("ALETHEIA_CWD", &deep)
        .args(["install", "cursor", "--project", "--write"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(s.project.join(".cursor/hooks.json").exists());
    assert!(!deep.join(".cursor").exists());
    for args in [
        &["install", "cursor", "--project", "--write"][..],
        &["uninstall", "cursor", "--project"],
        &["connect", "cursor", "--project"],
    ] {
        for cwd in [s.home(), Path::new("/")] {
            let out = s
                .env
                .cmd()
                .env("ALETHEIA_CWD", cwd)
                .args(args)
                .output()
                .unwrap();
            assert!(!out.status.success(), "{args:?} in {}", cwd.display());
            let err = String::from_utf8(out.stderr).unwrap();
            assert!(err.contains("is not a project folder"), "{err}");
        }
    }
    assert!(!s.home().join(".cursor").exists());
}

#[test]
fn a_settings_file_with_a_byte_order_mark_is_edited_and_keeps_it() {
    let s = Setup::new();
    let text = "\u{feff}{\n  \"theme\": \"dark\"\n}\n";
    let v = claude_settings(&s, text);
    assert_eq!(v["theme"], "dark");
    assert!(v["hooks"]["Stop"].is_array(), "{v}");
    let path = s.home().join(".claude/settings.json");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with('\u{feff}')
    );
    s.ok(&["uninstall", "claude-code"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_read_only_settings_file_is_refused_and_nothing_changes() {
    use std::os::unix::fs::PermissionsExt;
    let s = Setup::new();
    let path = s.home().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{}\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = snapshot(s.home());
    let out = s.run(&["install", "claude-code", "--write"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("settings.json") && err.contains("read-only"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(
        snapshot(s.home()),
        before,
        "nothing else was written either"
    );
}

/// Where a spec's file is in one scope, as the spec writes it: under `~/` or
/// `$XDG_CONFIG_HOME/` (here `~/.config`) for the user, under the project root for a project.
fn spec_place(s: &Setup, file: &spec::ConfigFile, project: bool) -> Option<PathBuf> {
    if project {
        return file.project.as_ref().map(|p| s.project.join(p));
    }
    let user = file.user.as_deref()?;
    Some(match user.strip_prefix("$XDG_CONFIG_HOME/") {
        Some(rest) => s.home().join(".config").join(rest),
        None => s.home().join(user.strip_prefix("~/").unwrap()),
    })
}

/// What a user could already have in a file of each format, owned by no host; with the keys
/// the host requires there (install adds one that is missing and leaves it on uninstall).
fn users_own(file: &spec::ConfigFile) -> Option<String> {
    let required: String = file
        .required
        .iter()
        .map(|(k, v)| format!("  {k:?}: {v},\n"))
        .collect();
    match file.format {
        spec::FileFormat::Json => Some(format!("{{\n{required}  \"mine\": [1, 2]\n}}\n")),
        spec::FileFormat::Jsonc => Some(format!(
            "{{\n{required}  // kept\n  \"mine\": [1, 2],\n}}\n"
        )),
        spec::FileFormat::Toml => Some("# kept\nmine = [1, 2]\n".into()),
        spec::FileFormat::File => None,
    }
}

/// Every file below `dir` but install's backups.
fn without_backups(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = snapshot(dir);
    files.retain(|(p, _)| !p.to_string_lossy().ends_with(".aletheia-backup"));
    files
}

/// Adding a host is one spec file plus its recorded payloads; this holds every spec to that.
#[test]
fn every_host_spec_loads_names_its_fixtures_round_trips_and_runs_its_hooks() {
    assert_eq!(
        {
            let mut hosts = spec::HOSTS.to_vec();
            hosts.sort();
            hosts
        },
        adapter::hosts(),
        "every adapters/*.toml is a host"
    );
    for host in spec::HOSTS {
        let spec = spec::get(host).unwrap().unwrap();
        let adapter = adapter::load(host).unwrap().unwrap();
        for event in adapter.events.keys() {
            let fixture = fixtures().join(host).join(format!("{event}.json"));
            assert!(fixture.is_file(), "{host} handles {event}: no {fixture:?}");
        }
        for project in [false, true] {
            let what = format!("{host} {}", if project { "project" } else { "user" });
            let s = Setup::new();
            let setting = Setting {
                home: s.home().to_path_buf(),
                config_home: s.home().join(".config"),
                project: s.project.clone(),
                exe: PathBuf::from(exe()),
                hook_exe: PathBuf::from(hook_exe()),
                created: created::Record::in_data_dir(&s.env.data()),
            };
            let scope = if project { Scope::Project } else { Scope::User };
            let placed: Vec<(&spec::ConfigFile, PathBuf)> = spec
                .install
                .files
                .iter()
                .filter_map(|f| Some((f, spec_place(&s, f, project)?)))
                .collect();
            for (file, path) in &placed {
                if let Some(text) = users_own(file) {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(path, text).unwrap();
                }
            }
            let before = without_backups(s.home());
            let flag: &[&str] = if project { &["--project"] } else { &[] };
            s.ok(&[&["install", host, "--write"][..], flag].concat());

            // Status finds exactly this host, with every event hooked (or its plugin) and an MCP
            // entry in each file that has one.
            let installed = status::installed(scope, &setting);
            let found: Vec<_> = installed.iter().filter(|i| !i.is_empty()).collect();
            assert_eq!(found.len(), 1, "{what}: {found:?}");
            let mine = found[0];
            assert_eq!(mine.host, *host, "{what}");
            assert!(mine.unreadable.is_empty(), "{what}: {:?}", mine.unreadable);
            let hooked: Vec<&String> = mine.hooks.iter().flat_map(|h| &h.events).collect();
            let plugin = mine.hooks.iter().any(|h| h.plugin);
            if !plugin {
                assert_eq!(hooked, adapter.events.keys().collect::<Vec<_>>(), "{what}");
            }
            let servers = placed.iter().filter(|(f, _)| f.server.is_some()).count();
            assert_eq!(mine.mcp.len(), servers, "{what}: {:?}", mine.mcp);
            for m in &mine.mcp {
                assert_eq!(m.program.as_deref(), Some(exe().as_str()), "{what}");
            }

            // Each event's hook command, as the host would run it: from its file, or the one
            // the plugin runs.
            let mut commands = Vec::new();
            for h in &mine.hooks {
                if h.plugin {
                    assert_eq!(h.programs, [hook_exe()], "{what}");
                    for event in adapter.events.keys() {
                        commands
                            .push((event.clone(), format!("{} hook {host} {event}", hook_exe())));
                    }
                    continue;
                }
                let mut strings_in_file = Vec::new();
                strings(&parse_jsonc(&h.path), &mut strings_in_file);
                for event in &h.events {
                    let want = format!(" hook {host} {event}");
                    let command = strings_in_file
                        .iter()
                        .find(|c| c.ends_with(&want))
                        .unwrap_or_else(|| panic!("{what}: no command for {event}"));
                    commands.push((event.clone(), command.clone()));
                }
            }
            let store = Env::new();
            for (event, command) in &commands {
                let payload =
                    std::fs::read(fixtures().join(host).join(format!("{event}.json"))).unwrap();
                let out = assert_cmd::Command::new("sh")
                    .args(["-c", command])
                    .env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .env("HOME", store.dir.path())
                    .env("TMPDIR", store.tmp())
                    .env("ALETHEIA_DATA_DIR", store.data())
                    .write_stdin(payload)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{what} {event}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            if adapter.events.values().any(|e| e.kind.is_some()) {
                let tools: Vec<String> = {
                    let c = store.conn();
                    let mut q = c.prepare("SELECT tool FROM memories").unwrap();
                    q.query_map([], |r| r.get(0))
                        .unwrap()
                        .map(Result::unwrap)
                        .collect()
                };
                assert!(!tools.is_empty(), "{what}: its payloads stored nothing");
                assert!(tools.iter().all(|t| t == host), "{what}: {tools:?}");
            }

            s.ok(&[&["uninstall", host][..], flag].concat());
            assert_eq!(without_backups(s.home()), before, "{what}");
        }
    }
}

/// Hook commands name `aletheia-hook` when it sits beside the binary (above); an `aletheia`
/// copied somewhere on its own writes commands that name itself, whose `hook` does the same.
#[test]
fn without_the_hook_binary_beside_it_install_names_aletheia_itself() {
    let s = Setup::new();
    let alone = s.env.tmp().join("alone/aletheia");
    std::fs::create_dir_all(alone.parent().unwrap()).unwrap();
    support::copy_executable(&assert_cmd::cargo::cargo_bin("aletheia"), &alone);
    let run_alone = |args: &[&str]| {
        s.env
            .std_cmd_of(&alone)
            .env("ALETHEIA_CWD", &s.project)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run_alone(&["install", "claude-code", "--write"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(s.home().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    let alone = std::fs::canonicalize(&alone).unwrap().display().to_string();
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        format!("{alone} hook claude-code Stop"),
        "{v}"
    );
    // And uninstall still finds it (and would find the other form).
    let out = run_alone(&["uninstall", "claude-code"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = std::fs::read_to_string(s.home().join(".claude/settings.json")).unwrap_or_default();
    assert!(!back.contains("hook claude-code"), "{back}");
}
