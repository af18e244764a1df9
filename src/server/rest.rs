//! The REST API under `/v1`: each route is one operation, its arguments gathered from the path,
//! the query string and the JSON body, its result the operation's own JSON.
//!
//! The routes are a table rather than a handler each, so that the OpenAPI document
//! (`/v1/openapi.json`, see [`super::openapi`]) is made from the same table and the operations'
//! own schemas, and cannot drift from what is served. Query strings and paths carry text only:
//! a value is turned into the number, boolean or list the operation's schema asks for, and
//! anything else is left for the operation to refuse with its usual one-line message.

use super::error::ApiError;
use super::state::State;
use crate::ops::{self, Access, Entry};
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, on};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// One route: an operation, and what the path fixes of its arguments.
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
    pub op: &'static str,
    /// Arguments the route itself sets (`include_superseded` for a fact's history).
    pub fixed: &'static [(&'static str, FixedValue)],
    /// How path parameters map to arguments: (`{param}`, argument); `ids` takes a one-item list.
    pub params: &'static [(&'static str, &'static str)],
    /// 201 for a route that creates something.
    pub status: u16,
    /// The route names one thing: the operation's one-item list becomes that item, and an
    /// empty list a 404.
    pub one: bool,
    pub summary: &'static str,
}

#[derive(Clone, Copy)]
pub enum FixedValue {
    Bool(bool),
}

/// Every route of the API but `/v1/health`, `/v1/events` and `/v1/openapi.json`.
pub static ROUTES: &[Route] = &[
    Route {
        method: "GET",
        path: "/v1/memories",
        op: "search",
        fixed: &[],
        params: &[],
        status: 200,
        one: false,
        summary: "Search memories (the same filters as the search tool); without a query, the newest first.",
    },
    Route {
        method: "POST",
        path: "/v1/memories",
        op: "save_memory",
        fixed: &[],
        params: &[],
        status: 201,
        one: false,
        summary: "Save a note.",
    },
    Route {
        method: "GET",
        path: "/v1/memories/{id}",
        op: "get_observations",
        fixed: &[],
        params: &[("id", "ids")],
        status: 200,
        one: true,
        summary: "One memory in full.",
    },
    Route {
        method: "GET",
        path: "/v1/memories/{id}/timeline",
        op: "timeline",
        fixed: &[],
        params: &[("id", "anchor")],
        status: 200,
        one: false,
        summary: "The memories around one, in time order.",
    },
    Route {
        method: "PUT",
        path: "/v1/memories/{id}",
        op: "edit_note",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "Replace a note's text (and title); the text it replaced is kept as a version.",
    },
    Route {
        method: "GET",
        path: "/v1/memories/{id}/versions",
        op: "inspect",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "A memory with every text it held, newest first.",
    },
    Route {
        method: "POST",
        path: "/v1/memories/{id}/feedback",
        op: "feedback",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "Say what a memory is worth (vote: favourite, unfavourite, positive or negative).",
    },
    Route {
        method: "POST",
        path: "/v1/memories/{id}/dismiss",
        op: "dismiss_memory",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "Dismiss a memory (or a fact, rule or episode with item_type); restore undoes it.",
    },
    Route {
        method: "POST",
        path: "/v1/memories/{id}/restore",
        op: "restore_memory",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "Restore a dismissed memory.",
    },
    Route {
        method: "GET",
        path: "/v1/context",
        op: "session_start_context",
        fixed: &[],
        params: &[],
        status: 200,
        one: false,
        summary: "The block a session starts with.",
    },
    Route {
        method: "GET",
        path: "/v1/facts/{subject}",
        op: "fact_history",
        fixed: &[],
        params: &[("subject", "subject")],
        status: 200,
        one: false,
        summary: "The current facts about a subject.",
    },
    Route {
        method: "GET",
        path: "/v1/facts/{subject}/history",
        op: "fact_history",
        fixed: &[("include_superseded", FixedValue::Bool(true))],
        params: &[("subject", "subject")],
        status: 200,
        one: false,
        summary: "Every fact about a subject, the replaced ones too, with when each held.",
    },
    Route {
        method: "GET",
        path: "/v1/review",
        op: "review_list",
        fixed: &[],
        params: &[],
        status: 200,
        one: false,
        summary: "Everything waiting for review: what clients proposed, and facts that disagree.",
    },
    Route {
        method: "POST",
        path: "/v1/review/{fact_id}/accept",
        op: "review_accept",
        fixed: &[],
        params: &[("fact_id", "fact_id")],
        status: 200,
        one: false,
        summary: "Accept a fact under review: it replaces the one it conflicts with.",
    },
    Route {
        method: "POST",
        path: "/v1/review/{fact_id}/reject",
        op: "review_reject",
        fixed: &[],
        params: &[("fact_id", "fact_id")],
        status: 200,
        one: false,
        summary: "Reject a fact under review.",
    },
    Route {
        method: "POST",
        path: "/v1/review/proposals/{id}/accept",
        op: "proposal_accept",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "Accept a client's proposal: it is written as the client asked.",
    },
    Route {
        method: "POST",
        path: "/v1/review/proposals/{id}/reject",
        op: "proposal_reject",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "Reject a client's proposal: nothing it asked for is written.",
    },
    Route {
        method: "GET",
        path: "/v1/trust",
        op: "list_trust",
        fixed: &[],
        params: &[],
        status: 200,
        one: false,
        summary: "The trust levels set for connected clients.",
    },
    Route {
        method: "PUT",
        path: "/v1/trust/{client}",
        op: "set_trust",
        fixed: &[],
        params: &[("client", "client")],
        status: 200,
        one: false,
        summary: "Set a client's trust level (read, propose or write); without one, back to the defaults.",
    },
    Route {
        method: "GET",
        path: "/v1/rules",
        op: "list_rules",
        fixed: &[],
        params: &[],
        status: 200,
        one: false,
        summary: "The rules.",
    },
    Route {
        method: "POST",
        path: "/v1/rules",
        op: "add_rule",
        fixed: &[],
        params: &[],
        status: 201,
        one: false,
        summary: "Add a rule.",
    },
    Route {
        method: "POST",
        path: "/v1/rules/{id}/confirm",
        op: "confirm_rule",
        fixed: &[],
        params: &[("id", "id")],
        status: 200,
        one: false,
        summary: "Confirm a rule.",
    },
    Route {
        method: "GET",
        path: "/v1/lists/{list}",
        op: "work_state_read",
        fixed: &[],
        params: &[("list", "list")],
        status: 200,
        one: false,
        summary: "A work list (todo, plan, ...).",
    },
    Route {
        method: "PUT",
        path: "/v1/lists/{list}",
        op: "work_state_write",
        fixed: &[],
        params: &[("list", "list")],
        status: 200,
        one: false,
        summary: "Replace a work list.",
    },
    Route {
        method: "GET",
        path: "/v1/jobs",
        op: "jobs",
        fixed: &[],
        params: &[],
        status: 200,
        one: false,
        summary: "The compression queue and the newest jobs.",
    },
];

/// The `/v1` router.
pub fn router(state: Arc<State>) -> Router {
    let mut by_path: Vec<(&'static str, MethodRouter)> = Vec::new();
    for route in ROUTES {
        let entry = ops::find(route.op).expect("every route names an operation");
        let method = Method::from_bytes(route.method.as_bytes()).expect("a valid method");
        let st = Arc::clone(&state);
        let handler = on(
            method.try_into().expect("a routable method"),
            move |Path(params): Path<HashMap<String, String>>,
                  RawQuery(query): RawQuery,
                  body: Bytes| async move {
                call(&st, route, entry, params, query, body).await
            },
        );
        match by_path.iter_mut().find(|(p, _)| *p == route.path) {
            Some((_, mr)) => *mr = std::mem::take(mr).merge(handler),
            None => by_path.push((route.path, handler)),
        }
    }
    let mut router = Router::new();
    for (path, mr) in by_path {
        router = router.route(path, mr);
    }
    let st = Arc::clone(&state);
    let events = {
        let st = Arc::clone(&state);
        move |body: Bytes| async move { event(&st, body).await }
    };
    router
        .route("/v1/health", get(move || async move { health(&st).await }))
        .route("/v1/events", axum::routing::post(events))
        .route(
            "/v1/openapi.json",
            get(|| async { Json(super::openapi::document()) }),
        )
        .fallback(|| async {
            ApiError::new(
                404,
                "not_found",
                "no such route: /v1/openapi.json lists the API",
            )
        })
}

async fn call(
    state: &Arc<State>,
    route: &'static Route,
    entry: &'static dyn Entry,
    params: HashMap<String, String>,
    query: Option<String>,
    body: Bytes,
) -> Response {
    let args = match arguments(route, entry, params, query.as_deref(), &body) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    let caller = state.caller("api");
    match state
        .run(caller, entry.access(), move |ctx| {
            entry.call_json(ctx, args)
        })
        .await
    {
        Ok(Value::Array(items)) if route.one => match items.into_iter().next() {
            Some(v) => Json(v).into_response(),
            None => ApiError::new(404, "not_found", "no memory has that id").into_response(),
        },
        Ok(v) => (
            StatusCode::from_u16(route.status).unwrap_or(StatusCode::OK),
            Json(v),
        )
            .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// The operation's arguments: the query string, then the body's fields, then the path's (the
/// path names the thing, so it wins).
fn arguments(
    route: &Route,
    entry: &dyn Entry,
    params: HashMap<String, String>,
    query: Option<&str>,
    body: &[u8],
) -> Result<Map<String, Value>, ApiError> {
    let schema = entry.input_schema();
    let props = schema.get("properties").and_then(Value::as_object);
    let typed = |name: &str, text: &str| -> Value { coerce(props.and_then(|p| p.get(name)), text) };
    let mut args = Map::new();
    for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        args.insert(k.to_string(), typed(&k, &v));
    }
    if !body.iter().all(u8::is_ascii_whitespace) {
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(o)) => args.extend(o),
            Ok(_) => {
                return Err(ApiError::new(
                    400,
                    "invalid_body",
                    "the body must be a JSON object",
                ));
            }
            Err(e) => {
                return Err(ApiError::new(
                    400,
                    "invalid_body",
                    format!("the body is not JSON: {e}"),
                ));
            }
        }
    }
    for (param, arg) in route.params {
        let Some(text) = params.get(*param) else {
            continue;
        };
        let value = typed(arg, text);
        let value = match (arg, value) {
            (&"ids", Value::Array(a)) => Value::Array(a),
            (&"ids", v) => Value::Array(vec![v]),
            (_, v) => v,
        };
        args.insert((*arg).to_owned(), value);
    }
    for (name, v) in route.fixed {
        match v {
            FixedValue::Bool(b) => args.insert((*name).to_owned(), Value::Bool(*b)),
        };
    }
    Ok(args)
}

/// Text from a query string or path, as the JSON type the schema gives the argument.
fn coerce(schema: Option<&Value>, text: &str) -> Value {
    let ty = schema
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("string");
    match ty {
        "integer" => text
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| text.into()),
        "number" => text
            .parse::<f64>()
            .map(Value::from)
            .unwrap_or_else(|_| text.into()),
        "boolean" => match text {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => text.into(),
        },
        "array" => {
            let item = schema.and_then(|s| s.get("items"));
            Value::Array(
                text.split(',')
                    .filter(|p| !p.is_empty())
                    .map(|p| coerce(item, p.trim()))
                    .collect(),
            )
        }
        _ => text.into(),
    }
}

/// `POST /v1/events`: `{"tool", "event", "payload"}`, stored as the hook stores it.
async fn event(state: &Arc<State>, body: Bytes) -> Response {
    let entry = ops::find("capture_event").expect("capture_event is registered");
    let mut args = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(o)) => o,
        Ok(_) => {
            return ApiError::new(
                400,
                "invalid_body",
                "the body must be a JSON object: {\"tool\", \"event\", \"payload\"}",
            )
            .into_response();
        }
        Err(e) => {
            return ApiError::new(400, "invalid_body", format!("the body is not JSON: {e}"))
                .into_response();
        }
    };
    // The user's exclusions hold here as they do for the hooks.
    args.insert(
        "exclude_projects".into(),
        json!(
            crate::config::excluded_projects()
                .into_iter()
                .collect::<Vec<_>>()
        ),
    );
    let caller = state.caller("api");
    match state
        .run(caller, Access::Write, move |ctx| entry.call_json(ctx, args))
        .await
    {
        Ok(v) => (StatusCode::CREATED, Json(v)).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `GET /v1/health`: whether the store answers, and what the server runs.
async fn health(state: &Arc<State>) -> Response {
    let st = Arc::clone(state);
    let worker = st.extraction_name.clone();
    let (semantic, reranker) = if st.semantic_ready() {
        ("ready", if st.reranks() { "ready" } else { "off" })
    } else if st.semantic_present() {
        ("loading", "loading")
    } else {
        ("off", "off")
    };
    let caller = st.caller("api");
    let out = st
        .run(caller, Access::Read, |ctx| {
            let memories = ctx.store.count().map_err(ops::OpError::from)?;
            let schema = ctx.store.schema_version().map_err(ops::OpError::from)?;
            Ok((memories, schema, ctx.store.keyword_index()))
        })
        .await;
    match out {
        Ok((memories, schema, keyword_index)) => Json(json!({
            "status": "ok",
            "version": env!("CARGO_PKG_VERSION"),
            "schema_version": schema,
            "memories": memories,
            "worker": worker,
            "semantic_index": semantic,
            "reranker": reranker,
            "keyword_index": keyword_index,
        }))
        .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_names_a_registered_operation_with_its_path_arguments() {
        for r in ROUTES {
            let entry = ops::find(r.op).unwrap_or_else(|| panic!("{} {}", r.method, r.path));
            let schema = entry.input_schema();
            for (param, arg) in r.params {
                assert!(r.path.contains(&format!("{{{param}}}")), "{}", r.path);
                assert!(
                    schema["properties"].get(*arg).is_some(),
                    "{} has no {arg}",
                    r.op
                );
            }
            // A route that reads must not call an operation that writes, and the reverse.
            assert_eq!(
                r.method == "GET",
                entry.access() == Access::Read,
                "{} {}",
                r.method,
                r.path
            );
        }
    }

    #[test]
    fn query_text_becomes_the_schemas_types() {
        let entry = ops::find("search").unwrap();
        let args = arguments(
            &ROUTES[0],
            entry,
            HashMap::new(),
            Some("query=pnpm+cache%21&limit=5&file_suffix=true&project=shop"),
            b"",
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"query": "pnpm cache!", "limit": 5, "file_suffix": true, "project": "shop"})
        );
        let get = ROUTES
            .iter()
            .find(|r| r.path == "/v1/memories/{id}")
            .unwrap();
        let params = HashMap::from([("id".to_owned(), "42".to_owned())]);
        let args = arguments(
            get,
            ops::find("get_observations").unwrap(),
            params,
            None,
            b"",
        )
        .unwrap();
        assert_eq!(Value::Object(args), json!({"ids": [42]}));
    }

    #[test]
    fn a_body_that_is_not_an_object_is_refused() {
        let post = ROUTES.iter().find(|r| r.op == "save_memory").unwrap();
        let entry = ops::find("save_memory").unwrap();
        for body in [&b"[1]"[..], b"{oops"] {
            let e = arguments(post, entry, HashMap::new(), None, body).unwrap_err();
            assert_eq!((e.status, e.code), (400, "invalid_body"));
        }
    }
}
