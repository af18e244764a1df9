//! The OpenAI-compatible chat-completions provider.
//!
//! One wire format reaches OpenAI itself and most other hosted or local servers (llama.cpp,
//! Ollama, vLLM, LiteLLM), so this provider is "whatever speaks `/chat/completions`", pointed
//! at by a base URL. It asks for a JSON object reply, since servers that honour
//! `response_format` then cannot answer with prose, and those that ignore it still get a
//! prompt that asks for the same thing.

use std::net::IpAddr;
use std::time::Duration;

use serde_json::{Value, json};

use super::{ProviderError, Reply, prompt, reply, var};

const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// How much of an error response's body goes into the error: enough for the server's own
/// message, short enough for one line in a job log.
const SNIPPET_CHARS: usize = 200;

pub struct OpenAi {
    base_url: String,
    model: String,
    key: Option<String>,
    agent: ureq::Agent,
}

impl OpenAi {
    /// `ALETHEIA_OPENAI_BASE_URL`, `ALETHEIA_OPENAI_MODEL`, and the key from
    /// `ALETHEIA_OPENAI_API_KEY` or else `OPENAI_API_KEY`; `timeout` bounds each whole request.
    pub fn from_lookup(
        lookup: &dyn Fn(&str) -> Option<String>,
        timeout: Duration,
    ) -> Result<OpenAi, ProviderError> {
        let base_url = var(lookup, "ALETHEIA_OPENAI_BASE_URL")
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string())
            .trim_end_matches('/')
            .to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ProviderError::Config(format!(
                "ALETHEIA_OPENAI_BASE_URL must start with http:// or https://, not `{base_url}`"
            )));
        }
        let model =
            var(lookup, "ALETHEIA_OPENAI_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let key = var(lookup, "ALETHEIA_OPENAI_API_KEY").or_else(|| var(lookup, "OPENAI_API_KEY"));
        // A server on this machine (llama.cpp, Ollama) usually needs no key; anywhere else, a
        // missing key would only surface later as a 401 on every window.
        if key.is_none() && !is_loopback(&base_url) {
            return Err(ProviderError::Config(format!(
                "openai: no API key for {base_url}; set ALETHEIA_OPENAI_API_KEY (any value if the server needs none)"
            )));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            // Error statuses are answers to report with their body, not transport failures.
            .http_status_as_error(false)
            .user_agent(concat!("aletheia/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(OpenAi {
            base_url,
            model,
            key,
            agent,
        })
    }

    /// The reply text and the token counts the server reported.
    fn complete(&self, prompt: &str) -> Result<(String, Option<u64>, Option<u64>), ProviderError> {
        let url = format!("{}/chat/completions", self.base_url);
        let body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "response_format": {"type": "json_object"},
        })
        .to_string();
        let mut request = self.agent.post(&url).content_type("application/json");
        if let Some(key) = &self.key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(&body).map_err(|e| self.transport(&url, e))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| self.transport(&url, e))?;
        if !response.status().is_success() {
            return Err(ProviderError::Http {
                status,
                body: self.snippet(&text),
            });
        }
        let value: Value = serde_json::from_str(&text).map_err(|_| {
            ProviderError::Malformed(format!("the response is not JSON: {}", self.snippet(&text)))
        })?;
        let content = value
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ProviderError::Malformed("the response has no choices[0].message.content".into())
            })?;
        let tokens = |field: &str| {
            value
                .pointer(&format!("/usage/{field}"))
                .and_then(Value::as_u64)
        };
        Ok((
            content.to_string(),
            tokens("prompt_tokens"),
            tokens("completion_tokens"),
        ))
    }

    fn transport(&self, url: &str, e: ureq::Error) -> ProviderError {
        match e {
            ureq::Error::Timeout(_) => ProviderError::Timeout,
            ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                ProviderError::Timeout
            }
            // ureq prefixes these with "io: ", which tells the user nothing.
            ureq::Error::Io(e) => ProviderError::Transport(self.scrub(&format!("{url}: {e}"))),
            e => ProviderError::Transport(self.scrub(&format!("{url}: {e}"))),
        }
    }

    /// The start of a response body, on one line, without the key.
    fn snippet(&self, body: &str) -> String {
        let line = body.split_whitespace().collect::<Vec<_>>().join(" ");
        let line = self.scrub(&line);
        if line.is_empty() {
            return "(empty body)".into();
        }
        match line.char_indices().nth(SNIPPET_CHARS) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line,
        }
    }

    /// Errors end up in job logs and on screens; a server that echoes the key back in an error
    /// body or a URL must not put it there.
    fn scrub(&self, text: &str) -> String {
        match &self.key {
            Some(key) => text.replace(key.as_str(), "[api key]"),
            None => text.to_string(),
        }
    }
}

impl super::Provider for OpenAi {
    fn name(&self) -> &str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn extract(&self, window: &str) -> Result<Reply, ProviderError> {
        let prompt = prompt::facts_v1(window);
        let (content, tokens_in, tokens_out) = self.complete(&prompt)?;
        Ok(Reply {
            facts: reply::parse(&content)?,
            chars_sent: prompt.chars().count(),
            chars_received: content.chars().count(),
            tokens_in,
            tokens_out,
            cost_usd: None,
        })
    }
}

/// Whether `base_url` names this machine, by `localhost` or a loopback address.
fn is_loopback(base_url: &str) -> bool {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("http://127.0.0.1:8080/v1", true)]
    #[case("http://127.1.2.3/v1", true)]
    #[case("http://localhost:11434/v1", true)]
    #[case("http://LOCALHOST", true)]
    #[case("http://[::1]:8080/v1", true)]
    #[case("http://user@127.0.0.1:8080", true)]
    #[case("https://api.openai.com/v1", false)]
    #[case("http://192.168.1.10:8080/v1", false)]
    #[case("http://localhost.example.com/v1", false)]
    #[case("http://127.0.0.1.example.com/v1", false)]
    fn loopback_urls_need_no_key(#[case] url: &str, #[case] loopback: bool) {
        assert_eq!(is_loopback(url), loopback);
    }
}
