//! `/mcp`: the MCP tools over Streamable HTTP, for clients that connect to the running server
//! instead of spawning `aletheia mcp` on stdio.
//!
//! The transport (sessions, `Mcp-Session-Id`, SSE framing, Host and Origin checks, protocol
//! version headers, `server/discover`) is the official SDK's, `rmcp`; the tools are the stdio
//! server's table ([`crate::mcp::tools`]), so both transports list and answer alike. Only the
//! glue lives here: rmcp's handler calls a tool through [`State::run`] on the blocking pool.
//!
//! rmcp streams every answer while sessions are on; [`super::json_answer`] turns a lone
//! response back into JSON. What rmcp decides and we cannot: a tools/call whose arguments are
//! not a JSON object does not parse as one, so it gets a JSON-RPC error (-32601) instead of
//! stdio's `isError` result.

use super::state::State;
use crate::mcp::{protocol, tools};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

/// The newest version with an `initialize` handshake. 2026-07-28 (no handshake, no sessions)
/// is left out: the stdio server does not speak it either, and its clients fall back to
/// `initialize` when `server/discover` does not offer it.
const NEWEST: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// How long an idle session lives. rmcp's default (5 minutes) would drop an agent's session
/// whenever its user steps away, and clients then have to notice the 404 and initialize again.
const SESSION_IDLE: Duration = Duration::from_secs(60 * 60);

/// `/mcp`: POST carries JSON-RPC, DELETE ends a session, GET answers 405 (no stream of
/// server-initiated messages: this server never sends any). Host must be one of
/// `allowed_hosts` (rmcp lets any Host through when the list is empty) and a request that
/// carries an Origin must come from one of `allowed_origins` (an empty list refuses them all).
pub fn router(
    state: Arc<State>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        // Honoured where rmcp answers without a session (server/discover).
        .with_json_response(true)
        .with_allowed_hosts(allowed_hosts)
        .with_allowed_origins(allowed_origins)
        .enforce_origin_validation();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(SESSION_IDLE);
    // One handler per session, so each remembers its own client's initialize.
    let service = StreamableHttpService::new(
        move || {
            Ok(Handler {
                state: Arc::clone(&state),
            })
        },
        Arc::new(sessions),
        config,
    );
    // rmcp serves GET as a standalone SSE stream whenever sessions are on; routing only POST and
    // DELETE to it makes axum answer GET with 405 (and `Allow: POST,DELETE`), as the spec allows.
    let delete = axum::routing::delete_service(service.clone())
        .layer(axum::middleware::map_response(session_ended));
    let post = axum::routing::post_service(service).layer(axum::middleware::map_response(
        super::json_answer::json_answer,
    ));
    axum::Router::new().route("/mcp", post.merge(delete))
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

struct Handler {
    state: Arc<State>,
}

impl ServerHandler for Handler {
    /// What `initialize` answers, the same as on stdio.
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": NEWEST,
            "capabilities": { "tools": { "listChanged": false } },
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
        // The client names itself in initialize; that name is who saved what.
        let name = context
            .peer
            .peer_info()
            .and_then(|p| protocol::client_name(&p.client_info.name))
            .unwrap_or_else(|| "mcp".to_owned());
        let args = request.arguments.unwrap_or_default();
        let out = self
            .state
            .run(self.state.caller(&name), tool.access(), move |ctx| {
                tool.call(ctx, args)
            })
            .await;
        Ok(match out {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]).into(),
            Err(e) => failure(e.to_string()),
        })
    }
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
