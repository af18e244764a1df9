//! What to paste into each host so it reaches a hub with a token: the remote-server entry every
//! host that takes an MCP server over HTTP with a header documents (see
//! `docs/remote-mcp.md`). The token goes into the entry as given; each host keeps its own
//! config file, which the user owns.

use serde_json::json;

/// The name the entries give the server.
const NAME: &str = "aletheia-hub";

/// One host's entry: where it goes, and what to write or run.
pub struct Entry {
    pub host: &'static str,
    pub place: &'static str,
    pub text: String,
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Every host's entry for `url` (the hub's `/mcp`) and `token`.
pub fn entries(url: &str, token: &str) -> Vec<Entry> {
    let bearer = format!("Bearer {token}");
    vec![
        Entry {
            host: "Claude Code",
            place: "run",
            text: format!(
                "claude mcp add --transport http --scope user {NAME} {url} --header \"Authorization: {bearer}\""
            ),
        },
        Entry {
            host: "Cursor",
            place: "~/.cursor/mcp.json, under mcpServers",
            text: pretty(&json!({ NAME: { "url": url, "headers": { "Authorization": bearer } } })),
        },
        Entry {
            host: "Codex",
            place: "~/.codex/config.toml",
            text: format!(
                "[mcp_servers.{NAME}]\nurl = \"{url}\"\nhttp_headers = {{ Authorization = \"{bearer}\" }}"
            ),
        },
        Entry {
            host: "Gemini CLI",
            place: "~/.gemini/settings.json, under mcpServers",
            text: pretty(
                &json!({ NAME: { "httpUrl": url, "headers": { "Authorization": bearer } } }),
            ),
        },
        Entry {
            host: "OpenCode",
            place: "opencode.json, under mcp",
            text: pretty(&json!({ NAME: {
                "type": "remote", "url": url, "headers": { "Authorization": bearer }, "enabled": true
            } })),
        },
        Entry {
            host: "Windsurf",
            place: "~/.codeium/windsurf/mcp_config.json, under mcpServers",
            text: pretty(
                &json!({ NAME: { "serverUrl": url, "headers": { "Authorization": bearer } } }),
            ),
        },
        Entry {
            host: "Command Code",
            place: "~/.commandcode/mcp.json, under mcpServers",
            text: pretty(&json!({ NAME: {
                "transport": "http", "url": url, "headers": { "Authorization": bearer }
            } })),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_carries_the_url_and_the_token_and_parses() {
        let token = "alh_1_00ff";
        for e in entries("https://hub.example:7750/mcp", token) {
            assert!(
                e.text.contains("https://hub.example:7750/mcp"),
                "{}",
                e.host
            );
            assert!(e.text.contains(&format!("Bearer {token}")), "{}", e.host);
            if e.text.starts_with('{') {
                serde_json::from_str::<serde_json::Value>(&e.text).unwrap();
            } else if e.host == "Codex" {
                let doc: toml::Table = toml::from_str(&e.text).unwrap();
                let entry = &doc["mcp_servers"][NAME];
                assert_eq!(
                    entry["http_headers"]["Authorization"].as_str(),
                    Some("Bearer alh_1_00ff")
                );
            }
        }
    }
}
