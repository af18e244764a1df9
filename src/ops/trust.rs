//! Trust levels for connected clients, and the gate every client write passes.
//!
//! What a client writes is read by every later session, so a client's writes are only as good
//! as the owner's trust in it. Each client (an MCP client by its name, a hub token by its id)
//! has a level: `read` (every write refused), `propose` (a write waits in the review inbox,
//! stored but out of search, context and rules sync, until the owner accepts it) or `write`.
//! Unless the owner set one (`aletheia trust`), a client writes memories directly, as the seed
//! has it, and proposes rules: a rule reaches every session. The owner's own commands (the
//! command line, the dashboard, the REST API past its key) write directly.
//!
//! A client's write reaches the store only through [`gate`]: [`super::call`] refuses a client's
//! write outright, so a front end that forgot the gate fails closed.

use super::{Access, Caller, Context, OpError, Operation};
use crate::redact::Redacted;
use crate::store::inbox::NewProposal;
use serde::Serialize;
use serde_json::{Map, Value};

/// How far a client's writes are trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Read,
    Propose,
    Write,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Read, Level::Propose, Level::Write];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Read => "read",
            Level::Propose => "propose",
            Level::Write => "write",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| format!("unknown level \"{s}\": use read, propose or write."))
    }
}

crate::serde_via_from_str!(Level, ["read", "propose", "write"]);

/// What a write touches, which decides a client's default level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Subject {
    /// Memories, lists and dismissals: written directly by default.
    Memories,
    /// Standing rules, which reach every session: proposed by default.
    Rules,
}

impl Subject {
    /// A client's level when the owner set none.
    pub fn default_level(self) -> Level {
        match self {
            Subject::Memories => Level::Write,
            Subject::Rules => Level::Propose,
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Subject::Memories => "memories",
            Subject::Rules => "rules",
        }
    }
}

/// The name `aletheia trust` sets the level of every client with none of its own under.
pub const EVERY_CLIENT: &str = "*";

/// What a client is known to `aletheia trust` by when it names itself `name`. A name shaped as a
/// hub token's key (`token:<id>`) or as [`EVERY_CLIENT`] would take that level for itself, so
/// such a name is kept apart under `client:`.
pub fn named_key(name: &str) -> String {
    let reserved = name == EVERY_CLIENT
        || name
            .get(..6)
            .is_some_and(|p| p.eq_ignore_ascii_case("token:"))
        || name
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("client:"));
    if reserved {
        format!("client:{name}")
    } else {
        name.to_owned()
    }
}

/// Where a caller's right to write comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// The owner's own commands: every write goes straight to the store.
    Owner,
    /// A connected client, known to `aletheia trust` as `key`: the level the owner set for
    /// it, else [`Subject::default_level`].
    Client { key: String },
    /// Reads only, whatever a level says (a hub token of scope `read` or `mcp`).
    Reader,
}

/// A client's level for `subject`, and where it came from (for the inbox's "why").
pub fn level_of(
    caller: &Caller,
    subject: Subject,
    store: &dyn crate::store::Storage,
) -> Result<(Level, String), OpError> {
    Ok(match &caller.standing {
        Standing::Owner => (Level::Write, "the owner".into()),
        Standing::Reader => (Level::Read, "its token reads only".into()),
        Standing::Client { key } => match store.client_trust(key)? {
            Some(set) => {
                // A level the schema allows but this binary does not know reads as the safest.
                let level = set.parse().unwrap_or(Level::Read);
                (
                    level,
                    format!("{key} is at {} (aletheia trust)", level.as_str()),
                )
            }
            None if let Some(set) = store.client_trust(EVERY_CLIENT)? => {
                let level = set.parse().unwrap_or(Level::Read);
                (
                    level,
                    format!(
                        "{key} is at {}, the level for every client (aletheia trust '*')",
                        level.as_str()
                    ),
                )
            }
            None => {
                let level = subject.default_level();
                (
                    level,
                    format!(
                        "{key} is at {} for {} (the default for a connected client)",
                        level.as_str(),
                        subject.plural()
                    ),
                )
            }
        },
    })
}

/// What a proposal would do, as the inbox shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The project it writes to; blank for a rule that applies beyond one project.
    pub project: String,
    /// One line, e.g. `rule (everywhere): Always run the tests`.
    pub summary: String,
    /// What it names once accepted (a rule's id, an item), when known now.
    pub reference: Option<String>,
    /// What makes two requests one proposal, when it is not all of their arguments: a rule is
    /// its content, whatever evidence each request cites, as the store keeps rules.
    pub same_as: Option<String>,
}

/// A write a client at `propose` may ask for.
pub trait Proposable: Operation {
    /// What it writes, which decides the client's default level.
    const SUBJECT: Subject;

    /// Check the request as running it would (its arguments, the caller's projects, that what
    /// it names exists) and say what it would do. Writes nothing.
    fn pending(&self, ctx: &mut Context<'_>) -> Result<Pending, OpError>;

    /// What the client reads when its request waits.
    fn waiting_text(p: &Proposed) -> String {
        let what = p.reference.as_deref().unwrap_or(&p.summary);
        if p.new {
            format!(
                "Proposed for review as p{} ({what}). It takes effect once the user accepts it: aletheia review.",
                p.id
            )
        } else {
            format!(
                "That request already waits for review as p{} ({what}).",
                p.id
            )
        }
    }
}

/// A request stored in the inbox instead of run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposed {
    /// The proposal's id (`p<id>` in `aletheia review`).
    pub id: i64,
    /// Whether it was new (the same request may already wait).
    pub new: bool,
    pub summary: String,
    pub reference: Option<String>,
}

/// What a client's write came to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Gated<T> {
    /// It ran.
    Done(T),
    /// It waits for the owner.
    Proposed(Proposed),
}

/// Run a write for `ctx.caller` as its level allows: run it, store it as a proposal, or
/// refuse it. `args` are the request as the client sent it, kept for the proposal.
pub fn gate<O: Proposable>(
    ctx: &mut Context<'_>,
    args: Map<String, Value>,
) -> Result<Gated<O::Output>, OpError> {
    super::check_access::<O>(&ctx.caller)?;
    let request = super::args::parse::<O>(args.clone())?;
    let (level, why) = level_of(&ctx.caller, O::SUBJECT, &*ctx.store)?;
    match level {
        Level::Write => Ok(Gated::Done(request.run(ctx)?)),
        Level::Read => Err(OpError::Forbidden(format!(
            "{} may only read: the user can let it write with `aletheia trust {} propose` (or write).",
            ctx.caller.name,
            ctx.caller.trust_key()
        ))),
        Level::Propose => {
            let pending = request.pending(ctx)?;
            let key = pending
                .same_as
                .unwrap_or_else(|| Value::Object(args.clone()).to_string());
            let p = NewProposal {
                op: O::NAME.to_owned(),
                key,
                args,
                client: ctx.caller.name.clone(),
                project: pending.project,
                summary: pending.summary,
                reference: pending.reference,
                why,
                created_at: ctx.clock.now(),
            };
            let p = Redacted::new(p, ctx.redactor);
            let (id, new) = ctx.store.propose(&p)?;
            let p = p.get();
            Ok(Gated::Proposed(Proposed {
                id,
                new,
                summary: p.summary.clone(),
                reference: p.reference.clone(),
            }))
        }
    }
}

/// Refuse anyone but the owner with every project: deciding on proposals and setting levels is
/// the owner's alone, or a client could accept its own proposals.
pub fn check_owner(caller: &Caller, what: &str) -> Result<(), OpError> {
    if caller.standing == Standing::Owner && caller.projects.is_none() {
        Ok(())
    } else {
        Err(OpError::Forbidden(format!(
            "Only the user may {what}: run it from the command line or the dashboard."
        )))
    }
}

/// `set_trust`: set a client's level (also `aletheia trust`).
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SetTrust {
    /// The client: an MCP client's name (as `aletheia trust` lists it), a hub token as
    /// `token:<id>`, or `*` for every client with no level of its own.
    pub client: String,
    /// read, propose or write; omitted: forget the level, so the defaults apply again.
    pub level: Option<Level>,
}

/// A client's levels after a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrustSet {
    pub client: String,
    /// The level set, or `None` when the defaults apply.
    pub level: Option<Level>,
    pub changed: bool,
}

/// The longest client name a level is kept for.
const CLIENT_MAX_CHARS: usize = 200;

impl Operation for SetTrust {
    const NAME: &'static str = "set_trust";
    const DESCRIPTION: &'static str = "Set how far a connected client's writes are trusted: read, propose (its writes wait for review) or write.";
    const ACCESS: Access = Access::Write;
    const IDEMPOTENT: bool = true;
    type Output = TrustSet;

    fn run(self, ctx: &mut Context<'_>) -> Result<TrustSet, OpError> {
        check_owner(&ctx.caller, "set a client's trust")?;
        let client = super::policy::required("client", Some(&self.client))?
            .trim()
            .to_owned();
        super::policy::check_length("client", &client, CLIENT_MAX_CHARS)?;
        if client.chars().any(char::is_control) {
            return Err(OpError::InvalidArgument(
                "client must be one line without control characters.".into(),
            ));
        }
        // Kept as a client's own name is kept (redacted, on one line, cut), so the two match.
        let client = crate::mcp::protocol::client_name(&client)
            .ok_or_else(|| OpError::InvalidArgument("client is required.".into()))?;
        let changed =
            ctx.store
                .set_client_trust(&client, self.level.map(Level::as_str), ctx.clock.now())?;
        Ok(TrustSet {
            client,
            level: self.level,
            changed,
        })
    }
}

/// `list_trust`: the levels the owner set, and the defaults for everyone else.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ListTrust {}

/// The levels set, by client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Levels {
    pub clients: Vec<crate::store::inbox::ClientTrust>,
}

impl Operation for ListTrust {
    const NAME: &'static str = "list_trust";
    const DESCRIPTION: &'static str =
        "List the trust levels set for connected clients; others get the defaults.";
    const ACCESS: Access = Access::Read;
    const IDEMPOTENT: bool = true;
    type Output = Levels;

    fn run(self, ctx: &mut Context<'_>) -> Result<Levels, OpError> {
        ctx.caller.check_every_project(Self::NAME)?;
        Ok(Levels {
            clients: ctx.store.client_trusts()?,
        })
    }
}
