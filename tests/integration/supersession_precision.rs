//! Supersession's precision and recall on labelled pairs of memories (`fixtures/supersession/`):
//! `pairs.jsonl`, the set the rules were developed against, and `heldout.jsonl`, written apart
//! from them and never used to tune them. Each pair is an older and a newer memory of one
//! project, labelled with whether the newer replaces the older; half of each set are pairs that
//! look alike and are both true. A wrong supersession hides a true memory, so precision is what
//! is guarded; recall is printed beside it. Set `ALETHEIA_SUPERSESSION_REPORT` to a folder to
//! get a JSON summary per set (`<set>.json`), which `scripts/bench` reports.

use aletheia::supersession::judge;
use serde::Deserialize;
use std::path::Path;

/// The goal on every set, the held-out one included.
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
    let show = set != "heldout";
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
    let Score { precision, recall } = score(set);
    assert!(
        precision >= MIN_PRECISION,
        "{set}: precision {precision:.3} is below {MIN_PRECISION}: see the wrong pairs above"
    );
    assert!(
        recall >= MIN_RECALL,
        "{set}: recall {recall:.3} is below {MIN_RECALL}: the rules miss most replacements"
    );
}

#[test]
fn supersession_is_precise_on_its_development_pairs() {
    check("pairs");
}

#[test]
fn supersession_is_precise_on_held_out_pairs() {
    check("heldout");
}
