//! The story's controls at the terminal: `/regen [all]`, `/continue`,
//! `/swipe [N]`, `/edit N TEXT`, `/edit-narration N TEXT`, `/undo`,
//! `/redo`, `/branch [NAME]`, `/branches`, `/switch NAME` (docs/stories.md),
//! and the corrections of the last turn's mechanics: `/roll`, `/noroll`,
//! `/skill NAME`, `/noskill NAME`, `/corrections [remove ID]`
//! (docs/narrator.md, "The player corrects").

use narratoria_app::corrections::{MechanicsChange, ROLL_SKILL};
use narratoria_app::{App, AppError, SessionView};
use narratoria_core::skills::corrections::Correction;
use narratoria_core::turn::TurnEvent;
use tokio::runtime::Runtime;

use super::interrupt::stoppable;
use super::live::{show, STOPPED};

/// What the controls add to `/help`.
pub const HELP: &str =
    "  /regen             tell the last turn again (same rolls)   /regen all  play it again
  /continue          more narration for the last turn
  /swipe [N]         flip between the last turn's versions
  /edit N TEXT       play turn N again with other words, on a new branch
  /edit-narration N TEXT   rewrite turn N's narration
  /undo  /redo       take the last turn back, bring it back
  /branch [NAME]     start a branch here    /branches   list them   /switch NAME
  /roll  /noroll     the last turn needed a roll / needed none: play it so, and remember
  /skill NAME        the last turn needed skill NAME    /noskill NAME   it did not
  /corrections [remove ID]   what this story's routing learned from you";

/// Runs `/cmd` when it is one of the story's controls; `None` when it is not.
pub fn run(cmd: &str, app: &App, rt: &Runtime) -> Option<Result<(), String>> {
    let (name, arg) = match cmd.trim().split_once(char::is_whitespace) {
        Some((n, a)) => (n, a.trim()),
        None => (cmd.trim(), ""),
    };
    let known = [
        "regen",
        "continue",
        "swipe",
        "edit",
        "edit-narration",
        "undo",
        "redo",
        "branch",
        "branches",
        "switch",
        "roll",
        "noroll",
        "skill",
        "noskill",
        "corrections",
    ];
    if !known.contains(&name) {
        return None;
    }
    Some(control(name, arg, app, rt).map_err(|e| e.to_string()))
}

fn control(name: &str, arg: &str, app: &App, rt: &Runtime) -> Result<(), AppError> {
    let session = app.current_session_id()?;
    match name {
        "regen" if arg == "all" => {
            let (view, streamed) = live(rt, app, &session, |tx| {
                app.regenerate_turn(&session, Some(tx))
            })?;
            if !streamed {
                say!("\n{}", view.turn.narrative);
            }
        }
        "regen" => {
            let (view, streamed) = live(rt, app, &session, |tx| {
                app.regenerate_narration(&session, Some(tx))
            })?;
            if !streamed {
                last(&view);
            }
            versions(app, &session)?;
        }
        "continue" => {
            let (view, streamed) = live(rt, app, &session, |tx| {
                app.continue_narration(&session, Some(tx))
            })?;
            if !streamed {
                last(&view);
            }
        }
        "swipe" => {
            let number = match arg {
                "" => None,
                n => Some(
                    n.parse::<u32>()
                        .map_err(|_| usage("/swipe takes a number"))?,
                ),
            };
            last(&rt.block_on(app.swipe(&session, number))?);
            versions(app, &session)?;
        }
        "edit" => {
            let (n, text) = numbered(arg, "/edit N TEXT")?;
            let (view, streamed) = live(rt, app, &session, |tx| {
                app.edit_turn(&session, n, text, Some(tx))
            })?;
            if !streamed {
                say!("\n{}", view.turn.narrative);
            }
            say!("  (on branch “{}”)", app.current_session()?.session.branch);
        }
        "edit-narration" => {
            let (n, text) = numbered(arg, "/edit-narration N TEXT")?;
            rt.block_on(app.edit_narration(&session, n, text))?;
            say!("  Turn {n} now reads as you wrote it.");
        }
        "undo" => match app.undo(&session)? {
            Some(view) => {
                say!("  Took the last turn back (/redo brings it back).");
                last(&view);
            }
            None => say!("  Nothing to take back: the story is at its start."),
        },
        "redo" => match app.redo(&session)? {
            Some(view) => last(&view),
            None => say!("  Nothing to bring back."),
        },
        "branch" => {
            let at = app.current_session()?.turns.len() as u32;
            let name = (!arg.is_empty()).then_some(arg);
            let made = app.branch(&session, at, name)?;
            say!("  Now on branch “{}” (from turn {at}).", made.name);
        }
        "branches" => {
            for b in app.branches(&session)? {
                let mark = if b.current { "*" } else { " " };
                say!("  {mark} {:<24} {:>3} turn(s)", b.name, b.turns);
            }
        }
        "switch" => {
            let view = app.switch_branch(&session, arg)?;
            say!(
                "  Now on branch “{}” ({} turns).",
                view.session.branch,
                view.turns.len()
            );
            last(&view);
        }
        "roll" | "noroll" | "skill" | "noskill" => {
            let skill = match (name, arg) {
                ("roll" | "noroll", _) => ROLL_SKILL.to_string(),
                (_, "") => return Err(usage(&format!("/{name} NAME (a skill of /skills)"))),
                (_, skill) => skill.to_string(),
            };
            let change = if matches!(name, "roll" | "skill") {
                MechanicsChange::Needed(skill)
            } else {
                MechanicsChange::Needless(skill)
            };
            let (view, streamed) = live(rt, app, &session, |tx| {
                app.correct_turn(&session, &change, Some(tx))
            })?;
            if !streamed {
                say!("\n{}", view.turn.narrative);
            }
            let kept = app.corrections(&session)?.len();
            say!("  Played again and remembered: this story has {kept} correction(s) (/corrections).");
        }
        "corrections" => {
            let kept = match arg.split_once(char::is_whitespace) {
                Some(("remove", id)) => {
                    let id = id
                        .trim()
                        .parse::<i64>()
                        .map_err(|_| usage("/corrections remove ID"))?;
                    let kept = app.remove_correction(&session, id)?;
                    say!("  Correction {id} removed.");
                    kept
                }
                None if arg.is_empty() => app.corrections(&session)?,
                _ => return Err(usage("/corrections [remove ID]")),
            };
            if kept.is_empty() {
                say!("  No corrections yet: /roll, /noroll, /skill NAME or /noskill NAME after a turn.");
            }
            for c in &kept {
                say!("  {:>3}  {}", c.id, correction_line(c));
            }
        }
        _ => unreachable!("only known controls get here"),
    }
    Ok(())
}

/// Runs a turn control with its live events shown as they come; Ctrl-C
/// meanwhile stops it as it stops a turn.
/// Runs `f` with its events shown as they come; the outcome, and whether
/// prose was streamed (so it need not be printed again).
fn live<T, F, Fut>(rt: &Runtime, app: &App, session: &str, f: F) -> Result<(T, bool), AppError>
where
    F: FnOnce(tokio::sync::mpsc::UnboundedSender<TurnEvent>) -> Fut,
    Fut: std::future::Future<Output = Result<T, AppError>>,
{
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<TurnEvent>();
    rt.block_on(async {
        let printer = tokio::spawn(async move {
            let mut streamed = String::new();
            while let Some(ev) = rx.recv().await {
                show(&ev, &mut streamed);
            }
            !streamed.trim().is_empty()
        });
        let done = stoppable(app, session, f(tx)).await;
        let streamed = printer.await.unwrap_or(false);
        if streamed {
            say!(); // the streamed prose ends its line
        }
        if done.stopped {
            say!("{}", STOPPED);
        }
        done.outcome.map(|outcome| (outcome, streamed))
    })
}

/// "“I haggle for the horse” needs dice-roller, not reputation".
pub fn correction_line(c: &Correction) -> String {
    let needed: Vec<&str> = c.needed_skills().collect();
    let mut line = format!("“{}” ", c.input);
    if needed.is_empty() {
        line.push_str("needs no skill");
    } else {
        line.push_str(&format!("needs {}", needed.join(" and ")));
    }
    if !c.unneeded.is_empty() {
        line.push_str(&format!(", not {}", c.unneeded.join(" or ")));
    }
    line
}

fn last(view: &SessionView) {
    if let Some(t) = view.turns.last() {
        say!("\n{}", t.narrative);
    }
}

/// "version 2 of 3" for the last turn, when it has more than one.
fn versions(app: &App, session: &str) -> Result<(), AppError> {
    let all = app.alternatives(session)?;
    if let Some(active) = all.iter().find(|a| a.active) {
        if all.len() > 1 {
            say!(
                "  (version {} of {}; /swipe N to choose)",
                active.number,
                all.len()
            );
        }
    }
    Ok(())
}

fn numbered<'a>(arg: &'a str, how: &str) -> Result<(u32, &'a str), AppError> {
    let (n, text) = arg
        .split_once(char::is_whitespace)
        .ok_or_else(|| usage(how))?;
    let n = n.parse::<u32>().map_err(|_| usage(how))?;
    Ok((n, text.trim()))
}

fn usage(how: &str) -> AppError {
    AppError::new(
        narratoria_core::ErrorCode::InputEmpty,
        format!("usage: {how}"),
    )
}
