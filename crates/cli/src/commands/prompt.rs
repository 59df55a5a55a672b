//! The player's lines at `narratoria play`: at a terminal, a line editor
//! (rustyline: arrows, Ctrl-R, history kept between stories in the user's
//! data folder); from a pipe, plain lines, echoed after a "> " as typed.

use std::io::{BufRead, IsTerminal, StdinLock};
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor};

/// How many lines the history keeps.
const HISTORY_LINES: usize = 1000;

/// Where the player's lines come from.
pub enum Prompt {
    /// A terminal: line editing, with the history file.
    Terminal {
        editor: Box<Editor<(), FileHistory>>,
        history: PathBuf,
    },
    /// A pipe or file: one line each.
    Lines(std::io::Lines<StdinLock<'static>>),
}

impl Prompt {
    /// Line editing when stdin is a terminal (history read from `history`),
    /// else plain lines from stdin.
    pub fn open(history: PathBuf) -> Prompt {
        if std::io::stdin().is_terminal() {
            let config = Config::builder()
                .max_history_size(HISTORY_LINES)
                .map(|b| b.auto_add_history(false).build());
            match config.and_then(Editor::with_config) {
                Ok(mut editor) => {
                    if let Err(e) = editor.load_history(&history) {
                        if history.exists() {
                            tracing::warn!(
                                "the input history {} was not read: {e}",
                                history.display()
                            );
                        }
                    }
                    return Prompt::Terminal {
                        editor: Box::new(editor),
                        history,
                    };
                }
                Err(e) => tracing::warn!("no line editing ({e}); reading plain lines"),
            }
        }
        Prompt::Lines(std::io::stdin().lock().lines())
    }

    /// The next line, trimmed; `None` when the player is done (Ctrl-D, end
    /// of input). Ctrl-C abandons the line being typed and asks again; on
    /// an empty line it does nothing else.
    pub fn next_line(&mut self) -> Option<String> {
        match self {
            Prompt::Lines(lines) => {
                // Echoed, so what is printed reads as the story at a terminal.
                let Some(Ok(line)) = lines.next() else {
                    say!();
                    return None;
                };
                let line = line.trim().to_string();
                if !line.is_empty() {
                    say!("\n> {line}");
                }
                Some(line)
            }
            Prompt::Terminal { editor, history } => loop {
                say!();
                match editor.readline("> ") {
                    Ok(line) => {
                        let line = line.trim().to_string();
                        if !line.is_empty() {
                            remember(editor, history, &line);
                        }
                        return Some(line);
                    }
                    Err(ReadlineError::Interrupted) => continue,
                    Err(ReadlineError::Eof) => return None,
                    Err(e) => {
                        tracing::warn!("reading your input failed: {e}");
                        return None;
                    }
                }
            },
        }
    }
}

/// Adds `line` to the history and saves it at once, so a story that ends
/// abruptly keeps it.
fn remember(editor: &mut Editor<(), FileHistory>, history: &PathBuf, line: &str) {
    let _ = editor.add_history_entry(line);
    if let Some(dir) = history.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = editor.save_history(history) {
        tracing::debug!("the input history {} was not saved: {e}", history.display());
    }
}
