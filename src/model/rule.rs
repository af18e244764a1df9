//! Standing rules as every layer reads them: the store returns them, the session-start block
//! and rules sync list them, the operations show them.

/// One rule.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rule {
    pub id: String,
    pub when: String,
    pub then: String,
    pub scope_tier: String,
    pub scope_name: String,
    pub source: String,
    pub recheck: Option<String>,
    pub created_at: i64,
    pub confirmed_at: i64,
}
