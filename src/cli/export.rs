//! `aletheia export`: every memory as JSONL on stdout, the shape `import` reads, a page of the
//! `export` operation at a time.

use crate::ops::transfer::Export;
use clap::Args;
use std::io::Write;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Only this project.
    #[arg(long)]
    pub project: Option<String>,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let mut edge = super::Edge::open(super::caller(None))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut after = None;
    loop {
        let page = edge.call(Export {
            project: args.project.clone(),
            after,
        })?;
        for r in &page.records {
            let written = serde_json::to_writer(&mut out, r)
                .map_err(std::io::Error::from)
                .and_then(|()| out.write_all(b"\n"));
            match written {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                other => other?,
            }
        }
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
