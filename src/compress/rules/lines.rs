//! Which lines of a note are prose: commands, output, errors, logs, diffs, code, checklists
//! and labelled lines are dropped before any sentence is read, and wrapped lines are joined.

use super::*;

// 1. Lines ------------------------------------------------------------------------------------

/// Prose paragraphs, with every line that is not prose removed.
///
/// A line joins the previous one only when that one did not end a sentence, this one starts in
/// lower case and the two read as one sentence (see [`continues`]): a wrapped sentence.
/// Anything else starts a new paragraph, because notes often put one statement per line
/// without a final period.
pub(super) fn paragraphs(text: &str) -> Vec<String> {
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
            || !continues(&current, content)
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

/// Whether a lower-case line carries on the sentence of the line before: that line leaves a
/// phrase unfinished ("The relay requires mutual TLS for" / "every client") or this one opens
/// with a connective ("and renews it every ten seconds"). Notes hold one statement per line,
/// often in lower case and without a period, so any other line is read on its own:
/// "bootloader requires signed images" over "signing key is kept in the HSM" are two facts,
/// and "the sim" over "reads from the scratch volume" a label and a fragment.
fn continues(current: &str, line: &str) -> bool {
    let key = |word: Option<&str>| {
        word.unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let last = key(current.split_whitespace().next_back());
    let first = key(line.split_whitespace().next());
    current.ends_with(',')
        || has(DANGLING, &last)
        || has(OPENERS, &first)
        || has(CLAUSE_WORDS, &first)
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
    let noise = LINE_NOISE.is_match(line) || looks_like_command(line) || looks_like_code(line);
    if status || noise || labelled(line) {
        return None;
    }
    Some((line, item))
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
/// lower-case word means the period may be an abbreviation's (see `sentences` for when not).
pub(super) fn opens_sentence(after: &str) -> bool {
    let word = after.split_whitespace().next().unwrap_or("");
    !word.starts_with(char::is_lowercase) || word.chars().any(char::is_uppercase)
}

/// A line that opens with a one-word label: a setting (`port: 8080`), a task (`TODO: ...`,
/// `tmp: ...`, `remember: ...`) or a statement filed under a heading (`Storage: the service
/// stores frames in S3`). Like a bold label, it sets the line apart from plain statements of
/// how things are, so none of it is read.
fn labelled(line: &str) -> bool {
    line.split_once(':')
        .is_some_and(|(key, _)| !key.is_empty() && !key.contains([' ', '`']))
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
