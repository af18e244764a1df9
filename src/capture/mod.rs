//! Capture: the hook runner and the adapter engine that turns host payloads into memories.

pub mod adapter;
pub mod hook;
pub mod template;
pub mod transcript;
