//! The command line a host runs for a hook, and how we recognise one of ours again.
//!
//! A registered command names the host explicitly (`/abs/aletheia hook codex SessionStart`):
//! the SessionStart payloads of Claude Code, Codex and Command Code look almost the same, so
//! the payload alone cannot tell them apart. Uninstall and reinstall find our entries by that
//! command, whatever path to an `aletheia` or `aletheia-hook` binary it starts with (the binary
//! may have moved, or been written bare as `aletheia` by hand), and only for the host being
//! changed.

use std::path::Path;

/// `<exe> hook <host> <event>`, the executable quoted for a POSIX shell when it needs it.
pub fn hook_command(exe: &Path, host: &str, event: &str) -> String {
    format!(
        "{} hook {host} {event}",
        shell_quote(&exe.display().to_string())
    )
}

/// `s` as one shell word. Hosts run hook commands through a shell, so a path with a space or a
/// quote in it must be quoted to stay one word.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Whether `command` is one of ours for `host`: exactly `<program> hook <host> <event>`, the
/// program one word (quoted or not) naming an `aletheia` binary, nothing before or after it.
/// A user's command that merely mentions one (`echo 'aletheia hook ...' >> log`,
/// `X=1 aletheia hook ... && notify-send done`) is theirs, and is never changed or removed.
pub fn is_hook_command(command: &str, host: &str) -> bool {
    let Some(words) = shell_words(command) else {
        return false;
    };
    let plain_word = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    match words.as_slice() {
        [program, hook, h, event] => {
            names_binary(program)
                && hook == "hook"
                && h == host
                && plain_word(event)
                // The other words as written, unquoted: a quote there is not ours.
                && command
                    .trim_end()
                    .ends_with(&format!(" hook {host} {event}"))
        }
        _ => false,
    }
}

/// Whether `program` (one word, already unquoted) names an `aletheia` or `aletheia-hook`
/// binary: bare, or by any path, with or without `.exe`.
pub fn names_binary(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    let safe = !program.contains(['$', '`', '\n']);
    safe && (name == "aletheia" || name == "aletheia-hook")
}

/// Split a command line the way a POSIX shell splits words: whitespace separates, single
/// quotes keep everything, double quotes and backslashes escape. `None` for an unclosed quote.
pub fn shell_words(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => w.push(c),
                            c => {
                                w.push('\\');
                                w.push(c);
                            }
                        },
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("/usr/local/bin/aletheia hook codex SessionStart", "codex", true)]
    #[case("aletheia hook codex Stop", "codex", true)]
    #[case("'/home/a b/bin/aletheia' hook codex Stop", "codex", true)]
    #[case("\"C:\\tools\\aletheia.exe\" hook codex Stop", "codex", true)]
    #[case("/usr/local/bin/aletheia-hook hook codex Stop", "codex", true)]
    #[case("\"C:\\tools\\aletheia-hook.exe\" hook codex Stop", "codex", true)]
    #[case("/opt/aletheia-hooks hook codex Stop", "codex", false)]
    #[case("/opt/aletheia hook claude-code Stop", "codex", false)]
    #[case("/opt/aletheia hook codex-beta Stop", "codex", false)]
    #[case("/opt/not-aletheia hook codex Stop", "codex", false)]
    #[case("/opt/aletheia-dev hook codex Stop", "codex", false)]
    #[case("/opt/aletheia capture --tool codex", "codex", false)]
    #[case("echo hook codex", "codex", false)]
    #[case("echo 'aletheia hook codex Stop fired' >> ~/hooks.log", "codex", false)]
    #[case("A=/srv aletheia hook codex Stop && notify-send done", "codex", false)]
    #[case("aletheia hook codex Stop && notify-send done", "codex", false)]
    #[case("aletheia hook codex Stop; rm x", "codex", false)]
    #[case("aletheia hook codex", "codex", false)]
    fn recognises_only_our_hook_for_the_host(
        #[case] command: &str,
        #[case] host: &str,
        #[case] ours: bool,
    ) {
        assert_eq!(is_hook_command(command, host), ours, "{command}");
    }

    #[test]
    fn a_path_with_a_space_is_quoted_and_still_recognised() {
        let cmd = hook_command(Path::new("/home/a b/it's/aletheia"), "gemini", "AfterTool");
        assert_eq!(cmd, r"'/home/a b/it'\''s/aletheia' hook gemini AfterTool");
        assert!(is_hook_command(&cmd, "gemini"));
        assert_eq!(
            hook_command(Path::new("/usr/bin/aletheia"), "cursor", "stop"),
            "/usr/bin/aletheia hook cursor stop"
        );
    }
}
