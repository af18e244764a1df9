//! The adapter engine: one declarative file per host (`adapters/<host>.toml`, embedded at build
//! time as JSON by `build.rs`) says which events the host sends, how each payload becomes a
//! memory, and how the host wants context back. The engine here is the same for every host.
//! The same file's `name` and `[install]` belong to install ([`crate::install::spec`]);
//! `build.rs` leaves them out of what is embedded here, so the hook never parses them.

use super::template::{self, render};
use crate::model::{Kind, MemoryType, NewMemory};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

include!(concat!(env!("OUT_DIR"), "/adapters.rs"));

/// The longest title derived from a payload.
pub const HOOK_TITLE_CHARS: usize = 100;

/// The longest text stored from one event; each placeholder is already cut to
/// [`template::FIELD_MAX`], this bounds templates with several.
pub const HOOK_TEXT_MAX: usize = 24 * 1024;

/// How a host takes the session-start context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContextOutput {
    /// `{"hookSpecificOutput":{"hookEventName":E,"additionalContext":C}}`. Claude Code and Codex
    /// would also take plain text, but Gemini CLI and Command Code inject only JSON, and Codex
    /// requires `hookEventName`, so one shape serves all four.
    HookSpecific,
    /// `{"additional_context":C}` (Cursor).
    Cursor,
    /// The block as plain text (OpenCode's plugin reads it and adds it to the system prompt).
    Plain,
    /// The host has no way to take context (Windsurf: recall goes through MCP instead).
    None,
}

/// One host's adapter.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adapter {
    pub host: String,
    /// Fields that hold the working directory, in order of preference.
    pub cwd: Vec<String>,
    /// Fields that hold the session id, in order of preference.
    pub session: Vec<String>,
    pub context_output: ContextOutput,
    /// What to print on stdout when the hook has a diagnostic for stderr and nothing else to
    /// say: a host that shows stderr to the user whenever stdout is empty (Gemini CLI) then
    /// keeps our diagnostic to itself.
    #[serde(default)]
    pub empty_stdout: Option<String>,
    pub events: BTreeMap<String, EventSpec>,
}

/// What to do with one event.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// Print the session-start context block.
    #[serde(default)]
    pub context: bool,
    /// Record a memory of this kind (with `title` and `text`).
    pub kind: Option<Kind>,
    #[serde(rename = "type")]
    pub mtype: Option<MemoryType>,
    pub title: Option<String>,
    pub text: Option<String>,
    /// Field paths holding file paths touched by the event.
    #[serde(default)]
    pub files: Vec<String>,
    /// Queue the session for compression.
    #[serde(default)]
    pub queue: bool,
    /// Tell the agent what is remembered about the files this tool call reads or edits.
    pub recall: Option<RecallSpec>,
}

/// Which tool calls name files, where their paths are, and how the host takes the answer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallSpec {
    /// The field holding the tool's name; `None` when the event is itself a file read.
    pub tool: Option<String>,
    /// The tools that read or edit files; calls of others pass untouched.
    #[serde(default)]
    pub tools: Vec<String>,
    /// Fields holding file paths.
    #[serde(default)]
    pub files: Vec<String>,
    /// A field holding a patch (Codex's `apply_patch`), whose `*** Add File:`, `*** Update
    /// File:` and `*** Delete File:` lines name files.
    pub patch: Option<String>,
    pub output: RecallOutput,
}

/// How a host takes what is recalled about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecallOutput {
    /// `{"hookSpecificOutput":{"hookEventName":E,"additionalContext":C}}` (Claude Code, Codex,
    /// Gemini CLI's AfterTool).
    HookSpecific,
    /// `{"agent_message":C}` (Cursor's preToolUse: its one field that reaches the agent).
    AgentMessage,
}

/// The longest path taken from a tool call.
const RECALL_PATH_MAX: usize = 4096;

/// The most files one tool call is recalled for.
const RECALL_FILES_MAX: usize = 8;

impl RecallSpec {
    /// The files this call reads or edits, absolute (relative ones joined to `dir`); none for a
    /// tool that names no files.
    pub fn paths(&self, payload: &Value, dir: &std::path::Path) -> Vec<String> {
        if let Some(field) = &self.tool {
            let Some(tool) = template::lookup(payload, field).and_then(Value::as_str) else {
                return vec![];
            };
            if !self.tools.iter().any(|t| t == tool) {
                return vec![];
            }
        }
        let mut found = Vec::new();
        for field in &self.files {
            template::strings_at(payload, field, &mut found);
        }
        if let Some(text) = self
            .patch
            .as_deref()
            .and_then(|f| template::lookup(payload, f))
            .and_then(Value::as_str)
        {
            found.extend(text.lines().filter_map(|l| {
                ["*** Add File: ", "*** Update File: ", "*** Delete File: "]
                    .iter()
                    .find_map(|p| l.strip_prefix(p))
                    .map(|p| p.trim().to_owned())
            }));
        }
        let mut out: Vec<String> = Vec::new();
        for p in found {
            if p.is_empty() || p.len() > RECALL_PATH_MAX || p.contains('\0') {
                continue;
            }
            let abs = dir.join(&p).to_string_lossy().into_owned();
            if !out.contains(&abs) {
                out.push(abs);
            }
            if out.len() == RECALL_FILES_MAX {
                break;
            }
        }
        out
    }
}

/// The hosts that have an adapter.
pub fn hosts() -> Vec<&'static str> {
    ADAPTER_FILES.iter().map(|(h, _)| *h).collect()
}

/// Parse the adapter of `host`, if there is one.
pub fn load(host: &str) -> Option<Result<Adapter, String>> {
    let (_, text) = ADAPTER_FILES.iter().find(|(h, _)| *h == host)?;
    Some(serde_json::from_str(text).map_err(|e| format!("adapters/{host}.toml: {e}")))
}

/// What one event asks for.
#[derive(Debug, Default)]
pub struct Capture {
    pub project: String,
    pub session_id: Option<String>,
    pub memory: Option<NewMemory>,
    pub queue: bool,
    pub context: bool,
    /// At a session start, the folder the session works in: a store that syncs reads its git
    /// remote then, as the session's first event.
    pub dir: Option<std::path::PathBuf>,
    /// The files the tool call reads or edits, for an event that recalls what is known of them.
    pub recall: Vec<String>,
}

impl Adapter {
    /// Turn a payload into a capture. Missing fields give less, never an error: a payload that
    /// yields no text records nothing.
    pub fn capture(&self, spec: &EventSpec, payload: &Value, now_ms: i64) -> Capture {
        let cwd = template::first_string(payload, &self.cwd);
        let dir = match &cwd {
            Some(dir) => PathBuf::from(dir),
            None => crate::config::working_dir(),
        };
        let project = crate::project::project_key(&dir);

        let session_id = template::first_string(payload, &self.session);
        let memory = spec.kind.and_then(|kind| {
            let text = render(spec.text.as_deref()?, payload);
            if !text.filled {
                return None;
            }
            let prompt = kind == Kind::Prompt;
            let text = clean(&template::cut(text.text.trim(), HOOK_TEXT_MAX), prompt);
            let title = spec
                .title
                .as_deref()
                .map(|t| render(t, payload).text)
                .unwrap_or_default();
            let title = clean(&title, prompt);
            // Cut for length only; the final cut to HOOK_TITLE_CHARS comes after redaction.
            let title = template::cut(
                title
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or(""),
                2000,
            );
            let mut files = Vec::new();
            for path in &spec.files {
                template::strings_at(payload, path, &mut files);
            }
            let mut seen = std::collections::HashSet::new();
            files.retain(|f| seen.insert(f.clone()));
            Some(NewMemory {
                project: project.clone(),
                kind,
                mtype: spec.mtype.unwrap_or(MemoryType::Note),
                title: if title.is_empty() {
                    template::cut(&text, 2000)
                } else {
                    title
                },
                text,
                host: self.host.clone(),
                session_id: session_id.clone(),
                files,
                pinned: false,
                created_at: now_ms,
            })
        });
        Capture {
            project,
            queue: spec.queue && session_id.is_some(),
            session_id,
            memory,
            context: spec.context,
            recall: spec
                .recall
                .as_ref()
                .map(|r| r.paths(payload, &dir))
                .unwrap_or_default(),
            dir: spec.context.then_some(dir),
        }
    }

    /// The host's output for what is recalled about the files of a tool call.
    pub fn recall_output(&self, event: &str, text: &str) -> Option<String> {
        let output = self.events.get(event)?.recall.as_ref()?.output;
        Some(match output {
            RecallOutput::HookSpecific => serde_json::json!({
                "hookSpecificOutput": { "hookEventName": event, "additionalContext": text }
            })
            .to_string(),
            RecallOutput::AgentMessage => serde_json::json!({ "agent_message": text }).to_string(),
        })
    }

    /// The host's output for a context block, or nothing for a host that cannot take one.
    pub fn context_output(&self, event: &str, block: &str) -> Option<String> {
        Some(match self.context_output {
            ContextOutput::HookSpecific => serde_json::json!({
                "hookSpecificOutput": { "hookEventName": event, "additionalContext": block }
            })
            .to_string(),
            ContextOutput::Cursor => serde_json::json!({ "additional_context": block }).to_string(),
            ContextOutput::Plain => block.to_owned(),
            ContextOutput::None => return None,
        })
    }
}

/// Text safe to store: no NUL bytes (SQLite's FTS stops at them).
/// `s` without NUL bytes, and for a prompt without our own recalled block: a host may hand the
/// session-start context back in front of the person's words (Gemini CLI sends the prompt as
/// `<hook_context>…</hook_context>` then the text), and storing it would recall it again,
/// one layer deeper each session.
fn clean(s: &str, prompt: bool) -> String {
    let s = if s.contains('\0') {
        s.replace('\0', "")
    } else {
        s.to_owned()
    };
    if prompt && s.contains("aletheia-memory") {
        without_recalled_context(&s)
    } else {
        s
    }
}

/// Remove every `<hook_context>` block that holds our block, and our block itself, raw or
/// HTML-escaped as hosts may pass it on.
fn without_recalled_context(s: &str) -> String {
    let mut out = s.to_owned();
    for (open, close) in [
        ("<hook_context>", "</hook_context>"),
        ("<aletheia-memory>", "</aletheia-memory>"),
        ("&lt;aletheia-memory&gt;", "&lt;/aletheia-memory&gt;"),
    ] {
        let mut from = 0;
        while let Some(start) = out[from..].find(open).map(|i| i + from) {
            let Some(end) = out[start..].find(close).map(|i| start + i + close.len()) else {
                break;
            };
            if out[start..end].contains("aletheia-memory") {
                out.replace_range(start..end, "");
            } else {
                from = end;
            }
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_loses_the_recalled_block_a_host_passed_back_and_keeps_everything_else() {
        let gemini = "<hook_context>&lt;aletheia-memory&gt;\nRecalled memory…\n&lt;/aletheia-memory&gt;</hook_context>\n\nhi";
        assert_eq!(clean(gemini, true), "hi");
        let raw = "<aletheia-memory>\n# Memory for shop\n</aletheia-memory>\nfix the cart";
        assert_eq!(clean(raw, true), "fix the cart");
        let other = "<hook_context>the user's own tag</hook_context> and aletheia-memory named";
        assert_eq!(clean(other, true), other, "a block without ours stays");
        assert_eq!(clean(gemini, false), gemini, "only prompts are cleaned");
    }

    #[test]
    fn every_adapter_file_parses_and_each_recorded_event_has_title_and_text() {
        // Every host install knows has an adapter, and no adapter lacks an install part.
        let mut all = crate::install::HOSTS.to_vec();
        all.sort_unstable();
        assert_eq!(hosts(), all);
        for host in hosts() {
            let a = load(host).unwrap().unwrap();
            assert_eq!(a.host, host);
            for (name, e) in &a.events {
                assert!(
                    e.kind.is_some() || e.queue || e.context || e.recall.is_some(),
                    "{host}.{name} does nothing"
                );
                // A block built for a host that cannot take it would be work thrown away.
                assert!(
                    !(e.context && a.context_output == ContextOutput::None),
                    "{host}.{name} asks for context its host cannot take"
                );
                if e.kind.is_some() {
                    assert!(
                        e.title.is_some() && e.text.is_some(),
                        "{host}.{name} lacks title/text"
                    );
                }
            }
        }
    }

    #[test]
    fn a_missing_text_field_records_nothing() {
        let a = load("claude-code").unwrap().unwrap();
        let spec = &a.events["Stop"];
        let c = a.capture(
            spec,
            &serde_json::json!({"session_id": "s", "cwd": "/x/shop"}),
            1,
        );
        assert!(c.memory.is_none() && c.queue);
        assert_eq!(c.project, "shop");
    }

    #[test]
    fn each_output_contract_has_its_shape() {
        let out = |host: &str| {
            load(host)
                .unwrap()
                .unwrap()
                .context_output("SessionStart", "B")
        };
        let json = |host: &str| serde_json::from_str::<Value>(&out(host).unwrap()).unwrap();
        for host in ["claude-code", "codex", "gemini", "command-code"] {
            assert_eq!(
                json(host),
                serde_json::json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "B"}}),
                "{host}"
            );
        }
        assert_eq!(
            json("cursor"),
            serde_json::json!({"additional_context": "B"})
        );
        assert_eq!(out("opencode").as_deref(), Some("B"));
        assert_eq!(out("windsurf"), None);
    }
}
