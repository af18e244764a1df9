//! `doctor` names the fault and the fix, and exits non-zero while the user must act.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{Env, fixtures, prompt_payload};

#[test]
fn doctor_reports_waiting_events_until_drained() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("first"));
    let out = env.cmd().arg("doctor").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("integrity: ok; search index consistent")
            && text.contains("memories: prompt 1"),
        "{text}"
    );
    assert!(text.contains("captured: claude-code last at"), "{text}");

    let conn = env.hold_write_lock();
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        prompt_payload("while locked"),
    );
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);
    let out = env.cmd().args(["doctor", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["spool"]["lines_waiting"], 1);
    assert!(
        report["spool"]["oldest_waiting"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert!(
        report["problems"][0]["fix"]
            .as_str()
            .unwrap()
            .contains("aletheia drain")
    );

    let out = env.cmd().arg("drain").output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Drained the spool: 1 stored, 0 already present, 0 rejected.\n"
    );
    env.cmd().arg("doctor").assert().success();
}

#[test]
fn doctor_finds_a_hook_command_that_does_not_exist_and_a_corrupt_store() {
    let env = Env::new();
    std::fs::create_dir_all(env.dir.path().join(".claude")).unwrap();
    std::fs::write(
        env.dir.path().join(".claude/settings.json"),
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/nonexistent/aletheia hook claude-code SessionStart"}]}]}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(env.data()).unwrap();
    std::fs::write(env.db(), vec![0x5a; 8192]).unwrap();
    let out = env.cmd().arg("doctor").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("the store cannot be opened") && text.contains("move it aside"),
        "{text}"
    );
    // Hosts are now reported from install's own view of the files: the hook line names the
    // program that is missing, and the problem says how to put the entries right again.
    assert!(
        text.contains("(runs /nonexistent/aletheia: MISSING)")
            && text.contains("which does not exist or cannot be executed")
            && text.contains("run `aletheia install claude-code --write` again"),
        "{text}"
    );
}

/// A temporary HOME with a project folder in it; commands run in the project.
struct Hosts {
    env: Env,
    project: PathBuf,
}

impl Hosts {
    fn new() -> Hosts {
        let env = Env::new();
        let project = env.dir.path().join("work/shop");
        std::fs::create_dir_all(&project).unwrap();
        Hosts { env, project }
    }

    fn home(&self) -> &Path {
        self.env.dir.path()
    }

    fn cmd(&self) -> assert_cmd::Command {
        let mut c = self.env.cmd();
        c.env("ALETHEIA_CWD", &self.project);
        c
    }

    fn install(&self, args: &[&str]) {
        self.cmd().arg("install").args(args).assert().success();
    }

    /// `doctor`'s text, and its exit code.
    fn doctor(&self) -> (String, Option<i32>) {
        let out = self.cmd().arg("doctor").output().unwrap();
        (String::from_utf8(out.stdout).unwrap(), out.status.code())
    }

    fn doctor_json(&self) -> Value {
        let out = self.cmd().args(["doctor", "--json"]).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn host<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == name)
        .unwrap_or_else(|| panic!("{name} not in {report:#}"))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn doctor_reports_each_host_installed_with_its_files_and_its_last_event() {
    let h = Hosts::new();
    h.install(&["claude-code", "--write"]);
    h.install(&["cursor", "--project", "--write"]);
    let hook_exe = std::fs::canonicalize(assert_cmd::cargo::cargo_bin("aletheia-hook")).unwrap();

    let (text, code) = h.doctor();
    // Both installed is worth a note, not a failure: each event is stored once.
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(
            "host:     claude-code: last event never\n            user: hooks (6 events) in ~/.claude/settings.json, MCP in ~/.claude.json\n"
        ) && text.contains(
            "host:     cursor: last event never\n            project: hooks (10 events) in .cursor/hooks.json, MCP in .cursor/mcp.json\n"
        ) && text.contains("host:     not connected: codex, gemini, windsurf, opencode, command-code\n"),
        "{text}"
    );
    assert!(
        text.contains("note:     Cursor also runs Claude Code's hooks")
            && text.contains("`aletheia uninstall cursor --project`")
            && text.contains("third-party hooks in Cursor's settings"),
        "{text}"
    );

    let report = h.doctor_json();
    let claude = host(&report, "claude-code");
    assert_eq!(claude["connected"], true);
    assert_eq!(claude["last_event"], Value::Null);
    let user = &claude["installs"][0];
    assert_eq!(user["scope"], "user");
    assert_eq!(
        user["hooks"][0]["path"],
        h.home().join(".claude/settings.json").display().to_string()
    );
    assert!(
        user["hooks"][0]["events"]
            .as_array()
            .unwrap()
            .contains(&"UserPromptSubmit".into())
    );
    assert_eq!(
        user["hooks"][0]["programs"][0],
        serde_json::json!({ "path": hook_exe.display().to_string(), "runnable": true })
    );
    assert_eq!(
        user["mcp"][0]["path"],
        h.home().join(".claude.json").display().to_string()
    );
    assert_eq!(user["mcp"][0]["program"]["runnable"], true);
    let cursor = host(&report, "cursor");
    assert_eq!(cursor["installs"][0]["scope"], "project");
    assert_eq!(
        cursor["installs"][0]["mcp"][0]["path"],
        h.project.join(".cursor/mcp.json").display().to_string()
    );
    assert_eq!(host(&report, "codex")["connected"], false);
    assert_eq!(report["notes"].as_array().unwrap().len(), 1);
    assert_eq!(report["problems"], serde_json::json!([]));

    // Run Cursor's prompt hook the way Cursor would: the command from its file, through a shell.
    let hooks = read_json(&h.project.join(".cursor/hooks.json"));
    let command = hooks["hooks"]["beforeSubmitPrompt"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    let payload = std::fs::read(fixtures().join("cursor/beforeSubmitPrompt.json")).unwrap();
    let status = std::process::Command::new("sh")
        .args(["-c", &command])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", h.home())
        .env("TMPDIR", h.env.tmp())
        .env("ALETHEIA_DATA_DIR", h.env.data())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&payload)?;
            child.wait()
        })
        .unwrap();
    assert!(status.success());

    let (text, _) = h.doctor();
    let line = text
        .lines()
        .find(|l| l.starts_with("host:     cursor: last event "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.ends_with('Z'), "{line}");
    assert!(
        text.contains("host:     claude-code: last event never"),
        "{text}"
    );
    let report = h.doctor_json();
    assert!(
        host(&report, "cursor")["last_event"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert_eq!(host(&report, "claude-code")["last_event"], Value::Null);
}

#[test]
fn doctor_names_a_hook_binary_that_moved_and_how_to_reinstall() {
    let h = Hosts::new();
    h.install(&["claude-code", "--write"]);
    let exe = std::fs::canonicalize(assert_cmd::cargo::cargo_bin("aletheia-hook")).unwrap();
    let settings = h.home().join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(
        &settings,
        text.replace(&exe.display().to_string(), "/moved/away/aletheia-hook"),
    )
    .unwrap();

    let (text, code) = h.doctor();
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(
            "user: hooks (6 events) in ~/.claude/settings.json (runs /moved/away/aletheia-hook: MISSING), MCP in ~/.claude.json\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("problem:  claude-code hooks in ")
            && text.contains(
                "run /moved/away/aletheia-hook, which does not exist or cannot be executed"
            )
            && text.contains("fix:    run `aletheia install claude-code --write` again"),
        "{text}"
    );
    // Only Claude Code is installed: nothing runs twice.
    assert!(!text.contains("note:"), "{text}");

    let report = h.doctor_json();
    let hooks = &host(&report, "claude-code")["installs"][0]["hooks"][0];
    assert_eq!(
        hooks["programs"],
        serde_json::json!([{ "path": "/moved/away/aletheia-hook", "runnable": false }])
    );

    // Installing again points the hooks at the binary, and doctor is content.
    h.install(&["claude-code", "--write"]);
    let (text, code) = h.doctor();
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn a_host_hooked_for_the_user_and_the_project_gets_a_note() {
    let h = Hosts::new();
    h.install(&["codex", "--write"]);
    let (text, _) = h.doctor();
    assert!(!text.contains("hooked both"), "{text}");
    h.install(&["codex", "--project", "--write"]);
    let (text, code) = h.doctor();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("note:     codex is hooked both for you and for this project")
            && text.contains("`aletheia uninstall codex --project`"),
        "{text}"
    );
}

/// FTS5's plain integrity check compares the index only with itself, so an index that had lost
/// every memory passed and doctor called it consistent.
#[test]
fn doctor_finds_a_search_index_that_lost_its_memories_and_rebuild_index_restores_it() {
    let env = Env::new();
    env.hook(
        "claude-code",
        "UserPromptSubmit",
        prompt_payload("the ledger export rounds totals down"),
    );
    env.conn()
        .execute_batch("INSERT INTO memories_fts (memories_fts) VALUES ('delete-all')")
        .unwrap();
    let out = env.cmd().arg("doctor").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("search index NOT consistent")
            && text.contains("run `aletheia doctor --rebuild-index`"),
        "{text}"
    );
    let report: Value = serde_json::from_slice(
        &env.cmd()
            .args(["doctor", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "search_index")
        .unwrap();
    assert_eq!(check["status"], "fail", "{check}");

    let out = env
        .cmd()
        .args(["doctor", "--rebuild-index"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "Rebuilt the search index.\n"
    );
    let found = env.cmd().args(["search", "ledger"]).output().unwrap();
    assert!(
        String::from_utf8(found.stdout)
            .unwrap()
            .contains("ledger export"),
        "the rebuilt index finds the memory again"
    );
}

#[test]
fn doctor_on_a_store_with_a_newer_schema_says_to_install_a_newer_aletheia() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("first"));
    env.conn().pragma_update(None, "user_version", 999).unwrap();
    let out = env.cmd().arg("doctor").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("has schema version 999, newer than this aletheia knows")
            && text.contains("fix:    install a newer aletheia")
            && !text.contains("move it aside"),
        "{text}"
    );
    // Doctor left the store as it found it.
    let version: i64 = env
        .conn()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 999);
}

/// The dashboard's doctor page is the same report: its problems with their fixes, and a row
/// for every check.
#[test]
fn the_dashboards_doctor_page_lists_each_check_and_the_problem_with_its_fix() {
    use std::io::{Read, Write};
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("first"));
    env.conn()
        .execute_batch("INSERT INTO memories_fts (memories_fts) VALUES ('delete-all')")
        .unwrap();
    let mut cmd = env.std_cmd();
    cmd.args(["server", "--port", "0"]);
    let (mut child, port, _, lines) = support::start_server(cmd);
    std::thread::spawn(move || for _ in lines {});
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    write!(
        s,
        "GET /doctor HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let read = s.read_to_string(&mut answer);
    child.kill().unwrap();
    child.wait().unwrap();
    read.unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let page = if head.to_ascii_lowercase().contains("chunked") {
        support::dechunk(body)
    } else {
        body.to_owned()
    };
    assert!(
        page.contains("<h2>Problems</h2>")
            && page.contains("the search index does not match the memories")
            && page.contains("Fix: run `aletheia doctor --rebuild-index`"),
        "{page}"
    );
    // Every check is listed by name, the failed one marked so (the markup is the page's own).
    let failed = page.find("badge state-failed").expect("a failed check");
    assert!(
        page[failed..].contains("<strong>Search index</strong>")
            && page.contains("<strong>Spool</strong>")
            && page.contains("<strong>Store</strong>"),
        "{page}"
    );
}

/// A model name that names no model is reported as that, with the names there are, rather than
/// as a missing model.
#[cfg(feature = "semantic")]
#[test]
fn an_unknown_model_name_is_named_as_the_reason_search_by_meaning_is_off() {
    let env = Env::new();
    env.hook("claude-code", "UserPromptSubmit", prompt_payload("first"));
    let out = env
        .cmd()
        .arg("doctor")
        .env("ALETHEIA_MODEL", "gpt-9")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("semantic: off (ALETHEIA_MODEL names no known model)"),
        "{text}"
    );
    assert!(
        text.contains("ALETHEIA_MODEL=gpt-9 names no known model: use one of e5-small-v2"),
        "{text}"
    );
    assert!(!text.contains("no model in"), "{text}");
}

/// A key others can read proves nothing, and one that cannot be read leaves every write
/// unsigned: doctor says which, with the command that fixes it.
#[test]
fn doctor_names_a_machine_key_open_to_others_and_how_to_close_it() {
    use std::os::unix::fs::PermissionsExt as _;
    let env = Env::new();
    env.cmd()
        .args(["save", "the deploy needs the VPN"])
        .assert()
        .success();
    let key = env.data().join("machine.key");
    let out = env.cmd().args(["doctor", "--json"]).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = |r: &Value| {
        r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "history key")
            .cloned()
            .unwrap_or_else(|| panic!("{r:#}"))
    };
    assert_eq!(check(&report)["status"], "ok", "{report:#}");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = env.cmd().args(["doctor", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = check(&report);
    assert_eq!(c["status"], "fail");
    assert_eq!(
        c["fix"].as_str(),
        Some(format!("chmod 600 {}", key.display()).as_str())
    );
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains("writes are stored unsigned"),
        "{c}"
    );
}

#[test]
fn doctor_on_a_fresh_home_leads_with_connecting_a_tool_and_says_the_store_is_not_created_yet() {
    let h = Hosts::new();
    let (text, code) = h.doctor();
    assert_eq!(code, Some(0), "nothing is broken: {text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "next:     connect a tool: `aletheia install <tool> --write`, <tool> being claude-code, cursor, codex, gemini, windsurf, opencode or command-code (`aletheia connect <tool>` shows what it writes first)"
    );
    assert_eq!(
        lines[1],
        format!(
            "store:    {} (not created yet: the first hook event or `aletheia save` creates it)",
            h.env.db().display()
        )
    );
    assert!(
        !text.contains(" MB)") && !text.contains("All good."),
        "{text}"
    );
    assert!(
        text.contains("host:     no host is connected (the first line says how to connect one)\n"),
        "{text}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(
            "Nothing is broken, but nothing is captured until a tool is connected (see the first line)."
        )
    );
    assert_eq!(h.doctor_json()["store"]["exists"], false);
    assert!(!h.env.db().exists(), "doctor never creates the store");

    // Once a tool is connected, and the store made, the report is the usual one.
    h.install(&["claude-code", "--write"]);
    h.cmd().args(["save", "a first note"]).assert().success();
    let (text, code) = h.doctor();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.starts_with("store:    ") && text.contains(" MB)\n"),
        "{text}"
    );
    assert!(text.ends_with("All good.\n"), "{text}");
    assert_eq!(h.doctor_json()["store"]["exists"], true);
}
