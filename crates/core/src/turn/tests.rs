//! Whole turns against script skills and stub planners.

use super::*;
use crate::planner::{PlanOutcome, PlanRequest, PlannerError};
use crate::rules::RulePlanner;
use std::path::Path;

/// A skill with one script reading its envelope into `$env` (the engine's
/// shared test helper, with no manifest extras).
fn script_skill(root: &Path, skill: &str, script: &str, body: &str) {
    crate::test_support::script_skill(root, skill, script, "", body);
}

const OK_NARRATE: &str = r#"printf '%s\n' '{"type":"state_patch","patch":{"told":true}}' '{"type":"done","ok":true,"output":{"narrative":"The goblin falls."}}'"#;
const FAIL: &str = r#"printf '%s\n' '{"type":"error","code":"INTERNAL_ERROR","message":"broken","recoverable":false}' '{"type":"done","ok":false}'; exit 1"#;

async fn turn(root: &Path, input: &str, skills: &mut SkillsState) -> (TurnOutcome, Vec<TurnEvent>) {
    let catalog = Arc::new(crate::skills::discover(&[root.to_path_buf()]).unwrap());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let out = play_turn(
        TurnInputs {
            input,
            planner: Arc::new(RulePlanner),
            catalog,
            state: Map::new(),
            recent: vec![],
            told: StoryTold::default(),
            options: &TurnOptions::default(),
            events: Some(tx),
        },
        skills,
    )
    .await;
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (out, events)
}

#[tokio::test]
async fn a_failing_skill_is_replanned_away() {
    let dir = tempfile::tempdir().unwrap();
    script_skill(dir.path(), "dice-roller", "roll-dice", FAIL);
    script_skill(dir.path(), "storyteller", "narrate", OK_NARRATE);
    let mut skills = SkillsState::default();
    let (out, events) = turn(dir.path(), "I attack the goblin", &mut skills).await;
    assert!(out.result.success, "{:?}", out.result.failure_message);
    assert!(!out.turn.fallback);
    assert_eq!(out.turn.narrative, "The goblin falls.");
    assert_eq!(out.turn.attempts.len(), 2);
    let second = out.turn.attempts[1].plan.as_ref().unwrap();
    assert_eq!(second["disabledSkills"], serde_json::json!(["dice-roller"]));
    assert_eq!(second["metadata"]["generationAttempt"], 2);
    assert_eq!(
        second["metadata"]["parentPlanId"],
        out.turn.attempts[0].plan.as_ref().unwrap()["requestId"]
    );
    assert_eq!(out.turn.state_after["told"], true);
    assert!(events.iter().any(|e| matches!(e, TurnEvent::AttemptFailed { disabling, .. } if disabling == &vec!["dice-roller".to_string()])));
    assert!(events
        .iter()
        .any(|e| matches!(e, TurnEvent::Execution { .. })));
}

#[tokio::test]
async fn a_failing_storyteller_is_replanned_away_and_the_template_tells_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    script_skill(dir.path(), "storyteller", "narrate", FAIL);
    let mut skills = SkillsState::default();
    let (out, _) = turn(dir.path(), "I sing", &mut skills).await;
    assert!(out.result.success && !out.turn.fallback);
    assert_eq!(out.turn.narrative, "You sing.");
    assert_eq!(out.turn.attempts.len(), 2);
}

/// A turn the storyteller failed (and was replanned away) is told by the
/// template in the story's language and never as nothing — in French and
/// German it was empty, though the turn succeeded.
#[tokio::test]
async fn a_turn_told_without_the_storyteller_speaks_the_storys_language() {
    let dir = tempfile::tempdir().unwrap();
    script_skill(dir.path(), "storyteller", "narrate", FAIL);
    let catalog = Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap());
    let cases = [
        ("en", "I sing", "You sing."),
        ("fr", "Je chante", "Vous chantez."),
        ("fr", "Chanter", "Vous agissez : « Chanter »."),
        ("de", "Ich singe", "Du singst."),
        ("es", "Canto", "Cantas."),
        ("cy", "Rwy'n canu", "You act: “Rwy'n canu”."),
    ];
    for (code, input, told) in cases {
        let language = crate::narration::Language::parse(code).unwrap();
        let out = play_turn(
            TurnInputs {
                input,
                planner: Arc::new(RulePlanner),
                catalog: Arc::clone(&catalog),
                state: Map::new(),
                recent: vec![],
                told: StoryTold::new(vec![], 0, "", language),
                options: &TurnOptions::default(),
                events: None,
            },
            &mut SkillsState::default(),
        )
        .await;
        assert!(out.result.success && !out.turn.fallback, "{code}");
        assert_eq!(out.turn.narrative, told, "{code}");
        assert_eq!(out.result.narrative.as_deref(), Some(told), "{code}");
    }
}

/// Always plans a tool that does not exist.
struct Stubborn;
impl Planner for Stubborn {
    fn name(&self) -> String {
        "stubborn".into()
    }
    fn plan(
        &self,
        _: &PlanRequest<'_>,
        _: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, PlannerError> {
        let plan =
            crate::plan::Plan::new(vec![crate::plan::ToolInvocation::new("boo", "ghost/boo")]);
        Ok(PlanOutcome {
            plan,
            transcript: Default::default(),
            routing: None,
        })
    }
}

#[tokio::test]
async fn every_plan_failing_ends_in_the_fallback_template() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap());
    let mut skills = SkillsState::default();
    let mut state = Map::new();
    state.insert("hp".into(), Value::from(3));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let out = play_turn(
        TurnInputs {
            input: "I sing",
            planner: Arc::new(Stubborn),
            catalog,
            state: state.clone(),
            recent: vec![],
            told: StoryTold::default(),
            options: &TurnOptions::default(),
            events: Some(tx),
        },
        &mut skills,
    )
    .await;
    assert!(out.turn.fallback);
    assert!(crate::narration::Lines::english()
        .no_plan
        .iter()
        .any(|t| out.turn.narrative == t.replace("{input}", "I sing")));
    assert_eq!(
        out.turn.state_after, state,
        "a failed turn changes no state"
    );
    assert_eq!(out.turn.attempts.len(), 5);
    let mut saw_fallback = false;
    while let Ok(e) = rx.try_recv() {
        saw_fallback |= matches!(e, TurnEvent::Fallback { .. });
    }
    assert!(saw_fallback);
}

struct Broken;
impl Planner for Broken {
    fn name(&self) -> String {
        "broken".into()
    }
    fn plan(
        &self,
        _: &PlanRequest<'_>,
        _: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, PlannerError> {
        Err(PlannerError::Model("the model stopped".into()))
    }
}

/// (A planner that misses its deadline has the rule-based planner plan
/// instead: `deadline.rs`.)
#[tokio::test]
async fn a_planner_that_always_fails_is_recorded_five_times_then_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap());
    let mut skills = SkillsState::default();
    let out = play_turn(
        TurnInputs {
            input: "hello",
            planner: Arc::new(Broken),
            catalog,
            state: Map::new(),
            recent: vec![],
            told: StoryTold::default(),
            options: &TurnOptions::default(),
            events: None,
        },
        &mut skills,
    )
    .await;
    assert!(out.turn.fallback);
    assert_eq!(out.turn.attempts.len(), 5);
    assert!(out
        .turn
        .attempts
        .iter()
        .all(|a| a.error.as_deref() == Some("the model failed: the model stopped")));
}

/// A narrate script that tells what it was given: the check's outcome from
/// its dependency, and whether it ran after the roll.
const TELL_DEPS: &str = r#"case "$env" in
  *'"outcome":"failure"'*) told="You swing and miss." ;;
  *) told="You never rolled." ;;
esac
printf '{"type":"done","ok":true,"output":{"narrative":"%s"}}\n' "$told""#;

const MISSED_ROLL: &str = r#"printf '%s\n' '{"type":"done","ok":true,"output":{"total":4,"rolls":[4],"formula":"1d20","dc":15,"outcome":"failure","margin":-11,"natural":4}}'"#;

#[tokio::test]
async fn narration_runs_last_and_tells_what_the_dice_decided() {
    let dir = tempfile::tempdir().unwrap();
    script_skill(dir.path(), "dice-roller", "roll-dice", MISSED_ROLL);
    script_skill(dir.path(), "storyteller", "narrate", TELL_DEPS);
    let mut skills = SkillsState::default();
    let (out, events) = turn(dir.path(), "I attack the goblin", &mut skills).await;
    assert!(out.result.success, "{:?}", out.result.failure_message);
    assert_eq!(out.turn.narrative, "You swing and miss.");
    let plan = out.turn.attempts[0].plan.as_ref().unwrap();
    let tools = plan["tools"].as_array().unwrap();
    let last = tools.last().unwrap();
    assert_eq!(last["toolPath"], "storyteller/narrate");
    assert_eq!(last["dependencies"], serde_json::json!(["roll"]), "{plan}");
    assert_eq!(last["input"]["playerInput"], "I attack the goblin");
    assert!(plan.get("narrative").is_none_or(Value::is_null), "{plan}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, TurnEvent::NarrativeDelta { .. })),
        "nothing is told before the rules decide"
    );
}

#[tokio::test]
async fn without_a_storyteller_the_outcome_template_tells_the_miss() {
    let dir = tempfile::tempdir().unwrap();
    script_skill(dir.path(), "dice-roller", "roll-dice", MISSED_ROLL);
    let mut skills = SkillsState::default();
    let (out, events) = turn(dir.path(), "I attack the goblin", &mut skills).await;
    assert!(out.result.success && !out.turn.fallback);
    let told = &out.turn.narrative;
    assert!(
        told.starts_with("You try to attack the goblin, but you miss."),
        "a failed check is told as a failure: {told}"
    );
    assert!(
        !told.chars().any(|c| c.is_ascii_digit()),
        "no raw numbers: {told}"
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, TurnEvent::Fallback { .. })));
}

#[tokio::test]
async fn every_told_turn_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    script_skill(dir.path(), "storyteller", "narrate", OK_NARRATE);
    script_skill(
        dir.path(),
        "memory",
        "store-memory",
        r#"printf '{"type":"state_patch","patch":{"kept":%s}}\n' "$env"; printf '%s\n' '{"type":"done","ok":true,"output":{"stored":true}}'"#,
    );
    let mut skills = SkillsState::default();
    let (out, _) = turn(dir.path(), "I greet the innkeeper", &mut skills).await;
    assert!(out.result.success);
    let kept = &out.turn.state_after["kept"];
    assert_eq!(
        kept["input"]["summary"],
        "You greet the innkeeper. The goblin falls."
    );
    assert!(out
        .result
        .execution_trace
        .iter()
        .any(|t| t.tool_path.as_deref() == Some("memory/store-memory")));
}

#[tokio::test]
async fn a_turn_the_planner_stores_is_kept_once_in_the_players_words() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stored.log");
    script_skill(dir.path(), "storyteller", "narrate", OK_NARRATE);
    script_skill(
        dir.path(),
        "memory",
        "store-memory",
        &format!(
            r#"printf '%s\n' "$env" >> '{}'; printf '%s\n' '{{"type":"done","ok":true,"output":{{"stored":true}}}}'"#,
            log.display()
        ),
    );
    let mut skills = SkillsState::default();
    let (out, _) = turn(
        dir.path(),
        "I meet the bard, his name is Tobin",
        &mut skills,
    )
    .await;
    assert!(out.result.success, "{:?}", out.result.failure_message);
    // The rules planner stores a meeting; the host keeps the turn's account instead.
    let planned = out.turn.attempts[0].plan.as_ref().unwrap();
    assert!(planned["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["toolPath"] != "memory/store-memory"));
    let stored: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["input"]["turnAccount"], true);
    let summary = stored[0]["input"]["summary"].as_str().unwrap();
    assert!(summary.contains("his name is Tobin"), "{summary}");
    // What the player noted is kept without what the narrator made of it,
    // and the turn says so for its account to be kept alike when retold.
    assert!(!summary.contains("goblin"), "{summary}");
    assert!(memory::noted(&out.turn.attempts));
}

/// Records what it was asked to prepare, and plans narration only.
#[derive(Default)]
struct Preparing {
    /// "warm" and each language prepared, and "plan", in the order called.
    calls: std::sync::Mutex<Vec<String>>,
}

impl Planner for Preparing {
    fn name(&self) -> String {
        "preparing".into()
    }
    fn warm_up(&self, _: &Catalog, _: Instant) {
        self.calls.lock().unwrap().push("warm".into());
    }
    fn warm_up_language(&self, _: &Catalog, language: &crate::narration::Language) {
        self.calls.lock().unwrap().push(language.code().to_string());
    }
    fn plan(
        &self,
        request: &PlanRequest<'_>,
        on_narrative: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, PlannerError> {
        self.calls.lock().unwrap().push("plan".into());
        RulePlanner.plan(request, on_narrative)
    }
}

/// A story in another language has its planner prepare for that language
/// (its router) before the first plan, outside the plan's deadline
/// (docs/narrator.md, "Routing in every language"); an English story asks
/// for nothing more than the warm-up.
#[tokio::test]
async fn a_story_in_another_language_is_prepared_for_before_its_plan() {
    let dir = tempfile::tempdir().unwrap();
    script_skill(dir.path(), "storyteller", "narrate", OK_NARRATE);
    let catalog = Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap());
    for (code, input, prepared) in [
        ("fr", "Je chante", vec!["warm", "fr", "plan"]),
        ("en", "I sing", vec!["warm", "plan"]),
    ] {
        let planner = Arc::new(Preparing::default());
        play_turn(
            TurnInputs {
                input,
                planner: planner.clone(),
                catalog: Arc::clone(&catalog),
                state: Map::new(),
                recent: vec![],
                told: StoryTold::new(
                    vec![],
                    0,
                    "",
                    crate::narration::Language::parse(code).unwrap(),
                ),
                options: &TurnOptions::default(),
                events: None,
            },
            &mut SkillsState::default(),
        )
        .await;
        assert_eq!(*planner.calls.lock().unwrap(), prepared, "{code}");
    }
}
