//! The builtin redaction rules, in the order they run.
//!
//! Each rule carries cheap lowercase keywords (the regex runs only when one occurs), the marker it
//! leaves, and its own positive and negative examples, which the unit tests check. Shapes follow
//! the public formats of each provider's credentials; a group named `secret` limits the
//! replacement to the value and keeps the name around it readable.

use regex::Regex;

/// One builtin rule.
pub struct BuiltinRule {
    /// Short name, also the marker's kind.
    pub name: &'static str,
    /// Lowercase words of which at least one must occur for the regex to run; empty: always run.
    pub keywords: &'static [&'static str],
    pub pattern: &'static str,
    /// What a match (or its `secret` group) becomes.
    pub marker: &'static str,
    /// (input, expected output) pairs.
    pub positives: &'static [(&'static str, &'static str)],
    /// Inputs that must come back unchanged.
    pub negatives: &'static [&'static str],
}

impl BuiltinRule {
    /// The compiled regex. The patterns are constants checked by a unit test.
    pub fn regex(&self) -> Regex {
        Regex::new(self.pattern)
            .unwrap_or_else(|e| panic!("builtin redaction rule {} is invalid: {e}", self.name))
    }
}

/// The builtin rules, in order: private blocks and keys first, then provider shapes, then the
/// generic credential rules that leave the name and replace the value.
pub static BUILTIN_RULES: &[BuiltinRule] = &[
    BuiltinRule {
        name: "private",
        keywords: &["<private>"],
        pattern: r"(?is)<private>.*?(?:</private>|\z)",
        marker: "[private]",
        positives: &[
            (
                "a <private>customer list: Acme</private> b",
                "a [private] b",
            ),
            ("x <PRIVATE>one\ntwo</PRIVATE>", "x [private]"),
            ("unclosed <private>rest of the text", "unclosed [private]"),
        ],
        negatives: &["talk about private fields", "</private> alone"],
    },
    BuiltinRule {
        name: "private-key",
        keywords: &["-----begin"],
        pattern: r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|\z)",
        marker: "[redacted:private-key]",
        positives: &[
            (
                "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\nok",
                "key:\n[redacted:private-key]\nok",
            ),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA (cut here",
                "[redacted:private-key]",
            ),
        ],
        negatives: &["-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"],
    },
    BuiltinRule {
        name: "anthropic-key",
        keywords: &["sk-ant-"],
        pattern: r"\bsk-ant-[a-z0-9]{2,10}-[A-Za-z0-9_-]{20,}",
        marker: "[redacted:anthropic-key]",
        positives: &[(
            "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AA",
            "ANTHROPIC_API_KEY=[redacted:anthropic-key]",
        )],
        negatives: &["the sk-ant- prefix marks Anthropic keys"],
    },
    BuiltinRule {
        name: "stripe-key",
        keywords: &["_live_", "_test_"],
        pattern: r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        marker: "[redacted:stripe-key]",
        positives: &[(
            "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc end",
            "stripe [redacted:stripe-key] end",
        )],
        negatives: &[
            "pk_live_4eC39HqLyjWDarjtT1zdp7dc is publishable",
            "run_test_suite_now",
        ],
    },
    BuiltinRule {
        name: "api-key",
        keywords: &["sk-"],
        pattern: r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        marker: "[redacted:api-key]",
        positives: &[
            (
                "token sk-abcdefghijklmnopqrstuvwx1234 x",
                "token [redacted:api-key] x",
            ),
            (
                "OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34",
                "OPENAI_API_KEY=[redacted:api-key]",
            ),
        ],
        negatives: &[
            "risk-assessment-of-the-project-plan",
            "sk-learn is a library",
        ],
    },
    BuiltinRule {
        name: "github-token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        marker: "[redacted:github-token]",
        positives: &[
            (
                "git push https://x:ghp_1234567890abcdefghijklmnopqrstuvwxyzAB@github.com",
                "git push https://x:[redacted:github-token]@github.com",
            ),
            (
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
                "[redacted:github-token]",
            ),
        ],
        negatives: &["ghp_short", "the gho_ prefix"],
    },
    BuiltinRule {
        name: "gitlab-token",
        keywords: &[
            "glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glimt-", "glft-", "gloas-", "glsoat-",
            "glagent-",
        ],
        pattern: r"\bgl(?:pat|dt|ptt|rt|cbt|imt|ft|oas|soat|agent)-[A-Za-z0-9_-]{20,}",
        marker: "[redacted:gitlab-token]",
        positives: &[(
            "PRIVATE-TOKEN: glpat-xYz12AbC34dEf56GhI78j",
            "PRIVATE-TOKEN: [redacted:gitlab-token]",
        )],
        negatives: &["glpat- tokens are personal"],
    },
    BuiltinRule {
        name: "npm-token",
        keywords: &["npm_"],
        pattern: r"\bnpm_[A-Za-z0-9]{36}\b",
        marker: "[redacted:npm-token]",
        positives: &[(
            "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "//registry.npmjs.org/:_authToken=[redacted:npm-token]",
        )],
        negatives: &["npm_config_cache=/tmp/npm", "run npm_install_all"],
    },
    BuiltinRule {
        name: "jwt",
        keywords: &["eyj"],
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        marker: "[redacted:jwt]",
        positives: &[(
            "cookie=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U;",
            "cookie=[redacted:jwt];",
        )],
        negatives: &["eyJhbGciOiJIUzI1NiJ9 alone is only a header"],
    },
    BuiltinRule {
        name: "aws-key-id",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        pattern: r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b",
        marker: "[redacted:aws-key-id]",
        positives: &[(
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            "aws_access_key_id = [redacted:aws-key-id]",
        )],
        negatives: &["ASIA is a continent", "AKIAIOSFODNN7EXAMPL is too short"],
    },
    BuiltinRule {
        name: "slack-token",
        keywords: &["xox"],
        pattern: r"\bxox[abeoprs]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}",
        marker: "[redacted:slack-token]",
        positives: &[(
            "SLACK_BOT_TOKEN=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "SLACK_BOT_TOKEN=[redacted:slack-token]",
        )],
        negatives: &["xoxo hugs"],
    },
    BuiltinRule {
        name: "slack-webhook",
        keywords: &["hooks.slack.com"],
        pattern: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        marker: "[redacted:slack-webhook]",
        positives: &[(
            "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now",
            "post to [redacted:slack-webhook] now",
        )],
        negatives: &["see https://hooks.slack.com/ for docs"],
    },
    BuiltinRule {
        name: "google-api-key",
        keywords: &["aiza"],
        pattern: r"\bAIza[0-9A-Za-z_-]{35}",
        marker: "[redacted:google-api-key]",
        positives: &[(
            "key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&x",
            "key=[redacted:google-api-key]&x",
        )],
        negatives: &["AIza is the prefix"],
    },
    BuiltinRule {
        name: "huggingface-token",
        keywords: &["hf_"],
        pattern: r"\bhf_[A-Za-z0-9]{34,}\b",
        marker: "[redacted:huggingface-token]",
        positives: &[(
            "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
            "HF_TOKEN=[redacted:huggingface-token]",
        )],
        negatives: &["hf_hub_download(repo_id)"],
    },
    BuiltinRule {
        name: "sendgrid-key",
        keywords: &["sg."],
        pattern: r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
        marker: "[redacted:sendgrid-key]",
        positives: &[(
            "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",
            "[redacted:sendgrid-key]",
        )],
        negatives: &["SG.short.value"],
    },
    BuiltinRule {
        name: "pypi-token",
        keywords: &["pypi-ageichlwas5vcmc"],
        pattern: r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        marker: "[redacted:pypi-token]",
        positives: &[(
            "password = pypi-AgEIcHlwaS5vcmcCJDU2NzQ2YjA4LWFiYzEtNDJmZi04YjYxLTg3NGIwNDIzMDM5NQACKlsz",
            "password = [redacted:pypi-token]",
        )],
        negatives: &["pypi-AgEIcHlwaS5vcmc"],
    },
    BuiltinRule {
        name: "shopify-token",
        keywords: &["shpat_", "shpca_", "shppa_", "shpss_"],
        pattern: r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        marker: "[redacted:shopify-token]",
        positives: &[(
            "shpat_0123456789abcdef0123456789abcdef",
            "[redacted:shopify-token]",
        )],
        negatives: &["shpat_ tokens"],
    },
    BuiltinRule {
        name: "digitalocean-token",
        keywords: &["dop_v1_", "doo_v1_", "dor_v1_"],
        pattern: r"\bdo[por]_v1_[a-f0-9]{64}\b",
        marker: "[redacted:digitalocean-token]",
        positives: &[(
            "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "[redacted:digitalocean-token]",
        )],
        negatives: &["dop_v1_ is the prefix"],
    },
    BuiltinRule {
        name: "age-secret-key",
        keywords: &["age-secret-key-1"],
        pattern: r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
        marker: "[redacted:age-secret-key]",
        positives: &[(
            "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
            "[redacted:age-secret-key]",
        )],
        negatives: &["AGE-SECRET-KEY-1 starts an age key"],
    },
    BuiltinRule {
        name: "twilio-key",
        keywords: &["sk"],
        pattern: r"\bSK[0-9a-f]{32}\b",
        marker: "[redacted:twilio-key]",
        positives: &[(
            "twilio SK0123456789abcdef0123456789abcdef ok",
            "twilio [redacted:twilio-key] ok",
        )],
        negatives: &["SK0123 short", "SKIP_0123456789abcdef0123456789abcdef"],
    },
    BuiltinRule {
        name: "mailgun-key",
        keywords: &["key-"],
        pattern: r"\bkey-[0-9a-f]{32}\b",
        marker: "[redacted:mailgun-key]",
        positives: &[(
            "api key-0123456789abcdef0123456789abcdef",
            "api [redacted:mailgun-key]",
        )],
        negatives: &["a key-value store", "key-0123"],
    },
    BuiltinRule {
        name: "telegram-bot-token",
        keywords: &[":aa"],
        pattern: r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}",
        marker: "[redacted:telegram-bot-token]",
        positives: &[(
            "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq end",
            "bot [redacted:telegram-bot-token] end",
        )],
        negatives: &["at 12:AA meeting", "1234567890:AAshort"],
    },
    BuiltinRule {
        name: "linear-key",
        keywords: &["lin_api_"],
        pattern: r"\blin_api_[0-9A-Za-z]{40}\b",
        marker: "[redacted:linear-key]",
        positives: &[(
            "lin_api_0123456789abcdefghij0123456789ABCDEFGHIJ",
            "[redacted:linear-key]",
        )],
        negatives: &["lin_api_ prefix"],
    },
    BuiltinRule {
        name: "postman-key",
        keywords: &["pmak-"],
        pattern: r"\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}\b",
        marker: "[redacted:postman-key]",
        positives: &[(
            "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
            "[redacted:postman-key]",
        )],
        negatives: &["PMAK-123"],
    },
    BuiltinRule {
        name: "url-password",
        keywords: &["://"],
        pattern: r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@]{0,200}:(?P<secret>[^\s@/]{1,200})@",
        marker: "[redacted]",
        positives: &[
            (
                "DATABASE_URL=postgres://app:s3cr3tpass@db.internal:5432/shop",
                "DATABASE_URL=postgres://app:[redacted]@db.internal:5432/shop",
            ),
            (
                "redis://:hunter2@cache:6379",
                "redis://:[redacted]@cache:6379",
            ),
        ],
        negatives: &[
            "https://example.com:8080/path",
            "git@github.com:org/repo.git",
            "https://user@example.com/",
        ],
    },
    BuiltinRule {
        name: "authorization-header",
        keywords: &["authorization"],
        pattern: r#"(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+(?P<secret>[^\s"']{6,})"#,
        marker: "[redacted]",
        positives: &[
            (
                "curl -H 'Authorization: Bearer abc123def456' https://api",
                "curl -H 'Authorization: Bearer [redacted]' https://api",
            ),
            (
                "authorization: basic dXNlcjpwYXNz",
                "authorization: basic [redacted]",
            ),
        ],
        negatives: &[
            "Authorization: Bearer $TOKEN",
            "authorization is checked first",
        ],
    },
    BuiltinRule {
        name: "bearer-token",
        keywords: &["bearer"],
        pattern: r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
        marker: "[redacted]",
        positives: &[(
            "use Bearer 0123456789abcdefXYZ for it",
            "use Bearer [redacted] for it",
        )],
        negatives: &["the bearer token is sent", "a bearer of news"],
    },
    BuiltinRule {
        name: "credential-assignment",
        keywords: &["pass", "secret", "token", "key", "pwd"],
        pattern: r#"(?i)\b[a-z0-9_.-]{0,60}(?:password|passwd|passphrase|pwd|secret|secret_?key|token|api_?key|apikey|access_?key|private_?key|client_?secret)["']?\s*(?:=>|:=|[:=])\s*["']?(?P<secret>[^\s"'`,;()]{6,})"#,
        marker: "[redacted]",
        positives: &[
            ("DB_PASSWORD=hunter22", "DB_PASSWORD=[redacted]"),
            (
                r#"{"password": "correct-horse"}"#,
                r#"{"password": "[redacted]"}"#,
            ),
            ("client_secret: abcdef123", "client_secret: [redacted]"),
            ("api_key='abcdefgh'", "api_key='[redacted]'"),
            ("GITHUB_TOKEN := s3cretvalue", "GITHUB_TOKEN := [redacted]"),
        ],
        negatives: &[
            "password: 12345",
            "max_tokens: 409600",
            "token_count = 123456",
            "the secret is out",
            "api_key=$API_KEY",
            "password = os.environ[\"DB_PASSWORD\"]",
            "passwordless login",
            "password = getpass.getpass()",
            "let api_key = std::env::var(\"API_KEY\")?;",
        ],
    },
];
