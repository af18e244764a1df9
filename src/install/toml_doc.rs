//! Editing Codex's `config.toml` in place with `toml_edit`: our `[mcp_servers.aletheia]` table
//! is added, updated or removed, and every other line keeps its comments, spacing and order.

use super::{Action, Change, jsonc};
use serde_json::Value;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike};

/// A parse failure, with its 1-based position.
#[derive(Debug)]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

pub fn parse(text: &str) -> Result<DocumentMut, ParseError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        ParseError {
            line,
            column,
            message: e.message().to_owned(),
        }
    })
}

/// Install (or with `remove`, uninstall) `[container.key]` with the string and string-array
/// fields of `value`. Only the fields install owns are set; the user's (`startup_timeout_sec`,
/// an `[env]` table) stay. An entry of that name that is not ours is left alone, with a note.
/// Returns `Err(container)` when `container` is not a table.
pub fn server(
    doc: &mut DocumentMut,
    container: &str,
    key: &str,
    value: &Value,
    remove: bool,
) -> Result<(Vec<Change>, Option<String>), String> {
    let at = format!("{container}.{key}");
    if !doc.contains_key(container) {
        if remove {
            return Ok((vec![], None));
        }
        // Implicit: no empty `[mcp_servers]` header above ours.
        let mut servers = Table::new();
        servers.set_implicit(true);
        doc.insert(container, Item::Table(servers));
    }
    let servers = doc[container]
        .as_table_like_mut()
        .ok_or_else(|| container.to_owned())?;
    let current = servers.get(key).map(to_json);
    if current.as_ref().is_some_and(|c| !jsonc::is_our_server(c)) {
        return Ok((vec![], Some(jsonc::foreign_note(&at))));
    }
    let change = match (current, remove) {
        (None, true) => return Ok((vec![], None)),
        (Some(current), true) => {
            servers.remove(key);
            if servers.is_empty() && is_implicit(&doc[container]) {
                doc.remove(container);
            }
            Change::new(Action::Remove, &at, current)
        }
        (Some(current), false) => {
            if let Some(entry) = servers.get_mut(key).and_then(Item::as_table_like_mut) {
                for (k, v) in table(value).iter() {
                    let owned = jsonc::OWNED_SERVER_KEYS.contains(&k);
                    let same = entry.get(k).map(to_json) == Some(to_json(v));
                    if !entry.contains_key(k) || (owned && !same) {
                        // Set the value, not the item, so the key's position and comments stay.
                        match (entry.get_mut(k), v.as_value()) {
                            (Some(Item::Value(old)), Some(new)) => {
                                let decor = old.decor().clone();
                                *old = new.clone();
                                *old.decor_mut() = decor;
                            }
                            _ => {
                                entry.insert(k, v.clone());
                            }
                        }
                    }
                }
            }
            let updated = doc[container]
                .as_table_like()
                .and_then(|s| s.get(key))
                .map(to_json)
                .unwrap_or(Value::Null);
            if updated == current {
                Change::new(Action::Unchanged, &at, current)
            } else {
                Change::replaced(&at, current, updated)
            }
        }
        (None, false) => {
            let inline = doc[container].is_inline_table();
            let servers = doc[container].as_table_like_mut().expect("checked above");
            let entry = if inline {
                Item::Value(toml_edit::Value::InlineTable(inline_table(value)))
            } else {
                Item::Table(table(value))
            };
            servers.insert(key, entry);
            Change::new(Action::Add, &at, value.clone())
        }
    };
    Ok((vec![change], None))
}

fn is_implicit(item: &Item) -> bool {
    item.as_table().is_some_and(Table::is_implicit)
}

fn table(value: &Value) -> Table {
    let mut t = Table::new();
    for (k, v) in value.as_object().into_iter().flatten() {
        if let Some(v) = toml_value(v) {
            t.insert(k, Item::Value(v));
        }
    }
    t
}

fn inline_table(value: &Value) -> InlineTable {
    let mut t = InlineTable::new();
    for (k, v) in value.as_object().into_iter().flatten() {
        if let Some(v) = toml_value(v) {
            t.insert(k, v);
        }
    }
    t
}

/// The entries we write hold only strings and arrays of strings.
fn toml_value(v: &Value) -> Option<toml_edit::Value> {
    match v {
        Value::String(s) => Some(s.as_str().into()),
        Value::Array(items) => Some(toml_edit::Value::Array(
            items.iter().filter_map(toml_value).collect::<Array>(),
        )),
        _ => None,
    }
}

/// An existing entry as JSON, to compare with ours and to show it.
fn to_json(item: &Item) -> Value {
    match item {
        Item::Value(v) => value_json(v),
        Item::Table(t) => table_json(t),
        Item::ArrayOfTables(a) => Value::Array(a.iter().map(|t| table_json(t)).collect()),
        Item::None => Value::Null,
    }
}

fn table_json(t: &dyn TableLike) -> Value {
    Value::Object(t.iter().map(|(k, v)| (k.to_owned(), to_json(v))).collect())
}

fn value_json(v: &toml_edit::Value) -> Value {
    match v {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => Value::from(*f.value()),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(value_json).collect()),
        toml_edit::Value::InlineTable(t) => table_json(t),
    }
}

/// How an entry looks in the file, for the dry run.
pub fn render(container: &str, key: &str, value: &Value) -> String {
    let mut doc = DocumentMut::new();
    let mut servers = Table::new();
    servers.set_implicit(true);
    servers.insert(key, Item::Table(table(value)));
    doc.insert(container, Item::Table(servers));
    doc.to_string().trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(exe: &str) -> Value {
        json!({ "command": exe, "args": ["mcp"] })
    }

    fn run(text: &str, value: &Value, remove: bool) -> (String, Vec<Action>) {
        let mut doc = parse(text).unwrap();
        let (changes, _) = server(&mut doc, "mcp_servers", "aletheia", value, remove).unwrap();
        (doc.to_string(), changes.iter().map(|c| c.action).collect())
    }

    #[test]
    fn a_moved_binary_is_updated_where_the_table_is() {
        let text = "[mcp_servers.aletheia] # ours\ncommand = \"/old/aletheia\"\nargs = [\"mcp\"]\n\n[profiles.x]\nmodel = \"m\"\n";
        let (after, actions) = run(text, &entry("/new/aletheia"), false);
        assert_eq!(actions, [Action::Replace]);
        assert_eq!(
            after,
            "[mcp_servers.aletheia] # ours\ncommand = \"/new/aletheia\"\nargs = [\"mcp\"]\n\n[profiles.x]\nmodel = \"m\"\n"
        );
    }

    #[test]
    fn an_inline_server_table_gets_an_inline_entry_and_loses_it_again() {
        let text = "mcp_servers = { github = { command = \"npx\" } }\n";
        let (after, actions) = run(text, &entry("/bin/aletheia"), false);
        assert_eq!(actions, [Action::Add]);
        let doc = parse(&after).unwrap();
        assert_eq!(
            doc["mcp_servers"]["aletheia"]["command"].as_str(),
            Some("/bin/aletheia")
        );
        let (back, actions) = run(&after, &entry("/bin/aletheia"), true);
        assert_eq!(actions, [Action::Remove]);
        assert_eq!(
            parse(&back).unwrap().to_string(),
            parse(text).unwrap().to_string()
        );
    }

    #[test]
    fn a_parse_error_names_its_line_and_column() {
        let e = parse("a = 1\nb = [1,\nc = 2\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
    }
}
