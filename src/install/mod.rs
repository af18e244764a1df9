//! Writing and removing host configuration: the hook entries that run `aletheia hook <host>
//! <event>` and the MCP entry that runs `aletheia mcp`, for every host, in the user's or the
//! project's files.
//!
//! A change is planned in memory first, for every file of the host, and written only when the
//! whole plan could be made: a file that does not parse, or has an unexpected shape, stops the
//! plan before anything is written, so a host is never left half installed. The plan is also
//! what `connect` prints, so the dry run and the write cannot disagree.
//!
//! Our entries are found again by what they run, never by position: a hook entry is one whose
//! command is exactly `<path>/aletheia hook <host> <event>` (see [`command`]), the MCP entry is
//! the key `aletheia` when its command names an aletheia binary, and OpenCode's plugin is the
//! file `aletheia.js`. Installing twice changes
//! nothing; uninstall removes exactly those and then any container it leaves empty, so the
//! file returns to what it was before install. A file install created (see [`created`]) has no
//! backup, and uninstall removes it once nothing else is in it.

pub mod atomic;
pub mod command;
pub mod created;
mod hosts;
mod jsonc;
pub mod rules_sync;
pub mod spec;
pub mod status;
mod toml_doc;

pub use hosts::{HOSTS, display_name};

use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The key of our entry in every host's MCP server table.
pub const SERVER_KEY: &str = "aletheia";

/// Whose files: the user's (in HOME) or the project's (at the git root of the working
/// directory, as `rules sync` finds it; never HOME or `/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

/// Where the files are and what the entries run.
#[derive(Debug, Clone)]
pub struct Setting {
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `~/.config` (OpenCode keeps its files there).
    pub config_home: PathBuf,
    pub project: PathBuf,
    /// The absolute path of the installed binary.
    pub exe: PathBuf,
    /// The program hook commands and plugins run: `aletheia-hook` beside `exe`, else `exe`.
    pub hook_exe: PathBuf,
    /// The files and folders aletheia created, which get no backup.
    pub created: created::Record,
}

impl Setting {
    /// From the environment: HOME, XDG_CONFIG_HOME, the project (the git root of the working
    /// directory, `ALETHEIA_CWD` or the process's, as `rules sync` finds it) and this
    /// executable.
    pub fn from_env() -> Result<Setting, InstallError> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or(InstallError::NoHome)?;
        let config_home = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| home.join(".config"));
        let exe = std::env::current_exe()
            .and_then(std::fs::canonicalize)
            .map_err(|error| InstallError::Io {
                path: PathBuf::from("the aletheia executable"),
                error,
            })?;
        Ok(Setting {
            home,
            config_home,
            project: rules_sync::project_root(
                &std::path::absolute(crate::config::working_dir())
                    .unwrap_or_else(|_| crate::config::working_dir()),
            ),
            hook_exe: hook_exe_beside(&exe),
            exe,
            created: created::Record::from_env(),
        })
    }
}

/// The program hook commands run: the lean `aletheia-hook` beside `exe` when it is there (the
/// release archives and `cargo install` put it there; a hook run starts faster from it), else
/// `exe` itself, whose `hook` command does the same.
pub fn hook_exe_beside(exe: &Path) -> PathBuf {
    let name = if cfg!(windows) {
        "aletheia-hook.exe"
    } else {
        "aletheia-hook"
    };
    let beside = exe.with_file_name(name);
    if beside.is_file() {
        beside
    } else {
        exe.to_owned()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("unknown host \"{0}\": use {hosts}", hosts = HOSTS.join(", "))]
    UnknownHost(String),
    #[error("{0} has no adapter in this build yet, so there are no hook events to register for it")]
    NoAdapter(String),
    #[error("{0}")]
    Adapter(String),
    #[error("HOME is not set, so the user's configuration cannot be found")]
    NoHome,
    /// `--project` where the project root is HOME or `/`.
    #[error("{0}")]
    NotAProject(String),
    #[error(
        "{path}: line {line}, column {column}: {message}; the file was left untouched (fix it, then run this again)",
        path = path.display()
    )]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{path}: `{at}` is not {expected}; the file was left untouched",
        path = path.display()
    )]
    Shape {
        path: PathBuf,
        at: String,
        expected: &'static str,
    },
    /// The cause is part of the message and deliberately not an error source, so a chain
    /// printer does not repeat it.
    #[error("{path}: {error}", path = path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// What a change does to one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Add,
    Replace,
    Remove,
    Unchanged,
}

/// One entry added, replaced, removed or found already in place.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub action: Action,
    /// Where in the file: `hooks.Stop`, `mcpServers.aletheia`, `mcp_servers.aletheia`.
    pub at: String,
    pub entry: Value,
    /// What a replaced entry was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<Value>,
}

impl Change {
    fn new(action: Action, at: &str, entry: Value) -> Change {
        Change {
            action,
            at: at.to_owned(),
            entry,
            previous: None,
        }
    }

    fn replaced(at: &str, previous: Value, entry: Value) -> Change {
        Change {
            previous: Some(previous),
            ..Change::new(Action::Replace, at, entry)
        }
    }
}

/// The syntax of a file, which decides how its entries are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Toml,
    /// A file that is ours as a whole (OpenCode's plugin).
    File,
}

/// How hook entries nest under `hooks.<event>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HookStyle {
    /// `[{ "matcher"?, "hooks": [handler] }]`: Claude Code, Codex, Gemini CLI, Command Code.
    Grouped,
    /// `[handler]`: Cursor, Windsurf.
    Flat,
}

impl HookStyle {
    /// The entry that holds one handler, limited to the tools `matcher` names when given.
    fn entry(self, handler: Value, matcher: Option<&str>) -> Value {
        match (self, matcher) {
            (HookStyle::Grouped, None) => serde_json::json!({ "hooks": [handler] }),
            (HookStyle::Grouped, Some(m)) => {
                serde_json::json!({ "matcher": m, "hooks": [handler] })
            }
            (HookStyle::Flat, None) => handler,
            (HookStyle::Flat, Some(m)) => {
                let mut h = handler;
                if let Some(o) = h.as_object_mut() {
                    o.insert("matcher".into(), m.into());
                }
                h
            }
        }
    }
}

/// What ends up on disk for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to change.
    Keep,
    Write(String),
    /// Only our entries were in it: uninstall removes the file.
    Delete,
}

/// The planned change to one file.
#[derive(Debug, Clone, Serialize)]
pub struct FilePlan {
    pub path: PathBuf,
    pub format: Format,
    /// What the file holds: `hooks`, `MCP server`, `hooks and MCP server`, `plugin`.
    pub holds: &'static str,
    pub exists: bool,
    pub changes: Vec<Change>,
    #[serde(skip)]
    pub outcome: Outcome,
}

impl FilePlan {
    pub fn changed(&self) -> bool {
        self.outcome != Outcome::Keep
    }
}

/// Everything install (or uninstall) would do for one host and scope.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub host: String,
    pub scope: Scope,
    pub uninstall: bool,
    pub files: Vec<FilePlan>,
    /// The host's own command that registers the MCP server, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_command: Option<String>,
    /// What this host cannot have in this scope, and other things worth knowing.
    pub notes: Vec<String>,
}

/// One file's edits, as the host table describes them.
#[derive(Debug, Clone)]
pub(crate) struct FileSpec {
    pub path: PathBuf,
    pub holds: &'static str,
    pub edits: Edits,
}

#[derive(Debug, Clone)]
pub(crate) enum Edits {
    Json(Vec<JsonEdit>),
    /// `[container.aletheia]` with these fields.
    TomlServer {
        container: &'static str,
        value: Value,
    },
    /// The whole file's contents.
    File(String),
}

#[derive(Debug, Clone)]
pub(crate) enum JsonEdit {
    /// A top-level key the host needs in every file (Cursor's `"version": 1`): added when
    /// missing, never removed.
    Required { key: &'static str, value: Value },
    /// `hooks.<event>` entries, one per event.
    Hooks {
        style: HookStyle,
        entries: Vec<(String, Value)>,
    },
    /// `<container>.aletheia`.
    Server {
        container: &'static str,
        value: Value,
    },
}

/// Plan installing (or, with `uninstall`, removing) `host` in `scope`. Uninstall also takes
/// the rules block out of the host's rule file in the project (see [`rules_sync`]).
pub fn plan(
    host: &str,
    scope: Scope,
    setting: &Setting,
    uninstall: bool,
) -> Result<Plan, InstallError> {
    let mut plan = plan_entries(host, scope, setting, uninstall)?;
    if uninstall {
        plan.files
            .extend(rules_sync::removal(host, scope, setting)?);
    }
    Ok(plan)
}

/// The hook and MCP entries alone: what tells whether a host is connected.
pub(crate) fn plan_entries(
    host: &str,
    scope: Scope,
    setting: &Setting,
    uninstall: bool,
) -> Result<Plan, InstallError> {
    if scope == Scope::Project {
        rules_sync::check_root(setting, &setting.project).map_err(InstallError::NotAProject)?;
    }
    let spec = hosts::placed(host, scope, setting)?;
    // The host table's notes are about using an install; uninstall has its own.
    let mut notes = if uninstall { vec![] } else { spec.notes };
    let mut files = Vec::new();
    for mut file in spec.files {
        if uninstall && let Some(other) = still_using(host, scope, setting, &file.path) {
            notes.push(format!(
                "The MCP server in {} was kept: {} uses that file too and is still installed here.",
                file.path.display(),
                display_name(other)
            ));
            if !keep_server(&mut file) {
                continue;
            }
        }
        let (plan, file_notes) = plan_file_noted(host, file, uninstall, &setting.created)?;
        notes.extend(file_notes);
        files.push(plan);
    }
    Ok(Plan {
        host: host.to_owned(),
        scope,
        uninstall,
        files,
        host_command: spec.host_command,
        notes,
    })
}

/// Another host that reads the file at `path` in `scope` and still has its hooks there (the
/// project's `.mcp.json` is Claude Code's and Command Code's): its MCP entry is the same as
/// ours, so uninstalling `host` must leave it.
fn still_using(host: &str, scope: Scope, setting: &Setting, path: &Path) -> Option<&'static str> {
    HOSTS.iter().copied().filter(|h| *h != host).find(|other| {
        let Ok(spec) = hosts::placed(other, scope, setting) else {
            return false;
        };
        spec.files.iter().any(|f| f.path == path)
            && spec.files.into_iter().any(|f| {
                f.path != path
                    && plan_file(other, f, true, &setting.created).is_ok_and(|p| {
                        p.changes.iter().any(|c| {
                            c.action == Action::Remove
                                && (c.at.starts_with("hooks.") || c.at == "file")
                        })
                    })
            })
    })
}

/// Drop the MCP entry from `file`'s edits, keeping its hook edits. `false` when nothing is
/// left to do in the file.
fn keep_server(file: &mut FileSpec) -> bool {
    match &mut file.edits {
        Edits::Json(edits) => {
            edits.retain(|e| !matches!(e, JsonEdit::Server { .. }));
            edits.iter().any(|e| matches!(e, JsonEdit::Hooks { .. }))
        }
        Edits::TomlServer { .. } => false,
        Edits::File(_) => true,
    }
}

fn plan_file(
    host: &str,
    file: FileSpec,
    uninstall: bool,
    created: &created::Record,
) -> Result<FilePlan, InstallError> {
    plan_file_noted(host, file, uninstall, created).map(|(plan, _)| plan)
}

/// One file's plan, and notes on what in it was left alone. `created` tells a file aletheia
/// created, which had nothing of the user's before install.
fn plan_file_noted(
    host: &str,
    file: FileSpec,
    uninstall: bool,
    created: &created::Record,
) -> Result<(FilePlan, Vec<String>), InstallError> {
    let path = file.path;
    let before = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(InstallError::Io { path, error }),
    };
    let mut plan = FilePlan {
        path,
        format: match file.edits {
            Edits::Json(_) => Format::Json,
            Edits::TomlServer { .. } => Format::Toml,
            Edits::File(_) => Format::File,
        },
        holds: file.holds,
        exists: before.is_some(),
        changes: vec![],
        outcome: Outcome::Keep,
    };
    if uninstall && before.is_none() {
        return Ok((plan, vec![]));
    }
    let text = before.as_deref().unwrap_or("");
    let mut notes = Vec::new();
    let (changes, after, empty) = match &file.edits {
        Edits::Json(edits) => {
            // What the user had before install, from its backup as uninstall would leave it: a
            // backup taken when the file held only our entries keeps nothing.
            let kept = match uninstall {
                true => jsonc::Kept::from_before(
                    atomic::backup(&plan.path, created)
                        .and_then(|before| {
                            let none = jsonc::Kept::default();
                            edit_json(host, &plan.path, &before, edits, true, &none, &mut vec![])
                                .ok()
                        })
                        .map(|(_, before, _)| before)
                        .as_deref(),
                ),
                false => jsonc::Kept::default(),
            };
            edit_json(host, &plan.path, text, edits, uninstall, &kept, &mut notes)?
        }
        Edits::TomlServer { container, value } => {
            let parse_error = |e: toml_doc::ParseError| InstallError::Parse {
                path: plan.path.clone(),
                line: e.line,
                column: e.column,
                message: e.message,
            };
            let mut doc = toml_doc::parse(text).map_err(parse_error)?;
            let (changes, note) = toml_doc::server(
                &mut doc, container, SERVER_KEY, value, uninstall,
            )
            .map_err(|at| InstallError::Shape {
                path: plan.path.clone(),
                at,
                expected: "a table",
            })?;
            notes.extend(note.map(|n| in_file(&plan.path, &n)));
            (changes, doc.to_string(), String::new())
        }
        Edits::File(contents) => file_change(text, before.is_some(), contents, uninstall),
    };
    plan.changes = changes;
    plan.outcome = if uninstall && after == empty && plan.changes.iter().any(is_removal) {
        Outcome::Delete
    } else if before.as_deref() == Some(after.as_str()) {
        Outcome::Keep
    } else {
        Outcome::Write(after)
    };
    Ok((plan, notes))
}

fn in_file(path: &Path, note: &str) -> String {
    format!("{}: {note}", path.display())
}

fn is_removal(c: &Change) -> bool {
    c.action == Action::Remove
}

/// Apply `edits` to a JSON document; returns the changes, the new text, and the text of a file
/// that holds nothing of ours (a file left exactly so by uninstall was created by install, and
/// is removed).
fn edit_json(
    host: &str,
    path: &Path,
    text: &str,
    edits: &[JsonEdit],
    uninstall: bool,
    kept: &jsonc::Kept,
    notes: &mut Vec<String>,
) -> Result<(Vec<Change>, String, String), InstallError> {
    let shape = |e: jsonc::ShapeError| InstallError::Shape {
        path: path.to_path_buf(),
        at: e.at,
        expected: e.expected,
    };
    // Editors on Windows save JSON with a byte order mark, which the parser rejects: it is
    // set aside and written back in front of the edited text.
    let (bom, text) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let root = jsonc::parse(text).map_err(|e| InstallError::Parse {
        path: path.to_path_buf(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let obj = jsonc::root_object(&root).map_err(shape)?;
    let mut changes = Vec::new();
    for edit in edits {
        changes.extend(match edit {
            JsonEdit::Required { key, value } if !uninstall => jsonc::ensure_key(&obj, key, value),
            JsonEdit::Required { .. } => vec![],
            JsonEdit::Hooks { style, entries } => {
                let wanted: &[(String, Value)] = if uninstall { &[] } else { entries };
                jsonc::hooks(&obj, host, *style, wanted, kept).map_err(shape)?
            }
            JsonEdit::Server { container, value } => {
                let (changes, note) =
                    jsonc::server(&obj, container, SERVER_KEY, value, uninstall, kept)
                        .map_err(shape)?;
                notes.extend(note.map(|n| in_file(path, &n)));
                changes
            }
        });
    }
    let empty = jsonc::parse("").expect("empty text parses");
    let empty_obj = jsonc::root_object(&empty).expect("an empty document takes an object");
    for edit in edits {
        if let JsonEdit::Required { key, value } = edit {
            jsonc::ensure_key(&empty_obj, key, value);
        }
    }
    Ok((changes, format!("{bom}{root}"), empty.to_string()))
}

/// A file that is ours as a whole: written when missing or different, removed on uninstall.
fn file_change(
    text: &str,
    exists: bool,
    contents: &str,
    uninstall: bool,
) -> (Vec<Change>, String, String) {
    let entry = Value::String(format!("{} lines", contents.lines().count()));
    let action = match (exists, uninstall) {
        (_, true) => Action::Remove,
        (false, false) => Action::Add,
        (true, false) if text == contents => Action::Unchanged,
        (true, false) => Action::Replace,
    };
    let after = if uninstall {
        String::new()
    } else {
        contents.to_owned()
    };
    (
        vec![Change::new(action, "file", entry)],
        after,
        String::new(),
    )
}

/// What writing a plan did to one file.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub path: PathBuf,
    pub deleted: bool,
    /// The version before aletheia first changed it; a file aletheia created has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<PathBuf>,
    /// Whether aletheia created the file (now, or on an earlier install).
    pub created_by_aletheia: bool,
}

/// Write every changed file of `plan`, all or none: every new version is written to a
/// temporary file first, and only then are they renamed into place. If a rename fails, the
/// files already replaced get their previous contents back. `created` is the record of the
/// files aletheia created, read and kept up to date.
pub fn apply(plan: &Plan, created: &created::Record) -> Result<Vec<Written>, InstallError> {
    let mut staged = Vec::new();
    let mut paths = Vec::new();
    for file in &plan.files {
        let contents = match &file.outcome {
            Outcome::Keep => continue,
            Outcome::Write(text) => Some(text.as_str()),
            Outcome::Delete => None,
        };
        match atomic::Staged::new(&file.path, contents, created) {
            Ok(s) => {
                staged.push(s);
                paths.push(file.path.clone());
            }
            Err(error) => {
                atomic::discard_all(staged);
                return Err(InstallError::Io {
                    path: file.path.clone(),
                    error,
                });
            }
        }
    }
    let done = atomic::commit_all(staged, created)
        .map_err(|(path, error)| InstallError::Io { path, error })?;
    Ok(paths
        .into_iter()
        .zip(done)
        .map(|(path, c)| Written {
            path,
            deleted: c.deleted(),
            backup: c.backup().map(Path::to_path_buf),
            created_by_aletheia: c.created_by_aletheia(),
        })
        .collect())
}

/// An entry as it appears in its file, for the dry run.
pub fn render_entry(format: Format, at: &str, entry: &Value) -> String {
    match format {
        Format::Toml => {
            let (container, key) = at.split_once('.').unwrap_or((at, SERVER_KEY));
            toml_doc::render(container, key, entry)
        }
        Format::Json => entry.to_string(),
        Format::File => entry.as_str().unwrap_or_default().to_owned(),
    }
}
