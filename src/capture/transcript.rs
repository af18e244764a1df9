//! Claude Code's transcripts (`~/.claude/projects/<folder>/<session>.jsonl`), read back into what
//! its hooks would have captured: the prompts a person typed and the text that ended a session.
//!
//! A transcript holds far more than that: tool calls and their results (sent as `user` lines),
//! thinking, subagent conversations (`isSidechain`), meta lines the host adds, slash commands and
//! local command output wrapped in tags, synthetic and API-error replies, and lines of other
//! types (`system`, `file-history-snapshot`, ...). Only a person's own text counts as a prompt,
//! as only it reaches the UserPromptSubmit hook. A session's last reply stands for the Stop
//! hook's `last_assistant_message`, and a `summary` line (the host's own title for the
//! conversation) becomes a summary too.
//!
//! Parsing never fails on content: a line that is not JSON, or a prompt or reply without a
//! readable time, is counted as skipped and the rest of the file is still read. The entries come
//! out in the shape the `backfill` operation takes, so the command line can hand them over in
//! batches; turning them into memories is the adapter's job, there, exactly as for a hook.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::io::BufRead;

/// The host whose transcripts this module reads.
pub const HOST: &str = "claude-code";

/// The hook event a prompt would have arrived by, and its payload field.
pub const PROMPT_EVENT: &str = "UserPromptSubmit";
/// The hook event a session's closing text would have arrived by.
pub const SUMMARY_EVENT: &str = "Stop";

/// Tags the host wraps around text it writes as the user: slash commands, their output, `!`
/// shell commands, `#` memory notes, background task notices. None of it is a prompt, and none of
/// it reaches UserPromptSubmit as written.
const WRAPPER_TAGS: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-memory-input>",
    "<task-notification>",
    "<system-reminder>",
];

/// Notices the host writes as the user when a person interrupts a turn.
const INTERRUPTED: &str = "[Request interrupted by user";

/// What an entry stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A person's prompt (the UserPromptSubmit hook's `prompt`).
    Prompt,
    /// A session's closing text (the Stop hook's `last_assistant_message`).
    Summary,
}

/// One thing said in a session, with where and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub session_id: String,
    /// The working directory at the time, which decides the project as it does for a hook.
    pub cwd: String,
    /// Epoch milliseconds.
    pub at: i64,
    pub kind: EntryKind,
    pub text: String,
}

impl Entry {
    /// The payload the hook for this entry would have received, so that the adapter builds the
    /// same title and text from it (and a session the hooks did capture is not stored twice).
    pub fn hook_payload(&self) -> (&'static str, Value) {
        let (event, field) = match self.kind {
            EntryKind::Prompt => (PROMPT_EVENT, "prompt"),
            EntryKind::Summary => (SUMMARY_EVENT, "last_assistant_message"),
        };
        let payload = serde_json::json!({
            "session_id": self.session_id,
            "cwd": self.cwd,
            "hook_event_name": event,
            field: self.text,
        });
        (event, payload)
    }
}

/// A parsed transcript: its entries, and how many lines could not be read.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub entries: Vec<Entry>,
    pub skipped: usize,
}

/// The fields of a transcript line that matter here; serde skips the rest (tool inputs and
/// results can be megabytes) without building them.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Line {
    #[serde(rename = "type")]
    kind: Option<String>,
    session_id: Option<String>,
    cwd: Option<String>,
    timestamp: Option<String>,
    message: Option<Message>,
    summary: Option<String>,
    user_type: Option<String>,
    #[serde(default)]
    is_meta: bool,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(default)]
    is_compact_summary: bool,
    #[serde(default)]
    is_visible_in_transcript_only: bool,
    #[serde(default)]
    is_api_error_message: bool,
}

#[derive(Deserialize)]
struct Message {
    model: Option<String>,
    content: Option<Content>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Blocks(Vec<Block>),
}

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
}

impl Content {
    /// The text blocks joined, or `None` when any block is a tool result (a tool's output sent
    /// back to the model, not something a person said).
    fn person_text(&self) -> Option<String> {
        match self {
            Content::Text(s) => Some(s.clone()),
            Content::Blocks(blocks) => {
                if blocks
                    .iter()
                    .any(|b| b.kind.as_deref() == Some("tool_result"))
                {
                    return None;
                }
                Some(text_blocks(blocks))
            }
        }
    }

    /// The reply's text blocks joined (thinking and tool calls left out).
    fn reply_text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Blocks(blocks) => text_blocks(blocks),
        }
    }
}

fn text_blocks(blocks: &[Block]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| b.kind.as_deref() == Some("text"))
        .filter_map(|b| b.text.as_deref())
        .collect();
    texts.join("\n")
}

/// Whether `text` (already trimmed) is something the host wrote as the user.
fn is_host_text(text: &str) -> bool {
    text.starts_with(INTERRUPTED) || WRAPPER_TAGS.iter().any(|t| text.starts_with(t))
}

/// What is known of one session while its lines are read.
#[derive(Default)]
struct Open {
    id: String,
    /// The latest working directory and time seen on any of its lines, for the entries that
    /// carry neither (summary lines).
    cwd: Option<String>,
    at: Option<i64>,
    /// The latest reply with text, which is what the Stop hook would have sent last.
    reply: Option<Entry>,
}

/// Read one transcript. `file_session` (the file's name) is the session of lines that name
/// none. `summary` lines name no session either: the host writes them at the top of a session's
/// file, so they belong to the file's session, or to the file's first if none is named so.
pub fn parse(reader: impl BufRead, file_session: &str) -> std::io::Result<Parsed> {
    let mut out = Parsed::default();
    let mut sessions: Vec<Open> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut slot = |id: &str, sessions: &mut Vec<Open>| -> usize {
        *index.entry(id.to_owned()).or_insert_with(|| {
            sessions.push(Open {
                id: id.to_owned(),
                ..Open::default()
            });
            sessions.len() - 1
        })
    };
    // Prompts wait here until the file is read, for a working directory if theirs is missing.
    let mut prompts: Vec<(usize, Option<String>, i64, String)> = Vec::new();
    let mut titles: Vec<String> = Vec::new();
    for raw in reader.split(b'\n') {
        let raw = raw?;
        let text = String::from_utf8_lossy(&raw);
        if text.trim().is_empty() {
            continue;
        }
        let Ok(line) = serde_json::from_str::<Line>(&text) else {
            out.skipped += 1;
            continue;
        };
        let id = line
            .session_id
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or(file_session);
        let kind = line.kind.as_deref().unwrap_or_default();
        if kind == "summary" {
            if let Some(title) = line.summary.as_deref().map(str::trim)
                && !title.is_empty()
            {
                titles.push(title.to_owned());
            }
            continue;
        }
        if kind != "user" && kind != "assistant" {
            continue;
        }
        let s = slot(id, &mut sessions);
        let at = line.timestamp.as_deref().and_then(epoch_ms);
        if let Some(cwd) = line.cwd.as_deref().filter(|c| !c.trim().is_empty()) {
            sessions[s].cwd = Some(cwd.to_owned());
        }
        if at.is_some() {
            sessions[s].at = at;
        }
        if line.is_sidechain || line.is_meta {
            continue;
        }
        let Some(content) = line.message.as_ref().and_then(|m| m.content.as_ref()) else {
            continue;
        };
        if kind == "user" {
            if line.is_compact_summary
                || line.is_visible_in_transcript_only
                || line.user_type.as_deref().is_some_and(|t| t != "external")
            {
                continue;
            }
            let Some(said) = content.person_text() else {
                continue;
            };
            let said = said.trim();
            if said.is_empty() || is_host_text(said) {
                continue;
            }
            let Some(at) = at else {
                out.skipped += 1;
                continue;
            };
            prompts.push((s, line.cwd.clone(), at, said.to_owned()));
        } else {
            // Replies the host made up itself (after an interrupt, or an API error) are not what
            // the model said last; the Stop hook does not fire for them.
            let synthetic = line
                .message
                .as_ref()
                .and_then(|m| m.model.as_deref())
                .is_some_and(|m| m == "<synthetic>");
            if synthetic || line.is_api_error_message {
                continue;
            }
            let said = content.reply_text();
            let said = said.trim();
            if said.is_empty() {
                continue;
            }
            let Some(at) = at else {
                out.skipped += 1;
                continue;
            };
            let session = &mut sessions[s];
            session.reply = Some(Entry {
                session_id: session.id.clone(),
                cwd: line.cwd.clone().unwrap_or_default(),
                at,
                kind: EntryKind::Summary,
                text: said.to_owned(),
            });
        }
    }
    for (s, cwd, at, text) in prompts {
        let session = &sessions[s];
        match cwd.filter(|c| !c.trim().is_empty()).or(session.cwd.clone()) {
            Some(cwd) => out.entries.push(Entry {
                session_id: session.id.clone(),
                cwd,
                at,
                kind: EntryKind::Prompt,
                text,
            }),
            None => out.skipped += 1,
        }
    }
    let titled = index.get(file_session).copied().unwrap_or(0);
    if sessions.is_empty() {
        out.skipped += titles.len();
    }
    for (s, session) in sessions.into_iter().enumerate() {
        let titles = if s == titled {
            std::mem::take(&mut titles)
        } else {
            Vec::new()
        };
        // Without a working directory there is no project to store it under.
        let Some(cwd) = session.cwd.clone() else {
            out.skipped += titles.len() + usize::from(session.reply.is_some());
            continue;
        };
        let at = session.at.unwrap_or_default();
        for title in titles {
            out.entries.push(Entry {
                session_id: session.id.clone(),
                cwd: cwd.clone(),
                at,
                kind: EntryKind::Summary,
                text: title,
            });
        }
        if let Some(mut reply) = session.reply {
            if reply.cwd.trim().is_empty() {
                reply.cwd = cwd;
            }
            out.entries.push(reply);
        }
    }
    Ok(out)
}

/// An ISO 8601 instant (`2026-03-01T09:58:12.345Z`) as epoch milliseconds.
fn epoch_ms(s: &str) -> Option<i64> {
    s.trim()
        .parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_lines(lines: &[Value]) -> Parsed {
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        parse(text.join("\n").as_bytes(), "file-session").unwrap()
    }

    fn user(content: Value) -> Value {
        serde_json::json!({
            "type": "user", "sessionId": "s1", "cwd": "/home/dev/shop", "userType": "external",
            "timestamp": "2026-03-01T10:00:00.000Z", "message": {"role": "user", "content": content}
        })
    }

    fn assistant(content: Value) -> Value {
        serde_json::json!({
            "type": "assistant", "sessionId": "s1", "cwd": "/home/dev/shop",
            "timestamp": "2026-03-01T10:01:00.000Z",
            "message": {"role": "assistant", "model": "claude-opus-4-5", "content": content}
        })
    }

    fn texts(p: &Parsed, kind: EntryKind) -> Vec<&str> {
        p.entries
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.text.as_str())
            .collect()
    }

    #[test]
    fn only_a_persons_text_is_a_prompt() {
        let mut meta = user(serde_json::json!("Caveat: generated by local commands"));
        meta["isMeta"] = true.into();
        let mut side = user(serde_json::json!("Find the callers"));
        side["isSidechain"] = true.into();
        let p = parse_lines(&[
            meta,
            side,
            user(serde_json::json!(
                "<command-name>/model</command-name>\n<command-args></command-args>"
            )),
            user(serde_json::json!(
                "[Request interrupted by user for tool use]"
            )),
            user(serde_json::json!([
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
            ])),
            user(serde_json::json!([
                {"type": "text", "text": "Add a discount"}, {"type": "image", "source": {}}
            ])),
            user(serde_json::json!("  Keep it small  ")),
        ]);
        assert_eq!(
            texts(&p, EntryKind::Prompt),
            ["Add a discount", "Keep it small"]
        );
        assert_eq!(p.entries[0].at, 1_772_359_200_000);
        assert_eq!(p.skipped, 0);
    }

    #[test]
    fn the_last_real_reply_and_the_hosts_title_are_the_summaries() {
        let mut error = assistant(serde_json::json!([{"type": "text", "text": "API Error: 529"}]));
        error["isApiErrorMessage"] = true.into();
        let mut synthetic =
            assistant(serde_json::json!([{"type": "text", "text": "No response requested."}]));
        synthetic["message"]["model"] = "<synthetic>".into();
        let p = parse_lines(&[
            serde_json::json!({"type": "summary", "summary": "Checkout discount", "leafUuid": "u9"}),
            assistant(serde_json::json!([{"type": "text", "text": "First reply"}])),
            assistant(serde_json::json!([
                {"type": "thinking", "thinking": "hmm", "signature": "x"},
                {"type": "text", "text": "Done; tests pass."},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}
            ])),
            assistant(
                serde_json::json!([{"type": "tool_use", "id": "t3", "name": "Read", "input": {}}]),
            ),
            error,
            synthetic,
        ]);
        assert_eq!(
            texts(&p, EntryKind::Summary),
            ["Checkout discount", "Done; tests pass."]
        );
        // No line names the file's session, so the title goes to the file's first session.
        assert_eq!(p.entries[0].session_id, "s1");
        assert_eq!(p.entries[0].cwd, "/home/dev/shop");
    }

    #[test]
    fn unreadable_lines_are_counted_and_the_rest_is_read() {
        let mut no_time = user(serde_json::json!("When was this?"));
        no_time.as_object_mut().unwrap().remove("timestamp");
        let text = format!(
            "{}\n{{\"type\":\"user\",\"message\":{{\"content\":\"half a li\n\n{}\nnot json\n",
            user(serde_json::json!("First")),
            no_time,
        ) + &user(serde_json::json!("Last")).to_string();
        let p = parse(text.as_bytes(), "s1").unwrap();
        assert_eq!(texts(&p, EntryKind::Prompt), ["First", "Last"]);
        assert_eq!(p.skipped, 3);
    }

    #[test]
    fn a_prompt_becomes_the_payload_its_hook_would_have_had() {
        let e = Entry {
            session_id: "s1".into(),
            cwd: "/home/dev/shop".into(),
            at: 1,
            kind: EntryKind::Summary,
            text: "Done.".into(),
        };
        let (event, payload) = e.hook_payload();
        assert_eq!(event, "Stop");
        assert_eq!(payload["last_assistant_message"], "Done.");
        assert_eq!(payload["session_id"], "s1");
    }
}
