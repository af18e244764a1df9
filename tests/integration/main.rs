//! The integration tests, as one test binary: each module was a test binary of its own, and
//! linking the crate's dependencies into every one of them took most of the suite's build time
//! and disk. `support` is what the modules share.

// To clippy, a test crate's helper functions are not tests: their unwraps are the tests' own
// assertions, their casts work on small counters and sizes the tests choose, and the measuring
// tests print what they measured (the harness captures it).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    reason = "test code: an unwrap is an assertion, and the casts are on values the tests choose"
)]

mod support;

mod backfill;
mod bad_input;
mod block;
mod change;
mod cli;
mod compress;
mod concurrency;
mod doctor;
mod e2e_claude_code;
mod e2e_hosts;
mod extraction_precision;
mod faults;
mod hook_fixtures;
mod hook_hosts;
mod hub;
mod hub_engines;
mod hub_migrate;
mod install;
mod just_in_time;
mod mcp;
mod model_fetch;
mod ops;
mod parity;
mod project_keys;
mod provider;
mod readme;
mod recall;
mod redaction;
mod review;
mod rules_sync;
mod semantic;
mod server;
mod serving_map;
mod shipping;
mod signin;
mod supersession_precision;
mod sync;
mod trust;
mod versions;
