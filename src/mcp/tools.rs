//! The MCP tools: which operations MCP offers, and how each result reads to a model.
//!
//! A tool's name, description, input schema and annotations all come from its operation
//! ([`crate::ops::Operation`]), and its text from [`crate::text::Text`]; this table only picks
//! the operations, in the order the documentation lists them. Recalled text goes back wrapped as
//! data, every text neutralised (see [`crate::text::Rendered::for_model`]).

use crate::ops::trust::{self, Gated, Proposable};
use crate::ops::{self, Access, Context, OpError, Operation};
use crate::recall::wrap::neutralise;
use crate::text::Text;
use serde_json::{Map, Value, json};

/// One MCP tool.
pub trait Tool: Sync {
    fn name(&self) -> &'static str;
    fn access(&self) -> Access;
    /// The tools/list entry.
    fn listing(&self) -> Value;
    /// Parse the arguments, run the operation, and render its text.
    fn call(&self, ctx: &mut Context<'_>, args: Map<String, Value>) -> Result<String, OpError>;
}

/// The tool of read operation `O`.
struct ToolOf<O>(std::marker::PhantomData<fn() -> O>);

impl<O: Operation> ToolOf<O> {
    /// A write offered this way would skip the client's trust level: it does not compile.
    const NEW: ToolOf<O> = {
        assert!(
            matches!(O::ACCESS, Access::Read),
            "a write tool is a WriteToolOf"
        );
        ToolOf(std::marker::PhantomData)
    };
}

/// The tool of write operation `O`, which runs as the client's trust level allows.
struct WriteToolOf<O>(std::marker::PhantomData<fn() -> O>);

impl<O> WriteToolOf<O> {
    const NEW: WriteToolOf<O> = WriteToolOf(std::marker::PhantomData);
}

/// A tool's tools/list entry, from its operation.
fn listing<O: Operation>() -> Value {
    json!({
        "name": O::NAME,
        "description": O::DESCRIPTION,
        "inputSchema": ops::args::schema::<O>(),
        "annotations": {
            "readOnlyHint": O::ACCESS == Access::Read,
            "destructiveHint": O::ACCESS == Access::Destructive,
            "idempotentHint": O::IDEMPOTENT,
            "openWorldHint": false,
        }
    })
}

impl<O: Operation + Text> Tool for ToolOf<O> {
    fn name(&self) -> &'static str {
        O::NAME
    }

    fn access(&self) -> Access {
        O::ACCESS
    }

    fn listing(&self) -> Value {
        listing::<O>()
    }

    fn call(&self, ctx: &mut Context<'_>, args: Map<String, Value>) -> Result<String, OpError> {
        ops::check_access::<O>(&ctx.caller)?;
        let request = ops::args::parse::<O>(args)?;
        let out = ops::call(ctx, request)?;
        Ok(O::text(&out, &ctx.clock).for_model())
    }
}

impl<O: Proposable + Text> Tool for WriteToolOf<O> {
    fn name(&self) -> &'static str {
        O::NAME
    }

    fn access(&self) -> Access {
        O::ACCESS
    }

    fn listing(&self) -> Value {
        listing::<O>()
    }

    fn call(&self, ctx: &mut Context<'_>, args: Map<String, Value>) -> Result<String, OpError> {
        Ok(match trust::gate::<O>(ctx, args)? {
            Gated::Done(out) => O::text(&out, &ctx.clock).for_model(),
            Gated::Proposed(p) => neutralise(&O::waiting_text(&p)),
        })
    }
}

/// The tools, in the order the documentation lists them.
pub static TOOLS: &[&dyn Tool] = &[
    &ToolOf::<ops::recall::Search>::NEW,
    &ToolOf::<ops::recall::Timeline>::NEW,
    &ToolOf::<ops::recall::GetObservations>::NEW,
    &ToolOf::<ops::recall::SessionStartContext>::NEW,
    &ToolOf::<ops::recall::FactHistory>::NEW,
    &ToolOf::<ops::rules::ListRules>::NEW,
    &ToolOf::<ops::lists::WorkStateRead>::NEW,
    &WriteToolOf::<ops::memories::SaveMemory>::NEW,
    &WriteToolOf::<ops::rules::AddRule>::NEW,
    &WriteToolOf::<ops::rules::ConfirmRule>::NEW,
    &WriteToolOf::<ops::memories::DismissMemory>::NEW,
    &WriteToolOf::<ops::memories::RestoreMemory>::NEW,
    &WriteToolOf::<ops::lists::WorkStateWrite>::NEW,
];

/// Find a tool by name.
pub fn find(name: &str) -> Option<&'static dyn Tool> {
    TOOLS.iter().copied().find(|t| t.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented table of tools and their access.
    const SEED: &[(&str, Access)] = &[
        ("search", Access::Read),
        ("timeline", Access::Read),
        ("get_observations", Access::Read),
        ("session_start_context", Access::Read),
        ("fact_history", Access::Read),
        ("list_rules", Access::Read),
        ("work_state_read", Access::Read),
        ("save_memory", Access::Write),
        ("add_rule", Access::Write),
        ("confirm_rule", Access::Write),
        ("dismiss_memory", Access::Write),
        ("restore_memory", Access::Write),
        ("work_state_write", Access::Destructive),
    ];

    #[test]
    fn the_tools_are_the_documented_ones_with_their_access() {
        let ours: Vec<(&str, Access)> = TOOLS.iter().map(|t| (t.name(), t.access())).collect();
        assert_eq!(ours, SEED);
    }

    #[test]
    fn annotations_follow_the_access() {
        for t in TOOLS {
            let a = &t.listing()["annotations"];
            match t.access() {
                Access::Read => assert_eq!(a["readOnlyHint"], true, "{}", t.name()),
                Access::Write => assert_eq!(
                    (
                        a["readOnlyHint"].as_bool(),
                        a["destructiveHint"].as_bool(),
                        a["idempotentHint"].as_bool()
                    ),
                    (Some(false), Some(false), Some(true)),
                    "{}",
                    t.name()
                ),
                Access::Destructive => assert_eq!(a["destructiveHint"], true, "{}", t.name()),
            }
        }
    }

    #[test]
    fn every_schema_is_an_object_with_its_required_fields() {
        let required = |name: &str| -> Vec<String> {
            let l = find(name).unwrap().listing();
            serde_json::from_value(l["inputSchema"]["required"].clone()).unwrap_or_default()
        };
        for t in TOOLS {
            let l = t.listing();
            assert_eq!(l["inputSchema"]["type"], "object", "{}", t.name());
            assert_eq!(
                l["inputSchema"]["additionalProperties"],
                false,
                "{}",
                t.name()
            );
        }
        assert_eq!(required("search"), Vec::<String>::new());
        assert_eq!(required("get_observations"), ["ids"]);
        assert_eq!(required("work_state_write"), ["list", "items"]);
        assert_eq!(required("add_rule"), ["then"]);
        let search = find("search").unwrap().listing();
        assert_eq!(search["inputSchema"]["properties"]["limit"]["maximum"], 100);
        assert_eq!(
            search["inputSchema"]["properties"]["type"]["enum"][0],
            "decision"
        );
    }
}
