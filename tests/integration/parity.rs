//! The command line and `aletheia mcp` are two front ends over one operations layer
//! (`src/ops/`): they parse a request, call the same operation and render its result with the
//! same texts (`src/text.rs`). This file holds them to that. For every MCP tool, a table sends
//! the same request through both, using the real binary, and checks they answer alike:
//!
//! - reads run against one seeded store and must print the same text (MCP's
//!   `<aletheia-memory>` wrapper aside);
//! - writes run once through each front end, each on its own store seeded the same way, and must
//!   print the same text and leave the two stores the same;
//! - errors must carry the same message (MCP: a tool result with `isError`; CLI: `aletheia:
//!   MESSAGE` on stderr and exit 1), except that a bad value for an enum flag stops at clap on
//!   the command line (see [`Expect::Usage`]);
//! - where the command line words an answer itself (see [`Expect::Own`]), each front end's
//!   text is pinned;
//! - `--json` must print one line whose fields say what the MCP text says;
//! - and a tool MCP lists with no row here fails the suite, so a new tool cannot skip the check.
//!
//! Mismatches this file found are pinned by regression tests at the end.
//!
//! Both processes run with `TZ=UTC` (so dates print alike) and the same `ALETHEIA_TOOL` (so both
//! record the same caller: without it the CLI is `cli` and MCP is the client's name).

use crate::support;

use aletheia::recall::wrap::NOTICE;
use aletheia::time::Clock;
use rusqlite::types::ValueRef;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use support::Env;

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;
/// 2026-10-29T00:00:00Z. Every seeded time is a fixed offset from it, so texts are the same on
/// every run; all of them are in the past, so a time at or after a test's start is one a write
/// just stamped.
const T0: i64 = 1_793_232_000_000;
/// The caller name both front ends run as.
const CALLER: &str = "parity";
/// The ids of the seeded rules (the store keeps whatever id a row has).
const RULE_COMMIT: &str = "r_seed000001";
const RULE_PNPM: &str = "r_seed000002";

// ---------------------------------------------------------------------------------------------
// Running the two front ends
// ---------------------------------------------------------------------------------------------

/// What one front end answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// CLI: exit 0, stdout without its final newline. MCP: the tool's text.
    Ok(String),
    /// CLI: exit 1, the message after `aletheia: `. MCP: the text of an `isError` result.
    Err(String),
    /// CLI only: exit 2, clap refused the arguments before any operation ran (its stderr).
    Usage(String),
}

/// The binary with the test's environment, the fixed zone and the shared caller name.
fn cmd(env: &Env) -> assert_cmd::Command {
    let mut c = env.cmd();
    c.env("TZ", "UTC").env("ALETHEIA_TOOL", CALLER);
    c
}

/// Run `aletheia ARGV` with `stdin`, and read what it answered.
fn cli(env: &Env, argv: &[&str], stdin: Option<&str>) -> Outcome {
    let mut c = cmd(env);
    c.args(argv);
    if let Some(input) = stdin {
        c.write_stdin(input);
    }
    let out = c.output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    match out.status.code() {
        Some(0) => {
            assert_eq!(
                stderr, "",
                "aletheia {argv:?} succeeded but wrote to stderr"
            );
            Outcome::Ok(stdout.strip_suffix('\n').unwrap_or(&stdout).to_owned())
        }
        Some(1) => {
            assert_eq!(stdout, "", "aletheia {argv:?} failed but wrote to stdout");
            let message = stderr
                .strip_prefix("aletheia: ")
                .and_then(|m| m.strip_suffix('\n'))
                .unwrap_or_else(|| panic!("aletheia {argv:?}: stderr is not one error: {stderr}"));
            assert!(
                !message.contains('\n'),
                "{argv:?}: a two-line error: {message}"
            );
            Outcome::Err(message.to_owned())
        }
        Some(2) => Outcome::Usage(stderr),
        other => panic!("aletheia {argv:?} exited with {other:?}: {stderr}"),
    }
}

/// Send JSON-RPC messages to one `aletheia mcp` and return its replies in order.
fn rpc(env: &Env, messages: &[Value]) -> Vec<Value> {
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let out = cmd(env).arg("mcp").write_stdin(input).output().unwrap();
    assert!(
        out.status.success(),
        "aletheia mcp: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Call tools in one MCP session (after the initialize handshake, as a host would).
fn mcp(env: &Env, calls: &[(&str, &Value)]) -> Vec<Outcome> {
    let mut messages = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "parity-client", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for (i, (name, args)) in calls.iter().enumerate() {
        messages.push(
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": name, "arguments": args}}),
        );
    }
    let replies = rpc(env, &messages);
    assert_eq!(replies.len(), calls.len() + 1, "{replies:?}");
    replies[1..]
        .iter()
        .enumerate()
        .map(|(i, r)| {
            assert_eq!(r["id"], i + 1, "replies come back in order");
            let result = &r["result"];
            let text = result["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("no text in {r}"))
                .to_owned();
            if result["isError"] == true {
                Outcome::Err(text)
            } else {
                Outcome::Ok(text)
            }
        })
        .collect()
}

/// The body of an `<aletheia-memory>` block (see `src/recall/wrap.rs`), or `None` when `text`
/// is not one.
fn unwrap_memory(text: &str) -> Option<&str> {
    text.strip_prefix("<aletheia-memory>\n")?
        .strip_prefix(NOTICE)?
        .strip_prefix("\n\n")?
        .strip_suffix("\n</aletheia-memory>")
}

/// MCP's text as the terminal shows it: recalled text comes wrapped for a model, the terminal
/// shows the body alone. (The session-start block wraps itself, so both show it wrapped.)
fn as_terminal<'a>(mcp_text: &'a str, cli_text: &str) -> &'a str {
    match unwrap_memory(mcp_text) {
        Some(body) if unwrap_memory(cli_text).is_none() => body,
        _ => mcp_text,
    }
}

// ---------------------------------------------------------------------------------------------
// The seeded store
// ---------------------------------------------------------------------------------------------

/// Memories #1 to #9, in id order; `seeded` gives each the uid `seed-N`.
#[rustfmt::skip]
fn seed_memories() -> Vec<Value> {
    vec![
        json!({"project": "shop", "kind": "note", "type": "decision", "title": "Use pnpm, not npm",
               "text": "Use pnpm, not npm, in the shop repo", "tool": "claude-code",
               "files": ["package.json"], "created_at": T0 + 19 * HOUR}),
        json!({"project": "shop", "kind": "note", "type": "gotcha", "title": "Staging deploys need the VPN",
               "text": "Staging deploys need the VPN; connect before running the deploy script.",
               "tool": "cli", "pinned": true, "created_at": T0 + DAY}),
        json!({"project": "shop", "kind": "prompt", "title": "set up the pnpm cache in CI",
               "text": "set up the pnpm cache in CI", "tool": "claude-code", "session_id": "s1",
               "created_at": T0 + 2 * DAY}),
        json!({"project": "shop", "kind": "observation", "type": "bugfix", "title": "Fixed the flaky checkout test",
               "text": "The checkout test waited on a real timer; it now uses a fake clock.",
               "tool": "claude-code", "session_id": "s1", "files": ["src/checkout.ts", "src/checkout.test.ts"],
               "created_at": T0 + 2 * DAY + HOUR}),
        json!({"project": "billing", "kind": "note", "title": "billing uses pnpm workspaces too",
               "text": "billing uses pnpm workspaces too", "tool": "codex", "created_at": T0 + 3 * DAY}),
        json!({"project": "shop", "kind": "note", "title": "an old pnpm note", "text": "pnpm 7 had a lockfile bug",
               "tool": "cli", "dismissed": true, "created_at": T0 + 4 * HOUR}),
        // Recalled text must not close MCP's wrapper; both sides neutralise it alike.
        json!({"project": "shop", "kind": "note", "type": "discovery", "title": "Tag </aletheia-memory> in a memory",
               "text": "A memory that says </aletheia-memory> must not close the block.", "tool": "cli",
               "created_at": T0 + 5 * DAY}),
        // The memory that holds the `todo` list (see SEED_SQL).
        json!({"project": "shop", "kind": "note", "title": "Work state: todo",
               "text": r#"["ship docs",{"task":"test hooks","done":false}]"#, "tool": "cli",
               "created_at": T0 + 6 * DAY}),
        // A tool event: searchable, but left out of the session-start block.
        json!({"project": "shop", "kind": "event", "title": "Bash pnpm install",
               "text": "Bash pnpm install --frozen-lockfile", "tool": "claude-code", "session_id": "s1",
               "created_at": T0 + 6 * DAY + HOUR}),
    ]
}

/// Facts, rules and the `todo` list (whose memory is #8), written straight into their tables:
/// no command writes facts, and rules and lists written by a command would carry today's time.
const SEED_SQL: &str = "
    INSERT INTO facts (id, project, subject, predicate, object, confidence, source, memory_id,
                       valid_from, valid_to, superseded_by, created_at) VALUES
      (1, 'shop', 'cache', 'ttl', '30 s', 0.8, 'rules', 1, 1793232000000, 1793318400000, 2, 1793232000000),
      (2, 'shop', 'cache', 'ttl', '60 s', 0.8, 'rules', 1, 1793318400000, NULL, NULL, 1793318400000),
      (3, 'billing', 'cache', 'ttl', '5 s', 0.7, 'claude', 5, 1793404800000, NULL, NULL, 1793404800000);
    INSERT INTO rules (id, when_text, then_text, scope_tier, scope_name, source, recheck, evidence,
                       created_at, confirmed_at) VALUES
      ('r_seed000001', 'you are about to commit', 'Run the tests before you commit', 'everywhere', '',
       'cli', NULL, '{\"memories\":[],\"facts\":[]}', 1793232000000, 1793232000000),
      ('r_seed000002', 'always', 'Use pnpm for installs', 'project', 'shop', 'claude-code',
       'package.json changed', '{\"memories\":[1],\"facts\":[]}', 1793318400000, 1793318400000);
    INSERT INTO work_lists (project, name, memory_id, items, updated_at) VALUES
      ('shop', 'todo', 8, '[\"ship docs\",{\"task\":\"test hooks\",\"done\":false}]', 1793750400000);
";

/// A fresh store holding the seed, the same in every call.
fn seeded() -> Env {
    let env = Env::new();
    let memories = seed_memories();
    let jsonl: String = memories
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut m = m.clone();
            m["uid"] = format!("seed-{}", i + 1).into();
            format!("{m}\n")
        })
        .collect();
    assert_eq!(
        cli(&env, &["import"], Some(&jsonl)),
        Outcome::Ok(format!(
            "Imported {} memories (0 already present).",
            memories.len()
        ))
    );
    env.conn().execute_batch(SEED_SQL).unwrap();
    // The MCP client is trusted to write, so its rules are written as the command line writes
    // them rather than waiting for review (tests/trust.rs covers the levels).
    assert!(matches!(
        cli(&env, &["trust", CALLER, "write"], None),
        Outcome::Ok(_)
    ));
    env
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

/// What a row should produce on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Both succeed with the same text.
    Ok,
    /// Both fail with the same message.
    Err,
    /// A value clap parses itself (an enum flag): the CLI stops at clap (exit 2, clap's
    /// `error: invalid value ...` and a help hint) instead of printing `aletheia: MESSAGE` and
    /// exiting 1, while MCP fails in the operation. That framing differs (a known, reported
    /// divergence); what this holds is that both give the value's own parser message.
    Usage,
    /// The command line words this answer itself, and both texts are pinned here: it refuses an
    /// id or a name that is not there (exit 1, by its exit rule, `src/cli/exit.rs`) where MCP
    /// answers with a note, names its own flags where MCP names the tool's field, and says
    /// where a rule applies and how to sync it where MCP points at the dashboard. `cli_fails`:
    /// whether the command line exits 1; `cli` and `mcp`: how each text starts.
    Own {
        cli_fails: bool,
        cli: &'static str,
        mcp: &'static str,
    },
}

impl Expect {
    /// Whether the command line succeeds (a write then may change the store).
    fn cli_succeeds(self) -> bool {
        matches!(
            self,
            Expect::Ok
                | Expect::Own {
                    cli_fails: false,
                    ..
                }
        )
    }
}

/// One request, as MCP arguments and as a command line.
struct Row {
    tool: &'static str,
    args: Value,
    argv: Vec<&'static str>,
    stdin: Option<&'static str>,
    expect: Expect,
}

impl Row {
    fn label(&self) -> String {
        format!("{} {} | aletheia {:?}", self.tool, self.args, self.argv)
    }

    fn stdin(mut self, input: &'static str) -> Row {
        self.stdin = Some(input);
        self
    }
}

fn row(expect: Expect, tool: &'static str, args: Value, argv: &[&'static str]) -> Row {
    Row {
        tool,
        args,
        argv: argv.to_vec(),
        stdin: None,
        expect,
    }
}

fn ok(tool: &'static str, args: Value, argv: &[&'static str]) -> Row {
    row(Expect::Ok, tool, args, argv)
}

fn err(tool: &'static str, args: Value, argv: &[&'static str]) -> Row {
    row(Expect::Err, tool, args, argv)
}

fn usage(tool: &'static str, args: Value, argv: &[&'static str]) -> Row {
    row(Expect::Usage, tool, args, argv)
}

/// A row whose command line answer is its own (see [`Expect::Own`]).
fn own(
    tool: &'static str,
    args: Value,
    argv: &[&'static str],
    (cli_fails, cli, mcp): (bool, &'static str, &'static str),
) -> Row {
    row(
        Expect::Own {
            cli_fails,
            cli,
            mcp,
        },
        tool,
        args,
        argv,
    )
}

/// The read-only tools: every row runs against one seeded store.
#[rustfmt::skip]
fn read_rows() -> Vec<Row> {
    vec![
        // search
        ok("search", json!({"query": "pnpm"}), &["search", "pnpm"]),
        ok("search", json!({"query": "pnpm", "type": "decision"}), &["search", "pnpm", "--type", "decision"]),
        ok("search", json!({"query": "pnpm", "kind": "prompt"}), &["search", "pnpm", "--kind", "prompt"]),
        ok("search", json!({"query": "pnpm", "project": "billing"}), &["search", "pnpm", "--project", "billing"]),
        ok("search", json!({"query": "pnpm", "since": "2026-10-31", "limit": 2}), &["search", "pnpm", "--since", "2026-10-31", "--limit", "2"]),
        ok("search", json!({"query": "pnpm", "until": 1793318400000_i64}), &["search", "pnpm", "--until", "1793318400000"]),
        ok("search", json!({"query": "pnpm", "order": "date_asc", "offset": 1}), &["search", "pnpm", "--order", "date_asc", "--offset", "1"]),
        ok("search", json!({"query": "pnpm", "older_than_days": 30}), &["search", "pnpm", "--older-than-days", "30"]),
        ok("search", json!({"query": "cache ttl"}), &["search", "cache ttl"]),
        ok("search", json!({"query": "aletheia memory"}), &["search", "aletheia memory"]),
        ok("search", json!({"query": "zebra"}), &["search", "zebra"]),
        ok("search", json!({"file": "src/checkout.ts"}), &["search", "--file", "src/checkout.ts"]),
        ok("search", json!({"file": "checkout.ts", "file_suffix": true}), &["search", "--file", "checkout.ts", "--file-suffix"]),
        own("search", json!({"query": "   "}), &["search", "   "], (true, "Nothing to search for: give words (aletheia search WORDS) or a file path (aletheia search --file PATH).", "query is required.")),
        own("search", json!({}), &["search"], (true, "Nothing to search for: give words", "query is required.")),
        err("search", json!({"query": "pnpm", "since": "someday"}), &["search", "pnpm", "--since", "someday"]),
        err("search", json!({"query": "pnpm", "offset": -1}), &["search", "pnpm", "--offset=-1"]),
        usage("search", json!({"query": "pnpm", "type": "idea"}), &["search", "pnpm", "--type", "idea"]),
        // timeline
        ok("timeline", json!({"anchor": 3}), &["timeline", "--anchor", "3"]),
        ok("timeline", json!({"query": "VPN", "before": 1, "after": 1}), &["timeline", "--query", "VPN", "--before", "1", "--after", "1"]),
        ok("timeline", json!({"anchor": 4, "project": "shop", "before": 2, "after": 2}), &["timeline", "--anchor", "4", "--project", "shop", "--before", "2", "--after", "2"]),
        own("timeline", json!({"anchor": 5, "project": "shop"}), &["timeline", "--anchor", "5", "--project", "shop"], (true, "No memory #5 in shop to show: none there has that id, or it is dismissed.", "Nothing to anchor on.")),
        own("timeline", json!({"anchor": 999}), &["timeline", "--anchor", "999"], (true, "No memory #999 to show: none has that id, or it is dismissed.", "Nothing to anchor on.")),
        err("timeline", json!({}), &["timeline"]),
        // get_observations
        ok("get_observations", json!({"ids": [1, 4, 2]}), &["observations", "1", "4", "2"]),
        ok("get_observations", json!({"ids": [7]}), &["observations", "7"]),
        own("get_observations", json!({"ids": [999]}), &["observations", "999"], (true, "No memory #999 to show: none has that id, or it is dismissed.", "No memories with those ids.")),
        // session_start_context
        ok("session_start_context", json!({}), &["context"]),
        ok("session_start_context", json!({"project": "billing", "limit": 1}), &["context", "--project", "billing", "--limit", "1"]),
        ok("session_start_context", json!({"project": "nowhere"}), &["context", "--project", "nowhere"]),
        // fact_history
        ok("fact_history", json!({"subject": "cache"}), &["facts", "cache"]),
        ok("fact_history", json!({"subject": "Cache", "project": "shop", "include_superseded": true}), &["facts", "Cache", "--project", "shop", "--include-superseded"]),
        ok("fact_history", json!({"subject": "cache", "as_of": "2026-10-29T12:00:00Z", "predicate": "ttl"}), &["facts", "cache", "--as-of", "2026-10-29T12:00:00Z", "--predicate", "ttl"]),
        ok("fact_history", json!({"subject": "nothing"}), &["facts", "nothing"]),
        err("fact_history", json!({"subject": "  "}), &["facts", "  "]),
        err("fact_history", json!({"subject": "cache", "as_of": "whenever"}), &["facts", "cache", "--as-of", "whenever"]),
        // list_rules
        ok("list_rules", json!({}), &["rules", "list"]),
        // work_state_read
        ok("work_state_read", json!({"list": "todo"}), &["list", "read", "todo"]),
        ok("work_state_read", json!({"list": " todo "}), &["list", "read", " todo "]),
        own("work_state_read", json!({"list": "todo", "project": "billing"}), &["list", "read", "todo", "--project", "billing"], (true, "No list named \"todo\" in billing.", "No list named \"todo\"")),
        own("work_state_read", json!({"list": "nope"}), &["list", "read", "nope"], (true, "No list named \"nope\" in shop.", "No list named \"nope\"")),
        err("work_state_read", json!({"list": " "}), &["list", "read", " "]),
    ]
}

/// The write tools: every row runs on two fresh seeded stores, one per front end.
#[rustfmt::skip]
fn write_rows() -> Vec<Row> {
    vec![
        // save_memory
        ok("save_memory", json!({"text": "Deploys go out on Tuesdays"}), &["save", "Deploys go out on Tuesdays"]),
        ok("save_memory", json!({"text": "Invoices are numbered per year", "title": "Invoice numbers", "type": "decision", "pinned": true, "project": "billing"}),
            &["save", "Invoices are numbered per year", "--title", "Invoice numbers", "--type", "decision", "--pinned", "--project", "billing"]),
        ok("save_memory", json!({"text": "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB rotates monthly"}),
            &["save", "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB rotates monthly"]),
        ok("save_memory", json!({"text": "Use pnpm, not npm, in the shop repo", "title": "Use pnpm, not npm", "type": "decision"}),
            &["save", "Use pnpm, not npm, in the shop repo", "--title", "Use pnpm, not npm", "--type", "decision"]),
        err("save_memory", json!({"text": "   "}), &["save", "   "]),
        usage("save_memory", json!({"text": "x", "type": "idea"}), &["save", "x", "--type", "idea"]),
        // add_rule
        own("add_rule", json!({"then": "Use pnpm", "when": "installing packages", "scopeTier": "project", "scopeName": "shop", "evidence_memory_ids": [1], "evidence_fact_ids": [2]}),
            &["rules", "add", "Use pnpm", "--when", "installing packages", "--scope-tier", "project", "--scope-name", "shop", "--evidence-memory", "1", "--evidence-fact", "2"],
            (false, "Rule saved (r_35abb28848) [project: shop]: only that project's sessions start with it; for every project, add it without --scope-tier. `aletheia rules sync` writes", "Rule saved (r_35abb28848). The owner syncs rules to tools from the Rules page.")),
        own("add_rule", json!({"then": "Keep commits small"}), &["rules", "add", "Keep commits small"],
            (false, "Rule saved (r_b8fa1cd82b) [everywhere]: sessions in every project start with it; to keep a rule to this project, add it with --scope-tier project --scope-name shop.", "Rule saved (r_b8fa1cd82b). The owner syncs rules to tools from the Rules page.")),
        ok("add_rule", json!({"then": "Run the tests before you commit", "when": "you are about to commit"}),
            &["rules", "add", "Run the tests before you commit", "--when", "you are about to commit"]),
        err("add_rule", json!({"then": "x", "scopeTier": "project"}), &["rules", "add", "x", "--scope-tier", "project"]),
        err("add_rule", json!({"then": "x", "evidence_memory_ids": [999]}), &["rules", "add", "x", "--evidence-memory", "999"]),
        err("add_rule", json!({"then": " "}), &["rules", "add", " "]),
        usage("add_rule", json!({"then": "x", "scopeTier": "galaxy"}), &["rules", "add", "x", "--scope-tier", "galaxy"]),
        // confirm_rule
        ok("confirm_rule", json!({"id": RULE_PNPM}), &["rules", "confirm", RULE_PNPM]),
        err("confirm_rule", json!({"id": "r_missing"}), &["rules", "confirm", "r_missing"]),
        // dismiss_memory
        ok("dismiss_memory", json!({"id": 1, "reason": "outdated"}), &["dismiss", "1", "--reason", "outdated"]),
        ok("dismiss_memory", json!({"id": 2, "type": "fact"}), &["dismiss", "2", "--type", "fact"]),
        ok("dismiss_memory", json!({"id": 4, "type": "observation", "reason": "key ghp_1234567890abcdefghijklmnopqrstuvwxyzAB leaked"}),
            &["dismiss", "4", "--type", "observation", "--reason", "key ghp_1234567890abcdefghijklmnopqrstuvwxyzAB leaked"]),
        err("dismiss_memory", json!({"id": 999}), &["dismiss", "999"]),
        err("dismiss_memory", json!({"id": 1, "type": "observation"}), &["dismiss", "1", "--type", "observation"]),
        usage("dismiss_memory", json!({"id": 1, "type": "widget"}), &["dismiss", "1", "--type", "widget"]),
        // restore_memory
        ok("restore_memory", json!({"id": 6}), &["restore", "6"]),
        err("restore_memory", json!({"id": 999}), &["restore", "999"]),
        err("restore_memory", json!({"id": 6, "type": "episode"}), &["restore", "6", "--type", "episode"]),
        // work_state_write
        ok("work_state_write", json!({"list": "next", "items": ["a", {"task": "b", "done": true}, 3]}), &["list", "write", "next"])
            .stdin(r#"["a", {"task": "b", "done": true}, 3]"#),
        ok("work_state_write", json!({"list": "todo", "items": ["ship docs"]}), &["list", "write", "todo"]).stdin(r#"["ship docs"]"#),
        ok("work_state_write", json!({"list": "todo", "items": [], "project": "billing"}), &["list", "write", "todo", "--project", "billing"])
            .stdin("[]"),
        err("work_state_write", json!({"list": "x", "items": [["nested"]]}), &["list", "write", "x"]).stdin(r#"[["nested"]]"#),
        err("work_state_write", json!({"list": " ", "items": []}), &["list", "write", " "]).stdin("[]"),
    ]
}

/// Why `cli` and `mcp` do not answer `row` alike, or `None` when they do.
fn mismatch(row: &Row, cli: &Outcome, mcp: &Outcome) -> Option<String> {
    let same = match (row.expect, cli, mcp) {
        // Ages count from each process's own clock: the two may straddle a unit's edge.
        (Expect::Ok, Outcome::Ok(c), Outcome::Ok(m)) => {
            support::ages(as_terminal(m, c)) == support::ages(c)
        }
        (Expect::Err, Outcome::Err(c), Outcome::Err(m)) => c == m,
        (
            Expect::Own {
                cli_fails,
                cli: own_cli,
                mcp: own_mcp,
            },
            Outcome::Ok(c) | Outcome::Err(c),
            Outcome::Ok(m) | Outcome::Err(m),
        ) => {
            matches!(cli, Outcome::Err(_)) == cli_fails
                && c.starts_with(own_cli)
                && m.starts_with(own_mcp)
        }
        // clap says `error: invalid value 'V' for '--flag <F>': MESSAGE`, MCP says
        // `field: MESSAGE`; the MESSAGE, from the value's own parser, must be the same.
        (Expect::Usage, Outcome::Usage(c), Outcome::Err(m)) => {
            let message = m.split_once(": ").map_or(m.as_str(), |(_, rest)| rest);
            let first = c.lines().next().unwrap_or_default();
            first.starts_with("error: invalid value") && first.ends_with(&format!(": {message}"))
        }
        _ => {
            return Some(format!(
                "expected {:?} from both.\nCLI:\n{cli:?}\nMCP:\n{mcp:?}",
                row.expect
            ));
        }
    };
    (!same).then(|| format!("CLI:\n{cli:?}\nMCP:\n{mcp:?}"))
}

/// Fail with every row in `failures`, so one run shows them all.
fn assert_none_failed(what: &str, rows: usize, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} mismatches between the CLI and MCP in {rows} {what} rows:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Store contents, for comparing what two writes left behind
// ---------------------------------------------------------------------------------------------

/// The columns that hold times; a value there at or after the test's start was stamped by the
/// write itself, and the two front ends stamp different milliseconds.
const TIME_COLUMNS: &[&str] = &["created_at", "confirmed_at", "updated_at", "at", "last_at"];

/// A time as compared: seeded times as they are, fresh ones as `now`.
fn time(ms: i64, start: i64) -> String {
    if ms >= start {
        "now".into()
    } else {
        ms.to_string()
    }
}

/// Everything a write can touch: the export (every memory as a record) and the other tables.
#[derive(Debug, PartialEq)]
struct Contents {
    records: Vec<Value>,
    tables: Vec<(&'static str, Vec<Vec<String>>)>,
}

fn contents(env: &Env, start: i64) -> Contents {
    let Outcome::Ok(export) = cli(env, &["export"], None) else {
        panic!("export failed")
    };
    let records = export
        .lines()
        .map(|l| {
            let mut r: Value = serde_json::from_str(l).unwrap();
            // A memory the write created has a fresh uid and time; a seeded one keeps both
            // (except a time the write changed, as rewriting a list does).
            if !r["uid"].as_str().unwrap().starts_with("seed-") {
                r["uid"] = "new".into();
            }
            r["created_at"] = time(r["created_at"].as_i64().unwrap(), start).into();
            r
        })
        .collect();
    let conn = env.conn();
    let tables = TABLES.iter().map(|&t| (t, rows(&conn, t, start))).collect();
    Contents { records, tables }
}

/// The tables besides `memories` (which the export covers) that a write may change.
const TABLES: &[&str] = &[
    "facts",
    "rules",
    "work_lists",
    "audit",
    "captures",
    "memory_files",
];

/// Every row of `table` as text, fresh times as `now`.
fn rows(conn: &rusqlite::Connection, table: &str, start: i64) -> Vec<Vec<String>> {
    let mut stmt = conn
        .prepare(&format!("SELECT * FROM {table} ORDER BY 1, 2"))
        .unwrap();
    let names: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let cell = |name: &str, v: ValueRef<'_>| match v {
        ValueRef::Integer(n) if TIME_COLUMNS.contains(&name) => time(n, start),
        ValueRef::Integer(n) => n.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Blob(_) => "<blob>".into(),
        ValueRef::Null => "NULL".into(),
    };
    stmt.query_map([], |r| {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| Ok(cell(name, r.get_ref(i)?)))
            .collect::<rusqlite::Result<Vec<String>>>()
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// What differs between two stores' contents, section by section.
fn contents_diff(cli: &Contents, mcp: &Contents) -> Option<String> {
    let mut out = Vec::new();
    if cli.records != mcp.records {
        out.push(format!(
            "export:\n  CLI {:?}\n  MCP {:?}",
            cli.records, mcp.records
        ));
    }
    for ((table, a), (_, b)) in cli.tables.iter().zip(&mcp.tables) {
        if a != b {
            out.push(format!("{table}:\n  CLI {a:?}\n  MCP {b:?}"));
        }
    }
    (!out.is_empty()).then(|| out.join("\n"))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

#[test]
fn reads_answer_the_same_through_the_cli_and_mcp() {
    let env = seeded();
    let rows = read_rows();
    let calls: Vec<(&str, &Value)> = rows.iter().map(|r| (r.tool, &r.args)).collect();
    // One MCP session answers every row, as a host's would.
    let answers = mcp(&env, &calls);
    let failures: Vec<String> = rows
        .iter()
        .zip(&answers)
        .filter_map(|(row, m)| {
            let c = cli(&env, &row.argv, row.stdin);
            mismatch(row, &c, m).map(|why| format!("{}\n{why}", row.label()))
        })
        .collect();
    assert_none_failed("read", rows.len(), &failures);
}

#[test]
fn writes_answer_and_store_the_same_through_the_cli_and_mcp() {
    let rows = write_rows();
    let mut failures = Vec::new();
    for row in &rows {
        let start = now_ms();
        let (cli_env, mcp_env) = (seeded(), seeded());
        let c = cli(&cli_env, &row.argv, row.stdin);
        let m = mcp(&mcp_env, &[(row.tool, &row.args)]).remove(0);
        if let Some(why) = mismatch(row, &c, &m) {
            failures.push(format!("{}\n{why}", row.label()));
        }
        // A failed write must leave both stores as seeded, so this holds for error rows too.
        if let Some(why) = contents_diff(&contents(&cli_env, start), &contents(&mcp_env, start)) {
            failures.push(format!(
                "{}\nthe stores differ after the write:\n{why}",
                row.label()
            ));
        }
    }
    assert_none_failed("write", rows.len(), &failures);
}

#[test]
fn a_failed_write_leaves_the_store_as_seeded() {
    // The write rows compare the two stores with each other; this pins one of them to the seed,
    // so an error row that wrote something on both sides alike still fails.
    let start = now_ms();
    let untouched = contents(&seeded(), start);
    for row in write_rows().iter().filter(|r| !r.expect.cli_succeeds()) {
        let env = seeded();
        cli(&env, &row.argv, row.stdin);
        if let Some(why) = contents_diff(&untouched, &contents(&env, start)) {
            panic!("{} changed the store:\n{why}", row.label());
        }
    }
}

#[test]
fn every_mcp_tool_has_a_parity_row() {
    let replies = rpc(
        &Env::new(),
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})],
    );
    let listed: BTreeSet<String> = replies[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let rows: Vec<Row> = read_rows().into_iter().chain(write_rows()).collect();
    // A tool needs a row that succeeds: error rows alone never compare a rendered result.
    let covered: BTreeSet<String> = rows
        .iter()
        .filter(|r| r.expect == Expect::Ok)
        .map(|r| r.tool.to_owned())
        .collect();
    let named: BTreeSet<String> = rows.iter().map(|r| r.tool.to_owned()).collect();
    let missing: Vec<&String> = listed.difference(&covered).collect();
    let unknown: Vec<&String> = named.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "MCP tools with no successful parity row: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "parity rows for tools MCP does not list: {unknown:?}"
    );
}

/// A `--json` command and the MCP call it answers like, with how its fields read as text.
struct JsonRow {
    argv: &'static [&'static str],
    stdin: Option<&'static str>,
    tool: &'static str,
    args: Value,
    /// The MCP text the JSON's fields say, rendered as `src/text.rs` does.
    text: fn(&Value) -> String,
}

/// A date as a `TZ=UTC` process prints it.
fn date(v: &Value) -> String {
    Clock::utc(0).date(v.as_i64().unwrap())
}

fn json_rows() -> Vec<JsonRow> {
    vec![
        JsonRow {
            argv: &["--json", "save", "Deploys go out on Tuesdays"],
            stdin: None,
            tool: "save_memory",
            args: json!({"text": "Deploys go out on Tuesdays"}),
            text: |v| {
                assert_eq!(v["new"], true);
                format!(
                    "Saved as #{} in {}.",
                    v["id"],
                    v["project"].as_str().unwrap()
                )
            },
        },
        JsonRow {
            argv: &[
                "save",
                "Use pnpm, not npm, in the shop repo",
                "--title",
                "Use pnpm, not npm",
                "--json",
            ],
            stdin: None,
            tool: "save_memory",
            args: json!({"text": "Use pnpm, not npm, in the shop repo", "title": "Use pnpm, not npm"}),
            text: |v| {
                assert_eq!(v["new"], false);
                format!("Already saved as #{}.", v["id"])
            },
        },
        JsonRow {
            argv: &["rules", "add", "Keep commits small", "--json"],
            stdin: None,
            tool: "add_rule",
            args: json!({"then": "Keep commits small"}),
            text: |v| {
                assert_eq!(v["new"], true);
                format!(
                    "Rule saved ({}). The owner syncs rules to tools from the Rules page.",
                    v["id"].as_str().unwrap()
                )
            },
        },
        JsonRow {
            argv: &["rules", "confirm", RULE_COMMIT, "--json"],
            stdin: None,
            tool: "confirm_rule",
            args: json!({"id": RULE_COMMIT}),
            text: |v| {
                format!(
                    "Confirmed rule {} on {}. It stays as it is; only the date it was last checked changed.",
                    v["id"].as_str().unwrap(),
                    date(&v["at"])
                )
            },
        },
        JsonRow {
            argv: &["dismiss", "1", "--reason", "outdated", "--json"],
            stdin: None,
            tool: "dismiss_memory",
            args: json!({"id": 1, "reason": "outdated"}),
            text: |v| {
                assert_eq!(v["dismissed"], true);
                format!(
                    "Dismissed {} #{}. It is hidden from search and context; restore_memory undoes this.",
                    v["type"].as_str().unwrap(),
                    v["id"]
                )
            },
        },
        JsonRow {
            argv: &["restore", "6", "--json"],
            stdin: None,
            tool: "restore_memory",
            args: json!({"id": 6}),
            text: |v| {
                assert_eq!(v["dismissed"], false);
                format!("Restored {} #{}.", v["type"].as_str().unwrap(), v["id"])
            },
        },
        JsonRow {
            argv: &["list", "write", "next", "--json"],
            stdin: Some(r#"["a", "b"]"#),
            tool: "work_state_write",
            args: json!({"list": "next", "items": ["a", "b"]}),
            text: |v| {
                format!(
                    "Saved list \"{}\" with {} item(s) as #{}.",
                    v["list"].as_str().unwrap(),
                    v["count"],
                    v["id"]
                )
            },
        },
        JsonRow {
            argv: &["list", "read", "todo", "--json"],
            stdin: None,
            tool: "work_state_read",
            args: json!({"list": "todo"}),
            text: |v| v["items"].to_string(),
        },
        JsonRow {
            argv: &["facts", "cache", "--include-superseded", "--json"],
            stdin: None,
            tool: "fact_history",
            args: json!({"subject": "cache", "include_superseded": true}),
            text: |v| {
                let lines: Vec<String> = v["facts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| {
                        let s = |k: &str| f[k].as_str().unwrap().to_owned();
                        let until = match &f["valid_to"] {
                            Value::Null => String::new(),
                            to => format!(", until {}", date(to)),
                        };
                        let from = match &f["memory_id"] {
                            Value::Null => String::new(),
                            m => format!(", from #{m}"),
                        };
                        format!(
                            "- #{} {} {} {} (confidence {:.2}, since {}{from}{until}) [{}]",
                            f["id"],
                            s("subject"),
                            s("predicate"),
                            s("object"),
                            f["confidence"].as_f64().unwrap(),
                            date(&f["valid_from"]),
                            s("project")
                        )
                    })
                    .collect();
                lines.join("\n")
            },
        },
        JsonRow {
            argv: &["observations", "2", "--json"],
            stdin: None,
            tool: "get_observations",
            args: json!({"ids": [2]}),
            text: |v| {
                let o = &v[0];
                let s = |k: &str| o[k].as_str().unwrap().to_owned();
                format!(
                    "#{} [{}] {}\n{} · {} · source: {}{}\n{}",
                    o["id"],
                    s("type"),
                    s("title"),
                    s("project"),
                    Clock::utc(0).iso(o["created_at"].as_i64().unwrap()),
                    provenance(o),
                    if o["pinned"] == true {
                        " · pinned"
                    } else {
                        ""
                    },
                    s("text")
                )
            },
        },
    ]
}

/// Where a memory came from, as the texts say it, from its JSON fields; its age as `AGE` (see
/// [`support::ages`]): `claude-code prompt in session s1, AGE`, `note by codex, AGE`.
fn provenance(m: &Value) -> String {
    let s = |k: &str| m[k].as_str().unwrap_or_default().to_owned();
    let tool = s("tool");
    let source = match s("kind").as_str() {
        "prompt" => format!("{tool} prompt"),
        "observation" => format!("{tool} tool call"),
        "event" => format!("{tool} event"),
        "summary" => format!("{tool} session summary"),
        _ => format!("note by {tool}"),
    };
    match m["session_id"].as_str().filter(|s| !s.trim().is_empty()) {
        Some(id) => format!(
            "{source} in session {}, AGE",
            id.chars().take(8).collect::<String>()
        ),
        None => format!("{source}, AGE"),
    }
}

#[test]
fn json_output_is_one_line_whose_fields_match_the_mcp_text() {
    let rows = json_rows();
    let mut failures = Vec::new();
    for row in &rows {
        // Writes among these rows run on separate stores, like the write rows.
        let (cli_env, mcp_env) = (seeded(), seeded());
        let Outcome::Ok(out) = cli(&cli_env, row.argv, row.stdin) else {
            failures.push(format!("aletheia {:?} failed", row.argv));
            continue;
        };
        let [line] = out.lines().collect::<Vec<_>>()[..] else {
            failures.push(format!(
                "aletheia {:?} printed more than one line:\n{out}",
                row.argv
            ));
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            failures.push(format!("aletheia {:?} printed no JSON: {line}", row.argv));
            continue;
        };
        let m = mcp(&mcp_env, &[(row.tool, &row.args)]).remove(0);
        let Outcome::Ok(m) = m else {
            failures.push(format!("{} {} failed: {m:?}", row.tool, row.args));
            continue;
        };
        let expected = (row.text)(&v);
        let m = support::ages(unwrap_memory(&m).unwrap_or(&m));
        let m = m.as_str();
        if m != expected {
            failures.push(format!(
                "aletheia {:?} printed {line}\nwhich reads as:\n{expected}\nbut MCP says:\n{m}",
                row.argv
            ));
        }
    }
    assert_none_failed("--json", rows.len(), &failures);
}

#[test]
fn search_json_lists_the_hits_mcp_lists() {
    // `search --json` is the one command that prints a line per hit rather than one line, so it
    // gets its own check: the same hits, in the same order, as the MCP index.
    let env = seeded();
    let Outcome::Ok(out) = cli(&env, &["search", "pnpm", "--json"], None) else {
        panic!("search --json failed")
    };
    let [Outcome::Ok(text)] = &mcp(&env, &[("search", &json!({"query": "pnpm"}))])[..] else {
        panic!("search failed")
    };
    let from_json: Vec<String> = out
        .lines()
        .map(|l| {
            let h: Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| h[k].as_str().unwrap().to_owned();
            format!(
                "#{} {} [{}] {} ({}, {}{})",
                h["id"],
                date(&h["created_at"]),
                s("type"),
                s("title"),
                s("project"),
                provenance(&h),
                if h["pinned"] == true { ", pinned" } else { "" }
            )
        })
        .collect();
    assert_eq!(
        from_json.join("\n"),
        support::ages(unwrap_memory(text).unwrap())
    );
}

// ---------------------------------------------------------------------------------------------
// Mismatches this file found, pinned once fixed.
// ---------------------------------------------------------------------------------------------

#[test]
fn a_spooled_capture_is_seen_by_both_front_ends() {
    // Regression: a hook that finds the store locked spools its capture, and every CLI command
    // drains the spool first; the MCP server once did not, so a model searching through MCP
    // missed what `aletheia search` showed until something else drained.
    let env = seeded();
    {
        let _lock = env.hold_write_lock();
        env.hook(
            "claude-code",
            "UserPromptSubmit",
            support::prompt_payload("remember the zebra deployment"),
        );
    }
    assert_eq!(env.spool_lines(), 1, "the capture was spooled");
    let row = ok("search", json!({"query": "zebra"}), &["search", "zebra"]);
    // MCP first: the CLI drains the spool as it opens the store, which would hide the gap.
    let m = mcp(&env, &[(row.tool, &row.args)]).remove(0);
    let c = cli(&env, &row.argv, None);
    assert_eq!(mismatch(&row, &c, &m), None, "{}", row.label());
}
