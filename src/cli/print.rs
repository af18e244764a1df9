//! The command line's one way to stdout.
//!
//! Every command prints through here, so that two rules hold for all of them. A reader that goes
//! away (`aletheia search … | head -1`) ends the command with an `io::Error` of kind
//! `BrokenPipe`, which `main` turns into a quiet exit 0, where `println!` would panic. And on a
//! terminal, control characters in stored text are shown escaped rather than obeyed, so that a
//! memory cannot retitle, recolour or drive the terminal; piped, the output is exactly the text.
//!
//! A [`Printer`] holds stdout locked and buffered, for a command that streams many lines
//! (`export`, `search --json`); it must be [`Printer::flush`]ed at the end, so that a failed
//! last write is seen. The free functions print one result and flush.

use crate::text::Rendered;
use crate::time::Clock;
use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};

/// Stdout, locked and buffered for the life of one command's output.
pub struct Printer {
    out: BufWriter<StdoutLock<'static>>,
    terminal: bool,
}

impl Printer {
    pub fn stdout() -> Printer {
        let out = io::stdout().lock();
        let terminal = out.is_terminal();
        Printer {
            out: BufWriter::new(out),
            terminal,
        }
    }

    /// One text result and a newline.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        self.write_line(text, false)
    }

    /// One line that is already JSON, and a newline.
    pub fn json_line(&mut self, line: &str) -> io::Result<()> {
        self.write_line(line, true)
    }

    /// `value` as one line of JSON.
    pub fn json<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        let line = serde_json::to_string(value).map_err(io::Error::other)?;
        self.json_line(&line)
    }

    /// Bytes exactly as given, on a terminal too: a manual page, a completion script, the text
    /// `redact` was given back with its secrets replaced.
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    /// Send what is buffered; the error of any write the buffer held back comes out here.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn write_line(&mut self, text: &str, json: bool) -> io::Result<()> {
        if self.terminal {
            writeln!(self.out, "{}", for_terminal(text, json))
        } else {
            writeln!(self.out, "{text}")
        }
    }
}

/// Print one text result.
pub fn line(text: &str) -> io::Result<()> {
    let mut out = Printer::stdout();
    out.line(text)?;
    out.flush()
}

/// Print `value` as one line of JSON.
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> io::Result<()> {
    let mut out = Printer::stdout();
    out.json(value)?;
    out.flush()
}

/// Print bytes exactly as given.
pub fn raw(bytes: &[u8]) -> io::Result<()> {
    let mut out = Printer::stdout();
    out.raw(bytes)?;
    out.flush()
}

/// Print an operation's result: its text, or one line of JSON with `--json`.
pub fn result<T: serde::Serialize>(
    out: &T,
    clock: &Clock,
    json: bool,
    text: fn(&T, &Clock) -> Rendered,
) -> io::Result<()> {
    if json {
        self::json(out)
    } else {
        line(text(out, clock).text())
    }
}

/// `text` with its control characters escaped for a terminal. Text keeps tabs and newlines and
/// shows every other C0 control and DEL as `\x1b`, and a C1 control (U+0080 to U+009F, which
/// some terminals obey as escapes) as `\u{9b}`. JSON already escapes C0; DEL and C1 become
/// `\u009b`, which keeps it valid JSON meaning the same.
pub fn for_terminal(text: &str, json: bool) -> std::borrow::Cow<'_, str> {
    let raw = |c: char| {
        if json {
            matches!(c, '\u{7f}'..='\u{9f}')
        } else {
            c.is_control() && c != '\n' && c != '\t'
        }
    };
    if !text.chars().any(raw) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c as u32 {
            _ if !raw(c) => out.push(c),
            n if json => out.push_str(&format!("\\u{n:04x}")),
            n if n < 0x80 => out.push_str(&format!("\\x{n:02x}")),
            n => out.push_str(&format!("\\u{{{n:x}}}")),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::for_terminal;

    #[test]
    fn a_terminal_sees_control_characters_escaped_but_tabs_and_newlines_kept() {
        let stored = "title\x1b]0;pwned\x07 \x1b[31mred\r\x7f\u{9b}2J\tcol\nnext é";
        assert_eq!(
            for_terminal(stored, false),
            "title\\x1b]0;pwned\\x07 \\x1b[31mred\\x0d\\x7f\\u{9b}2J\tcol\nnext é"
        );
        assert!(matches!(
            for_terminal("plain\ttext\n", false),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn json_on_a_terminal_stays_json_with_c1_and_del_escaped() {
        let line = serde_json::to_string(&serde_json::json!({"t": "a\x1bb\u{9b}c\x7f"})).unwrap();
        let shown = for_terminal(&line, true);
        assert_eq!(shown, r#"{"t":"a\u001bb\u009bc\u007f"}"#);
        let back: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(back["t"], "a\x1bb\u{9b}c\x7f");
    }
}
