//! `/mcp`: the MCP tools over Streamable HTTP, for clients that connect to the running server
//! instead of spawning `aletheia mcp` on stdio.
//!
//! The transport (sessions, `Mcp-Session-Id`, SSE framing, Host and Origin checks, protocol
//! version headers, `server/discover`) is the official SDK's, `rmcp`; the tools are the stdio
//! server's table ([`crate::mcp::tools`]) and the resources and prompts its
//! ([`crate::mcp::resources`]), so both transports list and answer alike. Only the
//! glue lives here: rmcp's handler calls a tool through [`State::run`] on the blocking pool.
//!
//! rmcp streams every answer while sessions are on; [`super::json_answer`] turns a lone
//! response back into JSON. What rmcp decides and we cannot: a tools/call whose arguments are
//! not a JSON object does not parse as one, so it gets a JSON-RPC error (-32601) instead of
//! stdio's `isError` result.

use super::error::ApiError;
use super::sessions::Sessions;
use super::state::State;
use crate::mcp::{protocol, resources, tools};
use crate::ops::Access;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use std::borrow::Cow;
use std::sync::Arc;

/// The newest version with an `initialize` handshake. 2026-07-28 (no handshake, no sessions)
/// is left out: the stdio server does not speak it either, and its clients fall back to
/// `initialize` when `server/discover` does not offer it.
const NEWEST: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// `/mcp`: POST carries JSON-RPC, DELETE ends a session, GET answers 405 (no stream of
/// server-initiated messages: this server never sends any). Host must be one of
/// `allowed_hosts` (rmcp lets any Host through when the list is empty) and a request that
/// carries an Origin must come from one of `allowed_origins` (an empty list refuses them all).
/// `sessions` holds the live sessions (capped, each ending when idle).
pub fn router(
    state: Arc<State>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    sessions: Arc<Sessions>,
    callers: Callers,
) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        // Honoured where rmcp answers without a session (server/discover).
        .with_json_response(true)
        .with_allowed_hosts(allowed_hosts)
        .with_allowed_origins(allowed_origins)
        .enforce_origin_validation();
    // One handler per session, so each remembers its own client's initialize.
    let service = StreamableHttpService::new(
        move || {
            Ok(Handler {
                state: Arc::clone(&state),
                callers,
            })
        },
        sessions,
        config,
    );
    // rmcp serves GET as a standalone SSE stream whenever sessions are on; routing only POST and
    // DELETE to it makes axum answer GET with 405 (and `Allow: POST,DELETE`), as the spec allows.
    let delete = axum::routing::delete_service(service.clone())
        .layer(axum::middleware::map_response(session_ended));
    let post = axum::routing::post_service(service)
        .layer(axum::middleware::map_response(
            super::json_answer::json_answer,
        ))
        .layer(axum::middleware::from_fn(json_rpc_parse_errors));
    axum::Router::new()
        .route("/mcp", post.merge(delete))
        .layer(axum::middleware::map_response(session_errors))
}

/// rmcp's plain-text answers about sessions, as errors that say what to do; its other plain
/// answers get the JSON shape from [`super::error::json_errors`].
async fn session_errors(response: Response) -> Response {
    let status = response.status();
    if status != StatusCode::NOT_FOUND && status != StatusCode::BAD_REQUEST {
        return response;
    }
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_none_or(|v| v.as_bytes().starts_with(b"text/plain"));
    if !plain {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    let error = match String::from_utf8_lossy(&text).trim() {
        "Not Found: Session not found" => ApiError::new(
            404,
            "session_not_found",
            "this MCP session has ended (idle too long, replaced at the session cap, or deleted) or never was: initialize again without Mcp-Session-Id",
        ),
        "Bad Request: Session ID is required" => ApiError::new(
            400,
            "session_required",
            "send initialize first, then the Mcp-Session-Id header it answered with on every request",
        ),
        _ => return Response::from_parts(parts, Body::from(text)),
    };
    error.into_response()
}

/// rmcp answers a DELETE that ends a session with 202; the Python SDK takes only 200 or 204 as
/// success and warns on every disconnect otherwise. The session is gone and there is no body,
/// which is what 204 says.
async fn session_ended(mut response: axum::response::Response) -> axum::response::Response {
    if response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
    }
    response
}

/// rmcp answers a body that does not deserialize as a JSON-RPC message with 415 and a line of
/// text; JSON-RPC says 400 with a parse error (-32700) when it is not JSON at all and an invalid
/// request (-32600) when it is JSON of another shape. The body has been read whole already
/// ([`super::body`]), so keeping a copy costs nothing.
async fn json_rpc_parse_errors(req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
        });
    let bytes = axum::body::to_bytes(body, super::BODY_LIMIT)
        .await
        .unwrap_or_default();
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    if !json || response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    parse_error(&bytes)
}

/// The JSON-RPC error for a body that is not one JSON-RPC message.
fn parse_error(bytes: &Bytes) -> Response {
    let (id, code, message) = match serde_json::from_slice::<serde_json::Value>(bytes) {
        Err(e) => (
            serde_json::Value::Null,
            -32700,
            format!("Parse error: the body is not JSON ({e})"),
        ),
        Ok(v) => (
            v.get("id")
                .filter(|id| id.is_number() || id.is_string())
                .cloned()
                .unwrap_or(serde_json::Value::Null),
            -32600,
            "Invalid Request: the body must be one JSON-RPC 2.0 message, an object with \"jsonrpc\": \"2.0\" and a method (batches are not taken)".to_owned(),
        ),
    };
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
}

/// Who the tools are called as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callers {
    /// The server's own user (on loopback, or past the API key): every right.
    Local,
    /// A hub's tokens: each call as the token the hub's gate let in
    /// ([`super::hub::Authorized`]), and audited.
    Tokens,
}

struct Handler {
    state: Arc<State>,
    callers: Callers,
}

impl ServerHandler for Handler {
    /// What `initialize` answers, the same as on stdio.
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": NEWEST,
            "capabilities": resources::capabilities(),
            "serverInfo": { "name": "aletheia", "version": env!("CARGO_PKG_VERSION") },
            "instructions": protocol::INSTRUCTIONS,
        }))
        .expect("a valid initialize result")
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = tools::TOOLS
            .iter()
            .map(|t| serde_json::from_value::<Tool>(t.listing()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ErrorData::internal_error(format!("a tool's listing: {e}"), None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let caller = self.reader(&context)?;
        let listed = self
            .state
            .run(caller, Access::Read, |ctx| Ok(resources::list(ctx)))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        typed(listed)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        typed(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (caller, token) = self
            .caller(&context)
            .ok_or_else(|| ErrorData::invalid_request("This hub needs a token.", None))?;
        let uri = request.uri;
        let out = self
            .state
            .run(caller, Access::Read, move |ctx| {
                Ok(resources::read(ctx, &uri))
            })
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        // A hub audits a read of a memory as it audits a tool call.
        if let Some(token) = token {
            let entry = crate::store::hub::AuditEntry {
                at: crate::time::now_ms(),
                token_id: token.id,
                label: token.label,
                tool: "resources/read".to_owned(),
                project: None,
                result: if out.is_ok() { "ok" } else { "error" }.to_owned(),
            };
            super::hub::audit(&self.state, entry).await;
        }
        match out {
            Ok(v) => Ok(typed::<ReadResourceResult>(v)?.into()),
            Err(e) => Err(ErrorData::new(
                ErrorCode(i32::try_from(e.code()).unwrap_or(-32603)),
                e.message().to_owned(),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        typed(resources::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        match resources::prompt(&request.name, &args) {
            Ok(v) => Ok(typed::<GetPromptResult>(v)?.into()),
            Err((code, message)) => Err(ErrorData::new(
                ErrorCode(i32::try_from(code).unwrap_or(-32602)),
                message,
                None,
            )),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // An unknown tool is the model's mistake, not the protocol's: it reads the text.
        let Some(tool) = tools::find(&request.name) else {
            return Ok(failure(format!(
                "Unknown tool \"{}\": tools/list names the {} tools.",
                request.name,
                tools::TOOLS.len()
            )));
        };
        let args = request.arguments.unwrap_or_default();
        let Some((caller, token)) = self.caller(&context) else {
            return Ok(failure("This hub needs a token.".to_owned()));
        };
        // The project the audit names: the one asked for when it is a project name at all (the
        // audit keeps no argument, and a name past the limits is one), else a limited token's
        // default.
        let project = args
            .get("project")
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|p| !p.is_empty() && crate::project::check(p).is_ok())
            .map(str::to_owned)
            .or_else(|| {
                caller
                    .projects
                    .is_some()
                    .then(|| caller.default_project.clone())
            });
        let out = self
            .state
            .run(caller, tool.access(), move |ctx| tool.call(ctx, args))
            .await;
        if let Some(token) = token {
            let result = match &out {
                Ok(_) => "ok",
                Err(crate::ops::OpError::Forbidden(_)) => "refused",
                Err(_) => "error",
            };
            let entry = crate::store::hub::AuditEntry {
                at: crate::time::now_ms(),
                token_id: token.id,
                label: token.label,
                tool: tool.name().to_owned(),
                project,
                result: result.to_owned(),
            };
            super::hub::audit(&self.state, entry).await;
        }
        Ok(match out {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]).into(),
            Err(e) => failure(e.to_string()),
        })
    }
}

impl Handler {
    /// Who calls, and with which hub token: the client names itself in initialize, and that
    /// name is who saved what. `None` on a hub when the request carries no token (the gate lets
    /// none through; this is its second line).
    fn caller(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Option<(crate::ops::Caller, Option<crate::store::hub::Token>)> {
        let name = context
            .peer
            .peer_info()
            .and_then(|p| protocol::client_name(&p.client_info.name))
            .unwrap_or_else(|| "mcp".to_owned());
        match self.callers {
            Callers::Local => Some((self.state.client(&name), None)),
            Callers::Tokens => {
                let token = context
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|p| p.extensions.get::<super::hub::Authorized>())
                    .map(|a| a.0.clone())?;
                let caller = super::hub::tokens::caller(&token, &name, &self.state.default_project);
                Some((caller, Some(token)))
            }
        }
    }

    /// The caller, or the protocol error a request without a token gets.
    fn reader(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<crate::ops::Caller, ErrorData> {
        self.caller(context)
            .map(|(c, _)| c)
            .ok_or_else(|| ErrorData::invalid_request("This hub needs a token.", None))
    }
}

/// One of the shared listings (see [`resources`]) as rmcp's type.
fn typed<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, ErrorData> {
    serde_json::from_value(v)
        .map_err(|e| ErrorData::internal_error(format!("a listing: {e}"), None))
}

/// A tool that failed: a normal result the model reads, with `isError`.
fn failure(message: String) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(message)]).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_versions_are_the_stdio_servers() {
        let ours: Vec<&str> = ProtocolVersion::known_up_to(&NEWEST)
            .iter()
            .rev()
            .map(|v| v.as_str())
            .collect();
        assert_eq!(ours, protocol::SUPPORTED_VERSIONS);
    }

    #[test]
    fn every_listing_converts_without_loss() {
        for t in tools::TOOLS {
            let tool: Tool = serde_json::from_value(t.listing()).unwrap();
            assert_eq!(serde_json::to_value(&tool).unwrap(), t.listing());
        }
    }
}
