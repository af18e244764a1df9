//! Sync between a machine's store and a hub: what travels, how versions are ordered, and the
//! client that pushes and pulls.
//!
//! Each side keeps its own rows in its own store and marks what changed locally (the store's
//! `sync` module: triggers fill a dirty set, so no write path can forget to). A sync stamps
//! each local change with a [`hlc`] revision, pushes new memories by their local id and the
//! stamped changes by key, then pulls what the hub has gained since this machine's cursor.
//! Every step is a bounded batch that commits with its cursor, so an interrupted sync resumes
//! where it stopped, and applying a revision a side already holds changes nothing.
//!
//! Two changes to the same item that did not see each other are settled by the later revision
//! (a hybrid logical clock, then the machine id); the loser is kept on the hub and listed by
//! `aletheia sync conflicts`. A dismissal and a disabled rule are tombstones: a concurrent
//! version without them does not bring the item back.

pub mod client;
pub mod hlc;
pub mod item;
pub mod remote;
pub mod settings;
