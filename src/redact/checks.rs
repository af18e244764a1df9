//! Tests on a matched value that a regex cannot express: is it a placeholder, code, a type, an
//! identifier, or does it look like a credential? These are the false-positive guards of the
//! generic rules, which match on a name (`password`, `*_key`) and must then judge the value.

use super::rules::Check;
use base64::Engine;

/// What a rule matched: up to 80 bytes of its line before the match, the match up to the secret
/// (the name and operator, for assignments), the secret, and a little of its line after it.
pub struct Matched<'t> {
    pub prefix: &'t str,
    pub before: &'t str,
    pub value: &'t str,
    pub after: &'t str,
}

/// Whether the match passes its rule's check.
pub fn passes(check: Check, m: &Matched<'_>) -> bool {
    match check {
        Check::None => true,
        Check::Password => password_value(m),
        Check::Credential => password_value(m) && credential_looking(m),
        Check::PemBase64 => pem_base64(m.value),
        Check::JwtBase64 => jwt_base64(m.value),
        Check::MixedToken => mixed_token(m.value),
        Check::Base64Secret => base64_secret(m.value),
    }
}

/// Values that are already markers, or that name a secret rather than hold one (a variable, a
/// template, an environment lookup, a mask): replacing them would only hide useful text.
pub fn is_placeholder(value: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "[redacted",
        "[private]",
        "$",
        "<",
        "%",
        "{{",
        "#{",
        "process.env",
        "os.environ",
        "os.getenv",
        "env(",
        "env.",
        "env:",
        "file:",
        "fd:",
        "getenv",
        "secrets.",
        "vars.",
        "your_",
        "your-",
        "yourapi",
        "insert_",
        "replace_",
        "replace-",
        "example",
        "placeholder",
        "dummy",
        "redacted",
        "xxx",
        "***",
        "...",
        "•••",
    ];
    let lower = value.trim_start_matches(['"', '\'']).to_ascii_lowercase();
    // `{self.password}`, `%s`, `{}`: a format string's holes; `#dcdccc`: a colour.
    let template = (lower.starts_with('{') && lower.ends_with('}'))
        || lower.contains("%s")
        || lower.contains("{}")
        || (lower.starts_with('#')
            && (4..=9).contains(&lower.len())
            && lower[1..].bytes().all(|b| b.is_ascii_hexdigit()));
    template
        || is_mask(&lower)
        || PREFIXES.iter().any(|p| lower.starts_with(p))
        || [
            "replace_me",
            "replace-me",
            "replaceme",
            "changeme",
            "change_me",
            "<your",
            "todo",
        ]
        .iter()
        .any(|p| lower == *p || lower.ends_with(p))
        || lower.ends_with("_here")
        || lower.ends_with("-here")
        || lower.ends_with("...")
        || lower.ends_with('…')
        || one_repeated_char(&lower)
}

/// A value that shows where a secret would go rather than holding one: a run of one character
/// over most of it (`password: ********`, `gho_****…`) or a template (`xoxb-your-bot-token`).
fn is_mask(value: &str) -> bool {
    // Runs cover most of a mask (`gho_****…`); real formats have shorter ones (a Dropbox token's
    // ten `A`s, a Twitter bearer token's twenty-two), so a run must be most of the value.
    let b = value.as_bytes();
    let longest = b
        .chunk_by(|x, y| x == y)
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    (longest >= 6 && longest * 5 >= b.len() * 3) || is_template(value)
}

/// A shape filled in with words or mask characters rather than a secret
/// (`xoxb-your-bot-token`, `hf_xxxxxxxx…`). Checked on every match, also of a provider's shape,
/// so only runs of the characters people mask with count: a generated test key (`AKIA` and
/// sixteen `Q`s) is redacted as a real one would be.
pub fn is_template(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let masked = lower
        .as_bytes()
        .chunk_by(|x, y| x == y)
        .any(|run| run.len() >= 8 && b"x*#.0".contains(&run[0]) && run.len() * 2 >= lower.len());
    masked
        || ["your-", "your_", "<your", "yourtoken", "yourkey"]
            .iter()
            .any(|p| lower.contains(p))
}

fn one_repeated_char(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| chars.all(|d| d == c))
}

/// Words that stand where a secret's value would in code but are not one: literals, types and
/// keywords of the languages people paste.
const CODE_WORDS: &[&str] = &[
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "required",
    "optional",
    "inherit",
    "string",
    "str",
    "bool",
    "boolean",
    "int",
    "integer",
    "bytes",
    "number",
    "any",
    "unknown",
    "object",
    "self",
    "this",
    "password",
    "secret",
    "token",
    "secretstr",
    "secretstring",
    "securestring",
    "option",
    "default",
    "hidden",
    "masked",
    "sensitive",
    "empty",
    "notset",
    "not_set",
    "unset",
    "disabled",
    "enabled",
    "env",
    "environment",
    "prompt",
    "stdin",
    "ask",
];

/// English words that mark a quoted value as a sentence (a prompt or an error message) rather
/// than a passphrase.
const PROSE_WORDS: &[&str] = &[
    "the", "your", "a", "an", "to", "is", "of", "for", "please", "enter", "must", "not", "be",
    "invalid", "missing", "required", "with", "from", "and", "or", "in", "on", "at", "this",
];

/// A value assigned to a password-like name is a secret unless it is code: a call, a type, an
/// attribute path, a literal, a number where a count would stand, a sentence.
fn password_value(m: &Matched<'_>) -> bool {
    let v = m.value;
    let lower = v.to_ascii_lowercase();
    if CODE_WORDS.contains(&lower.as_str()) || is_placeholder(v) {
        return false;
    }
    let quoted = m.before.ends_with(['"', '\'', '`']);
    // `arn:aws:secretsmanager:…:secret:prod/db`: a resource name, not an assignment.
    if m.prefix.contains("arn:aws") {
        return false;
    }
    // `password: Option<String>`, `token = get_token()`, `key: Vec[u8]`, `pw = cfg.get(...)`;
    // a closing tag (`<password>x</password>`) is not code.
    let mut after = m.after.chars();
    match (after.next(), after.next()) {
        (Some('<'), Some('/')) => {}
        (Some('(' | '<' | '['), _) => return false,
        (Some('.'), Some(c)) if c.is_ascii_alphabetic() || c == '_' => return false,
        _ => {}
    }
    if !quoted && (is_code_expression(v) || is_macro_fragment(m, v)) {
        return false;
    }
    // `r'[^\W\d]\w*'`: a quoted regular expression, which a quote no longer ends at its first
    // backslash.
    if quoted
        && ["\\d", "\\w", "\\s", "\\b", "\\D", "\\W", "\\S", "[^", "(?:"]
            .iter()
            .any(|p| v.contains(p))
    {
        return false;
    }
    // `&str`, `*mut c_char`, `@Value(...)`, `--flag` are types, annotations and options; inside
    // quotes they are characters of a password.
    if !quoted && v.starts_with(['&', '*', '@', '-', '=', ':', '#', '!']) {
        return false;
    }
    if v.contains("://") && !v.contains('@') {
        return false;
    }
    // A value of digits after a secret-ish (not password-ish) name is a length, a count or an id.
    let name = m.before.to_ascii_lowercase();
    if v.bytes().all(|b| b.is_ascii_digit()) && !name.contains("pass") && !name.contains("pwd") {
        return false;
    }
    if !quoted {
        // `config.password`, `settings.SECRET_KEY`, `args.secret_name`: attribute paths;
        // `password = user_password`: a variable; and code's `name = word` with spaces around
        // the `=`, which .env and shell lines never have (`self.token = nextchar`).
        let spaced = m.before.ends_with(" = ");
        let word = v.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_');
        if is_attribute_path(v)
            || (v.contains('_') && v.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
            || is_code_name(v, m.before, m.after)
            || (spaced
                && word
                && (!v.bytes().any(|b| b.is_ascii_uppercase())
                    || v.as_bytes()[0].is_ascii_uppercase()))
        {
            return false;
        }
        // `the x-api-key: header is required`: a word in a sentence, not a value.
        let mut rest = m.after.chars();
        if v.bytes().all(|b| b.is_ascii_alphabetic())
            && rest.next() == Some(' ')
            && rest.next().is_some_and(|c| c.is_ascii_alphabetic())
        {
            return false;
        }
    }
    if v.contains(' ') {
        let words: Vec<String> = lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(str::to_owned)
            .collect();
        if words.iter().any(|w| PROSE_WORDS.contains(&w.as_str())) {
            return false;
        }
    }
    true
}

/// Names that stand where a value would in code: a path (`token::Paren`, `self._lib.NID_x`), a
/// constant (`DEFAULT_TOKEN`), a type (`CancellationToken`, `ApiKey`), or a name that a comma,
/// semicolon, bracket or assignment follows (`token: Punctuation,`, `key: _bindgen_ty_5 = …`).
fn is_code_name(v: &str, before: &str, after: &str) -> bool {
    // Code spaces its `:` and `=`; a connection string's `Password=x;` and .env lines do not.
    let spaced = before.ends_with(": ") || before.ends_with(" = ");
    let letters_only = v.bytes().all(|b| b.is_ascii_alphabetic());
    let capitals = v.bytes().filter(u8::is_ascii_uppercase).count();
    v.contains("::")
        || ["self.", "this.", "cls.", "super."]
            .iter()
            .any(|p| v.starts_with(p))
        || (v.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') && v.len() > 1)
        || (letters_only && capitals >= 2 && v.as_bytes()[0].is_ascii_uppercase())
        || (spaced
            && v.split('.').all(is_identifier)
            && after
                .trim_start()
                .starts_with([',', ';', ')', '>', '{', '=', '+']))
        || v.strip_suffix('!').is_some_and(is_identifier)
            && after.trim_start().starts_with(['{', '(', '['])
}

/// `getpass.getpass()`, `Option<String>`, `os.environ[`, `cfg.get("k")?.trim()`: a call, a
/// generic type or an index. An unquoted value with brackets is code when a name opens the first
/// bracket and only paths and more brackets follow; a bracket may stay open at the end, where a
/// quote or a space stopped the value (`input("Password: ")`, `HashMap<String, String>`). A
/// name right after a closing bracket (`Summer(2024)Prod`) is not code.
fn is_code_expression(v: &str) -> bool {
    #[derive(PartialEq)]
    enum Last {
        Start,
        Dot,
        Name,
        Group,
    }
    let b = v.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let (mut i, mut last, mut groups) = (0, Last::Start, 0);
    while i < b.len() {
        let c = b[i];
        if word(c) {
            if !matches!(last, Last::Start | Last::Dot) {
                return false;
            }
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            last = Last::Name;
            continue;
        }
        match c {
            b'.' | b':'
                if matches!(last, Last::Name | Last::Group) || (c == b':' && last == Last::Dot) =>
            {
                last = Last::Dot;
                i += 1;
            }
            b'(' | b'[' | b'<' | b'{' if matches!(last, Last::Name | Last::Group) => {
                match closing(&b[i..]) {
                    Some(n) => i += n,
                    None => return true,
                }
                groups += 1;
                last = Last::Group;
            }
            b'?' | b'!' if matches!(last, Last::Name | Last::Group) => i += 1,
            _ => return false,
        }
    }
    groups > 0
}

/// `$token:expr` in a Rust macro: a fragment's kind, not a value.
fn is_macro_fragment(m: &Matched<'_>, v: &str) -> bool {
    const KINDS: &[&str] = &[
        "block", "expr", "ident", "item", "lifetime", "literal", "meta", "pat", "path", "stmt",
        "tt", "ty", "vis",
    ];
    (m.prefix.ends_with('$') || m.before.starts_with('$'))
        && m.before.trim_end().ends_with(':')
        && KINDS.iter().any(|k| {
            v.strip_prefix(k).is_some_and(|rest| {
                !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        })
}

/// The length of the bracketed group that `b` starts with, through its closing bracket, quoted
/// strings inside skipped; `None` when it does not close. A closing bracket that closes nothing
/// open is a character (`Token![=>]`).
fn closing(b: &[u8]) -> Option<usize> {
    let mut open: Vec<u8> = Vec::new();
    let mut quote = None;
    for (i, &c) in b.iter().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'(' => open.push(b')'),
                b'[' => open.push(b']'),
                b'{' => open.push(b'}'),
                b'<' => open.push(b'>'),
                b')' | b']' | b'}' | b'>' => {
                    // An unclosed `<` is a comparison: the bracket it stands in closes here.
                    while open.last().is_some_and(|&o| o == b'>' && c != b'>') {
                        open.pop();
                    }
                    if open.last() == Some(&c) {
                        open.pop();
                        if open.is_empty() {
                            return Some(i + 1);
                        }
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// `user_password`, `_bindgen_ty_5`, `Colon2`: a name in code.
fn is_identifier(v: &str) -> bool {
    let mut b = v.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

fn is_attribute_path(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            let mut c = p.chars();
            c.next()
                .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
                && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
        })
        && !parts
            .iter()
            .any(|p| p.len() >= 16 && p.bytes().any(|b| b.is_ascii_digit()))
}

/// A value after a name that only might be a credential (`license_key`, `auth`, `ado_pat`)
/// counts only when it looks like one: long enough, of a key's alphabet, with letters and
/// digits and enough entropy, and not an identifier (UUID, path, URL, ARN, version, public key).
fn credential_looking(m: &Matched<'_>) -> bool {
    let v = m.value;
    // The name, and the word right before it (`public key: age1…`), say whether it is public.
    let word_before = m
        .prefix
        .trim_end()
        .rsplit([' ', '"', '\'', ',', '{', '('])
        .next();
    let name = format!("{} {}", word_before.unwrap_or(""), m.before).to_ascii_lowercase();
    if ["public", "publishable", "pubkey", "pub_key", "pub-key"]
        .iter()
        .any(|p| name.contains(p))
    {
        return false;
    }
    if v.len() < 16 || v.len() > 1000 || v.contains(' ') {
        return false;
    }
    if !v
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/=_-.~!%^*".contains(&b))
    {
        return false;
    }
    // Heroku, HubSpot and KuCoin keys are UUIDs, so a UUID counts after a key's name, unless
    // the name says what it identifies.
    if is_uuid(v) {
        return !IDENTIFIER_NAMES.iter().any(|n| name.contains(n));
    }
    let lower = v.to_ascii_lowercase();
    if lower.starts_with("arn:")
        || looks_like_path(v)
        || lower.starts_with("sha256:")
        || lower.starts_with("sha512-")
        || looks_like_file(v)
    {
        return false;
    }
    // Letters and digits both, and more than a date's few letters (`1979-05-27T07:32:00Z`).
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let letters = v.bytes().filter(u8::is_ascii_alphabetic).count();
    digits > 0 && letters >= 4 && super::shannon_entropy(v) >= 3.0
}

/// Words in a key's name that make it an identifier: `idempotency_key`, `cache_key`, `sort_key`.
const IDENTIFIER_NAMES: &[&str] = &[
    "idempot",
    "cache",
    "partition",
    "sort",
    "primary",
    "foreign",
    "request",
    "message",
    "object",
    "dedup",
    "lookup",
    "row",
    "hash",
    "range",
    "s3",
    "bucket",
    "field",
    "trace",
    "correlation",
    "session",
    "i18n",
    "translation",
    "item",
    "entity",
    "node",
    "user",
    "tenant",
    "account",
    "client",
    "device",
    "order",
    "record",
];

fn is_uuid(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// `/usr/local/bin`, `./target/release`, `~/.aws/credentials`; not base64 that happens to
/// start with a slash, which has padding, a plus or many capitals.
fn looks_like_path(v: &str) -> bool {
    v.starts_with(['/', '.', '~'])
        && !v.contains(['+', '='])
        && (v.bytes().filter(u8::is_ascii_uppercase).count() <= 2 || v.contains('.'))
}

/// `uploads/2024/report.pdf`, `v1.2.3-beta`, `app-1.0.0.tar.gz`.
fn looks_like_file(v: &str) -> bool {
    let ext = v.rsplit('.').next().unwrap_or("");
    (v.contains('/')
        && v.contains('.')
        && (1..=5).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphabetic()))
        || v.split(['.', '-', '+']).all(|p| {
            p.bytes().all(|b| b.is_ascii_digit())
                || p.len() <= 6 && p.bytes().all(|b| b.is_ascii_alphabetic())
        })
}

/// A value that only its shape marks as a token (a URL path segment, an Okta token): letters
/// of both cases and digits, random enough, and not a UUID, a mask or a template. Names and
/// hex digests have one case.
fn mixed_token(v: &str) -> bool {
    let has = |f: fn(&u8) -> bool| v.bytes().any(|b| f(&b));
    has(u8::is_ascii_uppercase)
        && has(u8::is_ascii_lowercase)
        && has(u8::is_ascii_digit)
        && !is_uuid(v)
        && !is_placeholder(v)
        && super::shannon_entropy(v) >= 3.5
}

/// Base64 (standard or URL-safe, padded or not) that decodes to text in which a built-in rule
/// finds a secret. Decoded text is shorter, so the search this starts ends.
fn base64_secret(value: &str) -> bool {
    use base64::alphabet;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let url_safe = value.contains(['-', '_']);
    let engine = GeneralPurpose::new(
        if url_safe {
            &alphabet::URL_SAFE
        } else {
            &alphabet::STANDARD
        },
        config,
    );
    engine
        .decode(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .is_some_and(|text| {
            !text.chars().any(|c| c.is_control() && !c.is_whitespace())
                && !super::Redactor::builtin().explain(&text).is_empty()
        })
}

/// Base64 that decodes to a PEM private key (a kubeconfig's `client-key-data`, a CI variable).
fn pem_base64(value: &str) -> bool {
    let head = &value[..value.len().min(80) / 4 * 4];
    base64::engine::general_purpose::STANDARD
        .decode(head)
        .is_ok_and(|bytes| {
            let s = String::from_utf8_lossy(&bytes);
            s.starts_with("-----BEGIN") && s.contains("PRIVATE KEY")
        })
}

/// Base64 that decodes to `eyJ….eyJ`: a JWT's header and payload.
fn jwt_base64(value: &str) -> bool {
    let head = &value[..value.len().min(4096) / 4 * 4];
    base64::engine::general_purpose::STANDARD
        .decode(head)
        .is_ok_and(|bytes| bytes.starts_with(b"eyJ") && bytes.windows(4).any(|w| w == b".eyJ"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m<'a>(before: &'a str, value: &'a str, after: &'a str) -> Matched<'a> {
        let before = before.strip_suffix(value).unwrap_or(before);
        let before = before.strip_suffix(after).unwrap_or(before);
        let before = before.strip_suffix(value).unwrap_or(before);
        Matched {
            prefix: "",
            before,
            value,
            after,
        }
    }

    #[test]
    fn password_values_that_are_code_are_not_secrets() {
        for (whole, value, after) in [
            ("password = getpass", "getpass", ".getpass()"),
            ("password: Option", "Option", "<String>"),
            ("token = config.api_token", "config.api_token", ""),
            ("password = user_password", "user_password", ""),
            ("pub token: CancellationToken", "CancellationToken", ","),
            ("token: token::Paren", "token::Paren", ","),
            ("api_key: ApiKey", "ApiKey", ""),
            (
                "SESSION_TOKEN: HeaderName",
                "HeaderName",
                " = HeaderName::from_static(\"x\")",
            ),
            ("token = DEFAULT_TOKEN", "DEFAULT_TOKEN", ""),
            ("let js_token = quote!", "quote!", " { js };"),
            ("colon2_token: Colon2", "Colon2", ","),
            ("self.token = nextchar", "nextchar", ""),
            ("token = Punctuation", "Punctuation", ""),
            ("Token = Ignore", "Ignore", " + PlainToken"),
            (
                "private_key: ed25519.Ed25519PrivateKey",
                "ed25519.Ed25519PrivateKey",
                ", f_priv",
            ),
            (
                "nid_key = self._lib.NID_pbe_WithSHA1And3_Key_TripleDES_CBC",
                "self._lib.NID_pbe_WithSHA1And3_Key_TripleDES_CBC",
                "",
            ),
            ("secret_length = 32", "32", ""),
            ("password: str", "str", ""),
            (
                "token: \"Please enter your token\"",
                "Please enter your token",
                "\"",
            ),
            ("password = \"********\"", "********", "\""),
            ("api_key = YOUR_API_KEY_HERE", "YOUR_API_KEY_HERE", ""),
        ] {
            assert!(!password_value(&m(whole, value, after)), "{whole}");
        }
        for (whole, value, after) in [
            ("DB_PASSWORD=hunter22", "hunter22", ""),
            (
                "password: \"correct horse battery staple\"",
                "correct horse battery staple",
                "\"",
            ),
            ("PIN_PASSWORD=123456", "123456", ""),
            ("token = 'abc.def.ghi'", "abc.def.ghi", "'"),
        ] {
            assert!(password_value(&m(whole, value, after)), "{whole}");
        }
    }

    #[test]
    fn credential_looking_values() {
        for v in [
            "Ab3dE5gH7jK9mN1pQ",
            "6c7f2a9e41b04d3f8e2a7c5d9b1e0f3a",
            "live_4f9Kd82jdLq0Zx7Y",
        ] {
            assert!(credential_looking(&m("license_key=", v, "")), "{v}");
        }
        assert!(credential_looking(&m(
            "AccountKey=",
            "/x9Kq2LmN8pQr4StUvWx5yZaB7cDeF0gH1iJ",
            ""
        )));
        for v in [
            "/usr/local/lib/python3.11/site-packages",
            "~/.config/aletheia/rules.toml",
            "uploads/2024/01/report.pdf",
            "1979-05-27T07:32:00Z",
            "arn:aws:s3:::my-bucket-2024",
            "kubernetes.io/hostname",
            "short1",
            "1.2.3-beta.4",
        ] {
            assert!(!credential_looking(&m("license_key=", v, "")), "{v}");
        }
        assert!(!credential_looking(&m(
            "public_key=",
            "Ab3dE5gH7jK9mN1pQ",
            ""
        )));
        let uuid = "123e4567-e89b-12d3-a456-426614174000";
        assert!(credential_looking(&m("heroku_key=", uuid, "")));
        assert!(!credential_looking(&m("idempotency_key=", uuid, "")));
    }

    #[test]
    fn base64_pem_needs_a_private_key_header() {
        let private = base64::engine::general_purpose::STANDARD
            .encode("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n");
        let cert = base64::engine::general_purpose::STANDARD
            .encode("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        assert!(pem_base64(&private));
        assert!(!pem_base64(&cert));
    }
}
