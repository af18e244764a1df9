//! `aletheia model fetch`: download the local embedding model that semantic search uses.

use clap::{Args, Subcommand};
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

#[cfg(feature = "semantic")]
pub fn run(cmd: ModelCommand, json: bool) -> anyhow::Result<()> {
    use super::print;
    use crate::config::Paths;
    use crate::embed::fetch;
    use std::io::IsTerminal;
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
                print::json(&serde_json::json!({
                    "dir": got.dir,
                    "downloaded": got.downloaded,
                    "already_present": got.already_present,
                    "bytes": got.bytes,
                }))?;
                return Ok(());
            }
            let mut out = print::Printer::stdout();
            for f in &got.downloaded {
                out.line(&format!("downloaded {f}"))?;
            }
            for f in &got.already_present {
                out.line(&format!("already present {f}"))?;
            }
            out.line(&format!(
                "The model is in {}. Run `aletheia index` to give your memories vectors.",
                got.dir.display()
            ))?;
            Ok(out.flush()?)
        }
    }
}

/// A build without the model: a model to fetch would be of no use to it.
#[cfg(not(feature = "semantic"))]
pub fn run(_cmd: ModelCommand, _json: bool) -> anyhow::Result<()> {
    Err(crate::features::NotBuilt::SEMANTIC.into())
}
