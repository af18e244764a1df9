//! `aletheia model fetch`: download the local models that semantic search uses.

use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download the sentence model ALETHEIA_MODEL names (all-MiniLM-L6-v2 unless set) and the
    /// re-ranker ALETHEIA_RERANKER names (ms-marco-MiniLM-L-12-v2 unless off), about 90 to 130 MB
    /// each, from their public home.
    Fetch(FetchArgs),
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The models folder to fill, one subfolder per model (default: ALETHEIA_MODEL_DIR, else
    /// model/ in the data directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

#[cfg(feature = "semantic")]
pub fn run(cmd: ModelCommand, json: bool) -> anyhow::Result<()> {
    use super::print;
    use crate::config::Paths;
    use crate::embed::{catalog, fetch};
    use std::io::IsTerminal;
    match cmd {
        ModelCommand::Fetch(a) => {
            let dir = a.dir.unwrap_or_else(|| Paths::from_env().model_dir());
            let mut wanted = vec![catalog::sentence_model().map_err(anyhow::Error::msg)?];
            wanted.extend(catalog::reranker().map_err(anyhow::Error::msg)?);
            // A mirror serves each model in a folder of its name.
            let mirror = std::env::var("ALETHEIA_MODEL_URL")
                .ok()
                .filter(|u| !u.trim().is_empty());
            let progress = std::io::stderr().is_terminal() && !json;
            let mut done = Vec::new();
            for spec in wanted {
                let url = match &mirror {
                    Some(base) => format!("{}/{}/", base.trim_end_matches('/'), spec.name),
                    None => spec.home.to_owned(),
                };
                let got = fetch::fetch(&catalog::folder(&dir, spec), spec, &url, progress)?;
                done.push((spec.name, got));
            }
            if json {
                let models: Vec<serde_json::Value> = done
                    .iter()
                    .map(|(name, got)| {
                        serde_json::json!({
                            "model": name,
                            "dir": got.dir,
                            "downloaded": got.downloaded,
                            "already_present": got.already_present,
                            "bytes": got.bytes,
                        })
                    })
                    .collect();
                print::json(&serde_json::json!({ "dir": dir, "models": models }))?;
                return Ok(());
            }
            let mut out = print::Printer::stdout();
            for (name, got) in &done {
                for f in &got.downloaded {
                    out.line(&format!("{name}: downloaded {f}"))?;
                }
                for f in &got.already_present {
                    out.line(&format!("{name}: already present {f}"))?;
                }
            }
            out.line(&format!(
                "The models are in {}. Run `aletheia index` to give your memories vectors.",
                dir.display()
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
