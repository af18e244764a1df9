//! MCP resources and prompts, for clients that let a user mention a memory or start a session
//! from a menu (Claude Code's `@` mentions and `/` prompts). The stdio server and `/mcp` over
//! HTTP both answer from here, through the same operations as the tools, so a resource shows
//! what the tools show and a caller reads only what it may.
//!
//! - `aletheia://memory/{id}`: one memory as JSON, as `get_observations` gives it (text, files,
//!   facts, the original message), with every version and where it came from.
//! - `aletheia://context/{project}`: the project's session-start block, as
//!   `session_start_context` gives it; `resources/list` names the default project's.
//! - Prompts: `start_session` (load the block, then search before changing anything) and
//!   `recall` (search memory for a topic, then read the best hits in full).

use crate::ops::inspect::Inspect;
use crate::ops::recall::{GetObservations, SessionStartContext};
use crate::ops::{self, Context, OpError};
use crate::text::Text as _;
use serde_json::{Map, Value, json};

const MEMORY_PREFIX: &str = "aletheia://memory/";
const CONTEXT_PREFIX: &str = "aletheia://context/";

/// What `initialize` declares: tools, resources (no subscriptions: memories change through the
/// tools) and prompts.
pub fn capabilities() -> Value {
    json!({
        "tools": { "listChanged": false },
        "resources": { "subscribe": false, "listChanged": false },
        "prompts": { "listChanged": false },
    })
}

/// `resources/templates/list`.
pub fn templates() -> Value {
    json!({ "resourceTemplates": [
        {
            "uriTemplate": "aletheia://memory/{id}",
            "name": "memory",
            "title": "A memory",
            "description": "One memory as JSON: its text, files and facts, where it came from, and every version, newest first.",
            "mimeType": "application/json",
        },
        {
            "uriTemplate": "aletheia://context/{project}",
            "name": "session-start",
            "title": "A project's session-start block",
            "description": "The block a new session in the project starts with: pinned memories, the last session's requests, facts, rules and recent memories.",
            "mimeType": "text/markdown",
        },
    ]})
}

/// `resources/list`: the default project's session-start block (memories are many; they are
/// reached by the template).
pub fn list(ctx: &Context<'_>) -> Value {
    let project = &ctx.caller.default_project;
    json!({ "resources": [{
        "uri": format!("{CONTEXT_PREFIX}{}", encode(project)),
        "name": "session-start",
        "title": format!("Session-start block of {project}"),
        "mimeType": "text/markdown",
    }]})
}

/// Why a resource cannot be read, as a JSON-RPC error.
#[derive(Debug)]
pub enum ReadError {
    /// Not one of this server's URIs (-32602).
    Invalid(String),
    /// No such memory, or one the caller may not see (-32002, the spec's "resource not found").
    NotFound(String),
    /// The store failed (-32603).
    Failed(String),
}

impl ReadError {
    pub fn code(&self) -> i64 {
        match self {
            ReadError::Invalid(_) => -32602,
            ReadError::NotFound(_) => -32002,
            ReadError::Failed(_) => -32603,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            ReadError::Invalid(m) | ReadError::NotFound(m) | ReadError::Failed(m) => m,
        }
    }
}

impl From<OpError> for ReadError {
    fn from(e: OpError) -> ReadError {
        match e {
            OpError::NotFound(m) | OpError::Forbidden(m) => ReadError::NotFound(m),
            OpError::InvalidArgument(m) => ReadError::Invalid(m),
            e => ReadError::Failed(e.to_string()),
        }
    }
}

/// `resources/read` of `uri`.
pub fn read(ctx: &mut Context<'_>, uri: &str) -> Result<Value, ReadError> {
    if let Some(id) = uri.strip_prefix(MEMORY_PREFIX) {
        let id: i64 = id.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
            ReadError::Invalid(format!(
                "{uri} names no memory: use aletheia://memory/ and a memory's id"
            ))
        })?;
        let missing = || ReadError::NotFound(format!("No memory #{id}."));
        let observation = ops::call(ctx, GetObservations { ids: vec![id] })?
            .into_iter()
            .next()
            .ok_or_else(missing)?;
        let inspected = ops::call(ctx, Inspect { id })?;
        let now = ctx.clock.now();
        let source = crate::recall::provenance::full(&inspected.memory, now);
        let body = json!({
            "memory": observation,
            "source": source,
            "versions": inspected.versions,
        });
        return Ok(contents(
            uri,
            "application/json",
            serde_json::to_string_pretty(&body).unwrap_or_default(),
        ));
    }
    if let Some(project) = uri.strip_prefix(CONTEXT_PREFIX) {
        let project = decode(project).ok_or_else(|| {
            ReadError::Invalid(format!(
                "{uri}: the project name is not percent-encoded UTF-8"
            ))
        })?;
        let request = SessionStartContext {
            project: Some(project),
            limit: None,
        };
        let out = ops::call(ctx, request)?;
        let text = SessionStartContext::text(&out, &ctx.clock);
        return Ok(contents(uri, "text/markdown", text.text().to_owned()));
    }
    Err(ReadError::Invalid(format!(
        "{uri} is not one of this server's resources: resources/templates/list names them"
    )))
}

fn contents(uri: &str, mime: &str, text: String) -> Value {
    json!({ "contents": [{ "uri": uri, "mimeType": mime, "text": text }] })
}

/// `prompts/list`.
pub fn prompts() -> Value {
    json!({ "prompts": [
        {
            "name": "start_session",
            "title": "Start with memory",
            "description": "Load the project's session-start block, then search memory for the task before changing anything.",
            "arguments": [
                { "name": "project", "description": "The project (default: this folder's).", "required": false },
                { "name": "task", "description": "What the session is about, to search memory for.", "required": false },
            ],
        },
        {
            "name": "recall",
            "title": "Recall a topic",
            "description": "Search memory for a topic, then read the best hits in full before answering.",
            "arguments": [
                { "name": "topic", "description": "What to recall.", "required": true },
            ],
        },
    ]})
}

/// `prompts/get` of `name` with `args`: the prompt's one user message, or a JSON-RPC error.
pub fn prompt(name: &str, args: &Map<String, Value>) -> Result<Value, (i64, String)> {
    let arg = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let (description, text) = match name {
        "start_session" => {
            let project = arg("project")
                .map(|p| format!(" with project \"{p}\""))
                .unwrap_or_default();
            let task = match arg("task") {
                Some(t) => format!("Then call search for what this session is about: {t}."),
                None => "Then, before you change anything, call search for what you are about to work on.".to_owned(),
            };
            (
                "Start a session the intended way: the session-start block, then a search.",
                format!(
                    "Call the aletheia tool session_start_context{project} and read the block: its pinned memories, rules and facts hold for this project. {task} Read the hits that matter with get_observations, cite memories by id (#12) when you rely on them, and save what the next session should know with save_memory."
                ),
            )
        }
        "recall" => {
            let Some(topic) = arg("topic") else {
                return Err((-32602, "Invalid params: recall needs a topic".into()));
            };
            (
                "Recall what memory holds about a topic.",
                format!(
                    "Call the aletheia tool search for: {topic}. Read the best hits in full with get_observations (one call, every id), use timeline around the best one if the order of events matters, and answer from what they say, citing each memory by id (#12). Say so when memory holds nothing about it."
                ),
            )
        }
        other => {
            return Err((
                -32602,
                format!("Invalid params: no prompt \"{other}\": prompts/list names them"),
            ));
        }
    };
    Ok(json!({
        "description": description,
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
    }))
}

/// A project name as a URI path segment: percent-encoded but for unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The project name a URI segment spells; `None` for a bad escape or bytes that are not UTF-8.
fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_name_survives_its_uri() {
        for p in ["shop", "my shop", "ünïcode/€", "a%b"] {
            assert_eq!(decode(&encode(p)).as_deref(), Some(p));
        }
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%4"), None);
    }

    #[test]
    fn prompts_say_what_to_call_and_refuse_what_they_do_not_know() {
        let start = prompt("start_session", &Map::new()).unwrap();
        let text = start["messages"][0]["content"]["text"].as_str().unwrap();
        assert!(
            text.contains("session_start_context") && text.contains("search"),
            "{text}"
        );
        assert!(prompt("recall", &Map::new()).is_err());
        assert_eq!(prompt("nope", &Map::new()).unwrap_err().0, -32602);
        let listed = prompts();
        assert_eq!(listed["prompts"].as_array().unwrap().len(), 2);
    }
}
