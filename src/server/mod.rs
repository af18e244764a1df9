//! `aletheia server`: the long-running half. On a loopback port it serves the store through the
//! REST API (`/v1`), the MCP tools over Streamable HTTP (`/mcp`) and the dashboard (`/`), and
//! runs the compression worker and the semantic indexer in the background. Hooks never need it.
//!
//! Every route calls the operations layer through [`state::State`]; nothing here decides what
//! an operation does. This file wires the pieces together: the guard in front of every route,
//! the body cap, the connection and session limits ([`limits`]), structured logs, and a
//! shutdown that finishes in-flight requests and releases the worker's job.

mod attempts;
mod body;
pub mod dashboard;
pub mod error;
pub mod guard;
pub mod hub;
mod json_answer;
pub mod limits;
mod listen;
pub mod mcp_http;
pub mod openapi;
mod parse_errors;
pub mod rest;
pub mod sessions;
pub mod state;
pub mod sync_worker;
mod tls;
pub mod worker;

use crate::config::Paths;
use crate::ops::Caller;
use anyhow::Context as _;
use axum::Router;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The largest request body: a hook payload with a 1 MB tool response fits several times over.
pub const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The port when neither `--port` nor `ALETHEIA_PORT` names one.
pub const DEFAULT_PORT: u16 = 7749;

/// How the server is started.
#[derive(Debug, Clone)]
pub struct Options {
    pub bind: IpAddr,
    /// 0 picks a free port (printed at start).
    pub port: u16,
    pub api_key: Option<String>,
    pub allowed_origins: Vec<String>,
    /// Run the compression worker.
    pub worker: bool,
}

impl Options {
    /// Refuse a setting that would expose the store: a non-loopback address without a key.
    pub fn check(&self) -> Result<(), String> {
        if !self.bind.is_loopback() && self.api_key.is_none() {
            return Err(format!(
                "binding to {} exposes the store to the network: set ALETHEIA_API_KEY first, or bind to 127.0.0.1",
                self.bind
            ));
        }
        Ok(())
    }
}

/// The whole application: every front end behind the guard and the body cap, with `/mcp`'s
/// sessions in `sessions`.
pub fn app(
    state: Arc<state::State>,
    guard: guard::Guard,
    sessions: Arc<sessions::Sessions>,
) -> Router {
    let guard = Arc::new(guard);
    Router::new()
        .merge(rest::router(Arc::clone(&state)))
        .merge(dashboard::router(Arc::clone(&state)))
        .merge(mcp_http::router(
            Arc::clone(&state),
            guard.mcp_hosts(),
            guard.origins.clone(),
            sessions,
            mcp_http::Callers::Local,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(body::read_whole))
        .layer(axum::middleware::map_response(error::json_errors))
        .layer(axum::middleware::from_fn_with_state(guard, guard::layer))
}

/// Run the server until SIGINT or SIGTERM.
pub fn run(opts: Options, paths: Paths, default_project: String) -> anyhow::Result<()> {
    opts.check().map_err(anyhow::Error::msg)?;
    let limits = limits::Limits::from_env().map_err(anyhow::Error::msg)?;
    let redactor = crate::redact::Redactor::global_checked();
    let extraction = if opts.worker {
        Some(crate::compress::Extraction::from_env(&paths).map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    let _log = logging(&paths)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server's runtime")?;
    runtime.block_on(serve(
        opts,
        limits,
        paths,
        default_project,
        redactor,
        extraction,
    ))
}

async fn serve(
    opts: Options,
    mut limits: limits::Limits,
    paths: Paths,
    default_project: String,
    redactor: Result<&'static crate::redact::Redactor, String>,
    extraction: Option<crate::compress::Extraction>,
) -> anyhow::Result<()> {
    let keyword_index = crate::store::keyword_index::setting().map_err(anyhow::Error::msg)?;
    let addr = SocketAddr::new(opts.bind, opts.port);
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr} (is another server on that port? choose one with --port)")
    })?;
    let bound = listener.local_addr()?;
    limits.max_connections = limits.max_connections.min(connections_the_files_allow());
    let worker_line = match &extraction {
        Some(ex) => format!("worker on ({})", ex.describe()),
        None => "worker off".to_owned(),
    };
    let (wake_tx, wake_rx) = std::sync::mpsc::channel();
    let background = crate::embed::background::Background::start(&paths);
    let semantic_line = if background.is_some() {
        "semantic index: loading the model"
    } else {
        "semantic index: off (no model: aletheia model fetch)"
    };
    let state = Arc::new(
        state::State::new(
            paths.clone(),
            redactor,
            default_project.clone(),
            background,
            worker_line.clone(),
            extraction.is_some().then_some(wake_tx),
        )
        .keyword_index(keyword_index),
    );
    state.warm();
    let stop = extraction.as_ref().map(|ex| Arc::clone(&ex.stop));
    let worker = match extraction {
        Some(ex) => {
            let (paths, redactor) = (paths.clone(), state.redactor());
            let caller = Caller::local("worker", &default_project);
            Some(
                std::thread::Builder::new()
                    .name("aletheia-worker".into())
                    .spawn(move || worker::run(paths, redactor, ex, caller, wake_rx))?,
            )
        }
        None => None,
    };
    let sync_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let syncer = {
        let (paths, redactor, stop) = (paths.clone(), state.redactor(), Arc::clone(&sync_stop));
        let every = crate::sync::settings::interval().map_err(anyhow::Error::msg)?;
        std::thread::Builder::new()
            .name("aletheia-sync".into())
            .spawn(move || sync_worker::run(paths, redactor, every, stop))?
    };
    let guard = guard::Guard::new(bound, opts.api_key.clone(), &opts.allowed_origins);
    eprintln!(
        "aletheia server: http://{bound} · extraction: {worker_line} · {semantic_line} · store {}",
        paths.db.display()
    );
    tracing::info!(%bound, worker = %worker_line, ?limits, "server started");
    let sessions = Arc::new(sessions::Sessions::new(
        limits.mcp_sessions,
        limits.mcp_session_idle,
    ));
    listen::serve(
        listener,
        app(Arc::clone(&state), guard, sessions),
        limits,
        shutdown_signal(),
        None,
    )
    .await;
    // In-flight requests have finished; release the worker's job at its next window.
    if let Some(stop) = stop {
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        state.wake_worker();
    }
    if let Some(w) = worker {
        let _ = w.join();
    }
    sync_stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = syncer.join();
    eprintln!("aletheia server: stopped");
    Ok(())
}

/// How many connections the process's open-file limit leaves room for, after raising its soft
/// limit to the hard one (as Go does at start): a connection is a file, and so are the store's
/// connections, the logs and the model. Past the limit, accepting fails for everyone.
fn connections_the_files_allow() -> usize {
    // Files besides connections: the store's pool, the logs, the model, the worker.
    const RESERVED: u64 = 128;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the one struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return usize::MAX;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = lim.rlim_max;
            }
        }
    }
    let allowed = lim.rlim_cur.saturating_sub(RESERVED).max(16);
    usize::try_from(allowed).unwrap_or(usize::MAX)
}

async fn shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
    tracing::info!("shutting down");
}

/// Structured logs: compact lines on stderr and JSON lines in `<data dir>/logs/server.log.*`,
/// a file a day, the newest seven kept. `ALETHEIA_LOG` filters (`info` by default), with the MCP
/// library held at `warn` unless the filter names it.
fn logging(paths: &Paths) -> anyhow::Result<tracing_appender::non_blocking::WorkerGuard> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let dir = paths.data_dir.join("logs");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let file = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("server.log")
        .max_log_files(7)
        .build(&dir)
        .with_context(|| format!("opening the log in {}", dir.display()))?;
    let (file, guard) = tracing_appender::non_blocking(file);
    // rmcp logs each client's initialize verbatim at info (its name unredacted among it) and
    // whole requests at debug, so it stays at warn unless the filter names it: `debug` alone
    // must not put what clients send into the log.
    let wanted = std::env::var("ALETHEIA_LOG").unwrap_or_else(|_| "info".to_owned());
    let wanted = if wanted.contains("rmcp") {
        wanted
    } else {
        format!("{wanted},rmcp=warn")
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&wanted)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(
            tracing_subscriber::fmt::layer()
                .compact()
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .with_writer(std::io::stderr),
        )
        .with(tracing_subscriber::fmt::layer().json().with_writer(file))
        .try_init();
    Ok(guard)
}
