//! The one shape of every HTTP error: `{"error": {"code", "message"}}` with its status, so a
//! client handles a refused key, a bad argument and a missing memory the same way.

use crate::ops::OpError;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
}

impl From<OpError> for ApiError {
    fn from(e: OpError) -> ApiError {
        let code = match &e {
            OpError::InvalidArgument(_) => "invalid_argument",
            OpError::NotFound(_) => "not_found",
            OpError::Forbidden(_) => "forbidden",
            OpError::Conflict(_) => "conflict",
            OpError::StoreUnavailable(_) => "store_unavailable",
        };
        ApiError::new(e.http_status(), code, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = json!({ "error": { "code": self.code, "message": self.message } });
        (status, Json(body)).into_response()
    }
}

/// The code of an error answered without one of ours, by its status.
fn code_for(status: u16) -> &'static str {
    match status {
        400 => "bad_request",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        406 => "not_acceptable",
        408 => "request_timeout",
        409 => "conflict",
        413 => "payload_too_large",
        414 => "uri_too_long",
        415 => "unsupported_media_type",
        422 => "invalid_argument",
        431 => "headers_too_large",
        503 => "unavailable",
        500..=599 => "internal",
        _ => "refused",
    }
}

/// Errors the router, the body cap and the MCP transport answer themselves (404, 405, 406,
/// 413, 415, rmcp's 400s and 500s) come as plain text or empty; give every error status the
/// same JSON shape as every other error, keeping the status and headers such as `Allow`. A
/// JSON answer (ours, or a JSON-RPC error on `/mcp`) and the dashboard's own HTML pages (its
/// error pages and the sign-in page, for a person to read) pass untouched.
pub async fn json_errors(resp: Response) -> Response {
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return resp;
    }
    let answered = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
    if answered {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    let message = match String::from_utf8_lossy(&text).trim() {
        "" if status.as_u16() == 405 => "this route does not take that method".to_owned(),
        "" if status.as_u16() == 404 => "no such route: /v1/openapi.json lists them".to_owned(),
        "" => status.canonical_reason().unwrap_or("refused").to_owned(),
        t if status.as_u16() == 413 => format!("{t} (the body limit is 4 MB)"),
        t => t.to_owned(),
    };
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.headers.remove(axum::http::header::CONTENT_TYPE);
    let fresh = ApiError::new(status.as_u16(), code_for(status.as_u16()), message).into_response();
    let (fresh_parts, body) = fresh.into_parts();
    parts.headers.extend(fresh_parts.headers);
    Response::from_parts(parts, body)
}
