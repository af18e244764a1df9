//! `aletheia index`: give every memory without a vector one, with the local embedding model.
//!
//! A progress bar on a terminal, a line per thousand memories otherwise. Each batch is committed
//! as it is done, so an interrupted run resumes where it stopped.

use crate::config::Paths;
use crate::embed::{index, model::Embedder};
use crate::store::{OpenOptions, Store};
use std::io::IsTerminal;

pub fn run(json: bool) -> anyhow::Result<()> {
    let paths = Paths::from_env();
    let dir = paths.model_dir();
    let embedder = Embedder::load(&dir)?;
    let mut store = Store::open(&paths, OpenOptions::INTERACTIVE)?;
    let missing = store.count_without_vector(embedder.name())?;
    let started = std::time::Instant::now();
    let bar = (std::io::stderr().is_terminal() && !json && missing > 0).then(|| {
        let bar = indicatif::ProgressBar::new(missing);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} memories ({per_sec}, {eta} left)",
            )
            .expect("a valid template"),
        );
        bar
    });
    let mut reported = 0;
    let done = index::index_missing(&mut store, &embedder, &mut 0, |n| {
        if let Some(bar) = &bar {
            bar.inc(n as u64);
        } else if !json {
            reported += n;
            if reported >= 1000 {
                eprintln!("aletheia: indexed {reported} more memories");
                reported = 0;
            }
        }
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let seconds = started.elapsed().as_secs_f64();
    if json {
        super::print::json(&serde_json::json!({
            "indexed": done,
            "seconds": seconds,
            "model": embedder.name(),
            "model_dir": dir,
        }))?;
    } else if done == 0 {
        super::print::line("Every memory already has a vector.")?;
    } else {
        super::print::line(&format!(
            "Indexed {done} memories in {seconds:.1} s ({:.0} a second).",
            done as f64 / seconds.max(1e-9)
        ))?;
    }
    Ok(())
}
