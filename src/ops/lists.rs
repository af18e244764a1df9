//! Named work-state lists: work_state_read and work_state_write (also `aletheia list`).

use super::policy::{self, LIST_MAX_JSON, NAME_MAX_CHARS};
use super::trust::{Pending, Proposable, Subject};
use super::{Access, Context, OpError, Operation};
use crate::redact::Redacted;
use crate::store::state::NewList;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `work_state_read`: a list's items.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct WorkStateRead {
    /// The list name.
    pub list: String,
    /// Default: the working directory's project, else default.
    pub project: Option<String>,
}

/// A list as read; `items` is `None` when there is no list by that name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkState {
    pub list: String,
    pub project: String,
    pub items: Option<Value>,
}

impl Operation for WorkStateRead {
    const NAME: &'static str = "work_state_read";
    const DESCRIPTION: &'static str = "Read a list written by work_state_write. Read-only.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = WorkState;

    fn run(self, ctx: &mut Context<'_>) -> Result<WorkState, OpError> {
        let list = policy::required("list", Some(&self.list))?
            .trim()
            .to_owned();
        let project = ctx
            .caller
            .project_or_default(self.project.as_deref(), ctx.redactor)?;
        let items = match ctx.store.read_list(&project, &list)? {
            Some(text) => Some(serde_json::from_str(&text).map_err(|e| {
                OpError::StoreUnavailable(format!("the stored list \"{list}\" is not JSON: {e}"))
            })?),
            None => None,
        };
        Ok(WorkState {
            list,
            project,
            items,
        })
    }
}

/// `work_state_write`: replace a list's items.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct WorkStateWrite {
    /// The list name, matched exactly after trimming.
    pub list: String,
    /// Strings, numbers, booleans or plain objects.
    #[schemars(with = "Vec<ListItem>")]
    pub items: Vec<Value>,
    /// Default: the working directory's project, else default.
    pub project: Option<String>,
}

// What a list item may be, for the schema: a string, a number, a boolean or a plain object.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code, reason = "only its schema is used")]
enum ListItem {
    Text(String),
    Number(f64),
    Flag(bool),
    Object(serde_json::Map<String, Value>),
}

/// A list as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListSaved {
    pub list: String,
    pub project: String,
    pub count: usize,
    /// The memory that holds the list.
    pub id: i64,
}

impl Operation for WorkStateWrite {
    const NAME: &'static str = "work_state_write";
    const DESCRIPTION: &'static str = "Save a named list for a project, such as a to-do list. Write. Writing an existing name replaces all its items, so send the full list.";
    const ACCESS: Access = Access::Destructive;
    const IDEMPOTENT: bool = true;
    type Output = ListSaved;

    fn run(self, ctx: &mut Context<'_>) -> Result<ListSaved, OpError> {
        let (new, count) = self.list(ctx)?;
        let (list, project) = (new.get().name.clone(), new.get().project.clone());
        let id = ctx
            .store
            .write_list(&new, &ctx.caller.name, ctx.clock.now())?;
        Ok(ListSaved {
            list,
            project,
            count,
            id,
        })
    }
}

impl WorkStateWrite {
    /// The list this request writes, checked and redacted, and its item count.
    fn list(&self, ctx: &Context<'_>) -> Result<(Redacted<NewList>, usize), OpError> {
        let list = policy::required("list", Some(&self.list))?
            .trim()
            .to_owned();
        policy::check_length("list", &list, NAME_MAX_CHARS)?;
        for (i, item) in self.items.iter().enumerate() {
            let plain = match item {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
                Value::Object(map) => map
                    .values()
                    .all(|v| !matches!(v, Value::Object(_) | Value::Array(_))),
                _ => false,
            };
            if !plain {
                return Err(OpError::InvalidArgument(format!(
                    "items[{i}] must be a string, number, boolean or plain object."
                )));
            }
        }
        let count = self.items.len();
        let items = Value::Array(self.items.clone());
        if items.to_string().len() > LIST_MAX_JSON {
            return Err(OpError::InvalidArgument(format!(
                "items are over {LIST_MAX_JSON} characters as JSON."
            )));
        }
        let project = ctx
            .caller
            .project_or_default(self.project.as_deref(), ctx.redactor)?;
        let new = NewList {
            project,
            name: list,
            items,
        };
        Ok((Redacted::new(new, ctx.redactor), count))
    }
}

impl Proposable for WorkStateWrite {
    const SUBJECT: Subject = Subject::Memories;

    fn pending(&self, ctx: &mut Context<'_>) -> Result<Pending, OpError> {
        let (new, count) = self.list(ctx)?;
        let new = new.get();
        Ok(Pending {
            project: new.project.clone(),
            summary: format!("list \"{}\" with {count} item(s)", new.name),
            reference: None,
            same_as: None,
        })
    }
}
