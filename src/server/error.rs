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
