//! Every turn is remembered: after a turn is told, the host asks the memory
//! skill to keep what the player did and the gist of what happened, so a
//! later "Have I met her before?" has something to find. The memory is the
//! turn's account: when the turn is told again (regenerated, continued,
//! edited, another alternative chosen) the new account replaces it.

use serde_json::{json, Map, Value};

use super::narration_step::is_host_tool;
use crate::executor::{execute, ExecutorOptions};
use crate::narration::checked::attempted;
use crate::narration::deed::{act, sentences};
use crate::narration::question::wondered;
use crate::narration::Language;
use crate::plan::{Plan, ToolInvocation};
use crate::result::ExecutionResult;
use crate::skills::Catalog;

/// The skill and script that keep memories.
pub const MEMORY: &str = "memory";
pub const STORE: &str = "store-memory";

/// The most characters of a narration kept in a memory.
const GIST_CHARS: usize = 400;

/// The memory of one turn: the deed, then the narration's first sentences —
/// the narration alone when its first sentence already tells the deed (the
/// rules' opening: "You try to pick the lock, but …"). A turn that `noted`
/// something (the player asked to keep it) is remembered as the deed alone:
/// what the player asked to keep, in their words, without what the
/// narrator made of it.
pub fn summary(input: &str, narrative: &str, noted: bool, language: &Language) -> String {
    // The deed in the story's language: an English frame around French
    // words ("You note que…") is not a memory a French story can tell.
    let deed = || narratoria_lexicon::deed_in(input, language);
    if noted {
        return deed();
    }
    let told = gist(narrative);
    // Its first sentence, a full stop in words said aside.
    let first = sentences(&told)
        .first()
        .copied()
        .unwrap_or("")
        .to_lowercase();
    // The deed as the rules' opening tells it: "try to" dropped for a deed
    // done, a question as wondered.
    let told_deed = if language.is_english() {
        act(input)
            .map(|a| attempted(&a).to_string())
            .or_else(|| wondered(input))
    } else {
        narratoria_lexicon::second_person(input, language)
            .map(|d| d.trim_end_matches(['.', '!']).to_string())
    };
    let tells_the_deed = told_deed.is_some_and(|d| first.contains(&d.to_lowercase()));
    if told.is_empty() {
        deed()
    } else if tells_the_deed {
        told
    } else {
        format!("{} {told}", deed())
    }
}

/// Whether the host keeps the turn's account itself: the memory skill can
/// store now (discovered, enabled, healthy, not left out by `disabled`).
pub fn keeps_accounts(catalog: &Catalog, disabled: &[String]) -> bool {
    catalog
        .usable(disabled)
        .any(|s| s.name == MEMORY && s.script(STORE).is_some())
}

/// `plan` without the planner's own memory writes when the host keeps the
/// turn's account: the account already holds what the player asked to keep,
/// in their words, where a planner's summary is written before anything
/// happened and may be a guess (docs/stories.md, "Every turn is
/// remembered"). Tools that waited on a removed write no longer wait.
/// Returns whether the turn only noted something: a write was folded and
/// nothing but narration is left (a turn that also rolled is remembered by
/// how it went).
pub fn fold_writes(plan: &mut Plan, catalog: &Catalog) -> bool {
    if !keeps_accounts(catalog, &plan.disabled_skills) {
        return false;
    }
    let path = format!("{MEMORY}/{STORE}");
    let (writes, tools): (Vec<ToolInvocation>, Vec<ToolInvocation>) =
        std::mem::take(&mut plan.tools)
            .into_iter()
            .partition(|t| t.tool_path == path);
    plan.tools = tools;
    for tool in &mut plan.tools {
        tool.dependencies
            .retain(|d| !writes.iter().any(|w| &w.tool_id == d));
    }
    !writes.is_empty() && plan.tools.iter().all(|t| is_host_tool(catalog, t))
}

/// Whether the turn `attempts` record only noted something (the flag
/// [`fold_writes`] gave its last plan, kept with the attempt).
pub fn noted(attempts: &[crate::store::AttemptRecord]) -> bool {
    attempts
        .iter()
        .rev()
        .find(|a| a.plan.is_some())
        .is_some_and(|a| a.noted)
}

/// The turn being remembered: the player's input, how it was told, and
/// whether it noted something ([`summary`]).
#[derive(Debug, Clone, Copy)]
pub struct Account<'a> {
    pub input: &'a str,
    pub narrative: &'a str,
    pub noted: bool,
    /// The language the story is told in: the memory is kept in it.
    pub language: &'a Language,
}

/// A one-tool plan storing the turn's memory, when the memory skill can
/// store now (see [`keeps_accounts`]); the account within the length its
/// script's input schema allows ([`crate::schema::fit_lengths`]).
pub fn plan(catalog: &Catalog, disabled: &[String], account: Account<'_>) -> Option<Plan> {
    if !keeps_accounts(catalog, disabled) {
        return None;
    }
    let mut tool = ToolInvocation::new("remember-turn", format!("{MEMORY}/{STORE}"));
    tool.input.insert(
        "summary".into(),
        json!(summary(
            account.input,
            account.narrative,
            account.noted,
            account.language
        )),
    );
    tool.input
        .insert("metadata".into(), json!({"importance": 3}));
    tool.input.insert("turnAccount".into(), json!(true));
    let schema = catalog
        .get(MEMORY)
        .and_then(|skill| skill.script(STORE))
        .and_then(|script| script.input_schema.as_ref());
    if let Some(schema) = schema {
        crate::schema::fit_lengths(&mut tool.input, schema);
    }
    tool.required = false;
    tool.retry_policy.max_retries = 1;
    let mut plan = Plan::new(vec![tool]);
    plan.disabled_skills = disabled.to_vec();
    Some(plan)
}

/// Keeps the account of the turn `opts.story` names with the memory skill,
/// from `state`; `None` when the memory skill cannot store now. A failure
/// is in the result, never fatal.
pub async fn keep(
    catalog: &Catalog,
    disabled: &[String],
    account: Account<'_>,
    state: Map<String, Value>,
    opts: &ExecutorOptions,
) -> Option<ExecutionResult> {
    let plan = plan(catalog, disabled, account)?;
    Some(execute(&plan, catalog, state, opts, None).await)
}

/// The first sentences of `narrative`, at most [`GIST_CHARS`] characters.
fn gist(narrative: &str) -> String {
    let text = narrative.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= GIST_CHARS {
        return text;
    }
    let cut: String = text.chars().take(GIST_CHARS).collect();
    match cut.rfind(['.', '!', '?']) {
        Some(end) if end > GIST_CHARS / 3 => cut[..=end].to_string(),
        _ => format!("{}…", cut.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_is_remembered_as_deed_and_gist() {
        assert_eq!(
            summary(
                "I greet the stranger by the well",
                "She nods. Her name is Mira.",
                false,
                &Language::english()
            ),
            "You greet the stranger by the well. She nods. Her name is Mira."
        );
        // A narration that opens with the deed is not told it twice.
        assert_eq!(
            summary(
                "I try to pick the lock",
                "You try to pick the lock, but it holds. A dog barks.",
                false,
                &Language::english()
            ),
            "You try to pick the lock, but it holds. A dog barks."
        );
        // Nor one that opens with the deed done, or with the question wondered.
        assert_eq!(
            summary(
                "I try to pick the lock",
                "You pick the lock, and the door swings in.",
                false,
                &Language::english()
            ),
            "You pick the lock, and the door swings in."
        );
        assert_eq!(
            summary(
                "Who are they?",
                "You wonder who they are, and Mara shrugs.",
                false,
                &Language::english()
            ),
            "You wonder who they are, and Mara shrugs."
        );
        // Nor one whose deed ends in words said, with a stop inside them.
        assert_eq!(
            summary(
                "\"Where to?\" I ask the driver.",
                "You ask the driver, \"Where to?\" He points north.",
                false,
                &Language::english()
            ),
            "You ask the driver, \"Where to?\" He points north."
        );
        let long = "The hall is vast and cold. ".repeat(40);
        let s = summary("I look", &long, false, &Language::english());
        assert!(s.len() < GIST_CHARS + 40 && s.ends_with('.'), "{s}");
    }

    #[test]
    fn a_noted_turn_is_remembered_as_the_players_note() {
        assert_eq!(
            summary(
                "Remember that the boy is called Pip.",
                "You remember that the boy is called Pip, and you tell him where to find it.",
                true,
                &Language::english()
            ),
            "You remember that the boy is called Pip."
        );
    }

    /// A French story keeps its memories in French: the deed turned to the
    /// player, or the player's own words, never "You note que…".
    #[test]
    fn a_turn_in_another_language_is_remembered_in_it() {
        let fr = Language::parse("fr").unwrap();
        assert_eq!(
            summary(
                "Je note l'adresse du marin.",
                "Le marin sourit.",
                false,
                &fr
            ),
            "Vous notez l'adresse du marin. Le marin sourit."
        );
        assert_eq!(
            summary(
                "Note que les deux joueurs portent la même bague.",
                "Vous observez les joueurs.",
                true,
                &fr
            ),
            "Note que les deux joueurs portent la même bague."
        );
        // A narration that opens with the deed is not told it twice.
        assert_eq!(
            summary(
                "J'ouvre la porte.",
                "Vous ouvrez la porte, et le vent entre.",
                false,
                &fr
            ),
            "Vous ouvrez la porte, et le vent entre."
        );
    }

    #[test]
    fn no_memory_skill_no_plan() {
        let dir = tempfile::tempdir().unwrap();
        let c = crate::skills::discover(&[dir.path().to_path_buf()]).unwrap();
        let account = Account {
            input: "I look",
            narrative: "You see.",
            noted: false,
            language: &Language::english(),
        };
        assert!(plan(&c, &[], account).is_none());
    }

    /// The account of a turn as long as a turn may be (an action at its
    /// bound, a long narration) still fits the memory script's `summary`.
    #[test]
    fn the_account_of_a_long_turn_fits_the_memory_schema() {
        let schema = &crate::test_support::shipped_input_schema(MEMORY, STORE);
        let dir = tempfile::tempdir().unwrap();
        let extra = format!(r#","scripts":{{"{STORE}":{{"inputSchema":{schema}}}}}"#);
        crate::test_support::script_skill(dir.path(), MEMORY, STORE, &extra, "");
        let c = crate::skills::discover(&[dir.path().to_path_buf()]).unwrap();
        let input = format!("I tell my tale {}", "again ".repeat(400));
        let input = narratoria_lexicon::clip_after(&input, crate::narration::ACTION_CHARS - 1);
        let account = Account {
            input: &input,
            narrative: &"The hall listens. ".repeat(100),
            noted: false,
            language: &Language::english(),
        };
        let plan = plan(&c, &[], account).unwrap();
        let validator = crate::schema::compile(schema).unwrap();
        let told = Value::Object(plan.tools[0].input.clone());
        let refused = crate::schema::validation_errors(&validator, &told);
        assert!(refused.is_empty(), "{refused:?}");
        let summary = told["summary"].as_str().unwrap();
        assert!(summary.starts_with("You tell your tale again"), "{summary}");
    }
}
