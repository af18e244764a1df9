//! `aletheia import [FILE]`: memories from JSONL (an export, or another tool's), through the
//! `import` operation a batch at a time, so a file of any size moves in bounded memory and a
//! batch is one transaction.

use crate::ops::policy::IMPORT_BATCH;
use crate::ops::transfer::{Import, Imported, Record};
use crate::text::Text;
use clap::Args;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A JSONL file; standard input when absent or `-`.
    pub file: Option<PathBuf>,
}

pub fn run(args: ImportArgs, json: bool) -> anyhow::Result<()> {
    let input: Box<dyn Read> = match &args.file {
        Some(p) if p.as_os_str() != "-" => Box::new(
            std::fs::File::open(p)
                .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", p.display()))?,
        ),
        _ => Box::new(std::io::stdin()),
    };
    let mut edge = super::Edge::open(super::caller(None))?;
    let clock = edge.clock().clone();
    let mut total = Imported::default();
    let mut bad = Vec::new();
    let mut batch: Vec<Record> = Vec::with_capacity(IMPORT_BATCH);
    let mut flush = |batch: &mut Vec<Record>| -> anyhow::Result<()> {
        let done = edge.call(Import {
            records: std::mem::take(batch),
        })?;
        total.new += done.new;
        total.duplicates += done.duplicates;
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
        // A record whose date cannot be read is skipped like a malformed line, so one bad line
        // never refuses its whole batch.
        let record = serde_json::from_str::<Record>(&text)
            .map_err(|e| e.to_string())
            .and_then(|r| match r.created_at(&clock) {
                Ok(_) => Ok(r),
                Err(e) => Err(e.to_string()),
            });
        match record {
            Ok(r) => {
                batch.push(r);
                if batch.len() >= IMPORT_BATCH {
                    flush(&mut batch)?;
                }
            }
            Err(e) => bad.push(format!("line {number}: {e}")),
        }
    }
    flush(&mut batch)?;
    super::print::result(&total, edge.clock(), json, Import::text)?;
    if !bad.is_empty() {
        anyhow::bail!(
            "{} line(s) are not memory JSON and were skipped (first: {}); each line must be one object like an `aletheia export` line.",
            bad.len(),
            bad[0]
        );
    }
    Ok(())
}
