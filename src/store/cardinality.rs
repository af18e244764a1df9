//! Whether a fact's predicate holds one value at a time or several: "the shop runs on Fly" is
//! replaced by "the shop runs on AWS", but "the shop uses SQLite" is not replaced by "the shop
//! uses Redis" (a service uses both). Only a single-valued predicate closes an older fact with
//! another object; facts of a multi-valued one stand side by side.
//!
//! A predicate is multi-valued when it is one of the verbs of using and relating that take many
//! objects (alone or with its preposition: "uses", "depends on", "is used by"). Every other
//! predicate is single-valued: linking verbs, placements and schedules ("is", "runs on",
//! "stores orders in", "runs every night", "defaults to", "is deployed on"), "has" and "keeps"
//! (a TTL, a count), and the attribute names models give ("ttl", "backend", "version"). A new
//! version of the same thing replaces the old even for a multi-valued one ([`versioned_name`]).

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
];

/// The same verbs as a plural subject takes them ("the services use"). These are nouns as
/// often ("use case", "store id"), so they count only alone or before a preposition.
const MULTI_PLURAL: &[&str] = &[
    "use",
    "support",
    "depend",
    "store",
    "require",
    "need",
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

/// The words a predicate is read from: lower case, underscores as spaces (models write
/// `depends_on`), with a leading "also" or "now" left out ("also uses").
fn words(predicate: &str) -> Vec<String> {
    predicate
        .replace('_', " ")
        .split_whitespace()
        .map(str::to_lowercase)
        .skip_while(|w| matches!(w.as_str(), "also" | "now" | "currently"))
        .collect()
}

/// The cardinality of `predicate`.
pub fn of(predicate: &str) -> Cardinality {
    let w = words(predicate);
    let Some(first) = w.first().map(String::as_str) else {
        return Cardinality::Single;
    };
    let second = w.get(1).map(String::as_str);
    let last = w.last().map(String::as_str).unwrap_or_default();
    let multi = match first {
        // "is used by", "are required by": the passive of a relation.
        "is" | "are" => w.len() > 2 && last == "by",
        // "stores orders in", "keeps sessions at": a place, one at a time.
        _ if w.len() > 2 && matches!(last, "in" | "at") => false,
        f if MULTI.contains(&f) => true,
        f if MULTI_PLURAL.contains(&f) => second.is_none_or(|s| PREPOSITIONS.contains(&s)),
        _ => false,
    };
    if multi {
        Cardinality::Multi
    } else {
        Cardinality::Single
    }
}

/// An object without its version numbers ("PostgreSQL 16" and "postgresql 15" are both
/// "postgresql"), when it has one: a multi-valued predicate's new version of the same thing
/// replaces the old ("uses Node 20" after "uses Node 18"). `None` when no word holds a digit.
pub fn versioned_name(object: &str) -> Option<String> {
    let words: Vec<String> = object.split_whitespace().map(str::to_lowercase).collect();
    let versioned = |w: &str| w.chars().any(|c| c.is_ascii_digit());
    if !words.iter().any(|w| versioned(w)) {
        return None;
    }
    let name: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !versioned(w))
        .collect();
    (!name.is_empty()).then(|| name.join(" "))
}

#[cfg(test)]
mod tests {
    use super::{Cardinality::*, of};

    #[test]
    fn a_version_number_is_not_part_of_the_name() {
        use super::versioned_name;
        assert_eq!(
            versioned_name("PostgreSQL 16").as_deref(),
            Some("postgresql")
        );
        assert_eq!(
            versioned_name("postgresql 15"),
            versioned_name("PostgreSQL 16")
        );
        assert_eq!(versioned_name("Node v20.1").as_deref(), Some("node"));
        assert_eq!(versioned_name("Redis"), None);
        assert_eq!(versioned_name("16"), None);
    }

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
            "runs",
            "runs at",
            "has",
            "keeps",
            "stores orders in",
            "is",
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
            "requires",
            "reads from",
            "depends_on",
            "is used by",
            "are required by",
            "writes to",
            "must",
            "depend on",
        ] {
            assert_eq!(of(p), Multi, "{p}");
        }
    }
}
