//! One `extract_session` job, from its source memories to its committed result.
//!
//! Reading and extracting happen outside any transaction (a model call may take seconds); the
//! lease is renewed before each window. Everything the job stores (facts, the extracted marks,
//! the session and project summaries, merges) is then written in one transaction that commits
//! only while the lease is still this worker's, so a worker killed mid-job, or one whose lease
//! was taken over, leaves nothing half-written and nothing twice.

use super::merge;
use super::rules;
use super::window::{self, Piece};
use super::{Candidate, Extraction};
use crate::model::{Kind, MemoryType, NewMemory, cut_chars};
use crate::redact::{Redacted, Redactor};
use crate::store::compression::{self, Comparable, Source, Summary};
use crate::store::facts::{FactOutcome, NewFact};
use crate::store::jobs::Job;
use crate::store::{JobWrites, Storage, StoreError};
use std::collections::HashSet;
use std::sync::atomic::Ordering;

/// Facts a summary lists at most.
const SUMMARY_FACTS: usize = 20;

/// How many of a project's newest memories a new one is compared with for merging.
const MERGE_WINDOW: usize = 200;

/// What a finished job did (kept as the job row's result).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct JobReport {
    pub sources: usize,
    pub windows: usize,
    /// Facts stored new (including those that closed an older fact or wait for review).
    pub facts_new: usize,
    /// Facts already known (a retried job, or the same fact in two sessions).
    pub facts_known: usize,
    pub superseded: usize,
    pub for_review: usize,
    pub merged: usize,
    /// Whether a session summary was written over the session's summary row.
    pub session_summary: bool,
    /// Who extracted: `rules`, or the providers that answered.
    pub extractors: Vec<String>,
    /// Windows extracted by the rule extractor because a provider cap was reached.
    pub over_cap: usize,
}

/// Why a job did not finish.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The worker is shutting down: release the job.
    #[error("the worker is stopping")]
    Stopped,
    /// Another worker holds the job now: leave it alone.
    #[error("the job's lease passed to another worker")]
    LostLease,
    /// A failed attempt, retried with backoff.
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A candidate with where it came from.
struct Found {
    memory_id: i64,
    fact: Candidate,
    source: String,
}

/// Run `job` to its end.
pub fn run(
    store: &mut dyn Storage,
    redactor: &Redactor,
    ex: &Extraction,
    job: &Job,
) -> Result<JobReport, JobError> {
    let sources = store.compression_sources(&job.project, job.session_id.as_deref())?;
    let texts: Vec<(i64, String)> = sources.iter().map(|s| (s.id, s.text.clone())).collect();
    let windows = window::windows(&texts, ex.settings.limits);
    let mut report = JobReport {
        sources: sources.len(),
        windows: windows.len(),
        ..JobReport::default()
    };
    let mut found = Vec::new();
    for w in &windows {
        if ex.stop.load(Ordering::SeqCst) {
            return Err(JobError::Stopped);
        }
        renew(store, ex, job)?;
        let by_model = if ex.providers.is_empty() {
            None
        } else {
            let asked = ask_providers(store, ex, job, &redactor.redact(&window_text(w)))?;
            if asked.is_none() {
                report.over_cap += 1;
            }
            asked
        };
        match by_model {
            Some((name, facts)) => {
                for fact in facts {
                    found.push(Found {
                        memory_id: best_source(w, &fact),
                        fact,
                        source: name.clone(),
                    });
                }
                push_unique(&mut report.extractors, &name);
            }
            None => {
                found.extend(rule_facts(w));
                push_unique(&mut report.extractors, "rules");
            }
        }
    }
    let merges = merges(store, ex, &job.project, &sources)?;
    // Embedding for the merges may have taken a while: the commit needs the lease.
    renew(store, ex, job)?;
    let now = (ex.now)();
    let mut written = None;
    let finished = store.finish_job(job, now, &mut |tx| {
        let report = write(
            tx,
            redactor,
            job,
            &sources,
            &found,
            &merges,
            report.clone(),
            now,
        )?;
        let result = serde_json::to_string(&report).unwrap_or_default();
        written = Some(report);
        Ok(result)
    })?;
    match written {
        Some(report) if finished => Ok(report),
        _ => Err(JobError::LostLease),
    }
}

/// The window as one text: its pieces, a blank line apart.
fn window_text(w: &[Piece]) -> String {
    w.iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The rule extractor over a window, each fact tied to the memory it was read from.
fn rule_facts(w: &[Piece]) -> Vec<Found> {
    rules::extract_window(w.iter().map(|p| p.text.as_str()))
        .into_iter()
        .map(|(i, fact)| Found {
            memory_id: w[i].memory_id,
            fact,
            source: "rules".into(),
        })
        .collect()
}

/// The piece a model's fact most likely came from: the one sharing most of its words.
fn best_source(w: &[Piece], fact: &Candidate) -> i64 {
    let words: Vec<String> = format!("{} {}", fact.subject, fact.object)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|s| s.len() > 2)
        .map(str::to_lowercase)
        .collect();
    w.iter()
        .max_by_key(|p| {
            let t = p.text.to_lowercase();
            words.iter().filter(|x| t.contains(x.as_str())).count()
        })
        .map_or(0, |p| p.memory_id)
}

fn push_unique(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|n| n == name) {
        list.push(name.to_owned());
    }
}

/// Extend the job's lease, or stop: another worker holds it now.
fn renew(store: &mut dyn Storage, ex: &Extraction, job: &Job) -> Result<(), JobError> {
    if store.renew_lease(job, (ex.now)(), ex.settings.lease_ms)? {
        Ok(())
    } else {
        Err(JobError::LostLease)
    }
}

/// Whether sending `size` more characters stays within the job's cap (over all its attempts)
/// and today's.
fn within_caps(
    store: &dyn Storage,
    ex: &Extraction,
    job: &Job,
    size: usize,
) -> Result<bool, JobError> {
    let b = ex.settings.budget;
    Ok(store.sent_for_job(job.id)? + size <= b.chars_per_job
        && store.sent_on(&ex.day((ex.now)()))? + size <= b.chars_per_day)
}

/// Ask each provider in order until one answers. Before each call the caps are checked and the
/// lease renewed; every call is counted (for the job and the day) and logged, answered or not.
/// `None` when a cap stops the asking (the window then goes to the rule extractor); all that
/// were asked failing is a failed attempt.
fn ask_providers(
    store: &mut dyn Storage,
    ex: &Extraction,
    job: &Job,
    text: &str,
) -> Result<Option<(String, Vec<Candidate>)>, JobError> {
    let size = super::provider::prompt::facts_v1(text).chars().count();
    let mut errors = Vec::new();
    for p in &ex.providers {
        if !within_caps(store, ex, job, size)? {
            return Ok(None);
        }
        renew(store, ex, job)?;
        let answer = p.extract(text);
        let at = (ex.now)();
        let received = answer.as_ref().map_or(0, |r| r.chars_received);
        store.record_usage(&ex.day(at), p.name(), job.id, size, received)?;
        ex.log_call(at, p.as_ref(), job, size, answer.as_ref());
        match answer {
            Ok(r) => return Ok(Some((p.name().to_owned(), r.facts))),
            Err(e) => errors.push(format!("{}: {e}", p.name())),
        }
    }
    Err(JobError::Failed(format!(
        "every model provider failed: {}",
        errors.join("; ")
    )))
}

/// The merges this job's sources call for.
fn merges(
    store: &mut dyn Storage,
    ex: &Extraction,
    project: &str,
    sources: &[Source],
) -> Result<Vec<merge::Merge>, JobError> {
    if sources.is_empty() {
        return Ok(vec![]);
    }
    let mut pool = store.merge_candidates(project, MERGE_WINDOW)?;
    let mut fresh: Vec<Comparable> = Vec::new();
    for s in sources {
        let stored = pool.iter().find(|c| c.id == s.id).cloned();
        fresh.push(stored.unwrap_or(Comparable {
            id: s.id,
            text: s.text.clone(),
            vector: None,
        }));
    }
    if let Some(embedder) = &ex.embedder {
        let missing: Vec<usize> = (0..fresh.len())
            .filter(|&i| fresh[i].vector.is_none())
            .collect();
        let texts: Vec<&str> = missing.iter().map(|&i| fresh[i].text.as_str()).collect();
        if !texts.is_empty() {
            let vectors = embedder
                .embed(&texts)
                .map_err(|e| JobError::Failed(format!("embedding the sources: {e}")))?;
            for (i, v) in missing.into_iter().zip(vectors) {
                fresh[i].vector = Some(v);
            }
        }
    }
    // Fresh memories compare with every older memory, fresh ones included (with the vectors
    // just made).
    for f in &fresh {
        if let Some(slot) = pool.iter_mut().find(|c| c.id == f.id) {
            *slot = f.clone();
        }
    }
    Ok(merge::near_duplicates(&fresh, &pool))
}

/// Store the job's result inside its transaction.
#[allow(
    clippy::too_many_arguments,
    reason = "one transaction's inputs, each used once; a struct would only rename them"
)]
fn write(
    tx: &mut dyn JobWrites,
    redactor: &Redactor,
    job: &Job,
    sources: &[Source],
    found: &[Found],
    merges: &[merge::Merge],
    mut report: JobReport,
    now: i64,
) -> Result<JobReport, StoreError> {
    let ids: Vec<i64> = sources.iter().map(|s| s.id).collect();
    let dismissed = tx.dismissed_among(&ids)?;
    let live: Vec<i64> = ids
        .iter()
        .copied()
        .filter(|id| !dismissed.contains(id))
        .collect();
    let fresh = tx.mark_extracted(&live, job.id, now)?;
    let mut lines: Vec<String> = Vec::new();
    for f in found {
        if !fresh.contains(&f.memory_id) {
            continue;
        }
        let created = sources
            .iter()
            .find(|s| s.id == f.memory_id)
            .map_or(now, |s| s.created_at);
        let fact = Redacted::new(
            NewFact {
                project: job.project.clone(),
                subject: f.fact.subject.clone(),
                predicate: f.fact.predicate.clone(),
                object: f.fact.object.clone(),
                confidence: f.fact.confidence,
                source: f.source.clone(),
                memory_id: Some(f.memory_id),
                valid_from: f.fact.valid_from.unwrap_or(created),
                job_id: Some(job.id),
            },
            redactor,
        );
        let stored = fact.get();
        let line = format!("{} {} {}", stored.subject, stored.predicate, stored.object);
        match tx.insert_fact(&fact, now)? {
            FactOutcome::Duplicate(_) => report.facts_known += 1,
            FactOutcome::Superseded { closed, .. } => {
                report.facts_new += 1;
                report.superseded += 1;
                // The memory that said the closed fact is replaced by the one that said this.
                tx.supersede_by_facts(&closed, f.memory_id, now)?;
            }
            FactOutcome::Tied { .. } => {
                report.facts_new += 1;
                report.for_review += 1;
            }
            FactOutcome::New(_) | FactOutcome::Historical(_) => report.facts_new += 1,
        }
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    let merged_away: HashSet<i64> = merges.iter().map(|m| m.id).collect();
    for m in merges {
        if fresh.contains(&m.id) && tx.merge_into(m.id, m.into, m.similarity, now)? {
            report.merged += 1;
        }
    }
    // The session's summary row: its newest one still listed. The message stays as its
    // episode, and the session-start block tells the summary in its place only when the
    // summary covers the message's line (see `recall::context`); else it adds the facts.
    if job.session_id.is_some()
        && !lines.is_empty()
        && let Some(row) = sources.iter().rev().find(|s| {
            s.kind == Kind::Summary.as_str()
                && fresh.contains(&s.id)
                && !merged_away.contains(&s.id)
        })
    {
        let (title, text) = summary_text(compression::SESSION_SUMMARY, &lines);
        let summary = Redacted::new(Summary { title, text }, redactor);
        report.session_summary = tx.replace_summary(row.id, &summary, now)?;
    }
    let facts = tx.summary_facts(&job.project, SUMMARY_FACTS)?;
    if !facts.is_empty() {
        let (title, text) = summary_text(
            &format!("{} {}", compression::PROJECT_SUMMARY, job.project),
            &facts,
        );
        let m = Redacted::new(
            NewMemory {
                project: job.project.clone(),
                kind: Kind::Summary,
                mtype: MemoryType::Note,
                title,
                text,
                host: "aletheia".into(),
                session_id: None,
                files: vec![],
                pinned: false,
                created_at: now,
            },
            redactor,
        );
        tx.upsert_project_summary(&m, job.id, now)?;
    }
    Ok(report)
}

/// A summary's title (the heading, then its facts `; ` apart, cut) and text (the heading, then
/// one `- ` line per fact). A title is one line, so the facts are not list items there: a `- `
/// after the heading reads as a stray bullet wherever the title is shown. A heading that names
/// something (the project summary's) is set apart from the facts by a colon.
fn summary_text(heading: &str, lines: &[String]) -> (String, String) {
    let text = std::iter::once(heading.to_owned())
        .chain(lines.iter().map(|l| format!("- {l}")))
        .collect::<Vec<_>>()
        .join("\n");
    let lead = if heading.ends_with(':') {
        heading.to_owned()
    } else {
        format!("{heading}:")
    };
    let title = cut_chars(
        &format!("{lead} {}", lines.join("; ")).replace('\n', " "),
        crate::capture::adapter::HOOK_TITLE_CHARS,
    );
    (title, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_lists_one_line_per_fact_and_its_title_is_cut() {
        let facts = [
            "shop service uses SQLite for storage".to_owned(),
            "staging deploys need the VPN".to_owned(),
        ];
        let (title, text) = summary_text(compression::SESSION_SUMMARY, &facts);
        assert_eq!(
            title,
            "Session summary: shop service uses SQLite for storage; staging deploys need the VPN"
        );
        assert_eq!(
            text,
            "Session summary:\n- shop service uses SQLite for storage\n- staging deploys need the VPN"
        );
        let (title, _) = summary_text("Project summary: shop", &facts[..1]);
        assert_eq!(
            title,
            "Project summary: shop: shop service uses SQLite for storage"
        );
        let many: Vec<String> = (0..20)
            .map(|i| format!("service {i} uses port {i}"))
            .collect();
        let (title, _) = summary_text(compression::SESSION_SUMMARY, &many);
        assert!(title.ends_with('…') && title.chars().count() <= 101);
    }

    #[test]
    fn no_summary_title_carries_a_list_marker() {
        for heading in [compression::SESSION_SUMMARY, "Project summary: shop"] {
            let (title, _) = summary_text(heading, &["staging deploys need the VPN".into()]);
            let after = title.split_once(':').map_or("", |(_, rest)| rest);
            assert!(
                !title.contains(" - ") && !after.trim_start().starts_with(['-', '*', '•']),
                "{title}"
            );
        }
    }

    #[test]
    fn a_models_fact_is_tied_to_the_piece_that_shares_its_words() {
        let w = vec![
            Piece {
                memory_id: 1,
                text: "Deploys go through staging.".into(),
            },
            Piece {
                memory_id: 2,
                text: "The billing worker stores invoices in Postgres.".into(),
            },
        ];
        let fact = Candidate {
            subject: "billing worker".into(),
            predicate: "stores".into(),
            object: "invoices in Postgres".into(),
            valid_from: None,
            confidence: 0.8,
        };
        assert_eq!(best_source(&w, &fact), 2);
    }
}
