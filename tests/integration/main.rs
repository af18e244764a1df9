//! The integration tests, as one test binary: each module was a test binary of its own, and
//! linking the crate's dependencies into every one of them took most of the suite's build time
//! and disk. `support` is what the modules share.

mod support;

mod backfill;
mod bad_input;
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
mod install;
mod mcp;
mod model_fetch;
mod ops;
mod parity;
mod project_keys;
mod provider;
mod recall;
mod redaction;
mod review;
mod rules_sync;
mod semantic;
mod server;
mod serving_map;
mod shipping;
mod signin;
