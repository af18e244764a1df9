//! `aletheia observations ID...`: the full record of memories by id.

use clap::Args;

#[derive(Debug, Args)]
pub struct ObservationsArgs {
    /// Memory ids from search or timeline; unknown ids are skipped.
    #[arg(required = true)]
    pub ids: Vec<i64>,
}

pub fn run(args: ObservationsArgs) -> anyhow::Result<()> {
    let store = super::open_store()?;
    match crate::recall::observations::render(&store, &args.ids)? {
        Some(text) => println!("{text}"),
        None => println!("No memories with those ids."),
    }
    Ok(())
}
