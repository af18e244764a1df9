//! `aletheia sync` (push and pull with a hub), `sync setup` (remember the hub and token),
//! `sync status` and `sync conflicts`: the command line's edge for [`crate::sync`].

use crate::config::Paths;
use crate::store::{OpenOptions, Store};
use crate::sync::client::{self, Hub};
use crate::sync::settings;
use clap::{Args, Subcommand};
use std::io::IsTerminal;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SyncArgs {
    #[command(subcommand)]
    pub command: Option<SyncCommand>,
    #[command(flatten)]
    pub hub: HubArgs,
}

#[derive(Debug, Args)]
pub struct HubArgs {
    /// The hub's address (http://host:7750 or https://...); default: the one `sync setup` saved.
    #[arg(long)]
    pub hub: Option<String>,
    /// A sync token (`mcp-link create --scope sync`), `-` to read it from stdin; default:
    /// ALETHEIA_SYNC_TOKEN, else the one `sync setup` saved.
    #[arg(long)]
    pub token: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum SyncCommand {
    /// Remember the hub and its token, so `aletheia sync` and the server's worker need no flags.
    Setup(HubArgs),
    /// What is waiting to be pushed, how far this store has pulled, and the last sync.
    Status,
    /// The versions the hub kept when two machines changed the same item between syncs.
    Conflicts {
        #[command(flatten)]
        hub: HubArgs,
        /// At most this many, newest first.
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
}

pub fn run(a: SyncArgs, json: bool) -> anyhow::Result<()> {
    let paths = Paths::from_env();
    match a.command {
        None => sync(&paths, &a.hub, json),
        Some(SyncCommand::Setup(h)) => setup(&paths, &h, json),
        Some(SyncCommand::Status) => status(&paths, json),
        Some(SyncCommand::Conflicts { hub, limit }) => conflicts(&paths, &hub, limit, json),
    }
}

fn open(paths: &Paths) -> anyhow::Result<Store> {
    Ok(Store::open(paths, OpenOptions::INTERACTIVE)?)
}

/// The token given: `-` reads stdin.
fn given_token(t: &str) -> anyhow::Result<String> {
    if t == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)?;
        return Ok(s.trim().to_owned());
    }
    Ok(t.trim().to_owned())
}

/// The hub to use: flags first, then `ALETHEIA_SYNC_TOKEN`, then what `sync setup` saved.
pub fn hub_of(paths: &Paths, store: &Store, h: &HubArgs) -> anyhow::Result<Hub> {
    let url = match &h.hub {
        Some(u) => u.clone(),
        None => store.sync_hub()?.ok_or_else(|| {
            anyhow::anyhow!("no hub to sync with: give --hub URL --token T, or save them once with `aletheia sync setup --hub URL --token T`")
        })?,
    };
    let token = match &h.token {
        Some(t) => given_token(t)?,
        None => match std::env::var("ALETHEIA_SYNC_TOKEN") {
            Ok(t) if !t.trim().is_empty() => t.trim().to_owned(),
            _ => settings::load_token(paths)?.ok_or_else(|| {
                anyhow::anyhow!("no sync token: give --token T, set ALETHEIA_SYNC_TOKEN, or save one with `aletheia sync setup`")
            })?,
        },
    };
    Ok(Hub {
        url: check_url(&url)?,
        token,
    })
}

/// A hub URL as the client wants it, or why it is not one: http or https, no user or
/// password in it (the token is the credential, and the URL is stored and shown), and plain
/// http only to this machine, since the token would cross the network readable.
fn check_url(url: &str) -> anyhow::Result<String> {
    let url = url.trim().trim_end_matches('/');
    let url = url.strip_suffix("/mcp").unwrap_or(url);
    let Some((scheme, rest)) = url.split_once("://") else {
        anyhow::bail!(
            "--hub {url}: give the hub's address with http:// or https://, as in http://127.0.0.1:7750"
        );
    };
    let authority = rest.split('/').next().unwrap_or(rest);
    if authority.contains('@') {
        anyhow::bail!(
            "--hub: leave the user and password out of the address; the token is what the hub checks"
        );
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match scheme {
        "https" => {}
        "http" if loopback => {}
        "http" => anyhow::bail!(
            "--hub {url}: over plain http the token would cross the network readable; use https:// (the hub's --tls-cert, or a proxy), or a tunnel to 127.0.0.1"
        ),
        _ => anyhow::bail!(
            "--hub {url}: give the hub's address with http:// or https://, as in http://127.0.0.1:7750"
        ),
    }
    Ok(url.to_owned())
}

/// Tie the working directory's project to its git remote, when it has one and is not tied yet.
fn note_here(store: &mut Store) -> anyhow::Result<()> {
    let cwd = crate::config::working_dir();
    if let Some(identity) = crate::sync::remote::identity_of(&cwd) {
        store.note_project_identity(&crate::project::project_key(&cwd), &identity)?;
    }
    Ok(())
}

fn sync(paths: &Paths, h: &HubArgs, json: bool) -> anyhow::Result<()> {
    let redactor = super::redactor()?;
    let mut store = super::open_store(paths, redactor)?;
    let hub = hub_of(paths, &store, h)?;
    store.enable_sync()?;
    note_here(&mut store)?;
    let progress = !json && std::io::stderr().is_terminal();
    let report = client::sync(&mut store, redactor, hub, progress)?;
    if json {
        return Ok(super::print::json(&report)?);
    }
    let mut text = format!(
        "pushed {} memories and {} other changes; pulled {} items ({} already here)",
        report.pushed_memories,
        report.pushed_changes,
        report.pulled.stored,
        report.pulled.unchanged
    );
    if report.conflicts > 0 {
        text.push_str(&format!(
            "\n{} items had changed on the hub too: the later version won and the other is kept (aletheia sync conflicts)",
            report.conflicts
        ));
    }
    if report.refused > 0 {
        text.push_str(&format!(
            "\n{} items belong to projects this token may not write, and stay here only",
            report.refused
        ));
    }
    for w in &report.history_warnings {
        text.push_str(&format!("\nwarning: {w}"));
    }
    if report.pulled.deferred > 0 {
        text.push_str(&format!(
            "\n{} items changed here during the sync: the next sync settles them",
            report.pulled.deferred
        ));
    }
    Ok(super::print::line(&text)?)
}

fn setup(paths: &Paths, h: &HubArgs, json: bool) -> anyhow::Result<()> {
    let (Some(url), Some(token)) = (&h.hub, &h.token) else {
        anyhow::bail!(
            "sync setup needs both --hub URL and --token T (`-` reads the token from stdin)"
        );
    };
    let url = check_url(url)?;
    let token = given_token(token)?;
    if !token.starts_with("alh_") {
        anyhow::bail!(
            "--token: a hub token starts with alh_ (make one on the hub with `aletheia mcp-link create --scope sync`)"
        );
    }
    let mut store = open(paths)?;
    store.enable_sync()?;
    note_here(&mut store)?;
    store.set_sync_hub(&url)?;
    let file = settings::save_token(paths, &token)?;
    let unmapped = store.projects_without_identity()?;
    if json {
        return Ok(super::print::json(&serde_json::json!({
            "hub": url,
            "token_file": file,
            "projects_without_remote": unmapped,
        }))?);
    }
    let mut text = format!(
        "will sync with {url}; the token is in {} (readable by you alone)\nrun `aletheia sync` now; `aletheia server` syncs on its own every {} s (ALETHEIA_SYNC_INTERVAL)",
        file.display(),
        settings::interval().map_err(anyhow::Error::msg)?.as_secs()
    );
    if !unmapped.is_empty() {
        text.push_str(&format!(
            "\nthese projects have no git remote on record and travel under their folder name: {}\n(run `aletheia sync setup` again from inside a checkout to tie it to its remote first)",
            unmapped.join(", ")
        ));
    }
    Ok(super::print::line(&text)?)
}

fn status(paths: &Paths, json: bool) -> anyhow::Result<()> {
    let store = open(paths)?;
    if !store.sync_enabled()? {
        if json {
            return Ok(super::print::json(
                &serde_json::json!({ "enabled": false }),
            )?);
        }
        return Ok(super::print::line(
            "this store does not sync yet: `aletheia sync setup --hub URL --token T`",
        )?);
    }
    let s = store.sync_status()?;
    if json {
        return Ok(super::print::json(&s)?);
    }
    let mut text = format!(
        "hub: {}\nmachine: {}\nto push: {} memories, {} other changes\npulled up to: {}\nlast sync: {}",
        s.hub.as_deref().unwrap_or("none (aletheia sync setup)"),
        s.machine,
        s.memories_to_push,
        s.changes_to_push,
        s.pulled_up_to,
        s.last_sync.as_deref().unwrap_or("never")
    );
    for (project, identity) in &s.projects {
        text.push_str(&format!("\nproject {project} travels as {identity}"));
    }
    Ok(super::print::line(&super::print::for_terminal(
        &text, false,
    ))?)
}

fn conflicts(paths: &Paths, h: &HubArgs, limit: usize, json: bool) -> anyhow::Result<()> {
    let store = open(paths)?;
    let hub = hub_of(paths, &store, h)?;
    let rows = client::conflicts(hub, limit)?;
    if json {
        return Ok(super::print::json(&rows)?);
    }
    if rows.is_empty() {
        return Ok(super::print::line("no conflicts on the hub")?);
    }
    let mut text = String::new();
    for c in &rows {
        let at = jiff::Timestamp::from_millisecond(c.at)
            .map_or_else(|_| c.at.to_string(), |t| t.to_string());
        text.push_str(&format!(
            "#{} {at} {} {}: kept {} (from {}), lost {} (from {}): {}\n",
            c.id,
            c.kind,
            c.key.replace(crate::store::sync::LIST_KEY_SEP, "/"),
            c.winner_rev,
            c.winner_origin,
            c.loser_rev,
            c.loser_origin,
            c.loser
        ));
    }
    Ok(super::print::line(&super::print::for_terminal(
        text.trim_end(),
        false,
    ))?)
}
