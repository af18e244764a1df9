//! Model providers: the optional, model-backed fact extractor.
//!
//! Compression uses the deterministic rule extractor unless the user names a provider, because
//! a provider sends session text off the machine (or to a local server) and costs time and
//! money. When one is named, each window goes out with the facts-v1 prompt and the reply is
//! validated before any fact is believed: a model that answers with prose, a truncated object or
//! an out-of-range confidence has failed that attempt, and the next provider in the user's
//! fallback list gets its turn.
//!
//! Configuration comes through a lookup function rather than straight from the process
//! environment, so the server and the tests can hand in their own settings.

pub mod claude_cli;
pub mod openai;
pub mod prompt;
pub mod reply;

use std::time::Duration;

use super::Candidate;

/// Why choosing a provider or one attempt at extraction failed. Apart from `Config`, which is
/// the user's to fix, each is an ordinary outcome for a worker to record and move past.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error(
        "the model provider did not answer in time; raise ALETHEIA_PROVIDER_TIMEOUT_SECS or choose a faster model"
    )]
    Timeout,
    #[error("{}", http_message(*status, body))]
    Http { status: u16, body: String },
    #[error("could not reach the model provider: {0}")]
    Transport(String),
    #[error("the model's reply is malformed: {0}")]
    Malformed(String),
    #[error("{0}")]
    Process(String),
    #[error("{0}")]
    Config(String),
}

/// A status alone rarely tells the user what to change; these are the usual causes.
fn http_message(status: u16, body: &str) -> String {
    let hint = match status {
        401 | 403 => " (check ALETHEIA_OPENAI_API_KEY)",
        404 => " (check ALETHEIA_OPENAI_BASE_URL and ALETHEIA_OPENAI_MODEL)",
        429 => " (rate limited or out of quota; try again later)",
        500..=599 => " (the server failed; try again later)",
        _ => "",
    };
    format!("the model provider answered HTTP {status}{hint}: {body}")
}

/// One successful extraction, with what it cost so the job can account for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub facts: Vec<Candidate>,
    /// Characters in the prompt sent.
    pub chars_sent: usize,
    /// Characters in the model's reply text.
    pub chars_received: usize,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub cost_usd: Option<f64>,
}

pub trait Provider: Send + Sync {
    /// `openai` or `claude-cli`.
    fn name(&self) -> &str;
    fn model(&self) -> &str;
    /// Send one window with the facts-v1 prompt and return the validated facts.
    fn extract(&self, window: &str) -> Result<Reply, ProviderError>;
}

/// The names a user may give, for the error that lists them.
const NAMES: &str = "none, openai (or openai-compatible), claude-cli";

/// One call's default timeout: inside the 60-second lease a job renews before each call, so a
/// call that runs to its timeout still ends while the job is this worker's.
const DEFAULT_TIMEOUT_SECS: u64 = 45;

/// The longest timeout honoured: a day outlasts any extraction, and a deadline that far off
/// still fits the clock, where `now + u64::MAX seconds` would overflow it and panic.
const MAX_TIMEOUT_SECS: u64 = 86_400;

/// The providers the user chose, in fallback order; empty for the rule extractor (`none`, or
/// nothing set).
pub fn from_env() -> Result<Vec<Box<dyn Provider>>, ProviderError> {
    from_lookup(&|name| std::env::var(name).ok())
}

/// Same, from an explicit lookup (tests and the server pass their own):
/// `lookup("ALETHEIA_PROVIDER")` etc.
pub fn from_lookup(
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Box<dyn Provider>>, ProviderError> {
    let (var, value) = match var(lookup, "ALETHEIA_PROVIDERS") {
        Some(list) => ("ALETHEIA_PROVIDERS", list),
        None => match var(lookup, "ALETHEIA_PROVIDER") {
            Some(one) => ("ALETHEIA_PROVIDER", one),
            None => return Ok(Vec::new()),
        },
    };
    // A trailing or doubled comma is a typo, not a request for an unnamed provider.
    let names: Vec<String> = value
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    if names.len() == 1 && names[0] == "none" {
        return Ok(Vec::new());
    }
    // In a list, `none` could mean "skip the rest" or "then the rule extractor"; rather than
    // guess, ask for a list that says one thing.
    if names.iter().any(|name| name == "none") {
        return Err(ProviderError::Config(format!(
            "{var}: `none` cannot be part of a list; set it alone to use the rule extractor, or remove it"
        )));
    }
    let timeout = timeout(lookup)?;
    names
        .iter()
        .map(|name| -> Result<Box<dyn Provider>, ProviderError> {
            match name.as_str() {
                "openai" | "openai-compatible" => {
                    Ok(Box::new(openai::OpenAi::from_lookup(lookup, timeout)?))
                }
                "claude-cli" => Ok(Box::new(claude_cli::ClaudeCli::from_lookup(
                    lookup, timeout,
                )?)),
                other => Err(ProviderError::Config(format!(
                    "{var}: unknown provider `{other}`; use one of: {NAMES}"
                ))),
            }
        })
        .collect()
}

/// A set, non-blank variable; an exported-but-empty one counts as unset, as shells make those
/// easily.
fn var(lookup: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    lookup(name)
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

fn timeout(lookup: &dyn Fn(&str) -> Option<String>) -> Result<Duration, ProviderError> {
    let Some(value) = var(lookup, "ALETHEIA_PROVIDER_TIMEOUT_SECS") else {
        return Ok(Duration::from_secs(DEFAULT_TIMEOUT_SECS));
    };
    match value.parse::<u64>() {
        Ok(secs) if secs > 0 => Ok(Duration::from_secs(secs.min(MAX_TIMEOUT_SECS))),
        _ => Err(ProviderError::Config(format!(
            "ALETHEIA_PROVIDER_TIMEOUT_SECS must be a whole number of seconds above 0, not `{value}`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeout_of(value: &str) -> Result<Duration, ProviderError> {
        let value = value.to_owned();
        timeout(&move |name: &str| {
            (name == "ALETHEIA_PROVIDER_TIMEOUT_SECS").then(|| value.clone())
        })
    }

    #[test]
    fn a_timeout_beyond_a_day_is_read_as_a_day() {
        let day = Duration::from_secs(MAX_TIMEOUT_SECS);
        assert_eq!(timeout_of("18446744073709551615").unwrap(), day);
        assert_eq!(timeout_of("86401").unwrap(), day);
        assert_eq!(timeout_of("90").unwrap(), Duration::from_secs(90));
        // The deadline a provider computes from it fits the clock.
        assert!(std::time::Instant::now().checked_add(day).is_some());
    }

    #[test]
    fn a_zero_or_unreadable_timeout_is_refused() {
        assert!(timeout_of("0").is_err());
        assert!(timeout_of("-1").is_err());
        assert!(timeout_of("forever").is_err());
    }
}
