//! What one PostgreSQL connection keeps between a search's queries and between searches, so that
//! a ranking costs a few round trips rather than a hundred: the statements it prepared, each
//! term's lexemes, each term's sample while no memory's words have changed, and the candidate
//! rows the last walk of the index read.
//!
//! The SQLite store memoises term samples the same way (`Store::memo`), cleared by any commit.
//! Here the sign of a change is `memory_totals`: every statement that adds, removes or rewrites
//! memories' words adds a numbered row to it (schema v2), and readers fold its rows into one
//! under a new number, so the count and the largest number of its rows differ after any such
//! commit. A sample taken while a commit lands is kept under the state read before it, which no
//! later reader sees again.

use crate::store::search::{CandidateRow, TermSample};
use postgres::Statement;
use std::collections::HashMap;

/// Beyond this many, the prepared statements are dropped (closed on the server) and prepared
/// again as used: a search's statements differ only by their number of terms and filters, so a
/// long-lived connection settles on a few dozen.
const STATEMENTS: usize = 256;

/// Beyond this many terms, the samples are dropped and taken again.
const SAMPLES: usize = 4096;

/// Beyond this many, the candidate rows are dropped (a walk reads them again for itself).
const ROWS: usize = 200_000;

/// What `memory_totals` held when the samples were taken: its rows' count and largest number.
pub(super) type Words = (i64, i64);

#[derive(Default)]
pub(super) struct Memo {
    statements: HashMap<String, Statement>,
    words: Option<Words>,
    samples: HashMap<(String, u64), TermSample>,
    /// Each term's lexemes with their positions, as the text search configuration reads it.
    term_vectors: HashMap<String, Vec<(String, Vec<u16>)>>,
    rows: HashMap<i64, CandidateRow>,
}

impl Memo {
    /// The statement prepared for `sql`, if it was.
    pub(super) fn statement(&self, sql: &str) -> Option<Statement> {
        self.statements.get(sql).cloned()
    }

    pub(super) fn keep_statement(&mut self, sql: &str, stmt: Statement) {
        if self.statements.len() >= STATEMENTS {
            self.statements.clear();
        }
        self.statements.insert(sql.to_owned(), stmt);
    }

    /// `term`'s sample of `size`, if it was taken while the words were as they are now.
    pub(super) fn sample(&mut self, words: Words, term: &str, size: u64) -> Option<TermSample> {
        if self.words != Some(words) {
            self.samples.clear();
            self.words = Some(words);
            return None;
        }
        self.samples.get(&(term.to_owned(), size)).copied()
    }

    pub(super) fn keep_sample(&mut self, term: &str, size: u64, sample: TermSample) {
        if self.samples.len() >= SAMPLES {
            self.samples.clear();
        }
        self.samples.insert((term.to_owned(), size), sample);
    }

    pub(super) fn term_vector(&self, term: &str) -> Option<Vec<(String, Vec<u16>)>> {
        self.term_vectors.get(term).cloned()
    }

    pub(super) fn keep_term_vector(&mut self, term: &str, lexemes: Vec<(String, Vec<u16>)>) {
        if self.term_vectors.len() >= SAMPLES {
            self.term_vectors.clear();
        }
        self.term_vectors.insert(term.to_owned(), lexemes);
    }

    /// A new ranking begins: the rows an earlier one read may have changed since.
    pub(super) fn forget_rows(&mut self) {
        self.rows.clear();
    }

    pub(super) fn keep_row(&mut self, id: i64, row: CandidateRow) {
        if self.rows.len() >= ROWS {
            self.rows.clear();
        }
        self.rows.insert(id, row);
    }

    pub(super) fn row(&self, id: i64) -> Option<CandidateRow> {
        self.rows.get(&id).cloned()
    }
}
