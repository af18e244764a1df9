//! The phrases by which a note says that something it names is over: a replacement ("switched
//! from npm to pnpm", "replaced Jest with Vitest", "Vitest instead of Jest", "uv, not Poetry",
//! "Sentry was swapped for Rollbar") or a stop ("no longer deploy on Fridays", "stopped using
//! Redis", "doesn't email the report anymore").
//!
//! Read from a sentence's tokens, not by a grammar: each phrase is a fixed frame of cue words,
//! and what fills it is cut short at the words that start another part of the sentence
//! ("after", "because", "for", ...). A sentence that only considers a change (a plan, a
//! question, a hedge, a "don't") says nothing is over and gives no cue.

use super::words::{content, tokens};

/// What a sentence says is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cue {
    /// `old` was replaced by `new` (both as content stems), in a sentence whose other content
    /// words are `lead` (up to the last word of either) and `trail` (after it).
    Replaced {
        old: Vec<String>,
        new: Vec<String>,
        lead: Vec<String>,
        trail: Vec<String>,
    },
    /// What the stopped clause says no longer holds: its content stems, subject included.
    Stopped { what: Vec<String> },
}

/// Words that only consider a change: a sentence holding one announces nothing.
const UNSURE: &str = "might may could should would plan plans planning planned consider \
    considering considered maybe perhaps propose proposal proposed if whether want wants \
    try trying tried evaluate evaluating idea will shall going todo tbd later eventually \
    soon experiment experimenting prototype revert reverted reverting undo task tasks next wip";

/// Words that open another part of a sentence: the phrase filling a frame stops before them.
const BOUNDARY: &str = "after because since for so which as when and but to in on at with by \
    during until while where that via across per";

/// Words that end what a stop names: its object runs past prepositions ("deploy on
/// Fridays") up to another clause.
const STOP_BOUNDARY: &str = "because since so but which as when and after until while only \
    except unless though although";

/// Verbs that move something from one value to another ("switched ... from X to Y").
const MOVES: &str = "switch switched switching move moved moving migrate migrated migrating \
    change changed changing went go gone transition transitioned convert \
    converted shift shifted swap swapped upgrade upgraded downgrade downgraded bump bumped \
    rewrite rewrote rewritten";

fn listed(list: &str, w: &str) -> bool {
    list.split_whitespace().any(|x| x == w)
}

/// Verbs that, opening a sentence in their bare form, make it a command: a change asked for,
/// not one made ("Migrate the queue from RabbitMQ to SQS"). "Use Y, not X" is a standing rule
/// and stays a cue.
const ASKED: &str = "switch move migrate change port swap replace convert shift upgrade \
    downgrade bump rewrite drop remove stop";

/// The cues of one sentence.
pub(crate) fn cues(sentence: &str) -> Vec<Cue> {
    let lower = sentence.to_lowercase();
    let words = tokens(&lower);
    if lower.trim_end().ends_with('?')
        || words.iter().any(|w| listed(UNSURE, w))
        || words.first().is_some_and(|w| listed(ASKED, w))
        || matches!(
            words.first().map(String::as_str),
            Some("don't" | "dont" | "never" | "avoid")
        )
        || lower.starts_with("do not")
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for clause in lower.split([',', '(', ')', '—']) {
        let t = tokens(clause);
        if let Some((old, new)) = from_to(&t)
            .or_else(|| replaced_with(&t))
            .or_else(|| in_favour_of(&t))
            .or_else(|| instead_of(&t))
        {
            out.push(replaced(&words, &old, &new));
        } else if let Some(what) = stopped(&t) {
            out.push(Cue::Stopped { what });
        }
    }
    if let Some((old, new)) = comma_not(&lower) {
        out.push(replaced(&words, &old, &new));
    }
    out.retain(|c| match c {
        Cue::Replaced { old, .. } => !old.is_empty(),
        Cue::Stopped { what } => !what.is_empty(),
    });
    out
}

/// A replacement of `old` by `new` (token phrases), with the sentence's other content words:
/// those up to the last word of either, which name what changed, and those that trail them
/// ("... instead of axios for all requests"), which say more often where or why.
fn replaced(sentence: &[String], old: &[String], new: &[String]) -> Cue {
    let end = sentence
        .iter()
        .rposition(|w| old.contains(w) || new.contains(w))
        .map_or(sentence.len(), |i| i + 1);
    let old = content(&old.join(" "));
    let new = content(&new.join(" "));
    let other = |part: &[String]| -> Vec<String> {
        content(&part.join(" "))
            .into_iter()
            .filter(|w| !old.contains(w) && !new.contains(w) && !cue_word(w))
            .collect()
    };
    let (lead, trail) = (other(&sentence[..end]), other(&sentence[end..]));
    Cue::Replaced {
        old,
        new,
        lead,
        trail,
    }
}

/// A stem that belongs to the cue, not to what the sentence is about.
fn cue_word(stem: &str) -> bool {
    const CUES: &str = "switch mov migrat chang port went go gon transition convert shift swap \
        upgrad downgrad bump rewrit rewrot replac favour favor deprecat retir drop ditch \
        abandon decision note gotcha done complet finish moved";
    CUES.split_whitespace().any(|c| c == stem) || listed(MOVES, stem)
}

/// The phrase starting at `from`, cut at a boundary word, at most `max` tokens.
fn phrase(t: &[String], from: usize, max: usize) -> Vec<String> {
    t.iter()
        .skip(from)
        .take_while(|w| !listed(BOUNDARY, w))
        .take(max)
        .cloned()
        .collect()
}

/// The last content words before `end`, at most `max`, back to a boundary word.
fn before(t: &[String], end: usize, max: usize) -> Vec<String> {
    let mut out: Vec<String> = t[..end]
        .iter()
        .rev()
        .take_while(|w| !listed(BOUNDARY, w) && !listed(MOVES, w))
        .take(max)
        .cloned()
        .collect();
    out.reverse();
    out
}

fn at(t: &[String], i: usize) -> &str {
    t.get(i).map_or("", String::as_str)
}

/// "switched (the queue) from X to Y", "changed the default from X to Y".
fn from_to(t: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let from = t.iter().position(|w| w == "from")?;
    if !t[..from].iter().any(|w| listed(MOVES, w)) {
        return None;
    }
    let to =
        (from + 2..t.len().min(from + 8)).find(|&j| matches!(at(t, j), "to" | "onto" | "into"))?;
    let old = t[from + 1..to].to_vec();
    let new = phrase(t, to + 1, 5);
    Some((old, new))
}

/// "replaced X with Y", "swapped X for Y", "dropped X for Y", and the passive "X was
/// replaced by Y", "X was swapped out for Y".
fn replaced_with(t: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let verb = t.iter().position(|w| {
        matches!(
            w.as_str(),
            "replace" | "replaced" | "replacing" | "swap" | "swapped" | "dropped" | "ditched"
        )
    })?;
    let passive = verb > 0
        && matches!(
            at(t, verb - 1),
            "is" | "was" | "were" | "are" | "been" | "got" | "be"
        );
    let mut next = verb + 1;
    if at(t, next) == "out" {
        next += 1;
    }
    if passive {
        if !matches!(at(t, next), "by" | "with" | "for") {
            return None;
        }
        let aux = if verb >= 2 && matches!(at(t, verb - 2), "has" | "have") {
            verb - 2
        } else {
            verb - 1
        };
        return Some((before(t, aux, 4), phrase(t, next + 1, 5)));
    }
    let link = (next + 1..t.len().min(next + 7)).find(|&j| matches!(at(t, j), "with" | "for"))?;
    let old = t[next..link].to_vec();
    if old.iter().any(|w| listed(BOUNDARY, w)) {
        return None;
    }
    Some((old, phrase(t, link + 1, 5)))
}

/// "X is deprecated in favour of Y", "dropped X in favor of Y".
fn in_favour_of(t: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let fav = t.windows(3).position(|w| {
        w[0] == "in" && matches!(w[1].as_str(), "favour" | "favor") && w[2] == "of"
    })?;
    let new = phrase(t, fav + 3, 5);
    let verb = t[..fav].iter().rposition(|w| {
        matches!(
            w.as_str(),
            "deprecated" | "retired" | "dropped" | "removed" | "abandoned" | "ditched"
        )
    })?;
    let old = if verb + 1 < fav {
        t[verb + 1..fav].to_vec()
    } else {
        let aux = (verb > 0 && matches!(at(t, verb - 1), "is" | "was" | "are" | "were" | "been"))
            .then(|| verb - 1)?;
        before(t, aux, 4)
    };
    Some((old, new))
}

/// "Y instead of X", "Y rather than X": the new is what the verb took just before.
fn instead_of(t: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let cue = t.windows(2).position(|w| {
        (w[0] == "instead" && w[1] == "of") || (w[0] == "rather" && w[1] == "than")
    })?;
    let old = phrase(t, cue + 2, 4);
    let new: Vec<String> = t[..cue]
        .iter()
        .rev()
        .take_while(|w| !super::words::filler(w))
        .take(3)
        .cloned()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    Some((old, new))
}

/// "uv, not Poetry": a comma, "not", and a short name ending its clause.
fn comma_not(lower: &str) -> Option<(Vec<String>, Vec<String>)> {
    let at = lower.find(", not ")?;
    let new = tokens(&lower[..at]);
    let tail = &lower[at + ", not ".len()..];
    let old = tokens(tail.split([',', ';', ')', '.']).next().unwrap_or(""));
    if old.is_empty() || old.len() > 4 {
        return None;
    }
    let new = new[new.len().saturating_sub(3)..].to_vec();
    Some((old, new))
}

/// "X no longer V Y", "stopped V-ing Y", "X doesn't V Y anymore", "X is not V-ed anymore":
/// the clause's content stems up to its end or a boundary past the verb's object.
fn stopped(t: &[String]) -> Option<Vec<String>> {
    let (start, skip) = if let Some(i) = t.windows(2).position(|w| w[0] == "no" && w[1] == "longer")
    {
        (i, 2)
    } else if let Some(i) = t.iter().position(|w| w == "stopped").filter(|&i| {
        // "We stopped using X", "Stopped caching X": a choice. "The worker stopped processing
        // jobs when ..." is an incident, not a decision.
        (i == 0 || matches!(at(t, i - 1), "we" | "they" | "i" | "team"))
            && t.get(i + 1).is_some_and(|w| w.ends_with("ing"))
    }) {
        (i, 1)
    } else {
        let end = t
            .iter()
            .position(|w| w == "anymore" || w == "any-more")
            .or_else(|| t.windows(2).position(|w| w[0] == "any" && w[1] == "more"))?;
        let neg = t[..end].iter().position(|w| {
            matches!(
                w.as_str(),
                "don't" | "doesn't" | "not" | "isn't" | "aren't" | "won't" | "dont" | "doesnt"
            )
        })?;
        let subject = before(t, neg, 4);
        let mut what = subject;
        what.extend(t[neg + 1..end].iter().cloned());
        return Some(content(&what.join(" ")));
    };
    let mut what = before(t, start, 4);
    // The verb, then its object up to the next clause.
    what.extend(
        t.iter()
            .skip(start + skip)
            .take_while(|w| !listed(STOP_BOUNDARY, w))
            .take(5)
            .cloned(),
    );
    Some(content(&what.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replacement(s: &str) -> Option<(Vec<String>, Vec<String>)> {
        cues(s).into_iter().find_map(|c| match c {
            Cue::Replaced { old, new, .. } => Some((old, new)),
            Cue::Stopped { .. } => None,
        })
    }

    fn pair(old: &[&str], new: &[&str]) -> Option<(Vec<String>, Vec<String>)> {
        Some((
            old.iter().map(|s| (*s).to_owned()).collect(),
            new.iter().map(|s| (*s).to_owned()).collect(),
        ))
    }

    #[test]
    fn replacements_name_the_old_and_the_new() {
        assert_eq!(
            replacement("We switched the web app deploy from npm to pnpm."),
            pair(&["npm"], &["pnpm"])
        );
        assert_eq!(
            replacement("Replaced Jest with Vitest for all unit tests."),
            pair(&["jest"], &["vitest"])
        );
        assert_eq!(
            replacement("Redshift was swapped out for Snowflake."),
            pair(&["redshift"], &["snowflak"])
        );
        assert_eq!(
            replacement("`settings.yaml` is deprecated in favour of `config.toml`"),
            pair(&["settings.yaml"], &["config.toml"])
        );
        assert_eq!(
            replacement("Sessions are kept in signed cookies instead of Redis."),
            pair(&["redis"], &["sign", "cooky"])
        );
        assert_eq!(
            replacement("Use Vector, not Filebeat, to ship logs."),
            pair(&["filebeat"], &["vector"])
        );
    }

    #[test]
    fn stops_name_what_no_longer_holds() {
        assert_eq!(
            cues("We no longer deploy on Fridays."),
            [Cue::Stopped {
                what: vec!["deploy".into(), "friday".into()]
            }]
        );
        assert_eq!(
            cues("Stopped using Redis for sessions."),
            [Cue::Stopped {
                what: vec!["redis".into(), "session".into()]
            }]
        );
    }

    #[test]
    fn a_change_only_considered_is_no_cue() {
        for s in [
            "We might switch from npm to pnpm.",
            "Should we move from Fly to AWS?",
            "Plan: migrate the queue from RabbitMQ to SQS next quarter.",
            "Don't replace Jest with Vitest yet.",
            "If the API no longer needs a key, drop the header.",
        ] {
            assert_eq!(cues(s), [], "{s}");
        }
    }
}
