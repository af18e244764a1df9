//! Local models: which ones (`catalog`), the sentence model (`model`) and the re-ranker
//! (`rerank`), both BERT encoders (`bert`), their download (`fetch`), giving memories vectors
//! (`index`) and searching them (`semantic`). Nothing here is reached from the hook.
//!
//! All of it needs the `semantic` feature (candle and tokenizers, most of a build's packages).
//! Without it, `absent` stands in for the three modules the rest of the crate names, with the
//! same paths: no model is ever present or loads, so there is no semantic index and search uses
//! words alone, exactly as when no model is installed.

#[cfg(feature = "semantic")]
pub mod background;
#[cfg(feature = "semantic")]
mod bert;
pub mod catalog;
#[cfg(feature = "semantic")]
pub mod fetch;
#[cfg(feature = "semantic")]
pub mod index;
#[cfg(feature = "semantic")]
pub mod model;
#[cfg(feature = "semantic")]
pub mod rerank;
#[cfg(feature = "semantic")]
pub mod semantic;

#[cfg(not(feature = "semantic"))]
mod absent;
#[cfg(not(feature = "semantic"))]
pub use absent::{background, model, rerank, semantic};
