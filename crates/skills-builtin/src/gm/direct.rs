//! One turn's direction: what the world does beyond the player's deed,
//! decided from the table, the turn's check and a seed (docs/game-master.md,
//! "A turn at the table").

use narratoria_lexicon::words::words_of;
use narratoria_lexicon::{
    asks_yes_or_no, is_stop_word, sentence_case, wondered, Language, Verdict,
};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::config::GameMasterConfig;
use super::oracle::{self, OracleAnswer};
use super::tables::shipped;
use narratoria_protocol::table::{KeptFact, Table, Tables};

/// What the game master sees of a turn.
#[derive(Debug, Clone, Copy)]
pub struct TurnSeen<'a> {
    /// The player's words.
    pub input: &'a str,
    /// Whether the story already answered the player's question (then the
    /// oracle is not asked).
    pub answered: bool,
    /// The turn's first check: its verdict and difficulty.
    pub check: Option<(Verdict, Option<i64>)>,
    /// Where the story is (the state's `location`), when it says.
    pub location: Option<&'a str>,
    /// Every choice of the turn comes from it.
    pub seed: u64,
}

/// What kind of thing a beat is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum BeatKind {
    /// The oracle answered a question the story did not hold.
    Oracle,
    /// A failure's price.
    Complication,
    /// A success took a thread a step further.
    ThreadMoves,
    /// A thread reached its end.
    ThreadComesToAHead,
    /// Someone named in the deed thinks better or worse of the player.
    Attitude,
    /// Someone acts on what they want.
    PersonActs,
    /// A thread moved without the player.
    Pressure,
    /// A random event.
    Event,
    /// The scene ends; the next one begins.
    SceneEnds,
}

/// Something that happens, in a sentence the writer tells.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Beat {
    pub kind: BeatKind,
    pub text: String,
    /// The person it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
    /// The thread it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// What the writer may make of it, beyond what the player is told
    /// (an event's meaning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Someone in the scene and how they regard the player.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Present {
    pub name: String,
    pub attitude: &'static str,
}

/// The event roll of a turn: the chance, the d100 and whether it fired.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EventRoll {
    pub chance: u32,
    pub roll: u32,
    pub fired: bool,
}

/// The oracle's part in a turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OracleRecord {
    pub question: String,
    pub answer: OracleAnswer,
    /// The d100 rolled; absent when the answer was kept from before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roll: Option<i64>,
    /// Whether the same question was answered before (and is answered the same).
    pub kept: bool,
}

/// How the next scene begins, by the scene check: a d10 over the tension
/// and it begins as expected; at or under it, an odd roll alters it and an
/// even one interrupts it with an event (the shape of Mythic's scene check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SceneSetup {
    Expected,
    Altered,
    Interrupted,
}

/// The scene a turn framed when it ended one.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SceneFrame {
    pub scene: u32,
    /// What the player is after in it: the title of the open thread
    /// nearest its end (empty when none is open).
    pub goal: String,
    pub roll: u8,
    pub setup: SceneSetup,
}

/// The turn's direction: the beats, who is present, the rolls behind
/// them, and the table after the turn (the state patch).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Direction {
    pub beats: Vec<Beat>,
    pub present: Vec<Present>,
    pub tension: u8,
    pub scene: u32,
    pub event: EventRoll,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle: Option<OracleRecord>,
    /// The next scene, when this turn ended one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<SceneFrame>,
    pub seed: u64,
    #[serde(skip)]
    pub table: Table,
}

/// Directs one turn. Promises: the same table, turn and config give the
/// same direction; a failure brings a complication from the minor table
/// (the serious one only after a disaster or a failure at a difficulty
/// of 20 or more) and raises tension; a success moves a thread and lowers
/// it; a yes-or-no question the story did not answer is answered by the
/// oracle and kept, and asked again gets the same answer; an event fires
/// on a d100 at or under tension × the event chance.
pub fn direct(mut table: Table, turn: &TurnSeen, config: &GameMasterConfig) -> Direction {
    let mut rng = ChaCha8Rng::seed_from_u64(turn.seed);
    let tables =
        shipped(table.genre.as_deref().unwrap_or(&config.genre)).overlaid(table.tables.as_ref());
    let mut beats = Vec::new();
    start_scene(&mut table, turn.location);
    let named = meet_the_named(&mut table, turn.input);

    let oracle = ask_the_oracle(&mut table, turn, config, &mut rng, &mut beats);
    let mut came_to_a_head = false;
    if let Some((verdict, dc)) = turn.check {
        came_to_a_head = judge(
            &mut table, verdict, dc, &named, turn.input, config, &tables, &mut rng, &mut beats,
        );
    }

    let chance = u32::from(table.tension) * config.event_chance.min(11);
    let roll: u32 = rng.random_range(1..=100);
    let fired = roll <= chance;
    if fired {
        if let Some(beat) = event(&mut table, &tables, &[], &mut rng) {
            beats.push(beat);
        }
    }
    table.scene.turns += 1;
    let succeeded = turn.check.is_some_and(|(v, _)| v.succeeded());
    let frame = match came_to_a_head
        || (table.scene.turns >= config.scene_length.max(1) && (fired || succeeded))
    {
        true => Some(frame_next_scene(&mut table, &tables, &mut rng, &mut beats)),
        false => {
            pursue(&mut table, turn.input);
            None
        }
    };
    let present = table
        .scene
        .present
        .iter()
        .filter_map(|name| {
            let p = table.people.iter().find(|p| &p.name == name)?;
            Some(Present {
                name: p.name.clone(),
                attitude: p.attitude.in_words(),
            })
        })
        .collect();
    Direction {
        beats,
        present,
        tension: table.tension,
        scene: table.scene.number,
        event: EventRoll {
            chance,
            roll,
            fired,
        },
        oracle,
        frame,
        seed: turn.seed,
        table,
    }
}

/// What the player is after in the scene: the open thread the deed is
/// about, else the goal kept while its thread is open, else the open
/// thread nearest its end.
fn pursue(table: &mut Table, input: &str) {
    let kept = table
        .open_threads()
        .any(|(_, t)| !t.title.is_empty() && t.title == table.scene.goal);
    let goal = match thread_about(table, input) {
        Some(i) => Some(i),
        None if kept => return,
        None => pressing(table),
    };
    table.scene.goal = goal
        .map(|i| table.threads[i].title.clone())
        .unwrap_or_default();
}

/// The open thread nearest its end (the first of those equally near).
fn pressing(table: &Table) -> Option<usize> {
    table
        .open_threads()
        .max_by_key(|(i, t)| (t.progress * 100 / t.steps.max(1), std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

/// Ends the scene and frames the next: no one present yet, the pressing
/// thread its goal, and the scene check deciding how it begins (an
/// interrupted scene opens with an event).
fn frame_next_scene(
    table: &mut Table,
    tables: &Tables,
    rng: &mut ChaCha8Rng,
    beats: &mut Vec<Beat>,
) -> SceneFrame {
    table.scene.number += 1;
    table.scene.turns = 0;
    table.scene.present.clear();
    table.scene.goal = pressing(table)
        .map(|i| table.threads[i].title.clone())
        .unwrap_or_default();
    let roll: u8 = rng.random_range(1..=10);
    let setup = match (roll <= table.tension, roll % 2 == 1) {
        (false, _) => SceneSetup::Expected,
        (true, true) => SceneSetup::Altered,
        (true, false) => SceneSetup::Interrupted,
    };
    let text = match table.scene.goal.is_empty() {
        true => "The scene draws to a close; what comes next begins elsewhere.".to_string(),
        false => format!(
            "The scene draws to a close; next, the story turns to {}.",
            in_a_sentence(&table.scene.goal)
        ),
    };
    beats.push(Beat {
        kind: BeatKind::SceneEnds,
        text,
        who: None,
        thread: (!table.scene.goal.is_empty()).then(|| table.scene.goal.clone()),
        hint: (setup == SceneSetup::Altered)
            .then(|| "The next scene does not begin as the player expects.".to_string()),
    });
    if setup == SceneSetup::Interrupted {
        // Someone who already acted this turn does not open the next scene too.
        let acted: Vec<String> = beats.iter().filter_map(|b| b.who.clone()).collect();
        if let Some(beat) = event(table, tables, &acted, rng) {
            beats.push(beat);
        }
    }
    SceneFrame {
        scene: table.scene.number,
        goal: table.scene.goal.clone(),
        roll,
        setup,
    }
}

/// The first turn opens scene 1; the scene is where the story says it is.
fn start_scene(table: &mut Table, location: Option<&str>) {
    if table.scene.number == 0 {
        table.scene.number = 1;
    }
    if let Some(place) = location.map(str::trim).filter(|p| !p.is_empty()) {
        table.scene.place = place.to_string();
    }
}

/// The people the player's words name: met, and in the scene from now.
/// Returns their indices in the table.
fn meet_the_named(table: &mut Table, input: &str) -> Vec<usize> {
    let said = format!(" {} ", words_of(input).join(" "));
    let mut named = Vec::new();
    for (i, p) in table.people.iter_mut().enumerate() {
        let by_name = p
            .name
            .split_whitespace()
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 3)
            .map(|w| words_of(w).join(" "))
            .chain(p.keys.iter().map(|k| words_of(k).join(" ")))
            .filter(|w| !w.is_empty())
            .any(|w| said.contains(&format!(" {w} ")));
        if by_name {
            p.met = true;
            named.push(i);
        }
    }
    for &i in &named {
        let name = table.people[i].name.clone();
        if !table.scene.present.contains(&name) {
            table.scene.present.push(name);
        }
    }
    named
}

/// A question's words that say what it is about, in order: the same
/// question asked again reads the same.
fn question_key(question: &str) -> String {
    let english = Language::english();
    let mut words: Vec<String> = words_of(question)
        .into_iter()
        .filter(|w| !is_stop_word(w, &english))
        .collect();
    words.sort();
    words.dedup();
    words.join(" ")
}

fn ask_the_oracle(
    table: &mut Table,
    turn: &TurnSeen,
    config: &GameMasterConfig,
    rng: &mut ChaCha8Rng,
    beats: &mut Vec<Beat>,
) -> Option<OracleRecord> {
    if turn.answered || turn.check.is_some() || !asks_yes_or_no(turn.input) {
        return None;
    }
    let key = question_key(turn.input);
    let question = turn.input.trim().to_string();
    if let Some(kept) = table.facts.iter().find(|f| {
        f.question
            .as_deref()
            .is_some_and(|q| !key.is_empty() && question_key(q) == key)
    }) {
        let answer = match kept.answer.as_deref() {
            Some(a) if a.starts_with("yes,") => OracleAnswer::ExceptionalYes,
            Some("yes") => OracleAnswer::Yes,
            Some(a) if a.starts_with("no,") => OracleAnswer::ExceptionalNo,
            _ => OracleAnswer::No,
        };
        beats.push(Beat {
            kind: BeatKind::Oracle,
            text: answered_in_words(&question, answer).0,
            who: None,
            thread: None,
            hint: None,
        });
        return Some(OracleRecord {
            question,
            answer,
            roll: None,
            kept: true,
        });
    }
    let (answer, roll) = oracle::ask(config.oracle_likelihood, table.tension, rng);
    let (text, kept_text) = answered_in_words(&question, answer);
    table.keep(KeptFact {
        text: kept_text,
        question: Some(question.clone()),
        answer: Some(answer.in_words().to_string()),
        pinned: false,
    });
    beats.push(Beat {
        kind: BeatKind::Oracle,
        text,
        who: None,
        thread: None,
        hint: None,
    });
    Some(OracleRecord {
        question,
        answer,
        roll: Some(roll),
        kept: false,
    })
}

/// The oracle's `answer` to `question` in words: the beat the player is
/// told, the answer alone ("The answer is no." — the player has just asked,
/// and a question told back gives their words back), and the fact the
/// table keeps, which says what was asked: the question wondered where the
/// lexicon can turn it ("Whether the hatch is sealed: no."), else quoted.
fn answered_in_words(question: &str, answer: OracleAnswer) -> (String, String) {
    let told = sentence_case(&format!("the answer is {}.", answer.in_words()));
    let kept = match wondered(question)
        .as_deref()
        .and_then(|w| w.strip_prefix("wonder whether "))
    {
        Some(clause) => format!("Whether {clause}: {}.", answer.in_words()),
        None => format!(
            "\u{201c}{question}\u{201d} {}.",
            sentence_case(answer.in_words())
        ),
    };
    (told, kept)
}

/// The check's consequences: tension, a complication or a thread moved,
/// and how the people named regard the player. Returns whether a thread
/// came to a head.
#[allow(clippy::too_many_arguments)]
fn judge(
    table: &mut Table,
    verdict: Verdict,
    dc: Option<i64>,
    named: &[usize],
    input: &str,
    config: &GameMasterConfig,
    tables: &Tables,
    rng: &mut ChaCha8Rng,
    beats: &mut Vec<Beat>,
) -> bool {
    let mut came_to_a_head = false;
    match verdict {
        Verdict::Failure | Verdict::CriticalFailure => {
            table.tense(if verdict == Verdict::CriticalFailure {
                2
            } else {
                1
            });
            let serious = verdict == Verdict::CriticalFailure || dc.is_some_and(|d| d >= 20);
            let list = match serious {
                true => &tables.complications.serious,
                false => &tables.complications.minor,
            };
            if config.complications {
                if let Some(text) = list.choose(rng) {
                    beats.push(Beat {
                        kind: BeatKind::Complication,
                        text: text.clone(),
                        who: None,
                        thread: None,
                        hint: None,
                    });
                }
            }
        }
        Verdict::Success | Verdict::CriticalSuccess => {
            let critical = verdict == Verdict::CriticalSuccess;
            table.tense(if critical { -2 } else { -1 });
            let about = thread_about(table, input);
            // A success moves the thread it is about; one about none moves
            // the story's first open thread half the time (or on a triumph).
            let moved = about.or_else(|| {
                let first = table.open_threads().next().map(|(i, _)| i)?;
                (critical || rng.random_bool(0.5)).then_some(first)
            });
            if let Some(i) = moved {
                let thread = &mut table.threads[i];
                thread.progress =
                    (thread.progress + if critical { 2 } else { 1 }).min(thread.steps);
                let title = thread.title.clone();
                if thread.progress >= thread.steps {
                    thread.closed = true;
                    came_to_a_head = true;
                    beats.push(Beat {
                        kind: BeatKind::ThreadComesToAHead,
                        text: format!("\u{201c}{title}\u{201d} comes to a head."),
                        who: None,
                        thread: Some(title),
                        hint: None,
                    });
                } else {
                    beats.push(Beat {
                        kind: BeatKind::ThreadMoves,
                        text: format!(
                            "You are a step closer on the thread \u{201c}{title}\u{201d}."
                        ),
                        who: None,
                        thread: Some(title),
                        hint: None,
                    });
                }
            }
        }
    }
    for &i in named {
        let person = &mut table.people[i];
        let before = person.attitude;
        person.attitude = match verdict {
            Verdict::Success | Verdict::CriticalSuccess => before.warmer(),
            Verdict::CriticalFailure => before.colder(),
            Verdict::Failure => before,
        };
        if person.attitude != before {
            let how = match person.attitude > before {
                true => "thinks better of you",
                false => "thinks worse of you",
            };
            beats.push(Beat {
                kind: BeatKind::Attitude,
                text: format!("{} {how}.", person.name),
                who: Some(person.name.clone()),
                thread: None,
                hint: None,
            });
        }
    }
    came_to_a_head
}

/// The open thread the player's words are most about (sharing the most
/// words of its title, at least one).
fn thread_about(table: &Table, input: &str) -> Option<usize> {
    let english = Language::english();
    let said: Vec<String> = words_of(input)
        .into_iter()
        .filter(|w| !is_stop_word(w, &english) && w.chars().count() > 2)
        .collect();
    table
        .open_threads()
        .map(|(i, t)| {
            let shared = words_of(&t.title)
                .iter()
                .filter(|w| said.contains(w))
                .count();
            (i, shared)
        })
        .filter(|(_, shared)| *shared > 0)
        .max_by_key(|(i, shared)| (*shared, std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

/// A random event: someone acting on what they want (four in ten, when
/// anyone but those who `acted` this turn wants something), a thread moving without the player (a quarter,
/// when one is open), else an event with a focus and a meaning.
fn event(
    table: &mut Table,
    tables: &Tables,
    acted: &[String],
    rng: &mut ChaCha8Rng,
) -> Option<Beat> {
    let d: u32 = rng.random_range(1..=100);
    let wanting: Vec<usize> = table
        .people
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.wants.trim().is_empty() && !acted.contains(&p.name))
        .map(|(i, _)| i)
        .collect();
    if d <= 40 && !wanting.is_empty() {
        // Someone already in the scene first, then someone met.
        let present: Vec<usize> = wanting
            .iter()
            .copied()
            .filter(|&i| table.scene.present.contains(&table.people[i].name))
            .collect();
        let met: Vec<usize> = wanting
            .iter()
            .copied()
            .filter(|&i| table.people[i].met)
            .collect();
        let pool = [present, met, wanting]
            .into_iter()
            .find(|p| !p.is_empty())?;
        let i = *pool.choose(rng)?;
        let p = &mut table.people[i];
        let wants = p.wants.trim().trim_end_matches('.').to_string();
        let text = if table.scene.present.contains(&p.name) {
            format!("{} makes a move, wanting {wants}.", p.name)
        } else {
            format!("{} turns up, wanting {wants}.", p.name)
        };
        p.met = true;
        let name = p.name.clone();
        if !table.scene.present.contains(&name) {
            table.scene.present.push(name.clone());
        }
        return Some(Beat {
            kind: BeatKind::PersonActs,
            text,
            who: Some(name),
            thread: None,
            hint: None,
        });
    }
    let open: Vec<usize> = table.open_threads().map(|(i, _)| i).collect();
    if d <= 65 && !open.is_empty() {
        let i = *open.choose(rng)?;
        let title = table.threads[i].title.clone();
        let pressure = tables.pressures.choose(rng)?;
        return Some(Beat {
            kind: BeatKind::Pressure,
            text: pressure.replace("{thread}", &in_a_sentence(&title)),
            who: None,
            thread: Some(title),
            hint: None,
        });
    }
    let focus = tables.events.choose(rng)?;
    let action = tables.actions.choose(rng)?;
    let subject = tables.subjects.choose(rng)?;
    Some(Beat {
        kind: BeatKind::Event,
        text: format!("{}.", focus.trim_end_matches('.')),
        who: None,
        thread: None,
        hint: Some(format!("It has to do with {action} and {subject}.")),
    })
}

/// A thread's title inside a sentence: a name with an article, the
/// article in lower case ("The countdown" → "the countdown"); any other
/// title (a clause, "Where the marshal went") quoted.
fn in_a_sentence(title: &str) -> String {
    match title.split_once(' ') {
        Some((first, rest)) if matches!(first, "The" | "A" | "An") => {
            format!("{} {rest}", first.to_lowercase())
        }
        _ => format!("\u{201c}{title}\u{201d}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_protocol::table::{Attitude, Someone, Thread};

    fn table() -> Table {
        Table {
            threads: vec![
                Thread {
                    title: "The countdown".into(),
                    steps: 2,
                    ..Thread::default()
                },
                Thread {
                    title: "The missing miners".into(),
                    ..Thread::default()
                },
            ],
            people: vec![Someone {
                name: "Dee Marchetti".into(),
                keys: vec!["pilot".into()],
                wants: "to take the claim and leave".into(),
                ..Someone::default()
            }],
            ..Table::default()
        }
    }

    fn turn(input: &str, check: Option<(Verdict, Option<i64>)>, seed: u64) -> TurnSeen<'_> {
        TurnSeen {
            input,
            answered: false,
            check,
            location: Some("Docking ring C"),
            seed,
        }
    }

    fn quiet() -> GameMasterConfig {
        GameMasterConfig {
            event_chance: 0,
            ..GameMasterConfig::default()
        }
    }

    #[test]
    fn a_failure_costs_a_minor_price_and_raises_tension() {
        let d = direct(
            table(),
            &turn("I force the hatch", Some((Verdict::Failure, Some(15))), 1),
            &quiet(),
        );
        assert_eq!(d.tension, 6);
        assert_eq!(d.beats.len(), 1, "{:?}", d.beats);
        assert_eq!(d.beats[0].kind, BeatKind::Complication);
        assert!(shipped("any")
            .complications
            .minor
            .contains(&d.beats[0].text));
    }

    #[test]
    fn a_disaster_costs_a_serious_price_never_more() {
        let d = direct(
            table(),
            &turn(
                "I force the hatch",
                Some((Verdict::CriticalFailure, Some(10))),
                2,
            ),
            &quiet(),
        );
        assert_eq!(d.tension, 7);
        assert!(shipped("any")
            .complications
            .serious
            .contains(&d.beats[0].text));
    }

    #[test]
    fn a_success_moves_the_thread_it_is_about_and_brings_it_to_a_head() {
        let mut t = table();
        for (step, want) in [
            (1, BeatKind::ThreadMoves),
            (2, BeatKind::ThreadComesToAHead),
        ] {
            let d = direct(
                t,
                &turn(
                    "I decode the countdown signal",
                    Some((Verdict::Success, Some(15))),
                    step,
                ),
                &quiet(),
            );
            assert_eq!(d.beats[0].kind, want, "{:?}", d.beats);
            assert_eq!(d.beats[0].thread.as_deref(), Some("The countdown"));
            t = d.table;
        }
        assert!(t.threads[0].closed);
        assert_eq!(t.tension, 3);
        // A thread that comes to a head ends the scene; the next one is
        // after the thread still open.
        assert_eq!(t.scene.number, 2);
        assert_eq!(t.scene.goal, "The missing miners");
    }

    #[test]
    fn the_scene_is_after_the_thread_the_deed_pursues_then_the_nearest_to_its_end() {
        let d = direct(table(), &turn("I wait", None, 1), &quiet());
        assert_eq!(d.table.scene.goal, "The countdown", "the first open thread");
        let d = direct(
            d.table,
            &turn("I ask about the missing miners", None, 2),
            &quiet(),
        );
        assert_eq!(d.table.scene.goal, "The missing miners");
        let d = direct(d.table, &turn("I wait", None, 3), &quiet());
        assert_eq!(d.table.scene.goal, "The missing miners", "kept while open");
    }

    #[test]
    fn a_scene_that_ends_frames_the_next_by_the_scene_check() {
        // Events as often as they come, to meet the interruption's.
        let config = GameMasterConfig {
            scene_length: 1,
            event_chance: 11,
            ..GameMasterConfig::default()
        };
        let mut setups = std::collections::BTreeMap::new();
        for seed in 0..200 {
            let mut t = table();
            t.tension = 5;
            t.scene.present.push("Dee Marchetti".into());
            t.threads[1].progress = 2;
            let d = direct(
                t,
                &turn(
                    "I search the hold",
                    Some((Verdict::Success, Some(10))),
                    seed,
                ),
                &config,
            );
            let frame = d.frame.clone().expect("the scene ended");
            assert_eq!(frame.scene, 2);
            assert_eq!(d.table.scene.number, 2);
            // The thread nearest its end is the next scene's goal.
            assert_eq!(frame.goal, d.table.scene.goal);
            assert!(
                ["The missing miners", "The countdown"].contains(&frame.goal.as_str()),
                "{frame:?}"
            );
            let ends = d.beats.iter().position(|b| b.kind == BeatKind::SceneEnds);
            let ends = ends.expect("a scene-ends beat");
            assert!(
                d.beats[ends].text.contains("the story turns to the"),
                "{:?}",
                d.beats
            );
            match frame.setup {
                SceneSetup::Expected => assert!(frame.roll > 4, "{frame:?}"),
                SceneSetup::Altered => {
                    assert!(frame.roll <= 4 && frame.roll % 2 == 1);
                    assert!(d.beats[ends].hint.is_some());
                }
                SceneSetup::Interrupted => {
                    assert!(frame.roll <= 4 && frame.roll.is_multiple_of(2));
                    assert!(d.beats.len() > ends + 1, "an event opens it: {:?}", d.beats);
                }
            }
            let who: Vec<&String> = d.beats.iter().filter_map(|b| b.who.as_ref()).collect();
            let mut once = who.clone();
            once.dedup();
            assert_eq!(who, once, "no one acts twice in a turn: {:?}", d.beats);
            *setups.entry(format!("{:?}", frame.setup)).or_insert(0) += 1;
        }
        // Tension 4 after the success: four in ten scenes are not as expected.
        assert_eq!(setups.len(), 3, "{setups:?}");
        assert!((90..=150).contains(&setups["Expected"]), "{setups:?}");
    }

    #[test]
    fn the_people_named_are_met_present_and_warmed_by_a_success() {
        let d = direct(
            table(),
            &turn(
                "I ask the pilot for help",
                Some((Verdict::Success, Some(12))),
                3,
            ),
            &quiet(),
        );
        assert_eq!(d.present.len(), 1);
        assert_eq!(d.present[0].name, "Dee Marchetti");
        assert_eq!(d.table.people[0].attitude, Attitude::Friendly);
        assert!(d.table.people[0].met);
        assert!(d
            .beats
            .iter()
            .any(|b| b.text == "Dee Marchetti thinks better of you."));
    }

    #[test]
    fn the_oracle_keeps_its_answer_and_gives_it_again() {
        let first = direct(
            table(),
            &turn("Is the inner hatch sealed?", None, 11),
            &quiet(),
        );
        let oracle = first.oracle.clone().unwrap();
        assert!(!oracle.kept);
        assert_eq!(first.table.facts.len(), 1);
        assert!(
            first.beats[0].text.starts_with("The answer is "),
            "{:?}",
            first.beats
        );
        assert!(first.table.facts[0]
            .text
            .starts_with("\u{201c}Is the inner hatch sealed?\u{201d} "));
        let wondered = direct(
            table(),
            &turn("Can I hear the countdown from here?", None, 5),
            &quiet(),
        );
        assert!(wondered.beats[0].text.starts_with("The answer is "));
        assert!(wondered.table.facts[0]
            .text
            .starts_with("Whether you can hear the countdown from here: "));
        for seed in 0..20 {
            let again = direct(
                first.table.clone(),
                &turn("is the inner hatch sealed", None, seed),
                &quiet(),
            );
            let o = again.oracle.unwrap();
            assert!(o.kept);
            assert_eq!(o.answer, oracle.answer);
            assert_eq!(again.table.facts.len(), 1);
        }
        // A question the story answered is not the oracle's.
        let answered = TurnSeen {
            answered: true,
            ..turn("Is the pilot called Dee?", None, 4)
        };
        assert!(direct(table(), &answered, &quiet()).oracle.is_none());
    }

    #[test]
    fn events_come_more_often_as_tension_rises_and_replay_from_the_seed() {
        let fired = |tension: u8| {
            (0..400u64)
                .filter(|&seed| {
                    let t = Table { tension, ..table() };
                    direct(t, &turn("I wait", None, seed), &GameMasterConfig::default())
                        .event
                        .fired
                })
                .count()
        };
        let (calm, tense) = (fired(2), fired(8));
        assert!(calm < tense / 2, "calm {calm}, tense {tense} of 400");
        let a = direct(
            table(),
            &turn("I wait", None, 99),
            &GameMasterConfig::default(),
        );
        let b = direct(
            table(),
            &turn("I wait", None, 99),
            &GameMasterConfig::default(),
        );
        assert_eq!(a, b);
    }

    #[test]
    fn a_thread_is_named_in_a_sentence_by_its_article_or_in_quotes() {
        assert_eq!(in_a_sentence("The countdown"), "the countdown");
        assert_eq!(
            in_a_sentence("Where the marshal went"),
            "\u{201c}Where the marshal went\u{201d}"
        );
    }

    #[test]
    fn someone_who_wants_something_acts_on_it() {
        let acted = (0..200u64).find_map(|seed| {
            let t = Table {
                tension: 9,
                ..table()
            };
            let d = direct(t, &turn("I wait", None, seed), &GameMasterConfig::default());
            d.beats.into_iter().find(|b| b.kind == BeatKind::PersonActs)
        });
        let beat = acted.expect("someone acts within 200 tense turns");
        assert_eq!(
            beat.text,
            "Dee Marchetti turns up, wanting to take the claim and leave."
        );
    }
}
