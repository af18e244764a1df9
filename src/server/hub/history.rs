//! The signed histories' part of the sync API (see [`crate::history::sync`]), for `sync` and
//! `admin` tokens:
//!
//! - `POST /v1/sync/history` a machine's own entries (`{"machine", "key", "entries"}`) →
//!   `{"stored"}`; `409 key_changed` when the key is not the one pinned for the machine (or is
//!   pinned to another), `403` when the machine is another token's, `422 history_refused`
//!   naming the first entry that does not hold. Nothing of a refused push is kept.
//! - `GET /v1/sync/history?after=<n>&limit=<n>&except=<machine>` → `{"entries", "keys",
//!   "next", "left"}`: the entries the hub took after `n`, without machine `except`'s (the
//!   puller's own), with each machine's key.
//!
//! Entries name items and carry content hashes, not content; still, a token limited to
//! projects would learn which items of other projects changed and when, so it pushes its
//! own machine's entries but pulls none (an empty page).

use super::{Authorized, State, audited, unavailable};
use crate::history::sync::{MAX_ENTRIES, Page, Push, Refusal};
use crate::server::error::ApiError;
use axum::extract::{Extension, Query};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::json;
use std::sync::Arc;

pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/v1/sync/history", post(push).get(pull))
        .with_state(state)
}

async fn push(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    body: Result<Json<Push>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if let Some(refused) = super::sync::unless_sync(&token) {
        return refused;
    }
    let Json(push) = match body {
        Ok(b) => b,
        Err(e) => return ApiError::new(400, "bad_request", e.body_text()).into_response(),
    };
    if push.machine.trim().is_empty() || push.entries.len() > MAX_ENTRIES {
        return ApiError::new(
            400,
            "bad_request",
            format!(
                "a history push names its sync machine and carries at most {MAX_ENTRIES} entries"
            ),
        )
        .into_response();
    }
    let token_id = token.0.id;
    let result = state
        .with_store(move |store| store.history_receive(&push, token_id, crate::time::now_ms()))
        .await;
    let response = match result {
        Ok(Ok(Ok(stored))) => Json(json!({ "stored": stored })).into_response(),
        Ok(Ok(Err(
            r @ (Refusal::KeyChanged { .. }
            | Refusal::KeyElsewhere { .. }
            | Refusal::NameTaken { .. }),
        ))) => ApiError::new(409, "key_changed", r.to_string()).into_response(),
        Ok(Ok(Err(r @ Refusal::OtherToken { .. }))) => {
            ApiError::new(403, "forbidden", r.to_string()).into_response()
        }
        Ok(Ok(Err(r))) => ApiError::new(422, "history_refused", r.to_string()).into_response(),
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    };
    audited(
        &state,
        &token,
        "sync_history_push",
        response.status().is_success(),
    )
    .await;
    response
}

#[derive(serde::Deserialize)]
struct PullQuery {
    #[serde(default)]
    after: i64,
    limit: Option<usize>,
    #[serde(default)]
    except: String,
}

async fn pull(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    query: Result<Query<PullQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    if let Some(refused) = super::sync::unless_sync(&token) {
        return refused;
    }
    let Query(q) = match query {
        Ok(q) => q,
        Err(e) => return ApiError::new(400, "bad_request", e.body_text()).into_response(),
    };
    if token.0.projects.is_some() {
        return Json(Page {
            next: q.after,
            ..Page::default()
        })
        .into_response();
    }
    let limit = q.limit.unwrap_or(1000).clamp(1, MAX_ENTRIES);
    let result = state
        .with_store(move |store| store.history_since(q.after, limit, &q.except))
        .await;
    let response = match result {
        Ok(Ok(page)) => Json(page).into_response(),
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    };
    audited(
        &state,
        &token,
        "sync_history_pull",
        response.status().is_success(),
    )
    .await;
    response
}
