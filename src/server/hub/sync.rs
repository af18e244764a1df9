//! The sync API that `aletheia sync` speaks, for `sync` and `admin` tokens:
//!
//! - `POST /v1/sync/push` a batch (`{"projects": {identity: name}, "changes": [{"item": "memory", "rev", "base"?, "origin", ...}]}`) →
//!   `{"accepted", "unchanged", "conflicts", "refused", "orphans", "current": batch}`, where
//!   `current` holds the hub's version of each item it did not take as sent
//! - `GET /v1/sync/pull?after=<seq>&limit=<n>&machine=<id>` → a batch of what the hub gained
//!   after `seq`, without the machine's own revisions, with `next` (the cursor to send next)
//!   and `left` (how many sequence numbers remain past it)
//! - `GET /v1/sync/conflicts?limit=<n>` → the kept losing versions, newest first
//!
//! The signed histories travel through `/v1/sync/history` (see `history`).
//!
//! Everything pushed is redacted by the hub's own rules before it is stored, so a machine
//! with older rules cannot leak through the hub. A token limited to projects pushes and pulls
//! only theirs (a rule for every project is another project's too). Each request adds an
//! audit row, as a tool call does.

use super::tokens::Scope;
use super::{Authorized, State, audited, unavailable};
use crate::server::error::ApiError;
use crate::store::hub::Token;
use crate::sync::item::Batch;
use axum::extract::{Extension, Query};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use std::sync::Arc;

/// The most items one pull answers with.
const MAX_PULL: usize = 10_000;

pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/v1/sync/push", post(push))
        .route("/v1/sync/pull", get(pull))
        .route("/v1/sync/conflicts", get(conflicts))
        .with_state(state)
}

pub(super) fn unless_sync(token: &Authorized) -> Option<Response> {
    if matches!(Scope::parse(&token.0.scope), Ok(Scope::Sync | Scope::Admin)) {
        return None;
    }
    Some(
        ApiError::new(
            403,
            "forbidden",
            "this token cannot sync: make one with `aletheia mcp-link create --scope sync`",
        )
        .into_response(),
    )
}

/// Which of the hub's projects `token` may reach (`"\0every project"` stands for a rule for
/// every project, which only an unlimited token may write or read).
fn allowed(token: &Token) -> impl Fn(&str) -> bool + Send + 'static {
    let projects = token.projects.clone();
    move |p: &str| {
        projects
            .as_ref()
            .is_none_or(|list| list.iter().any(|a| a == p))
    }
}

async fn push(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    body: Result<Json<Batch>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if let Some(refused) = unless_sync(&token) {
        return refused;
    }
    let Json(batch) = match body {
        Ok(b) => b,
        Err(e) => return ApiError::new(400, "bad_request", e.body_text()).into_response(),
    };
    let redactor = state.redactor();
    let allow = allowed(&token.0);
    let (token_id, may_tie) = (token.0.id, token.0.projects.is_none());
    let result = state
        .with_store(move |store| {
            let batch = crate::redact::Redacted::new(batch, redactor);
            let pusher = crate::store::sync::Pusher {
                token: token_id,
                allowed: &allow,
                may_tie,
                now: crate::time::now_ms(),
            };
            store.sync_receive(&batch, &pusher)
        })
        .await;
    let response = match result {
        Ok(Ok(r)) if r.rejected.is_some() => {
            ApiError::new(400, "bad_request", r.rejected.unwrap_or_default()).into_response()
        }
        Ok(Ok(r)) => Json(json!({
            "accepted": r.accepted,
            "unchanged": r.unchanged,
            "conflicts": r.conflicts,
            "refused": r.refused,
            "orphans": r.orphans,
            "current": r.current,
        }))
        .into_response(),
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    };
    audited(&state, &token, "sync_push", response.status().is_success()).await;
    response
}

#[derive(serde::Deserialize)]
struct PullQuery {
    #[serde(default)]
    after: i64,
    limit: Option<usize>,
    #[serde(default)]
    machine: String,
}

async fn pull(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    query: Result<Query<PullQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    if let Some(refused) = unless_sync(&token) {
        return refused;
    }
    let Query(q) = match query {
        Ok(q) => q,
        Err(e) => return ApiError::new(400, "bad_request", e.body_text()).into_response(),
    };
    let limit = q
        .limit
        .unwrap_or(crate::sync::client::DEFAULT_BATCH)
        .clamp(1, MAX_PULL);
    let allow = allowed(&token.0);
    let result = state
        .with_store(move |store| store.sync_changes_since(q.after, limit, &q.machine, &allow))
        .await;
    let response = match result {
        Ok(Ok((batch, next, left))) => Json(json!({
            "projects": batch.projects,
            "changes": batch.changes,
            "next": next,
            "left": left,
        }))
        .into_response(),
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    };
    audited(&state, &token, "sync_pull", response.status().is_success()).await;
    response
}

#[derive(serde::Deserialize)]
struct ConflictQuery {
    limit: Option<usize>,
}

async fn conflicts(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    Query(q): Query<ConflictQuery>,
) -> Response {
    if let Some(refused) = unless_sync(&token) {
        return refused;
    }
    let limit = q.limit.unwrap_or(100).clamp(1, 1000);
    let limited = token.0.projects.is_some();
    match state.with_store(move |store| store.sync_conflicts(limit)).await {
        // A limited token would see other projects' versions: only unlimited ones list them.
        Ok(Ok(_)) if limited => ApiError::new(
            403,
            "forbidden",
            "a token limited to projects may not list the hub's conflicts: use one made without --projects",
        )
        .into_response(),
        Ok(Ok(rows)) => Json(json!({ "conflicts": rows })).into_response(),
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    }
}
