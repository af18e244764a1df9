//! `/mcp`'s sessions, with a cap: rmcp's [`LocalSessionManager`] keeps every session until it
//! has been idle for its keep-alive, and each one holds a worker task, its channels and the
//! client's `initialize` (some 55 KB), so a client that only ever initializes could fill the
//! server's memory. Here the number of live sessions is capped: a new session at the cap ends
//! the one idle longest first, whose client gets 404 on its next request and initializes again,
//! as MCP asks of it. Sessions idle past their keep-alive end on their own (and leave this
//! table when it is next full), and DELETE ends one at once.
//!
//! A session's memory is freed when it ends, but glibc's allocator keeps freed memory in its
//! per-thread arenas rather than giving it back: measured, 20,000 sessions ended by DELETE
//! left the server at 1 GB resident, and `malloc_trim` took it to 21 MB. So a second after
//! sessions end, the allocator is asked to give back what it holds free.

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionManager};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// rmcp's sessions, at most `cap` of them, each ending after `idle` without a request.
pub struct Sessions {
    inner: LocalSessionManager,
    cap: usize,
    /// When each live session was last used.
    used: Mutex<HashMap<SessionId, Instant>>,
    /// Creations one at a time, so that two at the cap do not both pass it.
    creating: tokio::sync::Mutex<()>,
    /// Tells the trimming task that sessions ended.
    ended: Arc<tokio::sync::Notify>,
}

impl Sessions {
    /// Within a Tokio runtime: the task that gives ended sessions' memory back runs on it.
    pub fn new(cap: usize, idle: Duration) -> Sessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        let ended = Arc::new(tokio::sync::Notify::new());
        tokio::spawn(give_back_memory(Arc::clone(&ended)));
        Sessions {
            inner,
            cap: cap.max(1),
            used: Mutex::new(HashMap::new()),
            creating: tokio::sync::Mutex::new(()),
            ended,
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Instant>> {
        self.used.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn touch(&self, id: &SessionId) {
        if let Some(at) = self.table().get_mut(id) {
            *at = Instant::now();
        }
    }

    /// The session idle longest, taken out of the table, when the table is full.
    fn evictee(&self) -> Option<SessionId> {
        let mut used = self.table();
        if used.len() < self.cap {
            return None;
        }
        let id = used
            .iter()
            .min_by_key(|(_, at)| **at)
            .map(|(id, _)| id.clone())?;
        used.remove(&id);
        Some(id)
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _one = self.creating.lock().await;
        // Sessions rmcp ended itself (idle past their keep-alive, or never initialized) are
        // still in the table: at the cap, drop those before ending a live one.
        if self.table().len() >= self.cap {
            let ids: Vec<SessionId> = self.table().keys().cloned().collect();
            let mut gone = false;
            for id in ids {
                if !self.inner.has_session(&id).await.unwrap_or(false) {
                    self.table().remove(&id);
                    gone = true;
                }
            }
            if gone {
                self.ended.notify_one();
            }
        }
        if let Some(old) = self.evictee() {
            tracing::info!(session = %old, cap = self.cap, "ending the longest-idle MCP session");
            // A session whose worker already stopped is gone either way.
            let _ = self.inner.close_session(&old).await;
            self.ended.notify_one();
        }
        let (id, transport) = self.inner.create_session().await?;
        self.table().insert(id.clone(), Instant::now());
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.table().remove(id);
        let closed = self.inner.close_session(id).await;
        self.ended.notify_one();
        closed
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }

    // No external store: a session unknown here is gone, and its client gets 404.
    async fn restore_session(
        &self,
        _id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(RestoreOutcome::NotSupported)
    }
}

/// A second after sessions end (so that a burst of them is one pass), ask the allocator to
/// return the memory it holds free. It lives as long as the server.
async fn give_back_memory(ended: Arc<tokio::sync::Notify>) {
    loop {
        ended.notified().await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let _ = tokio::task::spawn_blocking(trim).await;
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim only returns free pages to the system; no pointer is touched.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}
