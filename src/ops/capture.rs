//! `capture_event`: one raw host event, stored as the hook would store it.
//!
//! `POST /v1/events` lets a host or a script that cannot run a command hand an event to the
//! server instead. It goes through the same adapter, redaction, title cut and dedupe as
//! `aletheia hook <tool> <event>` (and [`crate::capture::record`] writes it), so an event
//! sent both ways is stored once. The hook itself does not call this: its path has a deadline
//! and a spool that a server request does not need.

use super::{Access, Context, OpError, Operation};
use crate::capture::adapter;
use crate::redact::Redacted;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `capture_event`: a host's hook payload, through that host's adapter.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CaptureEvent {
    /// The host that sent it, as hook commands name it: claude-code, cursor, codex, gemini, windsurf, opencode, command-code.
    pub tool: String,
    /// The host's event name, as in its hook settings (PostToolUse, afterShellExecution, ...).
    pub event: String,
    /// The payload the host sent, unchanged.
    pub payload: Map<String, Value>,
    /// Projects never to record (the server passes ALETHEIA_EXCLUDED_PROJECTS, which keeps
    /// them from the hooks too).
    #[serde(default)]
    pub exclude_projects: Vec<String>,
}

/// What the event left in the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CapturedEvent {
    pub project: String,
    /// The memory the event became, if it carried one (a new one, or the identical one stored
    /// before).
    pub memory_id: Option<i64>,
    /// False when an identical memory was already stored.
    pub new: bool,
    /// Whether the session was queued for compression (a stop or session end).
    pub queued: bool,
    /// Whether the project is excluded, so nothing was stored.
    pub excluded: bool,
    /// For an event the host injects context on (a session start), the block it would get.
    pub context: Option<String>,
}

impl Operation for CaptureEvent {
    const NAME: &'static str = "capture_event";
    const DESCRIPTION: &'static str = "Store one raw hook event of a coding tool as its hook would: through the tool's adapter, redaction and dedupe. Returns the memory it became and, for a session start, the context block.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = CapturedEvent;

    fn run(self, ctx: &mut Context<'_>) -> Result<CapturedEvent, OpError> {
        let adapter = match adapter::load(&self.tool) {
            Some(Ok(a)) => a,
            Some(Err(e)) => return Err(OpError::InvalidArgument(e)),
            None => {
                return Err(OpError::InvalidArgument(format!(
                    "tool: unknown tool \"{}\": use one of {}.",
                    self.tool,
                    adapter::hosts().join(", ")
                )));
            }
        };
        let Some(spec) = adapter.events.get(&self.event) else {
            return Err(OpError::InvalidArgument(format!(
                "event: {} has no event \"{}\" that aletheia records.",
                self.tool, self.event
            )));
        };
        let now = ctx.clock.now();
        let mut capture = adapter.capture(spec, &Value::Object(self.payload), now);
        // Excluded projects are listed as their folders name them.
        let excluded = self.exclude_projects.contains(&capture.project);
        capture.project = crate::project::stored_key(&capture.project, ctx.redactor);
        ctx.caller.check_project(&capture.project)?;
        let mut out = CapturedEvent {
            project: capture.project.clone(),
            memory_id: None,
            new: false,
            queued: false,
            excluded,
            context: None,
        };
        if out.excluded {
            return Ok(out);
        }
        let memory = capture
            .memory
            .take()
            .map(|m| Redacted::new(m, ctx.redactor).with_title_cut(adapter::HOOK_TITLE_CHARS));
        let Some(local) = ctx.store.hook_store() else {
            return Err(OpError::StoreUnavailable(
                "capture_event stores through the local store's hook path; send events to the aletheia that runs beside the coding tool.".into(),
            ));
        };
        let inserted = crate::capture::record(
            local,
            &adapter.host,
            &capture,
            memory.as_ref(),
            ctx.redactor,
            now,
        )?;
        out.memory_id = inserted.as_ref().map(|i| i.id);
        out.new = inserted.is_some_and(|i| i.new);
        out.queued = capture.queue && capture.session_id.is_some();
        if capture.context {
            let block = crate::recall::context::build(
                ctx.store,
                &crate::recall::context::ContextOptions::for_project(&capture.project),
                &ctx.clock,
            )?;
            out.context = Some(block);
        }
        Ok(out)
    }
}
