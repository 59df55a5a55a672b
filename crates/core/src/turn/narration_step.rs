//! The turn's shape: the rules' tools first, then the game master's step
//! (what the world does beyond the deed, depending on every rules tool),
//! then exactly one narration step that depends on every other step and
//! tells what they decided. The host adds both steps itself, whatever the
//! planner wrote (docs/architecture.md, docs/game-master.md).

use serde_json::{json, Map, Value};

use crate::narration::bounds::{
    ACTION_CHARS, AUTHOR_NOTE_CHARS, LANGUAGE_CHARS, NARRATION_CHARS, SCENARIO_CHARS, SCENE_CHARS,
    STORY_TURNS,
};
use crate::narration::{clip_to, Language, StoryTold};
use crate::plan::{Plan, ToolInvocation};
use crate::planner::TurnSummary;
use crate::scenario::known::ANSWER_CHARS;
use crate::scenario::StoryContext;
use crate::skills::{Catalog, Skill, SkillScript};

/// The skill and script that narrate a turn.
pub const STORYTELLER: &str = "storyteller";
pub const NARRATE: &str = "narrate";
/// The tool id the host gives the narration step (made unique when taken).
pub const NARRATE_TOOL_ID: &str = "narrate";

/// The skill and script that direct a turn (docs/game-master.md).
pub const GAME_MASTER: &str = "game-master";
pub const DIRECT: &str = "direct-turn";
/// The tool id the host gives the game master's step (made unique when taken).
pub const DIRECT_TOOL_ID: &str = "direct";

/// The most earlier turns the planner is told, and lore is chosen by (the
/// narration is told the whole story: [`StoryTold`]).
pub const RECENT_TURNS: usize = 6;

/// What the narration step is told besides the tools' outputs.
#[derive(Debug, Clone, Copy)]
pub struct Telling<'a> {
    /// The player's action, in their words.
    pub input: &'a str,
    /// The story's turns before this one, oldest first (the whole branch,
    /// within [`StoryTold`]'s bounds).
    pub recent: &'a [TurnSummary],
    /// The story's premise and setting, when it has a scenario: what stays
    /// the same turn after turn ([`crate::scenario::StoryContext::standing`]).
    pub scenario: Option<&'a str>,
    /// What this turn's scene calls for: where the player is, the lore
    /// chosen (told as the storyteller's `context`, apart from the scenario
    /// so that the writer's cached story survives it changing).
    pub scene: Option<&'a str>,
    /// The scenario's opening scene, told as the story's first narration
    /// while the story is told from its start (see [`StoryTold::opening`]).
    pub opening: Option<&'a str>,
    /// The player's steer for the writer (told when not blank).
    pub author_note: Option<&'a str>,
    /// The story's language (absent: the storyteller tells in English).
    pub language: Option<&'a Language>,
    /// What the story already holds that answers the player's question
    /// ([`crate::scenario::known::answer`]).
    pub answer: Option<&'a str>,
}

impl<'a> Telling<'a> {
    /// What the narration step of a turn of `input` is told: the story as
    /// `told` holds it, the scenario and lore chosen for the turn (`story`)
    /// and the `opening` scene (see [`StoryTold::opening`]).
    pub fn of(
        input: &'a str,
        told: &'a StoryTold,
        story: Option<&'a StoryContext>,
        opening: Option<&'a str>,
        answer: Option<&'a str>,
    ) -> Telling<'a> {
        Telling {
            input,
            recent: &told.turns,
            scenario: story.map(|s| s.standing.as_str()),
            scene: story.map(|s| s.scene.as_str()),
            opening,
            author_note: Some(&told.author_note),
            language: Some(&told.language),
            answer,
        }
    }
}

/// The opening scene of `state`'s scenario while every turn of the story is
/// still among `recent` (fewer than [`RECENT_TURNS`]): the scene the first
/// turns play in, which the narration otherwise has to invent.
pub fn opening_told<'a>(state: &'a Map<String, Value>, recent: &[TurnSummary]) -> Option<&'a str> {
    (recent.len() < RECENT_TURNS)
        .then(|| crate::scenario::opening(state))
        .flatten()
}

/// Whether the storyteller can narrate now: discovered, enabled, not
/// permanently failed, not left out of this plan.
pub fn can_narrate(catalog: &Catalog, disabled: &[String]) -> bool {
    catalog
        .usable(disabled)
        .any(|skill| skill.scripts.iter().any(|s| is_narration(skill, s)))
}

/// The one rule that says which script narrates a turn, by the names of
/// its skill and script (docs/architecture.md, "One turn, as it flows").
fn narrates(skill: &str, script: &str) -> bool {
    skill == STORYTELLER && script == NARRATE
}

/// Whether a script narrates the turn: the host adds that step to every plan
/// itself, so routing never chooses it.
pub fn is_narration(skill: &Skill, script: &SkillScript) -> bool {
    narrates(&skill.name, &script.name)
}

/// The one rule that says which script directs a turn.
fn directs(skill: &str, script: &str) -> bool {
    skill == GAME_MASTER && script == DIRECT
}

/// Whether a script is one of the steps the host adds to every plan itself
/// (the game master's, the narration): routing never chooses it, and it is
/// not one of the turn's mechanics.
pub fn is_host_step(skill: &Skill, script: &SkillScript) -> bool {
    narrates(&skill.name, &script.name) || directs(&skill.name, &script.name)
}

/// Whether a plan's tool is a step the host adds itself ([`is_host_step`];
/// by its path when the catalog does not know it).
pub fn is_host_tool(catalog: &Catalog, tool: &ToolInvocation) -> bool {
    match catalog.resolve(&tool.tool_path, &[]) {
        Ok((skill, script)) => is_host_step(skill, script),
        Err(_) => tool
            .tool_path
            .split_once('/')
            .is_some_and(|(skill, script)| narrates(skill, script) || directs(skill, script)),
    }
}

/// Whether the game master can direct now: discovered, enabled, not
/// permanently failed, not left out of this plan, its script built.
pub fn can_direct(catalog: &Catalog, disabled: &[String]) -> bool {
    catalog.usable(disabled).any(|skill| {
        skill
            .scripts
            .iter()
            .any(|s| s.is_executable && directs(&skill.name, &s.name))
    })
}

/// Whether a plan's tool is the narration step (by its path when the
/// catalog does not know it).
pub fn is_narration_tool(catalog: &Catalog, tool: &ToolInvocation) -> bool {
    match catalog.resolve(&tool.tool_path, &[]) {
        Ok((skill, script)) => is_narration(skill, script),
        Err(_) => tool
            .tool_path
            .split_once('/')
            .is_some_and(|(skill, script)| narrates(skill, script)),
    }
}

/// The narration step of `plan`, when it has one.
pub fn narration_step<'a>(plan: &'a Plan, catalog: &Catalog) -> Option<&'a ToolInvocation> {
    plan.tools.iter().find(|t| is_narration_tool(catalog, t))
}

/// What the rules' tools before the narration are allowed on top of the
/// narration's own limit ([`plan_limit`]).
pub const MECHANICS_ALLOWANCE: std::time::Duration = std::time::Duration::from_secs(20);

/// The time `plan` is given: `limit`, or, when its narration step's skill
/// allows that step longer, the narration's own limit plus
/// [`MECHANICS_ALLOWANCE`]. The plan's limit never cuts the telling of the
/// turn shorter than its storyteller allows: a larger writer on a slow or
/// busy machine tells its turn late rather than not at all
/// (docs/stories.md, "A larger writer's time").
pub fn plan_limit(
    plan: &Plan,
    catalog: &Catalog,
    limit: std::time::Duration,
) -> std::time::Duration {
    let narration = narration_step(plan, catalog)
        .and_then(|step| catalog.resolve(&step.tool_path, &[]).ok())
        .map(|(skill, script)| skill.timeout(script));
    match narration {
        Some(own) => limit.max(own + MECHANICS_ALLOWANCE),
        None => limit,
    }
}

/// Gives `plan` the turn's shape. Promises: every host step the planner
/// wrote (narration, direction) is taken out (dependencies on it dropped);
/// when the game master can direct, its step is appended, optional,
/// depending on every rules tool, with the player's input, the seed of the
/// plan's request id ([`seed_of`]) and whether the story answered; when the
/// storyteller can narrate, exactly one narration tool is appended, required, depending on
/// every other tool, with the player's input, the story's turns (after the
/// opening scene, when given, told with no player action), the scenario,
/// the author's note (when not blank) and the language as its input (a
/// style the planner chose is kept), each within the storyteller's schema
/// bound ([`crate::narration::bounds`]).
pub fn shape(plan: &mut Plan, catalog: &Catalog, telling: &Telling) {
    let narrations = take_host_steps(plan, catalog);
    if can_direct(catalog, &plan.disabled_skills) {
        let mut step = ToolInvocation::new(
            free_id(plan, DIRECT_TOOL_ID),
            format!("{GAME_MASTER}/{DIRECT}"),
        );
        step.input = direction_input(telling, seed_of(&plan.request_id.to_string()));
        step.dependencies = plan.tools.iter().map(|t| t.tool_id.clone()).collect();
        // The world standing still is no reason to lose the turn.
        step.required = false;
        plan.tools.push(step);
    }
    if !can_narrate(catalog, &plan.disabled_skills) {
        return;
    }
    let style = narrations
        .iter()
        .find_map(|t| t.input.get("style").filter(|s| s.is_string()));
    let mut step = ToolInvocation::new(
        free_id(plan, NARRATE_TOOL_ID),
        format!("{STORYTELLER}/{NARRATE}"),
    );
    step.input = narration_input(telling, style);
    step.dependencies = plan.tools.iter().map(|t| t.tool_id.clone()).collect();
    step.required = true;
    plan.tools.push(step);
}

/// The game master's seed for the plan `request_id`: the same plan directs
/// the same way, so a recorded turn replays identically (FNV-1a of the id).
pub fn seed_of(request_id: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(request_id.as_bytes());
    h.finish()
}

/// The game master's input: the player's words, the seed, and whether the
/// story already answered the player's question.
fn direction_input(telling: &Telling, seed: u64) -> Map<String, Value> {
    let mut input = Map::new();
    input.insert(
        "playerInput".into(),
        json!(clip_to(telling.input, ACTION_CHARS)),
    );
    input.insert("seed".into(), json!(seed));
    input.insert("answered".into(), json!(telling.answer.is_some()));
    input
}

/// Takes the planner's host steps (narration, direction) out of `plan`
/// (dependencies on them dropped) and returns them.
fn take_host_steps(plan: &mut Plan, catalog: &Catalog) -> Vec<ToolInvocation> {
    let (narrations, mut tools): (Vec<ToolInvocation>, Vec<ToolInvocation>) =
        std::mem::take(&mut plan.tools)
            .into_iter()
            .partition(|t| is_host_tool(catalog, t));
    let removed: Vec<&str> = narrations.iter().map(|t| t.tool_id.as_str()).collect();
    for tool in &mut tools {
        tool.dependencies.retain(|d| !removed.contains(&d.as_str()));
    }
    plan.tools = tools;
    narrations
}

/// The narration step's input: what `telling` holds that is not blank, and
/// the `style` the planner chose. Promises an input the storyteller's
/// input schema takes (a `style` the planner chose aside): every text is
/// clipped to its bound, so a story saved before the bounds (an action of
/// 5,000 characters among its turns) is still told by the storyteller.
fn narration_input(telling: &Telling, style: Option<&Value>) -> Map<String, Value> {
    let mut input = Map::new();
    input.insert(
        "playerInput".into(),
        json!(clip_to(telling.input, ACTION_CHARS)),
    );
    if let Some(style) = style {
        input.insert("style".into(), style.clone());
    }
    let not_blank = |s: &&str| !s.trim().is_empty();
    let mut told = |key: &str, text: Option<&str>, max: usize| {
        if let Some(text) = text.filter(not_blank) {
            input.insert(key.into(), json!(clip_to(text, max)));
        }
    };
    told("scenario", telling.scenario, SCENARIO_CHARS);
    told("answer", telling.answer, ANSWER_CHARS);
    told("context", telling.scene, SCENE_CHARS);
    told(
        "authorNote",
        telling.author_note.map(str::trim),
        AUTHOR_NOTE_CHARS,
    );
    told(
        "language",
        telling.language.map(Language::code),
        LANGUAGE_CHARS,
    );
    let recent = story_turns(telling);
    if !recent.is_empty() {
        input.insert("recentTurns".into(), Value::Array(recent));
    }
    input
}

/// The story's turns as the storyteller takes them: the opening (when not
/// blank, with no player action), then each turn, at most [`STORY_TURNS`]
/// of them — the oldest (the opening first) give way — each player's words
/// within [`ACTION_CHARS`] and each narration within [`NARRATION_CHARS`].
fn story_turns(telling: &Telling) -> Vec<Value> {
    let opening = telling
        .opening
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(|o| ("", o));
    let turns = telling
        .recent
        .iter()
        .map(|t| (t.input.as_str(), t.narrative.as_str()));
    let all: Vec<(&str, &str)> = opening.into_iter().chain(turns).collect();
    let over = all.len().saturating_sub(STORY_TURNS);
    all[over..]
        .iter()
        .map(|(player, narrator)| {
            json!({
                "player": clip_to(player, ACTION_CHARS),
                "narrator": clip_to(narrator, NARRATION_CHARS),
            })
        })
        .collect()
}

/// `base`, or `base-2`, `base-3`… when `plan` has it.
fn free_id(plan: &Plan, base: &str) -> String {
    let mut id = base.to_string();
    let mut n = 1;
    while plan.tools.iter().any(|t| t.tool_id == id) {
        n += 1;
        id = format!("{base}-{n}");
    }
    id
}

/// `plan` as a turn's record keeps it: its narration step's input keeps
/// only the last [`RECENT_TURNS`] of the story's turns it was told. The
/// others are the branch's own turns, saved already; saving the whole story
/// again with every turn would grow the sessions file with the square of
/// the story's length.
pub fn recorded(plan: &Plan, catalog: &Catalog) -> Value {
    let mut value = serde_json::to_value(plan).expect("plan serialises");
    let narrations: Vec<usize> = plan
        .tools
        .iter()
        .enumerate()
        .filter(|(_, t)| is_narration_tool(catalog, t))
        .map(|(i, _)| i)
        .collect();
    for i in narrations {
        let turns = value
            .pointer_mut(&format!("/tools/{i}/input/recentTurns"))
            .and_then(Value::as_array_mut);
        if let Some(turns) = turns {
            let over = turns.len().saturating_sub(RECENT_TURNS);
            turns.drain(..over);
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_is_fnv_1a_of_the_request_id_and_stable_across_builds() {
        // The published FNV-1a 64 values: a recorded turn replays from it.
        assert_eq!(seed_of(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(seed_of("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(seed_of("foobar"), 0x8594_4171_f739_67e8);
    }
    use std::path::Path;

    fn skill(root: &Path, name: &str, script: &str) {
        crate::test_support::script_skill(root, name, script, "", "");
    }

    #[test]
    fn a_plan_is_given_the_time_its_narration_is_allowed() {
        use std::time::Duration;
        let dir = tempfile::tempdir().unwrap();
        skill(dir.path(), "dice-roller", "roll-dice");
        crate::test_support::script_skill(
            dir.path(),
            STORYTELLER,
            NARRATE,
            r#","timeoutSeconds":120"#,
            "",
        );
        let c = crate::skills::discover(&[dir.path().to_path_buf()]).unwrap();
        let minute = Duration::from_secs(60);
        let mut plan = Plan::new(vec![tool("roll", "dice-roller/roll-dice", &[])]);
        assert_eq!(plan_limit(&plan, &c, minute), minute, "no narration");
        shape(&mut plan, &c, &TELLING);
        assert_eq!(plan_limit(&plan, &c, minute), Duration::from_secs(140));
        // A longer limit than the narration's stays.
        let hour = Duration::from_secs(3600);
        assert_eq!(plan_limit(&plan, &c, hour), hour);
        // A storyteller of the default 30 s: the minute stands.
        let (_d, short) = catalog(true);
        assert_eq!(plan_limit(&plan, &short, minute), minute);
    }

    fn catalog(with_storyteller: bool) -> (tempfile::TempDir, Catalog) {
        let dir = tempfile::tempdir().unwrap();
        skill(dir.path(), "dice-roller", "roll-dice");
        if with_storyteller {
            skill(dir.path(), STORYTELLER, NARRATE);
        }
        let c = crate::skills::discover(&[dir.path().to_path_buf()]).unwrap();
        (dir, c)
    }

    fn tool(id: &str, path: &str, deps: &[&str]) -> ToolInvocation {
        let mut t = ToolInvocation::new(id, path);
        t.dependencies = deps.iter().map(|d| d.to_string()).collect();
        t
    }

    const TELLING: Telling = Telling {
        input: "I strike the goblin",
        recent: &[],
        scenario: None,
        scene: None,
        opening: None,
        author_note: None,
        language: None,
        answer: None,
    };

    #[test]
    fn narration_is_added_last_depending_on_every_tool() {
        let (_d, c) = catalog(true);
        let mut plan = Plan::new(vec![
            tool("roll", "dice-roller/roll-dice", &[]),
            tool("roll2", "dice-roller/roll-dice", &["roll"]),
        ]);
        shape(&mut plan, &c, &TELLING);
        let last = plan.tools.last().unwrap();
        assert_eq!(last.tool_path, "storyteller/narrate");
        assert_eq!(last.tool_id, "narrate");
        assert_eq!(last.dependencies, vec!["roll", "roll2"]);
        assert!(last.required);
        assert_eq!(last.input["playerInput"], "I strike the goblin");
        assert_eq!(plan.tools.len(), 3);
    }

    #[test]
    fn the_game_master_directs_between_the_rules_and_the_narration() {
        let (d, _) = catalog(true);
        skill(d.path(), GAME_MASTER, DIRECT);
        let c = crate::skills::discover(&[d.path().to_path_buf()]).unwrap();
        let planned = || {
            Plan::new(vec![
                tool("roll", "dice-roller/roll-dice", &[]),
                // A planner's own direction is the host's to add, once.
                tool("gm", "game-master/direct-turn", &["roll"]),
            ])
        };
        let mut plan = planned();
        shape(
            &mut plan,
            &c,
            &Telling {
                answer: Some("The pilot is Dee."),
                ..TELLING
            },
        );
        let ids: Vec<&str> = plan.tools.iter().map(|t| t.tool_id.as_str()).collect();
        assert_eq!(ids, vec!["roll", "direct", "narrate"]);
        let direct = &plan.tools[1];
        assert_eq!(direct.dependencies, vec!["roll"]);
        assert!(!direct.required, "the world standing still loses no turn");
        assert_eq!(direct.input["playerInput"], "I strike the goblin");
        assert_eq!(direct.input["answered"], true);
        assert_eq!(
            direct.input["seed"],
            json!(seed_of(&plan.request_id.to_string()))
        );
        assert_eq!(plan.tools[2].dependencies, vec!["roll", "direct"]);
        // The same plan directs the same way; another plan another way.
        let mut again = plan.clone();
        shape(&mut again, &c, &TELLING);
        assert_eq!(again.tools[1].input["seed"], direct.input["seed"]);
        let mut other = planned();
        shape(&mut other, &c, &TELLING);
        assert_ne!(other.tools[1].input["seed"], direct.input["seed"]);
        // Left out of the plan, it is not added.
        let mut without = planned();
        without.disabled_skills = vec![GAME_MASTER.into()];
        shape(&mut without, &c, &TELLING);
        let paths: Vec<&str> = without.tools.iter().map(|t| t.tool_path.as_str()).collect();
        assert_eq!(paths, vec!["dice-roller/roll-dice", "storyteller/narrate"]);
    }

    #[test]
    fn the_planners_narration_is_replaced_by_one_that_sees_everything() {
        let (_d, c) = catalog(true);
        let mut narrate = tool("tell", "storyteller/narrate", &[]);
        narrate.input.insert("style".into(), json!("terse"));
        let mut plan = Plan::new(vec![
            narrate,
            tool("roll", "dice-roller/roll-dice", &["tell"]),
            tool("narrate", "dice-roller/roll-dice", &[]),
        ]);
        let recent = [TurnSummary {
            input: "I enter".into(),
            narrative: "You enter.".into(),
        }];
        shape(
            &mut plan,
            &c,
            &Telling {
                recent: &recent,
                scenario: Some("A haunted mill."),
                scene: Some("Now at: the millrace."),
                ..TELLING
            },
        );
        let ids: Vec<&str> = plan.tools.iter().map(|t| t.tool_id.as_str()).collect();
        assert_eq!(ids, vec!["roll", "narrate", "narrate-2"]);
        assert!(plan.tools[0].dependencies.is_empty());
        let last = &plan.tools[2];
        assert_eq!(last.dependencies, vec!["roll", "narrate"]);
        assert_eq!(last.input["style"], "terse");
        assert_eq!(last.input["scenario"], "A haunted mill.");
        // The scene is apart from what stays, so the writer's cache keeps it.
        assert_eq!(last.input["context"], "Now at: the millrace.");
        assert_eq!(
            last.input["recentTurns"],
            json!([{"player": "I enter", "narrator": "You enter."}])
        );
    }

    #[test]
    fn a_young_storys_opening_is_told_as_its_first_narration() {
        let (_d, c) = catalog(true);
        let state = json!({"scenario": {"opening": "  Rain drums on the inn's roof. "}});
        let state = state.as_object().unwrap();
        let turn = TurnSummary {
            input: "I enter".into(),
            narrative: "You enter.".into(),
        };
        let young = vec![turn.clone(); RECENT_TURNS - 1];
        let opening = opening_told(state, &young);
        assert_eq!(opening, Some("Rain drums on the inn's roof."));
        let mut plan = Plan::new(vec![]);
        shape(
            &mut plan,
            &c,
            &Telling {
                recent: &young[..1],
                opening,
                ..TELLING
            },
        );
        assert_eq!(
            plan.tools[0].input["recentTurns"],
            json!([
                {"player": "", "narrator": "Rain drums on the inn's roof."},
                {"player": "I enter", "narrator": "You enter."}
            ])
        );
        // Once the first turns fall out of the window, or with no scenario: no opening.
        assert_eq!(opening_told(state, &vec![turn; RECENT_TURNS]), None);
        assert_eq!(opening_told(&Map::new(), &[]), None);
    }

    /// The narration is told the whole story (as `StoryTold` bounds it),
    /// the player's note and the story's language; a turn's record keeps
    /// only the last turns of it.
    #[test]
    fn the_narration_is_told_the_whole_story_the_note_and_the_language() {
        let (_d, c) = catalog(true);
        let turns: Vec<TurnSummary> = (1..=40)
            .map(|n| TurnSummary {
                input: format!("I take step {n}"),
                narrative: format!("You take step {n}."),
            })
            .collect();
        let state = json!({"scenario": {"opening": "A long road."}});
        let state = state.as_object().unwrap();
        let fr = Language::parse("French").unwrap();
        let story = crate::narration::StoryTold::new(turns, 40, "Keep it grim; no jokes.", fr);
        let mut plan = Plan::new(vec![tool("roll", "dice-roller/roll-dice", &[])]);
        shape(
            &mut plan,
            &c,
            &Telling {
                recent: &story.turns,
                opening: story.opening(state),
                author_note: Some(&story.author_note),
                language: Some(&story.language),
                ..TELLING
            },
        );
        let input = &plan.tools[1].input;
        assert_eq!(input["authorNote"], "Keep it grim; no jokes.");
        assert_eq!(input["language"], "fr");
        let told = input["recentTurns"].as_array().unwrap();
        assert_eq!(told.len(), 41, "the opening, then every turn");
        assert_eq!(told[0], json!({"player": "", "narrator": "A long road."}));
        assert_eq!(told[1]["player"], "I take step 1");
        assert_eq!(told[40]["narrator"], "You take step 40.");

        let kept = recorded(&plan, &c);
        let kept_turns = kept["tools"][1]["input"]["recentTurns"].as_array().unwrap();
        assert_eq!(kept_turns.len(), RECENT_TURNS);
        assert_eq!(kept_turns[RECENT_TURNS - 1]["player"], "I take step 40");
        assert_eq!(
            kept["tools"][1]["input"]["authorNote"],
            "Keep it grim; no jokes."
        );
        assert_eq!(
            plan.tools[1].input["recentTurns"].as_array().unwrap().len(),
            41
        );

        // A blank note is not told; without a language none is named.
        let mut plan = Plan::new(vec![]);
        shape(
            &mut plan,
            &c,
            &Telling {
                author_note: Some("   "),
                ..TELLING
            },
        );
        let input = &plan.tools[0].input;
        assert!(!input.contains_key("authorNote") && !input.contains_key("language"));
    }

    /// The storyteller's input schema, compiled, as the skill ships it.
    fn storyteller_schema() -> jsonschema::Validator {
        crate::schema::compile(&crate::test_support::storyteller_input_schema()).unwrap()
    }

    /// Every way `input` breaks the storyteller's input schema.
    fn refusals(schema: &jsonschema::Validator, input: &Map<String, Value>) -> Vec<String> {
        let input = Value::Object(input.clone());
        crate::schema::validation_errors(schema, &input)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    /// A story saved before actions were bounded — a turn of 2,500
    /// characters, told again with its words — is still told by the
    /// storyteller: what it is told is clipped to its schema.
    #[test]
    fn a_story_saved_with_a_long_action_is_still_told_by_the_storyteller() {
        let schema = storyteller_schema();
        let long = "I shout ".repeat(320);
        let recent = [
            TurnSummary {
                input: long.clone(),
                narrative: "The hall echoes. ".repeat(600),
            },
            TurnSummary {
                input: "I listen".into(),
                narrative: "Silence.".into(),
            },
        ];
        let fr = Language::parse("fr").unwrap();
        let (scenario, scene, opening) = (
            "A mill. ".repeat(600),
            "Lore. ".repeat(2000),
            "Rain. ".repeat(2000),
        );
        let telling = Telling {
            input: &long,
            recent: &recent,
            scenario: Some(&scenario),
            scene: Some(&scene),
            opening: Some(&opening),
            author_note: Some("Keep it grim."),
            language: Some(&fr),
            answer: None,
        };
        let input = narration_input(&telling, None);
        assert_eq!(refusals(&schema, &input), Vec::<String>::new());
        let player = input["playerInput"].as_str().unwrap();
        assert_eq!(player.chars().count(), ACTION_CHARS);
        assert!(player.starts_with("I shout I shout") && player.ends_with('…'));
        let turns = input["recentTurns"].as_array().unwrap();
        assert_eq!(turns.len(), 3, "the opening, then both turns");
        assert_eq!(turns[1]["player"], json!(player), "clipped alike");
        assert_eq!(
            turns[2],
            json!({"player": "I listen", "narrator": "Silence."})
        );
        assert_eq!(input["authorNote"], "Keep it grim.");
        assert_eq!(input["language"], "fr");
    }

    /// A seeded stream of numbers (SplitMix64): the same lengths every run.
    struct Seeded(u64);

    impl Seeded {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D1_049B_1331_11EB);
            ((z ^ (z >> 31)) % n as u64) as usize
        }

        /// A text of up to three times `bound` characters, often right
        /// about it, of one- to four-byte characters.
        fn text(&mut self, bound: usize) -> String {
            let len = match self.below(3) {
                0 => bound.saturating_sub(2) + self.below(5),
                _ => self.below(3 * bound + 1),
            };
            const CHARS: [char; 5] = ['a', ' ', 'é', '日', '🐉'];
            (0..len).map(|_| CHARS[self.below(CHARS.len())]).collect()
        }
    }

    /// Whatever the lengths of what the story holds, the input the host
    /// builds passes the storyteller's real input schema.
    #[test]
    fn what_the_storyteller_is_told_fits_its_schema_whatever_the_lengths() {
        let schema = storyteller_schema();
        let mut rng = Seeded(47);
        let fr = Language::parse("fr").unwrap();
        for round in 0..150 {
            let recent: Vec<TurnSummary> = (0..rng.below(4))
                .map(|_| TurnSummary {
                    input: rng.text(ACTION_CHARS),
                    narrative: rng.text(NARRATION_CHARS),
                })
                .collect();
            let (input, scenario, scene) = (
                rng.text(ACTION_CHARS).replace(' ', "x"),
                rng.text(SCENARIO_CHARS),
                rng.text(SCENE_CHARS),
            );
            let (opening, note) = (rng.text(NARRATION_CHARS), rng.text(AUTHOR_NOTE_CHARS));
            let telling = Telling {
                input: if input.is_empty() { "x" } else { &input },
                recent: &recent,
                scenario: Some(&scenario),
                scene: Some(&scene),
                opening: Some(&opening),
                author_note: Some(&note),
                language: Some(&fr),
                answer: None,
            };
            let built = narration_input(&telling, Some(&json!("terse")));
            assert_eq!(
                refusals(&schema, &built),
                Vec::<String>::new(),
                "round {round}"
            );
        }
        // More turns than the storyteller takes: the newest are told.
        let many: Vec<TurnSummary> = (0..STORY_TURNS + 3)
            .map(|n| TurnSummary {
                input: format!("step {n}"),
                narrative: "On.".into(),
            })
            .collect();
        let built = narration_input(
            &Telling {
                recent: &many,
                opening: Some("A road."),
                ..TELLING
            },
            None,
        );
        assert_eq!(refusals(&schema, &built), Vec::<String>::new());
        let told = built["recentTurns"].as_array().unwrap();
        assert_eq!(told.len(), STORY_TURNS);
        assert_eq!(
            told[STORY_TURNS - 1]["player"],
            format!("step {}", STORY_TURNS + 2)
        );
    }

    #[test]
    fn without_a_usable_storyteller_no_narration_is_planned() {
        let (_d, c) = catalog(false);
        let mut plan = Plan::new(vec![
            tool("roll", "dice-roller/roll-dice", &[]),
            tool("tell", "storyteller/narrate", &["roll"]),
        ]);
        shape(&mut plan, &c, &TELLING);
        assert_eq!(plan.tools.len(), 1);

        let (_d, c) = catalog(true);
        let mut plan = Plan::new(vec![tool("roll", "dice-roller/roll-dice", &[])]);
        plan.disabled_skills = vec![STORYTELLER.into()];
        shape(&mut plan, &c, &TELLING);
        assert_eq!(plan.tools.len(), 1);
    }

    #[test]
    fn a_turn_with_no_mechanics_is_just_the_narration() {
        let (_d, c) = catalog(true);
        let mut plan = Plan::new(vec![]);
        shape(&mut plan, &c, &TELLING);
        assert_eq!(plan.tools.len(), 1);
        assert!(plan.tools[0].dependencies.is_empty());
    }
}
