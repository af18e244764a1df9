//! Any rule file is loaded or refused with an error, never a panic; loaded rules redact safely.
#![no_main]
use aletheia::redact::{Redactor, check_rules, parse_rules};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let p = Path::new("fuzz.toml");
    if let Ok(rules) = parse_rules(p, &text)
        && check_rules(p, &rules).is_ok()
    {
        let r = Redactor::with_user_rules(rules);
        let _ = r.redact("token sk-abcdefghijklmnopqrstuvwx1234 and some text");
    }
});
