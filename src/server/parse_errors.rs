//! The errors hyper answers itself, in the server's JSON shape. A request line or header block
//! that does not parse, a URL longer than hyper takes (414) or a header block larger than its
//! buffer (431) is answered by hyper before any route runs, with a status and an empty body
//! that no layer of ours sees. hyper offers no hook for that answer, so this wrapper around
//! the socket recognises it as it is written (a bare 400, 414 or 431 head with
//! `content-length: 0` and no body; every answer of the application has a JSON body) and
//! writes the JSON error in its place. hyper closes the connection after it.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A socket whose bare parse-error answers become JSON ones.
pub struct JsonParseErrors<T> {
    io: T,
    /// The JSON answer still to be written, and how much of it has been.
    pending: Vec<u8>,
    written: usize,
}

impl<T> JsonParseErrors<T> {
    pub fn new(io: T) -> Self {
        JsonParseErrors {
            io,
            pending: Vec::new(),
            written: 0,
        }
    }
}

/// The JSON answer for `head`, when it is one of hyper's bare parse-error answers.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let status = text.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    let bare = text.ends_with("\r\n\r\n")
        && text.matches("\r\n\r\n").count() == 1
        && text.contains("\r\ncontent-length: 0\r\n")
        && !text.to_ascii_lowercase().contains("content-type");
    if !bare {
        return None;
    }
    let (reason, code, message) = match status {
        "400" => (
            "Bad Request",
            "bad_request",
            "the request is not valid HTTP/1.1: check its request line and headers",
        ),
        "414" => (
            "URI Too Long",
            "uri_too_long",
            "the URL is longer than the server takes (64 KB): send long arguments in a JSON body",
        ),
        "431" => (
            "Request Header Fields Too Large",
            "headers_too_large",
            "the request line and headers are larger than the server takes (128 KB)",
        ),
        _ => return None,
    };
    let body = serde_json::json!({ "error": { "code": code, "message": message } }).to_string();
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<T: AsyncWrite + Unpin> JsonParseErrors<T> {
    /// Write what is left of a replacement answer.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonParseErrors<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonParseErrors<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.pending.is_empty()
            && let Some(json) = replacement(buf)
        {
            this.pending = json;
            // The bare answer counts as written; the JSON one goes out in its place.
            let _ = this.drain(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::replacement;

    #[test]
    fn only_hypers_bare_error_heads_are_replaced() {
        let bare = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\ndate: Tue, 01 Dec 2026 15:00:00 GMT\r\n\r\n";
        let json = String::from_utf8(replacement(bare).unwrap()).unwrap();
        assert!(json.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{json}");
        let body = json.split_once("\r\n\r\n").unwrap().1;
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], "uri_too_long");
        assert!(json.contains(&format!("content-length: {}\r\n", body.len())));
        // An answer of the application, or one with a body, is left alone.
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(ours).is_none());
        assert!(
            replacement(
                b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"
            )
            .is_none()
        );
        assert!(replacement(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").is_none());
    }
}
