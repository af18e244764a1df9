//! The hub's admin API, for `admin` tokens alone: make, list and revoke tokens, and read the
//! audit, over HTTP as `mcp-link` and `hub audit` do on the hub's machine.
//!
//! - `POST /v1/tokens` `{"scope", "projects"?, "label"?, "expires_in_days"?}` → the token, once
//! - `GET /v1/tokens` → every token, never a secret
//! - `DELETE /v1/tokens/{id}` → revoked (404 when there is no such token)
//! - `GET /v1/audit?since=<ms>&token=<id>&limit=<n>` → audit rows, oldest first

use super::tokens::{self, Scope};
use super::{Authorized, State, audited, unavailable};
use crate::server::error::ApiError;
use axum::extract::{Extension, Path, Query};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use axum::{Json, Router};
use serde_json::json;
use std::sync::Arc;

/// The most audit rows one request returns.
const AUDIT_PAGE: usize = 1000;

pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/v1/tokens", get(list).post(create))
        .route("/v1/tokens/{id}", delete(revoke))
        .route("/v1/audit", get(audit))
        .with_state(state)
}

/// The refusal for a token that may not use this API; `None` for one that may. An admin token
/// limited to projects may not: a token it made, or the audit it read, would reach past them.
fn unless_admin(token: &Authorized) -> Option<Response> {
    let message = if token.0.scope != Scope::Admin.as_str() {
        "only an admin token may manage tokens and read the audit"
    } else if token.0.projects.is_some() {
        "an admin token limited to projects may not manage tokens or read the audit: use one made without --projects"
    } else {
        return None;
    };
    Some(ApiError::new(403, "forbidden", message).into_response())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Create {
    scope: String,
    #[serde(default)]
    projects: Vec<String>,
    #[serde(default)]
    label: String,
    expires_in_days: Option<u32>,
}

async fn create(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    body: Result<Json<Create>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if let Some(refused) = unless_admin(&token) {
        return refused;
    }
    let Json(c) = match body {
        Ok(b) => b,
        Err(e) => return ApiError::new(400, "bad_request", e.body_text()).into_response(),
    };
    let scope = match Scope::parse(&c.scope) {
        Ok(s) => s,
        Err(e) => return ApiError::new(400, "bad_request", e).into_response(),
    };
    for p in &c.projects {
        if let Err(e) = crate::project::check(p) {
            return ApiError::new(400, "bad_request", format!("projects: {e}")).into_response();
        }
    }
    if c.expires_in_days == Some(0) {
        return ApiError::new(
            400,
            "bad_request",
            "expires_in_days must be 1 or more, or left out for never",
        )
        .into_response();
    }
    let now = crate::time::now_ms();
    let req = tokens::Request {
        label: c.label,
        scope,
        projects: (!c.projects.is_empty()).then_some(c.projects),
        expires_at: c
            .expires_in_days
            .map(|d| now.saturating_add(i64::from(d) * 86_400_000)),
        created_by: Some(token.0.id),
    };
    let redactor = state.redactor();
    match state
        .with_store(move |store| tokens::mint(store, req, now, redactor))
        .await
    {
        Ok(Ok((id, made))) => {
            audited(&state, &token, "create_token", true).await;
            (
                axum::http::StatusCode::CREATED,
                Json(json!({ "id": id, "token": made })),
            )
                .into_response()
        }
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    }
}

async fn list(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
) -> Response {
    if let Some(refused) = unless_admin(&token) {
        return refused;
    }
    match state.with_store(|store| store.tokens()).await {
        Ok(Ok(rows)) => Json(json!({ "tokens": rows })).into_response(),
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    }
}

async fn revoke(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    Path(id): Path<i64>,
) -> Response {
    if let Some(refused) = unless_admin(&token) {
        return refused;
    }
    let now = crate::time::now_ms();
    let done = state
        .with_store(move |store| {
            let known = store.token(id)?.is_some();
            store.revoke_token(id, now).map(|revoked| (known, revoked))
        })
        .await;
    match done {
        Ok(Ok((false, _))) => {
            ApiError::new(404, "not_found", format!("no token {id}")).into_response()
        }
        Ok(Ok((true, revoked))) => {
            audited(&state, &token, "revoke_token", true).await;
            Json(json!({ "id": id, "revoked": true, "already": !revoked })).into_response()
        }
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditQuery {
    #[serde(default)]
    since: i64,
    token: Option<i64>,
    limit: Option<usize>,
}

async fn audit(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    Extension(token): Extension<Authorized>,
    query: Result<Query<AuditQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    if let Some(refused) = unless_admin(&token) {
        return refused;
    }
    let Query(q) = match query {
        Ok(q) => q,
        Err(e) => return ApiError::new(400, "bad_request", e.body_text()).into_response(),
    };
    let limit = q.limit.unwrap_or(AUDIT_PAGE).clamp(1, AUDIT_PAGE);
    match state
        .with_store(move |store| store.calls(q.since, q.token, limit))
        .await
    {
        Ok(Ok(rows)) => Json(json!({ "calls": rows })).into_response(),
        Ok(Err(e)) => unavailable(e),
        Err(e) => unavailable(e),
    }
}
