//! The install part of each host's spec (`adapters/<host>.toml`, split off by `build.rs`): its
//! name, its rule file, and each configuration file with its format and what goes in it. The
//! capture part of the same file is [`crate::capture::adapter`]; the hook reads only that one.
//!
//! Everything here is data: the code that edits a file is chosen by the file's format (see
//! [`super::hosts`]), never by host, so a new host is a new spec file.

use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::LazyLock;

include!(concat!(env!("OUT_DIR"), "/host_specs.rs"));

/// One host, as install, status, `rules sync` and doctor see it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub host: String,
    /// How the host calls itself.
    pub name: String,
    pub install: Install,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Install {
    /// Where the host comes in lists; `build.rs` orders [`HOSTS`] by it.
    pub order: u32,
    pub rules: Rules,
    /// Shown after an install in either scope.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Shown after an install in the project only.
    #[serde(default)]
    pub project_notes: Vec<String>,
    /// The host's own command that registers the MCP server, per scope.
    #[serde(default)]
    pub mcp_command: PerScope,
    pub files: Vec<ConfigFile>,
    /// Another host whose hooks this one also runs, so with both hooked it sends each event
    /// twice; doctor notes it, with how to turn that off.
    #[serde(default)]
    pub also_runs: Option<AlsoRuns>,
}

/// Another host's hooks that a host runs as well as its own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlsoRuns {
    /// The other host, by its spec's `host`.
    pub hooks_of: String,
    /// How to stop it in this host's own settings, said after "or".
    pub turn_off: String,
}

/// The rule file at the project root, and the text that starts a new one that is ours as a
/// whole (empty for a file the user owns).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub file: String,
    #[serde(default)]
    pub preamble: String,
}

/// A text for the user's files and one for the project's; either may be missing.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerScope {
    pub user: Option<String>,
    pub project: Option<String>,
}

/// One configuration file of the host.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Under `~/` or `$XDG_CONFIG_HOME/`.
    pub user: Option<String>,
    /// Relative to the project root.
    pub project: Option<String>,
    pub format: FileFormat,
    /// Top-level keys the host needs in the file, added when missing and never removed.
    #[serde(default)]
    pub required: Map<String, Value>,
    pub hooks: Option<Hooks>,
    pub server: Option<Server>,
    pub plugin: Option<Plugin>,
}

/// The syntax of a file, which decides the writer that edits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileFormat {
    Json,
    /// JSON with comments and trailing commas; the same writer as JSON, which keeps them.
    Jsonc,
    Toml,
    /// A file that is ours as a whole.
    File,
}

/// One handler per event the host sends, under `hooks.<event>`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hooks {
    pub style: super::HookStyle,
    pub handler: Value,
    /// Per event, the host's matcher (a regex of tool names) that limits which calls run the
    /// hook: the just-in-time recall runs for file tools alone.
    #[serde(default)]
    pub matchers: std::collections::BTreeMap<String, String>,
}

/// The MCP entry, at `<container>.aletheia`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    pub container: String,
    pub entry: Value,
}

/// A file of ours, from `adapters/<source>` (its text put in `contents` by `build.rs`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plugin {
    pub source: String,
    /// The text that becomes the binary's path, as a JSON string.
    pub exe_literal: String,
    pub contents: String,
}

/// Every spec, parsed once per process, in [`HOSTS`] order.
static SPECS: LazyLock<Vec<Result<Spec, String>>> = LazyLock::new(|| {
    SPEC_FILES
        .iter()
        .map(|(host, json)| {
            serde_json::from_str::<Spec>(json)
                .map_err(|e| e.to_string())
                .and_then(|s| s.check().map(|()| s))
                .map_err(|e| format!("adapters/{host}.toml: {e}"))
        })
        .collect()
});

/// The spec of `host`: `None` for a host with no spec, an error for one that does not load.
pub fn get(host: &str) -> Option<Result<&'static Spec, String>> {
    let i = HOSTS.iter().position(|h| *h == host)?;
    Some(SPECS[i].as_ref().map_err(Clone::clone))
}

impl Spec {
    /// What serde cannot say: every file has a place in some scope, places stay inside their
    /// base folder, and each format carries only what its writer can write.
    fn check(&self) -> Result<(), String> {
        if self.install.rules.file.is_empty() || !relative(&self.install.rules.file) {
            return Err("`install.rules.file` must be a path inside the project".into());
        }
        for (i, f) in self.install.files.iter().enumerate() {
            let at = format!("install.files[{i}]");
            if f.user.is_none() && f.project.is_none() {
                return Err(format!("{at} has neither `user` nor `project`"));
            }
            if let Some(user) = &f.user {
                let rest = user
                    .strip_prefix("~/")
                    .or_else(|| user.strip_prefix("$XDG_CONFIG_HOME/"));
                if !rest.is_some_and(relative) {
                    return Err(format!(
                        "{at}.user must start with ~/ or $XDG_CONFIG_HOME/ and stay below it"
                    ));
                }
            }
            if let Some(project) = &f.project
                && !relative(project)
            {
                return Err(format!("{at}.project must be a path inside the project"));
            }
            let fits = match f.format {
                FileFormat::Json | FileFormat::Jsonc => {
                    f.plugin.is_none() && (f.hooks.is_some() || f.server.is_some())
                }
                FileFormat::Toml => {
                    f.server.is_some()
                        && f.hooks.is_none()
                        && f.plugin.is_none()
                        && f.required.is_empty()
                }
                FileFormat::File => {
                    f.plugin.is_some()
                        && f.hooks.is_none()
                        && f.server.is_none()
                        && f.required.is_empty()
                }
            };
            if !fits {
                return Err(format!(
                    "{at}: a json or jsonc file takes `hooks` and/or `server` (and `required`), a toml file `server` alone, a file `plugin` alone"
                ));
            }
            if let Some(p) = &f.plugin
                && !p.contents.contains(&p.exe_literal)
            {
                return Err(format!("{at}: {} has no {}", p.source, p.exe_literal));
            }
        }
        Ok(())
    }
}

/// A relative path that does not climb out of its base.
fn relative(path: &str) -> bool {
    let p = std::path::Path::new(path);
    !path.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_loads_and_has_a_capture_part() {
        assert!(!HOSTS.is_empty());
        for host in HOSTS {
            let spec = get(host).unwrap().unwrap();
            assert_eq!(spec.host, *host);
            assert!(!spec.name.is_empty(), "{host}");
            assert!(
                crate::capture::adapter::load(host).is_some_and(|a| a.is_ok()),
                "{host} has no capture part"
            );
        }
        assert!(get("vim").is_none());
    }

    /// A spec with one file, `file` (JSON), on top of a valid rest.
    fn with_file(file: &str) -> Result<(), String> {
        let json = format!(
            r#"{{"host":"x","name":"X","install":{{"order":1,"rules":{{"file":"X.md"}},"files":[{file}]}}}}"#
        );
        serde_json::from_str::<Spec>(&json)
            .map_err(|e| e.to_string())?
            .check()
    }

    #[rstest::rstest]
    #[case::hooks_in_toml(
        r#"{"user":"~/.x/c.toml","format":"toml","hooks":{"style":"flat","handler":{}}}"#
    )]
    #[case::toml_without_server(r#"{"user":"~/.x/c.toml","format":"toml"}"#)]
    #[case::json_with_nothing(r#"{"user":"~/.x/c.json","format":"json"}"#)]
    #[case::file_without_plugin(r#"{"user":"~/.x/a.js","format":"file"}"#)]
    #[case::no_scope(r#"{"format":"json","server":{"container":"m","entry":{}}}"#)]
    #[case::user_outside_home(
        r#"{"user":"/etc/x.json","format":"json","server":{"container":"m","entry":{}}}"#
    )]
    #[case::user_climbing_out(
        r#"{"user":"~/../x.json","format":"json","server":{"container":"m","entry":{}}}"#
    )]
    #[case::project_climbing_out(
        r#"{"project":"../x.json","format":"json","server":{"container":"m","entry":{}}}"#
    )]
    #[case::plugin_without_its_placeholder(
        r#"{"user":"~/.x/a.js","format":"file","plugin":{"source":"a.js","exe_literal":"BIN","contents":"x"}}"#
    )]
    #[case::unknown_field(
        r#"{"user":"~/.x/c.json","format":"json","server":{"container":"m","entry":{}},"mode":1}"#
    )]
    fn a_spec_file_its_writer_cannot_write_is_refused(#[case] file: &str) {
        assert!(with_file(file).is_err(), "{file}");
    }

    #[test]
    fn a_spec_file_in_each_base_folder_is_accepted() {
        for user in ["~/.x/c.json", "$XDG_CONFIG_HOME/x/c.json"] {
            let file = format!(
                r#"{{"user":"{user}","project":".x/c.json","format":"jsonc","server":{{"container":"m","entry":{{}}}}}}"#
            );
            assert_eq!(with_file(&file), Ok(()), "{file}");
        }
    }

    #[test]
    fn a_place_outside_its_base_folder_is_refused() {
        assert!(relative(".cursor/hooks.json"));
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "./x"] {
            assert!(!relative(bad), "{bad}");
        }
    }
}
