//! `/mcp` answers a plain request with one JSON body while keeping rmcp's sessions.
//!
//! rmcp streams every answer as `text/event-stream` while sessions are on (its `json_response`
//! applies only without sessions). This layer reads that stream as it arrives: when the first
//! JSON-RPC message is the response, it becomes the body as `application/json`, with the
//! session headers kept. Anything sent before the response (a notification, a request to the
//! client), or an answer slower than [`JSON_WAIT`], means the exchange needs a stream, so the
//! bytes read so far are replayed ahead of the rest and the client gets rmcp's stream
//! untouched. The events are parsed by `sse-stream`, the crate rmcp itself uses for them.
//!
//! Clients must accept both forms on every POST (MCP, "Sending Messages to the Server"), and
//! rmcp refuses a POST whose Accept lacks either, so a JSON answer is always one the client
//! asked for.

use axum::body::{Body, Bytes};
use axum::http::HeaderValue;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::response::Response;
use futures_util::StreamExt;
use sse_stream::{Sse, SseStream};
use std::time::Duration;

/// How long the answer may take before the client gets the stream instead: rmcp's stream sends
/// its headers at once and a keep-alive comment every 15 s, which keeps a slow call alive
/// through clients' and proxies' idle timeouts. A JSON answer sends nothing until it is whole.
const JSON_WAIT: Duration = Duration::from_secs(10);

/// A response middleware for rmcp's POST service (`axum::middleware::map_response`).
pub async fn json_answer(response: Response) -> Response {
    answer_within(response, JSON_WAIT).await
}

async fn answer_within(response: Response, wait: Duration) -> Response {
    let streamed = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if !streamed {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let mut raw = body.into_data_stream();
    // The bytes read so far: a stream passed on is passed on byte for byte, comments and all.
    let mut seen: Vec<Bytes> = Vec::new();
    let answer = {
        let tee = (&mut raw).inspect(|chunk| {
            if let Ok(bytes) = chunk {
                seen.push(bytes.clone());
            }
        });
        first_answer(SseStream::from_bytes_stream(tee), wait).await
    };
    match answer {
        Some(json) => {
            parts.headers.remove(CONTENT_LENGTH);
            parts
                .headers
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            Response::from_parts(parts, Body::from(json))
        }
        None => {
            let replay = futures_util::stream::iter(seen.into_iter().map(Ok)).chain(raw);
            Response::from_parts(parts, Body::from_stream(replay))
        }
    }
}

/// The response, when it is the stream's first message and comes within `wait`; `None` when a
/// message comes before it, the stream ends or does not parse, or the wait runs out.
async fn first_answer<S>(mut events: S, wait: Duration) -> Option<String>
where
    S: futures_util::Stream<Item = Result<Sse, sse_stream::Error>> + Unpin,
{
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, events.next()).await {
            Ok(Some(Ok(Sse { data, .. }))) => match data {
                // rmcp opens a stream with a priming event (an id to resume from, no data).
                None => continue,
                Some(data) if data.is_empty() => continue,
                Some(data) if is_response(&data) => return Some(data),
                Some(_) => return None,
            },
            _ => return None,
        }
    }
}

/// A JSON-RPC response or error: an id and no method.
fn is_response(data: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(data).is_ok_and(|m| {
        m.get("id").is_some()
            && m.get("method").is_none()
            && (m.get("result").is_some() || m.get("error").is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    fn sse(body: &'static str) -> Response {
        Response::builder()
            .status(StatusCode::OK)
            .header(CONTENT_TYPE, "text/event-stream")
            .header("mcp-session-id", "s1")
            .body(Body::from(body))
            .unwrap()
    }

    async fn read(r: Response) -> (String, String) {
        let kind = r.headers()[CONTENT_TYPE].to_str().unwrap().to_owned();
        let bytes = axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap();
        (kind, String::from_utf8(bytes.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn a_lone_response_becomes_json_with_the_session_kept() {
        let r = json_answer(sse(
            "id: 0\nretry: 3000\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
        ))
        .await;
        assert_eq!(r.headers()["mcp-session-id"], "s1");
        let (kind, body) = read(r).await;
        assert_eq!(kind, "application/json");
        assert_eq!(body, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    }

    #[tokio::test]
    async fn an_error_response_becomes_json_too() {
        let (kind, body) = read(
            json_answer(sse(
                "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32601,\"message\":\"x\"}}\n\n",
            ))
            .await,
        )
        .await;
        assert_eq!(kind, "application/json");
        assert!(body.contains("-32601"), "{body}");
    }

    #[tokio::test]
    async fn a_notification_first_keeps_the_whole_stream() {
        let (kind, body) = read(
            json_answer(sse(concat!(
                "id: 0\ndata:\n\n",
                "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
                "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
            )))
            .await,
        )
        .await;
        assert_eq!(kind, "text/event-stream");
        let datas: Vec<&str> = body.lines().filter(|l| l.starts_with("data:")).collect();
        assert_eq!(datas.len(), 3, "{body}");
        assert!(datas[1].contains("notifications/progress") && datas[2].contains("\"id\":2"));
        assert!(body.contains("id: 0") || body.contains("id:0"), "{body}");
    }

    #[tokio::test]
    async fn a_slow_answer_gets_the_stream_with_its_keep_alives() {
        // The priming event and a keep-alive comment, then nothing for longer than the wait.
        let chunks = futures_util::stream::iter([
            Ok::<_, std::io::Error>(Bytes::from_static(b"id: 0\nretry: 3000\ndata:\n\n")),
            Ok(Bytes::from_static(b":\n\n")),
        ])
        .chain(futures_util::stream::pending());
        let r = Response::builder()
            .header(CONTENT_TYPE, "text/event-stream")
            .body(Body::from_stream(chunks))
            .unwrap();
        let r = answer_within(r, Duration::from_millis(50)).await;
        assert_eq!(r.headers()[CONTENT_TYPE], "text/event-stream");
        let mut body = r.into_body().into_data_stream();
        let mut got = Vec::new();
        while got.len() < b"id: 0\nretry: 3000\ndata:\n\n:\n\n".len() {
            got.extend_from_slice(&body.next().await.unwrap().unwrap());
        }
        assert_eq!(
            got, b"id: 0\nretry: 3000\ndata:\n\n:\n\n",
            "passed on byte for byte"
        );
    }

    #[tokio::test]
    async fn json_and_other_answers_pass_untouched() {
        let r = Response::builder()
            .header(CONTENT_TYPE, "application/json")
            .body(Body::from("{\"x\":1}"))
            .unwrap();
        assert_eq!(read(json_answer(r).await).await.1, "{\"x\":1}");
    }
}
