//! Cutting a job's source memories into windows an extractor reads at once.
//!
//! A window holds at most `max_items` memories and `max_chars` characters (20 and 12,000 by
//! default): enough context for a model to see how statements relate, small enough that one
//! call stays cheap and a failed window costs little. A memory longer than a whole window is cut
//! into pieces at line or sentence ends, so no text is dropped and no sentence is split when it
//! can be helped.

/// One piece of a source memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub memory_id: i64,
    pub text: String,
}

/// The limits of one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_items: usize,
    pub max_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_items: 20,
            max_chars: 12_000,
        }
    }
}

/// Cut `sources` (memory id, text), in order, into windows within `limits`.
pub fn windows(sources: &[(i64, String)], limits: Limits) -> Vec<Vec<Piece>> {
    let max_items = limits.max_items.max(1);
    let max_chars = limits.max_chars.max(1);
    let mut out: Vec<Vec<Piece>> = Vec::new();
    let mut current: Vec<Piece> = Vec::new();
    let mut chars = 0;
    for (id, text) in sources {
        for part in split_long(text, max_chars) {
            let n = part.chars().count();
            if !current.is_empty() && (current.len() >= max_items || chars + n > max_chars) {
                out.push(std::mem::take(&mut current));
                chars = 0;
            }
            chars += n;
            current.push(Piece {
                memory_id: *id,
                text: part,
            });
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `text` in pieces of at most `max` characters, cut after the last newline, else the last
/// sentence end, else the last space in each piece; a run with none of them is cut hard.
fn split_long(text: &str, max: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut rest = text.trim();
    while rest.chars().count() > max {
        let hard = rest.char_indices().nth(max).map_or(rest.len(), |(i, _)| i);
        let head = &rest[..hard];
        let cut = head
            .rfind('\n')
            .or_else(|| head.rfind(". ").map(|i| i + 1))
            .or_else(|| head.rfind(' '))
            .filter(|&i| i > 0)
            .unwrap_or(hard);
        pieces.push(rest[..cut].trim().to_owned());
        rest = rest[cut..].trim_start();
    }
    if !rest.is_empty() {
        pieces.push(rest.to_owned());
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(ws: &[Vec<Piece>]) -> Vec<Vec<i64>> {
        ws.iter()
            .map(|w| w.iter().map(|p| p.memory_id).collect())
            .collect()
    }

    #[test]
    fn windows_close_at_the_item_limit() {
        let sources: Vec<(i64, String)> = (1..=45).map(|i| (i, format!("note {i}"))).collect();
        let ws = windows(&sources, Limits::default());
        assert_eq!(ws.iter().map(Vec::len).collect::<Vec<_>>(), vec![20, 20, 5]);
        assert_eq!(ws[2][0].memory_id, 41);
    }

    #[test]
    fn windows_close_at_the_character_limit() {
        let text = "x".repeat(5000);
        let sources: Vec<(i64, String)> = (1..=5).map(|i| (i, text.clone())).collect();
        let ws = windows(&sources, Limits::default());
        assert_eq!(ids(&ws), vec![vec![1, 2], vec![3, 4], vec![5]]);
        assert!(
            ws.iter()
                .all(|w| w.iter().map(|p| p.text.len()).sum::<usize>() <= 12_000)
        );
    }

    #[test]
    fn a_long_memory_is_cut_at_sentence_ends_and_nothing_is_lost() {
        let sentence = "The billing worker stores invoices in Postgres. ";
        let text = sentence.repeat(600); // about 29,000 characters
        let ws = windows(&[(7, text.clone())], Limits::default());
        assert_eq!(ws.len(), 3);
        for w in &ws {
            let piece = &w[0].text;
            assert!(piece.chars().count() <= 12_000);
            assert!(piece.ends_with("Postgres."), "cut mid-sentence: {piece:?}");
        }
        let joined: String = ws.iter().map(|w| w[0].text.clone() + " ").collect();
        assert_eq!(
            joined.split_whitespace().count(),
            text.split_whitespace().count()
        );
    }

    #[test]
    fn text_without_any_break_is_cut_hard_and_multibyte_safe() {
        let text = "é".repeat(25);
        let ws = windows(
            &[(1, text)],
            Limits {
                max_items: 20,
                max_chars: 10,
            },
        );
        let lens: Vec<usize> = ws.iter().map(|w| w[0].text.chars().count()).collect();
        assert_eq!(lens, vec![10, 10, 5]);
    }
}
