//! `aletheia trust [CLIENT LEVEL | CLIENT --reset]`: how far each connected client's writes are
//! trusted (`list_trust`, `set_trust`), on this machine's store or, with `--hub-db` or
//! `--database`, on a hub's.

use crate::ops::trust::{Level, ListTrust, SetTrust};
use clap::Args;

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The client: an MCP client's name (as it names itself, or ALETHEIA_TOOL), or a hub
    /// token as token:ID. Omitted: list the levels set.
    pub client: Option<String>,
    /// read (every write refused), propose (its writes wait for `aletheia review`) or write.
    #[arg(requires = "client")]
    pub level: Option<Level>,
    /// Forget the client's level: it writes memories directly and proposes rules again.
    #[arg(long, conflicts_with = "level", requires = "client")]
    pub reset: bool,
    #[cfg(feature = "server")]
    #[command(flatten)]
    pub hub: super::hub::StoreArgs,
}

pub fn run(a: TrustArgs, json: bool) -> anyhow::Result<()> {
    let caller = super::caller(None);
    let Some(client) = a.client else {
        #[cfg(feature = "server")]
        if a.hub.names_one() {
            return super::hub::run_op(a.hub, ListTrust {}, json);
        }
        return super::run(ListTrust {}, caller, json);
    };
    if a.level.is_none() && !a.reset {
        anyhow::bail!(
            "give {client} a level (read, propose or write), or --reset for the defaults"
        );
    }
    let request = SetTrust {
        client,
        level: a.level,
    };
    #[cfg(feature = "server")]
    if a.hub.names_one() {
        return super::hub::run_op(a.hub, request, json);
    }
    super::run(request, caller, json)
}
