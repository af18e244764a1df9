//! The documented texts for each operation's result: what an MCP client's model reads and what the
//! command line prints on a terminal. Both show the same words, so they share this one
//! rendering; JSON output (`--json`, and HTTP later) serialises the result itself instead.
//!
//! Times are shown in the clock's time zone (the user's own): dates and minutes bare, full
//! timestamps with their offset. Every text is neutralised as a whole when it is made
//! ([`Rendered`]'s constructors), so no stored field, however it is laid out, can close the
//! `<aletheia-memory>` block a front end wraps recalled text in, or open one of its own.

use crate::model::Memory;
use crate::ops::{self, Operation};
use crate::recall::provenance;
use crate::recall::wrap::{neutralise, wrap};
use crate::time::Clock;

/// An operation's result as text. Made only by the constructors below, which neutralise it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    text: String,
    /// Whether the text is recalled memory, which a model must be told is data (MCP wraps it;
    /// a terminal shows it as it is).
    recalled: bool,
}

impl Rendered {
    fn plain(text: impl AsRef<str>) -> Rendered {
        Rendered {
            text: neutralise(text.as_ref()),
            recalled: false,
        }
    }

    fn recalled(text: impl AsRef<str>) -> Rendered {
        Rendered {
            text: neutralise(text.as_ref()),
            recalled: true,
        }
    }

    /// The session-start block, which [`crate::recall::context`] wrapped (and so neutralised)
    /// itself.
    fn block(text: &str) -> Rendered {
        Rendered {
            text: text.to_owned(),
            recalled: false,
        }
    }

    /// The text as a terminal shows it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text as a model reads it: recalled memory wrapped as data, the rest as it is.
    pub fn for_model(self) -> String {
        if self.recalled {
            wrap(&self.text)
        } else {
            self.text
        }
    }
}

/// An operation whose result has a text.
pub trait Text: Operation {
    fn text(out: &Self::Output, clock: &Clock) -> Rendered;
}

/// The index line of a hit: `#ID DATE [type] title (project, PROVENANCE[, pinned])`, where
/// the provenance says where it came from and how old it is (see [`provenance::full`]).
pub fn hit_line(m: &Memory, clock: &Clock) -> String {
    format!(
        "#{} {} [{}] {} ({}, {}{})",
        m.id,
        clock.date(m.created_at),
        m.mtype,
        m.title.replace('\n', " "),
        m.project,
        provenance::full(m, clock.now()),
        if m.pinned { ", pinned" } else { "" }
    )
}

/// A hit's line, with its marks when it has them: `… (shop, …) [replaced by #42] [stale:
/// src/a.rs changed 2 days later]`.
fn hit_line_marked(h: &crate::recall::search::Hit, clock: &Clock) -> String {
    let mut line = hit_line(&h.memory, clock);
    if let Some(newer) = h.replaced_by {
        line.push_str(&format!(" [replaced by #{newer}]"));
    }
    if let Some(mark) = &h.stale {
        line.push_str(&format!(" [{mark}]"));
    }
    line
}

impl Text for ops::recall::Search {
    fn text(r: &Self::Output, clock: &Clock) -> Rendered {
        if r.hits.is_empty() && r.facts.is_empty() {
            return Rendered::plain(format!(
                "No matches. {}",
                r.reason.as_deref().unwrap_or_default()
            ));
        }
        let mut lines: Vec<String> = r
            .facts
            .iter()
            .map(|f| format!("fact #{} {}", f.id, f.line(clock)))
            .collect();
        lines.extend(r.hits.iter().map(|h| hit_line_marked(h, clock)));
        Rendered::recalled(lines.join("\n"))
    }
}

impl Text for ops::recall::Timeline {
    /// `→ #1 2026-10-29T19:46 [decision] title (claude-code prompt, 3 weeks ago)` for the
    /// anchor, two spaces for the others.
    fn text(t: &Self::Output, clock: &Clock) -> Rendered {
        let Some(t) = t else {
            return Rendered::plain("Nothing to anchor on.");
        };
        let lines: Vec<String> = t
            .rows
            .iter()
            .map(|m| {
                format!(
                    "{} #{} {} [{}] {} ({})",
                    if m.id == t.anchor { "→" } else { " " },
                    m.id,
                    clock.date_minute(m.created_at),
                    m.mtype,
                    m.title.replace('\n', " "),
                    provenance::brief(m, clock.now())
                )
            })
            .collect();
        Rendered::recalled(lines.join("\n"))
    }
}

impl Text for ops::recall::GetObservations {
    /// Each memory in full, newest first, separated by `---`.
    fn text(found: &Self::Output, clock: &Clock) -> Rendered {
        if found.is_empty() {
            return Rendered::plain("No memories with those ids.");
        }
        let parts: Vec<String> = found
            .iter()
            .map(|o| {
                let m = &o.memory;
                let mut s = format!(
                    "#{} [{}] {}\n{} · {} · source: {}{}\n{}",
                    m.id,
                    m.mtype,
                    m.title,
                    m.project,
                    clock.iso(m.created_at),
                    provenance::full(m, clock.now()),
                    if m.pinned { " · pinned" } else { "" },
                    m.text
                );
                if !o.facts.is_empty() {
                    s.push_str("\nFacts:");
                    for f in &o.facts {
                        s.push_str(&format!("\n- {}", f.line(clock)));
                    }
                }
                if !m.files.is_empty() {
                    s.push_str(&format!("\nFiles: {}", m.files.join(", ")));
                }
                if let Some(e) = &o.episode {
                    s.push_str(&format!("\nOriginal message (episode #{}): {}", m.id, e));
                }
                s
            })
            .collect();
        Rendered::recalled(parts.join("\n---\n"))
    }
}

impl Text for ops::recall::SessionStartContext {
    /// The block, which wraps itself.
    fn text(out: &Self::Output, _: &Clock) -> Rendered {
        Rendered::block(&out.block)
    }
}

impl Text for ops::recall::FactHistory {
    fn text(out: &Self::Output, clock: &Clock) -> Rendered {
        if out.facts.is_empty() {
            return Rendered::plain(format!("No facts found for subject \"{}\".", out.subject));
        }
        let lines: Vec<String> = out
            .facts
            .iter()
            .map(|f| format!("- #{} {} [{}]", f.id, f.line(clock), f.project))
            .collect();
        Rendered::recalled(lines.join("\n"))
    }
}

impl Text for ops::recall::FactSubjects {
    /// `- postgres database: 3 facts` per subject, then how many more there are and how to
    /// read one subject's facts.
    fn text(out: &Self::Output, _: &Clock) -> Rendered {
        let list = &out.subjects;
        let place = out
            .project
            .as_deref()
            .map(|p| format!(" in {p}"))
            .unwrap_or_default();
        if list.subjects.is_empty() {
            return Rendered::plain(format!(
                "No facts{place} yet: `aletheia compress` learns them from finished sessions."
            ));
        }
        let mut lines: Vec<String> = list
            .subjects
            .iter()
            .map(|s| {
                let noun = if s.facts == 1 { "fact" } else { "facts" };
                format!("- {}: {} {noun}", s.subject.replace('\n', " "), s.facts)
            })
            .collect();
        let shown = i64::try_from(list.subjects.len()).unwrap_or(i64::MAX);
        if list.total > shown {
            lines.push(format!(
                "{shown} of {} subjects{place}, most facts first: --limit (up to 100) shows more.",
                list.total
            ));
        }
        lines.push(
            "`aletheia facts WORDS` shows the facts of every subject holding those words.".into(),
        );
        Rendered::recalled(lines.join("\n"))
    }
}

impl Text for ops::review::ReviewList {
    /// Each proposal (what, from whom, when, why it waits), then each review's two facts, then
    /// how to settle one.
    fn text(inbox: &Self::Output, clock: &Clock) -> Rendered {
        if inbox.proposals.is_empty() && inbox.facts.is_empty() {
            return Rendered::plain("Nothing waits for review.");
        }
        let mut lines = Vec::new();
        for p in &inbox.proposals {
            let place = if p.project.is_empty() {
                String::new()
            } else {
                format!(" in {}", p.project)
            };
            lines.push(format!(
                "p{} {}{place}, from {} on {} ({} ago): waits because {}.",
                p.id,
                p.summary.replace('\n', " "),
                p.client,
                clock.date_minute(p.created_at),
                crate::time::span(clock.now() - p.created_at),
                p.why
            ));
        }
        for r in &inbox.facts {
            let (subject, predicate) = r
                .facts
                .first()
                .map(|f| (f.subject.as_str(), f.predicate.as_str()))
                .unwrap_or_default();
            lines.push(format!(
                "Review #{} ({}, since {}): two facts disagree about {subject} {predicate}:",
                r.id,
                r.project,
                clock.date(r.created_at),
            ));
            lines.extend(
                r.facts
                    .iter()
                    .map(|f| format!("- fact #{}: {}", f.id, f.line(clock))),
            );
        }
        if !inbox.proposals.is_empty() {
            lines.push(
                "Accept or reject a proposal with: aletheia review accept pID (or reject pID)."
                    .into(),
            );
        }
        if !inbox.facts.is_empty() {
            lines.push("Keep one with: aletheia review accept FACT_ID (or reject FACT_ID).".into());
        }
        Rendered::recalled(lines.join("\n"))
    }
}

impl Text for ops::review::ProposalAccept {
    fn text(d: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Accepted p{} from {}: {}. It is written as {} asked.",
            d.proposal.id,
            d.proposal.client,
            d.proposal.summary.replace('\n', " "),
            d.proposal.client
        ))
    }
}

impl Text for ops::review::ProposalReject {
    fn text(d: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Rejected p{} from {}: {}. Nothing was written.",
            d.proposal.id,
            d.proposal.client,
            d.proposal.summary.replace('\n', " ")
        ))
    }
}

impl Text for ops::upkeep::Verify {
    /// What held, then the first entry that does not and each item that is not as left.
    fn text(v: &Self::Output, _: &Clock) -> Rendered {
        let mut lines = vec![format!(
            "History of machine {}: {} {} checked.",
            v.machine,
            v.entries,
            if v.entries == 1 { "entry" } else { "entries" }
        )];
        if v.baseline > 0 {
            lines.push(format!(
                "Recorded {} rows stored before the history began.",
                v.baseline
            ));
        }
        if v.unsigned > 0 {
            lines.push(format!(
                "{} changes were never signed: made while the machine key could not be read, or outside aletheia.",
                v.unsigned
            ));
        }
        match &v.broken {
            Some(b) => lines.push(b.clone()),
            None => lines.push("Every chain and signature holds.".into()),
        }
        if v.mismatched == 0 {
            lines.push("Every memory, rule, fact and list is as the history left it.".into());
        } else {
            lines.extend(v.mismatches.iter().cloned());
            if v.mismatched > v.mismatches.len() {
                lines.push(format!("… and {} more.", v.mismatched - v.mismatches.len()));
            }
        }
        Rendered::plain(lines.join("\n"))
    }
}

impl Text for ops::drift::Drift {
    /// Each stale memory's search line and what changed; then how many were looked at.
    fn text(r: &Self::Output, clock: &Clock) -> Rendered {
        let mut lines: Vec<String> = r
            .stale
            .iter()
            .map(|s| format!("{} [{}]", hit_line(&s.memory, clock), s.mark))
            .collect();
        lines.push(format!(
            "{} of {} memories that name files in {} are stale.",
            r.stale.len(),
            r.checked,
            r.project
        ));
        Rendered::recalled(lines.join("\n"))
    }
}

/// How far apart when a memory was said and when it was stored must be for `inspect` to show
/// both: an hour, so a hook's own clock never shows.
const STORED_APART_MS: i64 = 3_600_000;

impl Text for ops::inspect::Inspect {
    /// The memory's line, then each version newest first: its number, whether original or an
    /// edit, who wrote it and when, and its text.
    fn text(r: &Self::Output, clock: &Clock) -> Rendered {
        let when = |at: i64| {
            format!(
                "{} ({})",
                clock.date_minute(at),
                provenance::age(at, clock.now())
            )
        };
        let mut lines = vec![hit_line(&r.memory, clock)];
        // A back-filled or imported memory was said long before this store took it in.
        if let Some(stored) = r
            .stored_at
            .filter(|at| (at - r.memory.created_at).abs() > STORED_APART_MS)
        {
            lines.push(format!(
                "Said or done {}; stored {}.",
                when(r.memory.created_at),
                when(stored)
            ));
        }
        lines.push(match r.versions.len() {
            1 => "1 version: never edited.".to_owned(),
            n => format!("{n} versions, newest first:"),
        });
        for v in &r.versions {
            let replaced = match v.replaced_at {
                None => "current".to_owned(),
                Some(at) => format!("replaced {}", when(at)),
            };
            lines.push(format!(
                "v{} {} by {}, written {}; {replaced}",
                v.version,
                v.classification,
                v.source,
                when(v.written_at)
            ));
            lines.push(format!("  {}", v.title.replace('\n', " ")));
            if v.text != v.title {
                lines.push(format!(
                    "  {}",
                    crate::model::cut_chars(&v.text.replace('\n', " "), 300)
                ));
            }
        }
        for l in &r.links {
            lines.push(if l.older == r.memory.id {
                format!(
                    "Replaced by #{} ({}), {}.",
                    l.newer,
                    l.cause.as_str(),
                    when(l.created_at)
                )
            } else {
                format!(
                    "Replaces #{} ({}), {}.",
                    l.older,
                    l.cause.as_str(),
                    when(l.created_at)
                )
            });
        }
        let f = &r.feedback;
        if f.favourite || f.positive > 0 || f.negative > 0 {
            lines.push(format!(
                "Feedback: {}{} helpful, {} not helpful{}.",
                if f.favourite { "favourite, " } else { "" },
                f.positive,
                f.negative,
                if f.hides() {
                    "; left out of the session-start block"
                } else {
                    ""
                }
            ));
        }
        Rendered::recalled(lines.join("\n"))
    }
}

impl Text for ops::feedback::GiveFeedback {
    fn text(r: &Self::Output, _: &Clock) -> Rendered {
        let f = &r.feedback;
        Rendered::plain(format!(
            "#{}: {}{} helpful, {} not helpful.{}",
            r.id,
            if f.favourite { "favourite, " } else { "" },
            f.positive,
            f.negative,
            if r.hidden_from_context {
                " It is left out of the session-start block."
            } else {
                ""
            }
        ))
    }
}

impl Text for ops::why::Why {
    /// The chain, one step a line, from what was asked about back to what stored it.
    fn text(c: &Self::Output, clock: &Clock) -> Rendered {
        let when = |at: i64| {
            format!(
                "{} ({})",
                clock.date_minute(at),
                provenance::age(at, clock.now())
            )
        };
        let mut lines = Vec::new();
        if let Some(f) = &c.fact {
            lines.push(format!("fact #{}: {} [{}]", f.id, f.line(clock), f.project));
            lines.push(format!(
                "  learned by {} on {}",
                if f.source == "rules" {
                    "the rule extractor"
                } else {
                    f.source.as_str()
                },
                when(f.recorded_at)
            ));
            if c.memory.is_none() {
                lines.push("  the memory it was read from is no longer stored.".into());
            }
        }
        if let Some(m) = &c.memory {
            lines.push(format!(
                "memory #{} [{}] {} ({})",
                m.id,
                m.mtype,
                m.title.replace('\n', " "),
                m.project
            ));
            lines.push(format!(
                "  stored {} by {}{}",
                when(m.created_at),
                ops::why::stored_by(m),
                if m.dismissed { "; dismissed since" } else { "" }
            ));
            if let Some(e) = &c.episode {
                lines.push(format!(
                    "  compression rewrote it; the original message is kept as episode #{}: {}",
                    m.id,
                    crate::model::cut_chars(&e.replace('\n', " "), 200)
                ));
            }
            if let Some(s) = &c.session {
                lines.push(format!(
                    "session {}: {} memories from {} to {}",
                    provenance::short_session(&s.id),
                    s.memories,
                    clock.date_minute(s.first_at),
                    clock.date_minute(s.last_at)
                ));
                if let Some(p) = &s.first_prompt {
                    lines.push(format!(
                        "  it began with prompt #{} at {}: {}",
                        p.id,
                        clock.date_minute(p.created_at),
                        crate::model::cut_chars(&p.title.replace('\n', " "), 120)
                    ));
                }
            }
            if let Some(p) = &c.proposal {
                lines.push(format!(
                    "  proposed by {} as p{} on {} (it waited because {}); accepted by {}{}",
                    p.client,
                    p.id,
                    clock.date_minute(p.created_at),
                    p.why,
                    p.decided_by.as_deref().unwrap_or("the user"),
                    p.decided_at
                        .map(|at| format!(" on {}", clock.date_minute(at)))
                        .unwrap_or_default()
                ));
            }
            if !c.facts.is_empty() {
                lines.push("facts read from it:".into());
                lines.extend(
                    c.facts
                        .iter()
                        .map(|f| format!("  fact #{} {}", f.id, f.line(clock))),
                );
            }
        }
        Rendered::recalled(lines.join("\n"))
    }
}

impl Text for ops::trust::SetTrust {
    fn text(t: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(match t.level {
            Some(level) => format!(
                "{} is at {}{}.",
                t.client,
                level.as_str(),
                match level {
                    ops::trust::Level::Read => ": every write it tries is refused",
                    ops::trust::Level::Propose =>
                        ": what it writes waits for you in aletheia review",
                    ops::trust::Level::Write => ": it writes memories and rules directly",
                }
            ),
            None => format!(
                "{} has the defaults again: it writes memories directly and proposes rules.",
                t.client
            ),
        })
    }
}

impl Text for ops::trust::ListTrust {
    fn text(l: &Self::Output, clock: &Clock) -> Rendered {
        let mut lines: Vec<String> = l
            .clients
            .iter()
            .map(|c| format!("{}  {}  (set {})", c.client, c.level, clock.date(c.set_at)))
            .collect();
        lines.push(
            "Every other client writes memories directly and proposes rules (the defaults).".into(),
        );
        Rendered::plain(lines.join("\n"))
    }
}

/// `#1, #2`: fact ids in a sentence.
fn fact_ids(ids: &[i64]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Text for ops::review::ReviewAccept {
    fn text(a: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Kept fact #{}; closed fact {}, which stays as history.",
            a.kept,
            fact_ids(&a.closed)
        ))
    }
}

impl Text for ops::review::ReviewReject {
    fn text(r: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Dismissed fact #{}; kept fact {}.",
            r.dismissed,
            fact_ids(&r.kept)
        ))
    }
}

impl Text for ops::rules::ListRules {
    fn text(list: &Self::Output, clock: &Clock) -> Rendered {
        if list.is_empty() {
            return Rendered::plain("No rules yet. add_rule adds one.");
        }
        let lines: Vec<String> = list
            .iter()
            .map(|r| {
                let mut s = format!(
                    "- {}  {}  (id {}, added {}, source: {}, last confirmed {})",
                    r.context_line(),
                    r.scope(),
                    r.id,
                    clock.date(r.created_at),
                    r.source,
                    clock.date(r.confirmed_at)
                );
                if let Some(why) = &r.recheck {
                    s.push_str(&format!("  [re-check: {why}]"));
                }
                s
            })
            .collect();
        Rendered::plain(lines.join("\n"))
    }
}

impl Text for ops::lists::WorkStateRead {
    /// The items as compact JSON.
    fn text(out: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(match &out.items {
            Some(items) => items.to_string(),
            None => format!("No list named \"{}\".", out.list),
        })
    }
}

impl Text for ops::memories::SaveMemory {
    fn text(s: &Self::Output, _: &Clock) -> Rendered {
        let mut out = if s.new {
            format!("Saved as #{} in {}.", s.id, s.project)
        } else {
            format!("Already saved as #{}.", s.id)
        };
        if !s.replaces.is_empty() {
            let ids: Vec<String> = s.replaces.iter().map(|id| format!("#{id}")).collect();
            out.push_str(&format!(
                " It replaces {}, which stays, marked as replaced.",
                ids.join(", ")
            ));
        }
        if let Some(why) = &s.unchecked {
            out.push_str(&format!(
                " It was not compared with older memories ({why}); it is saved all the same."
            ));
        }
        Rendered::plain(out)
    }
}

impl Text for ops::curate::EditNote {
    fn text(e: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Edited #{}; the text it replaced is kept (aletheia inspect {}).",
            e.id, e.id
        ))
    }
}

impl Text for ops::rules::AddRule {
    fn text(r: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(if r.new {
            format!(
                "Rule saved ({}). The owner syncs rules to tools from the Rules page.",
                r.id
            )
        } else {
            format!("That rule is already saved ({}).", r.id)
        })
    }
}

/// What `aletheia rules add` prints: MCP's sentence names the dashboard, which is where a client's
/// owner syncs; the terminal names the scope the rule got, how to give the other one, and the
/// command that writes rules into the tools' files. `project` is the working directory's.
pub fn rule_added(
    r: &ops::rules::RuleSaved,
    tier: ops::rules::ScopeTier,
    name: &str,
    project: &str,
) -> String {
    use ops::rules::ScopeTier;
    if !r.new {
        return format!("That rule is already saved ({}).", r.id);
    }
    let name = name.trim();
    // Quoted when the shell would split or read it, so the command can be pasted as it is.
    let quoted = if project
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
    {
        project.to_owned()
    } else {
        format!("'{}'", project.replace('\'', r"'\''"))
    };
    let to_this_project = format!(
        "to keep a rule to this project, add it with --scope-tier project --scope-name {quoted}"
    );
    let reach = match tier {
        ScopeTier::Everywhere => {
            format!("[everywhere]: sessions in every project start with it; {to_this_project}")
        }
        ScopeTier::Project => format!(
            "[project: {name}]: only that project's sessions start with it; for every project, add it without --scope-tier"
        ),
        ScopeTier::Situation => format!(
            "[situation: {name}]: it applies in every project where that situation arises; {to_this_project}"
        ),
    };
    format!(
        "Rule saved ({}) {reach}. `aletheia rules sync` writes the rules into this project's tool rule files.",
        r.id
    )
}

impl Text for ops::rules::ConfirmRule {
    fn text(c: &Self::Output, clock: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Confirmed rule {} on {}. It stays as it is; only the date it was last checked changed.",
            c.id,
            clock.date(c.at)
        ))
    }
}

impl Text for ops::rules::SyncRules {
    /// One line per file: `created /p/CLAUDE.md (claude-code)`, `skipped … : why`.
    fn text(r: &Self::Output, _: &Clock) -> Rendered {
        if r.tools.is_empty() {
            return Rendered::plain(format!(
                "No tool is connected in {}: nothing written. `aletheia install <tool> --write` connects one; --tool <tool> writes one tool's file anyway.",
                r.root.display()
            ));
        }
        let lines: Vec<String> = r
            .files
            .iter()
            .map(|f| {
                let mut s = format!(
                    "{} {} ({})",
                    f.action.as_str(),
                    f.path.display(),
                    f.hosts.join(", ")
                );
                if let Some(why) = &f.reason {
                    s.push_str(&format!(": {why}"));
                }
                s
            })
            .collect();
        Rendered::plain(lines.join("\n"))
    }
}

impl Text for ops::memories::DismissMemory {
    fn text(c: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Dismissed {} #{}. It is hidden from search and context; restore_memory undoes this.",
            c.item_type.as_str(),
            c.id
        ))
    }
}

impl Text for ops::memories::RestoreMemory {
    fn text(c: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!("Restored {} #{}.", c.item_type.as_str(), c.id))
    }
}

impl Text for ops::lists::WorkStateWrite {
    fn text(s: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Saved list \"{}\" with {} item(s) as #{}.",
            s.list, s.count, s.id
        ))
    }
}

impl Text for ops::transfer::Import {
    fn text(i: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Imported {} memories ({} already present).",
            i.new, i.duplicates
        ))
    }
}

impl Text for ops::upkeep::Scrub {
    fn text(s: &Self::Output, _: &Clock) -> Rendered {
        let mut text = format!("Scrubbed {} memories.", s.memories);
        if s.records > 0 {
            text.push_str(&format!(
                " Also {} other rows (rules, lists, facts, audit entries, tool and session names).",
                s.records
            ));
        }
        if s.projects > 0 {
            text.push_str(&format!(
                " Moved {} rows to redacted project keys, merging projects that became one.",
                s.projects
            ));
        }
        Rendered::plain(text)
    }
}

impl Text for ops::upkeep::Drain {
    fn text(r: &Self::Output, _: &Clock) -> Rendered {
        Rendered::plain(format!(
            "Drained the spool: {} stored, {} already present, {} rejected.",
            r.stored, r.duplicates, r.rejected
        ))
    }
}

impl Text for ops::compress::Jobs {
    /// The queue's counts, then one line per job, newest first, with the error of a job that
    /// failed or waits for a retry.
    fn text(l: &Self::Output, clock: &Clock) -> Rendered {
        let c = &l.counts;
        let mut lines = vec![format!(
            "Queue: {} session(s) waiting; jobs: {} pending, {} running, {} done, {} failed.",
            c.queued_sessions, c.pending, c.running, c.done, c.failed
        )];
        for j in &l.jobs {
            let scope = match &j.session_id {
                Some(s) => format!("session {}", crate::model::cut_chars(s, 12)),
                None => "project notes".into(),
            };
            let mut line = format!(
                "- job {} {} ({}, {}): {}, attempt {}",
                j.id,
                clock.date_minute(j.updated_at),
                j.project,
                scope,
                j.state,
                j.attempts
            );
            if j.state == "pending" && j.attempts > 0 {
                line.push_str(&format!(", retry at {}", clock.date_minute(j.run_after)));
            }
            if let Some(e) = j.last_error.as_deref().filter(|_| j.state != "done") {
                line.push_str(&format!(": {}", e.replace('\n', " ")));
            }
            lines.push(line);
        }
        Rendered::plain(lines.join("\n"))
    }
}

/// What a manual `compress` did, in one line.
pub fn compress_summary(
    ends: &[crate::compress::worker::JobEnd],
    counts: &crate::store::jobs::JobCounts,
) -> String {
    use crate::compress::worker::Ended;
    if ends.is_empty() {
        return if counts.running > 0 {
            format!(
                "Nothing to compress now: {} job(s) running in another worker, or waiting for a stopped worker's lease to expire.",
                counts.running
            )
        } else {
            "Nothing to compress: no session is waiting.".into()
        };
    }
    let (mut done, mut failed, mut new, mut known, mut review) = (0, 0, 0, 0, 0);
    for e in ends {
        match &e.ended {
            Ended::Done { report } => {
                done += 1;
                new += report.facts_new;
                known += report.facts_known;
                review += report.for_review;
            }
            Ended::Failed { .. } => failed += 1,
            _ => {}
        }
    }
    let mut s = format!("Compressed {done} job(s): {new} new fact(s), {known} already known");
    if review > 0 {
        s.push_str(&format!(
            ", {review} waiting for review (aletheia review list)"
        ));
    }
    s.push('.');
    if failed > 0 {
        s.push_str(&format!(
            " {failed} job(s) failed: see aletheia compress --status."
        ));
    }
    if counts.pending + counts.running > 0 {
        s.push_str(&format!(
            " {} job(s) still queued.",
            counts.pending + counts.running
        ));
    }
    s
}
