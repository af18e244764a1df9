//! The accept loop: HTTP/1.1 connections with a cap on how many are open and a deadline for
//! each request's header, so that clients which open connections and send nothing (or half a
//! request) cannot hold the server's files and memory and shut everyone else out.
//!
//! `axum::serve` keeps every connection it accepts for as long as the client likes; here:
//!
//! - a request's header must arrive within the header timeout, counted from the connection's
//!   opening or its previous answer (hyper's `header_read_timeout`), so an idle or half-sent
//!   connection is closed after a few seconds; its body must then arrive within the body timeout
//!   ([`super::body`]);
//! - at most `max_connections` are open. At the cap, a new connection closes the one that has
//!   waited longest without a request being answered (one still sending its header or body, or
//!   idle between requests); a flood of idle connections therefore only churns among itself and
//!   a health check, which sends its request at once, is served. Only when every connection is
//!   in the middle of an answer is the new one refused: a 503 in the usual JSON shape, then
//!   closed.
//!
//! Shutdown stops accepting, lets answers in flight finish and closes idle connections.

use super::error::ApiError;
use super::limits::Limits;
use super::parse_errors::JsonParseErrors;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::response::IntoResponse;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// The largest request line and header block hyper buffers: long enough for any URL the API
/// takes, and small enough that the cap of connections, each with a full buffer, stays a few
/// tens of megabytes.
const MAX_HEAD: usize = 128 * 1024;

/// Serve `app` on `listener` until `shutdown` resolves, then until the answers in flight end;
/// over TLS when `tls` is given.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()>,
    tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
) {
    let tls = tls.map(tokio_rustls::TlsAcceptor::from);
    let open = Arc::new(Open::new(limits.max_connections));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of files or a connection reset before it was taken: both pass; wait
                    // a moment so that a full table of files is not a busy loop.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Replies are small and written at once: without TCP_NODELAY, Nagle's algorithm and
        // the client's delayed ACK hold a reply's last segment back for about 40 ms.
        let _ = tcp.set_nodelay(true);
        match open.admit() {
            Some(slot) => {
                let (app, stop) = (app.clone(), stop_rx.clone());
                match tls.clone() {
                    None => {
                        tokio::spawn(connection(tcp, peer, slot, app, limits, stop));
                    }
                    Some(acceptor) => {
                        tokio::spawn(async move {
                            // The handshake has the header's deadline, and ends when the cap
                            // closes this connection to make room: a client that opens a
                            // connection and says nothing holds a slot no longer either way.
                            let conn = Arc::clone(&slot.0);
                            let evicted = conn.evict.notified();
                            let shake =
                                tokio::time::timeout(limits.header_timeout, acceptor.accept(tcp));
                            tokio::select! {
                                shaken = shake => match shaken {
                                    Ok(Ok(stream)) => {
                                        connection(stream, peer, slot, app, limits, stop).await
                                    }
                                    Ok(Err(e)) => {
                                        tracing::debug!(%peer, error = %e, "TLS handshake failed")
                                    }
                                    Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                                },
                                () = evicted => {}
                            }
                        });
                    }
                }
            }
            None => {
                tokio::spawn(refuse(tcp));
            }
        }
    }
    let _ = stop_tx.send(true);
    // Every connection task holds a receiver; the channel closes when the last one ends.
    drop(stop_rx);
    stop_tx.closed().await;
}

/// One connection, until it ends, is closed to make room, or the server stops.
async fn connection<S>(
    tcp: S,
    peer: SocketAddr,
    slot: Admitted,
    app: Router,
    limits: Limits,
    mut stop: tokio::sync::watch::Receiver<bool>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let conn = slot.0.clone();
    let body_timeout = limits.body_timeout;
    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let (conn, app) = (Arc::clone(&conn), app.clone());
        async move {
            let answering = Answering::start(&conn);
            let mut req: Request = req.map(Body::new);
            req.extensions_mut()
                .insert(ThisConnection { conn, body_timeout });
            // The guard counts wrong keys by the client's address.
            req.extensions_mut().insert(ConnectInfo(peer));
            let response = app.oneshot(req).await.unwrap_or_else(|e| match e {});
            Ok::<_, Infallible>(response.map(|inner| {
                Body::new(Tracked {
                    inner,
                    _answering: answering,
                })
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(MAX_HEAD);
    let served = builder.serve_connection(TokioIo::new(JsonParseErrors::new(tcp)), service);
    let mut served = std::pin::pin!(served);
    let evicted = slot.0.evict.notified();
    let mut evicted = std::pin::pin!(evicted);
    tokio::select! {
        _ = served.as_mut() => return,
        () = &mut evicted => return,
        _ = stop.wait_for(|s| *s) => {}
    }
    served.as_mut().graceful_shutdown();
    let _ = served.await;
}

/// The answer at the cap when no connection can be closed to make room.
async fn refuse(mut tcp: TcpStream) {
    let e = ApiError::new(
        503,
        "too_many_connections",
        "the server is answering as many connections as it takes: try again in a moment",
    )
    .into_response();
    let body = axum::body::to_bytes(e.into_body(), 4096)
        .await
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let write = async {
        tcp.write_all(head.as_bytes()).await?;
        tcp.write_all(&body).await?;
        tcp.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
}

/// The open connections.
struct Open {
    cap: usize,
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
    next: AtomicU64,
    epoch: Instant,
}

/// One open connection, as the cap sees it.
struct Conn {
    id: u64,
    /// Requests being answered on it, and how many of those are still reading their body.
    answering: AtomicUsize,
    reading: AtomicUsize,
    /// When it last had nothing to answer (milliseconds since [`Open::epoch`]).
    idle_since: AtomicU64,
    evict: tokio::sync::Notify,
    open: std::sync::Weak<Open>,
}

impl Open {
    fn new(cap: usize) -> Open {
        Open {
            cap: cap.max(1),
            conns: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        // Saturates after 584 million years of uptime.
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for a new connection, closing the longest-waiting one at the cap; `None` when
    /// every open connection is in the middle of an answer.
    fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut conns = self.table();
        if conns.len() >= self.cap {
            let victim = conns
                .values()
                .filter(|c| c.waiting())
                .min_by_key(|c| c.idle_since.load(Ordering::Relaxed))
                .map(|c| c.id)?;
            if let Some(c) = conns.remove(&victim) {
                c.evict.notify_one();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn {
            id,
            answering: AtomicUsize::new(0),
            reading: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.now()),
            evict: tokio::sync::Notify::new(),
            open: Arc::downgrade(self),
        });
        conns.insert(id, Arc::clone(&conn));
        Some(Admitted(conn))
    }
}

impl Conn {
    /// Nothing is being answered but a request still arriving: closing it loses no work.
    fn waiting(&self) -> bool {
        self.answering.load(Ordering::Acquire) <= self.reading.load(Ordering::Acquire)
    }
}

/// A connection's place in [`Open`], given back when its task ends.
struct Admitted(Arc<Conn>);

impl Drop for Admitted {
    fn drop(&mut self) {
        if let Some(open) = self.0.open.upgrade() {
            open.table().remove(&self.0.id);
        }
    }
}

/// A request being answered, from its header until its answer's last byte is written.
struct Answering(Arc<Conn>);

impl Answering {
    fn start(conn: &Arc<Conn>) -> Answering {
        conn.answering.fetch_add(1, Ordering::AcqRel);
        Answering(Arc::clone(conn))
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        if self.0.answering.fetch_sub(1, Ordering::AcqRel) == 1
            && let Some(open) = self.0.open.upgrade()
        {
            self.0.idle_since.store(open.now(), Ordering::Relaxed);
        }
    }
}

/// The connection a request came on, for [`super::body`]: how long its body may take, and
/// that the connection may be closed to make room while it arrives.
#[derive(Clone)]
pub struct ThisConnection {
    conn: Arc<Conn>,
    pub body_timeout: Duration,
}

impl ThisConnection {
    /// Mark the request as still arriving until the guard is dropped.
    pub fn reading(&self) -> impl Drop + use<> {
        struct Reading(Arc<Conn>);
        impl Drop for Reading {
            fn drop(&mut self) {
                self.0.reading.fetch_sub(1, Ordering::AcqRel);
            }
        }
        self.conn.reading.fetch_add(1, Ordering::AcqRel);
        Reading(Arc::clone(&self.conn))
    }
}

/// An answer's body that ends its [`Answering`] when hyper drops it, written or not.
struct Tracked {
    inner: Body,
    _answering: Answering,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_longest_waiting_connection_makes_room_and_busy_ones_never_do() {
        let open = Arc::new(Open::new(2));
        let a = open.admit().unwrap();
        let b = open.admit().unwrap();
        let busy_a = Answering::start(&a.0);
        // b is idle, a answers: the third closes b.
        let c = open.admit().unwrap();
        assert_eq!(open.table().len(), 2);
        assert!(!open.table().contains_key(&b.0.id));
        // a answers and c is reading a body: c makes room.
        let busy_c = Answering::start(&c.0);
        let this = ThisConnection {
            conn: Arc::clone(&c.0),
            body_timeout: Duration::from_secs(1),
        };
        let reading = this.reading();
        let d = open.admit().unwrap();
        assert!(!open.table().contains_key(&c.0.id));
        drop((reading, busy_c));
        // a and d both answer: a fifth is refused.
        let _busy_d = Answering::start(&d.0);
        assert!(open.admit().is_none());
        drop(busy_a);
        assert!(open.admit().is_some(), "a is idle again and makes room");
    }
}
