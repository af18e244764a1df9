//! Local embeddings: the sentence model (`model`), its download (`fetch`), giving memories
//! vectors (`index`) and searching them (`semantic`). Nothing here is reached from the hook.

pub mod background;
pub mod fetch;
pub mod index;
pub mod model;
pub mod semantic;
