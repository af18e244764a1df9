//! The memory model: kinds, types and the record that every write path builds.
//!
//! A `kind` says where a memory came from (a prompt, a tool event, a summary, a note the user
//! saved); a `type` says what it is about (a decision, a gotcha, ...). Both are closed sets, so
//! bad input is refused at the edge with the list of valid values. The other records the store
//! returns (facts, reviews, rules) live here too, so the store and recall share one definition.

mod fact;
mod rule;

pub use fact::{Fact, Review};
pub use rule::Rule;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Deserialize a closed set through its `FromStr`, so JSON input gets the same one-line error
/// as a command-line flag (`unknown type "idea": use one of ...`), and describe it in a JSON
/// Schema as a string enum.
#[macro_export]
macro_rules! serde_via_from_str {
    ($name:ty, [$($text:literal),+ $(,)?]) => {
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn inline_schema() -> bool {
                true
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": [$($text),+] })
            }
        }
    };
}

macro_rules! closed_set {
    ($(#[$doc:meta])* $name:ident, $what:literal, [$($variant:ident => $text:literal),+ $(,)?]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum $name { $($variant),+ }

        $crate::serde_via_from_str!($name, [$($text),+]);

        impl $name {
            /// Every value, in the order the documentation lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stored and printed spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s.trim().to_ascii_lowercase().as_str() {
                    $($text => Ok($name::$variant),)+
                    other => Err(format!(
                        "unknown {} \"{}\": use one of {}.",
                        $what,
                        other,
                        [$($text),+].join(", ")
                    )),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

closed_set!(
    /// Where a memory came from.
    Kind, "kind", [
        Prompt => "prompt",
        Event => "event",
        Observation => "observation",
        Summary => "summary",
        Note => "note",
    ]
);

closed_set!(
    /// What a memory is about.
    MemoryType, "type", [
        Decision => "decision",
        Gotcha => "gotcha",
        Bugfix => "bugfix",
        Feature => "feature",
        Refactor => "refactor",
        Change => "change",
        Discovery => "discovery",
        Note => "note",
    ]
);

/// A memory about to be written. Every write path builds one of these and hands it to the
/// store, which redacts it (see [`crate::redact::Redacted`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewMemory {
    pub project: String,
    pub kind: Kind,
    #[serde(rename = "type")]
    pub mtype: MemoryType,
    pub title: String,
    pub text: String,
    /// The coding tool it came from (stored, and written, as `tool`).
    #[serde(rename = "tool")]
    pub host: String,
    pub session_id: Option<String>,
    pub files: Vec<String>,
    pub pinned: bool,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// A stored memory as read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub id: i64,
    pub uid: String,
    pub project: String,
    pub kind: Kind,
    #[serde(rename = "type")]
    pub mtype: MemoryType,
    pub title: String,
    pub text: String,
    /// The coding tool it came from (stored, and written, as `tool`).
    #[serde(rename = "tool")]
    pub host: String,
    pub session_id: Option<String>,
    pub files: Vec<String>,
    pub pinned: bool,
    pub dismissed: bool,
    /// When it was said or done, in epoch milliseconds: for a memory back-filled from a
    /// transcript or imported, that time, not when it was stored (`inspect` shows both).
    /// Search's date filters and `as_of` apply to it.
    pub created_at: i64,
}

/// The longest title kept; longer titles are cut at a character boundary.
pub const TITLE_MAX_CHARS: usize = 400;

/// `s` cut to at most `max` characters, with `…` when something was cut.
pub fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((idx, _)) => {
            let mut out = s[..idx].trim_end().to_owned();
            out.push('…');
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_types_round_trip_and_refuse_unknown_values() {
        for k in Kind::ALL {
            assert_eq!(k.as_str().parse::<Kind>().unwrap(), *k);
        }
        for t in MemoryType::ALL {
            assert_eq!(t.as_str().parse::<MemoryType>().unwrap(), *t);
        }
        let err = "idea".parse::<MemoryType>().unwrap_err();
        assert!(err.contains("decision, gotcha"), "{err}");
        assert_eq!(
            " Decision ".parse::<MemoryType>().unwrap(),
            MemoryType::Decision
        );
    }

    #[test]
    fn long_titles_are_cut_at_a_character() {
        assert_eq!(cut_chars("abcdef", 3), "abc…");
        assert_eq!(cut_chars("ééé", 2), "éé…");
        assert_eq!(cut_chars("abc", 3), "abc");
    }
}
