//! Standing rules as recall sees them: the line each gets in a block and its scope in brackets
//! (the store answers which are enabled for a project).

pub use crate::model::Rule;

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
