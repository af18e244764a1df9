//! Standing rules as recall sees them: the enabled ones that apply to a project.

use crate::store::{Store, StoreError};

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

impl Rule {
    /// The block's line: `When you are about to commit: Run the tests before you commit`.
    pub fn context_line(&self) -> String {
        let line = if self.when.eq_ignore_ascii_case("always") {
            self.then.clone()
        } else {
            format!("When {}: {}", self.when, self.then)
        };
        super::wrap::neutralise(&line)
    }

    /// The scope in brackets: `[everywhere]`, `[project: shop]`, `[situation: deploys]`.
    pub fn scope(&self) -> String {
        match self.scope_tier.as_str() {
            "everywhere" => "[everywhere]".into(),
            tier => format!("[{tier}: {}]", self.scope_name),
        }
    }
}

/// Enabled rules, oldest first. With a project: those for everywhere, for that project, and for
/// situations (which apply wherever the situation arises).
pub fn enabled(store: &Store, project: Option<&str>) -> Result<Vec<Rule>, StoreError> {
    let mut stmt = store
        .conn()
        .prepare_cached(
            "SELECT id, when_text, then_text, scope_tier, scope_name, source, recheck, created_at, confirmed_at
             FROM rules WHERE enabled = 1
               AND (?1 IS NULL OR scope_tier != 'project' OR scope_name = ?1)
             ORDER BY created_at, id",
        )
        .map_err(|e| store.err(e))?;
    let rows = stmt
        .query_map([project], |r| {
            Ok(Rule {
                id: r.get(0)?,
                when: r.get(1)?,
                then: r.get(2)?,
                scope_tier: r.get(3)?,
                scope_name: r.get(4)?,
                source: r.get(5)?,
                recheck: r.get(6)?,
                created_at: r.get(7)?,
                confirmed_at: r.get(8)?,
            })
        })
        .map_err(|e| store.err(e))?;
    rows.collect::<Result<_, _>>().map_err(|e| store.err(e))
}
