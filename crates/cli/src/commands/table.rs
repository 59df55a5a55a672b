//! The game master's table at the terminal (docs/game-master.md, "The
//! player at the table"): `/scene`, `/threads [close|reopen N | rename N
//! TITLE | add TITLE]`, `/people`, `/facts [pin TEXT | unpin N]`.

use narratoria_app::table::{StoryTable, TableChange};
use narratoria_app::{App, AppError};

use super::live::say;

/// What the table adds to `/help`.
pub const HELP: &str = "  /scene             where you are, who is with you, the tension
  /threads [close N | reopen N | rename N TITLE | add TITLE]   the story's open threads
  /people            the people met, what they want, how they regard you
  /facts [pin TEXT | unpin N]   what the story settled, and the facts you pinned";

/// Runs `/cmd` when it is one of the table's; `None` when it is not.
pub fn run(cmd: &str, app: &App) -> Option<Result<(), String>> {
    let (name, arg) = match cmd.trim().split_once(char::is_whitespace) {
        Some((n, a)) => (n, a.trim()),
        None => (cmd.trim(), ""),
    };
    if !["scene", "threads", "people", "facts"].contains(&name) {
        return None;
    }
    Some(at_the_table(name, arg, app))
}

fn at_the_table(name: &str, arg: &str, app: &App) -> Result<(), String> {
    let session = app.current_session_id().map_err(shown)?;
    let table = match change_of(name, arg)? {
        Some(change) => app.change_table(&session, &change).map_err(shown)?,
        None => app.story_table(&session).map_err(shown)?,
    };
    let lines = match name {
        "scene" => scene(&table),
        "threads" => threads(&table),
        "people" => people(&table),
        _ => facts(&table),
    };
    for line in lines {
        say(&format!("  {line}"));
    }
    Ok(())
}

fn shown(e: AppError) -> String {
    e.to_string()
}

/// The change `/name arg` asks for; `None` to show the table.
fn change_of(name: &str, arg: &str) -> Result<Option<TableChange>, String> {
    if arg.is_empty() {
        return Ok(None);
    }
    let (verb, rest) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
    let rest = rest.trim();
    let number = |text: &str, usage: &str| {
        text.parse::<usize>()
            .map_err(|_| format!("{usage} takes a number from the list, not {text:?}"))
    };
    let change = match (name, verb) {
        ("threads", "close") => TableChange::CloseThread {
            thread: number(rest, "/threads close")?,
        },
        ("threads", "reopen") => TableChange::ReopenThread {
            thread: number(rest, "/threads reopen")?,
        },
        ("threads", "rename") => {
            let (n, title) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            TableChange::RenameThread {
                thread: number(n, "/threads rename")?,
                title: title.to_string(),
            }
        }
        ("threads", "add") => TableChange::AddThread {
            title: rest.to_string(),
        },
        ("facts", "pin") => TableChange::PinFact {
            text: rest.to_string(),
        },
        ("facts", "unpin") => TableChange::UnpinFact {
            fact: number(rest, "/facts unpin")?,
        },
        _ => return Err(format!("/{name} does not take {verb:?} (try /help)")),
    };
    Ok(Some(change))
}

fn scene(t: &StoryTable) -> Vec<String> {
    if t.tension == 0 {
        return vec![
            "The story has no game master's table yet: it starts with the next turn.".into(),
        ];
    }
    let place = match t.scene.place.trim() {
        "" => "somewhere the story has not named".to_string(),
        p => p.to_string(),
    };
    let with = match t.scene.present.is_empty() {
        true => "no one".to_string(),
        false => t.scene.present.join(", "),
    };
    let mut lines = vec![
        format!("Scene {}: {place}.", t.scene.number.max(1)),
        format!("With you: {with}."),
    ];
    if !t.scene.goal.trim().is_empty() {
        lines.push(format!("After: {}.", t.scene.goal.trim()));
    }
    lines.push(format!("Tension {} of 9.", t.tension));
    lines
}

fn threads(t: &StoryTable) -> Vec<String> {
    if t.threads.is_empty() {
        return vec!["No threads yet. /threads add TITLE starts one.".into()];
    }
    t.threads
        .iter()
        .enumerate()
        .map(|(i, th)| {
            let state = match th.closed {
                true => "closed".to_string(),
                false => format!("{} of {} steps", th.progress, th.steps),
            };
            format!("{:>2}. {} ({state})", i + 1, th.title)
        })
        .collect()
}

fn people(t: &StoryTable) -> Vec<String> {
    if t.people.is_empty() {
        return vec!["The story knows no one yet.".into()];
    }
    t.people
        .iter()
        .map(|p| {
            let met = if p.met { "" } else { ", not met yet" };
            let wants = match p.wants.trim() {
                "" => String::new(),
                w => format!(" — wants {w}"),
            };
            format!("{} ({}{met}){wants}", p.name, p.attitude)
        })
        .collect()
}

fn facts(t: &StoryTable) -> Vec<String> {
    if t.facts.is_empty() {
        return vec!["No facts kept yet. /facts pin TEXT keeps one.".into()];
    }
    t.facts
        .iter()
        .enumerate()
        .map(|(i, f)| {
            format!(
                "{:>2}. {}{}",
                i + 1,
                if f.pinned { "📌 " } else { "" },
                f.text
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_commands_read_their_arguments() {
        assert_eq!(change_of("threads", "").unwrap(), None);
        assert_eq!(
            change_of("threads", "rename 2 The voice below").unwrap(),
            Some(TableChange::RenameThread {
                thread: 2,
                title: "The voice below".into()
            })
        );
        assert_eq!(
            change_of("facts", "pin Dee owes 400.").unwrap(),
            Some(TableChange::PinFact {
                text: "Dee owes 400.".into()
            })
        );
        assert!(change_of("threads", "close two")
            .unwrap_err()
            .contains("a number"));
        assert!(change_of("people", "add x")
            .unwrap_err()
            .contains("/people"));
    }
}
