//! The dashboard at `/`: server-rendered pages for a person who wants to see and tend their
//! memory. Every page and every action calls the operations layer through [`State::run`]; the
//! pages only gather arguments and render results.
//!
//! Safety, as every page relies on it:
//! - Stored text reaches a page only through [`escape`], so a memory holding `<script>` shows
//!   as text. Pages also carry a Content-Security-Policy that allows only this server's own
//!   script and stylesheet, so even a mistake in escaping could not run inline script.
//! - Every state-changing action is a POST carrying [`Dash::csrf`], a token derived from a
//!   random secret made when the server starts, checked in constant time; the guard's Origin
//!   check refuses foreign pages as well. GET never changes anything. With an API key, only a
//!   request that carried the key is ever served a page, so the token never reaches anyone
//!   who has not given the key; the browser keeps the key for this origin alone (see
//!   [`super::guard`] for why there is no sign-in cookie).
//! - Nothing is fetched from the network: the stylesheet and script are embedded in the binary.
//!
//! Times are rendered as `<time datetime="…Z">` with UTC text, which the embedded script
//! rewrites in the viewer's own time zone.

mod memories;
mod review;
mod rules;
mod system;
mod truths;

use super::state::State;
use crate::ops::{self, OpError, Operation};
use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use subtle::ConstantTimeEq;

const CSS: &str = include_str!("app.css");
const JS: &str = include_str!("app.js");

/// What every dashboard handler works with.
pub struct Dash {
    state: Arc<State>,
    /// The token every form carries.
    csrf: String,
}

/// The dashboard's routes.
pub fn router(state: Arc<State>) -> Router {
    let dash = Arc::new(Dash {
        state,
        csrf: csrf_token(&random_bytes()),
    });
    Router::new()
        .route("/assets/app.css", get(css))
        .route("/assets/app.js", get(js))
        .merge(memories::routes())
        .merge(truths::routes())
        .merge(review::routes())
        .merge(rules::routes())
        .merge(system::routes())
        .with_state(dash)
}

type St = axum::extract::State<Arc<Dash>>;

async fn css() -> Response {
    asset(CSS, "text/css; charset=utf-8")
}

async fn js() -> Response {
    asset(JS, "text/javascript; charset=utf-8")
}

fn asset(body: &'static str, ty: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, ty),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

// ---------------------------------------------------------------------------------------------
// Escaping, times, and the page shell
// ---------------------------------------------------------------------------------------------

/// `s` as HTML text or a quoted attribute value: `& < > " '` become entities, so stored text
/// can never open a tag, close one, or leave an attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A query-string value.
fn url(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// An instant (epoch ms) as `<time>`: UTC in the markup, the viewer's zone once the script runs.
fn time(ms: i64) -> String {
    let iso = crate::time::iso_utc(ms);
    let text = format!("{} UTC", iso.get(..16).unwrap_or(&iso).replace('T', " "));
    format!(
        "<time datetime=\"{}\">{}</time>",
        escape(&iso),
        escape(&text)
    )
}

/// The first `max` characters of `s` on one line.
fn snippet(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    crate::model::cut_chars(flat.trim(), max)
}

/// `n` with its digits grouped by threes: `1,000,000` (a count below zero, which no count is,
/// as 0).
fn grouped(n: impl TryInto<u64>) -> String {
    let digits = n.try_into().unwrap_or(0).to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` and the noun that goes with it: `1 new fact`, `3 new facts`.
fn count(n: impl TryInto<u64>, one: &str, many: &str) -> String {
    let n: u64 = n.try_into().unwrap_or(0);
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// The start of a table of `heads` (an empty head for a column of buttons), inside a region
/// that scrolls sideways when the table is wider than the page: on a phone the table keeps its
/// columns readable and scrolls, rather than squeezing them until words break. `label` names
/// the region for a screen reader. End it with [`TABLE_END`].
fn table(label: &str, heads: &[&str]) -> String {
    let mut h = format!(
        "<div class=\"table-scroll\" role=\"region\" aria-label=\"{}\" tabindex=\"0\"><table class=\"rows\"><thead><tr>",
        escape(label)
    );
    for head in heads {
        let _ = write!(h, "<th scope=\"col\">{}</th>", escape(head));
    }
    h.push_str("</tr></thead><tbody>");
    h
}

/// The end of a [`table`].
const TABLE_END: &str = "</tbody></table></div>";

/// The navigation's sections.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nav {
    Memories,
    New,
    Facts,
    Review,
    Rules,
    Jobs,
    Doctor,
    Context,
    None,
}

const NAV: &[(Nav, &str, &str)] = &[
    (Nav::Memories, "/", "Memories"),
    (Nav::New, "/new", "New note"),
    (Nav::Facts, "/facts", "Facts"),
    (Nav::Review, "/review", "Review"),
    (Nav::Rules, "/rules", "Rules"),
    (Nav::Jobs, "/jobs", "Jobs"),
    (Nav::Doctor, "/doctor", "Doctor"),
    (Nav::Context, "/context", "What your AI sees"),
];

/// A whole page: `body` is HTML built with [`escape`].
fn page(title: &str, nav: Nav, notice: Option<&str>, body: &str) -> Response {
    page_with(StatusCode::OK, title, nav, notice, body)
}

fn page_with(
    status: StatusCode,
    title: &str,
    nav: Nav,
    notice: Option<&str>,
    body: &str,
) -> Response {
    let mut h = String::with_capacity(body.len() + 2048);
    h.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    let _ = write!(h, "<title>{} · aletheia</title>", escape(title));
    h.push_str("<link rel=\"stylesheet\" href=\"/assets/app.css\">");
    h.push_str("<script src=\"/assets/app.js\" defer></script></head><body>");
    h.push_str("<header><a class=\"brand\" href=\"/\">aletheia</a><nav>");
    for (n, href, label) in NAV {
        let _ = write!(
            h,
            "<a href=\"{href}\"{}>{label}</a>",
            if *n == nav {
                " aria-current=\"page\""
            } else {
                ""
            }
        );
    }
    h.push_str("</nav></header><main>");
    let _ = write!(h, "<h1>{}</h1>", escape(title));
    if let Some(n) = notice {
        let _ = write!(h, "<p class=\"notice\" role=\"status\">{}</p>", escape(n));
    }
    h.push_str(body);
    h.push_str("</main></body></html>\n");
    html(status, h)
}

/// An HTML response with the headers every page carries.
fn html(status: StatusCode, body: String) -> Response {
    let mut r = (status, body).into_response();
    let hs = r.headers_mut();
    let set = |hs: &mut axum::http::HeaderMap, k: header::HeaderName, v: &'static str| {
        hs.insert(k, HeaderValue::from_static(v));
    };
    set(hs, header::CONTENT_TYPE, "text/html; charset=utf-8");
    set(
        hs,
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    set(hs, header::X_FRAME_OPTIONS, "DENY");
    set(hs, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    // Not `no-referrer`: with it a browser sends `Origin: null` on a form POST, which the guard
    // rightly refuses.
    set(hs, header::REFERRER_POLICY, "same-origin");
    set(hs, header::CACHE_CONTROL, "no-store");
    r
}

/// A page saying what went wrong, with the operation's own message.
fn error_page(e: &OpError) -> Response {
    let status = StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    let body = format!(
        "<p class=\"error\">{}</p><p><a href=\"/\">Memories</a></p>",
        escape(&e.to_string())
    );
    page_with(status, "Not done", Nav::None, None, &body)
}

/// The notice a page shows after an action redirected to it (`?ok=CODE`): fixed texts only, so
/// a link cannot make a page say something else.
fn notice(q: &HashMap<String, String>) -> Option<&'static str> {
    Some(match q.get("ok")?.as_str() {
        "saved" => "Saved.",
        "edited" => "Saved the note.",
        "dismissed" => "Dismissed: hidden from search and context. Restore undoes it.",
        "restored" => "Restored.",
        "pinned" => "Pinned: listed at every session start of its project.",
        "unpinned" => "Unpinned.",
        "favourite" => "Marked a favourite: lifted a little in search.",
        "unfavourite" => "No longer a favourite.",
        "positive" => "Thanks: marked helpful.",
        "negative" => "Marked not helpful: lowered a little in search.",
        "accepted" => "Kept that fact; the other is closed and kept as history.",
        "rejected" => "Dismissed that fact; the other stays current.",
        "proposal-accepted" => "Accepted: it is written as the client asked.",
        "proposal-rejected" => "Rejected: nothing it asked for was written.",
        "trust-set" => "Saved the client's level.",
        "rule-added" => "Rule added.",
        "rule-exists" => "That rule was already there.",
        "confirmed" => "Rule confirmed.",
        "disabled" => "Rule disabled: no longer listed at session start or synced.",
        "enabled" => "Rule enabled.",
        _ => return None,
    })
}

/// Go to `to` after an action (303, so a reload does not repeat it).
fn done(to: &str) -> Response {
    Redirect::to(to).into_response()
}

// ---------------------------------------------------------------------------------------------
// Requests: query strings, forms, the CSRF token, and calling operations
// ---------------------------------------------------------------------------------------------

/// A query string or form body as a map (the last value of a repeated name wins).
fn params(raw: &[u8]) -> HashMap<String, String> {
    form_urlencoded::parse(raw).into_owned().collect()
}

fn query(q: Option<String>) -> HashMap<String, String> {
    params(q.as_deref().unwrap_or("").as_bytes())
}

/// A non-blank value of `name`.
fn field(p: &HashMap<String, String>, name: &str) -> Option<String> {
    p.get(name)
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// A parsed value of `name`, or an argument error naming it.
fn parsed<T: std::str::FromStr>(
    p: &HashMap<String, String>,
    name: &str,
) -> Result<Option<T>, OpError>
where
    T::Err: std::fmt::Display,
{
    field(p, name)
        .map(|v| {
            v.parse::<T>()
                .map_err(|e| OpError::InvalidArgument(format!("{name}: {e}")))
        })
        .transpose()
}

/// The token forms carry, derived from the process's secret.
fn csrf_token(secret: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"aletheia dashboard csrf\0");
    h.update(secret);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a form carries the expected token (compared in constant time).
fn csrf_ok(expected: &str, form: &HashMap<String, String>) -> bool {
    let given = form.get("csrf").map(String::as_str).unwrap_or("");
    !expected.is_empty() && bool::from(given.as_bytes().ct_eq(expected.as_bytes()))
}

impl Dash {
    /// A form's fields, once its CSRF token is checked; otherwise the 403 page to answer with.
    fn form(&self, body: &Bytes) -> Result<HashMap<String, String>, Box<Response>> {
        let form = params(body);
        if csrf_ok(&self.csrf, &form) {
            Ok(form)
        } else {
            Err(Box::new(page_with(
                StatusCode::FORBIDDEN,
                "Refused",
                Nav::None,
                None,
                "<p class=\"error\">This form was not sent by this dashboard (its token is missing or out of date): reload the page and try again.</p>",
            )))
        }
    }

    /// A POST form to `action` with one button and hidden `fields`.
    fn button(&self, action: &str, fields: &[(&str, &str)], label: &str, class: &str) -> String {
        let mut h = format!(
            "<form method=\"post\" action=\"{}\" class=\"inline\">{}",
            escape(action),
            self.token_field()
        );
        for (k, v) in fields {
            let _ = write!(
                h,
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                escape(k),
                escape(v)
            );
        }
        let _ = write!(
            h,
            "<button type=\"submit\" class=\"{}\">{}</button></form>",
            escape(class),
            escape(label)
        );
        h
    }

    /// The hidden CSRF field every POST form starts with.
    fn token_field(&self) -> String {
        format!(
            "<input type=\"hidden\" name=\"csrf\" value=\"{}\">",
            escape(&self.csrf)
        )
    }

    /// Run operation `req` as the dashboard.
    async fn call<O>(&self, req: O) -> Result<O::Output, OpError>
    where
        O: Operation + Send + 'static,
        O::Output: Send + 'static,
    {
        self.state
            .run(self.state.caller("dashboard"), O::ACCESS, move |ctx| {
                ops::call(ctx, req)
            })
            .await
    }
}

/// `<option>`s for a select, `selected` marked.
fn options(values: &[&str], selected: Option<&str>, blank: Option<&str>) -> String {
    let mut h = String::new();
    if let Some(b) = blank {
        let _ = write!(h, "<option value=\"\">{}</option>", escape(b));
    }
    for v in values {
        let _ = write!(
            h,
            "<option value=\"{0}\"{1}>{0}</option>",
            escape(v),
            if Some(*v) == selected {
                " selected"
            } else {
                ""
            }
        );
    }
    h
}

// ---------------------------------------------------------------------------------------------
// Signing in (with ALETHEIA_API_KEY set)
// ---------------------------------------------------------------------------------------------

/// The answer to a page request without the key: 401 with a Basic challenge, so the browser
/// asks for the key, and a page for the person who cancels the browser's dialog. It shows no
/// stored text and no form token.
pub fn sign_in_page() -> Response {
    let body = "<p>This server has an API key. Your browser asks for it: give any user name, and the key \
        (the server's ALETHEIA_API_KEY) as the password. The browser sends it to this address and port \
        alone, and forgets it when it closes.</p><p><a href=\"/\">Try again</a></p>";
    let mut r = page_with(StatusCode::UNAUTHORIZED, "Sign in", Nav::None, None, body);
    r.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"aletheia\", charset=\"UTF-8\""),
    );
    r
}

/// 32 bytes from the operating system's random source.
fn random_bytes() -> [u8; 32] {
    let mut buf = [0u8; 32];
    // The OS source failing leaves nothing safe to fall back on; the server cannot guard its
    // forms without it.
    getrandom::fill(&mut buf).expect("the operating system's random source");
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leaves_no_markup_and_no_way_out_of_an_attribute() {
        assert_eq!(
            escape("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(escape("</aletheia-memory>"), "&lt;/aletheia-memory&gt;");
        assert_eq!(
            escape(r#"" onmouseover='x' a&b"#),
            "&quot; onmouseover=&#39;x&#39; a&amp;b"
        );
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
        // Already-escaped text is escaped again, so it shows as written.
        assert_eq!(escape("&lt;"), "&amp;lt;");
    }

    #[test]
    fn times_carry_utc_for_the_script_and_a_readable_fallback() {
        let t = time(1_785_000_000_000);
        assert_eq!(
            t,
            "<time datetime=\"2026-07-25T17:20:00.000Z\">2026-07-25 17:20 UTC</time>"
        );
    }

    #[test]
    fn numbers_read_as_words_and_grouped_digits() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(count(1, "new fact", "new facts"), "1 new fact");
        assert_eq!(count(0, "new fact", "new facts"), "0 new facts");
        assert_eq!(count(12_345, "call", "calls"), "12,345 calls");
    }

    #[test]
    fn a_table_scrolls_in_its_own_region_and_escapes_its_heads() {
        let h = table("Jobs <b>", &["Job", "<i>x</i>", ""]);
        assert!(
            h.starts_with(
                "<div class=\"table-scroll\" role=\"region\" aria-label=\"Jobs &lt;b&gt;\""
            ),
            "{h}"
        );
        assert!(
            h.contains("<th scope=\"col\">&lt;i&gt;x&lt;/i&gt;</th><th scope=\"col\"></th>"),
            "{h}"
        );
        assert!(!h.contains("<i>"));
    }

    #[test]
    fn a_form_needs_this_processs_token() {
        let secret = random_bytes();
        let token = csrf_token(&secret);
        assert_eq!(token.len(), 64);
        assert_ne!(token, csrf_token(&random_bytes()));
        let form = |t: &str| params(format!("csrf={t}&id=3").as_bytes());
        assert!(csrf_ok(&token, &form(&token)));
        assert!(!csrf_ok(&token, &form("")));
        assert!(!csrf_ok(&token, &params(b"id=3")));
        assert!(!csrf_ok(&token, &form(&token[..63])));
        assert!(!csrf_ok(&token, &form(&csrf_token(b"another secret"))));
        assert!(!csrf_ok("", &form("")));
    }

    #[test]
    fn a_notice_is_one_of_the_fixed_texts() {
        let q = |v: &str| HashMap::from([("ok".to_owned(), v.to_owned())]);
        assert_eq!(notice(&q("restored")), Some("Restored."));
        assert_eq!(notice(&q("<b>you were hacked</b>")), None);
    }

    #[test]
    fn pages_forbid_inline_script() {
        let r = page("x", Nav::None, None, "");
        let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(csp.contains("script-src 'self'"));
        assert!(!csp.contains("unsafe-inline"));
    }
}
