//! Who may talk to the server, checked before any route runs: the API key, the Host header and
//! the Origin header.
//!
//! A server on loopback is still reachable from every web page the user opens: a page can make
//! the browser send requests to 127.0.0.1 (Origin names the page), and a DNS-rebinding page can
//! even make them look same-origin (Host then names the attacker's domain). So Host must be one
//! of the server's own names, and a request that carries an Origin must come from one of the
//! server's own origins (or one the user allowed).
//!
//! With `ALETHEIA_API_KEY` set, every request also carries the key: as a bearer token, or, on
//! the dashboard's pages, as the password of HTTP Basic authentication, which is how a browser
//! sends it. The dashboard deliberately has no sign-in cookie: a browser sends a cookie for
//! 127.0.0.1 to every port of 127.0.0.1, so any other local server the browser visits would
//! receive it and could replay it here, whereas a browser keeps Basic credentials for one
//! origin (scheme, host and port) and sends them nowhere else. Keys are compared in constant
//! time, and wrong ones are logged (the address, never the key) and throttled per address
//! ([`super::attempts`]).

use super::attempts::{self, Attempts, Failure};
use super::error::ApiError;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::HeaderValue;
use axum::http::header::{AUTHORIZATION, HOST, ORIGIN, RETRY_AFTER, WWW_AUTHENTICATE};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// Paths served without the key: the dashboard's stylesheet and script.
fn open_without_key(path: &str) -> bool {
    path.starts_with("/assets/")
}

/// The API and MCP, which take the key as a bearer token only: the browser's Basic
/// credentials are the dashboard's.
fn is_api(path: &str) -> bool {
    path.starts_with("/v1") || path.starts_with("/mcp")
}

/// What the guard lets through.
#[derive(Debug)]
pub struct Guard {
    /// `host:port` values the Host header may hold.
    pub hosts: Vec<String>,
    /// Origins (`scheme://host:port`) a request may come from.
    pub origins: Vec<String>,
    pub api_key: Option<String>,
    /// Any Host passes: the server listens beyond loopback, where clients name it by whatever
    /// address or name reaches it, and the key (which a rebinding page cannot have) guards it.
    pub any_host: bool,
    /// Recent wrong keys, by client address.
    attempts: Attempts,
}

/// Why a request is refused.
#[derive(Debug)]
enum Refusal {
    /// Host or Origin name another site.
    Foreign(ApiError),
    /// The key is missing or wrong; `api` says whether the path is the API's or MCP's.
    NoKey { api: bool },
    /// Too many wrong keys came from this address; it may try again after this long.
    Throttled(Duration),
}

/// The credential a request presents.
enum Presented {
    None,
    Bearer(String),
    /// The password of HTTP Basic authentication (the user name is ignored); `None` when the
    /// header is not valid Basic.
    Basic(Option<String>),
}

impl Guard {
    /// The loopback names of `port`, the bound address when it is another, and the origins
    /// the user added (`ALETHEIA_ALLOWED_ORIGINS`, comma-separated).
    pub fn new(bound: SocketAddr, api_key: Option<String>, extra_origins: &[String]) -> Guard {
        let port = bound.port();
        let mut names = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        let own = match bound.ip() {
            IpAddr::V6(ip) => format!("[{ip}]:{port}"),
            ip => format!("{ip}:{port}"),
        };
        if !bound.ip().is_unspecified() && !names.contains(&own) {
            names.push(own);
        }
        let mut origins: Vec<String> = names.iter().map(|h| format!("http://{h}")).collect();
        origins.extend(
            extra_origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_owned()),
        );
        Guard {
            hosts: names,
            origins,
            any_host: api_key.is_some() && !bound.ip().is_loopback(),
            api_key,
            attempts: Attempts::default(),
        }
    }

    /// The Host values to give rmcp's own check, which lets any Host through when the list is
    /// empty: that, when any Host passes here.
    pub fn mcp_hosts(&self) -> Vec<String> {
        if self.any_host {
            vec![]
        } else {
            self.hosts.clone()
        }
    }

    fn check(&self, req: &Request, peer: IpAddr, now: Instant) -> Result<(), Refusal> {
        let header = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
        let host = header(HOST).unwrap_or("");
        if !self.any_host && !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(Refusal::Foreign(ApiError::new(
                403,
                "forbidden_host",
                format!(
                    "Host \"{host}\" is not this server's: use one of {}",
                    self.hosts.join(", ")
                ),
            )));
        }
        if let Some(origin) = header(ORIGIN)
            && !self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
        {
            return Err(Refusal::Foreign(ApiError::new(
                403,
                "forbidden_origin",
                format!(
                    "requests from {origin} are refused: add it to ALETHEIA_ALLOWED_ORIGINS to allow it"
                ),
            )));
        }
        let path = req.uri().path();
        let Some(key) = &self.api_key else {
            return Ok(());
        };
        if open_without_key(path) {
            return Ok(());
        }
        // A blocked address's key is not even compared: a 200 for a right guess would let
        // guessing go on at full speed.
        if let Some(wait) = self.attempts.blocked(peer, now) {
            return Err(Refusal::Throttled(wait));
        }
        let api = is_api(path);
        let given = match presented(header(AUTHORIZATION)) {
            Presented::None => return Err(Refusal::NoKey { api }),
            // The API does not take the browser's credentials: a cross-site request that a
            // browser sends with them then opens no more than the dashboard's pages.
            Presented::Basic(_) if api => return Err(Refusal::NoKey { api }),
            Presented::Bearer(token) => token,
            Presented::Basic(password) => password.unwrap_or_default(),
        };
        // Digests first, so the comparison takes the same time whatever the lengths.
        if bool::from(Sha256::digest(given.as_bytes()).ct_eq(&Sha256::digest(key.as_bytes()))) {
            return Ok(());
        }
        tracing::warn!(
            peer = %peer,
            method = %req.method(),
            path,
            "refused a wrong API key"
        );
        if self.attempts.fail(peer, now) == Failure::Blocked {
            tracing::warn!(
                peer = %peer,
                wrong_keys = attempts::LIMIT,
                refused_for_s = attempts::BLOCK.as_secs(),
                "too many wrong API keys: refusing this address for a while"
            );
        }
        Err(Refusal::NoKey { api })
    }
}

/// The bearer token in an `Authorization` header, if that is what it holds (the hub's gate
/// reads its tokens so).
pub fn bearer(header: Option<&str>) -> Option<String> {
    match presented(header) {
        Presented::Bearer(token) => Some(token),
        _ => None,
    }
}

/// The credential in an `Authorization` header.
fn presented(header: Option<&str>) -> Presented {
    let Some((scheme, value)) = header.and_then(|v| v.trim().split_once(' ')) else {
        return Presented::None;
    };
    let value = value.trim();
    // The scheme's name is case-insensitive (RFC 9110).
    if scheme.eq_ignore_ascii_case("bearer") && !value.is_empty() {
        Presented::Bearer(value.to_owned())
    } else if scheme.eq_ignore_ascii_case("basic") {
        let password = base64::engine::general_purpose::STANDARD
            .decode(value)
            .ok()
            .and_then(|raw| String::from_utf8(raw).ok())
            .and_then(|pair| pair.split_once(':').map(|(_, p)| p.to_owned()));
        Presented::Basic(password)
    } else {
        Presented::None
    }
}

/// The middleware: refuse what [`Guard::check`] refuses, pass the rest on.
pub async fn layer(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    // Set by the server's connection info; a test that builds the app without it counts every
    // request as one client.
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    match guard.check(&req, peer, Instant::now()) {
        Ok(()) => next.run(req).await,
        Err(refusal) => closing(refusal.into_response()),
    }
}

/// A refusal sent before its request's body was read, marked `Connection: close`: the unread
/// body leaves the connection unfit for another request, and a client that pooled it would
/// send its next one into a connection being closed.
pub fn closing(mut refused: Response) -> Response {
    refused.headers_mut().insert(
        axum::http::header::CONNECTION,
        HeaderValue::from_static("close"),
    );
    refused
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Foreign(e) => e.into_response(),
            // A person opening a page: the browser asks for the key and keeps it for this
            // origin only.
            Refusal::NoKey { api: false } => super::dashboard::sign_in_page(),
            Refusal::NoKey { api: true } => {
                let mut r = ApiError::new(
                    401,
                    "unauthorized",
                    "this server needs its API key: send it as \"Authorization: Bearer <ALETHEIA_API_KEY>\"",
                )
                .into_response();
                r.headers_mut().insert(
                    WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"aletheia\""),
                );
                r
            }
            Refusal::Throttled(wait) => {
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                let mut r = ApiError::new(
                    429,
                    "too_many_attempts",
                    format!("too many wrong API keys from this address: try again in {secs} s"),
                )
                .into_response();
                r.headers_mut().insert(RETRY_AFTER, HeaderValue::from(secs));
                r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::header::COOKIE;

    const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    fn req(host: &str, origin: Option<&str>, auth: Option<&str>) -> Request {
        at("/v1/health", host, origin, auth)
    }

    fn at(path: &str, host: &str, origin: Option<&str>, auth: Option<&str>) -> Request {
        let mut b = Request::builder().uri(path).header(HOST, host);
        if let Some(o) = origin {
            b = b.header(ORIGIN, o);
        }
        if let Some(a) = auth {
            b = b.header(AUTHORIZATION, a);
        }
        b.body(Body::empty()).unwrap()
    }

    fn basic(user: &str, password: &str) -> String {
        let pair = format!("{user}:{password}");
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }

    fn status(g: &Guard, r: &Request) -> u16 {
        match g.check(r, LOCAL, Instant::now()) {
            Ok(()) => 200,
            Err(Refusal::Foreign(e)) => e.status,
            Err(Refusal::NoKey { .. }) => 401,
            Err(Refusal::Throttled(_)) => 429,
        }
    }

    #[test]
    fn loopback_hosts_and_origins_pass_and_others_are_refused() {
        let g = Guard::new("127.0.0.1:7700".parse().unwrap(), None, &[]);
        assert_eq!(status(&g, &req("127.0.0.1:7700", None, None)), 200);
        assert_eq!(
            status(
                &g,
                &req("localhost:7700", Some("http://localhost:7700"), None)
            ),
            200
        );
        assert_eq!(status(&g, &req("evil.example:7700", None, None)), 403);
        assert_eq!(status(&g, &req("127.0.0.1:7701", None, None)), 403);
        assert_eq!(
            status(
                &g,
                &req("127.0.0.1:7700", Some("http://evil.example"), None)
            ),
            403
        );
        let g = Guard::new(
            "127.0.0.1:7700".parse().unwrap(),
            None,
            &["https://tool.example/".into()],
        );
        assert_eq!(
            status(
                &g,
                &req("127.0.0.1:7700", Some("https://tool.example"), None)
            ),
            200
        );
    }

    #[test]
    fn with_a_key_every_request_needs_it() {
        let g = Guard::new(
            "127.0.0.1:7700".parse().unwrap(),
            Some("s3cret-key".into()),
            &[],
        );
        assert_eq!(status(&g, &req("127.0.0.1:7700", None, None)), 401);
        assert_eq!(
            status(&g, &req("127.0.0.1:7700", None, Some("Bearer wrong"))),
            401
        );
        assert_eq!(
            status(&g, &req("127.0.0.1:7700", None, Some("s3cret-key"))),
            401
        );
        assert_eq!(
            status(&g, &req("127.0.0.1:7700", None, Some("Bearer s3cret-key"))),
            200
        );
        assert_eq!(
            status(
                &g,
                &req("127.0.0.1:7700", None, Some("Bearer s3cret-key-and-more"))
            ),
            401
        );
    }

    #[test]
    fn the_browser_sends_the_key_as_a_basic_password_for_pages_only() {
        let g = Guard::new(
            "127.0.0.1:7700".parse().unwrap(),
            Some("s3cret-key".into()),
            &[],
        );
        let page = |auth: &str| at("/memories", "127.0.0.1:7700", None, Some(auth));
        assert_eq!(status(&g, &page(&basic("anyone", "s3cret-key"))), 200);
        assert_eq!(status(&g, &page(&basic("", "s3cret-key"))), 200);
        assert_eq!(status(&g, &page("Bearer s3cret-key")), 200);
        assert_eq!(status(&g, &page(&basic("s3cret-key", "wrong"))), 401);
        assert_eq!(status(&g, &page("Basic not-base64!")), 401);
        assert_eq!(
            status(&g, &at("/memories", "127.0.0.1:7700", None, None)),
            401
        );
        // The API and MCP take the bearer token alone.
        for path in ["/v1/memories", "/mcp"] {
            let r = at(
                path,
                "127.0.0.1:7700",
                None,
                Some(&basic("u", "s3cret-key")),
            );
            assert_eq!(status(&g, &r), 401, "{path}");
        }
        // A cookie opens nothing: there are no sign-in cookies.
        let with_cookie = Request::builder()
            .uri("/memories")
            .header(HOST, "127.0.0.1:7700")
            .header(COOKIE, format!("aletheia_session={}", "a".repeat(64)))
            .body(Body::empty())
            .unwrap();
        assert_eq!(status(&g, &with_cookie), 401);
        // The assets open without the key; Host is still checked.
        assert_eq!(
            status(&g, &at("/assets/app.css", "127.0.0.1:7700", None, None)),
            200
        );
        assert_eq!(status(&g, &at("/login", "127.0.0.1:7700", None, None)), 401);
        assert_eq!(
            status(&g, &at("/assets/app.css", "evil.example:7700", None, None)),
            403
        );
    }

    #[test]
    fn an_address_that_sends_too_many_wrong_keys_is_refused_even_the_right_one() {
        let g = Guard::new(
            "127.0.0.1:7700".parse().unwrap(),
            Some("s3cret-key".into()),
            &[],
        );
        let now = Instant::now();
        let wrong = req("127.0.0.1:7700", None, Some("Bearer wrong"));
        let right = req("127.0.0.1:7700", None, Some("Bearer s3cret-key"));
        let none = req("127.0.0.1:7700", None, None);
        // Requests without any key are not guesses and are not counted.
        for _ in 0..(2 * attempts::LIMIT) {
            assert!(matches!(
                g.check(&none, LOCAL, now),
                Err(Refusal::NoKey { .. })
            ));
        }
        for _ in 0..attempts::LIMIT {
            assert!(matches!(
                g.check(&wrong, LOCAL, now),
                Err(Refusal::NoKey { .. })
            ));
        }
        assert!(matches!(
            g.check(&right, LOCAL, now),
            Err(Refusal::Throttled(_))
        ));
        let other: IpAddr = "10.1.2.3".parse().unwrap();
        assert!(g.check(&right, other, now).is_ok(), "other addresses go on");
        assert!(g.check(&right, LOCAL, now + attempts::BLOCK).is_ok());
        let r = Refusal::Throttled(Duration::from_millis(59_200)).into_response();
        assert_eq!(r.status(), 429);
        assert_eq!(r.headers()[RETRY_AFTER], "60");
    }

    #[test]
    fn a_non_loopback_bind_adds_its_own_address() {
        let g = Guard::new("10.0.0.5:80".parse().unwrap(), Some("k".into()), &[]);
        assert!(g.hosts.contains(&"10.0.0.5:80".to_owned()));
        assert!(g.origins.contains(&"http://10.0.0.5:80".to_owned()));
    }

    #[test]
    fn beyond_loopback_with_a_key_any_host_passes_but_never_without_the_key() {
        let g = Guard::new("0.0.0.0:7749".parse().unwrap(), Some("k".into()), &[]);
        assert_eq!(
            status(&g, &req("192.168.1.20:7749", None, Some("bearer k"))),
            200
        );
        assert_eq!(
            status(&g, &req("mybox.local:7749", None, Some("BEARER  k"))),
            200
        );
        assert_eq!(status(&g, &req("mybox.local:7749", None, None)), 401);
        let local = Guard::new("127.0.0.1:7749".parse().unwrap(), Some("k".into()), &[]);
        assert!(!local.any_host);
        assert_eq!(
            status(&local, &req("mybox.local:7749", None, Some("Bearer k"))),
            403
        );
    }
}
