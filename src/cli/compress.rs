//! `aletheia compress`: drain the compression queue by hand, or keep a worker running with
//! `--daemon` until SIGINT or SIGTERM; `--status` shows the queue.
//!
//! This is the command line's edge for compression: the providers, the caps and the call log
//! are read from the user's environment here, and the `compress` operation runs the jobs. A
//! manual drain waits out the retries of failing jobs, so it ends with every job done or
//! failed; the daemon ticks every two seconds. On a signal the job in hand is released at the
//! next window (not counted as an attempt), so nothing is lost.

use super::{Edge, print};
use crate::compress::Extraction;
use crate::compress::worker::{self, Ended, JobEnd};
use crate::ops::compress::{Compress, Compressed, Jobs};
use clap::Args;
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::Ordering;

#[derive(Debug, Args)]
pub struct CompressArgs {
    /// Also compress this project's own notes (those saved outside a session).
    #[arg(long)]
    pub project: Option<String>,
    /// Keep a worker running (a tick every 2 s) until Ctrl-C, SIGINT or SIGTERM.
    #[arg(long, conflicts_with = "status")]
    pub daemon: bool,
    /// Show the queue and the newest jobs instead.
    #[arg(long)]
    pub status: bool,
}

pub fn run(args: CompressArgs, json: bool) -> anyhow::Result<()> {
    let mut edge = Edge::open(super::caller(None))?;
    if args.status {
        let out = edge.call(Jobs { limit: None })?;
        return Ok(print::result(
            &out,
            edge.clock(),
            json,
            <Jobs as crate::text::Text>::text,
        )?);
    }
    let ex = Extraction::from_env(edge.paths()).map_err(anyhow::Error::msg)?;
    // The first signal stops at the next window (or call); a second one, while a slow call
    // runs, exits at once: the job's lease then simply expires and nothing half-done is kept.
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&ex.stop))?;
        signal_hook::flag::register(signal, Arc::clone(&ex.stop))?;
    }
    if let Some(notice) = ex.first_use_notice(edge.store())? {
        eprintln!("{notice}");
    }
    let stop = Arc::clone(&ex.stop);
    edge.set_extraction(ex);
    if args.daemon {
        daemon(&mut edge, args.project, json, &stop)
    } else {
        drain(&mut edge, args.project, json, &stop)
    }
}

/// Run every job, one at a time (for the progress bar), waiting out retries.
fn drain(
    edge: &mut Edge,
    project: Option<String>,
    json: bool,
    stop: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<()> {
    let counts = edge.call(Jobs { limit: Some(1) })?.counts;
    // Counts of rows, never negative; one that were would only shorten the progress bar.
    let total = u64::try_from(counts.queued_sessions + counts.pending + counts.running)
        .unwrap_or(0)
        + u64::from(project.is_some());
    let bar = (std::io::stderr().is_terminal() && !json && total > 0).then(|| {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} jobs {msg}")
                .expect("a valid template"),
        );
        bar
    });
    let mut ends: Vec<JobEnd> = Vec::new();
    let mut project = project;
    let mut last: Option<Compressed> = None;
    while !stop.load(Ordering::SeqCst) {
        let out = edge.call(Compress {
            project: project.take(),
            max_jobs: Some(1),
        })?;
        for end in &out.jobs {
            let line = job_line(end);
            match &bar {
                Some(bar) => {
                    if !matches!(end.ended, Ended::Retry { .. }) {
                        bar.inc(1);
                    }
                    bar.set_message(line.clone());
                    if !matches!(end.ended, Ended::Done { .. }) {
                        bar.println(line);
                    }
                }
                None if !json => eprintln!("{line}"),
                None => {}
            }
        }
        ends.extend(out.jobs.iter().cloned());
        let ran = !out.jobs.is_empty();
        let next_due = out.next_due;
        last = Some(out);
        if ran {
            continue;
        }
        // Nothing ran: wait for a retry to fall due (or for another worker's job on the same
        // session to end), at least a tick, or finish.
        match next_due {
            Some(at) => sleep_until(at.max(crate::time::now_ms() + tick_ms()), stop),
            None => break,
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let counts = match last {
        Some(l) => l.counts,
        None => edge.call(Jobs { limit: Some(1) })?.counts,
    };
    if json {
        print::json(
            &serde_json::json!({ "jobs": ends, "counts": counts, "stopped": stop.load(Ordering::SeqCst) }),
        )?;
    } else {
        print::line(&crate::text::compress_summary(&ends, &counts))?;
    }
    Ok(())
}

/// Tick every two seconds until a signal.
fn daemon(
    edge: &mut Edge,
    project: Option<String>,
    json: bool,
    stop: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<()> {
    eprintln!(
        "aletheia: compress worker on ({}), a tick every {} s; stop with Ctrl-C or SIGTERM.",
        edge.extraction_name(),
        worker::TICK.as_secs()
    );
    let mut project = project;
    while !stop.load(Ordering::SeqCst) {
        match edge.call(Compress {
            project: project.clone(),
            max_jobs: None,
        }) {
            Ok(out) => {
                project = None;
                for end in &out.jobs {
                    if json {
                        print::json(end)?;
                    } else {
                        eprintln!("{}", job_line(end));
                    }
                }
            }
            // A busy or briefly unreachable store is no reason to stop: try again next tick.
            Err(e) => eprintln!(
                "aletheia: compress: {e}; trying again in {} s",
                worker::TICK.as_secs()
            ),
        }
        sleep_until(crate::time::now_ms() + tick_ms(), stop);
    }
    eprintln!("aletheia: compress worker stopped.");
    Ok(())
}

/// The worker's tick in milliseconds, as the clock counts them.
fn tick_ms() -> i64 {
    i64::try_from(worker::TICK.as_millis()).unwrap_or(i64::MAX)
}

/// Sleep until `at` (epoch ms) or a signal, whichever comes first.
fn sleep_until(at: i64, stop: &std::sync::atomic::AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let left = at - crate::time::now_ms();
        if left <= 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(
            left.clamp(0, 100).unsigned_abs(),
        ));
    }
}

/// One line per job: `job 3 (shop, session abc): done: 2 windows, 1 new fact, summary written`.
fn job_line(end: &JobEnd) -> String {
    let scope = match &end.session_id {
        Some(s) => format!(
            "{}, session {}",
            end.project,
            crate::model::cut_chars(s, 12)
        ),
        None => format!("{}, project notes", end.project),
    };
    let what = match &end.ended {
        Ended::Done { report: r } => {
            let mut s = format!(
                "done: {} memories in {} window{}, {} new fact{}",
                r.sources,
                r.windows,
                if r.windows == 1 { "" } else { "s" },
                r.facts_new,
                if r.facts_new == 1 { "" } else { "s" }
            );
            if r.facts_known > 0 {
                s.push_str(&format!(", {} already known", r.facts_known));
            }
            if r.superseded > 0 {
                s.push_str(&format!(", {} replaced an older fact", r.superseded));
            }
            if r.for_review > 0 {
                s.push_str(&format!(
                    ", {} for review (aletheia review list)",
                    r.for_review
                ));
            }
            if r.merged > 0 {
                s.push_str(&format!(", {} near-duplicate(s) merged", r.merged));
            }
            if r.session_summary {
                s.push_str(", summary written");
            }
            if r.over_cap > 0 {
                s.push_str(&format!(
                    ", {} window(s) by rules: a provider cap was reached",
                    r.over_cap
                ));
            }
            s
        }
        Ended::Retry { error, retry_at } => format!(
            "attempt {} failed, retrying in {} s: {error}",
            end.attempt,
            ((retry_at - crate::time::now_ms()).max(0) + 999) / 1000
        ),
        Ended::Failed { error } => format!("failed after {} attempts: {error}", end.attempt),
        Ended::Released => "released: the worker is stopping".into(),
        Ended::Folded => {
            "folded into the session's pending job, which reads what this one would have".into()
        }
        Ended::LostLease => "taken over by another worker".into(),
    };
    format!("job {} ({scope}): {what}", end.job)
}
