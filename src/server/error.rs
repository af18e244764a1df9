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

/// Errors the router, the body cap and the MCP transport answer themselves (413, 405, 406,
/// 415) come as plain text; give them the same JSON shape as every other error, keeping the
/// status and headers such as `Allow`.
pub async fn json_errors(resp: Response) -> Response {
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let code = match status.as_u16() {
        413 => "payload_too_large",
        405 => "method_not_allowed",
        406 => "not_acceptable",
        415 => "unsupported_media_type",
        _ => return resp,
    };
    if is_json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    let message = match String::from_utf8_lossy(&text).trim() {
        "" if status.as_u16() == 405 => "this route does not take that method".to_owned(),
        "" => status.canonical_reason().unwrap_or("refused").to_owned(),
        t if status.as_u16() == 413 => format!("{t} (the body limit is 4 MB)"),
        t => t.to_owned(),
    };
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.headers.remove(axum::http::header::CONTENT_TYPE);
    let fresh = ApiError::new(status.as_u16(), code, message).into_response();
    let (fresh_parts, body) = fresh.into_parts();
    parts.headers.extend(fresh_parts.headers);
    Response::from_parts(parts, body)
}
