//! `aletheia mcp`: MCP over stdio, newline-delimited JSON-RPC.
//!
//! Synchronous on purpose: one client, one request at a time, and nothing to start before the
//! first reply, so a client's spawn-to-`tools/list` costs only the process start.

use super::protocol::Server;
use std::io::{BufRead, Write};

/// Serve until stdin closes.
pub fn serve() -> std::io::Result<()> {
    let mut server = Server::from_env();
    server.start_background();
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        if let Some(reply) = server.handle_text(&text) {
            match stdout
                .write_all(reply.as_bytes())
                .and_then(|_| stdout.write_all(b"\n"))
                .and_then(|_| stdout.flush())
            {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                other => other?,
            }
        }
    }
}
