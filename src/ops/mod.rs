//! The operations layer: every operation on the store, once, with no transport in it.
//!
//! The CLI, `aletheia mcp`, and the HTTP front ends to come (REST, MCP over HTTP, the dashboard,
//! the team hub) only parse a request, call [`call`] and render the result. So an operation's
//! rules (defaults, limits, validation, permissions) live in one place, and a result is a typed
//! value each front end renders its own way: the documented texts for MCP and the terminal, JSON for
//! scripts, status codes for HTTP.
//!
//! An operation is a request type implementing [`Operation`]: its name, its description, and
//! its [`Access`] are associated constants without defaults, so an operation whose access is not
//! declared does not compile. MCP's tool list, its annotations and every permission check read
//! those constants. Everything an operation needs comes in its [`Context`]: the store, the
//! redactor, the clock and the [`Caller`]; nothing is read from the environment or from globals.

pub mod args;
pub mod backfill;
pub mod capture;
pub mod compress;
pub mod curate;
pub mod doctor;
pub mod drift;
pub mod feedback;
pub mod inspect;
pub mod lists;
pub mod memories;
pub mod policy;
pub mod recall;
pub mod review;
pub mod rules;
mod supersede;
pub mod transfer;
pub mod trust;
pub mod upkeep;
pub mod why;

use crate::config::Paths;
use crate::redact::Redactor;
use crate::store::{Storage, StoreError};
use crate::time::Clock;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// What an operation may do to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Reads only.
    Read,
    /// Adds or changes data, reversibly or additively.
    Write,
    /// Replaces or rewrites what was there.
    Destructive,
}

/// One operation: a typed request that runs against a [`Context`].
pub trait Operation: DeserializeOwned + schemars::JsonSchema + 'static {
    /// The operation's name, which is also its MCP tool name.
    const NAME: &'static str;
    /// What it does, for a model choosing a tool and for `--help`.
    const DESCRIPTION: &'static str;
    /// What it may do; checked against the caller before it runs.
    const ACCESS: Access;
    /// Whether running it twice with the same request leaves the store as once.
    const IDEMPOTENT: bool;
    /// What it returns.
    type Output: Serialize;

    /// Run it. Called through [`call`], which checks access first.
    fn run(self, ctx: &mut Context<'_>) -> Result<Self::Output, OpError>;
}

/// Who is calling, and what they may touch. The CLI and `aletheia mcp` build it from the
/// environment at their edge; an HTTP front end builds it from the request's token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// Stored as a saved memory's tool and a new rule's source.
    pub name: String,
    /// The projects it may touch; `None` for every project.
    pub projects: Option<Vec<String>>,
    /// Where its right to write comes from: the owner writes, a client as its trust level
    /// allows (see [`trust`]), a reader not at all.
    pub standing: trust::Standing,
    /// The project an operation uses when the request names none.
    pub default_project: String,
    /// Whether its rights come from a hub token, which refusals then name ("this token").
    pub via_token: bool,
}

impl Caller {
    /// The owner, with every right, as the command line and the dashboard call.
    pub fn local(name: &str, default_project: &str) -> Caller {
        Caller {
            name: name.to_owned(),
            projects: None,
            standing: trust::Standing::Owner,
            default_project: default_project.to_owned(),
            via_token: false,
        }
    }

    /// A connected client on this machine (an MCP client over stdio or the server's HTTP),
    /// every project open to it, writing as the level the owner set for `name` allows.
    pub fn client(name: &str, default_project: &str) -> Caller {
        Caller {
            standing: trust::Standing::Client {
                key: trust::named_key(name),
            },
            ..Caller::local(name, default_project)
        }
    }

    /// This caller under the name a client gave itself; a client is then known to `aletheia
    /// trust` by that name too (a hub token keeps its own key).
    pub fn named(mut self, name: String) -> Caller {
        if let trust::Standing::Client { key } = &mut self.standing
            && !self.via_token
        {
            *key = trust::named_key(&name);
        }
        self.name = name;
        self
    }

    /// The name `aletheia trust` knows this caller by.
    pub fn trust_key(&self) -> &str {
        match &self.standing {
            trust::Standing::Client { key } => key,
            _ => &self.name,
        }
    }

    /// Whether it may call write operations at all (a client's level decides the rest).
    pub fn may_write(&self) -> bool {
        self.standing != trust::Standing::Reader
    }

    /// What refusals call this caller.
    fn noun(&self) -> &'static str {
        if self.via_token { "token" } else { "caller" }
    }

    /// Refuse `project` unless this caller may touch it.
    pub fn check_project(&self, project: &str) -> Result<(), OpError> {
        match &self.projects {
            Some(allowed) if !allowed.iter().any(|p| p == project) => {
                Err(OpError::Forbidden(format!(
                    "Project \"{project}\" is not allowed for this {}.",
                    self.noun()
                )))
            }
            _ => Ok(()),
        }
    }

    /// Whether this caller may touch `project` (for filtering what it may see).
    pub fn may_see(&self, project: &str) -> bool {
        self.check_project(project).is_ok()
    }

    /// The project a request names (blank means none), else the default; checked, and as
    /// it is stored (see [`named_project`]).
    pub fn project_or_default(
        &self,
        project: Option<&str>,
        r: &Redactor,
    ) -> Result<String, OpError> {
        let p = match project.map(str::trim).filter(|p| !p.is_empty()) {
            Some(p) => named_project(p, r)?,
            None => crate::project::stored_key(&self.default_project, r),
        };
        self.check_project(&p)?;
        Ok(p)
    }

    /// For a filter that may be left open ("every project"): the named project, checked and as
    /// it is stored; or, for a caller limited to projects, its default project instead of every
    /// project.
    pub fn project_filter(
        &self,
        project: Option<&str>,
        r: &Redactor,
    ) -> Result<Option<String>, OpError> {
        match project.map(str::trim).filter(|p| !p.is_empty()) {
            Some(p) => {
                let p = named_project(p, r)?;
                self.check_project(&p).map(|()| Some(p))
            }
            None if self.projects.is_some() => self.project_or_default(None, r).map(Some),
            None => Ok(None),
        }
    }

    /// Refuse an operation that works across every project unless this caller has them all.
    pub fn check_every_project(&self, op: &str) -> Result<(), OpError> {
        if self.projects.is_some() {
            return Err(OpError::Forbidden(format!(
                "{op} works on every project; this {} is limited to some.",
                self.noun()
            )));
        }
        Ok(())
    }
}

/// A project name a request gives, refused if it is too long or holds a control character,
/// else as it is stored: redacted, so a project named after a secret is found under the key its
/// memories are stored with.
pub fn named_project(name: &str, r: &Redactor) -> Result<String, OpError> {
    crate::project::check(name).map_err(|e| OpError::InvalidArgument(e.to_string()))?;
    Ok(crate::project::stored_key(name, r))
}

/// What an operation works with.
pub struct Context<'a> {
    pub store: &'a mut dyn Storage,
    pub redactor: &'a Redactor,
    pub clock: Clock,
    pub caller: Caller,
    /// Where the spool lives, for `drain`; `None` where there is no local spool.
    pub paths: Option<&'a Paths>,
    /// The embedding model and vectors, when this front end has them loaded: search then fuses
    /// meaning with words.
    pub semantic: Option<&'a crate::embed::semantic::Semantic>,
    /// How to compress (providers, caps, the worker's lease token), for the front ends that
    /// run the worker; `None` elsewhere.
    pub extraction: Option<&'a crate::compress::Extraction>,
    /// The project folder this front end works in (the command line's and the stdio server's
    /// working directory), whose files drift checks read; `None` for a server, which serves
    /// projects whose folders it does not know.
    pub root: Option<&'a std::path::Path>,
}

impl Context<'_> {
    /// The folder of `project` on this machine, when it is the one this front end works in.
    pub fn root_of(&self, project: &str) -> Option<&std::path::Path> {
        self.root.filter(|r| {
            r.is_dir()
                && crate::project::stored_key(&crate::project::project_key(r), self.redactor)
                    == project
        })
    }
}

/// Why an operation failed: a kind a front end can map (to an MCP tool error, an exit code, an
/// HTTP status) and a one-line message that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// The request is malformed or out of range.
    #[error("{0}")]
    InvalidArgument(String),
    /// The request names something that is not there (or not visible to this caller).
    #[error("{0}")]
    NotFound(String),
    /// The caller may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// The store refused the change because it clashes with what is stored.
    #[error("{0}")]
    Conflict(String),
    /// The store could not be read or written.
    #[error("{0}")]
    StoreUnavailable(String),
}

impl OpError {
    /// The HTTP status for this kind of error.
    pub fn http_status(&self) -> u16 {
        match self {
            OpError::InvalidArgument(_) => 400,
            OpError::Forbidden(_) => 403,
            OpError::NotFound(_) => 404,
            OpError::Conflict(_) => 409,
            OpError::StoreUnavailable(_) => 503,
        }
    }
}

impl From<StoreError> for OpError {
    fn from(e: StoreError) -> OpError {
        if e.is_constraint() {
            OpError::Conflict(format!("the store refused the change: {e}"))
        } else {
            OpError::StoreUnavailable(format!("the store failed: {e}"))
        }
    }
}

/// Refuse operation `O` unless `caller` may call it at all: front ends that parse arguments
/// call this first, so a refused caller learns nothing from how its arguments would have read.
pub fn check_access<O: Operation>(caller: &Caller) -> Result<(), OpError> {
    if O::ACCESS != Access::Read && !caller.may_write() {
        // A token's refusal is the documented sentence, word for word.
        return Err(OpError::Forbidden(if caller.via_token {
            format!("This token cannot call {}.", O::NAME)
        } else {
            format!("This caller cannot call {}: it may only read.", O::NAME)
        }));
    }
    Ok(())
}

/// Run `req` for `ctx.caller`, after checking the operation's declared access. A client's
/// write is refused here: it goes through [`trust::gate`], which knows its level.
pub fn call<O: Operation>(ctx: &mut Context<'_>, req: O) -> Result<O::Output, OpError> {
    check_access::<O>(&ctx.caller)?;
    if O::ACCESS != Access::Read && matches!(ctx.caller.standing, trust::Standing::Client { .. }) {
        return Err(OpError::Forbidden(format!(
            "{} cannot call {} directly: a client's writes go through its trust level.",
            ctx.caller.name,
            O::NAME
        )));
    }
    req.run(ctx)
}

/// An operation seen without its types: what a front end that dispatches by name (MCP, REST,
/// the hub) needs.
pub trait Entry: Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn access(&self) -> Access;
    fn idempotent(&self) -> bool;
    /// The request's JSON Schema.
    fn input_schema(&self) -> serde_json::Value;
    /// Parse JSON arguments, call, and return the result as JSON.
    fn call_json(
        &self,
        ctx: &mut Context<'_>,
        args: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, OpError>;
}

/// The [`Entry`] of operation `O`.
pub struct Op<O>(std::marker::PhantomData<fn() -> O>);

impl<O> Op<O> {
    pub const ENTRY: Op<O> = Op(std::marker::PhantomData);
}

impl<O: Operation> Entry for Op<O> {
    fn name(&self) -> &'static str {
        O::NAME
    }
    fn description(&self) -> &'static str {
        O::DESCRIPTION
    }
    fn access(&self) -> Access {
        O::ACCESS
    }
    fn idempotent(&self) -> bool {
        O::IDEMPOTENT
    }
    fn input_schema(&self) -> serde_json::Value {
        args::schema::<O>()
    }
    fn call_json(
        &self,
        ctx: &mut Context<'_>,
        a: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, OpError> {
        let req = args::parse::<O>(a)?;
        let out = call(ctx, req)?;
        serde_json::to_value(out)
            .map_err(|e| OpError::StoreUnavailable(format!("cannot encode the result: {e}")))
    }
}

/// Every operation: the MCP tools first, then those only the command line offers.
pub static OPERATIONS: &[&dyn Entry] = &[
    &Op::<recall::Search>::ENTRY,
    &Op::<recall::Timeline>::ENTRY,
    &Op::<recall::GetObservations>::ENTRY,
    &Op::<recall::SessionStartContext>::ENTRY,
    &Op::<recall::FactHistory>::ENTRY,
    &Op::<rules::ListRules>::ENTRY,
    &Op::<lists::WorkStateRead>::ENTRY,
    &Op::<memories::SaveMemory>::ENTRY,
    &Op::<rules::AddRule>::ENTRY,
    &Op::<rules::ConfirmRule>::ENTRY,
    &Op::<memories::DismissMemory>::ENTRY,
    &Op::<memories::RestoreMemory>::ENTRY,
    &Op::<lists::WorkStateWrite>::ENTRY,
    &Op::<transfer::Import>::ENTRY,
    &Op::<transfer::Export>::ENTRY,
    &Op::<upkeep::Scrub>::ENTRY,
    &Op::<upkeep::Drain>::ENTRY,
    &Op::<review::ReviewList>::ENTRY,
    &Op::<review::ReviewAccept>::ENTRY,
    &Op::<review::ReviewReject>::ENTRY,
    &Op::<review::ProposalAccept>::ENTRY,
    &Op::<review::ProposalReject>::ENTRY,
    &Op::<trust::SetTrust>::ENTRY,
    &Op::<trust::ListTrust>::ENTRY,
    &Op::<why::Why>::ENTRY,
    &Op::<inspect::Inspect>::ENTRY,
    &Op::<feedback::GiveFeedback>::ENTRY,
    &Op::<drift::Drift>::ENTRY,
    &Op::<upkeep::Verify>::ENTRY,
    &Op::<compress::Compress>::ENTRY,
    &Op::<compress::Jobs>::ENTRY,
    &Op::<backfill::Backfill>::ENTRY,
    &Op::<rules::SyncRules>::ENTRY,
    &Op::<capture::CaptureEvent>::ENTRY,
    &Op::<recall::FactSubjects>::ENTRY,
    &Op::<curate::BrowseMemories>::ENTRY,
    &Op::<curate::ListProjects>::ENTRY,
    &Op::<curate::ListFacts>::ENTRY,
    &Op::<curate::ListAllRules>::ENTRY,
    &Op::<curate::PinMemory>::ENTRY,
    &Op::<curate::EditNote>::ENTRY,
    &Op::<curate::SetRuleEnabled>::ENTRY,
    &Op::<curate::GetMemory>::ENTRY,
    &Op::<doctor::Doctor>::ENTRY,
    &Op::<doctor::RebuildSearchIndex>::ENTRY,
];

/// An operation by name.
pub fn find(name: &str) -> Option<&'static dyn Entry> {
    OPERATIONS.iter().copied().find(|e| e.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_kind_has_its_http_status() {
        let m = String::new;
        assert_eq!(OpError::InvalidArgument(m()).http_status(), 400);
        assert_eq!(OpError::Forbidden(m()).http_status(), 403);
        assert_eq!(OpError::NotFound(m()).http_status(), 404);
        assert_eq!(OpError::Conflict(m()).http_status(), 409);
        assert_eq!(OpError::StoreUnavailable(m()).http_status(), 503);
    }

    #[test]
    fn a_limited_caller_reads_its_default_project_and_is_refused_others() {
        let c = Caller {
            name: "hub".into(),
            projects: Some(vec!["shop".into(), "docs".into()]),
            standing: trust::Standing::Owner,
            default_project: "shop".into(),
            via_token: false,
        };
        let r = Redactor::builtin();
        assert_eq!(c.project_filter(None, &r).unwrap(), Some("shop".into()));
        assert_eq!(
            c.project_filter(Some("docs"), &r).unwrap(),
            Some("docs".into())
        );
        assert!(matches!(
            c.project_filter(Some("billing"), &r),
            Err(OpError::Forbidden(_))
        ));
        assert_eq!(
            Caller::local("cli", "shop")
                .project_filter(None, &r)
                .unwrap(),
            None
        );
        assert_eq!(c.project_or_default(Some("  "), &r).unwrap(), "shop");
    }

    #[test]
    fn a_named_project_is_checked_and_looked_up_as_it_is_stored() {
        let r = Redactor::builtin();
        let c = Caller::local("cli", "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB");
        assert_eq!(
            c.project_or_default(None, &r).unwrap(),
            "[redacted:github-token]"
        );
        assert_eq!(
            c.project_filter(Some("acme/ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"), &r)
                .unwrap(),
            Some("acme/[redacted:github-token]".into())
        );
        for bad in ["a\tb".to_owned(), "x".repeat(201)] {
            assert!(matches!(
                c.project_or_default(Some(&bad), &r),
                Err(OpError::InvalidArgument(_))
            ));
        }
    }

    #[test]
    fn every_operation_has_a_unique_name() {
        let mut names: Vec<&str> = OPERATIONS.iter().map(|e| e.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), OPERATIONS.len());
    }
}
