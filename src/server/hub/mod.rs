//! `aletheia hub`: one store shared by a person's machines or a team, over HTTP, where every
//! request carries a token and the token decides what it may do.
//!
//! The hub serves the same MCP tools as `aletheia server` at `/mcp`, through the same
//! operations layer: only the [`Caller`](crate::ops::Caller) differs, built from the request's
//! token ([`tokens::caller`]) instead of being the local user. In front of every route, after
//! the server's Host and Origin checks: the token (401 without a live one) and its rate
//! ([`rate`]; 429 with `Retry-After` past it). Every `tools/call` adds an audit row (time, token,
//! tool, project, result; never the arguments). `admin` tokens also manage tokens and read the
//! audit over HTTP ([`admin`]).
//!
//! Beyond loopback the hub needs TLS: its own (`--tls-cert`, `--tls-key`) or a proxy's in front
//! of it (`--behind-proxy`), since a bearer token on plain HTTP can be read by anyone on the way.

mod admin;
mod history;
pub mod links;
pub mod rate;
mod sync;
pub mod tokens;

use super::error::ApiError;
use super::state::State;
use crate::config::Paths;
use crate::embed::background::Background;
use crate::store::contract::Storage;
use crate::store::hub::{AuditEntry, Token};
use crate::store::hub_database::HubDatabase;
use anyhow::Context as _;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::http::header::{AUTHORIZATION, RETRY_AFTER, WWW_AUTHENTICATE};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

/// The port when `--port` names none: the server's, plus one.
pub const DEFAULT_PORT: u16 = super::DEFAULT_PORT + 1;

/// How the hub is started.
#[derive(Debug, Clone)]
pub struct Options {
    /// The hub's store: a SQLite file or a PostgreSQL database.
    pub database: HubDatabase,
    pub bind: IpAddr,
    /// 0 picks a free port (printed at start).
    pub port: u16,
    /// A certificate chain and its key, PEM files, for TLS served by the hub itself.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// A proxy in front terminates TLS; the hub itself speaks plain HTTP.
    pub behind_proxy: bool,
    pub allowed_origins: Vec<String>,
}

impl Options {
    /// Refuse a setting that would send tokens in the clear over a network.
    pub fn check(&self) -> Result<(), String> {
        if !self.bind.is_loopback() && self.tls.is_none() && !self.behind_proxy {
            return Err(format!(
                "binding to {} would send tokens over the network in the clear: give --tls-cert and --tls-key, or --behind-proxy when a proxy in front terminates TLS",
                self.bind
            ));
        }
        Ok(())
    }
}

/// The token a request was let in with, for the handlers behind the gate.
#[derive(Debug, Clone)]
pub struct Authorized(pub Token);

/// What the gate needs: the store (tokens and the rate window), the limit with the clock it reads, the recent
/// wrong tokens by address, and which token opened each MCP session.
pub struct Gate {
    state: Arc<State>,
    /// Requests each token may make per minute, counted in the store.
    per_minute: usize,
    now: fn() -> i64,
    wrong: super::attempts::Attempts,
    owners: std::sync::Mutex<Owners>,
}

impl Gate {
    pub fn new(state: Arc<State>, per_minute: usize, now: fn() -> i64) -> Gate {
        Gate {
            state,
            per_minute: per_minute.max(1),
            now,
            wrong: super::attempts::Attempts::default(),
            owners: std::sync::Mutex::new(Owners::default()),
        }
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, Owners> {
        self.owners.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The token each MCP session was opened with: a session is its token's alone, so another
/// token that learns its id can neither use it nor end it. Sessions end on their own (idle, or
/// at the cap) without the gate hearing of it, so the table keeps the newest [`Owners::CAP`].
#[derive(Default)]
struct Owners {
    by_session: std::collections::HashMap<String, i64>,
    order: std::collections::VecDeque<String>,
}

impl Owners {
    const CAP: usize = 8192;

    fn insert(&mut self, session: String, token: i64) {
        if self.by_session.insert(session.clone(), token).is_none() {
            self.order.push_back(session);
        }
        while self.order.len() > Owners::CAP {
            if let Some(old) = self.order.pop_front() {
                self.by_session.remove(&old);
            }
        }
    }

    /// Whether `token` may use `session`: its own, or one the table does not know (which the
    /// MCP layer then answers as unknown or ended).
    fn allows(&self, session: &str, token: i64) -> bool {
        self.by_session.get(session).is_none_or(|&t| t == token)
    }
}

const SESSION_HEADER: &str = "mcp-session-id";

fn too_many(message: String, wait_secs: u64) -> Response {
    let mut response = ApiError::new(429, "rate_limited", message).into_response();
    if let Ok(v) = HeaderValue::from_str(&wait_secs.to_string()) {
        response.headers_mut().insert(RETRY_AFTER, v);
    }
    response
}

/// The middleware: a live token under its rate, or 401 / 429. It runs before any body is
/// read, so a request without a token costs the hub its headers only; an address that keeps
/// sending wrong tokens is refused for a while, as the server refuses wrong API keys.
///
/// A refusal says `Connection: close` ([`super::guard::closing`]).
pub async fn gate(state: axum::extract::State<Arc<Gate>>, req: Request, next: Next) -> Response {
    match admit(state, req, next).await {
        Ok(answered) => answered,
        Err(refused) => super::guard::closing(refused),
    }
}

/// [`gate`]'s checks: the answer of the routes behind it, or the refusal.
async fn admit(
    axum::extract::State(gate): axum::extract::State<Arc<Gate>>,
    mut req: Request,
    next: Next,
) -> Result<Response, Response> {
    let now = (gate.now)();
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    let instant = std::time::Instant::now();
    if let Some(wait) = gate.wrong.blocked(peer, instant) {
        return Err(too_many(
            "too many wrong tokens from this address: try again later".to_owned(),
            wait.as_secs().max(1),
        ));
    }
    let header = req
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let per_minute = gate.per_minute;
    // The token and its rate in one turn of the pool: both are read from the store, so every
    // hub process on it sees a revocation and counts a request at once.
    let verified = gate
        .state
        .with_store(move |store| {
            let token = tokens::verify(store, header.as_deref(), now)?;
            let rate = store
                .admit_request(token.id, now, per_minute)
                .map_err(|e| tokens::Refused::Store(e.to_string()))?;
            Ok((token, rate))
        })
        .await;
    let (token, rate) = match verified {
        Ok(Ok(admitted)) => admitted,
        Ok(Err(refused @ tokens::Refused::Store(_))) => {
            tracing::error!(error = %refused, "could not check a token");
            return Err(ApiError::new(
                503,
                "store_unavailable",
                "the hub's store cannot be read: try again in a moment",
            )
            .into_response());
        }
        Ok(Err(refused)) => {
            tracing::warn!(%peer, reason = %refused, "refused a request without a live token");
            if refused == tokens::Refused::Unknown {
                let _ = gate.wrong.fail(peer, instant);
            }
            let mut response =
                ApiError::new(401, "unauthorized", refused.to_string()).into_response();
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Err(response);
        }
        Err(e) => {
            tracing::error!(error = %e, "could not check a token");
            return Err(ApiError::new(
                503,
                "store_unavailable",
                "the hub is busy or stopping: try again in a moment",
            )
            .into_response());
        }
    };
    if let Err(wait) = rate {
        return Err(too_many(
            format!(
                "this token has made {per_minute} requests in the last minute: try again in {wait} s"
            ),
            wait,
        ));
    }
    let session = req
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(sid) = &session
        && !gate.owners().allows(sid, token.id)
    {
        // As the MCP layer answers a session it does not know: nothing says it exists.
        return Err(ApiError::new(
            404,
            "session_not_found",
            "this MCP session has ended (idle too long, replaced at the session cap, or deleted) or never was: initialize again without Mcp-Session-Id",
        )
        .into_response());
    }
    let id = token.id;
    req.extensions_mut().insert(Authorized(token));
    let response = next.run(req).await;
    if session.is_none()
        && let Some(opened) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
    {
        gate.owners().insert(opened.to_owned(), id);
    }
    Ok(response)
}

/// Record one tool call in the audit, after it ran. A failed write is logged, not the
/// caller's problem: the call itself has happened.
pub async fn audit(state: &Arc<State>, entry: AuditEntry) {
    let redactor = state.redactor();
    let written = state
        .with_store(move |store| store.record_call(&crate::redact::Redacted::new(entry, redactor)))
        .await;
    match written {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "could not write an audit row"),
        Err(e) => tracing::error!(error = %e, "could not write an audit row"),
    }
}

/// An audit row for a request that is not a tool call (an admin action, a sync batch), as a
/// tool call's: the action's name, no project, and whether it went through.
async fn audited(state: &Arc<State>, token: &Authorized, action: &str, ok: bool) {
    let entry = AuditEntry {
        at: crate::time::now_ms(),
        token_id: token.0.id,
        label: token.0.label.clone(),
        tool: action.to_owned(),
        project: None,
        result: if ok { "ok" } else { "error" }.to_owned(),
    };
    audit(state, entry).await;
}

/// The answer when the hub's store cannot be reached.
fn unavailable(e: impl std::fmt::Display) -> Response {
    ApiError::new(503, "store_unavailable", e.to_string()).into_response()
}

/// The hub's paths: on SQLite, the store is the file named and the rest (logs, spool) beside
/// it; on PostgreSQL, the logs are in the user's data directory.
fn paths(database: &HubDatabase) -> Paths {
    let HubDatabase::Sqlite(hub_db) = database else {
        return Paths::from_env();
    };
    let dir = hub_db
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let mut paths = Paths::within(&dir);
    paths.db = hub_db.to_owned();
    paths.db_is_explicit = true;
    paths
}

/// Run the hub until SIGINT or SIGTERM.
pub fn run(opts: Options, default_project: String) -> anyhow::Result<()> {
    opts.check().map_err(anyhow::Error::msg)?;
    if opts.behind_proxy && opts.tls.is_none() && !opts.bind.is_loopback() {
        eprintln!(
            "aletheia hub: --behind-proxy on {} serves plain HTTP to the network; bind to 127.0.0.1 so only the proxy reaches it",
            opts.bind
        );
    }
    if let Some((cert, key)) = &opts.tls {
        // Read now, so a wrong path is said before anything listens.
        super::tls::config(cert, key).map_err(anyhow::Error::msg)?;
    }
    let limits = super::limits::Limits::from_env().map_err(anyhow::Error::msg)?;
    let per_minute = rate_from_env().map_err(anyhow::Error::msg)?;
    let redactor = crate::redact::Redactor::global_checked();
    opts.database.check_folder().map_err(anyhow::Error::msg)?;
    // Makes the hub's tables on first use, and says now if the store cannot be one.
    drop(
        opts.database
            .open()
            .with_context(|| format!("opening the hub's store {}", opts.database.shown()))?,
    );
    let paths = paths(&opts.database);
    let _log = super::logging(&paths)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the hub's runtime")?;
    runtime.block_on(serve(
        opts,
        limits,
        per_minute,
        paths,
        default_project,
        redactor,
    ))
}

/// `ALETHEIA_HUB_RATE`: requests per token per minute, [`rate::PER_MINUTE`] when unset.
fn rate_from_env() -> Result<usize, String> {
    match std::env::var("ALETHEIA_HUB_RATE") {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("ALETHEIA_HUB_RATE must be a count of requests per minute, 1 or more, not \"{v}\"")),
        _ => Ok(rate::PER_MINUTE),
    }
}

async fn serve(
    opts: Options,
    mut limits: super::limits::Limits,
    per_minute: usize,
    paths: Paths,
    default_project: String,
    redactor: Result<&'static crate::redact::Redactor, String>,
) -> anyhow::Result<()> {
    let keyword_index = crate::store::keyword_index::setting().map_err(anyhow::Error::msg)?;
    let addr = SocketAddr::new(opts.bind, opts.port);
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr} (is another hub on that port? choose one with --port)")
    })?;
    let bound = listener.local_addr()?;
    limits.max_connections = limits
        .max_connections
        .min(super::connections_the_files_allow());
    // The hub scores by meaning as the server does when its user has fetched the model, with
    // the vectors kept in its own database (each hub process on one database indexes what
    // has none; a vector written twice is the same vector).
    let database = opts.database.clone();
    let background = Background::start_on(&paths.model_dir(), move || {
        database
            .open_serving(false)
            .map(|s| s as Box<dyn Storage + Send>)
    });
    let semantic_line = if background.is_some() {
        "semantic index: loading the model"
    } else {
        "semantic index: off (no model: aletheia model fetch)"
    };
    let state = Arc::new(
        State::new(
            paths.clone(),
            redactor,
            default_project,
            background,
            "no worker".to_owned(),
            None,
        )
        .serving(opts.database.clone())
        .keyword_index(keyword_index),
    );
    state.warm();
    let tls = match &opts.tls {
        Some((cert, key)) => Some(super::tls::config(cert, key).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    eprintln!(
        "aletheia hub: {scheme}://{bound} · MCP at /mcp · store {} · {semantic_line}",
        opts.database.shown()
    );
    tracing::info!(%bound, tls = tls.is_some(), "hub started");
    let app = app(
        Arc::clone(&state),
        bound,
        &opts,
        limits,
        Gate::new(Arc::clone(&state), per_minute, crate::time::now_ms),
    );
    super::listen::serve(listener, app, limits, super::shutdown_signal(), tls).await;
    eprintln!("aletheia hub: stopped");
    Ok(())
}

/// The hub's routes behind its gates.
pub fn app(
    state: Arc<State>,
    bound: SocketAddr,
    opts: &Options,
    limits: super::limits::Limits,
    gate: Gate,
) -> axum::Router {
    let mut guard = super::guard::Guard::new(bound, None, &opts.allowed_origins);
    // Beyond loopback, or behind a proxy or tunnel that forwards its public name, clients name
    // the hub by whatever reaches it; the token guards every request.
    guard.any_host = !bound.ip().is_loopback() || opts.behind_proxy;
    let guard = Arc::new(guard);
    let sessions = Arc::new(super::sessions::Sessions::new(
        limits.mcp_sessions,
        limits.mcp_session_idle,
    ));
    let gate = Arc::new(gate);
    super::mcp_http::router(
        Arc::clone(&state),
        guard.mcp_hosts(),
        guard.origins.clone(),
        sessions,
        super::mcp_http::Callers::Tokens,
    )
    .merge(admin::router(Arc::clone(&state)))
    .merge(history::router(Arc::clone(&state)))
    .merge(sync::router(state))
    .layer(axum::extract::DefaultBodyLimit::max(super::BODY_LIMIT))
    .layer(axum::middleware::from_fn(super::body::read_whole))
    // Outside the body's reading: a request without a live token is answered from its headers.
    .layer(axum::middleware::from_fn_with_state(gate, self::gate))
    .layer(axum::middleware::map_response(super::error::json_errors))
    .layer(axum::middleware::from_fn_with_state(
        guard,
        super::guard::layer,
    ))
}
