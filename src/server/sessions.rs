//! `/mcp`'s sessions, with a cap: rmcp's [`LocalSessionManager`] keeps every session until it
//! has been idle for its keep-alive, and each one holds a worker task, its channels and the
//! client's `initialize` (some 55 KB), so a client that only ever initializes could fill the
//! server's memory. Here the number of live sessions is capped: a new session at the cap ends
//! the one idle longest first, whose client gets 404 on its next request and initializes again,
//! as MCP asks of it. Sessions idle past their keep-alive end on their own, and DELETE ends one
//! at once; either way the session leaves this table with rmcp's.

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionManager};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// rmcp's sessions, at most `cap` of them, each ending after `idle` without a request.
pub struct Sessions {
    inner: LocalSessionManager,
    cap: usize,
    /// When each live session was last used.
    used: Mutex<HashMap<SessionId, Instant>>,
    /// Creations one at a time, so that two at the cap do not both pass it.
    creating: tokio::sync::Mutex<()>,
}

impl Sessions {
    pub fn new(cap: usize, idle: Duration) -> Sessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        Sessions {
            inner,
            cap: cap.max(1),
            used: Mutex::new(HashMap::new()),
            creating: tokio::sync::Mutex::new(()),
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
        if let Some(old) = self.evictee() {
            tracing::info!(session = %old, cap = self.cap, "ending the longest-idle MCP session");
            // A session whose worker already stopped is gone either way.
            let _ = self.inner.close_session(&old).await;
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
        self.inner.close_session(id).await
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
