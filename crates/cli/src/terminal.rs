//! Text from skills, the model and the story, made safe to print at the
//! player's terminal: a script or a model must not be able to set the
//! clipboard (OSC 52), retitle the window, move the cursor or rewrite lines.
//!
//! Everything the command prints goes through this module: [`say!`] and
//! [`say_part!`] for standard output, [`tell!`] for standard error, and
//! [`json_line`] for JSON documents. A test keeps the rest of the crate free
//! of `println!` and its kin (docs/security.md, "The terminal").

use std::borrow::Cow;
use std::io::{IsTerminal, Write};

/// Prints a line to standard output, made safe by [`clean`].
macro_rules! say {
    () => {
        $crate::terminal::out_line("")
    };
    ($($arg:tt)*) => {
        $crate::terminal::out_line(&format!($($arg)*))
    };
}

/// Prints text to standard output without ending the line (streamed prose),
/// made safe by [`clean`], and flushes it.
macro_rules! say_part {
    ($($arg:tt)*) => {
        $crate::terminal::out_part(&format!($($arg)*))
    };
}

/// Prints a line to standard error, made safe by [`clean`].
macro_rules! tell {
    () => {
        $crate::terminal::err_line("")
    };
    ($($arg:tt)*) => {
        $crate::terminal::err_line(&format!($($arg)*))
    };
}

/// One line of standard output, cleaned.
pub fn out_line(text: &str) {
    println!("{}", clean(text));
}

/// Text on standard output without a line end, cleaned and flushed.
pub fn out_part(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{}", clean(text));
    let _ = out.flush();
}

/// One line of standard error, cleaned.
pub fn err_line(text: &str) {
    eprintln!("{}", clean(text));
}

/// One line of standard output, cleaned and shown dimmed when it goes to a
/// terminal (the style is the program's own, never the text's).
pub fn out_dim(text: &str) {
    let text = clean(text);
    if std::io::stdout().is_terminal() {
        println!("\x1b[2m{text}\x1b[0m");
    } else {
        println!("{text}");
    }
}

/// Whether standard error is a terminal (a progress bar shows there).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Writes `value` as one JSON line on standard output ([`clean_json`]) and
/// flushes it; false when standard output is closed.
pub fn json_line(value: &impl serde::Serialize) -> bool {
    let json = clean_json(
        serde_json::to_string(value)
            .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string()),
    );
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}").and_then(|()| out.flush()).is_ok()
}

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';

/// `text` without terminal control: escape sequences (CSI, OSC, DCS and the
/// like, as far as they are in `text`) are removed whole, and every other
/// C0 or C1 control character but `\n` and `\t` is dropped. Text with none
/// is returned as it is.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => skip_sequence(&mut chars),
            // C1 introducers that open a string: skip to its end.
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            c if is_control(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A JSON document made safe to print: serde_json already writes C0
/// controls as `\u00XX`, but leaves DEL and C1 controls (U+0080–U+009F,
/// which some terminals obey) raw; these become `\u00XX` escapes too. The
/// JSON means the same.
pub fn clean_json(json: String) -> String {
    if !json
        .chars()
        .any(|c| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c))
    {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `c` is a control character a terminal could act on, or a
/// bidirectional embedding, override or isolate, which makes a name read
/// other than it is written (U+202A–U+202E, U+2066–U+2069).
fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || c == '\u{7f}'
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// Skips what follows an ESC: a CSI, a control string (OSC, DCS, SOS, PM,
/// APC) or a two-character sequence.
fn skip_sequence(chars: &mut Chars<'_>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars),
        // nF sequences: intermediates, then a final character.
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            while let Some(&n) = chars.peek() {
                chars.next();
                if !('\u{20}'..='\u{2f}').contains(&n) {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// Skips a CSI's parameters and intermediates and its final byte.
fn skip_csi(chars: &mut Chars<'_>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) || (is_control(c) && c != ESC) {
            return;
        }
    }
}

/// Skips a control string up to its terminator: BEL, ST (`ESC \` or U+009C).
fn skip_string(chars: &mut Chars<'_>) {
    while let Some(c) = chars.next() {
        match c {
            BEL | '\u{9c}' => return,
            ESC => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crate prints only through this module, so nothing reaches the
    /// terminal uncleaned: no print macro and no handle on standard output
    /// or error is used anywhere else.
    #[test]
    fn every_print_goes_through_the_output_helpers() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let forbidden = [
            "println!",
            "print!(",
            "eprintln!",
            "eprint!(",
            "stdout()",
            "stderr()",
            "dbg!(",
        ];
        let mut found = Vec::new();
        let mut dirs = vec![src.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.ends_with("terminal.rs") || path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    for f in forbidden {
                        // `say_part!(`, `tell_part!(` hold no forbidden word; `eprint!(` holds `print!(`.
                        if line.contains(f) && !line.trim_start().starts_with("//") {
                            found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                        }
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "prints that bypass the terminal helpers:\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn json_keeps_its_meaning_without_raw_controls() {
        let value = serde_json::json!({"t": "a\u{1b}]52;c;SGVsbG8=\u{7}b\u{9b}31m\u{7f}"});
        let text = clean_json(serde_json::to_string(&value).unwrap());
        assert!(!text.chars().any(|c| c.is_control()), "{text:?}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }

    #[test]
    fn plain_text_passes_untouched() {
        let text = "The door opens.\n\tA draft — «cold» — blows in. 🎲";
        assert!(matches!(clean(text), Cow::Borrowed(_)));
        assert_eq!(clean(text), text);
    }

    #[test]
    fn clipboard_title_and_cursor_sequences_are_removed_whole() {
        assert_eq!(clean("a\u{1b}]52;c;SGVsbG8=\u{7}b"), "ab");
        assert_eq!(clean("a\u{1b}]0;pwned\u{1b}\\b"), "ab");
        assert_eq!(clean("a\u{1b}[2J\u{1b}[1;31mred\u{1b}[0mb"), "aredb");
        assert_eq!(clean("a\u{9d}52;c;SGVsbG8=\u{9c}b"), "ab");
        assert_eq!(clean("a\u{9b}31mb"), "ab");
        assert_eq!(clean("a\u{1b}(Bb"), "ab");
    }

    #[test]
    fn text_cannot_reverse_itself_on_screen() {
        assert_eq!(
            clean("Old Tom\u{202e}lave\u{202c} \u{2067}x\u{2069}"),
            "Old Tomlave x"
        );
        // Marks that only say which way a script runs stay.
        assert_eq!(clean("שלום\u{200f} Tom"), "שלום\u{200f} Tom");
    }

    #[test]
    fn other_controls_are_dropped_but_newlines_and_tabs_stay() {
        assert_eq!(clean("line\r\n\u{8}x\u{7}\u{0}\ty\u{7f}"), "line\nx\ty");
        // A sequence cut off at the end of a piece of streamed text leaves nothing behind.
        assert_eq!(clean("story\u{1b}]52;c;SGVs"), "story");
        assert_eq!(clean("\u{1b}"), "");
    }
}
