//! How much the server holds for clients it does not know yet: open connections, the time a
//! connection has to send a request's header and body, and MCP sessions. Each has a default
//! that a person's own tools never reach and a variable to change it (tests set them short).

use std::time::Duration;

/// The server's limits; [`Limits::from_env`] reads them.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections open at once (`ALETHEIA_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// How long a connection may take to send a request's header, from its opening or from
    /// the previous answer (`ALETHEIA_HEADER_TIMEOUT_MS`).
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive once its header has (`ALETHEIA_BODY_TIMEOUT_MS`).
    pub body_timeout: Duration,
    /// MCP sessions live at once (`ALETHEIA_MCP_SESSIONS`).
    pub mcp_sessions: usize,
    /// How long an MCP session lives without a request (`ALETHEIA_MCP_SESSION_IDLE_SECS`).
    pub mcp_session_idle: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 512,
            header_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(30),
            mcp_sessions: 256,
            mcp_session_idle: Duration::from_secs(30 * 60),
        }
    }
}

impl Limits {
    /// The defaults, with any of the variables set in the environment.
    pub fn from_env() -> Result<Limits, String> {
        Limits::from_lookup(|name| std::env::var(name).ok())
    }

    fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Limits, String> {
        let d = Limits::default();
        let number = |name: &str, default: u64| -> Result<u64, String> {
            match get(name) {
                Some(v) if !v.trim().is_empty() => match v.trim().parse::<u64>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(format!(
                        "{name} must be a whole number above 0, not \"{v}\""
                    )),
                },
                _ => Ok(default),
            }
        };
        // A count past what memory can address is no cap at all, on a 32-bit target too.
        let count = |name: &str, default: usize| -> Result<usize, String> {
            let default = u64::try_from(default).unwrap_or(u64::MAX);
            Ok(usize::try_from(number(name, default)?).unwrap_or(usize::MAX))
        };
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Ok(Limits {
            max_connections: count("ALETHEIA_MAX_CONNECTIONS", d.max_connections)?,
            header_timeout: Duration::from_millis(number(
                "ALETHEIA_HEADER_TIMEOUT_MS",
                ms(d.header_timeout),
            )?),
            body_timeout: Duration::from_millis(number(
                "ALETHEIA_BODY_TIMEOUT_MS",
                ms(d.body_timeout),
            )?),
            mcp_sessions: count("ALETHEIA_MCP_SESSIONS", d.mcp_sessions)?,
            mcp_session_idle: Duration::from_secs(number(
                "ALETHEIA_MCP_SESSION_IDLE_SECS",
                d.mcp_session_idle.as_secs(),
            )?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_variables_keep_the_defaults_and_bad_ones_are_named() {
        let l = Limits::from_lookup(|_| None).unwrap();
        assert_eq!((l.max_connections, l.mcp_sessions), (512, 256));
        let l = Limits::from_lookup(|n| (n == "ALETHEIA_HEADER_TIMEOUT_MS").then(|| "250".into()))
            .unwrap();
        assert_eq!(l.header_timeout, Duration::from_millis(250));
        let e = Limits::from_lookup(|n| (n == "ALETHEIA_MCP_SESSIONS").then(|| "0".into()))
            .unwrap_err();
        assert!(e.starts_with("ALETHEIA_MCP_SESSIONS must be"), "{e}");
    }

    #[test]
    fn a_count_past_what_usize_holds_is_no_cap() {
        let l = Limits::from_lookup(|n| {
            (n == "ALETHEIA_MAX_CONNECTIONS").then(|| u64::MAX.to_string())
        })
        .unwrap();
        assert_eq!(
            l.max_connections,
            usize::try_from(u64::MAX).unwrap_or(usize::MAX)
        );
    }
}
