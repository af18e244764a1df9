//! Facts as recall sees them: a fact's line in a block or a list. The questions recall asks
//! about facts (a search's matches, one subject's history, the pairs that wait for the user's
//! review) are the store's to answer; this module's tests pin those answers.
//!
//! Facts come from compressing finished sessions; a newer fact with the same subject and
//! predicate closes the older one (`valid_to`, and `superseded_at` for when the store learned
//! it), which stays as history. Two that start at the same moment wait in a review instead
//! (see `store::facts`).

pub use crate::model::{Fact, Review};
pub use crate::store::fact_queries::HistoryQuery;

impl Fact {
    /// `subject predicate object (confidence 0.80, since 2026-10-29, from #12)`, dates in the
    /// clock's time zone; `from #ID` names the memory it was read from (whose episode keeps the
    /// original message when compression rewrote it); a closed fact adds `, until DATE`, and
    /// `, replaced DATE` when the store recorded replacing it. Raw: the text or block it goes
    /// into neutralises it.
    pub fn line(&self, clock: &crate::time::Clock) -> String {
        let mut s = format!(
            "{} {} {} (confidence {:.2}, since {}",
            self.subject,
            self.predicate,
            self.object,
            self.confidence,
            clock.date(self.valid_from)
        );
        if let Some(m) = self.memory_id {
            s.push_str(&format!(", from #{m}"));
        }
        if let Some(to) = self.valid_to {
            s.push_str(&format!(", until {}", clock.date(to)));
        }
        if let Some(at) = self.superseded_at {
            s.push_str(&format!(", replaced {}", clock.date(at)));
        }
        s.push(')');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::OpenOptions;
    use crate::store::Store;

    #[test]
    fn history_shows_current_superseded_and_as_of() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("hub.db");
        let s = Store::open_path(&db, OpenOptions::INTERACTIVE).unwrap();
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(
                "INSERT INTO facts (id, project, subject, predicate, object, confidence, valid_from, valid_to, created_at) VALUES
                   (1, 'shop', 'cache', 'ttl', '30 s', 0.8, 100, 200, 100),
                   (2, 'shop', 'cache', 'ttl', '60 s', 0.8, 200, NULL, 200),
                   (3, 'billing', 'cache', 'ttl', '5 s', 0.8, 150, NULL, 150);",
            )
            .unwrap();
        let q = |include_superseded, as_of, project: Option<&str>| {
            s.fact_history(&HistoryQuery {
                subject: "Cache".into(),
                project: project.map(Into::into),
                predicate: None,
                as_of,
                include_superseded,
            })
            .unwrap()
            .iter()
            .map(|f| f.id)
            .collect::<Vec<_>>()
        };
        assert_eq!(q(false, None, None), vec![3, 2]);
        assert_eq!(q(true, None, Some("shop")), vec![1, 2]);
        assert_eq!(q(false, Some(150), Some("shop")), vec![1]);
        assert_eq!(
            q(true, Some(250), Some("shop")),
            vec![2],
            "as_of wins over include_superseded"
        );
    }

    #[test]
    fn open_reviews_show_both_facts_per_project_oldest_first() {
        use crate::redact::{Redacted, Redactor};
        use crate::store::facts::NewFact;
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut put = |project: &str, object: &str, now: i64| {
            let f = NewFact {
                project: project.into(),
                subject: "cache".into(),
                predicate: "ttl".into(),
                object: object.into(),
                confidence: 0.8,
                source: "rules".into(),
                memory_id: None,
                valid_from: 100,
                job_id: None,
            };
            s.insert_fact(&Redacted::new(f, &Redactor::builtin()), now)
                .unwrap()
        };
        put("shop", "30 s", 1000);
        put("billing", "5 s", 1500);
        put("billing", "10 s", 2000);
        put("shop", "60 s", 3000);
        let reviews = s.open_fact_reviews(None).unwrap();
        let seen: Vec<(i64, &str, Vec<&str>)> = reviews
            .iter()
            .map(|r| {
                (
                    r.created_at,
                    r.project.as_str(),
                    r.facts.iter().map(|f| f.object.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (2000, "billing", vec!["5 s", "10 s"]),
                (3000, "shop", vec!["30 s", "60 s"]),
            ]
        );
        let shop = s.open_fact_reviews(Some("shop")).unwrap();
        assert_eq!(shop.len(), 1);
        assert_eq!(shop[0].facts[0].recorded_at, 1000);
        assert_eq!(shop[0].facts[0].confidence, 0.7);
    }
}
