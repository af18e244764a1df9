//! `aletheia connect <host>`: how to register the MCP server with a host, without writing
//! anything: the command to run and the configuration entry it produces.

use clap::Args;
use serde_json::json;

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// claude-code, cursor, gemini, windsurf, command-code, opencode or codex.
    pub host: String,
}

pub fn run(args: ConnectArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe()?.display().to_string();
    let stdio = json!({ "command": exe, "args": ["mcp"] });
    let entry = |v: serde_json::Value| {
        serde_json::to_string_pretty(&json!({ "mcpServers": { "aletheia": v } })).unwrap()
    };
    match args.host.as_str() {
        "claude-code" => {
            println!("Run this:\n  claude mcp add --scope user aletheia -- {exe} mcp\n");
            println!(
                "{}",
                entry(json!({ "type": "stdio", "command": exe, "args": ["mcp"], "env": {} }))
            );
        }
        "cursor" => println!("Add to ~/.cursor/mcp.json:\n{}", entry(stdio)),
        "gemini" => println!(
            "Run this:\n  gemini mcp add -s user aletheia {exe} mcp\n\nor add to ~/.gemini/settings.json:\n{}",
            entry(stdio)
        ),
        "windsurf" => println!(
            "Add to ~/.codeium/windsurf/mcp_config.json:\n{}",
            entry(stdio)
        ),
        "command-code" => println!(
            "Run this:\n  cmd mcp add aletheia -- {exe} mcp\n\nor add to ~/.commandcode/mcp.json:\n{}",
            entry(json!({ "transport": "stdio", "command": exe, "args": ["mcp"] }))
        ),
        "opencode" => println!(
            "Add to ~/.config/opencode/opencode.json:\n{}",
            serde_json::to_string_pretty(
                &json!({ "mcp": { "aletheia": { "type": "local", "command": [exe, "mcp"], "enabled": true } } })
            )?
        ),
        "codex" => println!(
            "Run this:\n  codex mcp add aletheia -- {exe} mcp\n\nor add to ~/.codex/config.toml:\n[mcp_servers.aletheia]\ncommand = {}\nargs = [\"mcp\"]",
            serde_json::to_string(&exe)?
        ),
        other => anyhow::bail!(
            "unknown host \"{other}\": use claude-code, cursor, gemini, windsurf, command-code, opencode or codex."
        ),
    }
    Ok(())
}
