//! `aletheia server`: the command line's edge for the server. The address, port, API key and
//! allowed origins are read from flags and the environment here; [`crate::server`] serves.

use crate::config::Paths;
use crate::server::{DEFAULT_PORT, Options};
use clap::Args;
use std::net::IpAddr;

#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The port (ALETHEIA_PORT; default 7749; 0 picks a free one, printed at start).
    #[arg(long)]
    pub port: Option<u16>,
    /// The address to listen on. Anything but loopback needs ALETHEIA_API_KEY.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Do not run the compression worker.
    #[arg(long)]
    pub no_worker: bool,
}

pub fn run(args: ServerArgs) -> anyhow::Result<()> {
    let port = match args.port {
        Some(p) => p,
        None => match std::env::var("ALETHEIA_PORT") {
            Ok(v) if !v.trim().is_empty() => v.trim().parse().map_err(|_| {
                anyhow::anyhow!("ALETHEIA_PORT must be a port number (0-65535), not \"{v}\"")
            })?,
            _ => DEFAULT_PORT,
        },
    };
    let api_key = std::env::var("ALETHEIA_API_KEY")
        .ok()
        .filter(|k| !k.trim().is_empty());
    let allowed_origins = std::env::var("ALETHEIA_ALLOWED_ORIGINS")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(str::to_owned)
        .collect();
    let opts = Options {
        bind: args.bind,
        port,
        api_key,
        allowed_origins,
        worker: !args.no_worker,
    };
    crate::server::run(opts, Paths::from_env(), super::default_project())
}
