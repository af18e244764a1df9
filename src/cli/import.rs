//! `aletheia import [FILE]`: memories from JSONL (an export, or another tool's), through the
//! store's redaction and dedupe, in batched transactions.

use super::export::Record;
use crate::model::{NewMemory, title_from_text};
use crate::redact::Redacted;
use crate::store::{insert_tx, touch_capture};
use clap::Args;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A JSONL file; standard input when absent or `-`.
    pub file: Option<PathBuf>,
}

/// Lines per transaction.
const BATCH: usize = 5000;

/// The longest text one imported memory keeps; the store holds memories, not files.
const TEXT_MAX: usize = 1 << 20;

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let input: Box<dyn Read> = match &args.file {
        Some(p) if p.as_os_str() != "-" => Box::new(
            std::fs::File::open(p)
                .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", p.display()))?,
        ),
        _ => Box::new(std::io::stdin()),
    };
    let redactor = super::redactor()?;
    let mut store = super::open_store()?;
    let (mut new, mut dup, mut bad) = (0usize, 0usize, Vec::new());
    let mut batch: Vec<(Redacted<NewMemory>, Option<String>, bool)> = Vec::with_capacity(BATCH);
    let mut flush =
        |batch: &mut Vec<(Redacted<NewMemory>, Option<String>, bool)>| -> anyhow::Result<()> {
            let (n, d) = store.write(|tx| {
                let (mut n, mut d) = (0, 0);
                for (m, uid, dismissed) in batch.iter() {
                    if insert_tx(tx, m, uid.as_deref(), *dismissed)?.new {
                        n += 1;
                    } else {
                        d += 1;
                    }
                }
                if let Some((m, _, _)) = batch.last() {
                    touch_capture(tx, &m.get().tool, m.get().created_at)?;
                }
                Ok((n, d))
            })?;
            new += n;
            dup += d;
            batch.clear();
            Ok(())
        };
    let mut reader = BufReader::with_capacity(1 << 20, input);
    let mut line = Vec::new();
    let mut number = 0;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        number += 1;
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(&text) {
            Ok(r) => {
                let title = r
                    .title
                    .filter(|t| !t.trim().is_empty())
                    .unwrap_or_else(|| title_from_text(&r.text, 100));
                let title = crate::model::cut_chars(&title, crate::model::TITLE_MAX_CHARS);
                let m = NewMemory {
                    project: r.project,
                    kind: r.kind,
                    mtype: r.mtype,
                    title,
                    text: crate::capture::template::cut(&r.text.replace('\0', ""), TEXT_MAX),
                    tool: r.tool,
                    session_id: r.session_id,
                    files: r.files,
                    pinned: r.pinned,
                    created_at: r.created_at,
                };
                batch.push((Redacted::memory(m, redactor), r.uid, r.dismissed));
                if batch.len() >= BATCH {
                    flush(&mut batch)?;
                }
            }
            Err(e) => bad.push(format!("line {number}: {e}")),
        }
    }
    flush(&mut batch)?;
    println!("Imported {new} memories ({dup} already present).");
    if !bad.is_empty() {
        anyhow::bail!(
            "{} line(s) are not memory JSON and were skipped (first: {}); each line must be one object like an `aletheia export` line.",
            bad.len(),
            bad[0]
        );
    }
    Ok(())
}
