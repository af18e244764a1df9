//! Supersession's precision and recall on labelled pairs of memories (`fixtures/supersession/`).
//! Each pair is an older and a newer memory of one project, labelled with whether the newer
//! replaces the older; half of each set are pairs that look alike and are both true. A wrong
//! supersession hides a true memory, so precision is what is guarded; recall is printed beside
//! it. Set `ALETHEIA_SUPERSESSION_REPORT` to a folder to get a JSON summary per set
//! (`<set>.json`), which `scripts/bench` reports.
//!
//! - `pairs.jsonl`: the set the rules were developed against.
//! - `heldout.jsonl`: written apart from the rules; its pairs are never printed or read. First
//!   measured at precision 0.968 (30 of 31), recall 0.300. A review then found wrong links the
//!   sets did not hold (another part of the project named by a word the older lacks, plans,
//!   incidents), and the rules were made stricter; it now measures 0.944 (17 of 18), recall
//!   0.170: one wrong pair, below the goal, which this test guards as a floor.
//! - `heldout2.jsonl`: written after that change, by someone who read neither the rules nor the
//!   other sets, and measured with the rules as they are: the figure for unseen pairs.

use aletheia::supersession::judge;
use serde::Deserialize;
use std::path::Path;

/// The goal.
const MIN_PRECISION: f64 = 0.95;
/// Below this the rules would be safe and useless.
const MIN_RECALL: f64 = 0.25;

#[derive(Deserialize)]
struct Pair {
    id: String,
    category: String,
    older: String,
    newer: String,
    supersedes: bool,
}

struct Score {
    precision: f64,
    recall: f64,
}

/// Judge every pair of `set`, print the figures and each mistake, and write the report.
fn score(set: &str) -> Score {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/supersession")
        .join(format!("{set}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap();
    let pairs: Vec<Pair> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The held-out set's mistakes are not printed: reading them would be tuning to it.
    let show = set == "pairs";
    let (mut tp, mut fp, mut fn_) = (0usize, 0usize, 0usize);
    for p in &pairs {
        let said = judge(&p.older, &p.newer);
        match (said, p.supersedes) {
            (Some(_), true) => tp += 1,
            (Some(cause), false) => {
                fp += 1;
                if show {
                    println!(
                        "{set} {} ({}) wrongly {cause:?}: {:?} / {:?}",
                        p.id, p.category, p.older, p.newer
                    );
                }
            }
            (None, true) => {
                fn_ += 1;
                if show {
                    println!("{set} {} ({}) missed", p.id, p.category);
                }
            }
            (None, false) => {}
        }
    }
    let precision = if tp + fp == 0 {
        1.0
    } else {
        tp as f64 / (tp + fp) as f64
    };
    let recall = tp as f64 / (tp + fn_).max(1) as f64;
    println!(
        "{set}: {} pairs, {} replacing; said {}; right {tp}; precision {precision:.3}, recall {recall:.3}",
        pairs.len(),
        tp + fn_,
        tp + fp
    );
    if let Some(dir) = std::env::var_os("ALETHEIA_SUPERSESSION_REPORT") {
        let report = serde_json::json!({
            "pairs": pairs.len(),
            "replacing": tp + fn_,
            "said": tp + fp,
            "correct": tp,
            "precision": precision,
            "recall": recall,
        });
        std::fs::write(
            Path::new(&dir).join(format!("{set}.json")),
            report.to_string(),
        )
        .unwrap();
    }
    Score { precision, recall }
}

fn check(set: &str) {
    floor(set, MIN_PRECISION, MIN_RECALL);
}

/// `set`'s precision and recall are at least these.
fn floor(set: &str, min_precision: f64, min_recall: f64) {
    let Score { precision, recall } = score(set);
    assert!(
        precision >= min_precision,
        "{set}: precision {precision:.3} is below {min_precision}: see the wrong pairs above"
    );
    assert!(
        recall >= min_recall,
        "{set}: recall {recall:.3} is below {min_recall}: the rules miss most replacements"
    );
}

#[test]
fn supersession_is_precise_on_its_development_pairs() {
    check("pairs");
}

/// Its measure (0.944, 0.170) is below the goal; this keeps it from falling further.
#[test]
fn supersession_on_the_first_held_out_set_keeps_its_measure() {
    floor("heldout", 0.94, 0.15);
}

#[test]
fn supersession_is_precise_on_a_second_held_out_set() {
    check("heldout2");
}
