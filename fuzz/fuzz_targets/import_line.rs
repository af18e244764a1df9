//! Any import line is read as a memory or refused, never a panic.
#![no_main]
use aletheia::ops::transfer::Record;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(r) = serde_json::from_str::<Record>(&text) {
        let line = serde_json::to_string(&r).unwrap();
        let again: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(again, r);
    }
});
