//! Editing a host's JSON (or JSONC) configuration in place: only our entries are inserted,
//! replaced or removed; every other key, its order, the indentation and the comments stay as
//! the user wrote them.
//!
//! Several hosts accept comments and trailing commas in their settings, and users keep notes in
//! them, so a round trip through `serde_json` (which drops comments and may reorder) is not an
//! option: this works on `jsonc-parser`'s concrete syntax tree, which keeps every byte it does
//! not touch.

use super::command;
use super::{Action, Change, HookStyle};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{
    CstArray, CstContainerNode, CstInputValue, CstNode, CstObject, CstRootNode,
};
use serde_json::Value;

/// Where the document does not have the shape a host gives it (say, `"hooks": []`): the edit
/// stops and the file is left alone rather than "fixed" by replacing what the user wrote.
#[derive(Debug)]
pub struct ShapeError {
    pub at: String,
    pub expected: &'static str,
}

/// A parse failure, with its 1-based position.
#[derive(Debug)]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Comments and trailing commas are allowed because the hosts' own readers allow them; the
/// looser JSON5 forms are refused, since a host reading strict JSON would choke on them and
/// the user should hear about it from us, before anything is written.
fn options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// Parse `text` (empty for a file that does not exist yet).
pub fn parse(text: &str) -> Result<CstRootNode, ParseError> {
    CstRootNode::parse(text, &options()).map_err(|e| ParseError {
        line: e.line_display(),
        column: e.column_display(),
        message: e.kind().to_string(),
    })
}

/// The top-level object, created in an empty document.
pub fn root_object(root: &CstRootNode) -> Result<CstObject, ShapeError> {
    match root.value() {
        None => Ok(root.object_value_or_set()),
        Some(v) => v.as_object().ok_or(ShapeError {
            at: "the top level".into(),
            expected: "an object",
        }),
    }
}

/// Set `key` to `value` at the top of the document unless it is there (Cursor's `"version": 1`).
/// Never removed: the user's file may have had it first.
pub fn ensure_key(obj: &CstObject, key: &str, value: &Value) -> Vec<Change> {
    if obj.get(key).is_some() {
        return vec![];
    }
    obj.insert(0, key, input(value));
    vec![Change::new(Action::Add, key, value.clone())]
}

/// The keys of an MCP entry that install owns: what the host runs, and how. Every other key
/// (`env`, `enabled`, a timeout) is the user's: added by us when missing, never changed.
pub const OWNED_SERVER_KEYS: &[&str] = &["command", "args", "type", "transport"];

/// Whether an MCP entry is ours: its `command` (a string, or the first element of OpenCode's
/// array) names an `aletheia` binary. An entry the user pointed elsewhere (a URL) is theirs.
pub fn is_our_server(entry: &Value) -> bool {
    match entry.get("command") {
        Some(Value::String(s)) => command::names_binary(s),
        Some(Value::Array(a)) => a
            .first()
            .and_then(Value::as_str)
            .is_some_and(command::names_binary),
        _ => false,
    }
}

/// The note for an `aletheia` entry that is not ours, which install and uninstall leave alone.
pub fn foreign_note(at: &str) -> String {
    format!("`{at}` does not run an aletheia binary, so it was left as it is.")
}

/// Install (or with `remove`, uninstall) the entry `key` in the object at `container`. Returns
/// the changes and, for an entry of that name that is not ours, a note saying it was left alone.
/// Uninstall drops a `container` it leaves empty unless `kept` says the user had it before.
pub fn server(
    obj: &CstObject,
    container: &str,
    key: &str,
    value: &Value,
    remove: bool,
    kept: &Kept,
) -> Result<(Vec<Change>, Option<String>), ShapeError> {
    let at = format!("{container}.{key}");
    let Some(servers) = child_object(obj, container)? else {
        if remove {
            return Ok((vec![], None));
        }
        obj.append(
            container,
            CstInputValue::Object(vec![(key.to_owned(), input(value))]),
        );
        return Ok((vec![Change::new(Action::Add, &at, value.clone())], None));
    };
    let existing = servers.get(key);
    let current = existing
        .as_ref()
        .and_then(|p| p.value())
        .and_then(|v| v.to_serde_value());
    if existing.is_some() && !current.as_ref().is_some_and(is_our_server) {
        return Ok((vec![], Some(foreign_note(&at))));
    }
    let change = match (existing, remove) {
        (None, true) => return Ok((vec![], None)),
        (Some(prop), true) => {
            prop.remove();
            prune(obj, container, &servers, kept);
            Change::new(Action::Remove, &at, current.unwrap_or(Value::Null))
        }
        (Some(prop), false) => {
            let current = current.unwrap_or(Value::Null);
            if let Some(o) = prop.value().and_then(|v| v.as_object()) {
                set_keys(&o, value, |k| OWNED_SERVER_KEYS.contains(&k));
            }
            let updated = prop
                .value()
                .and_then(|v| v.to_serde_value())
                .unwrap_or(Value::Null);
            if updated == current {
                Change::new(Action::Unchanged, &at, current)
            } else {
                Change::replaced(&at, current, updated)
            }
        }
        (None, false) => {
            servers.append(key, input(value));
            Change::new(Action::Add, &at, value.clone())
        }
    };
    Ok((vec![change], None))
}

/// Give `obj` the keys of `wanted`: a missing key is added; one already there is set only when
/// `owned` says it is ours, and only if it differs. Keys `wanted` lacks are left as they are.
fn set_keys(obj: &CstObject, wanted: &Value, owned: impl Fn(&str) -> bool) {
    for (k, v) in wanted.as_object().into_iter().flatten() {
        match obj.get(k) {
            None => {
                obj.append(k, input(v));
            }
            Some(prop) if owned(k) => {
                if prop.value().and_then(|n| n.to_serde_value()).as_ref() != Some(v) {
                    prop.set_value(input(v));
                }
            }
            Some(_) => {}
        }
    }
}

/// Make `hooks` hold exactly `wanted` (event, entry) of `host`'s entries: each present once,
/// unchanged if already right, updated in place if its command moved; our entries for events
/// no longer wanted are removed. With `wanted` empty this is uninstall, which drops a `hooks`
/// object it leaves empty unless `kept` says the user had one before install.
pub fn hooks(
    obj: &CstObject,
    host: &str,
    style: HookStyle,
    wanted: &[(String, Value)],
    kept: &Kept,
) -> Result<Vec<Change>, ShapeError> {
    let mut changes = Vec::new();
    let hooks = match child_object(obj, "hooks")? {
        Some(h) => h,
        None if wanted.is_empty() => return Ok(changes),
        None => {
            obj.append("hooks", CstInputValue::Object(vec![]));
            child_object(obj, "hooks")?.expect("just added")
        }
    };
    // Events already in the file that hold our entries but are no longer wanted.
    for prop in hooks.properties() {
        let Some(event) = prop.decoded_name() else {
            continue;
        };
        if wanted.iter().any(|(e, _)| *e == event) {
            continue;
        }
        let at = format!("hooks.{event}");
        let Some(list) = prop.value().and_then(|v| v.as_array()) else {
            continue;
        };
        let removed = remove_ours(&list, host, style, &at);
        if !removed.is_empty() && list.elements().is_empty() {
            prop.remove();
        }
        changes.extend(removed);
    }
    for (event, entry) in wanted {
        let at = format!("hooks.{event}");
        let list = match hooks.get(event) {
            Some(prop) => prop.value().and_then(|v| v.as_array()).ok_or(ShapeError {
                at: at.clone(),
                expected: "an array",
            })?,
            None => {
                hooks.append(event, CstInputValue::Array(vec![input(entry)]));
                changes.push(Change::new(Action::Add, &at, entry.clone()));
                continue;
            }
        };
        changes.extend(place(&list, host, style, &at, entry));
    }
    if wanted.is_empty() && !changes.is_empty() {
        prune(obj, "hooks", &hooks, kept);
    }
    Ok(changes)
}

/// Keep one copy of `entry` in `list`: the first element that is wholly ours is kept or
/// replaced in place (so an update does not move it), any other of ours is removed.
fn place(list: &CstArray, host: &str, style: HookStyle, at: &str, entry: &Value) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut placed = false;
    for element in list.elements() {
        match classify(&element, host, style) {
            Ours::No => {}
            Ours::Wholly if !placed => {
                placed = true;
                let current = element.to_serde_value().unwrap_or(Value::Null);
                // Only our keys are set: a `matcher` the user added to our group stays.
                if let Some(o) = element.as_object() {
                    set_keys(&o, entry, |_| true);
                }
                let updated = element.to_serde_value().unwrap_or(Value::Null);
                if current == updated {
                    changes.push(Change::new(Action::Unchanged, at, current));
                } else {
                    changes.push(Change::replaced(at, current, updated));
                }
            }
            Ours::Wholly | Ours::Partly => changes.extend(remove_element(element, host, at)),
        }
    }
    if !placed {
        list.append(input(entry));
        changes.push(Change::new(Action::Add, at, entry.clone()));
    }
    changes
}

/// Remove every entry of ours from `list`.
fn remove_ours(list: &CstArray, host: &str, style: HookStyle, at: &str) -> Vec<Change> {
    let mut changes = Vec::new();
    for element in list.elements() {
        if classify(&element, host, style) != Ours::No {
            changes.extend(remove_element(element, host, at));
        }
    }
    if !changes.is_empty() {
        restore_single_line(list);
    }
    changes
}

/// Appending our entry to a one-line array (`[{ "command": "x" }]`) breaks the line before
/// the closing bracket, and removing the entry again leaves that break behind. When what is
/// left sits on one line except for that break, put the bracket back where it was, with the
/// same spacing as after the opening one, so uninstall gives back the user's bytes.
fn restore_single_line(list: &CstArray) {
    let children = list.children();
    let Some(close) = children.iter().rposition(|c| c.token_char() == Some(']')) else {
        return;
    };
    let last_value = children[..close]
        .iter()
        .rposition(|c| !c.is_trivia())
        .unwrap_or(0);
    let (body, tail) = (&children[..=last_value], &children[last_value + 1..close]);
    let one_line_body = !body.iter().any(CstNode::is_newline);
    let only_space_and_break = tail.iter().all(|c| c.is_newline() || c.is_whitespace())
        && tail.iter().any(CstNode::is_newline);
    if !(one_line_body && only_space_and_break) {
        return;
    }
    let opening_space = children
        .get(1)
        .and_then(CstNode::as_whitespace)
        .map(|w| w.value());
    for node in tail.iter().cloned() {
        match (node.as_whitespace(), &opening_space) {
            (Some(w), Some(space)) => w.set_value(space.clone()),
            _ => node.remove(),
        }
    }
}

/// Remove our part of one element: the whole element, or only our handlers from a group that
/// also holds the user's (someone merged them by hand; theirs stay).
fn remove_element(element: CstNode, host: &str, at: &str) -> Vec<Change> {
    let value = element.to_serde_value().unwrap_or(Value::Null);
    let handlers = element
        .as_object()
        .and_then(|o| o.get("hooks"))
        .and_then(|p| p.value())
        .and_then(|v| v.as_array());
    match handlers {
        Some(list) if list.elements().iter().any(|h| !is_our_handler(h, host)) => {
            let mut changes = Vec::new();
            for h in list.elements() {
                if is_our_handler(&h, host) {
                    changes.push(Change::new(
                        Action::Remove,
                        at,
                        h.to_serde_value().unwrap_or(Value::Null),
                    ));
                    h.remove();
                }
            }
            changes
        }
        _ => {
            element.remove();
            vec![Change::new(Action::Remove, at, value)]
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Ours {
    No,
    /// Every handler in it runs our hook: the element is ours to replace or remove.
    Wholly,
    /// A matcher group that also holds someone else's handlers.
    Partly,
}

fn classify(element: &CstNode, host: &str, style: HookStyle) -> Ours {
    match style {
        HookStyle::Flat if is_our_handler(element, host) => Ours::Wholly,
        HookStyle::Flat => Ours::No,
        HookStyle::Grouped => {
            let handlers = element
                .as_object()
                .and_then(|o| o.get("hooks"))
                .and_then(|p| p.value())
                .and_then(|v| v.as_array())
                .map(|a| a.elements())
                .unwrap_or_default();
            let ours = handlers.iter().filter(|h| is_our_handler(h, host)).count();
            match ours {
                0 => Ours::No,
                n if n == handlers.len() => Ours::Wholly,
                _ => Ours::Partly,
            }
        }
    }
}

/// A handler object whose `command` runs `aletheia hook <host>`.
fn is_our_handler(node: &CstNode, host: &str) -> bool {
    node.as_object()
        .and_then(|o| o.get("command"))
        .and_then(|p| p.value())
        .and_then(|v| v.as_string_lit())
        .and_then(|s| s.decoded_value().ok())
        .is_some_and(|c| command::is_hook_command(&c, host))
}

/// The object under `key`, `None` if absent, an error if it is something else.
fn child_object(obj: &CstObject, key: &str) -> Result<Option<CstObject>, ShapeError> {
    match obj.get(key) {
        None => Ok(None),
        Some(prop) => prop
            .value()
            .and_then(|v| v.as_object())
            .map(Some)
            .ok_or(ShapeError {
                at: key.to_owned(),
                expected: "an object",
            }),
    }
}

/// The top-level keys a file had before install first changed it, read from the backup install
/// keeps of it (with our entries taken out): a container the user had (even empty, like
/// `"hooks": {}`) is theirs, and uninstall leaves it; one install created goes again.
#[derive(Debug, Default)]
pub struct Kept(Vec<String>);

impl Kept {
    /// The keys of the document `before`; none when it is missing or does not parse (then every
    /// container our removal empties is taken to be one install created).
    pub fn from_before(before: Option<&str>) -> Kept {
        let keys = before
            .map(|t| t.strip_prefix('\u{feff}').unwrap_or(t))
            .and_then(|t| parse(t).ok())
            .and_then(|root| root_object(&root).ok())
            .map(|obj| {
                obj.properties()
                    .iter()
                    .filter_map(|p| p.decoded_name())
                    .collect()
            })
            .unwrap_or_default();
        Kept(keys)
    }

    fn has(&self, key: &str) -> bool {
        self.0.iter().any(|k| k == key)
    }
}

/// Drop `key` from `parent` once removing our entries left its object empty, so uninstall
/// leaves the file as it was before install created the key (a key the user had stays).
fn prune(parent: &CstObject, key: &str, child: &CstObject, kept: &Kept) {
    let empty = !kept.has(key)
        && child.properties().is_empty()
        && !CstNode::Container(CstContainerNode::Object(child.clone()))
            .children()
            .iter()
            .any(CstNode::is_comment);
    if empty && let Some(prop) = parent.get(key) {
        prop.remove();
    }
}

/// A `serde_json` value as the tree's input type.
fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn handler(event: &str) -> Value {
        json!({ "command": format!("/bin/aletheia hook cursor {event}") })
    }

    fn edit(text: &str, wanted: &[(String, Value)]) -> String {
        let root = parse(text).unwrap();
        let obj = root_object(&root).unwrap();
        hooks(&obj, "cursor", HookStyle::Flat, wanted, &Kept::default()).unwrap();
        root.to_string()
    }

    #[test]
    fn a_one_line_array_is_one_line_again_after_uninstall() {
        for text in [
            "{\n  \"hooks\": { \"stop\": [{ \"command\": \"a\" }] }\n}\n",
            "{\n  \"hooks\": { \"stop\": [ { \"command\": \"a\" } ] }\n}\n",
        ] {
            let installed = edit(text, &[("stop".into(), handler("stop"))]);
            assert_ne!(installed, text);
            assert_eq!(edit(&installed, &[]), text);
        }
    }

    #[test]
    fn a_hooks_object_with_a_comment_of_the_users_is_kept_when_emptied() {
        let text = "{\n  \"hooks\": {\n    // add team hooks here\n  }\n}\n";
        let installed = edit(text, &[("stop".into(), handler("stop"))]);
        let back = edit(&installed, &[]);
        assert!(back.contains("// add team hooks here"), "{back}");
        assert!(back.contains("\"hooks\""), "{back}");
    }

    #[test]
    fn other_hosts_entries_are_not_ours() {
        let text = "{ \"hooks\": { \"stop\": [{ \"command\": \"/bin/aletheia hook claude-code Stop\" }] } }";
        assert_eq!(edit(text, &[]), text);
    }
}
