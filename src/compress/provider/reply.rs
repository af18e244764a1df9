//! Checking a model's reply to the facts-v1 prompt.
//!
//! A model's reply is untrusted input: it may wrap the object in a Markdown fence, chat around
//! it, drop a field, or invent a confidence of 7. The reply is accepted whole or not at all,
//! because one broken fact says the model did not follow the prompt, and the other facts in
//! the same reply are then no more trustworthy than the broken one.

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use serde_json::{Map, Value};

use super::ProviderError;
use crate::compress::Candidate;

/// More than this is not a model answering "at most 5" a little loosely, but one that ignored
/// the prompt.
const MAX_FACTS: usize = 20;

/// Longer than this is a sentence, not a subject, predicate or object.
const MAX_FIELD_CHARS: usize = 200;

/// The facts in `reply`, or why the reply is malformed (one line, naming the field).
pub fn parse(reply: &str) -> Result<Vec<Candidate>, ProviderError> {
    let malformed = |why: String| ProviderError::Malformed(why);
    // From the first `{` to the last `}`: this drops a ```json fence and any chat around the
    // object without parsing Markdown.
    let (Some(start), Some(end)) = (reply.find('{'), reply.rfind('}')) else {
        return Err(malformed("no JSON object in the reply".into()));
    };
    if end < start {
        return Err(malformed("no JSON object in the reply".into()));
    }
    let value: Value = serde_json::from_str(&reply[start..=end])
        .map_err(|e| malformed(format!("not valid JSON ({e})")))?;
    let facts = match value.get("facts") {
        None => return Err(malformed("\"facts\" is missing".into())),
        Some(Value::Array(facts)) => facts,
        Some(_) => return Err(malformed("\"facts\" is not an array".into())),
    };
    if facts.len() > MAX_FACTS {
        return Err(malformed(format!(
            "\"facts\" has {} entries; at most {MAX_FACTS} are allowed",
            facts.len()
        )));
    }
    facts
        .iter()
        .enumerate()
        .map(|(i, fact)| candidate(fact).map_err(|why| malformed(format!("fact {}: {why}", i + 1))))
        .collect()
}

fn candidate(fact: &Value) -> Result<Candidate, String> {
    let Value::Object(fact) = fact else {
        return Err("not an object".into());
    };
    Ok(Candidate {
        subject: text(fact, "subject")?,
        predicate: text(fact, "predicate")?,
        object: text(fact, "object")?,
        valid_from: valid_from(fact)?,
        confidence: confidence(fact)?,
    })
}

fn text(fact: &Map<String, Value>, field: &str) -> Result<String, String> {
    match fact.get(field) {
        None | Some(Value::Null) => Err(format!("\"{field}\" is missing")),
        Some(Value::String(s)) if s.trim().is_empty() => Err(format!("\"{field}\" is empty")),
        Some(Value::String(s)) if s.trim().chars().count() > MAX_FIELD_CHARS => Err(format!(
            "\"{field}\" is longer than {MAX_FIELD_CHARS} characters"
        )),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(_) => Err(format!("\"{field}\" is not a string")),
    }
}

fn confidence(fact: &Map<String, Value>) -> Result<f64, String> {
    match fact.get("confidence") {
        None | Some(Value::Null) => Err("\"confidence\" is missing".into()),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(c) if (0.0..=1.0).contains(&c) => Ok(c),
            _ => Err(format!("\"confidence\" is {n}, outside 0 to 1")),
        },
        Some(_) => Err("\"confidence\" is not a number".into()),
    }
}

/// Epoch milliseconds (UTC) of the date the fact became true, when the reply gives one.
fn valid_from(fact: &Map<String, Value>) -> Result<Option<i64>, String> {
    let s = match fact.get("valid_from") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.trim(),
        Some(_) => return Err("\"valid_from\" is not a string or null".into()),
    };
    // The prompt shows the field as "YYYY-MM-DD or null" inside quotes, so a model that means
    // "no date" sometimes answers with the string "null", or an empty one.
    if s.is_empty() || s.eq_ignore_ascii_case("null") {
        return Ok(None);
    }
    let bad = || format!("\"valid_from\" is `{s}`, not a YYYY-MM-DD date");
    // A bare date is the start of that day in UTC, as is a timestamp without an offset: the
    // reply has no zone to offer, and UTC is the store's.
    let ts = if s.len() == 10 {
        let date: Date = s.parse().map_err(|_| bad())?;
        TimeZone::UTC
            .to_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
            .map_err(|_| bad())?
    } else if let Ok(ts) = s.parse::<Timestamp>() {
        ts
    } else {
        let dt: DateTime = s.parse().map_err(|_| bad())?;
        TimeZone::UTC.to_timestamp(dt).map_err(|_| bad())?
    };
    Ok(Some(ts.as_millisecond()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    const GOOD: &str = r#"{"facts":[{"subject":"shop service","predicate":"stores orders in","object":"PostgreSQL 16","valid_from":"2026-03-01","confidence":0.8}]}"#;

    fn why(reply: &str) -> String {
        match parse(reply) {
            Err(ProviderError::Malformed(why)) => why,
            other => panic!("expected Malformed, got {other:?}"),
        }
    }

    #[test]
    fn a_good_reply_gives_its_facts() {
        assert_eq!(
            parse(GOOD).unwrap(),
            vec![Candidate {
                subject: "shop service".into(),
                predicate: "stores orders in".into(),
                object: "PostgreSQL 16".into(),
                valid_from: Some(1_772_323_200_000),
                confidence: 0.8,
            }]
        );
    }

    #[rstest]
    #[case::json_fence(format!("```json\n{GOOD}\n```"))]
    #[case::bare_fence(format!("```\n{GOOD}\n```"))]
    #[case::text_around(format!("Here are the facts:\n{GOOD}\nLet me know if you need more."))]
    #[case::pretty_printed(serde_json::to_string_pretty(&serde_json::from_str::<Value>(GOOD).unwrap()).unwrap())]
    fn the_object_is_found_inside_wrapping(#[case] reply: String) {
        assert_eq!(parse(&reply).unwrap(), parse(GOOD).unwrap());
    }

    #[test]
    fn no_facts_is_a_valid_answer() {
        assert_eq!(parse(r#"{"facts":[]}"#).unwrap(), vec![]);
    }

    #[test]
    fn text_fields_are_trimmed() {
        let facts = parse(
            r#"{"facts":[{"subject":" shop ","predicate":"uses\n","object":"\tRust","confidence":1}]}"#,
        )
        .unwrap();
        assert_eq!(
            (&*facts[0].subject, &*facts[0].predicate, &*facts[0].object),
            ("shop", "uses", "Rust")
        );
        assert_eq!(facts[0].confidence, 1.0);
    }

    #[rstest]
    #[case::no_object("I could not find any facts.", "no JSON object in the reply")]
    #[case::braces_reversed("} nothing {", "no JSON object in the reply")]
    #[case::truncated(r#"{"facts":[{"subject":"a"#, "no JSON object in the reply")]
    #[case::not_json("{facts: []}", "not valid JSON")]
    #[case::no_facts(r#"{"fact":[]}"#, r#""facts" is missing"#)]
    #[case::facts_not_array(r#"{"facts":{}}"#, r#""facts" is not an array"#)]
    #[case::fact_not_object(r#"{"facts":["shop uses Rust"]}"#, "fact 1: not an object")]
    fn the_reply_shape_is_checked(#[case] reply: &str, #[case] expected: &str) {
        assert!(why(reply).starts_with(expected), "{}", why(reply));
    }

    /// The second fact carries `field: value` (or lacks `field` when `value` is None); the
    /// first is good, and the whole reply must still be refused.
    fn with_second_fact(field: &str, value: Option<Value>) -> String {
        let mut fact = serde_json::json!({
            "subject": "shop", "predicate": "uses", "object": "Rust",
            "valid_from": null, "confidence": 0.7,
        });
        match value {
            Some(v) => fact[field] = v,
            None => {
                fact.as_object_mut().unwrap().remove(field);
            }
        }
        let good: Value = serde_json::from_str(GOOD).unwrap();
        serde_json::json!({"facts": [good["facts"][0].clone(), fact]}).to_string()
    }

    #[rstest]
    #[case::subject_missing("subject", None, r#"fact 2: "subject" is missing"#)]
    #[case::predicate_null("predicate", Some(Value::Null), r#"fact 2: "predicate" is missing"#)]
    #[case::object_missing("object", None, r#"fact 2: "object" is missing"#)]
    #[case::object_blank("object", Some("  ".into()), r#"fact 2: "object" is empty"#)]
    #[case::object_number("object", Some(5.into()), r#"fact 2: "object" is not a string"#)]
    #[case::subject_too_long(
        "subject",
        Some("x".repeat(201).into()),
        r#"fact 2: "subject" is longer than 200 characters"#
    )]
    #[case::confidence_missing("confidence", None, r#"fact 2: "confidence" is missing"#)]
    #[case::confidence_string(
        "confidence",
        Some("0.8".into()),
        r#"fact 2: "confidence" is not a number"#
    )]
    #[case::confidence_above_one(
        "confidence",
        Some(7.into()),
        r#"fact 2: "confidence" is 7, outside 0 to 1"#
    )]
    #[case::confidence_negative(
        "confidence",
        Some((-0.1).into()),
        r#"fact 2: "confidence" is -0.1, outside 0 to 1"#
    )]
    #[case::date_placeholder(
        "valid_from",
        Some("YYYY-MM-DD".into()),
        r#"fact 2: "valid_from" is `YYYY-MM-DD`, not a YYYY-MM-DD date"#
    )]
    #[case::date_impossible(
        "valid_from",
        Some("2026-02-30".into()),
        r#"fact 2: "valid_from" is `2026-02-30`, not a YYYY-MM-DD date"#
    )]
    #[case::date_prose(
        "valid_from",
        Some("last March".into()),
        r#"fact 2: "valid_from" is `last March`, not a YYYY-MM-DD date"#
    )]
    #[case::date_number(
        "valid_from",
        Some(20260301.into()),
        r#"fact 2: "valid_from" is not a string or null"#
    )]
    fn one_bad_fact_refuses_the_reply(
        #[case] field: &str,
        #[case] value: Option<Value>,
        #[case] expected: &str,
    ) {
        assert_eq!(why(&with_second_fact(field, value)), expected);
    }

    #[test]
    fn more_than_twenty_facts_is_refused() {
        let fact = r#"{"subject":"a","predicate":"b","object":"c","confidence":0.5}"#;
        let twenty = vec![fact; 20].join(",");
        assert_eq!(
            parse(&format!(r#"{{"facts":[{twenty}]}}"#)).unwrap().len(),
            20
        );
        assert_eq!(
            why(&format!(r#"{{"facts":[{twenty},{fact}]}}"#)),
            r#""facts" has 21 entries; at most 20 are allowed"#
        );
    }

    #[test]
    fn a_field_at_the_length_limit_is_kept() {
        let reply = with_second_fact("object", Some("é".repeat(200).into()));
        assert_eq!(parse(&reply).unwrap()[1].object.chars().count(), 200);
    }

    #[rstest]
    #[case::date("2026-03-01", Some(1_772_323_200_000))]
    #[case::utc_timestamp("2026-03-01T12:30:00Z", Some(1_772_368_200_000))]
    #[case::offset_timestamp("2026-03-01T14:30:00+02:00", Some(1_772_368_200_000))]
    #[case::fractional_seconds("2026-03-01T12:30:00.250Z", Some(1_772_368_200_250))]
    #[case::timestamp_without_offset("2026-03-01T12:30:00", Some(1_772_368_200_000))]
    #[case::before_1970("1969-12-31", Some(-86_400_000))]
    #[case::null_string("null", None)]
    #[case::empty_string("", None)]
    fn valid_from_becomes_epoch_ms_utc(#[case] given: &str, #[case] ms: Option<i64>) {
        let reply = with_second_fact("valid_from", Some(given.into()));
        assert_eq!(parse(&reply).unwrap()[1].valid_from, ms);
    }

    #[test]
    fn valid_from_may_be_null_or_absent() {
        assert_eq!(
            parse(&with_second_fact("valid_from", None)).unwrap()[1].valid_from,
            None
        );
        assert_eq!(
            parse(&with_second_fact("valid_from", Some(Value::Null))).unwrap()[1].valid_from,
            None
        );
    }
}
