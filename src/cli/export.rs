//! `aletheia export`: every memory as JSONL on stdout, the shape `import` reads, a page of the
//! `export` operation at a time.

use crate::ops::transfer::Export;
use clap::Args;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Only this project.
    #[arg(long)]
    pub project: Option<String>,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let mut edge = super::Edge::open(super::caller(None))?;
    let mut out = super::print::Printer::stdout();
    let mut after = None;
    loop {
        let page = edge.call(Export {
            project: args.project.clone(),
            after,
        })?;
        for r in &page.records {
            out.json(r)?;
        }
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    Ok(out.flush()?)
}
