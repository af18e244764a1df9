//! Facts as every layer reads them: the store returns them, recall lists them, the operations
//! and the dashboard show them. Drawn from compressed sessions; bi-temporal (see `store::facts`).

/// One fact.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Fact {
    pub id: i64,
    pub project: String,
    pub subject: String,
    pub predicate: String,
    pub object: String,
    pub confidence: f64,
    pub source: String,
    pub memory_id: Option<i64>,
    pub valid_from: i64,
    pub valid_to: Option<i64>,
    /// When the store learned it (epoch milliseconds).
    pub recorded_at: i64,
    /// When the store replaced it with another fact; `None` while nothing has.
    pub superseded_at: Option<i64>,
}

/// Two facts about one subject and predicate that started at the same moment, waiting for the
/// user to keep one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Review {
    pub id: i64,
    pub project: String,
    /// When the second fact arrived (epoch milliseconds).
    pub created_at: i64,
    /// The two facts, the one stored first first.
    pub facts: Vec<Fact>,
}
