//! Whether a fact's predicate holds one value at a time or several: "the shop runs on Fly" is
//! replaced by "the shop runs on AWS", but "the shop uses SQLite" is not replaced by "the shop
//! uses Redis" (a service uses both). Only a single-valued predicate closes an older fact with
//! another object; facts of a multi-valued one stand side by side.
//!
//! A predicate is multi-valued when it is one of the verbs of having, using and relating that
//! take many objects (alone or with its preposition: "depends on", "stores orders in"). Every
//! other predicate is single-valued: linking verbs and placements ("is", "runs on", "defaults
//! to", "is deployed on") and the attribute names models give ("ttl", "backend", "version").

/// How many values a predicate holds at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cardinality {
    /// One: a new object replaces the old.
    Single,
    /// Many: a new object is one more.
    Multi,
}

/// The verbs whose facts stand side by side, as a singular subject takes them ("the shop
/// uses"), and "must".
const MULTI: &[&str] = &[
    "uses",
    "supports",
    "depends",
    "stores",
    "requires",
    "needs",
    "has",
    "keeps",
    "caches",
    "calls",
    "sends",
    "owns",
    "contains",
    "handles",
    "exposes",
    "serves",
    "pins",
    "expects",
    "reads",
    "writes",
    "must",
    "includes",
    "imports",
    "integrates",
    "talks",
    "connects",
    "publishes",
    "consumes",
    "emits",
    "accepts",
    "provides",
    "used",
];

/// The same verbs as a plural subject takes them ("the services use"). These are nouns as
/// often ("cache ttl", "use case"), so they count only alone or before a preposition.
const MULTI_PLURAL: &[&str] = &[
    "use",
    "support",
    "depend",
    "store",
    "require",
    "need",
    "have",
    "keep",
    "cache",
    "call",
    "send",
    "own",
    "contain",
    "handle",
    "expose",
    "serve",
    "pin",
    "expect",
    "read",
    "write",
    "include",
    "import",
    "integrate",
    "talk",
    "connect",
    "publish",
    "consume",
    "emit",
    "accept",
    "provide",
];

const PREPOSITIONS: &[&str] = &["on", "to", "from", "in", "with", "into", "for", "by", "at"];

/// The words a predicate is read from: lower case, with a leading "also" or "now" left out
/// ("also uses", "now depends on").
fn words(predicate: &str) -> impl Iterator<Item = String> + '_ {
    predicate
        .split_whitespace()
        .map(str::to_lowercase)
        .skip_while(|w| matches!(w.as_str(), "also" | "now" | "currently"))
}

/// The cardinality of `predicate`.
pub fn of(predicate: &str) -> Cardinality {
    let mut w = words(predicate);
    let Some(first) = w.next() else {
        return Cardinality::Single;
    };
    let second = w.next();
    let multi = match first.as_str() {
        // "runs on" places a thing (one place at a time); "runs" alone runs many jobs.
        "runs" | "run" => second.is_none(),
        f if MULTI.contains(&f) => true,
        f if MULTI_PLURAL.contains(&f) => {
            second.as_deref().is_none_or(|s| PREPOSITIONS.contains(&s))
        }
        _ => false,
    };
    if multi {
        Cardinality::Multi
    } else {
        Cardinality::Single
    }
}

#[cfg(test)]
mod tests {
    use super::{Cardinality::*, of};

    #[test]
    fn placements_and_attributes_hold_one_value_and_relations_many() {
        for p in [
            "is",
            "are",
            "runs on",
            "defaults to",
            "is deployed on",
            "listens on",
            "ttl",
            "TTL",
            "backend",
            "cache ttl",
            "use case",
            "is written in",
        ] {
            assert_eq!(of(p), Single, "{p}");
        }
        for p in [
            "uses",
            "use",
            "Uses",
            "also uses",
            "supports",
            "depends on",
            "stores",
            "stores orders in",
            "requires",
            "has",
            "runs",
            "reads from",
            "writes to",
            "must",
            "depend on",
        ] {
            assert_eq!(of(p), Multi, "{p}");
        }
    }
}
