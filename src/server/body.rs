//! Every request's body, read whole before its route runs: at most [`super::BODY_LIMIT`] bytes
//! (413 beyond) and within the body timeout (408 after it), so that a client sending half a
//! body, or one byte at a time, holds a connection for seconds rather than for as long as it
//! likes. It runs behind the guard, so a request without the key never has its body read.
//! While the body arrives, the connection counts as waiting and may be closed to make room
//! for a new one ([`super::listen`]).

use super::BODY_LIMIT;
use super::error::ApiError;
use super::limits::Limits;
use super::listen::ThisConnection;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

/// The middleware (`axum::middleware::from_fn`).
pub async fn read_whole(req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
        return too_large();
    }
    let this = parts.extensions.get::<ThisConnection>().cloned();
    let timeout = this
        .as_ref()
        .map_or(Limits::default().body_timeout, |c| c.body_timeout);
    let reading = this.as_ref().map(|c| c.reading());
    let read = tokio::time::timeout(timeout, collect(body)).await;
    drop(reading);
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(refusal)) => return refusal,
        Err(_) => {
            let mut r = ApiError::new(
                408,
                "request_timeout",
                format!(
                    "the request's body did not arrive within {} ms (ALETHEIA_BODY_TIMEOUT_MS)",
                    timeout.as_millis()
                ),
            )
            .into_response();
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

async fn collect(body: Body) -> Result<Bytes, Response> {
    let mut stream = body.into_data_stream();
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut len = 0;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::new(
                400,
                "invalid_body",
                format!("the request's body could not be read: {e}"),
            )
            .into_response()
        })?;
        len += chunk.len();
        if len > BODY_LIMIT {
            return Err(too_large());
        }
        chunks.push(chunk);
    }
    Ok(match chunks.len() {
        0 => Bytes::new(),
        1 => chunks.pop().unwrap_or_default(),
        _ => chunks.concat().into(),
    })
}

fn too_large() -> Response {
    let mut r = ApiError::new(
        413,
        "payload_too_large",
        "the request's body is larger than 4 MB, the most the server takes",
    )
    .into_response();
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}
