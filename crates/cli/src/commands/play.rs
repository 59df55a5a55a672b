//! `narratoria play`: the story at the terminal.

use std::process::ExitCode;

use narratoria_app::planner::stderr_progress_bar;
use narratoria_app::{locate, App, AppConfig, SessionDb, SessionView};
use narratoria_core::skills::Catalog;
use narratoria_core::turn::TurnEvent;

use super::common::{runtime, CliError};
use super::interrupt::{self, Ran};
use super::live::{say, show, STOPPED};
use super::prompt::Prompt;
use crate::cli::PlayArgs;

/// The app the story runs in: the given database (else the user's), the
/// user's skill choices, skill data in the user's skill-data folder.
pub fn open_app(args: &PlayArgs) -> Result<App, CliError> {
    Ok(App::open(AppConfig {
        skill_roots: locate::skill_roots(&args.roots.skills),
        session_db: args
            .session
            .clone()
            .map_or(SessionDb::User, SessionDb::File),
        skill_data: Some(locate::skills_data_dir()),
        ..AppConfig::default()
    })?)
}

/// The story `args` ask for: a new one from `--scenario`, a new blank one
/// with `--new`, else the latest.
pub fn open_story(app: &App, args: &PlayArgs) -> Result<SessionView, CliError> {
    Ok(if let Some(scenario) = &args.scenario {
        app.new_story(Some(scenario))?
    } else if args.new {
        app.new_session("")?
    } else {
        app.current_session()?
    })
}

/// Warns on stderr that the story's writer does not write the story's
/// language, where that is known (docs/models.md, "Languages"). Returns
/// whether the story's language is known: until it is (the player's first
/// words tell it), the check is made again after each turn.
pub fn warn_of_language(app: &App) -> bool {
    let Ok(language) = app
        .current_session_id()
        .and_then(|id| app.story_language(&id))
    else {
        return true;
    };
    if let Some(line) = language.warning_line() {
        tell!("warning: {line}");
    }
    language.code.is_some()
}

/// `play`: the interactive story.
pub fn play(args: PlayArgs) -> Result<ExitCode, CliError> {
    let app = open_app(&args)?;
    let model = app.load_model(args.model.as_deref(), Some(stderr_progress_bar()))?;
    let view = open_story(&app, &args)?;
    if view.turns.is_empty() {
        say("A new story begins. Type what your character does; /help for commands.");
        if let Some(opening) = narratoria_core::scenario::opening(&view.state) {
            say(&format!("\n{opening}"));
        }
    } else {
        say(&format!(
            "Continuing “{}” ({} turns). Type /new for a new story, /help for commands.",
            view.session.title,
            view.turns.len()
        ));
        if let Some(last) = view.turns.last() {
            say(&format!("\n{}", last.narrative));
        }
    }
    say(&format!(
        "Narrator: {}. Skills: {}.",
        model.planner,
        skill_line(&app.registry().snapshot())
    ));

    let mut language_known = warn_of_language(&app);
    let rt = runtime();
    interrupt::take_interrupts(&rt);
    let mut prompt = Prompt::open(locate::user_data_dir().join("play-history.txt"));
    while let Some(line) = prompt.next_line() {
        if line.is_empty() {
            continue;
        }
        if let Some(cmd) = line.strip_prefix('/') {
            let done =
                super::story_controls::run(cmd, &app, &rt).or_else(|| super::table::run(cmd, &app));
            if let Some(done) = done {
                if let Err(msg) = done {
                    say(&format!("  {msg}"));
                }
                continue;
            }
            match command(cmd, &app) {
                Ok(true) => continue,
                Ok(false) => break,
                Err(msg) => {
                    say(&format!("  {msg}"));
                    continue;
                }
            }
        }
        play_turn(&rt, &app, &line);
        if !language_known {
            language_known = warn_of_language(&app);
        }
    }
    say("Your story is saved. Farewell.");
    Ok(ExitCode::SUCCESS)
}

/// Plays one turn, showing its live events and then its narrative; Ctrl-C
/// meanwhile stops it (see [`interrupt`]).
fn play_turn(rt: &tokio::runtime::Runtime, app: &App, line: &str) {
    let session = match app.current_session_id() {
        Ok(id) => id,
        Err(e) => return say(&format!("  {e}")),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<TurnEvent>();
    let (played, streamed) = rt.block_on(async {
        let printer = tokio::spawn(async move {
            let mut streamed = String::new();
            while let Some(ev) = rx.recv().await {
                show(&ev, &mut streamed);
            }
            streamed
        });
        let played = interrupt::stoppable(app, &session, app.play(line, Some(tx))).await;
        (played, printer.await.unwrap_or_default())
    });
    match played {
        Ran {
            outcome: Ok(view),
            stopped,
        } => {
            if stopped {
                say(STOPPED);
            }
            if stopped || streamed.trim() != view.turn.narrative.trim() {
                say(&format!("\n{}", view.turn.narrative));
            } else {
                // The streamed prose ends its own line.
                say!();
            }
        }
        Ran {
            outcome: Err(e), ..
        } => say(&format!("  {e}")),
    }
}

/// Runs a `/command`; `Ok(false)` ends the game.
fn command(cmd: &str, app: &App) -> Result<bool, String> {
    // The argument is the rest of the line as typed: a file name may hold spaces.
    let (name, arg) = cmd
        .trim()
        .split_once(char::is_whitespace)
        .unwrap_or((cmd.trim(), ""));
    let arg = arg.trim().to_string();
    let e = |e: narratoria_app::AppError| e.to_string();
    match name {
        "quit" | "exit" | "q" => return Ok(false),
        "help" | "?" => {
            say(HELP);
            say(super::story_controls::HELP);
            say(super::table::HELP);
        }
        "skills" => {
            for s in app.registry().snapshot().skills() {
                say(&format!(
                    "  {:<14} {:<4} {:<17} {}",
                    s.name,
                    if s.enabled { "on" } else { "off" },
                    format!("{:?}", s.error_state),
                    s.description
                ));
            }
        }
        "enable" | "disable" => {
            let on = name == "enable";
            app.set_skill_enabled(&arg, on).map_err(e)?;
            say(&format!(
                "  {arg} {}",
                if on { "enabled" } else { "disabled" }
            ));
        }
        "turns" | "history" => {
            for t in app.current_session().map_err(e)?.turns {
                say(&format!(
                    "  {:>3}. > {}\n       {}",
                    t.number,
                    t.input,
                    first_line(&t.narrative)
                ));
            }
        }
        "rewind" => {
            let view = app.current_session().map_err(e)?;
            let target = if arg.is_empty() {
                view.turns.len().saturating_sub(1) as u32
            } else {
                arg.parse::<u32>()
                    .map_err(|_| format!("/rewind takes a turn number, not {arg:?}"))?
            };
            let view = app.rewind(&view.session.id, target).map_err(e)?;
            say(&format!("  Rewound to just after turn {target}."));
            if let Some(last) = view.turns.last() {
                say(&format!("\n{}", last.narrative));
            }
        }
        "new" => {
            let view = app.new_session(&arg).map_err(e)?;
            say(&format!("  A new story begins: {}.", view.session.title));
        }
        "note" => {
            let id = app.current_session_id().map_err(e)?;
            match arg.as_str() {
                "" => {
                    let note = app.author_note(&id).map_err(e)?;
                    if note.is_empty() {
                        say("  No author's note. /note TEXT sets one: tone, focus, what to avoid.");
                    } else {
                        say(&format!("  Author's note: {note}"));
                    }
                }
                "clear" => {
                    app.set_author_note(&id, "").map_err(e)?;
                    say("  Author's note cleared.");
                }
                text => {
                    app.set_author_note(&id, text).map_err(e)?;
                    say("  Author's note saved: the narrator follows it from the next turn.");
                }
            }
        }
        "language" => {
            let id = app.current_session_id().map_err(e)?;
            if arg.is_empty() {
                let language = app.story_language(&id).map_err(e)?;
                match &language.code {
                    Some(code) => say(&format!(
                        "  The story is told in {} ({code}). /language CODE changes it.",
                        language.name
                    )),
                    None => say(
                        "  The story's language is not known yet: your first words tell it (English until then). /language CODE sets it.",
                    ),
                }
            } else {
                let language = app.set_story_language(&id, &arg).map_err(e)?;
                say(&format!(
                    "  The story is told in {} ({}) from the next turn.",
                    language.name,
                    language.code.as_deref().unwrap_or_default()
                ));
                if let Some(line) = language.warning_line() {
                    say(&format!("  {line}"));
                }
            }
        }
        "export" => {
            let (format, file) = export_args(&arg)?;
            let id = app.current_session_id().map_err(e)?;
            match file {
                Some(file) => {
                    let bytes = app
                        .export_to_file(&id, format, std::path::Path::new(&file))
                        .map_err(e)?;
                    say(&format!("  Saved to {file} ({bytes} bytes)."));
                }
                None => say(&app.export(&id, format).map_err(e)?),
            }
        }
        other => return Err(format!("unknown command /{other} (try /help)")),
    }
    Ok(true)
}

/// The format and file of `/export [md|json] [FILE]`: the file is the rest of
/// the line, spaces and all (quotes around it are taken off); without a
/// format word the file's extension picks it (`.json`, else Markdown).
fn export_args(arg: &str) -> Result<(&'static str, Option<String>), String> {
    let (first, rest) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
    let (format, file) = match first {
        "md" | "markdown" => ("md", rest.trim()),
        "json" => ("json", rest.trim()),
        _ => {
            let file = arg.trim();
            let json = file
                .trim_matches(['"', '\''])
                .to_lowercase()
                .ends_with(".json");
            (if json { "json" } else { "md" }, file)
        }
    };
    let unquoted = match file.as_bytes() {
        [q @ (b'"' | b'\''), .., last] if q == last && file.len() >= 2 => &file[1..file.len() - 1],
        [b'"' | b'\'', ..] => {
            return Err(format!(
                "/export: the file name {file} has no closing quote"
            ))
        }
        _ => file,
    };
    Ok((format, (!unquoted.is_empty()).then(|| unquoted.to_string())))
}

const HELP: &str = "  Type what your character does. Commands:
  /skills            the skills and their health
  /enable NAME       turn a skill on       /disable NAME   turn it off
  /turns             the story so far
  /rewind [N]        go back to just after turn N (default: undo the last turn)
  /new [TITLE]       start a new story
  /note [TEXT|clear] the author's note the narrator follows: show, set or clear it
  /language [CODE]   the story's language: show it, or set it (fr, French)
  /export [md|json] [FILE]  the file may hold spaces (the rest of the line)
  /quit";

fn skill_line(catalog: &Catalog) -> String {
    let names: Vec<String> = catalog.usable(&[]).map(|s| s.name.clone()).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > 90 {
        format!("{}…", line.chars().take(90).collect::<String>())
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::export_args;

    #[test]
    fn export_takes_the_rest_of_the_line_as_the_file() {
        let cases = [
            ("", ("md", None)),
            ("md", ("md", None)),
            ("json", ("json", None)),
            ("md my story.md", ("md", Some("my story.md"))),
            (
                "json  the long night.json",
                ("json", Some("the long night.json")),
            ),
            ("md \"quoted name.md\"", ("md", Some("quoted name.md"))),
            ("my story.md", ("md", Some("my story.md"))),
            ("'the night.JSON'", ("json", Some("the night.JSON"))),
        ];
        for (arg, (format, file)) in cases {
            let got = export_args(arg).unwrap();
            assert_eq!(got, (format, file.map(String::from)), "{arg:?}");
        }
        assert!(export_args("md \"unclosed.md")
            .unwrap_err()
            .contains("no closing quote"));
    }
}
