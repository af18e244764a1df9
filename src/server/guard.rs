//! Who may talk to the server, checked before any route runs: the API key, the Host header and
//! the Origin header.
//!
//! A server on loopback is still reachable from every web page the user opens: a page can make
//! the browser send requests to 127.0.0.1 (Origin names the page), and a DNS-rebinding page can
//! even make them look same-origin (Host then names the attacker's domain). So Host must be one
//! of the server's own names, and a request that carries an Origin must come from one of the
//! server's own origins (or one the user allowed). With `ALETHEIA_API_KEY` set, every request
//! also carries the key as a bearer token, compared in constant time. A browser cannot send a
//! bearer token, so the dashboard's login page (`/login`, open without the key, as are the
//! dashboard's stylesheet and script) trades the key for a sign-in cookie ([`super::logins`]).

use super::error::ApiError;
use super::logins::{self, Logins};
use axum::extract::{Request, State};
use axum::http::header::{ACCEPT, AUTHORIZATION, HOST, ORIGIN};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// Paths served without the key: the login page and the assets it uses.
fn open_without_key(path: &str) -> bool {
    path == "/login" || path.starts_with("/assets/")
}

/// What the guard lets through.
#[derive(Debug, Clone)]
pub struct Guard {
    /// `host:port` values the Host header may hold.
    pub hosts: Vec<String>,
    /// Origins (`scheme://host:port`) a request may come from.
    pub origins: Vec<String>,
    pub api_key: Option<String>,
    /// Any Host passes: the server listens beyond loopback, where clients name it by whatever
    /// address or name reaches it, and the key (which a rebinding page cannot have) guards it.
    pub any_host: bool,
    /// The dashboard's sign-ins, which stand for the key on its pages.
    pub logins: Arc<Logins>,
}

impl Guard {
    /// The loopback names of `port`, the bound address when it is another, and the origins
    /// the user added (`ALETHEIA_ALLOWED_ORIGINS`, comma-separated).
    pub fn new(
        bound: std::net::SocketAddr,
        api_key: Option<String>,
        extra_origins: &[String],
    ) -> Guard {
        let port = bound.port();
        let mut names = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        let own = match bound.ip() {
            std::net::IpAddr::V6(ip) => format!("[{ip}]:{port}"),
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
            logins: Arc::default(),
        }
    }

    fn check(&self, req: &Request) -> Result<(), ApiError> {
        let header = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
        let host = header(HOST).unwrap_or("");
        if !self.any_host && !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(ApiError::new(
                403,
                "forbidden_host",
                format!(
                    "Host \"{host}\" is not this server's: use one of {}",
                    self.hosts.join(", ")
                ),
            ));
        }
        if let Some(origin) = header(ORIGIN)
            && !self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin))
        {
            return Err(ApiError::new(
                403,
                "forbidden_origin",
                format!(
                    "requests from {origin} are refused: add it to ALETHEIA_ALLOWED_ORIGINS to allow it"
                ),
            ));
        }
        if let Some(key) = &self.api_key
            && !open_without_key(req.uri().path())
        {
            // The scheme's name is case-insensitive (RFC 9110).
            let given = header(AUTHORIZATION)
                .and_then(|v| v.split_once(' '))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map_or("", |(_, token)| token.trim());
            let session = logins::token(req.headers());
            let by_bearer = bool::from(given.as_bytes().ct_eq(key.as_bytes()));
            // The cookie is the dashboard's: the API and MCP take the key itself, so a cookie
            // that leaks (every server on localhost receives it) opens the pages, not the API.
            let path = req.uri().path();
            let api = path.starts_with("/v1") || path.starts_with("/mcp");
            let by_cookie = !api && self.logins.valid(session);
            if !(by_bearer || by_cookie) {
                return Err(ApiError::new(
                    401,
                    "unauthorized",
                    "this server needs its API key: send it as \"Authorization: Bearer <ALETHEIA_API_KEY>\"",
                ));
            }
        }
        Ok(())
    }
}

/// The middleware: refuse what [`Guard::check`] refuses, pass the rest on.
pub async fn layer(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    match guard.check(&req) {
        Ok(()) => next.run(req).await,
        // A person opening a dashboard page without the key is sent to the login page.
        Err(e) if e.status == 401 && wants_a_page(&req) => {
            axum::response::Redirect::to("/login").into_response()
        }
        Err(e) => e.into_response(),
    }
}

/// A browser's GET for a dashboard page (not the API or MCP).
fn wants_a_page(req: &Request) -> bool {
    let path = req.uri().path();
    req.method() == axum::http::Method::GET
        && !path.starts_with("/v1")
        && !path.starts_with("/mcp")
        && req
            .headers()
            .get(ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/html"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::header::COOKIE;

    fn req(host: &str, origin: Option<&str>, auth: Option<&str>) -> Request {
        let mut b = Request::builder().uri("/v1/health").header(HOST, host);
        if let Some(o) = origin {
            b = b.header(ORIGIN, o);
        }
        if let Some(a) = auth {
            b = b.header(AUTHORIZATION, a);
        }
        b.body(Body::empty()).unwrap()
    }

    fn status(r: Result<(), ApiError>) -> u16 {
        r.map_or_else(|e| e.status, |()| 200)
    }

    #[test]
    fn loopback_hosts_and_origins_pass_and_others_are_refused() {
        let g = Guard::new("127.0.0.1:7700".parse().unwrap(), None, &[]);
        assert_eq!(status(g.check(&req("127.0.0.1:7700", None, None))), 200);
        assert_eq!(
            status(g.check(&req("localhost:7700", Some("http://localhost:7700"), None))),
            200
        );
        assert_eq!(status(g.check(&req("evil.example:7700", None, None))), 403);
        assert_eq!(status(g.check(&req("127.0.0.1:7701", None, None))), 403);
        assert_eq!(
            status(g.check(&req("127.0.0.1:7700", Some("http://evil.example"), None))),
            403
        );
        let g = Guard::new(
            "127.0.0.1:7700".parse().unwrap(),
            None,
            &["https://tool.example/".into()],
        );
        assert_eq!(
            status(g.check(&req("127.0.0.1:7700", Some("https://tool.example"), None))),
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
        assert_eq!(status(g.check(&req("127.0.0.1:7700", None, None))), 401);
        assert_eq!(
            status(g.check(&req("127.0.0.1:7700", None, Some("Bearer wrong")))),
            401
        );
        assert_eq!(
            status(g.check(&req("127.0.0.1:7700", None, Some("s3cret-key")))),
            401
        );
        assert_eq!(
            status(g.check(&req("127.0.0.1:7700", None, Some("Bearer s3cret-key")))),
            200
        );
    }

    #[test]
    fn with_a_key_the_login_cookie_stands_for_it() {
        let g = Guard::new(
            "127.0.0.1:7700".parse().unwrap(),
            Some("s3cret-key".into()),
            &[],
        );
        let with_cookie = |value: &str| {
            Request::builder()
                .uri("/memories")
                .header(HOST, "127.0.0.1:7700")
                .header(COOKIE, format!("theme=dark; {}={value}", logins::COOKIE))
                .body(Body::empty())
                .unwrap()
        };
        let token = g.logins.start();
        assert_eq!(status(g.check(&with_cookie(&token))), 200);
        assert_eq!(status(g.check(&with_cookie("s3cret-key"))), 401);
        assert_eq!(
            status(g.check(&with_cookie(&Logins::default().start()))),
            401
        );
        assert_eq!(status(g.check(&with_cookie(""))), 401);
        g.logins.end(&token);
        assert_eq!(status(g.check(&with_cookie(&token))), 401, "signed out");
        // The login page and its assets open without the key; Host is still checked.
        let open = |path: &str, host: &str| {
            Request::builder()
                .uri(path)
                .header(HOST, host)
                .body(Body::empty())
                .unwrap()
        };
        assert_eq!(status(g.check(&open("/login", "127.0.0.1:7700"))), 200);
        assert_eq!(
            status(g.check(&open("/assets/app.css", "127.0.0.1:7700"))),
            200
        );
        assert_eq!(status(g.check(&open("/", "127.0.0.1:7700"))), 401);
        assert_eq!(status(g.check(&open("/login", "evil.example:7700"))), 403);
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
            status(g.check(&req("192.168.1.20:7749", None, Some("bearer k")))),
            200
        );
        assert_eq!(
            status(g.check(&req("mybox.local:7749", None, Some("BEARER  k")))),
            200
        );
        assert_eq!(status(g.check(&req("mybox.local:7749", None, None))), 401);
        let local = Guard::new("127.0.0.1:7749".parse().unwrap(), Some("k".into()), &[]);
        assert!(!local.any_host);
        assert_eq!(
            status(local.check(&req("mybox.local:7749", None, Some("Bearer k")))),
            403
        );
    }

    #[test]
    fn the_dashboard_cookie_does_not_open_the_api() {
        let g = Guard::new("127.0.0.1:7700".parse().unwrap(), Some("k".into()), &[]);
        let token = g.logins.start();
        let with_cookie = |path: &str| {
            Request::builder()
                .uri(path)
                .header(HOST, "127.0.0.1:7700")
                .header(COOKIE, format!("{}={token}", logins::COOKIE))
                .body(Body::empty())
                .unwrap()
        };
        assert_eq!(status(g.check(&with_cookie("/memories"))), 200);
        assert_eq!(status(g.check(&with_cookie("/v1/memories"))), 401);
        assert_eq!(status(g.check(&with_cookie("/mcp"))), 401);
    }
}
