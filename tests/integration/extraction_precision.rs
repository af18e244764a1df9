//! The rule extractor's precision, measured on the labelled sets in `fixtures/extraction/`:
//! `sentences.jsonl`, the set its rules were developed against; and `heldout.jsonl`,
//! `heldout2.jsonl` and `heldout3.jsonl`, each written apart from the rules and measured once
//! unseen (precision 0.688, then 0.891, then 0.894), whose misses then led to general rules, so
//! they now guard those rules. The first two brought passing states, measurements, people,
//! examples, joined clauses and what may follow "is"; the third brought the plural forms a
//! predicate may take, checks that a fix works, bare states and places after "is", definitions
//! of a bare name, arrangements bounded by releases, sentences that lean on another
//! ("instead"), labelled lines and notes read a line at a time. The figure for new text comes
//! from a set written after the last change to the rules and never tuned to.
//!
//! A wrong fact is recalled into later sessions and trusted there, so precision is what this
//! test guards. It also demands that at least half of the labelled facts are kept, because an
//! extractor that keeps nothing is safe and useless. The figures and every false positive are
//! printed (`--nocapture`); set `ALETHEIA_EXTRACTION_REPORT` to a folder to get a JSON summary
//! per set (`<set>.json`).

use std::path::Path;

use aletheia::compress::Candidate;
use aletheia::compress::rules::extract;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde::Deserialize;

const MIN_PRECISION: f64 = 0.95;
const MIN_RECALL: f64 = 0.50;

#[derive(Deserialize)]
struct Item {
    id: String,
    category: String,
    text: String,
    facts: Vec<Label>,
}

#[derive(Deserialize)]
struct Label {
    subject: String,
    predicate: String,
    object: String,
    valid_from: Option<String>,
}

/// The fixture's matching rule: case, backticks, a leading article, trailing punctuation and
/// runs of whitespace do not count.
fn normalize(s: &str) -> String {
    let lower = s.replace('`', "").to_lowercase();
    let collapsed = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = collapsed.trim_end_matches(['.', ',', ';', ':', '!', '?']);
    ["the ", "a ", "an "]
        .iter()
        .find_map(|a| trimmed.strip_prefix(a))
        .unwrap_or(trimmed)
        .to_string()
}

fn day_ms(date: &str) -> i64 {
    let date: Date = date.parse().expect("a YYYY-MM-DD valid_from");
    date.to_zoned_datetime(TimeZone::UTC)
        .expect("a representable day")
        .timestamp()
        .as_millisecond()
}

fn matches(fact: &Candidate, label: &Label) -> bool {
    normalize(&fact.subject) == normalize(&label.subject)
        && normalize(&fact.predicate) == normalize(&label.predicate)
        && normalize(&fact.object) == normalize(&label.object)
        && fact.valid_from == label.valid_from.as_deref().map(day_ms)
}

fn show(fact: &Candidate) -> String {
    let date = fact
        .valid_from
        .map(|ms| format!(" @{ms}"))
        .unwrap_or_default();
    format!(
        "{} | {} | {}{date}",
        fact.subject, fact.predicate, fact.object
    )
}

/// How the extractor did on one labelled set.
struct Score {
    precision: f64,
    recall: f64,
}

/// Extract from every item of `set` (a file in `fixtures/extraction/`), print the figures, the
/// false positives and the facts not kept, and write the JSON summary when asked.
fn score(set: &str) -> Score {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/extraction")
        .join(format!("{set}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("the labelled set exists");
    let items: Vec<Item> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(n, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", n + 1)))
        .collect();
    let (mut extracted, mut correct, mut labelled) = (0, 0, 0);
    let mut false_positives = Vec::new();
    let mut missed = Vec::new();
    for item in &items {
        let facts = extract(&item.text);
        labelled += item.facts.len();
        extracted += facts.len();
        // Each label can be matched once, so a fact extracted twice counts once.
        let mut used = vec![false; item.facts.len()];
        for fact in &facts {
            let hit = (0..item.facts.len()).find(|&i| !used[i] && matches(fact, &item.facts[i]));
            match hit {
                Some(i) => {
                    used[i] = true;
                    correct += 1;
                }
                None => false_positives.push(format!(
                    "{} [{}] {:?}\n    got: {}",
                    item.id,
                    item.category,
                    item.text,
                    show(fact)
                )),
            }
        }
        for (label, _) in item.facts.iter().zip(&used).filter(|(_, u)| !**u) {
            missed.push(format!(
                "{} {:?}\n    want: {} | {} | {}",
                item.id, item.text, label.subject, label.predicate, label.object
            ));
        }
    }

    let precision = if extracted == 0 {
        1.0
    } else {
        correct as f64 / extracted as f64
    };
    let recall = if labelled == 0 {
        0.0
    } else {
        correct as f64 / labelled as f64
    };
    let traps = items.iter().filter(|i| i.facts.is_empty()).count();
    println!(
        "rule extraction on {set}: {} items ({traps} traps), {labelled} labelled facts, \
         {extracted} extracted, {correct} correct",
        items.len()
    );
    println!("precision {precision:.3}, kept {recall:.3}");
    if !false_positives.is_empty() {
        println!("false positives:");
        for fp in &false_positives {
            println!("  {fp}");
        }
    }
    if !missed.is_empty() {
        println!("labelled facts not kept:");
        for m in &missed {
            println!("  {m}");
        }
    }

    if let Some(dir) = std::env::var_os("ALETHEIA_EXTRACTION_REPORT") {
        let report = Path::new(&dir).join(format!("{set}.json"));
        let summary = serde_json::json!({
            "items": items.len(),
            "traps": traps,
            "labelled_facts": labelled,
            "extracted": extracted,
            "correct": correct,
            "precision": precision,
            "recall": recall,
        });
        let body = serde_json::to_string_pretty(&summary).expect("a JSON summary");
        std::fs::write(&report, body + "\n").expect("the report path is writable");
    }

    Score { precision, recall }
}

fn check(set: &str) {
    let Score { precision, recall } = score(set);
    assert!(
        precision >= MIN_PRECISION,
        "{set}: precision {precision:.3} is below {MIN_PRECISION}: see the false positives above"
    );
    assert!(
        recall >= MIN_RECALL,
        "{set}: only {recall:.3} of labelled facts kept, below {MIN_RECALL}: the extractor is too quiet"
    );
}

#[test]
fn rule_extraction_is_precise_and_not_silent_on_its_development_set() {
    check("sentences");
}

#[test]
fn rule_extraction_is_precise_and_not_silent_on_held_out_text() {
    check("heldout");
}

#[test]
fn rule_extraction_is_precise_and_not_silent_on_a_second_held_out_set() {
    check("heldout2");
}

/// `heldout3.jsonl` was measured unseen at precision 0.894 (110 of 123), 0.917 of its facts
/// kept. Its misses led to general rules, each a class of sentence rather than its words: plural
/// "use", a check that a fix works ("without erroring", "correctly"), a particle or a file after
/// "is", a bare name defined by its kind, a release that bounds an arrangement, a trailing
/// "instead", a participle before a plural noun, a line under a label, a note read a line at a
/// time and a period after a plain word. It now guards them, like the sets before it.
#[test]
fn rule_extraction_is_precise_and_not_silent_on_a_third_held_out_set() {
    check("heldout3");
}

/// `heldout4.jsonl` was written after the rules above, by someone who did not read them, and is
/// never used to tune them: its figure is the one for text the rules have not seen, and the
/// goal (0.95) is measured here.
#[test]
fn rule_extraction_is_precise_and_not_silent_on_unseen_text() {
    check("heldout4");
}
