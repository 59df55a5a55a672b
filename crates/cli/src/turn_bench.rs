//! `narratoria bench turn`: what a player waits for, turn by turn, with the
//! default model and the built-in skills in the Ashford scenario: the plan,
//! the mechanics (the tools before the narration), the time from the end of
//! the mechanics to the first prose, and the whole turn; p50 and p95 over
//! 40 inputs. Not a test: it judges nothing, it reports.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use narratoria_app::{locate, App, AppConfig, SessionDb, SkillChoices};
use narratoria_core::executor::ExecEvent;
use narratoria_core::narration::step::NARRATE_TOOL_ID;
use narratoria_core::turn::TurnEvent;
use narratoria_core::ErrorCode;

use crate::cli::BenchArgs;
use crate::commands::{runtime, CliError};

/// The players' inputs, one turn each: fights, talk, searches, memory and
/// standing, as a story would mix them.
const INPUTS: [&str; 40] = [
    "I look around the common room.",
    "I ask the innkeeper about the burned bridge.",
    "I order a bowl of stew and sit by the fire.",
    "I listen to the ferrymen's argument.",
    "I attack the drunk who grabs my arm.",
    "I try to calm the drunk down with a joke.",
    "Do I remember anyone here from before?",
    "I check that the sealed letter is still dry.",
    "I ask Mara Vell for a room for the night.",
    "I offer the ferrymen a coin for a crossing at dawn.",
    "I sneak up the stairs to listen at the door.",
    "I pick the lock of the storeroom.",
    "I search the storeroom for anything useful.",
    "I remember what the innkeeper said about the bandits.",
    "I bow to the priest and offer a coin to the temple.",
    "I insult the watch captain in front of his men.",
    "I climb out of the window onto the roof.",
    "I jump across to the stable roof.",
    "I hide in the hay when the guards pass.",
    "I steal a horse from the stable.",
    "I ride north along the river in the rain.",
    "I look for tracks on the muddy road.",
    "I follow the tracks into the reeds.",
    "I shoot an arrow at the figure in the reeds.",
    "I shout that I mean no harm.",
    "I ask the stranger who sent them.",
    "I tell the stranger about the letter.",
    "I draw my sword and demand the truth.",
    "I bandage my wounded arm.",
    "I make camp under the old willow.",
    "I keep watch through the night.",
    "What do the Reeds think of me now?",
    "I help the fisherman pull his boat ashore.",
    "I trade my dagger for a map of the marsh.",
    "I read the map by the firelight.",
    "I cross the marsh at first light.",
    "I swim across the cold channel.",
    "I climb the ruined watchtower.",
    "I open the letter at last and read it.",
    "I burn the letter in the brazier.",
];

#[derive(Default)]
struct Times {
    plan: Vec<Duration>,
    mechanics: Vec<Duration>,
    first_prose: Vec<Duration>,
    whole: Vec<Duration>,
    untold: usize,
    /// How many turns each storyteller provider told ("host", "template", …).
    told_by: std::collections::BTreeMap<String, usize>,
}

/// Runs the turn benchmark and prints its figures.
pub fn run(_args: &BenchArgs) -> Result<ExitCode, CliError> {
    let io = |e: std::io::Error| CliError::usage(ErrorCode::Io, e.to_string());
    let tmp = tempfile::tempdir().map_err(io)?;
    let app = App::open(AppConfig {
        skill_roots: locate::skill_roots(&[]),
        session_db: SessionDb::File(tmp.path().join("story.db")),
        skills_state: SkillChoices::File(tmp.path().join("skills-state.json")),
        skill_data: Some(tmp.path().join("data")),
        ..AppConfig::default()
    })?;
    let model = app.load_model(None, None)?;
    if model.path.is_none() {
        return Err(CliError::usage(
            ErrorCode::ModelUnusable,
            format!(
                "no model at {} (scripts/fetch-model.sh)",
                model.default_path.display()
            ),
        ));
    }
    app.new_story(Some("ashford"))?;
    say!(
        "narratoria turn benchmark: {} turns, {}, {} build",
        INPUTS.len(),
        model.planner,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );
    let rt = runtime();
    let mut times = Times::default();
    for input in INPUTS {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let start = Instant::now();
        let (mut planned, mut narrating, mut prose) = (None, None, None);
        let played = rt.block_on(async {
            let play = app.play(input, Some(tx));
            tokio::pin!(play);
            loop {
                tokio::select! {
                    done = &mut play => break done,
                    Some(event) = rx.recv() => match event {
                        TurnEvent::PlanReady { .. } => planned = Some(start.elapsed()),
                        TurnEvent::Execution { event: ExecEvent::ToolStarted { tool_id, .. }, .. }
                            if tool_id == NARRATE_TOOL_ID => narrating = Some(start.elapsed()),
                        TurnEvent::Execution { event: ExecEvent::ToolEvent { tool_id, event, .. }, .. }
                            if tool_id == NARRATE_TOOL_ID
                                && prose.is_none()
                                && event.get("type").and_then(|t| t.as_str()) == Some("ui_event")
                                && event.get("event").and_then(|t| t.as_str()) == Some("narration_delta") =>
                        {
                            prose = Some(start.elapsed())
                        }
                        _ => {}
                    },
                }
            }
        });
        let whole = start.elapsed();
        let view = played?;
        times.whole.push(whole);
        let provider = view
            .result
            .execution_trace
            .iter()
            .find(|t| t.tool_id == NARRATE_TOOL_ID)
            .and_then(|t| {
                t.output
                    .as_ref()?
                    .get("provider")?
                    .as_str()
                    .map(String::from)
            })
            .unwrap_or_else(|| "none".into());
        *times.told_by.entry(provider).or_default() += 1;
        if let Some(p) = planned {
            times.plan.push(p);
            if let Some(n) = narrating {
                times.mechanics.push(n.saturating_sub(p));
                match prose {
                    Some(first) => times.first_prose.push(first.saturating_sub(n)),
                    None => times.untold += 1,
                }
            }
        }
    }
    report("plan (input → plan ready)", &times.plan);
    report(
        "mechanics (plan ready → narration starts)",
        &times.mechanics,
    );
    report(
        "first prose (narration starts → first words)",
        &times.first_prose,
    );
    report("whole turn", &times.whole);
    say!(
        "  turns whose narration streamed no prose: {} of {}",
        times.untold,
        INPUTS.len()
    );
    let told_by: Vec<String> = times
        .told_by
        .iter()
        .map(|(provider, n)| format!("{provider} {n}"))
        .collect();
    say!("  narration told by: {}", told_by.join(", "));
    Ok(ExitCode::SUCCESS)
}

fn report(label: &str, times: &[Duration]) {
    if times.is_empty() {
        say!("{label:<48} (none)");
        return;
    }
    let mut ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| ms[((ms.len() as f64 * q).ceil() as usize).clamp(1, ms.len()) - 1];
    say!(
        "{label:<48} p50 {:>7.0} ms   p95 {:>7.0} ms   ({} turns)",
        at(0.5),
        at(0.95),
        ms.len()
    );
}
