//! `aletheia hub` (serve a shared store), `aletheia hub audit` (who called what), `aletheia
//! hub keys` (the machine keys pinned for the signed histories) and
//! `aletheia mcp-link create|list|revoke` (the hub's tokens): the command line's edge for
//! [`crate::server::hub`].

use clap::{Args, Subcommand};
use std::net::IpAddr;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HubArgs {
    #[command(subcommand)]
    pub command: Option<HubCommand>,
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// The hub's store, on either engine: every hub command takes these.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// The hub's SQLite store, a file (made on first use).
    #[arg(long = "hub-db", conflicts_with = "database")]
    pub hub_db: Option<PathBuf>,
    /// The hub's PostgreSQL database, as postgres://user@host:5432/dbname (add
    /// ?sslmode=require for TLS); also ALETHEIA_HUB_DATABASE. Its schema is made on first use.
    #[arg(long)]
    pub database: Option<String>,
}

/// [`StoreArgs`] for a command with subcommands of its own (`aletheia review`): the same flags,
/// taken after the subcommand too.
#[derive(Debug, Clone, Args)]
pub struct HubStoreArgs {
    /// The hub's SQLite store, to work on it instead of this machine's.
    #[arg(long = "hub-db", conflicts_with = "database", global = true)]
    pub hub_db: Option<PathBuf>,
    /// The hub's PostgreSQL database (postgres://user@host:5432/dbname), to work on it
    /// instead of this machine's store.
    #[arg(long, global = true)]
    pub database: Option<String>,
}

impl From<HubStoreArgs> for StoreArgs {
    fn from(a: HubStoreArgs) -> StoreArgs {
        StoreArgs {
            hub_db: a.hub_db,
            database: a.database,
        }
    }
}

impl StoreArgs {
    /// Whether a hub's store was named on the command line (else a command that also works on
    /// this machine's store uses that).
    pub fn names_one(&self) -> bool {
        self.hub_db.is_some() || self.database.is_some()
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The port (default 7750; 0 picks a free one, printed at start).
    #[arg(long)]
    pub port: Option<u16>,
    /// The address to listen on. Anything but loopback needs --tls-cert and --tls-key, or
    /// --behind-proxy.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// The certificate chain to serve TLS with (PEM, the leaf first).
    #[arg(long = "tls-cert", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long = "tls-key", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// A proxy or tunnel in front terminates TLS (Caddy, nginx, Tailscale, cloudflared):
    /// serve plain HTTP to it and take the public name it forwards as Host.
    #[arg(long = "behind-proxy", conflicts_with = "tls_cert")]
    pub behind_proxy: bool,
}

#[derive(Debug, Subcommand)]
pub enum HubCommand {
    /// List the audited tool calls, oldest first.
    Audit(AuditArgs),
    /// Copy a SQLite hub into a PostgreSQL database (resumable; counts checked at the end).
    Migrate(MigrateArgs),
    /// List the machine keys the hub pinned for the machines' signed histories, or forget
    /// one machine's pin so that its next sync pins the key it comes with.
    Keys(KeysArgs),
}

#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The sync machine id whose pinned key to forget (as `aletheia hub keys` lists it, and a
    /// refused sync names it), after its machine.key was replaced on purpose.
    #[arg(long, value_name = "SYNC_MACHINE")]
    pub forget: Option<String>,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The SQLite hub to copy from (read only).
    #[arg(long)]
    pub from: PathBuf,
    /// The PostgreSQL database to copy into: postgres://user@host/dbname.
    #[arg(long)]
    pub to: String,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// Only calls since this time (YYYY-MM-DD, yesterday, 2w, 3 days ago, ...).
    #[arg(long)]
    pub since: Option<String>,
    /// Only calls made with this token (its id, from mcp-link list).
    #[arg(long)]
    pub token: Option<i64>,
    /// At most this many rows.
    #[arg(long, default_value_t = 1000)]
    pub limit: usize,
}

#[derive(Debug, Subcommand)]
pub enum LinkCommand {
    /// Make a token; it is printed once, with the entry to paste into each host.
    Create(CreateArgs),
    /// List the tokens (never their secrets).
    List {
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Revoke a token: every request with it is refused from now on.
    Revoke {
        #[command(flatten)]
        store: StoreArgs,
        /// The token's id, from mcp-link list.
        id: i64,
    },
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The projects it may touch, separated by commas; default: every project.
    #[arg(long, value_delimiter = ',')]
    pub projects: Vec<String>,
    /// mcp or read: the read tools; sync: every tool and sync; admin: also tokens and audit.
    #[arg(long)]
    pub scope: String,
    /// A name to know it by (a machine, a person).
    #[arg(long, default_value = "")]
    pub label: String,
    /// When it stops working: a count of hours, days or weeks (12h, 30d, 8w); default never.
    #[arg(long)]
    pub expires: Option<String>,
    /// The hub's MCP address, for the entries printed (default http://127.0.0.1:7750/mcp).
    #[arg(long)]
    pub url: Option<String>,
}

/// `30d` as milliseconds: a whole count of hours, days or weeks.
pub fn parse_expiry(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let unit_at = s
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("--expires {s}: add a unit, as in 12h, 30d or 8w"))?;
    let (n, unit) = s.split_at(unit_at);
    let n: i64 = n
        .parse()
        .map_err(|_| format!("--expires {s}: start with a whole number, as in 30d"))?;
    let per = match unit.trim() {
        "h" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        "w" | "week" | "weeks" => 7 * 86_400_000,
        _ => return Err(format!("--expires {s}: the unit is h, d or w, as in 30d")),
    };
    if n == 0 {
        return Err(format!(
            "--expires {s}: a token that expires at once is no token"
        ));
    }
    n.checked_mul(per)
        .ok_or_else(|| format!("--expires {s}: too far away"))
}

#[cfg(feature = "server")]
mod run {
    use super::*;
    use crate::cli::print;
    use crate::redact::Redactor;
    use crate::server::hub::{self, links, tokens};
    use crate::store::HubStorage;
    use crate::store::hub_database::HubDatabase;
    use crate::time::{Bound, Clock};

    /// The store the arguments name, checked before anything is opened.
    fn database(a: StoreArgs) -> anyhow::Result<HubDatabase> {
        let db = HubDatabase::choose(a.hub_db, a.database).map_err(anyhow::Error::msg)?;
        db.check_folder().map_err(anyhow::Error::msg)?;
        Ok(db)
    }

    fn open(a: StoreArgs) -> anyhow::Result<(Box<dyn HubStorage + Send>, HubDatabase)> {
        let db = database(a)?;
        let store = db
            .open()
            .map_err(|e| anyhow::anyhow!("opening the hub's store {}: {e}", db.shown()))?;
        Ok((store, db))
    }

    /// Run one operation on the hub's store as its owner (`aletheia trust` and `aletheia
    /// review` with `--hub-db` or `--database`), and print its result.
    pub fn run_op<O: crate::ops::Operation + crate::text::Text>(
        a: StoreArgs,
        request: O,
        json: bool,
    ) -> anyhow::Result<()> {
        let (mut store, _) = open(a)?;
        let clock = Clock::system();
        let mut ctx = crate::ops::Context {
            store: &mut *store,
            redactor: crate::cli::redactor()?,
            clock: clock.clone(),
            caller: crate::cli::caller(None),
            paths: None,
            semantic: None,
            extraction: None,
            root: None,
        };
        let out = crate::ops::call(&mut ctx, request)?;
        Ok(print::result(&out, &clock, json, O::text)?)
    }

    pub fn hub(args: HubArgs, json: bool) -> anyhow::Result<()> {
        match args.command {
            Some(HubCommand::Audit(a)) => audit(a, json),
            Some(HubCommand::Migrate(a)) => crate::cli::hub_migrate::run(&a.from, &a.to, json),
            Some(HubCommand::Keys(a)) => keys(a, json),
            None => {
                let s = args.serve;
                // The store is opened (and its folder checked) by the hub, after its options:
                // a setting that would expose tokens is said first.
                let opts = hub::Options {
                    database: HubDatabase::choose(s.store.hub_db, s.store.database)
                        .map_err(anyhow::Error::msg)?,
                    bind: s.bind,
                    port: s.port.unwrap_or(hub::DEFAULT_PORT),
                    tls: s.tls_cert.zip(s.tls_key),
                    behind_proxy: s.behind_proxy,
                    allowed_origins: crate::cli::server::allowed_origins(),
                };
                hub::run(opts, crate::cli::default_project())
            }
        }
    }

    fn keys(a: KeysArgs, json: bool) -> anyhow::Result<()> {
        let (mut store, _) = open(a.store)?;
        if let Some(machine) = a.forget {
            if !store.forget_history_pin(&machine)? {
                anyhow::bail!(
                    "no key is pinned for sync machine {machine}: `aletheia hub keys` lists them"
                );
            }
            return Ok(print::line(&format!(
                "Forgot the key pinned for sync machine {machine}: its next sync pins the key it comes with."
            ))?);
        }
        let pins = store.history_pins()?;
        if json {
            let rows: Vec<_> = pins
                .iter()
                .map(|(p, n)| serde_json::json!({ "pin": p, "entries": n }))
                .collect();
            return print::json(&rows).map_err(Into::into);
        }
        if pins.is_empty() {
            return print::line("No machine has synced its history yet.").map_err(Into::into);
        }
        let clock = Clock::system();
        let mut out = print::Printer::stdout();
        for (p, n) in &pins {
            let pinned = if p.sync_machine.is_empty() {
                "no longer pinned".to_owned()
            } else {
                format!("sync machine {}", p.sync_machine)
            };
            out.line(&format!(
                "key {}  {pinned}  first seen {}  {n} entries",
                p.machine,
                clock.iso(p.first_seen)
            ))?;
        }
        out.flush().map_err(Into::into)
    }

    fn audit(a: AuditArgs, json: bool) -> anyhow::Result<()> {
        let clock = Clock::system();
        let since = a
            .since
            .as_deref()
            .map(|s| clock.parse(s, Bound::Start))
            .transpose()
            .map_err(|e| anyhow::anyhow!("--since: {e}"))?
            .unwrap_or(0);
        let (store, _) = open(a.store)?;
        let rows = store.calls(since, a.token, a.limit)?;
        if json {
            return print::json(&rows).map_err(Into::into);
        }
        if rows.is_empty() {
            return print::line("No calls.").map_err(Into::into);
        }
        let mut out = print::Printer::stdout();
        for r in &rows {
            out.line(&format!(
                "{}  token {} ({})  {}  {}  {}",
                clock.iso(r.at),
                r.token_id,
                if r.label.is_empty() {
                    "no label"
                } else {
                    &r.label
                },
                r.tool,
                r.project.as_deref().unwrap_or("-"),
                r.result
            ))?;
        }
        out.flush().map_err(Into::into)
    }

    pub fn link(c: LinkCommand, json: bool) -> anyhow::Result<()> {
        let clock = Clock::system();
        match c {
            LinkCommand::Create(a) => {
                let scope = tokens::Scope::parse(&a.scope).map_err(anyhow::Error::msg)?;
                let expires_at = a
                    .expires
                    .as_deref()
                    .map(parse_expiry)
                    .transpose()
                    .map_err(anyhow::Error::msg)?
                    .map(|ms| clock.now().saturating_add(ms));
                let projects: Vec<String> = a
                    .projects
                    .iter()
                    .map(|p| p.trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .collect();
                for p in &projects {
                    crate::project::check(p).map_err(|e| anyhow::anyhow!("--projects: {e}"))?;
                }
                let (mut store, _) = open(a.store)?;
                let req = tokens::Request {
                    label: a.label,
                    scope,
                    projects: (!projects.is_empty()).then_some(projects),
                    expires_at,
                    created_by: None,
                };
                let (id, token) =
                    tokens::mint(store.as_mut(), req, clock.now(), Redactor::global())?;
                let url = a
                    .url
                    .unwrap_or_else(|| format!("http://127.0.0.1:{}/mcp", hub::DEFAULT_PORT));
                if json {
                    let entries: serde_json::Map<String, serde_json::Value> =
                        links::entries(&url, &token)
                            .into_iter()
                            .map(|e| (e.host.to_owned(), e.text.into()))
                            .collect();
                    return print::json(
                        &serde_json::json!({ "id": id, "token": token, "entries": entries }),
                    )
                    .map_err(Into::into);
                }
                let mut out = print::Printer::stdout();
                out.line(&format!("Token {id} ({}): {token}", scope.as_str()))?;
                out.line("It is shown this once; the hub keeps only its hash.")?;
                for e in links::entries(&url, &token) {
                    out.line("")?;
                    out.line(&format!("{} ({}):", e.host, e.place))?;
                    out.line(&e.text)?;
                }
                out.flush().map_err(Into::into)
            }
            LinkCommand::List { store } => {
                let rows = open(store)?.0.tokens()?;
                if json {
                    return print::json(&rows).map_err(Into::into);
                }
                if rows.is_empty() {
                    return print::line("No tokens: aletheia mcp-link create makes one.")
                        .map_err(Into::into);
                }
                let mut out = print::Printer::stdout();
                for t in &rows {
                    let state = match (t.revoked_at, t.expires_at) {
                        (Some(at), _) => format!("revoked {}", clock.date(at)),
                        (None, Some(at)) if at <= clock.now() => {
                            format!("expired {}", clock.date(at))
                        }
                        (None, Some(at)) => format!("expires {}", clock.date(at)),
                        (None, None) => "never expires".to_owned(),
                    };
                    let projects = t
                        .projects
                        .as_ref()
                        .map_or_else(|| "every project".to_owned(), |p| p.join(","));
                    out.line(&format!(
                        "{}  {}  {}  {}  {}",
                        t.id,
                        t.scope,
                        if t.label.is_empty() {
                            "no label"
                        } else {
                            &t.label
                        },
                        projects,
                        state
                    ))?;
                }
                out.flush().map_err(Into::into)
            }
            LinkCommand::Revoke { store, id } => {
                let (mut store, db) = open(store)?;
                if store.revoke_token(id, clock.now())? {
                    print::line(&format!("Token {id} is revoked.")).map_err(Into::into)
                } else if store.token(id)?.is_some() {
                    print::line(&format!("Token {id} was revoked already.")).map_err(Into::into)
                } else {
                    anyhow::bail!(
                        "no token {id} in {}: aletheia mcp-link list shows them",
                        db.shown()
                    )
                }
            }
        }
    }
}

#[cfg(feature = "server")]
pub use run::{hub, link, run_op};

/// A build without the server: the arguments still parse, and the answer says how to get one.
#[cfg(not(feature = "server"))]
pub fn hub(_args: HubArgs, _json: bool) -> anyhow::Result<()> {
    Err(crate::features::NotBuilt::SERVER.into())
}

#[cfg(not(feature = "server"))]
pub fn link(_c: LinkCommand, _json: bool) -> anyhow::Result<()> {
    Err(crate::features::NotBuilt::SERVER.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_takes_hours_days_and_weeks_and_says_what_else_to_write() {
        assert_eq!(parse_expiry("12h"), Ok(12 * 3_600_000));
        assert_eq!(parse_expiry("30d"), Ok(30 * 86_400_000));
        assert_eq!(parse_expiry("8w"), Ok(56 * 86_400_000));
        assert!(parse_expiry("30").unwrap_err().contains("add a unit"));
        assert!(parse_expiry("30y").unwrap_err().contains("h, d or w"));
        assert!(parse_expiry("0d").is_err());
        assert!(
            parse_expiry("99999999999999w")
                .unwrap_err()
                .contains("too far")
        );
    }
}
