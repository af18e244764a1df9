//! `/v1/openapi.json`: the REST API described as OpenAPI 3.1, made from the route table and
//! each operation's own request schema, so the document is the API that is served.

use super::rest::ROUTES;
use crate::ops;
use serde_json::{Map, Value, json};

/// The OpenAPI document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for r in ROUTES {
        let entry = ops::find(r.op).expect("every route names an operation");
        let schema = entry.input_schema();
        let props = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let taken: Vec<&str> = r
            .params
            .iter()
            .map(|(_, a)| *a)
            .chain(r.fixed.iter().map(|(n, _)| *n))
            .collect();
        let mut parameters: Vec<Value> = r
            .params
            .iter()
            .map(|(param, arg)| {
                let s = props
                    .get(*arg)
                    .cloned()
                    .unwrap_or(json!({"type": "string"}));
                // `ids` is a list in the operation, one id in the path.
                let s = if *arg == "ids" { s["items"].clone() } else { s };
                json!({ "name": param, "in": "path", "required": true, "schema": s })
            })
            .collect();
        let rest: Map<String, Value> = props
            .iter()
            .filter(|(k, _)| !taken.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut op = json!({
            "operationId": format!("{}_{}", r.method.to_lowercase(), r.path.trim_start_matches("/v1/").replace(['/', '{', '}'], "_").trim_matches('_')),
            "summary": r.summary,
            "description": entry.description(),
            "responses": responses(r.status),
        });
        if r.method == "GET" {
            parameters.extend(rest.iter().map(|(k, v)| {
                json!({ "name": k, "in": "query", "required": required.contains(&k.as_str()), "schema": v })
            }));
        } else if !rest.is_empty() {
            let req: Vec<&&str> = required.iter().filter(|k| !taken.contains(k)).collect();
            op["requestBody"] = json!({
                "required": !req.is_empty(),
                "content": { "application/json": { "schema": {
                    "type": "object", "properties": rest, "required": req, "additionalProperties": false
                } } }
            });
        }
        if !parameters.is_empty() {
            op["parameters"] = Value::Array(parameters);
        }
        let item = paths.entry(r.path.to_owned()).or_insert_with(|| json!({}));
        item[r.method.to_lowercase()] = op;
    }
    let event = ops::find("capture_event").expect("registered");
    let mut event_schema = event.input_schema();
    if let Some(p) = event_schema["properties"].as_object_mut() {
        p.remove("exclude_projects");
    }
    paths.insert(
        "/v1/events".into(),
        json!({ "post": {
            "operationId": "post_events",
            "summary": "Store one raw hook event, as `aletheia hook <tool> <event>` stores it.",
            "description": event.description(),
            "requestBody": { "required": true, "content": { "application/json": { "schema": event_schema } } },
            "responses": responses(201),
        } }),
    );
    paths.insert(
        "/v1/health".into(),
        json!({ "get": {
            "operationId": "get_health",
            "summary": "Whether the store answers; the version, the schema, the worker, the semantic index and the re-ranker.",
            "responses": responses(200),
        } }),
    );
    paths.insert(
        "/v1/openapi.json".into(),
        json!({ "get": { "operationId": "get_openapi", "summary": "This document.", "responses": { "200": { "description": "OpenAPI 3.1" } } } }),
    );
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Aletheia",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The memory of coding sessions: search, read and write it. With ALETHEIA_API_KEY set, every request needs it as a bearer token.",
        },
        "servers": [{ "url": "/" }],
        "components": {
            "schemas": { "Error": {
                "type": "object",
                "required": ["error"],
                "properties": { "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": { "code": { "type": "string" }, "message": { "type": "string" } }
                } }
            } },
            "securitySchemes": { "apiKey": { "type": "http", "scheme": "bearer" } },
        },
        "security": [{}, { "apiKey": [] }],
        "paths": paths,
    })
}

fn responses(ok: u16) -> Value {
    let error = |d: &str| json!({ "description": d, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } });
    json!({
        ok.to_string(): { "description": "The operation's result.", "content": { "application/json": { "schema": { "type": "object" } } } },
        "400": error("A bad argument or body; the message names it."),
        "401": error("The API key is missing or wrong."),
        "403": error("A refused Host, Origin or project."),
        "404": error("Nothing with that id, or no such route."),
        "405": error("The route does not take that method; `Allow` names the ones it does."),
        "408": error("The body did not arrive within the body timeout (ALETHEIA_BODY_TIMEOUT_MS)."),
        "413": error("The body is larger than 4 MB."),
        "414": error("The URL is longer than 64 KB."),
        "431": error("The request line and headers are larger than 128 KB."),
        "503": error("The store cannot be reached, or every connection the server takes is answering."),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_route_is_documented_with_its_parameters() {
        let doc = super::document();
        for r in super::ROUTES {
            let op = &doc["paths"][r.path][r.method.to_lowercase()];
            assert!(op.is_object(), "{} {}", r.method, r.path);
            for (param, _) in r.params {
                assert!(
                    op["parameters"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|p| p["name"] == *param && p["in"] == "path"),
                    "{} {} lacks {param}",
                    r.method,
                    r.path
                );
            }
        }
        let search = &doc["paths"]["/v1/memories"]["get"]["parameters"];
        assert!(
            search
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "query")
        );
        let save = &doc["paths"]["/v1/memories"]["post"]["requestBody"]["content"]["application/json"]
            ["schema"];
        assert_eq!(save["required"], serde_json::json!(["text"]));
    }
}
