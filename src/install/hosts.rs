//! The host table: for each host and scope, which files hold the hooks and which the MCP entry,
//! what shape the entries take there, and the host's own command for the MCP entry.
//!
//! Every location and shape follows the hosts' documentation as summarised in the reference
//! notes kept with the project (host-hooks.md); the hook events are exactly those the host's
//! adapter handles, so a host gets hooks only once it has an adapter.

use super::command::{hook_command, shell_quote};
use super::{Edits, FileSpec, HookStyle, InstallError, JsonEdit, Scope, Setting};
use serde_json::{Value, json};
use std::path::Path;

/// Every host `install` knows, in the order the help lists them.
pub const HOSTS: &[&str] = &[
    "claude-code",
    "cursor",
    "codex",
    "gemini",
    "windsurf",
    "opencode",
    "command-code",
];

/// How the host calls itself.
pub fn display_name(host: &str) -> &str {
    match host {
        "claude-code" => "Claude Code",
        "cursor" => "Cursor",
        "codex" => "Codex",
        "gemini" => "Gemini CLI",
        "windsurf" => "Windsurf",
        "opencode" => "OpenCode",
        "command-code" => "Command Code",
        other => other,
    }
}

/// The hook's own deadline is about a second (it spools and exits past it), so this only
/// bounds a stuck process; it is also what raises Claude Code's 1.5 s budget for all
/// SessionEnd hooks, which a busy store could otherwise miss.
const HOOK_TIMEOUT_SECS: u64 = 10;

/// One host's files and commands for one scope.
pub(crate) struct HostSpec {
    pub files: Vec<FileSpec>,
    pub host_command: Option<String>,
    pub notes: Vec<String>,
}

pub(crate) fn spec(host: &str, scope: Scope, s: &Setting) -> Result<HostSpec, InstallError> {
    if !HOSTS.contains(&host) {
        return Err(InstallError::UnknownHost(host.to_owned()));
    }
    let events = events(host)?;
    let exe = s.exe.display().to_string();
    let quoted = shell_quote(&exe);
    // The folder holding the host's files: `~/.x` for the user, `<project>/.x` for a project.
    let base = |dir: &str| match scope {
        Scope::User => s.home.join(dir),
        Scope::Project => s.project.join(dir),
    };
    let scope_word = match scope {
        Scope::User => "user",
        Scope::Project => "project",
    };
    let stdio = json!({ "command": exe, "args": ["mcp"] });
    let claude_stdio = json!({ "type": "stdio", "command": exe, "args": ["mcp"], "env": {} });
    let grouped = |handler: &dyn Fn(&str) -> Value| JsonEdit::Hooks {
        style: HookStyle::Grouped,
        entries: events
            .iter()
            .map(|e| (e.clone(), json!({ "hooks": [handler(e)] })))
            .collect(),
    };
    let flat = |handler: &dyn Fn(&str) -> Value| JsonEdit::Hooks {
        style: HookStyle::Flat,
        entries: events.iter().map(|e| (e.clone(), handler(e))).collect(),
    };
    let cmd = |e: &str| hook_command(&s.exe, host, e);
    // Claude Code, Codex and Command Code take a handler in seconds.
    let seconds =
        |e: &str| json!({ "type": "command", "command": cmd(e), "timeout": HOOK_TIMEOUT_SECS });
    let json_file = |path: &Path, holds, edits| FileSpec {
        path: path.to_path_buf(),
        holds,
        edits: Edits::Json(edits),
    };
    let server = |container, value: &Value| JsonEdit::Server {
        container,
        value: value.clone(),
    };
    let mut notes = Vec::new();
    let (files, host_command) = match host {
        "claude-code" => {
            notes.push(
                "Interactive Claude Code runs hooks only in folders whose trust dialog you accepted."
                    .into(),
            );
            let mcp = match scope {
                Scope::User => s.home.join(".claude.json"),
                Scope::Project => s.project.join(".mcp.json"),
            };
            (
                vec![
                    json_file(
                        &base(".claude").join("settings.json"),
                        "hooks",
                        vec![grouped(&seconds)],
                    ),
                    json_file(
                        &mcp,
                        "MCP server",
                        vec![server("mcpServers", &claude_stdio)],
                    ),
                ],
                Some(format!(
                    "claude mcp add --scope {scope_word} {key} -- {quoted} mcp",
                    key = super::SERVER_KEY
                )),
            )
        }
        "cursor" => {
            notes.push(
                "Cursor also runs Claude Code's hooks unless Settings → Agents → Third-Party Imports is off; with both installed each event is seen twice (and stored once)."
                    .into(),
            );
            let handler = |e: &str| json!({ "command": cmd(e), "timeout": HOOK_TIMEOUT_SECS });
            let dir = base(".cursor");
            (
                vec![
                    json_file(
                        &dir.join("hooks.json"),
                        "hooks",
                        vec![
                            JsonEdit::Required {
                                key: "version",
                                value: json!(1),
                            },
                            flat(&handler),
                        ],
                    ),
                    json_file(
                        &dir.join("mcp.json"),
                        "MCP server",
                        vec![server("mcpServers", &stdio)],
                    ),
                ],
                None,
            )
        }
        "codex" => {
            notes.push(
                "Codex runs new hooks only after you review and trust them in its /hooks screen."
                    .into(),
            );
            // Hooks go to hooks.json (Claude's shape, which Codex reads beside config.toml)
            // so that config.toml changes by one table only.
            let dir = base(".codex");
            (
                vec![
                    json_file(&dir.join("hooks.json"), "hooks", vec![grouped(&seconds)]),
                    FileSpec {
                        path: dir.join("config.toml"),
                        holds: "MCP server",
                        edits: Edits::TomlServer {
                            container: "mcp_servers",
                            value: stdio.clone(),
                        },
                    },
                ],
                (scope == Scope::User).then(|| {
                    format!(
                        "codex mcp add {key} -- {quoted} mcp",
                        key = super::SERVER_KEY
                    )
                }),
            )
        }
        "gemini" => {
            // Gemini CLI counts hook timeouts in milliseconds.
            let handler = |e: &str| json!({ "type": "command", "command": cmd(e), "timeout": HOOK_TIMEOUT_SECS * 1000 });
            (
                vec![json_file(
                    &base(".gemini").join("settings.json"),
                    "hooks and MCP server",
                    vec![grouped(&handler), server("mcpServers", &stdio)],
                )],
                Some(format!(
                    "gemini mcp add -s {scope_word} {key} {quoted} mcp",
                    key = super::SERVER_KEY
                )),
            )
        }
        "windsurf" => {
            // Windsurf shows a hook's stdout only when asked; ours is for the store, not the user.
            let handler = |e: &str| json!({ "command": cmd(e), "show_output": false });
            let hooks = match scope {
                Scope::User => s.home.join(".codeium/windsurf/hooks.json"),
                Scope::Project => s.project.join(".windsurf/hooks.json"),
            };
            let mut files = vec![json_file(&hooks, "hooks", vec![flat(&handler)])];
            match scope {
                Scope::User => files.push(json_file(
                    &s.home.join(".codeium/windsurf/mcp_config.json"),
                    "MCP server",
                    vec![server("mcpServers", &stdio)],
                )),
                Scope::Project => notes.push(
                    "Windsurf reads MCP servers only from the user's ~/.codeium/windsurf/mcp_config.json: install without --project to add it."
                        .into(),
                ),
            }
            (files, None)
        }
        "command-code" => {
            let (mcp, entry) = match scope {
                Scope::User => (
                    s.home.join(".commandcode/mcp.json"),
                    json!({ "transport": "stdio", "command": exe, "args": ["mcp"] }),
                ),
                // The project's .mcp.json is Claude Code's too. Command Code also accepts
                // Claude's entry, so both hosts write the same one and neither undoes the other.
                Scope::Project => (s.project.join(".mcp.json"), claude_stdio.clone()),
            };
            (
                vec![
                    json_file(
                        &base(".commandcode").join("settings.json"),
                        "hooks",
                        vec![grouped(&seconds)],
                    ),
                    json_file(&mcp, "MCP server", vec![server("mcpServers", &entry)]),
                ],
                (scope == Scope::User)
                    .then(|| format!("cmd mcp add {key} -- {quoted} mcp", key = super::SERVER_KEY)),
            )
        }
        "opencode" => {
            // OpenCode has no command hooks: the plugin runs ours. Its events are the plugin's
            // calls, so the adapter's list is used by the plugin rather than written here.
            let (config, plugins) = match scope {
                Scope::User => (
                    s.config_home.join("opencode/opencode.json"),
                    s.config_home.join("opencode/plugins"),
                ),
                Scope::Project => (
                    s.project.join("opencode.json"),
                    s.project.join(".opencode/plugins"),
                ),
            };
            (
                vec![
                    FileSpec {
                        path: plugins.join("aletheia.js"),
                        holds: "plugin",
                        edits: Edits::File(opencode_plugin(&exe)),
                    },
                    json_file(
                        &config,
                        "MCP server",
                        vec![server(
                            "mcp",
                            &json!({ "type": "local", "command": [exe, "mcp"], "enabled": true }),
                        )],
                    ),
                ],
                None,
            )
        }
        other => unreachable!("{other} is in HOSTS but not in the table"),
    };
    Ok(HostSpec {
        files,
        host_command,
        notes,
    })
}

/// OpenCode's plugin with this binary's path in it. The path goes into a JavaScript string
/// literal, and a JSON string is one.
fn opencode_plugin(exe: &str) -> String {
    const PLUGIN: &str = include_str!("../../adapters/opencode-plugin.js");
    const PLACEHOLDER: &str = "\"__ALETHEIA_BIN__\"";
    debug_assert!(PLUGIN.contains(PLACEHOLDER));
    PLUGIN.replace(PLACEHOLDER, &Value::String(exe.to_owned()).to_string())
}

/// The events `host`'s adapter handles.
fn events(host: &str) -> Result<Vec<String>, InstallError> {
    let adapter = crate::capture::adapter::load(host)
        .ok_or_else(|| InstallError::NoAdapter(host.to_owned()))?
        .map_err(InstallError::Adapter)?;
    Ok(adapter.events.into_keys().collect())
}
