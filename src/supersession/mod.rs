//! Supersession: whether a newer memory replaces an older one of the same project, so that
//! the older can be marked as replaced (never deleted), ranked below the newer and left out of
//! the context block.
//!
//! A wrong supersession hides a memory that is still true, which is worse than missing one, so
//! [`judge`] says yes only on one of three plain signs, each checked against what the older
//! memory itself says:
//!
//! - **Replaced.** The newer names a value as replaced ("switched from npm to pnpm", "Vitest
//!   instead of Jest", "uv, not Poetry"). The older must name that value, must not already name
//!   the new one (then it tells the story of the switch, or lists both), and must share a word
//!   with the rest of the newer's sentence when it has one (the project's own name aside), so
//!   "switched the CI cache from S3 to GCS" does not replace "backups are stored on S3".
//! - **Stopped.** The newer says something no longer holds ("no longer deploy on Fridays"). The
//!   older must say every word of that clause.
//! - **Changed.** Both state a fact (by the rule extractor) of the same subject and predicate
//!   with other values, and the predicate holds one value at a time (`store::cardinality`):
//!   "the API listens on port 8080", then "on port 9090". A newer value that only adds words to
//!   the older one is a detail, not a change.
//!
//! Compression adds a fourth, with a model or the rules: a new fact that closes an older one
//! links their memories (`Cause::Facts`, see the compression job).

mod cues;
pub(crate) mod words;

use crate::compress::Candidate;
use crate::store::cardinality::{self, Cardinality};
use crate::store::standing::Cause;
use cues::{Cue, cues};
use std::collections::HashSet;
use words::{content, sentences, tokens};

/// Whether `newer` replaces `older`, and on what sign.
pub fn judge(older: &str, newer: &str) -> Option<Cause> {
    judge_in(older, newer, "")
}

/// [`judge`] for two memories of `project`: the project's own name says nothing about which
/// part of it a sentence is about (it is in every note of it), so it never counts as a shared
/// subject word.
pub fn judge_in(older: &str, newer: &str, project: &str) -> Option<Cause> {
    let everywhere: HashSet<String> = content(project).into_iter().collect();
    let said: HashSet<String> = content(older).into_iter().collect();
    for sentence in sentences(newer) {
        for cue in cues(sentence) {
            let holds = match &cue {
                Cue::Replaced {
                    old,
                    new,
                    lead,
                    trail,
                } => {
                    let names_old = old.iter().all(|w| said.contains(w));
                    let names_new = !new.is_empty() && new.iter().all(|w| said.contains(w));
                    // Dates and numbers say when, not what.
                    let told = |part: &[String]| {
                        let part: Vec<&String> = part
                            .iter()
                            .filter(|w| {
                                !everywhere.contains(*w)
                                    && !w.contains(|c: char| c.is_ascii_digit())
                            })
                            .collect();
                        let shared = part.iter().filter(|w| said.contains(**w)).count();
                        (shared, part.len())
                    };
                    // The words that name what changed must all be the older's own ("the
                    // staging database" is not "the production database", "audit logs" are
                    // not all logs); with none, a word of the rest of the sentence must be.
                    let (lead_shared, lead_len) = told(lead);
                    let (trail_shared, trail_len) = told(trail);
                    let same_subject = if lead_len > 0 {
                        lead_shared == lead_len
                    } else {
                        trail_len == 0 || trail_shared > 0
                    };
                    names_old && !names_new && same_subject
                }
                Cue::Stopped { what } => what.iter().all(|w| said.contains(w)),
            };
            if holds && !negated_in(older, &cue) {
                return Some(match cue {
                    Cue::Replaced { .. } => Cause::Replaced,
                    Cue::Stopped { .. } => Cause::Stopped,
                });
            }
        }
    }
    changed(older, newer).then_some(Cause::Changed)
}

/// Whether the older memory already says the cue's old value is over: then it is history, and
/// the newer confirms it rather than replacing it.
fn negated_in(older: &str, cue: &Cue) -> bool {
    let over: &[String] = match cue {
        Cue::Replaced { old, .. } => old,
        Cue::Stopped { what } => what,
    };
    sentences(older)
        .into_iter()
        .flat_map(cues)
        .any(|c| match c {
            Cue::Replaced { old, .. } => old == over,
            Cue::Stopped { what } => over.iter().all(|w| what.contains(w)),
        })
}

/// A note as plain statements for the rule extractor: words that only say a statement is the
/// current one ("now", "from now on", "as of this sprint,") are left out, so "tests now run
/// with Vitest" states what "tests run with Jest" did; and a labelled value ("Default request
/// timeout: 60 seconds") is read as the statement it abbreviates ("... is 60 seconds").
fn statements(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|l| labelled(l).unwrap_or_else(|| l.to_owned()))
        .collect();
    sentences(&lines.join("\n"))
        .into_iter()
        .map(|s| {
            let mut s = s.to_owned();
            for lead in ["From now on, ", "from now on, "] {
                s = s.replace(lead, "");
            }
            if let Some(rest) = s.strip_prefix("As of ")
                && let Some((_, after)) = rest.split_once(", ")
            {
                s = after.to_owned();
            }
            for w in [" now ", " currently "] {
                s = s.replace(w, " ");
            }
            format!("{s}.")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// "Label: value" as "Label is value", when the label is a short noun phrase: a few words, no
/// punctuation, no sentence of its own.
fn labelled(s: &str) -> Option<String> {
    let (label, value) = s.split_once(": ")?;
    let words = label.split_whitespace().count();
    let plain = label
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '`'));
    // A note's own heading ("Decision: ...") labels a sentence, not a value.
    let heading = matches!(
        label.trim().to_lowercase().as_str(),
        "decision" | "note" | "gotcha" | "reason" | "update" | "fix" | "todo" | "summary"
    );
    (words > 0 && words <= 4 && plain && !heading && !value.trim().is_empty())
        .then(|| format!("{label} is {value}"))
}

/// Whether a fact of `newer` gives another value for a single-valued fact of `older`.
fn changed(older: &str, newer: &str) -> bool {
    let before = crate::compress::rules::extract(&statements(older));
    if before.is_empty() {
        return false;
    }
    let after = crate::compress::rules::extract(&statements(newer));
    after
        .iter()
        .any(|b| before.iter().any(|a| other_value(a, b)))
}

/// The form of a subject or predicate compared: lowercase, without articles and backticks.
fn key(s: &str) -> String {
    tokens(s)
        .into_iter()
        .filter(|w| !matches!(w.as_str(), "the" | "a" | "an"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `b` states another value than `a` for one single-valued subject and predicate.
fn other_value(a: &Candidate, b: &Candidate) -> bool {
    if key(&a.subject) != key(&b.subject) || key(&a.predicate) != key(&b.predicate) {
        return false;
    }
    let (x, y) = (key(&a.object), key(&b.object));
    if x == y {
        return false;
    }
    let single = match cardinality::of(&a.predicate) {
        Cardinality::Single => !takes_things(&a.predicate, &x),
        Cardinality::Multi => cardinality::versioned_name(&x)
            .is_some_and(|n| cardinality::versioned_name(&y).as_deref() == Some(n.as_str())),
    };
    if !single {
        return false;
    }
    // A value that only adds to the other ("pytest" → "pytest with -x") is a detail.
    let (xs, ys): (HashSet<String>, HashSet<String>) = (
        content(&x).into_iter().collect(),
        content(&y).into_iter().collect(),
    );
    !(xs.is_subset(&ys) || ys.is_subset(&xs))
}

/// A bare "runs" takes things as often as a schedule ("CI runs clippy", "CI runs the tests"):
/// several at once, unless its object is a count or a time.
fn takes_things(predicate: &str, object: &str) -> bool {
    matches!(key(predicate).as_str(), "runs" | "run")
        && !object
            .split_whitespace()
            .next()
            .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()) || schedule(w))
}

fn schedule(w: &str) -> bool {
    matches!(
        w,
        "every" | "at" | "nightly" | "daily" | "hourly" | "weekly" | "monthly" | "on" | "once"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_passive_is_read_without_a_panic() {
        assert_eq!(
            judge("Tests run with Jest.", "Was replaced by Vitest."),
            None
        );
    }

    #[test]
    fn each_sign_replaces_and_its_look_alikes_do_not() {
        let yes = [
            (
                "We deploy the web app with npm.",
                "We switched the web app deploy from npm to pnpm.",
            ),
            (
                "Sessions are stored in Redis.",
                "Sessions are kept in signed cookies instead of Redis.",
            ),
            (
                "We deploy on Fridays after the standup.",
                "We no longer deploy on Fridays.",
            ),
            (
                "The API listens on port 8080.",
                "The API listens on port 9090.",
            ),
        ];
        for (older, newer) in yes {
            assert!(judge(older, newer).is_some(), "{older} / {newer}");
        }
        let no = [
            (
                "Backups are stored on S3.",
                "Switched the CI cache from S3 to GCS.",
            ),
            (
                "The shop service uses SQLite.",
                "The shop service uses Redis for caching.",
            ),
            (
                "The API listens on port 8080.",
                "The admin UI listens on port 9090.",
            ),
            (
                "We switched from npm to pnpm last quarter.",
                "The web app uses pnpm workspaces.",
            ),
            (
                "The worker uses Redis for its queue.",
                "The worker no longer retries failed jobs.",
            ),
            (
                "CI runs `cargo clippy` on every PR.",
                "CI runs `cargo test` on every PR.",
            ),
            ("Tests run with pytest.", "Tests run with pytest and -x."),
            ("We use npm.", "We might switch from npm to pnpm."),
            // Another part of the project, named by a word the older lacks.
            (
                "The production database is Postgres.",
                "Moved the staging database from Postgres to MySQL.",
            ),
            (
                "MySQL is used by the legacy billing service.",
                "For the new service we chose Postgres rather than MySQL.",
            ),
            (
                "Logs are shipped to Datadog.",
                "Audit logs are shipped to S3 instead of Datadog.",
            ),
            (
                "The frontend talks to the API over REST.",
                "The mobile app talks to the API over gRPC instead of REST.",
            ),
            (
                "The Go client retries with backoff.",
                "Ported the retry logic from the Go client to the Rust client.",
            ),
            (
                "Use debug logging locally.",
                "We changed the log level from debug to info in production.",
            ),
            (
                "Sessions expire after 30 minutes in the cache.",
                "The cache is keyed by user id, not by session.",
            ),
            // A change asked for, and an incident.
            (
                "We deploy the shop with npm.",
                "Migrate the shop deploy from npm to pnpm.",
            ),
            (
                "The worker processes jobs from Redis.",
                "The worker stopped processing jobs when Redis was full.",
            ),
        ];
        for (older, newer) in no {
            assert_eq!(judge(older, newer), None, "{older} / {newer}");
        }
    }
}
