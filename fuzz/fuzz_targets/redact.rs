//! Redaction never panics and redacting twice changes nothing.
#![no_main]
use aletheia::redact::Redactor;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let r = Redactor::builtin();
    let once = r.redact(&text);
    assert_eq!(r.redact(&once), once);
});
