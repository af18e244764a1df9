//! Any message to the MCP server gets a JSON reply or none, never a panic.
#![no_main]
use aletheia::mcp::protocol::Server;
use libfuzzer_sys::fuzz_target;
use std::sync::{LazyLock, Mutex};

static SERVER: LazyLock<Mutex<Server>> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("aletheia-fuzz-{}", std::process::id()));
    // SAFETY: set once, before the server reads the environment, on the fuzzer's only thread.
    unsafe { std::env::set_var("ALETHEIA_DATA_DIR", &dir) };
    Mutex::new(Server::from_env())
});

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(reply) = SERVER.lock().unwrap().handle_text(&text) {
        serde_json::from_str::<serde_json::Value>(&reply).expect("replies are JSON");
    }
});
