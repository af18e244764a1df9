//! The hub's second engine: the storage contract on PostgreSQL, for a team whose hub should not
//! hang on one process holding one SQLite file.
//!
//! [`PgStore`] is one connection, through the `postgres` crate (rust-postgres's blocking client
//! over `tokio-postgres`). The contract is synchronous and the hub already runs every store call
//! on tokio's blocking pool with connections kept between requests ([`crate::server::state`]),
//! so a blocking client fits that pool as the SQLite connections do; an async pool beside it
//! would be a second pool of the same connections. Every statement is parameterised.
//!
//! TLS is used when the URL asks for it (`sslmode=require`, `verify-ca` or `verify-full`), and
//! the server's certificate is always verified, against the system's certificate store or the
//! CA file named by `sslrootcert=` in the URL or `PGSSLROOTCERT`, as libpq reads them.
//!
//! Migrations ([`schema`]) are embedded and numbered like the SQLite ones; a database with a
//! newer schema is refused with [`StoreError::NewerSchema`]. Several hub processes may start on
//! one database at once: migrating holds an advisory lock.
//!
//! Each part of the contract is implemented in the file named for it; what they share (the
//! connection, its errors, transactions) is here.

mod facts;
mod history;
mod inbox;
mod jobs;
mod lists;
mod memo;
mod memories;
pub mod migrate;
mod rows;
mod rules;
mod schema;
mod search;
mod standing;
mod sync;
#[cfg(test)]
pub(crate) mod testing;
mod tokens;
mod upkeep;
mod vectors;
mod versions;

use super::StoreError;
use postgres::{Client, Transaction};
use std::cell::RefCell;
use std::path::PathBuf;

/// One connection to the hub's PostgreSQL database.
pub struct PgStore {
    client: RefCell<Client>,
    /// What the connection keeps between queries (see `memo.rs`); boxed, as its maps would
    /// otherwise make every value holding a store hundreds of bytes larger.
    memo: RefCell<Box<memo::Memo>>,
    /// The URL without its password: what errors name.
    name: PathBuf,
}

/// What may be wrong with a `--database` URL, said before any connection is tried.
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    #[error(
        "{0} is not a PostgreSQL URL: give one like postgres://user@host:5432/dbname (or host=/run/postgresql for a socket)"
    )]
    Syntax(String),
    #[error("cannot read the CA certificates in {path}: {why}")]
    RootCert { path: String, why: String },
}

impl PgStore {
    /// Connect to `url`, then create or migrate the hub's schema.
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        let store = PgStore::connect(url)?;
        schema::migrate(&store)?;
        Ok(store)
    }

    /// Connect without touching the schema.
    fn connect(url: &str) -> Result<PgStore, StoreError> {
        let name = PathBuf::from(shown(url));
        let setup = |e: UrlError| StoreError::Engine {
            path: name.clone(),
            constraint: false,
            source: Box::new(e),
        };
        let parsed = parse(url).map_err(setup)?;
        let client = match parsed.tls {
            Tls::Off => parsed.config.connect(postgres::NoTls),
            Tls::Verified(root_cert) => {
                let tls = tls(root_cert.as_deref()).map_err(setup)?;
                parsed.config.connect(tls)
            }
        }
        .map_err(|e| pg_error(&name, e))?;
        Ok(PgStore {
            client: RefCell::new(client),
            memo: RefCell::default(),
            name,
        })
    }

    /// Whether the connection is gone (the server restarted, a network cut): the pool then
    /// drops it rather than handing it out again.
    pub fn is_closed(&self) -> bool {
        self.client.borrow().is_closed()
    }

    /// Run `f` on the connection, its error classified as the store's.
    pub(in crate::store) fn with<T>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        f(&mut client).map_err(|e| pg_error(&self.name, e))
    }

    /// `sql`'s rows for `params`, through a statement prepared once per connection: a search
    /// runs the same few statements each time, and preparing is a round trip of its own.
    pub(in crate::store) fn query_prepared(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>, StoreError> {
        self.with(|c| {
            let cached = self.memo.borrow().statement(sql);
            let stmt = match cached {
                Some(stmt) => stmt,
                None => {
                    let stmt = c.prepare(sql)?;
                    self.memo.borrow_mut().keep_statement(sql, stmt.clone());
                    stmt
                }
            };
            c.query(&stmt, params)
        })
    }

    /// Run `f` in one transaction, committed when it returns `Ok`.
    pub(in crate::store) fn write<T>(
        &self,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        self.with(|client| {
            let mut tx = client.transaction()?;
            let out = f(&mut tx)?;
            tx.commit()?;
            Ok(out)
        })
    }

    /// [`PgStore::write`] for work whose own errors are the store's (a job's writes, a check
    /// that refuses a push): `f`'s error rolls the transaction back and is returned as is.
    pub(in crate::store) fn write_or<T>(
        &self,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        let mut tx = client.transaction().map_err(|e| pg_error(&self.name, e))?;
        let out = f(&mut tx)?;
        tx.commit().map_err(|e| pg_error(&self.name, e))?;
        Ok(out)
    }

    /// What errors call this database: its URL without the password.
    pub fn name(&self) -> &std::path::Path {
        &self.name
    }
}

impl super::Storage for PgStore {
    fn is_closed(&self) -> bool {
        PgStore::is_closed(self)
    }
}

impl super::HubStorage for PgStore {}

/// PostgreSQL's error, classified: class 23 (integrity constraint violation) is a clash with
/// stored data.
pub(in crate::store) fn pg_error(name: &std::path::Path, e: postgres::Error) -> StoreError {
    let constraint = e.code().is_some_and(|c| c.code().starts_with("23"));
    StoreError::Engine {
        path: name.to_owned(),
        constraint,
        source: Box::new(e),
    }
}

/// Whether `s` names a PostgreSQL database rather than a SQLite file.
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// `url` with any password replaced, for messages and logs.
pub fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let shown_authority = match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _password)) => format!("{name}:***@{host}"),
            None => format!("{user}@{host}"),
        },
        None => authority.to_owned(),
    };
    let tail = tail
        .split('&')
        .map(|kv| {
            if kv.trim_start_matches('?').starts_with("password=") {
                let lead = if kv.starts_with('?') { "?" } else { "" };
                format!("{lead}password=***")
            } else {
                kv.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("&");
    format!("{scheme}://{shown_authority}{tail}")
}

/// Whether a connection uses TLS.
enum Tls {
    Off,
    /// TLS, the server's certificate and name verified against these roots (a CA file, or the
    /// system's when `None`).
    Verified(Option<String>),
}

/// A URL read: the driver's configuration and how to secure the connection.
struct Parsed {
    config: postgres::Config,
    tls: Tls,
}

/// The driver's configuration for `url`. `sslmode` and `sslrootcert` are read here, as libpq
/// names them: `require`, `verify-ca` and `verify-full` ask for TLS, and get it verified as
/// `verify-full` does (a certificate nobody can check protects nothing from whoever sits in
/// the middle); anything else (`disable`, `allow`, `prefer`, or none) is a plain connection,
/// as on a Unix socket or a loopback port. `sslrootcert` (or `PGSSLROOTCERT`) names the CA
/// file to verify against instead of the system's store.
fn parse(url: &str) -> Result<Parsed, UrlError> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut root_cert = None;
    let mut wants_tls = false;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|kv| !kv.is_empty())
        .filter(|kv| {
            if let Some(path) = kv.strip_prefix("sslrootcert=") {
                root_cert = Some(path.to_owned());
                return false;
            }
            if let Some(mode) = kv.strip_prefix("sslmode=") {
                wants_tls = matches!(mode, "require" | "verify-ca" | "verify-full");
                return false;
            }
            true
        })
        .collect();
    let rebuilt = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    let mut config: postgres::Config = rebuilt.parse().map_err(|_| UrlError::Syntax(shown(url)))?;
    if config.get_application_name().is_none() {
        config.application_name("aletheia hub");
    }
    let tls = if wants_tls {
        config.ssl_mode(postgres::config::SslMode::Require);
        Tls::Verified(root_cert.or_else(|| {
            std::env::var("PGSSLROOTCERT")
                .ok()
                .filter(|s| !s.is_empty())
        }))
    } else {
        config.ssl_mode(postgres::config::SslMode::Disable);
        Tls::Off
    };
    Ok(Parsed { config, tls })
}

/// The TLS connector: the system's roots, or those of `root_cert` alone when it is named.
fn tls(root_cert: Option<&str>) -> Result<tokio_postgres_rustls::MakeRustlsConnect, UrlError> {
    let mut roots = rustls::RootCertStore::empty();
    match root_cert {
        Some(path) => {
            let why = |why: String| UrlError::RootCert {
                path: path.to_owned(),
                why,
            };
            let pem = std::fs::read(path).map_err(|e| why(e.to_string()))?;
            let mut added = 0;
            for cert in rustls::pki_types::pem::PemObject::pem_slice_iter(&pem) {
                let cert: rustls::pki_types::CertificateDer<'static> =
                    cert.map_err(|e| why(e.to_string()))?;
                roots.add(cert).map_err(|e| why(e.to_string()))?;
                added += 1;
            }
            if added == 0 {
                return Err(why("it holds no PEM certificate".to_owned()));
            }
        }
        None => {
            // A store that cannot be read leaves no roots: TLS then fails with the server's
            // certificate unverified, which says what is wrong at the first connection.
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| UrlError::RootCert {
        path: root_cert.unwrap_or("the system store").to_owned(),
        why: e.to_string(),
    })?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_never_shown() {
        assert_eq!(
            shown("postgres://hub:s3cret@db.example:5432/team?sslmode=require"),
            "postgres://hub:***@db.example:5432/team?sslmode=require"
        );
        assert_eq!(
            shown("postgres://db/team?user=hub&password=s3cret"),
            "postgres://db/team?user=hub&password=***"
        );
        assert_eq!(shown("postgres://hub@db/team"), "postgres://hub@db/team");
    }

    #[test]
    fn tls_is_asked_for_by_sslmode_and_verified_against_sslrootcert() {
        let p = parse("postgres://hub@db/team?sslmode=require&sslrootcert=/etc/ca.pem").unwrap();
        assert!(matches!(p.tls, Tls::Verified(Some(ref ca)) if ca == "/etc/ca.pem"));
        assert_eq!(p.config.get_dbname(), Some("team"));
        assert_eq!(p.config.get_ssl_mode(), postgres::config::SslMode::Require);
        let p = parse("postgres://hub@db/team?sslmode=verify-full").unwrap();
        assert!(matches!(p.tls, Tls::Verified(_)));
        for plain in [
            "postgres://hub@db/team",
            "postgres://hub@db/team?sslmode=prefer",
        ] {
            let p = parse(plain).unwrap();
            assert!(matches!(p.tls, Tls::Off), "{plain}");
            assert_eq!(p.config.get_ssl_mode(), postgres::config::SslMode::Disable);
        }
    }

    #[test]
    fn a_url_that_is_not_one_is_refused_without_its_password() {
        let Err(e) = parse("postgres://hub:pw@db/team?connect_timeout=soon") else {
            panic!("parsed")
        };
        assert!(e.to_string().contains("hub:***@db"), "{e}");
        assert!(!e.to_string().contains("pw@"), "{e}");
    }
}
