//! Who may talk to the server, checked before any route runs: the API key, the Host header and
//! the Origin header.
//!
//! A server on loopback is still reachable from every web page the user opens: a page can make
//! the browser send requests to 127.0.0.1 (Origin names the page), and a DNS-rebinding page can
//! even make them look same-origin (Host then names the attacker's domain). So Host must be one
//! of the server's own names, and a request that carries an Origin must come from one of the
//! server's own origins (or one the user allowed). With `ALETHEIA_API_KEY` set, every request
//! also carries the key as a bearer token, compared in constant time.

use super::error::ApiError;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, HOST, ORIGIN};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// What the guard lets through.
#[derive(Debug, Clone)]
pub struct Guard {
    /// `host:port` values the Host header may hold.
    pub hosts: Vec<String>,
    /// Origins (`scheme://host:port`) a request may come from.
    pub origins: Vec<String>,
    pub api_key: Option<String>,
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
            api_key,
        }
    }

    fn check(&self, req: &Request) -> Result<(), ApiError> {
        let header = |name| req.headers().get(name).and_then(|v| v.to_str().ok());
        let host = header(HOST).unwrap_or("");
        if !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
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
        if let Some(key) = &self.api_key {
            let given = header(AUTHORIZATION)
                .and_then(|v| v.strip_prefix("Bearer "))
                .unwrap_or("");
            if !bool::from(given.as_bytes().ct_eq(key.as_bytes())) {
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
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

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
    fn a_non_loopback_bind_adds_its_own_address() {
        let g = Guard::new("10.0.0.5:80".parse().unwrap(), Some("k".into()), &[]);
        assert!(g.hosts.contains(&"10.0.0.5:80".to_owned()));
        assert!(g.origins.contains(&"http://10.0.0.5:80".to_owned()));
    }
}
