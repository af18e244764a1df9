//! Recall: what the next session gets back. Search, timeline, observations, facts, rules, the
//! session-start context block, and the wrapper that marks recalled text as data. The CLI, the
//! hook and the MCP tools all call these functions, so none of them knows about a transport.

pub mod context;
pub mod facts;
pub mod observations;
pub mod provenance;
pub mod rank;
pub mod rules;
pub mod search;
pub mod timeline;
mod topk;
pub mod wrap;
