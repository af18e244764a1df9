//! Search on PostgreSQL: the questions recall asks of the full-text index (see the SQLite
//! store's `search.rs`), answered from `memories.search`, a tsvector of the title's words
//! (weight A) and the text's (weight D) under the `aletheia` configuration, with a GIN index.
//!
//! A term is matched as FTS5 matches a quoted phrase: its words in order within the title or
//! within the text (`aletheia_phrase`). Its counts per row, which FTS5 reads from its doclists,
//! are read here from the row's tsvector: the server trims it to the query's lexemes, once for
//! the title's positions and once for the text's, and sends both in binary; each phrase is
//! counted where its lexemes stand at the phrase's own offsets. The index's row count and total
//! length come from `memory_totals`, which statement triggers keep (see the schema), so no
//! search counts the table.
//!
//! Where the two engines tokenise alike (words split on every character that is neither letter
//! nor digit, lower case, accents folded) the counts are FTS5's. They differ where the stemmers
//! do (Snowball's English stemmer here, Porter's older one in FTS5) and where a tsvector keeps
//! less than FTS5: at most 256 positions per lexeme, and positions past 16,383 run together.

use super::PgStore;
use super::rows::{MEMORY_COLUMNS, memory};
use crate::model::{Kind, Memory, MemoryType};
use crate::store::StoreError;
use crate::store::contract::SearchIndex;
use crate::store::search::{
    CandidateReader, CandidateRow, Candidates, DateOrder, FileMatch, Filter, TermSample, TextQuery,
};
use crate::store::sql_numbers::{count, sql_int};
use crate::store::term_counts::TermCounts;
use postgres::Statement;
use postgres::types::{FromSql, ToSql, Type};
use std::collections::HashSet;

/// Beyond this many rows, `memory_totals` is folded into one on the next read.
const TOTALS_FOLD: i64 = 64;

/// A statement's arguments, numbered as they are pushed.
#[derive(Default)]
struct Args(Vec<Box<dyn ToSql + Sync>>);

impl Args {
    /// Add `v`; its placeholder.
    fn push(&mut self, v: impl ToSql + Sync + 'static) -> String {
        self.0.push(Box::new(v));
        format!("${}", self.0.len())
    }

    fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0.iter().map(|v| &**v as &(dyn ToSql + Sync)).collect()
    }
}

/// The filter as conditions on `m` (the memories table), each starting with ` AND `.
fn filter_sql(f: &Filter<'_>, args: &mut Args) -> String {
    let mut sql = String::from(" AND NOT m.dismissed");
    if let Some(p) = f.project {
        sql += &format!(" AND m.project = {}", args.push(p.to_owned()));
    }
    if let Some(t) = f.mtype {
        sql += &format!(" AND m.type = {}", args.push(t.as_str()));
    }
    if let Some(k) = f.kind {
        sql += &format!(" AND m.kind = {}", args.push(k.as_str()));
    }
    if let Some(s) = f.since {
        sql += &format!(" AND m.created_at >= {}", args.push(s));
    }
    if let Some(u) = f.until {
        sql += &format!(" AND m.created_at < {}", args.push(u));
    }
    sql
}

/// The conditions that narrow an index walk to `candidates`. The project is checked exactly,
/// where FTS5 narrows by the project's words: a subset of SQLite's rows, which the caller
/// narrows to the same ones.
fn candidates_sql(candidates: Candidates<'_>, args: &mut Args) -> String {
    let mut sql = String::new();
    if let Some(p) = candidates.project {
        sql += &format!(" AND m.project = {}", args.push(p.to_owned()));
    }
    if let Some(f) = candidates.filter {
        sql += &filter_sql(f, args);
    }
    sql
}

fn order_sql(order: DateOrder) -> &'static str {
    match order {
        DateOrder::OldestFirst => "m.created_at ASC, m.id ASC",
        DateOrder::NewestFirst => "m.created_at DESC, m.id DESC",
    }
}

/// A tsquery matching any of `terms`, each as a phrase (`aletheia_phrase`).
fn any_phrase(terms: &[String], args: &mut Args) -> String {
    let phrases: Vec<String> = terms
        .iter()
        .map(|t| format!("aletheia_phrase({}::text)", args.push(t.clone())))
        .collect();
    format!("({})", phrases.join(" || "))
}

/// Whether FTS5 would narrow a search to `project` by its words: then SQLite's counts carry
/// one more phrase, the project's, never found in the title or the text.
fn project_has_words(project: &str) -> bool {
    project.chars().any(char::is_alphanumeric)
}

/// A tsvector as the server sends it in binary: each lexeme with its positions, without their
/// weights (each trimmed vector read here holds one weight).
struct Lexemes(Vec<(String, Vec<u16>)>);

impl<'a> FromSql<'a> for Lexemes {
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> Result<Lexemes, Box<dyn std::error::Error + Sync + Send>> {
        fn take<'b>(raw: &mut &'b [u8], n: usize) -> Result<&'b [u8], &'static str> {
            if raw.len() < n {
                return Err("a tsvector cut short");
            }
            let (head, rest) = raw.split_at(n);
            *raw = rest;
            Ok(head)
        }
        let mut raw = raw;
        let n = u32::from_be_bytes(take(&mut raw, 4)?.try_into()?);
        let mut out = Vec::with_capacity(usize::try_from(n)?.min(4096));
        for _ in 0..n {
            let end = raw
                .iter()
                .position(|&b| b == 0)
                .ok_or("a tsvector lexeme without its end")?;
            let lexeme = std::str::from_utf8(take(&mut raw, end)?)?.to_owned();
            take(&mut raw, 1)?;
            let positions = u16::from_be_bytes(take(&mut raw, 2)?.try_into()?);
            let positions = (0..positions)
                .map(|_| {
                    // The low 14 bits are the position, the top two its weight.
                    take(&mut raw, 2).map(|p| u16::from_be_bytes([p[0], p[1]]) & 0x3fff)
                })
                .collect::<Result<Vec<u16>, _>>()?;
            out.push((lexeme, positions));
        }
        Ok(Lexemes(out))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::TS_VECTOR
    }
}

/// A term as its lexemes in order: each lexeme's index in the query's list, and its offset from
/// the phrase's first word.
type Pattern = Vec<(usize, u16)>;

/// The query's lexemes (each once) and each term's phrase over them.
struct Phrases {
    lexemes: Vec<String>,
    patterns: Vec<Pattern>,
}

impl Phrases {
    /// The term `vectors` (each term's own tsvector, as the configuration reads it), taken apart.
    fn new(vectors: Vec<Lexemes>) -> Phrases {
        let mut lexemes: Vec<String> = Vec::new();
        let mut patterns = Vec::with_capacity(vectors.len());
        for Lexemes(words) in vectors {
            let mut at: Vec<(u16, usize)> = Vec::new();
            for (lexeme, positions) in words {
                let i = lexemes
                    .iter()
                    .position(|l| *l == lexeme)
                    .unwrap_or_else(|| {
                        lexemes.push(lexeme);
                        lexemes.len() - 1
                    });
                at.extend(positions.into_iter().map(|p| (p, i)));
            }
            at.sort_unstable();
            let first = at.first().map_or(0, |a| a.0);
            patterns.push(at.into_iter().map(|(p, i)| (i, p - first)).collect());
        }
        Phrases { lexemes, patterns }
    }

    /// Each lexeme's positions in one trimmed vector, by the lexeme's index.
    fn positions(&self, part: Lexemes) -> Vec<Vec<u16>> {
        let mut by_lexeme = vec![Vec::new(); self.lexemes.len()];
        for (lexeme, positions) in part.0 {
            if let Some(i) = self.lexemes.iter().position(|l| *l == lexeme) {
                by_lexeme[i] = positions;
            }
        }
        by_lexeme
    }

    /// How often each term's phrase occurs in the title's and the text's positions.
    fn counts(&self, title: &[Vec<u16>], text: &[Vec<u16>]) -> Vec<[u64; 2]> {
        self.patterns
            .iter()
            .map(|p| [occurrences(p, title), occurrences(p, text)])
            .collect()
    }
}

/// Where `pattern` starts in `positions` (sorted, by lexeme): its first lexeme's positions from
/// which every other lexeme stands at its offset.
fn occurrences(pattern: &Pattern, positions: &[Vec<u16>]) -> u64 {
    let Some(&(first, _)) = pattern.first() else {
        return 0;
    };
    let n = positions[first]
        .iter()
        .filter(|&&p| {
            pattern[1..].iter().all(|&(i, offset)| {
                p.checked_add(offset)
                    .is_some_and(|q| positions[i].binary_search(&q).is_ok())
            })
        })
        .count();
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The candidate reader: one statement, prepared once.
struct PgCandidateRows<'s> {
    store: &'s PgStore,
    stmt: Statement,
}

impl CandidateReader for PgCandidateRows<'_> {
    /// From the walk that found the row when it did (see `each_match_counted`), else read.
    fn get(&mut self, id: i64) -> Result<Option<CandidateRow>, StoreError> {
        if let Some(row) = self.store.memo.borrow().row(id) {
            return Ok(Some(row));
        }
        let row = self.store.with(|c| c.query_opt(&self.stmt, &[&id]))?;
        Ok(row.map(|r| candidate(&r, 0)))
    }
}

/// The candidate row in `r`'s columns from `at`: created_at, pinned, type, kind, dismissed and
/// project.
fn candidate(r: &postgres::Row, at: usize) -> CandidateRow {
    CandidateRow {
        created_at: r.get(at),
        pinned: r.get(at + 1),
        mtype: r.get::<_, &str>(at + 2).parse().unwrap_or(MemoryType::Note),
        kind: r.get::<_, &str>(at + 3).parse().unwrap_or(Kind::Note),
        dismissed: r.get(at + 4),
        project: r.get(at + 5),
    }
}

impl PgStore {
    fn search_memories(&self, sql: &str, args: &Args) -> Result<Vec<Memory>, StoreError> {
        self.query_prepared(sql, &args.refs())
            .map(|rows| rows.iter().map(memory).collect())
    }

    /// Each term's own tsvector, as the configuration reads it (for [`Phrases`]); kept, since
    /// the configuration does not change under a running hub.
    fn term_vectors(&self, terms: &[String]) -> Result<Vec<Lexemes>, StoreError> {
        let missing: Vec<String> = {
            let memo = self.memo.borrow();
            terms
                .iter()
                .filter(|t| memo.term_vector(t).is_none())
                .cloned()
                .collect()
        };
        if !missing.is_empty() {
            let rows = self.query_prepared(
                "SELECT to_tsvector('aletheia', aletheia_words(t))
                 FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i) ORDER BY i",
                &[&missing],
            )?;
            let mut memo = self.memo.borrow_mut();
            for (term, r) in missing.iter().zip(&rows) {
                memo.keep_term_vector(term, r.get::<_, Lexemes>(0).0);
            }
        }
        let memo = self.memo.borrow();
        Ok(terms
            .iter()
            .map(|t| Lexemes(memo.term_vector(t).unwrap_or_default()))
            .collect())
    }

    /// The memories' count and total length, folding `memory_totals` when it has grown.
    fn index_totals(&self) -> Result<(u64, u64), StoreError> {
        self.with(|c| {
            let r = c.query_one(
                "SELECT coalesce(sum(rows), 0)::bigint, coalesce(sum(tokens), 0)::bigint, count(*)
                 FROM memory_totals",
                &[],
            )?;
            if r.get::<_, i64>(2) > TOTALS_FOLD {
                // Rows added meanwhile are not deleted, so they stay, and two readers folding
                // at once each fold the rows it deleted.
                c.execute(
                    "WITH gone AS (DELETE FROM memory_totals RETURNING rows, tokens)
                     INSERT INTO memory_totals (rows, tokens)
                     SELECT coalesce(sum(rows), 0), coalesce(sum(tokens), 0) FROM gone",
                    &[],
                )?;
            }
            Ok((count(r.get(0)), count(r.get(1))))
        })
    }
}

impl SearchIndex for PgStore {
    fn matching_by_date(
        &self,
        query: TextQuery<'_>,
        filter: &Filter<'_>,
        order: DateOrder,
        n: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let mut args = Args::default();
        let tsquery = match query {
            TextQuery::AnyWord([]) => return Ok(vec![]),
            TextQuery::AnyWord(terms) => any_phrase(terms, &mut args),
            TextQuery::Native(text) => {
                format!(
                    "to_tsquery('aletheia', {}::text)",
                    args.push(text.to_owned())
                )
            }
        };
        let filters = filter_sql(filter, &mut args);
        let limit = args.push(sql_int(n));
        // The planner chooses, from the term's statistics, between the GIN index's matches
        // sorted by date and the time index walked until enough match: what SQLite's side
        // decides by counting the matches first.
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.search @@ {tsquery} {filters}
             ORDER BY {order} LIMIT {limit}",
            order = order_sql(order),
        );
        self.search_memories(&sql, &args)
    }

    fn touching_file(
        &self,
        file: FileMatch<'_>,
        filter: &Filter<'_>,
        order: DateOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let mut args = Args::default();
        let filters = filter_sql(filter, &mut args);
        let cond = if file.suffix {
            // SQLite's LIKE folds ASCII letters alone, as lower() does under the C collation.
            let pattern = args.push(format!("%{}", like_escape(file.path)));
            format!("lower(f.path COLLATE \"C\") LIKE lower({pattern} COLLATE \"C\") ESCAPE '\\'")
        } else {
            format!("f.path = {}", args.push(file.path.to_owned()))
        };
        let (limit, offset) = (args.push(sql_int(limit)), args.push(sql_int(offset)));
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m
             WHERE m.id IN (SELECT f.memory_id FROM memory_files f WHERE {cond}) {filters}
             ORDER BY {order} LIMIT {limit} OFFSET {offset}",
            order = order_sql(order),
        );
        self.search_memories(&sql, &args)
    }

    fn has_memories(&self) -> Result<bool, StoreError> {
        self.with(|c| c.query_one("SELECT EXISTS (SELECT 1 FROM memories)", &[]))
            .map(|r| r.get(0))
    }

    fn project_has_memories(&self, project: &str) -> Result<bool, StoreError> {
        self.with(|c| {
            c.query_one(
                "SELECT EXISTS (SELECT 1 FROM memories WHERE project = $1 AND NOT dismissed)",
                &[&project],
            )
        })
        .map(|r| r.get(0))
    }

    /// The largest id, as SQLite's side answers: the ranking measures a common term's sample in
    /// ids (from its oldest id to this one), so the row count it is set against must be in ids
    /// too. Inserts do not draw ids for duplicates (see `memories.rs`), so ids stay near dense.
    fn indexed_rows(&self) -> Result<u64, StoreError> {
        self.query_prepared("SELECT coalesce(max(id), 0) FROM memories", &[])
            .map(|rows| count(rows[0].get(0)))
    }

    /// Kept in the connection's memo while no memory's words change (see `memo.rs`): a hub
    /// answering many searches between writes samples each term once, as SQLite's does.
    fn term_sample(&self, term: &str, sample: u64) -> Result<TermSample, StoreError> {
        let words = self.query_prepared(
            "SELECT count(*), coalesce(max(id), 0) FROM memory_totals",
            &[],
        )?;
        let words = (words[0].get(0), words[0].get(1));
        if let Some(kept) = self.memo.borrow_mut().sample(words, term, sample) {
            return Ok(kept);
        }
        let size = i64::try_from(sample).unwrap_or(i64::MAX);
        let rows = self.query_prepared(
            "SELECT count(*), coalesce(min(id), 0) FROM (
                 SELECT id FROM memories WHERE search @@ aletheia_phrase($1::text)
                 ORDER BY id DESC LIMIT $2) AS newest",
            &[&term, &size],
        )?;
        let taken = TermSample {
            hits: count(rows[0].get(0)),
            oldest: count(rows[0].get(1)),
        };
        self.memo.borrow_mut().keep_sample(term, sample, taken);
        Ok(taken)
    }

    fn newest_in_scope(&self, project: Option<&str>) -> Result<i64, StoreError> {
        let rows = match project {
            Some(p) => self.query_prepared(
                "SELECT max(created_at) FROM memories WHERE project = $1",
                &[&p],
            ),
            None => self.query_prepared("SELECT max(created_at) FROM memories", &[]),
        }?;
        Ok(rows[0].get::<_, Option<i64>>(0).unwrap_or(0))
    }

    fn pinned_ids(&self, project: Option<&str>) -> Result<HashSet<i64>, StoreError> {
        self.query_prepared(
            "SELECT id FROM memories WHERE pinned AND NOT dismissed
             AND ($1::text IS NULL OR project = $1)",
            &[&project],
        )
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
    }

    fn each_match_counted(
        &self,
        terms: &[String],
        candidates: Candidates<'_>,
        only: Option<Vec<i64>>,
        each: &mut dyn FnMut(i64, &TermCounts),
    ) -> Result<(), StoreError> {
        if terms.is_empty() {
            return Ok(());
        }
        let phrases = Phrases::new(self.term_vectors(terms)?);
        let (index_rows, index_tokens) = self.index_totals()?;
        let mut args = Args::default();
        let lexemes = args.push(phrases.lexemes.clone());
        let tsquery = any_phrase(terms, &mut args);
        let mut conds = candidates_sql(candidates, &mut args);
        if let Some(ids) = only {
            conds += &format!(" AND m.id = ANY({})", args.push(ids));
        }
        // Each row's candidate columns too, so that the ranking reads no row again (see
        // `PgCandidateRows`).
        let sql = format!(
            "SELECT m.id, m.tokens,
                    ts_filter(setweight(ts_filter(m.search, '{{a}}'), 'b', {lexemes}), '{{b}}'),
                    ts_filter(setweight(ts_filter(m.search, '{{d}}'), 'b', {lexemes}), '{{b}}'),
                    m.created_at, m.pinned, m.type, m.kind, m.dismissed, m.project
             FROM memories m WHERE m.search @@ {tsquery} {conds}"
        );
        // Read whole before `each` runs, so that it may use the store.
        let rows = self.query_prepared(&sql, &args.refs())?;
        {
            let mut memo = self.memo.borrow_mut();
            for r in &rows {
                memo.keep_row(r.get(0), candidate(r, 4));
            }
        }
        let project_phrase = candidates.project.is_some_and(project_has_words);
        let mut counted: Vec<(i64, TermCounts)> = Vec::with_capacity(rows.len());
        for r in &rows {
            let title = phrases.positions(r.get(2));
            let text = phrases.positions(r.get(3));
            let mut counts = phrases.counts(&title, &text);
            if project_phrase {
                counts.push([0, 0]);
            }
            counted.push((
                r.get(0),
                TermCounts {
                    index_rows,
                    index_tokens,
                    row_tokens: count(r.get(1)),
                    phrases: counts,
                },
            ));
        }
        // FTS5's order: by id.
        counted.sort_unstable_by_key(|c| c.0);
        for (id, counts) in counted {
            each(id, &counts);
        }
        Ok(())
    }

    /// `query` in PostgreSQL's own syntax (`to_tsquery`), scored by `ts_rank_cd` with title and
    /// text weighted alike and the row's length dividing, as BM25's does, by its logarithm.
    fn native_scores(
        &self,
        query: &str,
        candidates: Candidates<'_>,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        let mut args = Args::default();
        let q = args.push(query.to_owned());
        let conds = candidates_sql(candidates, &mut args);
        let sql = format!(
            "SELECT m.id, ts_rank_cd('{{1,1,1,1}}', m.search, q, 1)::float8
             FROM memories m, to_tsquery('aletheia', {q}::text) AS q
             WHERE m.search @@ q {conds}"
        );
        self.with(|c| c.query(&sql, &args.refs()))
            .map(|rows| rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn candidate_rows(&self) -> Result<Box<dyn CandidateReader + '_>, StoreError> {
        self.memo.borrow_mut().forget_rows();
        let stmt = self.with(|c| {
            c.prepare(
                "SELECT created_at, pinned, type, kind, dismissed, project FROM memories
                 WHERE id = $1",
            )
        })?;
        Ok(Box::new(PgCandidateRows { store: self, stmt }))
    }
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

#[cfg(test)]
mod tests {
    use super::super::testing;
    use super::*;
    use crate::model::NewMemory;
    use crate::redact::{Redacted, Redactor};
    use crate::store::{Memories, OpenOptions, Store};

    /// Title, text, project, kind, type, date, files, pinned, dismissed.
    type Row = (
        &'static str,
        &'static str,
        &'static str,
        Kind,
        MemoryType,
        i64,
        &'static [&'static str],
        bool,
        bool,
    );

    use Kind::{Event, Note, Prompt};
    use MemoryType::{Bugfix, Decision, Note as Plain};

    const CORPUS: &[Row] = &[
        (
            "Configured the cache",
            "We configured Redis as the cache for staging.",
            "shop",
            Note,
            Decision,
            10,
            &["src/Main.rs", "docs/README.md"],
            false,
            false,
        ),
        (
            "Configuration of retries",
            "The retry_budget configuration limits retries per worker.",
            "shop",
            Note,
            Plain,
            20,
            &["lib/main.rs"],
            true,
            false,
        ),
        (
            "Deploy notes",
            "Deploys go through staging; the retry budget is three, retry budget again.",
            "shop",
            Event,
            Plain,
            20,
            &["src/main_rs"],
            false,
            false,
        ),
        (
            "Why retry",
            "budget is low this quarter",
            "shop",
            Prompt,
            Plain,
            30,
            &[],
            false,
            false,
        ),
        (
            "Café au lait",
            "The café near the office serves naïve résumé writers.",
            "blog",
            Note,
            Plain,
            40,
            &["a%b/x_y.rs"],
            false,
            false,
        ),
        (
            "cafe",
            "plain ascii cafe, CAFE and Cafe",
            "blog",
            Note,
            Bugfix,
            40,
            &["a%b/x_yzrs"],
            false,
            false,
        ),
        (
            "Kubernetes migration",
            "moved the cluster to new nodes",
            "shop/feat-x",
            Note,
            Decision,
            50,
            &[],
            false,
            false,
        ),
        (
            "Invoices",
            "billing stores invoices; invoices invoices",
            "shop",
            Note,
            Plain,
            60,
            &[],
            false,
            true,
        ),
        (
            "Cache cache",
            "cache the cache, then the CACHE",
            "shop",
            Event,
            Bugfix,
            60,
            &["src/Main.rs"],
            true,
            false,
        ),
        (
            "Numbers",
            "v2 of the API needs 2fa; 1e5 requests at 3.14 rps",
            "blog",
            Note,
            Plain,
            70,
            &[],
            false,
            false,
        ),
        (
            "STAGING is down",
            "staging staging",
            "shop",
            Prompt,
            Decision,
            70,
            &[],
            false,
            false,
        ),
        (
            "configuring",
            "configures configured configuration",
            "blog",
            Note,
            Plain,
            5,
            &[],
            false,
            false,
        ),
        (
            "Retry budget retry",
            "retry budget retry budget budget retry",
            "shop",
            Note,
            Plain,
            80,
            &[],
            false,
            false,
        ),
        (
            "deploys",
            "deploy deployed deploying",
            "shop/feat-x",
            Event,
            Plain,
            80,
            &[],
            false,
            false,
        ),
        (
            "Invoices again",
            "invoices",
            "shop",
            Note,
            Decision,
            90,
            &[],
            true,
            true,
        ),
    ];

    const QUERIES: &[&[&str]] = &[
        &["configured"],
        &["configuration"],
        &["configuring"],
        &["retry_budget"],
        &["retry"],
        &["budget"],
        &["cafe"],
        &["café"],
        &["naive"],
        &["resume"],
        &["kubernetes"],
        &["invoices"],
        &["staging"],
        &["cache", "staging"],
        &["1e5"],
        &["v2"],
        &["2fa"],
        &["nothing"],
        &["deploys"],
        &["deploy"],
        &["retry_budget", "retry", "budget"],
        &["the"],
    ];

    fn batch() -> Vec<(Redacted<NewMemory>, Option<String>, bool)> {
        let r = Redactor::builtin();
        CORPUS
            .iter()
            .enumerate()
            .map(
                |(i, &(title, text, project, kind, mtype, at, files, pinned, dismissed))| {
                    let m = NewMemory {
                        project: project.into(),
                        kind,
                        mtype,
                        title: title.into(),
                        text: text.into(),
                        host: "cli".into(),
                        session_id: None,
                        files: files.iter().map(|f| (*f).to_owned()).collect(),
                        pinned,
                        created_at: at,
                    };
                    (Redacted::new(m, &r), Some(format!("u{i}")), dismissed)
                },
            )
            .collect()
    }

    /// Both engines holding [`CORPUS`], each memory under the same id.
    fn both() -> (tempfile::TempDir, Store, PgStore) {
        let dir = tempfile::tempdir().unwrap();
        let mut lite =
            Store::open_path(&dir.path().join("hub.db"), OpenOptions::INTERACTIVE).unwrap();
        let mut pg = testing::fresh();
        let n = CORPUS.len();
        assert_eq!(lite.import(&batch()).unwrap(), (n, 0));
        assert_eq!(pg.import(&batch()).unwrap(), (n, 0));
        (dir, lite, pg)
    }

    fn terms(q: &[&str]) -> Vec<String> {
        q.iter().map(|t| (*t).to_owned()).collect()
    }

    fn ids(memories: Vec<Memory>) -> Vec<i64> {
        memories.into_iter().map(|m| m.id).collect()
    }

    fn counted(
        s: &dyn SearchIndex,
        terms: &[String],
        candidates: Candidates<'_>,
        only: Option<Vec<i64>>,
    ) -> Vec<(i64, TermCounts)> {
        let mut out = Vec::new();
        s.each_match_counted(terms, candidates, only, &mut |id, c| {
            out.push((id, c.clone()))
        })
        .unwrap();
        out.sort_by_key(|c| c.0);
        out
    }

    fn filters() -> Vec<Filter<'static>> {
        vec![
            Filter::default(),
            Filter {
                project: Some("shop"),
                ..Filter::default()
            },
            Filter {
                mtype: Some(Decision),
                ..Filter::default()
            },
            Filter {
                kind: Some(Event),
                since: Some(20),
                until: Some(80),
                ..Filter::default()
            },
        ]
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn the_same_words_find_the_same_memories_in_date_order_as_sqlite() {
        let (_dir, lite, pg) = both();
        for q in QUERIES {
            let terms = terms(q);
            for f in filters() {
                for order in [DateOrder::NewestFirst, DateOrder::OldestFirst] {
                    for n in [100, 2] {
                        let want = ids(lite
                            .matching_by_date(TextQuery::AnyWord(&terms), &f, order, n)
                            .unwrap());
                        let got = ids(pg
                            .matching_by_date(TextQuery::AnyWord(&terms), &f, order, n)
                            .unwrap());
                        assert_eq!(got, want, "{q:?} {f:?} {order:?} {n}");
                    }
                }
            }
        }
        // What the words must find, so that agreeing on nothing cannot pass.
        let find = |q: &[&str]| {
            let mut found = ids(pg
                .matching_by_date(
                    TextQuery::AnyWord(&terms(q)),
                    &Filter::default(),
                    DateOrder::OldestFirst,
                    100,
                )
                .unwrap());
            found.sort_unstable();
            found
        };
        // Stems: every form of "configure"; accents folded; a word of a title alone.
        assert_eq!(find(&["configuration"]), [1, 2, 12]);
        assert_eq!(find(&["café"]), [5, 6]);
        assert_eq!(find(&["naive"]), [5]);
        assert_eq!(find(&["kubernetes"]), [7]);
        // A phrase in order within one column, never across the title's end into the text.
        assert_eq!(find(&["retry_budget"]), [2, 3, 13]);
        assert_eq!(find(&["1e5"]), [10]);
        assert!(find(&["nothing"]).is_empty());
        assert!(
            pg.matching_by_date(
                TextQuery::AnyWord(&[]),
                &Filter::default(),
                DateOrder::NewestFirst,
                10
            )
            .unwrap()
            .is_empty()
        );
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn each_match_is_counted_as_fts5_counts_it() {
        let (_dir, lite, pg) = both();
        for q in QUERIES {
            let terms = terms(q);
            let want = counted(&lite, &terms, Candidates::default(), None);
            assert_eq!(
                counted(&pg, &terms, Candidates::default(), None),
                want,
                "{q:?}"
            );
            // Only some rows: the others are skipped.
            let only: Vec<i64> = want.iter().map(|c| c.0).step_by(2).chain([999]).collect();
            assert_eq!(
                counted(&pg, &terms, Candidates::default(), Some(only.clone())),
                counted(&lite, &terms, Candidates::default(), Some(only)),
                "{q:?} only"
            );
            for f in filters() {
                let candidates = Candidates {
                    project: None,
                    filter: Some(&f),
                };
                assert_eq!(
                    counted(&pg, &terms, candidates, None),
                    counted(&lite, &terms, candidates, None),
                    "{q:?} {f:?}"
                );
            }
            // In a project, FTS5 narrows by the project's words (so "shop/feat-x" comes along
            // with "shop"), PostgreSQL by the project itself: the same rows once the caller
            // keeps the project's own.
            let rows = lite.candidate_rows().unwrap();
            let mut rows = rows;
            for project in ["shop", "shop/feat-x", "blog"] {
                let candidates = Candidates {
                    project: Some(project),
                    filter: None,
                };
                let mut want = counted(&lite, &terms, candidates, None);
                want.retain(|(id, _)| rows.get(*id).unwrap().unwrap().project == project);
                assert_eq!(
                    counted(&pg, &terms, candidates, None),
                    want,
                    "{q:?} in {project}"
                );
            }
            for sample in [1, 2, 2000] {
                for term in &terms {
                    assert_eq!(
                        pg.term_sample(term, sample).unwrap(),
                        lite.term_sample(term, sample).unwrap(),
                        "{term} {sample}"
                    );
                }
            }
        }
        // The counts are not all zero: memory 13 holds the phrase twice in its text and once
        // in its title, "retry" twice in its title and three times in its text.
        let c = counted(
            &pg,
            &terms(&["retry_budget", "retry"]),
            Candidates::default(),
            None,
        );
        let thirteen = &c.iter().find(|c| c.0 == 13).unwrap().1;
        assert_eq!(thirteen.phrases, [[1, 2], [2, 3]]);
        assert_eq!(thirteen.index_rows, u64::try_from(CORPUS.len()).unwrap());
        assert_eq!(pg.indexed_rows().unwrap(), lite.indexed_rows().unwrap());
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn the_index_totals_follow_every_insert_change_and_delete() {
        let (_dir, lite, mut pg) = both();
        let totals = |s: &dyn SearchIndex| {
            let c = counted(s, &terms(&["staging"]), Candidates::default(), None);
            (c[0].1.index_rows, c[0].1.index_tokens)
        };
        assert_eq!(totals(&pg), totals(&lite));
        let r = Redactor::builtin();
        let longer = NewMemory {
            project: "shop".into(),
            kind: Note,
            mtype: Plain,
            title: "a much longer title".into(),
            text: "with a much longer text than it had before".into(),
            host: "cli".into(),
            session_id: None,
            files: vec![],
            pinned: false,
            created_at: 1,
        };
        assert!(pg.replace_text(1, &Redacted::new(longer, &r), 2).unwrap());
        // More rows than a fold waits for, each its own statement.
        for i in 0..100_i64 {
            pg.with(|c| {
                c.execute(
                    "UPDATE memories SET text = text || ' more' WHERE id = $1",
                    &[&(i % 5 + 1)],
                )
            })
            .unwrap();
        }
        pg.with(|c| c.execute("DELETE FROM memories WHERE id = 4", &[]))
            .unwrap();
        let exact: (i64, i64) = pg
            .with(|c| c.query_one("SELECT count(*), sum(tokens)::bigint FROM memories", &[]))
            .map(|r| (r.get(0), r.get(1)))
            .unwrap();
        let exact = (count(exact.0), count(exact.1));
        assert_eq!(pg.index_totals().unwrap(), exact);
        // Folded into one row, and still exact.
        let rows: i64 = pg
            .with(|c| c.query_one("SELECT count(*) FROM memory_totals", &[]))
            .map(|r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1);
        assert_eq!(pg.index_totals().unwrap(), exact);
        assert_eq!(totals(&pg), exact);
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_kept_term_sample_is_taken_again_after_any_change_to_the_words() {
        let url = testing::fresh_database();
        let mut pg = PgStore::open(&url).unwrap();
        assert_eq!(pg.import(&batch()).unwrap(), (CORPUS.len(), 0));
        // Another hub process on the same database, and a connection that keeps nothing yet.
        let other = PgStore::open(&url).unwrap();
        let fresh = || PgStore::open(&url).unwrap();
        let sample = |s: &dyn SearchIndex| s.term_sample("staging", 2000).unwrap();
        let first = sample(&pg);
        assert!(first.hits > 0, "the corpus holds the word");
        assert_eq!(sample(&pg), first, "kept, and the same");
        // Each change through the other connection, then the kept sample checked against one
        // taken afresh: a rewrite of the same length (which leaves the totals as they were), a
        // new memory, its deletion, and the rewrite undone.
        for edit in [
            "UPDATE memories SET text = replace(text, 'staging', 'stasing') WHERE id = 1",
            "INSERT INTO memories (uid, project, kind, type, title, text, tool, files, created_at, content_hash)
             VALUES ('new', 'shop', 'note', 'note', 't', 'staging again', 'cli', '[]', 9, 'h9')",
            "DELETE FROM memories WHERE uid = 'new'",
            "UPDATE memories SET text = replace(text, 'stasing', 'staging') WHERE id = 1",
        ] {
            let before = sample(&fresh());
            other.with(|c| c.execute(edit, &[])).unwrap();
            let after = sample(&fresh());
            assert_ne!(before, after, "{edit} changes the word's sample");
            assert_eq!(sample(&pg), after, "after {edit}");
        }
        assert_eq!(sample(&pg), first);
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn files_scopes_and_pins_answer_as_sqlite() {
        let (_dir, lite, pg) = both();
        let files = [
            ("src/Main.rs", false),
            ("src/main.rs", false),
            ("main.rs", true),
            ("MAIN.RS", true),
            ("x_y.rs", true),
            ("%", true),
            ("a%b/x_y.rs", false),
            ("nothing", true),
        ];
        for (path, suffix) in files {
            let file = FileMatch { path, suffix };
            for f in filters() {
                for order in [DateOrder::NewestFirst, DateOrder::OldestFirst] {
                    for (limit, offset) in [(100, 0), (1, 1)] {
                        assert_eq!(
                            ids(pg.touching_file(file, &f, order, limit, offset).unwrap()),
                            ids(lite.touching_file(file, &f, order, limit, offset).unwrap()),
                            "{path} {suffix} {f:?} {order:?} {limit} {offset}"
                        );
                    }
                }
            }
        }
        let main = FileMatch {
            path: "main.rs",
            suffix: true,
        };
        let mut found = ids(pg
            .touching_file(main, &Filter::default(), DateOrder::OldestFirst, 100, 0)
            .unwrap());
        found.sort_unstable();
        assert_eq!(
            found,
            [1, 2, 9],
            "ASCII case folded, _ and % taken as written"
        );

        assert!(pg.has_memories().unwrap());
        for project in [None, Some("shop"), Some("blog"), Some("none")] {
            assert_eq!(
                pg.newest_in_scope(project).unwrap(),
                lite.newest_in_scope(project).unwrap()
            );
            assert_eq!(
                pg.pinned_ids(project).unwrap(),
                lite.pinned_ids(project).unwrap()
            );
        }
        for project in ["shop", "blog", "none"] {
            assert_eq!(
                pg.project_has_memories(project).unwrap(),
                lite.project_has_memories(project).unwrap()
            );
        }
        let (mut a, mut b) = (pg.candidate_rows().unwrap(), lite.candidate_rows().unwrap());
        for id in [1, 8, 15, 999] {
            assert_eq!(a.get(id).unwrap(), b.get(id).unwrap());
        }
        let empty = testing::fresh();
        assert!(!empty.has_memories().unwrap());
        assert_eq!(empty.indexed_rows().unwrap(), 0);
        assert_eq!(empty.newest_in_scope(None).unwrap(), 0);
        assert_eq!(
            empty.term_sample("cache", 10).unwrap(),
            TermSample { hits: 0, oldest: 0 }
        );
    }

    #[test]
    #[ignore = "needs PostgreSQL: scripts/test starts one"]
    fn a_native_query_is_postgresqls_own_and_scores_more_occurrences_higher() {
        let (_dir, _lite, pg) = both();
        let scores = pg
            .native_scores("cache & !staging", Candidates::default())
            .unwrap();
        let mut order = scores.clone();
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        let order: Vec<i64> = order.iter().map(|s| s.0).collect();
        assert_eq!(order, [9], "{scores:?}");
        let scores = pg
            .native_scores(
                "cache | invoic:*",
                Candidates {
                    project: Some("shop"),
                    filter: None,
                },
            )
            .unwrap();
        let mut scores = scores;
        scores.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(scores.first().map(|s| s.0), Some(9), "{scores:?}");
        assert_eq!(scores.len(), 4, "{scores:?}");
        let by_date = pg
            .matching_by_date(
                TextQuery::Native("retry <-> budget"),
                &Filter::default(),
                DateOrder::NewestFirst,
                10,
            )
            .unwrap();
        // PostgreSQL's own phrase: it runs from the title's end into the text (memory 4),
        // which a term from recall's words never does.
        assert_eq!(ids(by_date), [13, 4, 3, 2]);
        // The server's own words are the error's source.
        let e = pg
            .native_scores("cache & (", Candidates::default())
            .unwrap_err();
        let StoreError::Engine { source, .. } = &e else {
            panic!("{e}")
        };
        let said = source.source().map(ToString::to_string).unwrap_or_default();
        assert!(said.contains("no operand in tsquery"), "{said}");
    }
}
