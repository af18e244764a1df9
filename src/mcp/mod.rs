//! The MCP server: one table of tools, the resources and prompts, and one JSON-RPC handler,
//! served over stdio here and over HTTP by the server and the hub.

pub mod protocol;
pub mod resources;
pub mod stdio;
pub mod tools;
