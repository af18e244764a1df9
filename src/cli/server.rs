//! `aletheia server`: the command line's edge for the server. The address, port, API key and
//! allowed origins are read from flags and the environment here; [`crate::server`] serves.

#[cfg(feature = "server")]
use crate::config::Paths;
#[cfg(feature = "server")]
use crate::server::{DEFAULT_PORT, Options};
use clap::Args;
use std::net::IpAddr;

#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The port (ALETHEIA_PORT; default 7749; 0 picks a free one, printed at start).
    #[arg(long)]
    pub port: Option<u16>,
    /// The address to listen on. Anything but loopback needs ALETHEIA_API_KEY of 24+ characters.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Do not run the compression worker.
    #[arg(long)]
    pub no_worker: bool,
}

#[cfg(feature = "server")]
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
    let api_key = api_key(std::env::var("ALETHEIA_API_KEY").ok().as_deref(), args.bind)
        .map_err(anyhow::Error::msg)?;
    let allowed_origins = allowed_origins();
    let opts = Options {
        bind: args.bind,
        port,
        api_key,
        allowed_origins,
        worker: !args.no_worker,
    };
    crate::server::run(opts, Paths::from_env(), super::default_project())
}

/// `ALETHEIA_ALLOWED_ORIGINS`: origins, comma separated, accepted besides the server's own.
pub fn allowed_origins() -> Vec<String> {
    std::env::var("ALETHEIA_ALLOWED_ORIGINS")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A build without the server: the arguments are still parsed (so a typo is still a typo), and
/// the answer says how to get a server.
#[cfg(not(feature = "server"))]
pub fn run(_args: ServerArgs) -> anyhow::Result<()> {
    Err(crate::features::NotBuilt::SERVER.into())
}

/// The shortest key that may guard a server on the network: 24 characters, 144 bits as hex
/// from `openssl rand -hex 24` (48 characters), out of reach of guessing even at full speed.
/// On loopback any key is taken: only local processes can try it, at the guard's pace.
pub const MIN_NETWORK_KEY: usize = 24;

/// `ALETHEIA_API_KEY` as the server will compare it, or why it cannot be used. Unset or
/// empty means no key. A key is refused, never trimmed, when it has spaces or line breaks
/// around it: clients send the key as configured and HTTP drops the padding, so a padded key
/// would refuse them all; saying so beats guessing which of the two the user meant.
pub fn api_key(raw: Option<&str>, bind: IpAddr) -> Result<Option<String>, String> {
    let Some(key) = raw.filter(|k| !k.is_empty()) else {
        return Ok(None);
    };
    if key.trim() != key {
        return Err(
            "ALETHEIA_API_KEY starts or ends with a space or line break, which HTTP clients cannot send: set it without them"
                .to_owned(),
        );
    }
    if !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("ALETHEIA_API_KEY holds a space or a character an HTTP header cannot carry: use printable ASCII, e.g. ALETHEIA_API_KEY=$(openssl rand -hex 24)".to_owned());
    }
    let chars = key.chars().count();
    if !bind.is_loopback() && chars < MIN_NETWORK_KEY {
        return Err(format!(
            "ALETHEIA_API_KEY has {chars} characters, too few to guard {bind} on the network: use {MIN_NETWORK_KEY} or more, e.g. ALETHEIA_API_KEY=$(openssl rand -hex 24)"
        ));
    }
    Ok(Some(key.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> IpAddr {
        "0.0.0.0".parse().unwrap()
    }

    fn local() -> IpAddr {
        "127.0.0.1".parse().unwrap()
    }

    #[test]
    fn a_network_bind_needs_a_key_of_24_characters() {
        let short = "a".repeat(MIN_NETWORK_KEY - 1);
        let long = "a".repeat(MIN_NETWORK_KEY);
        let err = api_key(Some(&short), net()).unwrap_err();
        assert!(
            err.contains("23 characters") && err.contains("openssl rand -hex 24"),
            "{err}"
        );
        assert_eq!(api_key(Some(&long), net()), Ok(Some(long.clone())));
        assert_eq!(api_key(Some("k"), local()), Ok(Some("k".to_owned())));
    }

    #[test]
    fn a_padded_key_is_refused_not_trimmed() {
        for padded in [" k-0123456789", "k-0123456789 ", "k-0123456789\n", "\tk"] {
            let err = api_key(Some(padded), local()).unwrap_err();
            assert!(err.contains("space or line break"), "{padded:?}: {err}");
        }
        assert!(api_key(Some("k 1"), local()).is_err());
        assert!(api_key(Some("clé-secrète"), local()).is_err());
        assert_eq!(api_key(Some(""), net()), Ok(None));
        assert_eq!(api_key(None, net()), Ok(None));
    }
}
