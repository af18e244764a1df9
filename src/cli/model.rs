//! `aletheia model fetch`: download the local embedding model that semantic search uses.

use crate::config::Paths;
use crate::embed::fetch;
use clap::{Args, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download all-MiniLM-L6-v2 (about 90 MB) from its public home, checked by sha256.
    Fetch(FetchArgs),
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The folder to fill (default: ALETHEIA_MODEL_DIR, else model/ in the data directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

pub fn run(cmd: ModelCommand, json: bool) -> anyhow::Result<()> {
    match cmd {
        ModelCommand::Fetch(a) => {
            let dir = a.dir.unwrap_or_else(|| Paths::from_env().model_dir());
            let url = std::env::var("ALETHEIA_MODEL_URL")
                .ok()
                .filter(|u| !u.trim().is_empty())
                .unwrap_or_else(|| fetch::DEFAULT_URL.to_owned());
            let progress = std::io::stderr().is_terminal() && !json;
            let got = fetch::fetch(&dir, &url, progress)?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({
                        "dir": got.dir,
                        "downloaded": got.downloaded,
                        "already_present": got.already_present,
                        "bytes": got.bytes,
                    })
                );
                return Ok(());
            }
            for f in &got.downloaded {
                println!("downloaded {f}");
            }
            for f in &got.already_present {
                println!("already present {f}");
            }
            println!(
                "The model is in {}. Run `aletheia index` to give your memories vectors.",
                got.dir.display()
            );
            Ok(())
        }
    }
}
