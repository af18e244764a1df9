//! A host's spec placed in one scope: the files that hold its hooks and its MCP entry, what goes
//! in each (the spec's entries with this binary's path and the hook commands filled in), and
//! the host's own command for the MCP entry.
//!
//! Every location and shape comes from the host's spec (`adapters/<host>.toml`), which follows
//! the hosts' documentation as summarised in the reference notes kept with the project
//! (host-hooks.md); the hook events are exactly those the spec's capture part handles. What
//! edits a file is chosen by its format alone ([`edits`]).

use super::command::{hook_command, shell_quote};
use super::spec::{self, ConfigFile, FileFormat, Spec};
use super::{Edits, FileSpec, InstallError, JsonEdit, Scope, Setting};
use serde_json::Value;

pub use super::spec::HOSTS;

/// How the host calls itself.
pub fn display_name(host: &str) -> &str {
    match spec::get(host) {
        Some(Ok(spec)) => &spec.name,
        _ => host,
    }
}

/// The hook's own deadline is about a second (it spools and exits past it), so this only
/// bounds a stuck process; it is also what raises Claude Code's 1.5 s budget for all
/// SessionEnd hooks, which a busy store could otherwise miss.
const HOOK_TIMEOUT_SECS: u64 = 10;

/// One host's files and commands for one scope.
pub(crate) struct Placed {
    pub files: Vec<FileSpec>,
    pub host_command: Option<String>,
    pub notes: Vec<String>,
}

/// The spec of `host`, or why there is none.
pub(crate) fn load(host: &str) -> Result<&'static Spec, InstallError> {
    spec::get(host)
        .ok_or_else(|| InstallError::UnknownHost(host.to_owned()))?
        .map_err(InstallError::Adapter)
}

pub(crate) fn placed(host: &str, scope: Scope, s: &Setting) -> Result<Placed, InstallError> {
    let spec = load(host)?;
    let events = events(host)?;
    let install = &spec.install;
    let mut files = Vec::new();
    for file in &install.files {
        let Some(path) = place(file, scope, s) else {
            continue;
        };
        files.push(FileSpec {
            path,
            holds: holds(file),
            edits: edits(file, host, &events, s),
        });
    }
    let host_command = match scope {
        Scope::User => install.mcp_command.user.as_deref(),
        Scope::Project => install.mcp_command.project.as_deref(),
    }
    .map(|c| {
        c.replace("{key}", super::SERVER_KEY)
            .replace("{exe}", &shell_quote(&s.exe.display().to_string()))
    });
    let mut notes = install.notes.clone();
    if scope == Scope::Project {
        notes.extend(install.project_notes.iter().cloned());
    }
    Ok(Placed {
        files,
        host_command,
        notes,
    })
}

/// Where `file` is in `scope`, if the host has it there.
fn place(file: &ConfigFile, scope: Scope, s: &Setting) -> Option<std::path::PathBuf> {
    match scope {
        Scope::User => {
            let user = file.user.as_deref()?;
            // `Spec::check` allows only these two bases.
            Some(match user.strip_prefix("$XDG_CONFIG_HOME/") {
                Some(rest) => s.config_home.join(rest),
                None => s.home.join(user.strip_prefix("~/").unwrap_or(user)),
            })
        }
        Scope::Project => Some(s.project.join(file.project.as_deref()?)),
    }
}

/// What the file holds, as install's messages name it.
fn holds(file: &ConfigFile) -> &'static str {
    match (file.hooks.is_some(), file.server.is_some()) {
        _ if file.plugin.is_some() => "plugin",
        (true, true) => "hooks and MCP server",
        (true, false) => "hooks",
        _ => "MCP server",
    }
}

/// The writers, by format: a JSON file takes its required keys, hooks and MCP entry (in that
/// order); a TOML file its MCP entry; a file of ours its whole text.
fn edits(file: &'static ConfigFile, host: &str, events: &[String], s: &Setting) -> Edits {
    let exe = s.exe.display().to_string();
    let server = || {
        let server = file.server.as_ref()?;
        Some((server.container.as_str(), fill(&server.entry, &exe, None)))
    };
    match file.format {
        FileFormat::Json | FileFormat::Jsonc => {
            let mut edits: Vec<JsonEdit> = file
                .required
                .iter()
                .map(|(key, value)| JsonEdit::Required {
                    key,
                    value: value.clone(),
                })
                .collect();
            if let Some(hooks) = &file.hooks {
                let handler = |e: &str| {
                    let command = hook_command(&s.hook_exe, host, e);
                    hooks.style.entry(
                        fill(&hooks.handler, &exe, Some(&command)),
                        hooks.matchers.get(e).map(String::as_str),
                    )
                };
                edits.push(JsonEdit::Hooks {
                    style: hooks.style,
                    entries: events.iter().map(|e| (e.clone(), handler(e))).collect(),
                });
            }
            if let Some((container, value)) = server() {
                edits.push(JsonEdit::Server { container, value });
            }
            Edits::Json(edits)
        }
        FileFormat::Toml => {
            let (container, value) = server().expect("Spec::check: a toml file has a server");
            Edits::TomlServer { container, value }
        }
        FileFormat::File => {
            let plugin = file
                .plugin
                .as_ref()
                .expect("Spec::check: a file has a plugin");
            // The plugin runs only hooks.
            let exe = Value::String(s.hook_exe.display().to_string()).to_string();
            Edits::File(plugin.contents.replace(&plugin.exe_literal, &exe))
        }
    }
}

/// `v` with the spec's placeholders filled in: a string that is exactly `{exe}` becomes the
/// binary's path, `{command}` the event's hook command, and `{timeout_s}` / `{timeout_ms}` the
/// hook's timeout as a number.
fn fill(v: &Value, exe: &str, command: Option<&str>) -> Value {
    match v {
        Value::String(s) => match (s.as_str(), command) {
            ("{exe}", _) => Value::String(exe.to_owned()),
            ("{command}", Some(command)) => Value::String(command.to_owned()),
            ("{timeout_s}", _) => HOOK_TIMEOUT_SECS.into(),
            ("{timeout_ms}", _) => (HOOK_TIMEOUT_SECS * 1000).into(),
            _ => v.clone(),
        },
        Value::Array(items) => items.iter().map(|x| fill(x, exe, command)).collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, x)| (k.clone(), fill(x, exe, command)))
            .collect(),
        other => other.clone(),
    }
}

/// The events `host`'s adapter handles.
fn events(host: &str) -> Result<Vec<String>, InstallError> {
    let adapter = crate::capture::adapter::load(host)
        .ok_or_else(|| InstallError::NoAdapter(host.to_owned()))?
        .map_err(InstallError::Adapter)?;
    Ok(adapter.events.into_keys().collect())
}
