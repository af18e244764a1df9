//! JSON arguments into a typed request, for the front ends that receive JSON (MCP, and HTTP
//! later). The request type's JSON Schema, derived from the type, drives the checks, so what a
//! client is told (the schema) and what it is held to are one thing.
//!
//! Every problem is one line naming the argument: `text is required.`, `pinned must be true or
//! false.`, `type: unknown type "idea": use one of ...`. `null` counts as absent. Whole numbers
//! written as `5.0` count as `5`. Limits and ranges are the operation's to check, because the
//! command line builds requests without JSON.

use super::{OpError, Operation};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};
use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// Each request type's schema, built once: building one walks the type's whole description,
/// which cost a server more than the checks the schema then drives.
static SCHEMAS: LazyLock<Mutex<HashMap<TypeId, Arc<Value>>>> = LazyLock::new(Mutex::default);

fn cached<T: JsonSchema + 'static>() -> Arc<Value> {
    let mut all = SCHEMAS.lock().unwrap_or_else(|p| p.into_inner());
    Arc::clone(
        all.entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(build::<T>())),
    )
}

/// The JSON Schema of a request: a plain object schema with every sub-schema inline, optional
/// fields without a `null` type, and no title.
pub fn schema<T: JsonSchema + 'static>() -> Value {
    (*cached::<T>()).clone()
}

fn build<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut v = generator.into_root_schema_for::<T>().to_value();
    single_types(&mut v);
    if let Some(o) = v.as_object_mut() {
        // The operation's description says what it does; the type's doc comment is for readers
        // of the code.
        o.remove("title");
        o.remove("description");
        o.remove("$schema");
        o.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    v
}

/// Rewrite every `"type": [..]` as one type: `null` dropped (an absent argument is the same as
/// a `null` one here, and optional fields are simply not required), and two or more types left
/// as `anyOf` branches, which strict MCP clients ask for instead of type arrays.
fn single_types(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(ts)) = o.get("type") {
                let ts: Vec<Value> = ts.iter().filter(|t| *t != "null").cloned().collect();
                o.remove("type");
                match ts.as_slice() {
                    [one] => {
                        o.insert("type".into(), one.clone());
                    }
                    many => {
                        let branches = many.iter().map(|t| serde_json::json!({ "type": t }));
                        o.insert("anyOf".into(), Value::Array(branches.collect()));
                    }
                }
            }
            if let Some(Value::Array(e)) = o.get_mut("enum") {
                e.retain(|x| !x.is_null());
            }
            o.values_mut().for_each(single_types);
        }
        Value::Array(items) => items.iter_mut().for_each(single_types),
        _ => {}
    }
}

/// Parse `args` into operation `O`'s request.
pub fn parse<O: Operation>(args: Map<String, Value>) -> Result<O, OpError> {
    let schema = cached::<O>();
    let mut args: Map<String, Value> = args.into_iter().filter(|(_, v)| !v.is_null()).collect();
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !args.contains_key(name) {
                return Err(invalid(format!("{name} is required.")));
            }
        }
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (name, value) in args.iter_mut() {
            match props.get(name) {
                Some(prop) => check_type(name, prop, value)?,
                // A misspelt argument would otherwise be ignored and its default used silently.
                None if closed => {
                    let known: Vec<&str> = props.keys().map(String::as_str).collect();
                    return Err(invalid(if known.is_empty() {
                        format!("unknown argument \"{name}\": this takes no arguments.")
                    } else {
                        format!("unknown argument \"{name}\": use {}.", known.join(", "))
                    }));
                }
                None => {}
            }
        }
    }
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        invalid(if path == "." {
            inner
        } else {
            format!("{path}: {inner}")
        })
    })
}

fn invalid(message: String) -> OpError {
    OpError::InvalidArgument(message)
}

/// The JSON types a property's schema allows: its `type`, or its `anyOf` branches' types.
fn types(prop: &Value) -> Vec<&str> {
    if let Some(t) = prop.get("type").and_then(Value::as_str) {
        return vec![t];
    }
    match prop.get("anyOf") {
        Some(Value::Array(branches)) => branches
            .iter()
            .filter_map(|b| b.get("type").and_then(Value::as_str))
            .collect(),
        _ => vec![],
    }
}

/// A float with no fraction as the integer it means; anything else as it is.
fn whole(v: &Value) -> Option<Value> {
    match v {
        Value::Number(n) if n.is_i64() => Some(v.clone()),
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
            .map(|f| {
                #[allow(
                    clippy::cast_possible_truncation,
                    reason = "a whole number below 9e15 in size is exactly an i64"
                )]
                let n = f as i64;
                Value::from(n)
            }),
        _ => None,
    }
}

/// Check `value` against the type its property declares, turning `5.0` into `5` where a whole
/// number is asked for.
fn check_type(name: &str, prop: &Value, value: &mut Value) -> Result<(), OpError> {
    let allowed = types(prop);
    if allowed.is_empty() {
        return Ok(());
    }
    let fits = |t: &str, v: &Value| match t {
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "number" => v.is_number(),
        "integer" => whole(v).is_some(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    };
    if allowed.iter().any(|t| fits(t, value)) {
        // A whole number written as `5.0` is the integer it means.
        if allowed.contains(&"integer")
            && !allowed.contains(&"number")
            && let Some(w) = whole(value)
        {
            *value = w;
        }
        if allowed == ["array"]
            && let Some(items) = prop.get("items")
            && types(items) == ["integer"]
        {
            let Value::Array(list) = value else {
                unreachable!()
            };
            for item in list.iter_mut() {
                *item = whole(item).ok_or_else(|| {
                    invalid(if item.is_number() {
                        format!("{name} must be an array of whole numbers.")
                    } else {
                        format!("{name} must be an array of numbers.")
                    })
                })?;
            }
        }
        return Ok(());
    }
    Err(invalid(match allowed.as_slice() {
        ["string"] => format!("{name} must be a string."),
        ["boolean"] => format!("{name} must be true or false."),
        ["integer"] if value.is_number() => format!("{name} must be a whole number."),
        ["string", "integer"] if value.is_number() => {
            format!("{name} must be a date or whole epoch milliseconds.")
        }
        ["integer"] | ["number"] => format!("{name} must be a number."),
        ["array"] if prop.get("items").is_some_and(|i| types(i) == ["integer"]) => {
            format!("{name} must be an array of numbers.")
        }
        ["array"] => format!("{name} must be an array."),
        ["string", "integer"] => format!("{name} must be a date or epoch milliseconds."),
        ["object"] => format!("{name} must be an object."),
        _ => format!("{name} must be one of: {}.", allowed.join(", ")),
    }))
}
