//! The command line a host runs for a hook, and how we recognise one of ours again.
//!
//! A registered command names the host explicitly (`/abs/aletheia hook codex SessionStart`):
//! the SessionStart payloads of Claude Code, Codex and Command Code look almost the same, so
//! the payload alone cannot tell them apart. Uninstall and reinstall find our entries by that
//! command, whatever path to an `aletheia` binary it starts with (the binary may have moved,
//! or been written bare as `aletheia` by hand), and only for the host being changed.

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

/// Whether `command` runs `aletheia hook <host>`: a word naming an `aletheia` binary (bare, by
/// any path, quoted or not) followed by `hook` and `host`.
pub fn is_hook_command(command: &str, host: &str) -> bool {
    let mut rest = command;
    while let Some(i) = rest.find("aletheia") {
        let before = rest[..i].chars().next_back();
        let after = &rest[i + "aletheia".len()..];
        rest = after;
        if !matches!(before, None | Some('/' | '\\' | '\'' | '"' | ' ' | '\t')) {
            continue;
        }
        let after = after.strip_prefix(".exe").unwrap_or(after);
        let after = after.trim_start_matches(['\'', '"']);
        let mut words = after.split_whitespace();
        if after.starts_with(char::is_whitespace)
            && words.next() == Some("hook")
            && words.next() == Some(host)
        {
            return true;
        }
    }
    false
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
    #[case("/opt/aletheia hook claude-code Stop", "codex", false)]
    #[case("/opt/aletheia hook codex-beta Stop", "codex", false)]
    #[case("/opt/not-aletheia hook codex Stop", "codex", false)]
    #[case("/opt/aletheia-dev hook codex Stop", "codex", false)]
    #[case("/opt/aletheia capture --tool codex", "codex", false)]
    #[case("echo hook codex", "codex", false)]
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
