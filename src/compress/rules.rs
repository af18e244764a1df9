//! The rule extractor: facts from plain sentences, with no model.
//!
//! It is what runs when no model provider is configured, so it must never make memory worse.
//! A wrong fact recalled into a later session costs more than a missing one, because the reader
//! trusts it. So every stage is a filter that drops what it is unsure of, and a fact survives
//! only as a short, declarative "subject verb object" sentence about how things are now.
//!
//! The pipeline:
//!
//! 1. Lines. Session text mixes prose with commands, compiler output, stack traces, diffs, logs,
//!    code and configuration. Lines that look like any of those are dropped first, and they also
//!    end the paragraph they interrupt, so a wrapped sentence is never glued to output.
//! 2. Sentences. A paragraph is cut at `.`, `!`, `?` and `;` followed by a space, except after an
//!    abbreviation ("e.g."); a period inside a token ("Node 22.4", "config.toml") never cuts.
//! 3. Shape. A sentence is kept only when it states something: no question, instruction,
//!    pronoun opening, condition, hedge, negation, plan, past event, comparison, example or
//!    passing arrangement ("still", "for now").
//! 4. Verb. The first verb from a fixed list that is used as a verb splits the sentence into
//!    subject and object. Statements joined by "and", each with its own subject and verb, are
//!    read one by one; a second verb sharing the subject drops the sentence.
//! 5. Quality gate. Both sides must be short, concrete phrases without a second clause.
//! 6. Standing. Session summaries are full of things that are true only for a while: readings
//!    ("p99 latency is 40 ms"), passing states ("The queue is empty"), events ("The deploy is
//!    at 3 pm") and people ("Jordan is the reviewer"). None of them is kept, while a configured
//!    value ("The HTTP timeout is 10 seconds") is how things are and stays. After "is", a fact
//!    names something ("is Postgres 15", "is the source of truth") or how it is set up ("is
//!    built with Vite", "is stored in Vault"); a bare state ("is untouched", "are updated") or a
//!    place ("is in the PR description") is the session's news.
//!
//! The word lists are plain strings of space-separated words: they are read by people far more
//! often than by the program, and a list per line keeps them short.

use std::collections::HashSet;
use std::sync::LazyLock;

use jiff::civil::Date;
use jiff::tz::TimeZone;
use regex_automata::meta::Regex;

use super::Candidate;

/// Confidence of a rule-extracted fact with a date, and without one.
pub const DATED_CONFIDENCE: f64 = 0.55;
pub const UNDATED_CONFIDENCE: f64 = 0.45;
/// At most this many facts per window.
pub const MAX_PER_WINDOW: usize = 5;

/// Facts in one text (no per-window cap), in the order they appear.
pub fn extract(text: &str) -> Vec<Candidate> {
    paragraphs(text)
        .iter()
        .flat_map(|p| sentences(p))
        .flat_map(facts)
        .collect()
}

/// Facts in one window of texts: each text's facts in order, each fact once (same subject,
/// predicate and object, ignoring case), the first [`MAX_PER_WINDOW`]; with the index of the
/// text each came from.
pub fn extract_window<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<(usize, Candidate)> {
    let mut seen = HashSet::new();
    texts
        .into_iter()
        .enumerate()
        .flat_map(|(i, t)| extract(t).into_iter().map(move |c| (i, c)))
        .filter(|(_, c)| {
            seen.insert((
                c.subject.to_lowercase(),
                c.predicate.to_lowercase(),
                c.object.to_lowercase(),
            ))
        })
        .take(MAX_PER_WINDOW)
        .collect()
}

// 1. Lines ------------------------------------------------------------------------------------

/// Prose paragraphs, with every line that is not prose removed.
///
/// A line joins the previous one only when that one did not end a sentence and this one starts
/// in lower case: a wrapped sentence. Anything else starts a new paragraph, because notes often
/// put one statement per line without a final period.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_fence = false;
    let mut in_diff = false;
    for raw in text.lines() {
        let line = raw.trim();
        let keep = if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            None
        } else if in_fence {
            None
        } else if is_diff_header(line) {
            in_diff = true;
            None
        } else if in_diff && raw.starts_with([' ', '+', '-', '\\']) {
            // Context lines of a hunk are file content, not statements made in the session.
            None
        } else {
            in_diff = false;
            prose(raw)
        };
        let Some((content, item)) = keep else {
            out.extend(take(&mut current));
            continue;
        };
        let open = !current.is_empty() && !current.ends_with(['.', '!', '?', ':']);
        if item
            || !open
            || !content.starts_with(char::is_lowercase)
            || stands_alone(&current, content)
        {
            out.extend(take(&mut current));
        } else {
            current.push(' ');
        }
        current.push_str(content);
    }
    out.extend(take(&mut current));
    out
}

/// Notes often hold one statement per line, in lower case and without a period ("bootloader
/// requires signed images"). A lower-case line is its own sentence, not the rest of a wrapped
/// one, when both it and the line before state a fact by themselves; a wrapped line cannot, as
/// it leaves a phrase of its sentence behind on the line before.
fn stands_alone(current: &str, line: &str) -> bool {
    let before = sentences(current).last().copied().unwrap_or(current);
    !facts(before).is_empty() && !facts(line).is_empty()
}

fn take(current: &mut String) -> Option<String> {
    (!current.is_empty()).then(|| std::mem::take(current))
}

fn is_diff_header(line: &str) -> bool {
    const HEADERS: &[&str] = &["diff --git ", "@@ ", "--- ", "+++ "];
    let index = line.starts_with("index ") && line.contains("..");
    (index || HEADERS.iter().any(|h| line.starts_with(h))) && !line.ends_with('.')
}

/// The prose in a line, without any list marker, and whether it was a list item; `None` when
/// the line is anything but prose.
fn prose(raw: &str) -> Option<(&str, bool)> {
    let line = raw.trim();
    // An indented line is code in Markdown and output in a pasted terminal.
    if line.is_empty() || raw.starts_with('\t') || raw.starts_with("    ") {
        return None;
    }
    // A numbered item is a step to take or one of a list of changes made.
    if numbered(line) {
        return None;
    }
    let (line, item) = match line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        // A task box ("- [ ] ...") is left in place, so the line is not prose: a task is work
        // to do or done, not how things are.
        Some(rest) => (rest.trim_start(), true),
        None => (line, false),
    };
    // Headings, quotes, tables, diff lines, prompts, structured data, comments, emphasis.
    if !line.starts_with(|c: char| c.is_alphanumeric() || c == '`') {
        return None;
    }
    // "Finished the cache migration. The API reads from Valkey." is a summary, not a build.
    let status = TOOL_STATUS.is_match(line) && !several_sentences(line);
    if status || LINE_NOISE.is_match(line) || looks_like_command(line) || looks_like_code(line) {
        return None;
    }
    Some((strip_label(line)?, item))
}

/// "1. ", "12) ".
fn numbered(line: &str) -> bool {
    let digits = line
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(line.len());
    let tail = &line[digits..];
    (1..=3).contains(&digits) && (tail.starts_with(". ") || tail.starts_with(") "))
}

/// A line of prose with more than one sentence: a sentence end followed by a new sentence.
fn several_sentences(line: &str) -> bool {
    line.ends_with('.')
        && line
            .match_indices(". ")
            .any(|(i, _)| opens_sentence(&line[i + 2..]))
}

/// Whether text after a period opens a sentence: a capital, or a name written with a small
/// letter first and a capital inside ("iOS builds pass", "eBPF probes attach"). Any other
/// lower-case word means the period was an abbreviation's.
fn opens_sentence(after: &str) -> bool {
    let word = after.split_whitespace().next().unwrap_or("");
    !word.starts_with(char::is_lowercase) || word.chars().any(char::is_uppercase)
}

/// Labels of lines that are work to do or open questions, not statements.
const TASK_LABELS: &str = "todo fixme xxx hack wip tbd q question questions idea ideas plan \
    plans next goal goals maybe open";

/// `Note: the API uses JWT.` keeps its sentence; `port: 8080` and `TODO: ...` are dropped.
fn strip_label(line: &str) -> Option<&str> {
    let Some((key, rest)) = line.split_once(':') else {
        return Some(line);
    };
    if key.contains([' ', '`']) {
        return Some(line);
    }
    let rest = rest.trim();
    let is_label = !has(TASK_LABELS, &key.to_lowercase())
        && key.starts_with(char::is_uppercase)
        && key.chars().all(char::is_alphabetic)
        && rest.split_whitespace().count() >= 3
        && rest.starts_with(|c: char| c.is_alphabetic() || c == '`');
    is_label.then_some(rest)
}

/// Terminal output, logs, errors and traces, recognised by their shape.
static LINE_NOISE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // Log lines: a timestamp first, an ISO timestamp anywhere, a clock time, a level.
        r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}",
        r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}",
        r"|\b\d{1,2}:\d{2}:\d{2}\b",
        r"|\b(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL|PANIC|PASS|FAIL)\b",
        r"|(?i:\[(trace|debug|info|warn|warning|error|fatal)\]|\blevel=)",
        // Compiler, test runner and runtime output.
        r"|(?i:^(error|warning|warn|fatal|panic|help|hint|caused by|traceback|exception",
        r"|stack backtrace|npm err|err!|test result)\b)",
        r"|[A-Z][a-z]+(Error|Exception)\b|\b(Error|error)(\[|:)|panicked at",
        r"|(?i:exit (code|status)|no such file|command not found|permission denied",
        r"|segmentation fault|core dumped|stack trace)",
        // A source location (`src/main.rs:42:5`, `line 12`) or a stack frame.
        r"|[\w/.-]+\.[A-Za-z]\w*:\d+|(?i:\bline \d+\b)|^at\s+\S+\s*\(|^File \x22|^\d+:\s+\S*::",
        r"|-->",
        // A shell prompt: `user@host:~$`, `PS C:\>`.
        r"|^[\w.-]+@[\w.-]+[:~]|^PS [A-Z]:|^[A-Z]:\\",
        // A line that is one path or URL.
        r"|^\S*(://|/|\\)\S*$",
    ))
    .expect("the line-noise pattern compiles")
});

/// The status word a build tool or test runner starts its lines with. A summary may start with
/// the same word ("Finished the refactor."), so it only counts on a line of one sentence.
static TOOL_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i:^(failed|failures|compiling|finished|downloading|installing|collecting",
        r"|successfully|running \d|ok|fail|passed)\b)",
    ))
    .expect("the tool-status pattern compiles")
});

/// Programs people type at a prompt.
const COMMANDS: &str = "apt apt-get aws bash brew bun bundle cargo cat cd chmod chown cp curl \
    deno docker dotnet echo env export find gcloud gem git go gradle grep head helm jq just \
    kill kubectl less ls make mkdir mv mvn node npm npx pip pip3 pnpm poetry ps psql python \
    python3 rg rm rustc rustup scp sed sh source sqlite3 ssh sudo systemctl tail tar terraform \
    touch uv vim wget yarn zsh";

/// A command line: a pipe or redirect, an environment assignment before a program, or a
/// program's name in lower case followed by a flag, a path or no sentence end. "git stores
/// objects by hash." stays a sentence.
fn looks_like_command(line: &str) -> bool {
    const OPERATORS: &[&str] = &["&&", "||", " | ", "2>&1", " > ", " >> "];
    if OPERATORS.iter().any(|p| line.contains(p)) {
        return true;
    }
    let mut words = line.split_whitespace();
    let mut first = words.next().unwrap_or("");
    while first.contains('=') && first.starts_with(char::is_uppercase) {
        first = words.next().unwrap_or("");
    }
    has(COMMANDS, first) && (!line.ends_with('.') || line.contains(" -") || line.contains('/'))
}

fn looks_like_code(line: &str) -> bool {
    const STARTS: &[&str] = &[
        "fn ",
        "pub ",
        "let ",
        "const ",
        "var ",
        "def ",
        "class ",
        "import ",
        "from ",
        "use ",
        "return ",
        "assert ",
        "impl ",
        "struct ",
        "enum ",
        "func ",
        "function ",
        "package ",
        "#include",
        "SELECT ",
        "INSERT ",
        "UPDATE ",
        "DELETE ",
        "CREATE ",
        "ALTER ",
        "FROM ",
        "RUN ",
        "COPY ",
        "ENV ",
        "CMD ",
        "ENTRYPOINT ",
        "WORKDIR ",
        "EXPOSE ",
        "ARG ",
    ];
    const MARKS: &[&str] = &["::", "->", "=>", "==", "!=", "();", " = ", "</", "/>"];
    STARTS
        .iter()
        .any(|s| line.starts_with(s) && !line.ends_with('.'))
        || MARKS.iter().any(|m| line.contains(m))
        || line.ends_with(['{', '}', ';', '(', ')', '['])
}

// 2. Sentences --------------------------------------------------------------------------------

/// Words whose period belongs to the word rather than ending the sentence.
const ABBREVIATIONS: &str = "e.g. i.e. etc. vs. cf. approx. incl. esp. fig. no. dr. mr. mrs. \
    ms. st. jr. inc. ltd. co. al. ca. resp. min. max.";

/// Sentences and `;`-separated clauses of a paragraph, in order.
fn sentences(paragraph: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_code = false;
    let mut chars = paragraph.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '`' {
            in_code = !in_code;
        }
        if in_code || !matches!(c, '.' | '!' | '?' | ';') {
            continue;
        }
        // "22.4", "config.toml": a period inside a token never ends a sentence.
        let next = chars.peek().map(|&(_, c)| c);
        if next.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let end = i + c.len_utf8();
        if c == '.' && next.is_some() {
            let word = paragraph[start..end]
                .rsplit(char::is_whitespace)
                .next()
                .unwrap_or("")
                .to_lowercase();
            // An initial ("v. 3"), or a lower-case word after the period, means the period
            // was an abbreviation's; after a number the word is a unit ("380 ms.", "1.8 s.")
            // and its period ends the sentence.
            let after = paragraph[end..].trim_start();
            let initial = word.chars().count() == 2 && word.starts_with(char::is_alphabetic);
            let unit = paragraph[start..end]
                .split_whitespace()
                .nth_back(1)
                .is_some_and(|w| w.ends_with(|c: char| c.is_ascii_digit()));
            if (has(ABBREVIATIONS, &word) || initial) && !unit || !opens_sentence(after) {
                continue;
            }
        }
        out.push(paragraph[start..end].trim());
        start = end;
    }
    out.push(paragraph[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

// 3. Shape ------------------------------------------------------------------------------------

fn has(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

/// Words that stand for something said elsewhere; a fact must name what it is about.
const PRONOUNS: &str = "it its it's this that these those they them we i i'm you he she there \
    there's here here's our my your their his her one what which who that's they're we're \
    you're us me him itself themselves";

/// Pronouns an object may hold: they point back at the subject ("reads its configuration").
const OBJECT_PRONOUNS: &str = "its their one";

/// Openings of instructions that no subject can follow.
const INSTRUCTIONS: &str = "please always never don't do let's let make ensure remember avoid \
    try consider note be feel go see double-check";

/// Base-form verbs. First in a sentence they give an order ("Store uploads in the bucket"),
/// unless the next word is the subject's head noun and the verb follows it ("Commit messages
/// must ...", "Cache keys are ...").
const BASE_VERBS: &str = "add remove set check install update change fix create delete build \
    open close write read put move rename replace restart stop start configure enable disable \
    import export deploy test verify look apply bump prefer push pull commit merge rebase revert \
    upgrade downgrade drop clear reset wrap split refactor document mark tag skip ignore include \
    exclude switch convert generate print list show find search get fetch load save pass give \
    take copy edit modify patch clean format lint click select choose pick wait retry kill keep \
    use run store cache call send pin handle expose serve target support require need log return \
    define declare implement register wire mock stub rotate";

/// Openings of clauses that qualify the sentence or hang it on something said before.
const OPENERS: &str = "if when whenever unless although though because while once after \
    before until since as so but and or then however otherwise yet whether where how why thus \
    hence instead also even only just actually basically anyway well ok okay yes no sure thanks \
    great nice hmm oh hi hello sorry from to for with in on at by into of about like unlike per \
    via during within without across between under over against provided providing assuming \
    given suppose supposing whatever whoever";

/// Words that make a sentence unsure, negative, future, past, relative, evaluative or
/// personal: each means it does not state a plain present fact.
const DISQUALIFIERS: &str = concat!(
    // Hedges.
    "might may maybe probably possibly perhaps could should would can seems seem seemed appears \
     appear likely unlikely unclear guess think believe suppose assume apparently presumably \
     usually often sometimes typically generally mostly rarely occasionally kinda sorta somehow \
     roughly supposedly supposed hopefully ideally arguably ought ",
    // Negation.
    "not no never none nothing nobody neither nor cannot nowhere anymore ",
    // Plans and the future.
    "will shall going gonna plan plans planned planning soon later eventually tomorrow next \
     upcoming todo tbd intend intends want wants wanted hope propose proposed proposal someday \
     wish ",
    // Past events and moments that pass; "still" marks a state about to change.
    "was were had did been yesterday ago earlier previously formerly last recently originally \
     today tonight morning afternoon evening still temporarily meanwhile stopgap workaround \
     interim provisional ",
    // Evaluation and degree.
    "better worse best worst love hate like prefer prefers very quite really fairly somewhat \
     extremely slightly totally incredibly super bit too much ",
    // Vague amounts.
    "etc various several stuff things whatever somewhere something anything everything ",
    // The speaker and the listener.
    "i i'm i've i'd me my we we're we've our us you your you're",
);

/// Phrases that make a statement passing, an example or a change rather than how things are:
/// "uses a mock backend for now", "a framework such as Axum", "is 0.87, up from 0.85".
const NOT_STANDING: &[&str] = &[
    "for now",
    "for the time being",
    "for the moment",
    "right now",
    "at the moment",
    "in the meantime",
    "this week",
    "this sprint",
    "e.g",
    "i.e",
    "for example",
    "for instance",
    "such as",
    "in progress",
    "in flight",
    "in review",
    "on hold",
    "up from",
    "down from",
    "down to",
];

/// Word endings that hide a negation, a modal or a person ("doesn't", "it'll", "we'd").
const DISQUALIFYING_SUFFIXES: &[&str] = &["n't", "'ll", "'d", "'ve", "'re", "'m"];

/// Comparisons, which an object may not make. A subject may be qualified by one ("Uploads
/// larger than 5 GB must use multipart transfer"), an object that compares is an opinion.
const COMPARATIVES: &str = "than more less fewer faster slower bigger smaller larger cheaper \
    easier harder simpler twice half";

/// Past-tense openings of change logs ("Fixed the parser", "Switched to Postgres").
const PAST_OPENINGS: &str = "fixed added removed changed updated switched moved replaced renamed \
    deleted refactored reverted merged deployed bumped upgraded downgraded migrated implemented \
    created wrote ran tried found noticed saw made broke got turned figured decided agreed \
    started finished dropped introduced rewrote ported cleaned regenerated";

/// Whole-sentence checks, before looking for a verb.
fn shape_ok(words: &[Word]) -> bool {
    let first = &words[0];
    // "It's", "That's": a pronoun with its verb attached.
    let bare = first.key.trim_end_matches("'s");
    if !first.is_code() && has(PRONOUNS, bare)
        || first.is(INSTRUCTIONS)
        || first.is(OPENERS)
        || first.is(PAST_OPENINGS)
        || first.is(VAGUE_QUANTIFIERS)
    {
        return false;
    }
    if !first.is_code() && !first.text.starts_with(char::is_alphabetic) {
        return false;
    }
    // "Reproduced the crash on ...": a past participle followed by its object narrates.
    if first.key.len() > 4 && first.key.ends_with("ed") && words[1].is("the a an") {
        return false;
    }
    let plain = || words.iter().enumerate().filter(|(_, w)| !w.is_code());
    // "Rust 1.78 or later" is a lower bound, not a plan.
    let bound = |i: usize| words[i].key == "later" && i > 0 && words[i - 1].is("or and");
    // "must not call the ledger", "must never be logged": a prohibition is a rule, and the
    // negation stays in its object.
    let prohibition = |i: usize| i > 0 && words[i - 1].is("must") && words[i].is("not never");
    let disqualified = plain().any(|(i, w)| {
        w.is(DISQUALIFIERS) && !bound(i) && !prohibition(i)
            || DISQUALIFYING_SUFFIXES.iter().any(|x| w.key.ends_with(x))
            // Code and markup outside backticks, quoted fragments, e-mail addresses.
            || w.text.contains(CODE_CHARS)
            || w.text.contains("::")
            || w.text.starts_with('\'')
            || w.text.ends_with('\'')
    });
    // "used to" is a past habit; a colon inside a sentence introduces a list or a quote.
    let used_to = has_phrase(words, "used to");
    let inner_colon = plain()
        .take(words.len() - 1)
        .any(|(_, w)| w.text.ends_with(':'));
    let not_standing = NOT_STANDING.iter().any(|p| has_phrase(words, p));
    !(disqualified || used_to || inner_colon || not_standing)
}

/// Whether the words of `phrase` come one after the other in `words`.
fn has_phrase(words: &[Word], phrase: &str) -> bool {
    let phrase: Vec<&str> = phrase.split_whitespace().collect();
    words.windows(phrase.len()).any(|w| {
        w.iter()
            .zip(&phrase)
            .all(|(w, p)| !w.is_code() && w.key == *p)
    })
}

const CODE_CHARS: &[char] = &[
    '=', '<', '>', '|', '\\', '$', '@', '*', '#', '~', '^', '`', '(', ')', '{', '}', '[', ']', ';',
];

// 4. Verb -------------------------------------------------------------------------------------

/// A verb the extractor understands: its singular and plural forms, and the preposition that
/// belongs to it when it comes right after.
struct Verb {
    singular: &'static str,
    plural: &'static str,
    particle: Option<&'static str>,
}

const fn verb(
    singular: &'static str,
    plural: &'static str,
    particle: Option<&'static str>,
) -> Verb {
    Verb {
        singular,
        plural,
        particle,
    }
}

/// With the preposition first, so that "runs on" wins over "runs". "depends", "listens" and
/// "defaults" only count with theirs: alone they mean something else.
const VERBS: &[Verb] = &[
    verb("depends", "depend", Some("on")),
    verb("listens", "listen", Some("on")),
    verb("defaults", "default", Some("to")),
    verb("runs", "run", Some("on")),
    verb("writes", "write", Some("to")),
    verb("reads", "read", Some("from")),
    verb("uses", "use", None),
    verb("is", "are", None),
    verb("requires", "require", None),
    verb("stores", "store", None),
    verb("must", "must", None),
    verb("runs", "run", None),
    verb("writes", "write", None),
    verb("reads", "read", None),
    verb("targets", "target", None),
    verb("supports", "support", None),
    verb("has", "have", None),
    verb("keeps", "keep", None),
    verb("caches", "cache", None),
    verb("calls", "call", None),
    verb("sends", "send", None),
    verb("needs", "need", None),
    verb("owns", "own", None),
    verb("contains", "contain", None),
    verb("handles", "handle", None),
    verb("exposes", "expose", None),
    verb("serves", "serve", None),
    verb("pins", "pin", None),
    verb("expects", "expect", None),
];

/// Finite verbs and auxiliaries. One right after a candidate verb shows that the candidate was
/// a noun: "API calls use", "Build caches are".
const FINITE: &str = "is are was were has have had must can could will would should may might \
    does do did uses requires stores runs depends listens defaults writes reads targets supports \
    keeps caches calls sends needs owns contains handles exposes serves pins expects returns \
    gets sets makes takes loads saves creates builds checks retries starts stops works fails \
    passes lives";

/// Verb forms that are as often plural nouns: "calls", "runs", "stores", "handles".
const PLURAL_NOUNS: &str = "uses runs stores caches calls handles reads writes targets pins \
    keeps supports";

/// Verbs that are rarely nouns: one inside a subject or an object means a second clause.
const CLAUSE_VERBS: &str = "is are was were has had must can could will would should may might \
    does did uses requires depends listens defaults contains exposes serves expects needs owns \
    lives fails means becomes gets makes takes goes says knows lets";

/// Words that open a clause inside a phrase.
const CLAUSE_WORDS: &str = "which who whom whose where when whenever if because so although \
    though while whereas unless until but since what how why whether once that";

/// Words that, right before a candidate verb, make it a noun ("the cache stores", "each run
/// uses", "the number of calls is").
const NOUN_MARKERS: &str = "the a an this that these those each every any some no its their \
    our your my his her all both one per another other which whose of for to in on with by from \
    and or";

/// Plural verb forms that are never nouns, so a singular subject before one is a slip of
/// grammar rather than a noun phrase.
const VERB_ONLY: &str = "require depend listen contain expose expect";

/// Participles after "has" that make a past event ("has changed", "has been").
const PARTICIPLES: &str = "been gone done become made taken broken written seen given begun \
    grown shown got gotten had run come fallen left lost put set found kept built sent";

/// Where a verb was found: its first word, how many words it spans, and whether the form was
/// plural ("require", "are").
struct Found {
    at: usize,
    len: usize,
    plural: bool,
}

/// The first listed verb used as a verb, or `None` when there is none or it cannot be told
/// from a noun.
fn find_verb(words: &[Word]) -> Option<Found> {
    for at in 1..words.len() {
        let w = &words[at];
        if w.is_code() || words[at - 1].is(NOUN_MARKERS) {
            continue;
        }
        let Some((verb, plural)) = listed(words, at) else {
            continue;
        };
        if verb.particle.is_none() && has("depends depend listens listen defaults default", &w.key)
        {
            continue;
        }
        let len = 1 + usize::from(verb.particle.is_some());
        if w.is("is are must has") {
            return Some(Found { at, len, plural });
        }
        let next = words.get(at + len);
        if next.is_some_and(|n| n.is(FINITE)) {
            continue;
        }
        // "API calls use the wrapper" against "The API uses cache headers": a base form right
        // after an -s form that is also a plural noun leaves open which is the verb, unless a
        // determiner follows it.
        let base_next = listed(words, at + len).is_some_and(|(_, p)| p);
        if w.is(PLURAL_NOUNS) && base_next {
            if words.get(at + len + 1).is_some_and(|t| t.is(NOUN_MARKERS)) {
                continue;
            }
            return None;
        }
        return Some(Found { at, len, plural });
    }
    None
}

/// The listed verb whose form is the word at `at`, and whether the form is plural.
fn listed(words: &[Word], at: usize) -> Option<(&'static Verb, bool)> {
    let w = words.get(at)?;
    if w.is_code() {
        return None;
    }
    VERBS.iter().find_map(|v| {
        let particle_ok = v
            .particle
            .is_none_or(|p| words.get(at + 1).is_some_and(|n| n.key == p));
        if !particle_ok {
            None
        } else if w.key == v.singular {
            Some((v, false))
        } else if w.key == v.plural {
            Some((v, true))
        } else {
            None
        }
    })
}

/// A plural verb needs a plural subject; otherwise the "verb" was a noun ("Test run").
/// The head noun is the last word before any preposition: "All timestamps in the API are".
fn plural_subject(subject: &[Word]) -> bool {
    if subject.iter().any(|w| w.is("and both all")) {
        return true;
    }
    let Some(head) = head(subject) else {
        return false;
    };
    let head = head.key.as_str();
    head.len() > 2 && head.ends_with('s') && !head.ends_with("ss") && !head.ends_with("us")
}

/// The head noun of a subject: its last word before any preposition ("timestamps" in "All
/// timestamps in the API").
fn head<'w, 'a>(subject: &'w [Word<'a>]) -> Option<&'w Word<'a>> {
    let before = subject.iter().take_while(|w| !w.is(PREPOSITIONS)).count();
    subject.get(before.max(1) - 1)
}

const PREPOSITIONS: &str = "of in on at for with from to by under over per via into about";

/// What may follow the verb: not a progressive ("is running"), a perfect ("has changed"), an
/// infinitive ("needs to", "is to") or a "that" clause.
fn verb_follow_ok(predicate: &str, object: &[Word]) -> bool {
    let Some(next) = object.first() else {
        return false;
    };
    let key = next.key.as_str();
    if key == "to" || key == "that" {
        return false;
    }
    let gerund = key.ends_with("ing") && !next.is("string thing spring");
    match predicate {
        // "is about the parser" gives a topic, not a fact.
        "is" | "are" => {
            let judged = object
                .iter()
                .find(|w| !w.is("the a an") && !w.is(SOFT_ADVERBS))
                .is_some_and(|w| w.is(EVALUATIVE));
            !(gerund || judged || key == "about") && complement_ok(object)
        }
        // "The docs need regenerating": work to do.
        "needs" | "need" | "requires" | "require" => !gerund,
        "has" | "have" => !perfect(object),
        "must" => !(key == "have" && perfect(&object[1..])),
        _ => true,
    }
}

/// Whether a phrase after "has" opens with a participle: "has changed", "must have been". A
/// capitalised word is a name ("DeepSpeed"), whatever it ends with.
fn perfect(rest: &[Word]) -> bool {
    rest.first().is_some_and(|w| {
        w.is(PARTICIPLES)
            || w.text.starts_with(char::is_lowercase) && w.key.len() > 4 && w.key.ends_with("ed")
    })
}

/// Participles of verbs that set up how something is made, kept or run. Followed by their
/// complement they make a passive that lasts ("is built with mdBook", "are kept in the HSM");
/// any other participle after "is" reports what just happened to it ("is deleted", "are
/// updated", "is attached to the PR").
const ARRANGEMENTS: &str = "built written kept stored deployed hosted served backed managed \
    owned signed encrypted trained retrained generated configured pinned licensed compiled \
    mounted exposed defined handled limited provisioned sent uploaded set versioned routed \
    replicated partitioned sharded cached indexed keyed scoped bound mapped authenticated \
    validated published exported packaged bundled distributed installed vendored derived \
    computed sourced loaded read fetched mirrored archived retained compressed serialised \
    serialized encoded formatted named prefixed tagged gated protected restricted isolated \
    implemented powered driven maintained run rendered logged emitted \
    produced consumed proxied terminated hashed salted stamped enforced capped throttled \
    rate-limited split shared";

/// Properties that belong to a design rather than to a moment: "The API is stateless".
const PROPERTIES: &str = "stateless idempotent immutable read-only append-only write-only \
    single-threaded multi-tenant";

/// Endings of adjectives and participles. A lower-case word after "is" that ends in one
/// describes a state ("is untouched", "is available", "is tidy", "is frozen").
const STATE_ENDINGS: &[&str] = &[
    "ed", "en", "able", "ible", "ful", "ous", "ive", "ic", "al", "y", "less", "ent", "ant", "ish",
    "ary", "ile", "ing",
];

/// What may follow "is" or "are" in a fact: a noun phrase ("the source of truth", "Postgres
/// 15", "a per-process LRU", "trunk"), a passive that sets something up ("built with Expo",
/// "stored only in the encrypted column") or a property of the design ("stateless"). A state
/// ("is unaffected", "is tidy now"), a place ("is in the PR description", "is at epoch 17")
/// or a bare participle ("are updated") is news from the session, which the next one outdates.
fn complement_ok(object: &[Word]) -> bool {
    let lead = object
        .iter()
        .position(|w| !w.is(SOFT_ADVERBS))
        .map_or(&[][..], |i| &object[i..]);
    let Some(first) = lead.first() else {
        return false;
    };
    let key = first.key.as_str();
    if first.is_code()
        || amount(lead).is_some()
        || first.text.starts_with(char::is_uppercase)
        || first.is("the a an its their one")
        || first.is(PROPERTIES)
    {
        return true;
    }
    if first.is(ARRANGEMENTS) {
        return lead.len() > 1;
    }
    // "in ISO 20022 format", "in Go": a format or a language, not a place. "at 05:00 UTC" is a
    // time, which `standing` keeps only when it recurs.
    if first.is(PREPOSITIONS) {
        let rest = &lead[1..];
        let named = rest.first().is_some_and(|w| {
            w.is_code() || w.text.starts_with(char::is_uppercase) || amount(rest).is_some()
        });
        return key == "in" && named || key == "at" && amount(rest).is_some();
    }
    // A name or an identifier ("orders-v2", "sqlx-cli", "events-dlq") and a plain noun
    // ("trunk", "version 7.2") are what the subject is; a word shaped like an adjective or a
    // participle is how it is for now, and so is a compound built on a preposition
    // ("up-to-date", "out-of-sync") or on one ("well-tested").
    if key.contains(|c: char| c.is_ascii_digit() || "_./".contains(c)) {
        return true;
    }
    let state =
        |part: &str| part.starts_with("un") || STATE_ENDINGS.iter().any(|e| part.ends_with(e));
    let last = key.rsplit('-').next().unwrap_or(key);
    let adverbial = key.contains('-')
        && key
            .split('-')
            .any(|part| has("up out off in on to of well", part));
    !(state(if key.contains('-') { last } else { key }) || adverbial)
}

// 5. Quality gate -----------------------------------------------------------------------------

/// Subjects too generic to be worth remembering ("The user is happy", "The result is good").
const GENERIC_SUBJECTS: &str = "user users customer customers answer code result results thing \
    problem problems issue issues fix solution idea approach question output response reply \
    message change changes task goal plan step option way point reason part rest case other \
    others everyone everybody someone somebody team person people work error bug all both each \
    either first second latter former same above below following default current new old \
    situation state status version example file files function method value number name list \
    info information time context setup reviewer manager boss";

/// Subjects about life around the project rather than the project: any word of the subject.
const OFF_TOPIC: &str = "weather lunch dinner breakfast coffee meeting meetings vacation weekend \
    holiday deadline office birthday party laptop desk conversation discussion chat standup \
    retro sprint";

/// People in and around the team. As the head of a subject ("The new hire needs ...") or of
/// what a subject "is" ("Jordan is the reviewer") they make the sentence about someone rather
/// than the project; a team owning a component is about the project.
const PEOPLE: &str = "reviewer reviewers approver approvers assignee assignees maintainer \
    maintainers author authors owner owners manager managers lead hire hires intern interns \
    teammate teammates colleague colleagues developer developers engineer engineers designer \
    designers member members stakeholder stakeholders contributor contributors contractor \
    contractors consultant consultants newcomer newcomers pm pms";

/// The product's users. "Admin users must ..." is a rule of the product, but their things and
/// what someone "is" are about a person: "The user's laptop runs ...", "Sam is the customer".
const USERS: &str = "user users customer customers";

/// Where a person is: "Sam is on call this week".
const WHEREABOUTS: &[&str] = &[
    "on call",
    "on-call",
    "on vacation",
    "on holiday",
    "on leave",
    "out of office",
    "off sick",
    "away",
];

/// Quantifiers that make a subject vague ("Some tests require Docker").
const VAGUE_QUANTIFIERS: &str = "some many most few several various certain other any such much \
    lots plenty";

/// Objects that say nothing a later session could use, once articles and adverbs like "now"
/// are set aside.
const VAGUE_OBJECTS: &str = "thing everything something anything nothing true false case set \
    same different problem issue bug option way answer idea key up down on off back gone \
    present absent enough lot lots yes";

/// Judgements and passing states. As the first word after "is" they make the sentence an
/// opinion or news ("is happy with the demo", "is broken again", "is almost full", "is down",
/// "is up 12%", "is scheduled for Friday").
const EVALUATIVE: &str = "done fine good ok okay great bad nice cool awesome perfect ready \
    working broken correct wrong right important necessary needed required possible impossible \
    clear unclear weird strange odd interesting annoying confusing slow fast easy hard tricky \
    simple complicated complex messy happy sad sure fixed resolved merged finished complete \
    completed green red passing failing stuck huge big small fun useful helpful mess pain fault \
    crucial critical essential obvious trivial ugly beautiful flaky stable unstable buggy \
    missing tight loose busy late early hot cold warm cheap expensive tired terrible horrible \
    amazing excellent poor lovely boring exciting urgent overdue outdated stale wip blocked idle \
    offline online healthy unhealthy empty full almost nearly halfway partly partially clean \
    unchanged locked pending down up flat out over back behind ahead paused underway ongoing \
    scheduled due booked live degraded quarantined skipped unavailable delayed";

/// Heads of subjects that name a diagnosis, a step of the conversation or a piece of work
/// rather than a part of the project ("The root cause is ...", "The build error is ...", "The
/// PR is merged"): what they are changes as the work goes on. "task" is not one: a named task
/// ("the dedupe task") is a step of a pipeline, and a bare "The task" is a generic subject.
const DIAGNOSES: &str = "cause culprit reason problem issue bug error fix solution workaround \
    answer result question idea plan goal pr ticket incident hotfix patch commit story \
    epic";

/// Adverbs next to the verb that do not change the fact ("The API also uses JWT").
const SOFT_ADVERBS: &str = "also now currently always already";

/// Adverbs that limit the fact. Before the verb, or right after "is", dropping them would state
/// more than was said ("The importer only reads CSV files", "is only reachable over the VPN").
const LIMITING: &str = "only just merely solely exclusively";

/// Openings that frame a sentence without changing its fact.
const SOFT_OPENINGS: &[&str] = &[
    "also,",
    "currently,",
    "now,",
    "note that",
    "by default,",
    "for reference,",
    "in practice,",
];

/// Words that leave a phrase unfinished when they end it.
const DANGLING: &str = "the a an and or but of to in on at by for with from into onto as than \
    that which who whose where when if because so while each every all some any both either its \
    their this these those via per about like such also then";

fn subject_ok(subject: &[Word]) -> bool {
    let (Some(first), Some(last)) = (subject.first(), subject.last()) else {
        return false;
    };
    if subject.len() > 6
        || last.is(DANGLING)
        || first.is(VAGUE_QUANTIFIERS)
        || first.is(PRONOUNS)
        || subject.len() == 1 && first.is(NOUN_MARKERS)
        || !first.is_code() && !first.text.starts_with(char::is_alphabetic)
        || has(GENERIC_SUBJECTS, &phrase_key(subject))
        || head(subject).is_some_and(|w| w.is(DIAGNOSES) || w.is(PEOPLE))
        || subject.iter().any(person_possessive)
    {
        return false;
    }
    // "The release notes suggest the parameters need ...": a determiner inside a noun phrase
    // follows a preposition or a conjunction; after any other word it opens the object of an
    // unlisted verb, and the subject is a reported clause.
    let embedded = subject.windows(2).any(|pair| {
        pair[1].is("the a an this these those")
            && !pair[0].is(PREPOSITIONS)
            && !pair[0].is("and or both all")
    });
    if embedded {
        return false;
    }
    subject.iter().all(|w| {
        w.is_code()
            || !(w.text.contains(',')
                || w.is(CLAUSE_WORDS)
                || w.is(PAST_OPENINGS)
                || w.is(CLAUSE_VERBS)
                || w.is(OFF_TOPIC)
                || w.is(PRONOUNS) && !w.is(OBJECT_PRONOUNS))
    })
}

/// "The user's laptop", "reviewers' notes".
fn person_possessive(w: &Word) -> bool {
    let owner = w
        .key
        .strip_suffix("'s")
        .or_else(|| w.key.strip_suffix('\''));
    owner.is_some_and(|o| has(PEOPLE, o) || has(USERS, o))
}

fn object_ok(predicate: &str, object: &[Word]) -> bool {
    let (Some(first), Some(last)) = (object.first(), object.last()) else {
        return false;
    };
    if object.len() > 15 || last.is(DANGLING) {
        return false;
    }
    let core: Vec<&Word> = strip_article(object)
        .iter()
        .filter(|w| !w.is(SOFT_ADVERBS))
        .collect();
    let core_key = core
        .iter()
        .map(|w| w.key.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if core.is_empty() || has(VAGUE_OBJECTS, &core_key) || first.is(CLAUSE_WORDS) {
        return false;
    }
    // "twice as fast as the old one".
    let as_as = object.iter().filter(|w| w.key == "as").count() >= 2;
    // A second verb or a clause runs two statements together, or qualifies this one; a pronoun
    // points at something only the conversation knew.
    !as_as
        && !compares(predicate, object)
        && object.iter().all(|w| {
            w.is_code()
                || !(w.is(CLAUSE_WORDS)
                    || w.is(CLAUSE_VERBS)
                    || w.is(PRONOUNS) && !w.is(OBJECT_PRONOUNS))
        })
}

/// Whether the object compares, which makes it an opinion or news ("uses less memory than the
/// old one"). A requirement may compare ("must be longer than the idle timeout"), and a bound on
/// a noun qualifies it: "handles files larger than 2 GB".
fn compares(predicate: &str, object: &[Word]) -> bool {
    let bound = |than: usize| {
        than >= 2 && object[than].key == "than" && amount(&object[than + 1..]).is_some()
    };
    predicate != "must"
        && object
            .iter()
            .enumerate()
            .any(|(i, w)| w.is(COMPARATIVES) && !(bound(i) || w.key != "than" && bound(i + 1)))
}

// Standing facts ------------------------------------------------------------------------------

/// Heads of subjects that name a measurement ("p99 latency", "cache hit rate", "Test
/// coverage"): with a number after the verb the sentence is a reading, which the next run
/// changes.
const METRICS: &str = "latency latencies usage utilisation utilization coverage accuracy auc \
    throughput lag uptime downtime rate rates time times duration speed load loss score fps \
    depth backlog p50 p75 p90 p95 p99 p999";

/// Words that name a configured value ("The HTTP client timeout is 10 seconds", "has a 5%
/// error budget"): as the head of the subject or in the object, they make a number a setting
/// rather than a reading. In "error budget burn rate" the head is a reading.
const SETTINGS: &str = "timeout timeouts ttl limit limits cap quota quotas budget threshold \
    thresholds interval period window retention lifetime expiry port version target delay \
    backoff frequency";

/// Words that make any subject a setting: "The max payload size", "The default page size".
const SETTING_MARKERS: &str = "default max maximum min minimum configured";

/// Units of measured time, size and rate.
const UNITS: &str = "ns us µs ms s sec secs second seconds min mins minute minutes h hr hrs hour \
    hours d day days week weeks kb mb gb tb pb kib mib gib tib byte bytes fps rps qps tps";

/// Words that scale a count ("2.3 million rows", "12k users").
const MULTIPLIERS: &str = "k m bn thousand million millions billion billions";

/// Words that make a number an estimate ("around 300 MB").
const APPROXIMATIONS: &str = "around about approximately approx roughly nearly almost circa";

/// Words that make a time recur ("weekly on Sunday at 03:00 UTC"): a schedule, not an event.
const RECURRENCE: &str = "every each daily nightly weekly monthly hourly yearly annually \
    weekdays weekends mondays tuesdays wednesdays thursdays fridays saturdays sundays";

const WEEKDAYS: &str = "monday tuesday wednesday thursday friday saturday sunday";

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// How a number at the start of a phrase reads.
#[derive(Clone, Copy, PartialEq)]
enum Amount {
    /// A bare number or a count of things: "3 replicas", "Postgres 16".
    Count,
    Percent,
    /// A number with a unit of time, size or rate: "40 ms", "14MB".
    Measure,
    /// A scaled or large count: "2.3 million rows", "12k users", "1,500 users".
    Large,
}

/// The amount `words` starts with, if it starts with a number.
fn amount(words: &[Word]) -> Option<Amount> {
    let first = words.first().filter(|w| !w.is_code())?;
    if !first.key.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let digits = first
        .key
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(first.key.len());
    let suffix = &first.key[digits..];
    if first.key[..digits].contains(',') {
        return Some(Amount::Large);
    }
    let unit = match (suffix, words.get(1)) {
        ("", Some(next)) if !next.is_code() => next.key.as_str(),
        _ => suffix,
    };
    Some(if unit == "%" || unit == "percent" {
        Amount::Percent
    } else if has(UNITS, unit) {
        Amount::Measure
    } else if has(MULTIPLIERS, unit) {
        Amount::Large
    } else {
        Amount::Count
    })
}

/// Whether a key reads as a time of day: "09:30", "3pm", "pm".
fn clock(key: &str) -> bool {
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    let hour_minute = key
        .split_once(':')
        .is_some_and(|(h, m)| digits(h, 1..=2) && digits(m, 2..=2));
    let meridiem = ["am", "pm"].iter().any(|m| {
        key.strip_suffix(m)
            .is_some_and(|h| h.is_empty() || digits(h, 1..=2))
    });
    hour_minute || meridiem || key == "noon" || key == "midnight"
}

/// Whether the object says how things stand, rather than giving a reading ("p99 latency is 40
/// ms", "The events table has 2.3 million rows"), a passing state, an event's time ("The
/// deploy is at 3 pm") or where a person is. A configured value is how things stand: "The HTTP
/// client timeout is 10 seconds", "targets 70% CPU utilisation".
fn standing(predicate: &str, subject: &[Word], object: &[Word]) -> bool {
    let recurs = subject.iter().chain(object).any(|w| w.is(RECURRENCE));
    let day = |w: &Word| {
        !w.is_code()
            && (w.is(WEEKDAYS) || MONTHS.contains(&w.key.as_str()) || iso_date(&w.key).is_some())
    };
    // "needs access before the demo on Thursday", "must ship by March": a day that comes once.
    // A job that runs on a day runs every week on it.
    if !recurs && !matches!(predicate, "runs" | "run") && object.iter().any(day) {
        return false;
    }
    // A requirement's numbers are what it requires.
    if predicate == "must" {
        return true;
    }
    let linking = matches!(predicate, "is" | "are");
    let setting = head(subject).is_some_and(|w| w.is(SETTINGS))
        || subject.iter().any(|w| w.is(SETTING_MARKERS))
        || object.iter().any(|w| w.is(SETTINGS));
    let mut lead = object;
    while let Some((first, rest)) = lead.split_first()
        && (first.is("the a an") || first.is(SOFT_ADVERBS))
    {
        lead = rest;
    }
    let estimate = object.iter().enumerate().any(|(i, w)| {
        w.is(APPROXIMATIONS) && amount(&object[i + 1..]).is_some() || w.key.starts_with('~')
    });
    // "runs in 4 minutes", "runs at 60 fps", "runs at 40% CPU": how long it took, how fast it
    // went, how hard it worked.
    let took = lead.first().is_some_and(|w| w.is("in within under at"))
        && matches!(amount(&lead[1..]), Some(Amount::Measure | Amount::Percent));
    let quantity = amount(lead);
    // "uses 2 GB of memory", "uses 90% of the pool": a reading, whatever it is measured against.
    let usage = matches!(predicate, "uses" | "use")
        && matches!(quantity, Some(Amount::Percent | Amount::Measure));
    let reading = match quantity {
        Some(Amount::Percent) => linking || matches!(predicate, "has" | "have"),
        Some(Amount::Measure) => linking,
        Some(Amount::Large) => !matches!(
            predicate,
            "targets" | "target" | "requires" | "require" | "needs" | "need" | "defaults to"
        ),
        Some(Amount::Count) | None => false,
    };
    let metric = head(subject).is_some_and(|w| w.is(METRICS))
        && object
            .iter()
            .any(|w| w.key.contains(|c: char| c.is_ascii_digit()));
    if estimate || took || usage || !setting && (reading || metric) {
        return false;
    }
    if !linking {
        return true;
    }
    // "is at 95% capacity", "is at 3 pm"; "The nightly backup is at 02:00" is a schedule.
    let level =
        !recurs && lead.first().is_some_and(|w| w.key == "at") && amount(&lead[1..]).is_some();
    let limited = object.first().is_some_and(|w| w.is(LIMITING));
    let event = !recurs && object.iter().any(|w| !w.is_code() && clock(&w.key));
    let person = head(lead).is_some_and(|w| w.is(PEOPLE) || w.is(USERS))
        || WHEREABOUTS
            .iter()
            .any(|p| has_phrase(&lead[..lead.len().min(p.split(' ').count())], p));
    !(level || limited || event || person)
}

// One sentence --------------------------------------------------------------------------------

/// A word of the sentence: its text as written, and a lower-case key for the word lists without
/// the punctuation around it. A backtick span is one word, so a name with spaces or symbols in
/// it stays whole and is never mistaken for a listed word.
struct Word<'a> {
    text: &'a str,
    key: String,
}

impl Word<'_> {
    fn is(&self, list: &str) -> bool {
        !self.is_code() && has(list, &self.key)
    }

    fn is_code(&self) -> bool {
        self.text.starts_with('`')
    }
}

/// The words of a sentence, or `None` when a backtick is left open: the sentence was cut
/// inside code.
fn words(s: &str) -> Option<Vec<Word<'_>>> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        let len = if let Some(code) = rest.strip_prefix('`') {
            let close = code.find('`')? + 2;
            close
                + rest[close..]
                    .find(char::is_whitespace)
                    .unwrap_or(rest.len() - close)
        } else {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        };
        let text = &rest[..len];
        let key = text
            .trim_matches(|c: char| matches!(c, ',' | ':' | '.'))
            .replace('\u{2019}', "'")
            .to_lowercase();
        out.push(Word { text, key });
        rest = rest[len..].trim_start();
    }
    Some(out)
}

fn phrase_key(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.key.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn strip_article<'w, 'a>(words: &'w [Word<'a>]) -> &'w [Word<'a>] {
    match words.split_first() {
        Some((first, rest)) if first.is("the a an") => rest,
        _ => words,
    }
}

/// Words as written, without backticks or the comma before a following clause.
fn render(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text)
        .collect::<Vec<_>>()
        .join(" ")
        .replace('`', "")
        .trim_end_matches(',')
        .to_string()
}

/// The facts of one sentence: none, or one per clause.
fn facts(sentence: &str) -> Vec<Candidate> {
    if sentence.ends_with('!') || sentence.contains(['?', '"', '\u{201c}', '\u{201d}']) {
        return Vec::new();
    }
    let s = sentence
        .strip_suffix(['.', ';'])
        .unwrap_or(sentence)
        .trim_end();
    if s.ends_with(['.', ',', ':', ';']) {
        return Vec::new();
    }
    let (s, valid_from) = dated(s);
    let Some(words) = words(strip_soft_opening(s)) else {
        return Vec::new();
    };
    if !(3..=30).contains(&words.len()) || !shape_ok(&words) {
        return Vec::new();
    }
    // All clauses or none: a clause that is dropped may be what qualifies the other one.
    clauses(&words)
        .and_then(|clauses| {
            clauses
                .into_iter()
                .map(|c| clause_fact(c, valid_from))
                .collect()
        })
        .unwrap_or_default()
}

/// The clauses of a sentence. Statements joined by "and", each with its own subject and verb,
/// are read one by one ("The API uses Axum and the worker uses Tokio"). A second verb sharing
/// the subject ("reads from SQS and writes results to S3") gives `None`: each half leaves out
/// what the other says, and together they are two facts in one.
fn clauses<'w, 'a>(words: &'w [Word<'a>]) -> Option<Vec<&'w [Word<'a>]>> {
    let mut out = Vec::new();
    let mut rest = words;
    while let Some(found) = find_verb(rest) {
        let mut split = None;
        for at in found.at + found.len..rest.len() {
            let after = &rest[at + 1..];
            if after.is_empty() {
                break;
            }
            // "runs on Linux, the client supports Windows": a comma is no "and".
            let splice = rest[at].text.ends_with(',') && !after[0].is("and or");
            if splice && find_verb(after).is_some() {
                return None;
            }
            if !rest[at].is("and") {
                continue;
            }
            // "stores inserts and writes" ends on a noun; "and writes results to S3" goes on,
            // and so does a second participle: "are retried with backoff and dropped after five
            // tries".
            let verb = after[0].is(FINITE) || listed(after, 0).is_some() || unlisted_verb(after);
            let participle = rest[found.at].is("is are") && perfect(after);
            if after.len() > 1 && verb || participle {
                return None;
            }
            if find_verb(after).is_some() {
                split = Some(at);
                break;
            }
        }
        let Some(at) = split else {
            break;
        };
        out.push(&rest[..at]);
        rest = &rest[at + 1..];
    }
    out.push(rest);
    Some(out)
}

/// A verb off the list that goes on with its object: "publishes to three subjects", "retries
/// the job". A lower-case word in -s before a determiner or preposition is read as one.
fn unlisted_verb(words: &[Word]) -> bool {
    let [first, next, ..] = words else {
        return false;
    };
    let key = first.key.as_str();
    let third_person = first.text.starts_with(char::is_lowercase)
        && key.len() > 3
        && key.ends_with('s')
        && !key.ends_with("ss")
        && !key.ends_with("us")
        && !key.ends_with("is");
    third_person && !first.is_code() && (next.is(NOUN_MARKERS) || amount(&words[1..]).is_some())
}

fn clause_fact(words: &[Word], valid_from: Option<i64>) -> Option<Candidate> {
    let found = find_verb(words)?;
    let first = &words[0];
    // "Make sure the worker uses ..." orders; "Commit messages must ..." is a noun phrase.
    if first.is(BASE_VERBS) && (found.at > 2 || words[1].is(NOUN_MARKERS)) {
        return None;
    }
    let end = found.at + found.len;
    let mut subject = &words[..found.at];
    while let Some((last, rest)) = subject.split_last()
        && last.is(SOFT_ADVERBS)
    {
        subject = rest;
    }
    // "The importer only reads CSV files": the fact would drop the "only".
    if subject.last().is_some_and(|w| w.is(LIMITING)) {
        return None;
    }
    let object = &words[end..];
    // "Payment gateway require ...": a form that is only ever a verb stays one after a singular
    // subject; "Test run", "Build cache" are nouns.
    let verb_only = words[found.at].is(VERB_ONLY);
    if found.plural && !verb_only && !plural_subject(subject) {
        return None;
    }
    let predicate = phrase_key(&words[found.at..end]);
    let subject = strip_article(subject);
    if !verb_follow_ok(&predicate, object)
        || !subject_ok(subject)
        || !object_ok(&predicate, object)
        || !standing(&predicate, subject, object)
    {
        return None;
    }
    Some(Candidate {
        subject: render(subject),
        predicate,
        object: render(object),
        valid_from,
        confidence: if valid_from.is_some() {
            DATED_CONFIDENCE
        } else {
            UNDATED_CONFIDENCE
        },
    })
}

fn strip_soft_opening(s: &str) -> &str {
    SOFT_OPENINGS
        .iter()
        .find_map(|opening| {
            let head = s.get(..opening.len())?;
            let rest = s[opening.len()..].strip_prefix(' ')?;
            head.eq_ignore_ascii_case(opening).then_some(rest)
        })
        .unwrap_or(s)
}

// Dates ---------------------------------------------------------------------------------------

/// Phrases that say when a fact started, before an ISO date: "Since 2026-03-01, ...".
const DATE_OPENINGS: &[&str] = &[
    "starting from",
    "starting on",
    "beginning on",
    "starting",
    "beginning",
    "effective",
    "since",
    "as of",
    "from",
    "on",
];

/// The sentence without its date phrase, and the date as epoch milliseconds at 00:00 UTC.
///
/// A sentence that opens with "Since" or "As of" without a date ("Since the upgrade, ...")
/// keeps its opening and is then dropped as a qualified sentence: when it holds from depends on
/// when it was said. A version ("As of v3.0, ...") says from which release on, not from which
/// day: the opening goes and the fact is undated.
fn dated(s: &str) -> (&str, Option<i64>) {
    match leading_date(s).or_else(|| trailing_date(s)) {
        Some((rest, ms)) => (rest, Some(ms)),
        None => (leading_version(s).unwrap_or(s), None),
    }
}

fn leading_date(s: &str) -> Option<(&str, i64)> {
    let lower = s.to_ascii_lowercase();
    let opening = DATE_OPENINGS
        .iter()
        .find(|o| lower.starts_with(*o) && lower[o.len()..].starts_with(' '))?;
    let at = opening.len() + 1;
    let (ms, len) = date_at(&s[at..])?;
    let mut rest = &s[at + len..];
    if let Some(after) = [" onwards", " onward", " on"]
        .iter()
        .find_map(|t| strip_word_prefix(rest, t))
    {
        rest = after;
    }
    let rest = rest.strip_prefix(',').unwrap_or(rest);
    rest.starts_with(' ').then(|| (rest.trim_start(), ms))
}

/// `rest` without `word` at its start, when `word` is whole there.
fn strip_word_prefix<'a>(rest: &'a str, word: &str) -> Option<&'a str> {
    let head = rest.get(..word.len())?;
    let after = &rest[word.len()..];
    (head.eq_ignore_ascii_case(word) && !after.starts_with(char::is_alphanumeric)).then_some(after)
}

/// "The API uses v2 since 2026-03-01": the same phrase at the end.
fn trailing_date(s: &str) -> Option<(&str, i64)> {
    let at = s.len().checked_sub(10)?;
    let ms = iso_date(s.get(at..)?)?;
    let head = s[..at].trim_end().to_ascii_lowercase();
    ["since", "as of", "starting", "starting on", "effective"]
        .iter()
        .find_map(|o| {
            let before = head.strip_suffix(o)?;
            before.ends_with([' ', ',']).then(|| {
                let rest = s[..before.len()].trim_end();
                (rest.strip_suffix(',').unwrap_or(rest), ms)
            })
        })
}

/// A date at the start of `s`, as epoch milliseconds, and its length: ISO ("2026-03-02") or
/// written out ("March 2, 2026", "2 March 2026", "9th of Feb 2026").
fn date_at(s: &str) -> Option<(i64, usize)> {
    if let Some(ms) = s.get(..10).and_then(iso_date) {
        return Some((ms, 10));
    }
    let mut words = leading_words(s, 5);
    // "From the 5th of June 2026".
    if words
        .first()
        .is_some_and(|(w, _)| w.eq_ignore_ascii_case("the"))
    {
        words.remove(0);
    }
    let word = |i: usize| words.get(i).map_or("", |(w, _)| w.trim_end_matches(','));
    let (month, day, year) = match (month(word(0)), month(word(1)), month(word(2))) {
        (Some(m), _, _) => (m, day(word(1))?, 2),
        (_, Some(m), _) => (m, day(word(0))?, 2),
        (_, _, Some(m)) if word(1).eq_ignore_ascii_case("of") => (m, day(word(0))?, 3),
        _ => return None,
    };
    let (text, end) = words.get(year)?;
    let digits = text.trim_end_matches(',');
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let date = Date::new(digits.parse().ok()?, month, day).ok()?;
    Some((midnight(date)?, end - (text.len() - digits.len())))
}

/// The first `n` whitespace-separated words of `s`, each with the offset of its end.
fn leading_words(s: &str, n: usize) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut end = 0;
    while out.len() < n {
        let Some(start) = s[end..].find(|c: char| !c.is_whitespace()).map(|i| end + i) else {
            break;
        };
        end = s[start..]
            .find(char::is_whitespace)
            .map_or(s.len(), |i| start + i);
        out.push((&s[start..end], end));
    }
    out
}

/// A month by its name or a three-letter abbreviation, 1 to 12.
fn month(word: &str) -> Option<i8> {
    let word = word.trim_end_matches('.').to_ascii_lowercase();
    let at = MONTHS.iter().position(|m| {
        *m == word || word.len() == 3 && m.starts_with(&word) || word == "sept" && *m == "september"
    })?;
    i8::try_from(at + 1).ok()
}

/// A day of the month, with or without an ordinal suffix ("2", "2nd").
fn day(word: &str) -> Option<i8> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|x| word.strip_suffix(x))
        .unwrap_or(word);
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// Openings that give the release a fact holds from.
const VERSION_OPENINGS: &[&str] = &[
    "as of",
    "since",
    "from",
    "starting with",
    "starting from",
    "beginning with",
];

/// The sentence after a leading version phrase: "As of v3.0," or "Since version 2".
fn leading_version(s: &str) -> Option<&str> {
    let lower = s.to_ascii_lowercase();
    let opening = VERSION_OPENINGS
        .iter()
        .find(|o| lower.starts_with(*o) && lower[o.len()..].starts_with(' '))?;
    let mut rest = s[opening.len()..].trim_start();
    let named = ["version ", "release "].iter().find_map(|w| {
        let head = rest.get(..w.len())?;
        head.eq_ignore_ascii_case(w).then(|| &rest[w.len()..])
    });
    if let Some(after) = named {
        rest = after.trim_start();
    }
    let end = rest.find([' ', ',']).unwrap_or(rest.len());
    let token = &rest[..end];
    let number = token.strip_prefix(['v', 'V']).or(named.map(|_| token))?;
    let version = number.starts_with(|c: char| c.is_ascii_digit())
        && number.chars().all(|c| c.is_ascii_digit() || c == '.')
        && !number.ends_with('.');
    let after = &rest[end..];
    let after = after.strip_prefix(',').unwrap_or(after);
    (version && after.starts_with(' ')).then(|| after.trim_start())
}

fn iso_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let shape = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    if !shape {
        return None;
    }
    midnight(s.parse().ok()?)
}

/// The day's start at 00:00 UTC, as epoch milliseconds.
fn midnight(date: Date) -> Option<i64> {
    let start = date.to_zoned_datetime(TimeZone::UTC).ok()?;
    Some(start.timestamp().as_millisecond())
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn triples(text: &str) -> Vec<(String, String, String)> {
        extract(text)
            .into_iter()
            .map(|c| (c.subject, c.predicate, c.object))
            .collect()
    }

    fn triple(s: &str, p: &str, o: &str) -> (String, String, String) {
        (s.to_string(), p.to_string(), o.to_string())
    }

    fn midnight_utc(date: &str) -> i64 {
        let date: Date = date.parse().unwrap();
        date.to_zoned_datetime(TimeZone::UTC)
            .unwrap()
            .timestamp()
            .as_millisecond()
    }

    #[rstest]
    #[case(
        "The spool writer uses an exclusive file lock.",
        "spool writer",
        "uses",
        "an exclusive file lock"
    )]
    #[case(
        "Every migration must be reversible.",
        "Every migration",
        "must",
        "be reversible"
    )]
    #[case("The hub listens on port 7443.", "hub", "listens on", "port 7443")]
    #[case(
        "The exporter writes to the archive bucket.",
        "exporter",
        "writes to",
        "the archive bucket"
    )]
    #[case(
        "The exporter writes CSV reports to the archive bucket.",
        "exporter",
        "writes",
        "CSV reports to the archive bucket"
    )]
    #[case(
        "The `store` module owns every SQL statement.",
        "store module",
        "owns",
        "every SQL statement"
    )]
    #[case(
        "Cache keys are SHA-256 hashes of the request body.",
        "Cache keys",
        "are",
        "SHA-256 hashes of the request body"
    )]
    #[case(
        "Outbound calls use the retry wrapper.",
        "Outbound calls",
        "use",
        "the retry wrapper"
    )]
    #[case(
        "The nightly run uses a fresh database.",
        "nightly run",
        "uses",
        "a fresh database"
    )]
    #[case(
        "The parser also requires UTF-8 input.",
        "parser",
        "requires",
        "UTF-8 input"
    )]
    fn keeps_a_plain_fact(#[case] text: &str, #[case] s: &str, #[case] p: &str, #[case] o: &str) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[rstest]
    #[case::pronoun("It stores the token in the keychain.")]
    #[case::pronoun_possessive("Our worker uses Redis for locks.")]
    #[case::there("There is a lock table in the schema.")]
    #[case::imperative("Use the release profile for benchmarks.")]
    #[case::imperative_with_subject("Make sure the worker uses the new queue.")]
    #[case::imperative_adverb("Always run the linter before pushing.")]
    #[case::question("Does the worker use Redis?")]
    #[case::tag_question("The worker uses Redis, right?")]
    #[case::hedge("The worker probably uses Redis.")]
    #[case::opinion("I think the worker uses Redis.")]
    #[case::modal("The worker should use Redis.")]
    #[case::negation("The worker does not use Redis.")]
    #[case::no_longer("The worker no longer uses Redis.")]
    #[case::contraction("The worker doesn't use Redis.")]
    #[case::future("The worker will use Redis after the upgrade.")]
    #[case::progressive("The migration is running on the replica.")]
    #[case::past("The worker was Redis-backed until March.")]
    #[case::change_log("Switched the worker to Redis.")]
    #[case::perfect("The API has changed its error format.")]
    #[case::comparative("Redis is faster than Postgres for hot keys.")]
    #[case::vague("Everything is fine.")]
    #[case::judgement("The build is broken again.")]
    #[case::generic_subject("The user is happy.")]
    #[case::condition("If the queue is full, the worker uses the spool.")]
    #[case::scoped("In production, the worker uses Redis.")]
    #[case::two_verbs("The API uses REST and serves OpenAPI docs.")]
    #[case::relative_clause("The database is Postgres, which the ops team manages.")]
    #[case::undated_since("Since the upgrade, the worker uses Redis.")]
    fn drops_a_sentence_that_is_not_a_plain_fact(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[rstest]
    #[case::diff_added("+The worker uses Redis for locks.")]
    #[case::diff_removed("-The worker uses Redis for locks.")]
    #[case::diff_hunk(
        "@@ -1,3 +1,3 @@\n The worker uses Redis.\n-The API uses REST.\n+The API uses gRPC."
    )]
    #[case::compiler_error("error: the worker uses an unknown queue name")]
    #[case::exception("TypeError: the worker uses an undefined queue")]
    #[case::stack_frame("    at Worker.run (/app/src/worker.js:12:9)")]
    #[case::source_location("src/worker.rs:42:5: the worker uses a stale lock")]
    #[case::log_timestamp("2026-03-01T10:00:00Z the worker uses 2 GB of memory")]
    #[case::log_level("[WARN] the cache uses 90% of memory")]
    #[case::log_level_word("INFO worker uses queue jobs-v2")]
    #[case::shell_prompt("$ cargo run --bin worker")]
    #[case::shell_command("docker compose up -d worker")]
    #[case::shell_pipe("echo the worker uses Redis | tee notes.txt")]
    #[case::code("let worker = Worker::uses(redis);")]
    #[case::config("queue: redis")]
    #[case::heading("## The worker uses Redis")]
    #[case::fenced_code("```\nThe worker uses Redis.\n```")]
    #[case::task("TODO: the worker uses too much memory")]
    fn drops_a_line_that_is_not_prose(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[test]
    fn periods_inside_versions_file_names_and_abbreviations_do_not_end_a_sentence() {
        assert_eq!(
            triples("The image uses Node 22.4. The API requires Python 3.12."),
            vec![
                triple("image", "uses", "Node 22.4"),
                triple("API", "requires", "Python 3.12"),
            ]
        );
        assert_eq!(
            triples("The loader reads config.toml at startup. The tests use fixtures.json."),
            vec![
                triple("loader", "reads", "config.toml at startup"),
                triple("tests", "use", "fixtures.json"),
            ]
        );
        assert_eq!(
            triples("The CLI supports three shells incl. Fish and Zsh."),
            vec![triple("CLI", "supports", "three shells incl. Fish and Zsh")]
        );
        assert_eq!(
            triples("Cold starts take 380 ms. The worker uses Redis."),
            vec![triple("worker", "uses", "Redis")],
            "after a number, \"ms.\" is a unit that ends the sentence"
        );
    }

    #[test]
    fn a_wrapped_line_joins_its_sentence_and_a_new_line_starts_a_new_one() {
        assert_eq!(
            triples("The hook keeps a lease on each job\nand renews it every ten seconds."),
            vec![],
            "the wrapped sentence refers back with \"it\" and is dropped whole"
        );
        assert_eq!(
            triples("The spool lives on local disk\nThe server listens on port 7777"),
            vec![triple("server", "listens on", "port 7777")]
        );
        assert_eq!(
            triples("- The queue uses Redis\n- The cache uses Memcached"),
            vec![
                triple("queue", "uses", "Redis"),
                triple("cache", "uses", "Memcached"),
            ]
        );
    }

    #[test]
    fn noise_lines_around_a_fact_leave_the_fact() {
        let text = "$ cargo test\ntest result: ok. 48 passed; 0 failed\n\
                    The workspace requires Rust 1.89.\nerror[E0382]: borrow of moved value";
        assert_eq!(
            triples(text),
            vec![triple("workspace", "requires", "Rust 1.89")]
        );
    }

    #[rstest]
    #[case("Since 2026-03-01, the hub requires TLS 1.3.")]
    #[case("Since 2026-03-01 the hub requires TLS 1.3.")]
    #[case("As of 2026-03-01, the hub requires TLS 1.3.")]
    #[case("From 2026-03-01 on, the hub requires TLS 1.3.")]
    #[case("On 2026-03-01, the hub requires TLS 1.3.")]
    #[case("The hub requires TLS 1.3 since 2026-03-01.")]
    fn a_stated_start_date_dates_the_fact(#[case] text: &str) {
        let facts = extract(text);
        assert_eq!(facts.len(), 1, "{text}");
        let fact = &facts[0];
        assert_eq!(
            (
                fact.subject.as_str(),
                fact.predicate.as_str(),
                fact.object.as_str()
            ),
            ("hub", "requires", "TLS 1.3")
        );
        assert_eq!(fact.valid_from, Some(midnight_utc("2026-03-01")));
        assert_eq!(fact.confidence, DATED_CONFIDENCE);
    }

    #[test]
    fn a_date_elsewhere_does_not_date_a_fact() {
        let facts = extract("The cutover ran on 2026-02-03. The ledger service uses Postgres.");
        assert_eq!(facts.len(), 1);
        assert_eq!(facts[0].valid_from, None);
        assert_eq!(facts[0].confidence, UNDATED_CONFIDENCE);
        assert_eq!(
            extract("Since 2026-13-45, the hub requires TLS 1.3."),
            vec![]
        );
    }

    #[test]
    fn a_subject_left_empty_by_an_adverb_is_no_fact() {
        assert_eq!(triples("Currently use the replica for reports."), vec![]);
    }

    #[rstest]
    #[case::still("The scheduler still runs on the old VM.")]
    #[case::only_before_the_verb("The exporter only writes CSV.")]
    #[case::just_before_the_verb("The parser just handles ASCII input.")]
    #[case::only_after_is("The portal is only reachable from the office network.")]
    #[case::temporarily("The mailer temporarily sends through a backup relay.")]
    #[case::for_now("The gateway uses a static key list for now.")]
    #[case::for_the_time_being("The indexer reads from a dump for the time being.")]
    #[case::at_the_moment("The crawler runs on one node at the moment.")]
    #[case::in_progress("The schema rewrite is in progress.")]
    #[case::workaround("The client pins HTTP/1.1 as a workaround.")]
    fn drops_an_arrangement_that_is_about_to_change(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[rstest]
    #[case("The gateway now uses HTTP/3.", "gateway", "uses", "HTTP/3")]
    #[case("The gateway currently uses HTTP/3.", "gateway", "uses", "HTTP/3")]
    #[case(
        "The archive stores only compressed segments.",
        "archive",
        "stores",
        "only compressed segments"
    )]
    #[case(
        "The feed serves protobuf over gRPC only.",
        "feed",
        "serves",
        "protobuf over gRPC only"
    )]
    #[case(
        "The tracker is the only reader of the audit log.",
        "tracker",
        "is",
        "the only reader of the audit log"
    )]
    fn keeps_an_adverb_that_does_not_change_the_fact(
        #[case] text: &str,
        #[case] s: &str,
        #[case] p: &str,
        #[case] o: &str,
    ) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[rstest]
    #[case::metric_duration("Median build time is 7 minutes.")]
    #[case::metric_ratio("Search accuracy is 0.93 on the gold set.")]
    #[case::metric_percent("Disk usage is 64%.")]
    #[case::size("The wheel is 22 MB.")]
    #[case::large_count("The queue has 4.5 million messages.")]
    #[case::thousands("The nightly job handles 1,800 files.")]
    #[case::percent_after_has("The classifier has 88% recall.")]
    #[case::took("The importer runs in 12 seconds.")]
    #[case::speed("The renderer runs at 90 fps.")]
    #[case::load("The scheduler runs at 35% CPU.")]
    #[case::usage("The worker uses 700 MB of memory.")]
    #[case::estimate("The index is roughly 9 GB.")]
    #[case::around("The cache holds around 2 GB and is shared.")]
    #[case::change("The pool size is 32, up from 16.")]
    #[case::drop("The p95 is down to 30 ms.")]
    fn drops_a_reading(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[rstest]
    #[case("The lock timeout is 45 seconds.", "lock timeout", "is", "45 seconds")]
    #[case("The upload cap is 25 MB.", "upload cap", "is", "25 MB")]
    #[case("The default page size is 100.", "default page size", "is", "100")]
    #[case("The batch size is 500.", "batch size", "is", "500")]
    #[case(
        "The proxy has a 2% error budget.",
        "proxy",
        "has",
        "a 2% error budget"
    )]
    #[case("The device has 64 MB of flash.", "device", "has", "64 MB of flash")]
    #[case(
        "The balancer targets 65% CPU utilisation.",
        "balancer",
        "targets",
        "65% CPU utilisation"
    )]
    #[case("The tracer keeps 2% of spans.", "tracer", "keeps", "2% of spans")]
    #[case(
        "The importer handles files larger than 4 GB.",
        "importer",
        "handles",
        "files larger than 4 GB"
    )]
    #[case(
        "Attachments must be smaller than 20 MB.",
        "Attachments",
        "must",
        "be smaller than 20 MB"
    )]
    fn keeps_a_configured_value(
        #[case] text: &str,
        #[case] s: &str,
        #[case] p: &str,
        #[case] o: &str,
    ) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[rstest]
    #[case::empty("The job queue is empty.")]
    #[case::nearly("The replica is nearly in sync.")]
    #[case::down("The metrics cluster is down.")]
    #[case::clean("The linter is clean.")]
    #[case::unchanged("The public API is unchanged.")]
    #[case::level("The rollout is at 80%.")]
    #[case::clock("The demo is at 2 pm.")]
    #[case::weekday("The freeze is on Tuesday.")]
    #[case::scheduled("The cutover is scheduled for 2026-09-01.")]
    #[case::deadline("The vendor requires a signed contract by October.")]
    #[case::work_to_do("The changelog needs updating.")]
    #[case::work_item("The ticket is closed.")]
    #[case::comparison("The new importer uses less memory than the old one.")]
    fn drops_a_passing_state_or_an_event(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[rstest]
    #[case(
        "The cleanup job runs on Sundays.",
        "cleanup job",
        "runs on",
        "Sundays"
    )]
    #[case(
        "The index is rebuilt nightly at 01:00 UTC.",
        "index",
        "is",
        "rebuilt nightly at 01:00 UTC"
    )]
    #[case(
        "The weekly export is at 05:00 UTC.",
        "weekly export",
        "is",
        "at 05:00 UTC"
    )]
    fn keeps_a_schedule(#[case] text: &str, #[case] s: &str, #[case] p: &str, #[case] o: &str) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[rstest]
    #[case::role("Morgan is the approver for schema changes.")]
    #[case::whereabouts("Lee is on leave.")]
    #[case::on_call("Robin is on call.")]
    #[case::newcomer("The new contractor needs a VPN account.")]
    #[case::possessive("The customer's tenant uses SSO.")]
    #[case::their_machine("The reviewer's laptop runs Arch.")]
    #[case::head("The intern owns the test plan.")]
    fn drops_a_sentence_about_a_person(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[rstest]
    #[case(
        "The search team owns the ranking service.",
        "search team",
        "owns",
        "the ranking service"
    )]
    #[case(
        "The users table has a unique index on email.",
        "users table",
        "has",
        "a unique index on email"
    )]
    #[case("Admin users must enable 2FA.", "Admin users", "must", "enable 2FA")]
    fn keeps_a_fact_that_names_people_as_part_of_the_product(
        #[case] text: &str,
        #[case] s: &str,
        #[case] p: &str,
        #[case] o: &str,
    ) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[rstest]
    #[case::eg("The cache uses a fast store, e.g. Redis.")]
    #[case::ie("The proxy uses a CDN, i.e. Fastly.")]
    #[case::such_as("The API accepts formats such as CSV.")]
    #[case::for_example("For example, the worker uses Redis.")]
    #[case::for_instance("The router, for instance, handles retries.")]
    #[case::open_task("- [ ] the importer must skip empty rows")]
    #[case::done_task("- [x] The API uses the new schema")]
    #[case::numbered("2. The worker uses Redis.")]
    fn drops_an_example_or_a_list_of_steps(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[rstest]
    #[case(
        "The site is built with Astro and the API is written in Go.",
        &[("site", "is", "built with Astro"), ("API", "is", "written in Go")]
    )]
    #[case(
        "The bus uses NATS, and the store uses SQLite.",
        &[("bus", "uses", "NATS"), ("store", "uses", "SQLite")]
    )]
    #[case(
        "The indexer uses Tantivy and Rayon.",
        &[("indexer", "uses", "Tantivy and Rayon")]
    )]
    #[case(
        "The journal stores inserts and writes.",
        &[("journal", "stores", "inserts and writes")]
    )]
    #[case::shared_subject("The bus uses NATS and publishes to three subjects.", &[])]
    #[case::shared_subject_particle("The agent reads from journald and sends logs to Loki.", &[])]
    #[case::second_participle("Events are batched and compressed with zstd.", &[])]
    #[case::pronoun_clause("The bus uses NATS and it runs on Kubernetes.", &[])]
    #[case::bad_clause("The bus uses NATS and the store is slow.", &[])]
    #[case::comma_splice("The bus runs on Linux, the console supports Windows.", &[])]
    fn reads_clauses_joined_by_and_one_by_one(
        #[case] text: &str,
        #[case] expected: &[(&str, &str, &str)],
    ) {
        let expected: Vec<_> = expected.iter().map(|(s, p, o)| triple(s, p, o)).collect();
        assert_eq!(triples(text), expected);
    }

    #[rstest]
    #[case("Since June 5, 2026, the mailer uses Postmark.")]
    #[case("Since June 5 2026 the mailer uses Postmark.")]
    #[case("Since 5 June 2026, the mailer uses Postmark.")]
    #[case("As of Jun 5th, 2026, the mailer uses Postmark.")]
    #[case("From the 5th of June 2026, the mailer uses Postmark.")]
    fn a_written_start_date_dates_the_fact(#[case] text: &str) {
        let facts = extract(text);
        assert_eq!(facts.len(), 1, "{text}");
        assert_eq!(
            (facts[0].subject.as_str(), facts[0].object.as_str()),
            ("mailer", "Postmark")
        );
        assert_eq!(facts[0].valid_from, Some(midnight_utc("2026-06-05")));
    }

    #[test]
    fn a_version_opening_is_dropped_and_leaves_the_fact_undated() {
        for text in [
            "As of v2.4, the CLI writes logs to stderr.",
            "Since version 3 the CLI writes logs to stderr.",
        ] {
            let facts = extract(text);
            assert_eq!(facts.len(), 1, "{text}");
            assert_eq!(facts[0].object, "logs to stderr");
            assert_eq!(facts[0].valid_from, None);
        }
        assert_eq!(
            triples("Since February 30, 2026, the hub requires TLS 1.3."),
            vec![]
        );
        assert_eq!(triples("Since May 2026, the hub requires TLS 1.3."), vec![]);
    }

    #[rstest]
    #[case(
        "The app requires macOS 13 or later.",
        "app",
        "requires",
        "macOS 13 or later"
    )]
    #[case(
        "The app supports macOS 13 and later.",
        "app",
        "supports",
        "macOS 13 and later"
    )]
    #[case("The agent is written in Zig.", "agent", "is", "written in Zig")]
    fn keeps_a_lower_bound_and_a_passive(
        #[case] text: &str,
        #[case] s: &str,
        #[case] p: &str,
        #[case] o: &str,
    ) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[rstest]
    #[case(
        "The search index is OpenSearch 2.11.",
        "search index",
        "is",
        "OpenSearch 2.11"
    )]
    #[case(
        "The ledger is the system of record.",
        "ledger",
        "is",
        "the system of record"
    )]
    #[case("The release branch is trunk.", "release branch", "is", "trunk")]
    #[case(
        "The dead-letter topic is jobs-dlq.",
        "dead-letter topic",
        "is",
        "jobs-dlq"
    )]
    #[case("The session API is idempotent.", "session API", "is", "idempotent")]
    #[case(
        "Invoices are kept in cold storage.",
        "Invoices",
        "are",
        "kept in cold storage"
    )]
    #[case(
        "The wiki is hosted on an internal Gitea.",
        "wiki",
        "is",
        "hosted on an internal Gitea"
    )]
    #[case(
        "The tokenizer is trained with SentencePiece and DeepSpeed.",
        "tokenizer",
        "is",
        "trained with SentencePiece and DeepSpeed"
    )]
    #[case("Exports are in Avro format.", "Exports", "are", "in Avro format")]
    fn keeps_a_noun_phrase_or_an_arrangement_after_is(
        #[case] text: &str,
        #[case] s: &str,
        #[case] p: &str,
        #[case] o: &str,
    ) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[rstest]
    #[case::state("The Windows installer is unaffected.")]
    #[case::adjective("The sandbox account is tidy now.")]
    #[case::available("The beta build is available to the QA group.")]
    #[case::participle("The changelog entries are updated.")]
    #[case::deleted("The legacy bucket is deleted.")]
    #[case::frozen("The release branch is frozen.")]
    #[case::attached("The flame graph is attached to the ticket.")]
    #[case::place("The benchmark table is in the merge request.")]
    #[case::progress("The fine-tuning run is at step 4000.")]
    #[case::compound("The staging mirror is up-to-date.")]
    fn drops_a_state_or_a_place_after_is(#[case] text: &str) {
        assert_eq!(triples(text), vec![]);
    }

    #[test]
    fn a_name_with_a_capital_inside_opens_a_sentence() {
        assert_eq!(
            triples("The client is built with Flutter. macOS builds pass on CI."),
            vec![triple("client", "is", "built with Flutter")]
        );
    }

    #[test]
    fn a_subject_that_reports_a_clause_is_no_fact() {
        assert_eq!(
            triples("The vendor docs say the token requires a refresh."),
            vec![]
        );
    }

    #[rstest]
    #[case(
        "The billing worker must not retry declined cards.",
        "billing worker",
        "must",
        "not retry declined cards"
    )]
    #[case(
        "Session cookies must never be readable from scripts.",
        "Session cookies",
        "must",
        "never be readable from scripts"
    )]
    fn keeps_a_prohibition_with_its_negation(
        #[case] text: &str,
        #[case] s: &str,
        #[case] p: &str,
        #[case] o: &str,
    ) {
        assert_eq!(triples(text), vec![triple(s, p, o)]);
    }

    #[test]
    fn a_verb_only_plural_after_a_singular_subject_is_still_a_verb() {
        assert_eq!(
            triples("Checkout service require a CSRF token."),
            vec![triple("Checkout service", "require", "a CSRF token")]
        );
        assert_eq!(
            triples("The test run uses Docker."),
            vec![triple("test run", "uses", "Docker")]
        );
    }

    #[test]
    fn lower_case_lines_that_each_state_a_fact_are_read_apart() {
        assert_eq!(
            triples("Relay notes:\nrelay requires mutual TLS\nclient certs are stored in Vault"),
            vec![
                triple("relay", "requires", "mutual TLS"),
                triple("client certs", "are", "stored in Vault"),
            ]
        );
        assert_eq!(
            triples("The relay requires mutual TLS for\nevery client"),
            vec![triple("relay", "requires", "mutual TLS for every client")]
        );
    }

    #[test]
    fn a_named_task_is_part_of_a_pipeline() {
        assert_eq!(
            triples("The compaction task runs in the batch worker pool."),
            vec![triple(
                "compaction task",
                "runs",
                "in the batch worker pool"
            )]
        );
    }

    #[test]
    fn a_summary_keeps_its_standing_facts_and_drops_its_narration() {
        let text = "Finished the queue rewrite. The queue uses SQS with a 30-second visibility \
                    timeout. Reproduced the slow consumer on staging. Median lag is 4 s, down \
                    from 9 s. The consumer group is at 60% of its quota. Dana is the reviewer.";
        assert_eq!(
            triples(text),
            vec![triple(
                "queue",
                "uses",
                "SQS with a 30-second visibility timeout"
            )]
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_gives_well_formed_facts(text in "(?s).{0,200}") {
            for fact in extract(&text) {
                proptest::prop_assert!(!fact.subject.is_empty() && !fact.object.is_empty());
                proptest::prop_assert!(!fact.subject.contains('`') && !fact.object.contains('`'));
                let dated = fact.valid_from.is_some();
                let expected = if dated { DATED_CONFIDENCE } else { UNDATED_CONFIDENCE };
                proptest::prop_assert_eq!(fact.confidence, expected);
            }
        }

        #[test]
        fn sentence_like_text_never_panics(
            words in proptest::collection::vec(
                "(The|the|uses|use|is|are|must|have|has|runs|on|to|Currently|API|calls|`x y`|,|2026-03-01|Since|As of|\\.|;|\\n|- |and|only|at|40|ms|%|March|2,|2026|v3.0,|than|\\[ \\])",
                0..14,
            )
        ) {
            extract(&words.join(" "));
        }
    }

    #[test]
    fn a_window_drops_duplicates_and_keeps_at_most_five() {
        let texts = [
            "The queue uses Redis.",
            "the queue uses redis.",
            "The cache uses Memcached. The hub listens on port 7443.",
            "The worker requires a lease. The spool stores redacted lines.",
            "The daemon runs on Linux. The CLI defaults to JSON output.",
        ];
        let window = extract_window(texts);
        assert_eq!(window.len(), MAX_PER_WINDOW);
        let subjects: Vec<(usize, &str)> = window
            .iter()
            .map(|(i, c)| (*i, c.subject.as_str()))
            .collect();
        assert_eq!(
            subjects,
            [
                (0, "queue"),
                (2, "cache"),
                (2, "hub"),
                (3, "worker"),
                (3, "spool")
            ]
        );
    }
}
