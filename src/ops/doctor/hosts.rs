//! Doctor's host checks: each host's hook and MCP entries in the user's files and the current
//! project's, found by install's own query (so doctor and `uninstall` agree on what is
//! installed); whether the programs they name can run; and each host's last event.

use super::Report;
use crate::install::{self, Scope, status, status::Installed};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One host: what is installed for it in each scope, and when it last sent an event.
#[derive(Debug, Serialize)]
pub struct HostReport {
    pub host: String,
    /// Hooks or an MCP entry are installed in the user's or the project's files.
    pub connected: bool,
    /// The last event stored from this host; `null` when it has never sent one.
    pub last_event: Option<String>,
    pub installs: Vec<InstallReport>,
}

/// What is installed for one host in one scope.
#[derive(Debug, Serialize)]
pub struct InstallReport {
    pub scope: Scope,
    pub hooks: Vec<HookReport>,
    pub mcp: Vec<McpReport>,
}

#[derive(Debug, Serialize)]
pub struct HookReport {
    pub path: PathBuf,
    pub events: Vec<String>,
    /// OpenCode's plugin, which runs the hooks from inside the host.
    pub plugin: bool,
    pub programs: Vec<ProgramReport>,
}

#[derive(Debug, Serialize)]
pub struct McpReport {
    pub path: PathBuf,
    pub program: Option<ProgramReport>,
    /// Other hosts that read the same file (the project's `.mcp.json`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_with: Vec<String>,
}

/// A program an entry runs, and whether it can run.
#[derive(Debug, Serialize)]
pub struct ProgramReport {
    pub path: String,
    pub runnable: bool,
}

/// Every host's entries and last event. A host that never sent an event, or two hosts that
/// both capture the same event, are notes, not problems: nothing is lost or doubled. A program
/// that an entry names and that cannot run is a problem.
pub(super) fn check(r: &mut Report) {
    let setting = match install::Setting::from_env() {
        Ok(s) => s,
        Err(e) => {
            r.warn(
                "hosts",
                format!("the hosts' files could not be looked for: {e}"),
                None,
            );
            return;
        }
    };
    r.project = Some(setting.project.clone());
    // Run from HOME (or `/`), the project scope finds nothing: its files are the user's, and
    // `installed` does not list them twice.
    let mut found: Vec<Installed> = [Scope::User, Scope::Project]
        .into_iter()
        .flat_map(|scope| status::installed(scope, &setting))
        .collect();
    for i in &found {
        for u in &i.unreadable {
            let what = match &u.path {
                Some(path) => format!("{} {}", path.display(), u.error),
                None => u.error.clone(),
            };
            r.fail(
                "host_files",
                format!("{what}, so whether {} is connected is unknown", i.host),
                "fix the file (the host cannot read it as it is either)",
            );
        }
    }
    if !found.iter().any(|i| !i.unreadable.is_empty()) {
        r.ok("host_files", "every host's files could be read");
    }
    found.retain(|i| !i.is_empty());
    let from = r.checks.len();
    for host in install::HOSTS {
        let last_event = r
            .last_capture
            .iter()
            .find(|(tool, _)| tool == host)
            .map(|(_, at)| at.clone());
        let installs: Vec<InstallReport> = found
            .iter()
            .filter(|i| i.host == *host)
            .map(|i| install_report(i, r))
            .collect();
        r.hosts.push(HostReport {
            host: host.to_string(),
            connected: !installs.is_empty(),
            last_event,
            installs,
        });
    }
    if !r.found_since(from, "host_programs") {
        r.ok(
            "host_programs",
            "every program the hooks and MCP entries run can run",
        );
    }
    check_double_install(r);
    check_both_scopes(r);
}

/// Hosts merge the user's hook settings with the project's, so a host hooked in both runs each
/// hook twice: the event is stored once, but the session's memory block reaches the model twice.
fn check_both_scopes(r: &mut Report) {
    let twice: Vec<String> = r
        .hosts
        .iter()
        .filter(|h| {
            let hooked = |scope| {
                h.installs
                    .iter()
                    .any(|i| i.scope == scope && !i.hooks.is_empty())
            };
            hooked(Scope::User) && hooked(Scope::Project)
        })
        .map(|h| h.host.clone())
        .collect();
    if twice.is_empty() {
        r.ok(
            "hooked_twice",
            "no host is hooked both for you and for this project",
        );
    }
    for host in twice {
        let fix = format!("`aletheia uninstall {host} --project` or `aletheia uninstall {host}`");
        r.warn(
            "hooked_twice",
            format!(
                "{host} is hooked both for you and for this project, so it runs each hook twice (stored once, but the memory block reaches the model twice): remove one with {fix}"
            ),
            Some(fix),
        );
    }
}

fn install_report(i: &Installed, r: &mut Report) -> InstallReport {
    let mut check = |what: &str, path: &Path, program: &str| {
        let runnable = runnable(program);
        if !runnable {
            r.fail(
                "host_programs",
                format!(
                    "{} {what} in {} run{} {program}, which does not exist or cannot be executed",
                    i.host,
                    path.display(),
                    if what == "hooks" { "" } else { "s" }
                ),
                format!(
                    "run `aletheia install {}{} --write` again",
                    i.host,
                    if i.scope == Scope::Project {
                        " --project"
                    } else {
                        ""
                    }
                ),
            );
        }
        ProgramReport {
            path: program.to_owned(),
            runnable,
        }
    };
    let hooks = i
        .hooks
        .iter()
        .map(|h| HookReport {
            path: h.path.clone(),
            events: h.events.clone(),
            plugin: h.plugin,
            programs: h
                .programs
                .iter()
                .map(|p| check(if h.plugin { "plugin" } else { "hooks" }, &h.path, p))
                .collect(),
        })
        .collect();
    let mcp = i
        .mcp
        .iter()
        .map(|m| McpReport {
            path: m.path.clone(),
            program: m.program.as_deref().map(|p| check("MCP entry", &m.path, p)),
            shared_with: m.shared_with.iter().map(|h| h.to_string()).collect(),
        })
        .collect();
    InstallReport {
        scope: i.scope,
        hooks,
        mcp,
    }
}

/// A host whose spec says it also runs another host's hooks (Cursor's third-party imports read
/// Claude Code's `.claude/settings.json`), with both hooked, sends each event twice. The store
/// keeps one, so nothing is wrong, but one of the two is wasted work on every event: a note,
/// not a problem.
fn check_double_install(r: &mut Report) {
    let hooked = |host: &str| -> Vec<Scope> {
        r.hosts
            .iter()
            .filter(|h| h.host == host)
            .flat_map(|h| &h.installs)
            .filter(|i| i.hooks.iter().any(|f| !f.events.is_empty()))
            .map(|i| i.scope)
            .collect()
    };
    let mut found = Vec::new();
    for host in install::HOSTS {
        let Some(Ok(spec)) = install::spec::get(host) else {
            continue;
        };
        let Some(also) = &spec.install.also_runs else {
            continue;
        };
        let scopes = hooked(host);
        if scopes.is_empty() || hooked(&also.hooks_of).is_empty() {
            continue;
        }
        let uninstall: Vec<String> = scopes
            .iter()
            .map(|s| match s {
                Scope::User => format!("`aletheia uninstall {host}`"),
                Scope::Project => format!("`aletheia uninstall {host} --project`"),
            })
            .collect();
        let fix = format!("{} or {}", uninstall.join(" and "), also.turn_off);
        let detail = format!(
            "{} also runs {}'s hooks, so it sends each event twice (stored once): turn off one, with {fix}",
            spec.name,
            install::display_name(&also.hooks_of),
        );
        found.push((detail, fix));
    }
    if found.is_empty() {
        r.ok(
            "host_runs_another_hosts_hooks",
            "no host runs the hooks of another host that is hooked too",
        );
    }
    for (detail, fix) in found {
        r.warn("host_runs_another_hosts_hooks", detail, Some(fix));
    }
}

/// Whether `program` is a file this user may execute; a bare name is looked up in PATH.
fn runnable(program: &str) -> bool {
    let executable = |p: &Path| {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
        p.is_file() && unsafe { libc::access(c.as_ptr(), libc::X_OK) == 0 }
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| executable(&d.join(program))))
}
