//! What is installed: for each host in one scope, the hook events and the MCP entry that
//! install wrote, in which file, and the program each of them runs.
//!
//! The entries are found exactly as uninstall finds them (an uninstall plan that is never
//! written), so what this reports as installed is what `uninstall` would remove, and the two
//! cannot disagree about what counts as ours.

use super::{Action, Change, InstallError, Scope, Setting, hosts};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One host's entries in one scope.
#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    pub host: &'static str,
    pub scope: Scope,
    pub hooks: Vec<HookFile>,
    pub mcp: Vec<McpEntry>,
    /// Files of this host that could not be read, so whether they hold our entries is unknown.
    pub unreadable: Vec<Unreadable>,
}

impl Installed {
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty() && self.mcp.is_empty()
    }
}

/// A file holding our hook entries, or OpenCode's plugin (which runs them).
#[derive(Debug, Clone, Serialize)]
pub struct HookFile {
    pub path: PathBuf,
    /// The events hooked; empty for the plugin, whose events are its own calls.
    pub events: Vec<String>,
    pub plugin: bool,
    /// The distinct programs the entries run (normally one: the installed `aletheia-hook`).
    /// Empty when a command could not be split into words.
    pub programs: Vec<String>,
}

/// Our MCP server entry.
#[derive(Debug, Clone, Serialize)]
pub struct McpEntry {
    pub path: PathBuf,
    /// The program the entry runs, if it names one.
    pub program: Option<String>,
    /// Other hosts that read this same file in this scope.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_with: Vec<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    /// `None` when the host's files could not even be listed (an adapter that does not load).
    pub path: Option<PathBuf>,
    pub error: String,
}

/// Every host's entries in `scope`, in [`hosts::HOSTS`] order.
///
/// A file two hosts read holds one entry for both (the project's `.mcp.json` is Claude Code's
/// and Command Code's), so the entry alone cannot say which of them was installed: it is
/// counted for those of them that have hooks in this scope, and for the file's first owner in
/// the host table when none has.
pub fn installed(scope: Scope, setting: &Setting) -> Vec<Installed> {
    // HOME or `/` is no project: its files are the user's, or nobody's.
    if scope == Scope::Project && super::rules_sync::check_root(setting, &setting.project).is_err()
    {
        return vec![];
    }
    let mut all: Vec<Installed> = hosts::HOSTS
        .iter()
        .map(|h| installed_one(h, scope, setting))
        .collect();
    let owners = |path: &Path| -> Vec<&'static str> {
        hosts::HOSTS
            .iter()
            .copied()
            .filter(|h| {
                hosts::placed(h, scope, setting)
                    .is_ok_and(|s| s.files.iter().any(|f| f.path == path))
            })
            .collect()
    };
    let mcp_paths: Vec<PathBuf> = all
        .iter()
        .flat_map(|i| i.mcp.iter().map(|m| m.path.clone()))
        .collect();
    for path in mcp_paths {
        let sharing = owners(&path);
        if sharing.len() < 2 {
            continue;
        }
        let hooked: Vec<&str> = all
            .iter()
            .filter(|i| sharing.contains(&i.host) && !i.hooks.is_empty())
            .map(|i| i.host)
            .collect();
        for i in all.iter_mut().filter(|i| sharing.contains(&i.host)) {
            let counts = if hooked.is_empty() {
                i.host == sharing[0]
            } else {
                hooked.contains(&i.host)
            };
            if !counts {
                i.mcp.retain(|m| m.path != path);
            }
            for m in i.mcp.iter_mut().filter(|m| m.path == path) {
                m.shared_with = sharing.iter().copied().filter(|h| *h != i.host).collect();
            }
        }
    }
    all
}

fn installed_one(host: &'static str, scope: Scope, setting: &Setting) -> Installed {
    let mut out = Installed {
        host,
        scope,
        hooks: vec![],
        mcp: vec![],
        unreadable: vec![],
    };
    let spec = match hosts::placed(host, scope, setting) {
        Ok(spec) => spec,
        Err(e) => {
            out.unreadable.push(Unreadable {
                path: None,
                error: e.to_string(),
            });
            return out;
        }
    };
    for file in spec.files {
        let path = file.path.clone();
        // Planned one file at a time, so one unreadable file does not hide the others.
        let plan = match super::plan_file(host, file, true, &setting.created) {
            Ok(plan) => plan,
            Err(e) => {
                out.unreadable.push(Unreadable {
                    error: describe(&e),
                    path: Some(path),
                });
                continue;
            }
        };
        let removed: Vec<&Change> = plan
            .changes
            .iter()
            .filter(|c| c.action == Action::Remove)
            .collect();
        let mut hooks = HookFile {
            path: path.clone(),
            events: vec![],
            plugin: false,
            programs: vec![],
        };
        for change in removed {
            if let Some(event) = change.at.strip_prefix("hooks.") {
                if !hooks.events.iter().any(|e| e == event) {
                    hooks.events.push(event.to_owned());
                }
                for command in commands(&change.entry) {
                    add(&mut hooks.programs, hook_program(&command, host));
                }
            } else if change.at == "file" {
                hooks.plugin = true;
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                add(&mut hooks.programs, plugin_program(host, &text));
            } else {
                out.mcp.push(McpEntry {
                    path: path.clone(),
                    program: mcp_program(&change.entry),
                    shared_with: vec![],
                });
            }
        }
        if hooks.plugin || !hooks.events.is_empty() {
            out.hooks.push(hooks);
        }
    }
    out
}

fn add(programs: &mut Vec<String>, program: Option<String>) {
    if let Some(p) = program
        && !programs.contains(&p)
    {
        programs.push(p);
    }
}

/// Install's errors end with advice for install ("left untouched, run this again"); here only
/// what is wrong with the file is wanted.
fn describe(e: &InstallError) -> String {
    match e {
        InstallError::Parse {
            line,
            column,
            message,
            ..
        } => format!("does not parse (line {line}, column {column}: {message})"),
        InstallError::Shape { at, expected, .. } => format!("`{at}` is not {expected}"),
        InstallError::Io { error, .. } => error.to_string(),
        other => other.to_string(),
    }
}

/// The commands in a removed hook entry: a handler, or a matcher group of handlers.
fn commands(entry: &Value) -> Vec<String> {
    match entry.get("command").and_then(Value::as_str) {
        Some(c) => vec![c.to_owned()],
        None => entry
            .get("hooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|h| h.get("command").and_then(Value::as_str))
            .map(str::to_owned)
            .collect(),
    }
}

/// The word of `command` that runs `hook <host>`: the program, unquoted, whatever precedes
/// it (`env X=1 /path/aletheia hook ...`).
fn hook_program(command: &str, host: &str) -> Option<String> {
    let words = super::command::shell_words(command)?;
    words
        .windows(3)
        .find(|w| w[1] == "hook" && w[2] == host)
        .map(|w| w[0].clone())
}

/// The program an MCP entry runs: `command` as a string, or the first element of OpenCode's
/// `command` array.
fn mcp_program(entry: &Value) -> Option<String> {
    match entry.get("command")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => a.first()?.as_str().map(str::to_owned),
        _ => None,
    }
}

/// The binary a plugin of `host` runs: install wrote it as a JSON string where the spec's
/// plugin has its placeholder, after the same text on that line (`const BIN = `).
fn plugin_program(host: &str, text: &str) -> Option<String> {
    let spec = hosts::load(host).ok()?;
    spec.install
        .files
        .iter()
        .filter_map(|f| f.plugin.as_ref())
        .find_map(|p| {
            let at = p.contents.find(&p.exe_literal)?;
            let line = p.contents[..at].rfind('\n').map_or(0, |n| n + 1);
            let before = &p.contents[line..at];
            let (_, rest) = text.split_once(before).filter(|_| !before.is_empty())?;
            serde_json::Deserializer::from_str(rest)
                .into_iter::<String>()
                .next()?
                .ok()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::command::hook_command;
    use rstest::rstest;

    #[rstest]
    #[case("/usr/bin/aletheia hook codex Stop", Some("/usr/bin/aletheia"))]
    #[case("env A=1 /opt/aletheia hook codex Stop", Some("/opt/aletheia"))]
    #[case(
        r#""C:\tools\aletheia.exe" hook codex Stop"#,
        Some(r"C:\tools\aletheia.exe")
    )]
    #[case("aletheia hook cursor stop", None)]
    #[case("'/unclosed/aletheia hook codex Stop", None)]
    fn finds_the_program_that_runs_the_hook(#[case] command: &str, #[case] program: Option<&str>) {
        assert_eq!(hook_program(command, "codex").as_deref(), program);
    }

    #[test]
    fn a_quoted_path_comes_back_as_written() {
        let exe = "/home/a b/it's/aletheia";
        let command = hook_command(Path::new(exe), "gemini", "AfterTool");
        assert_eq!(hook_program(&command, "gemini").as_deref(), Some(exe));
    }

    #[test]
    fn the_plugin_names_its_binary_as_a_json_string() {
        let text = "import x\n\nconst BIN = \"/a \\\"b\\\"/aletheia\"\nconst T = 1\n";
        assert_eq!(
            plugin_program("opencode", text).as_deref(),
            Some("/a \"b\"/aletheia")
        );
        assert_eq!(plugin_program("opencode", "no binary here"), None);
    }
}
