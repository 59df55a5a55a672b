//! The prompt every provider gets: a system message saying how to narrate
//! (the scenario, the style, the length) and a user message holding the story
//! so far, the player's action and what the rules decided, in words.

use narratoria_lexicon::checked::checked_whole;
use narratoria_lexicon::{
    act, checked, clip_after, echoes, ends_a_sentence, facts_of, sentence_case, sentence_ends,
    sentences_of, wondered, Fact, Verdict,
};
use narratoria_protocol::Role;
use serde::Deserialize;
use serde_json::{Map, Value};

use narratoria_lexicon::{Language, Lines};
use narratoria_protocol::writer::{AnswerLength, WriterClass, WriterProfile};

use crate::config::Style;
use crate::guards::adds_nothing::without_idle_clauses;
use crate::story_so_far::{with_summary, StorySoFar};
use narratoria_lexicon::vocabulary::own_words;

/// The most characters of free context, of the scenario, of the story so far
/// and of the session state put into a prompt (a small local model reads
/// ≈ 300 tokens a second, so a short prompt is a fast first word).
const CONTEXT_CHARS: usize = 1200;
/// A small writer's scene: where the story is and the first of its lore.
/// The scene comes after the story so far, so every turn reads it again,
/// and a small writer made little of more than this: the rules tell a
/// question's answer themselves (docs/stories.md, "A small writer's scene").
const SMALL_CONTEXT_CHARS: usize = 240;
const SCENARIO_CHARS: usize = 800;
/// A larger writer reads the whole scenario (its limit in skill.json).
const LARGE_SCENARIO_CHARS: usize = 4000;
/// The most characters of the author's note (its limit in skill.json).
const NOTE_CHARS: usize = 2000;
const STATE_CHARS: usize = 400;

/// One earlier turn, as the player and the narrator wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RecentTurn {
    pub player: String,
    pub narrator: String,
}

/// What the turn's prose must be grounded in.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The player's action, in their words.
    pub action: &'a str,
    /// Free context from the plan.
    pub context: Option<&'a str>,
    /// The story's premise and setting, when it has a scenario.
    pub scenario: Option<&'a str>,
    /// The player's steer for the writer (tone, focus, what to avoid).
    pub author_note: Option<&'a str>,
    /// The language the story is told in.
    pub language: &'a Language,
    /// The last turns, oldest first.
    pub recent: &'a [RecentTurn],
    /// Outputs of the tools this one depends on, by tool id (`null` = failed).
    pub deps: &'a Map<String, Value>,
    /// The session state snapshot.
    pub state: &'a Value,
    /// What the story already holds that answers the player's question,
    /// found by the rules (a sentence of its scenario, lore or an earlier
    /// turn): the prose tells it first, in these words.
    pub answer: Option<&'a str>,
}

/// A system message, the story so far, a user message, and the words the
/// answer opens with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prompt {
    pub system: String,
    /// The earlier turns, as exchanges between the system message and `user`.
    pub so_far: StorySoFar,
    /// Whether worked turns (a small model's examples) come before the story.
    pub worked: bool,
    pub user: String,
    /// The story's own words in the messages — the scenario, the earlier
    /// turns, the action, what happened — without the instructions around
    /// them: what the answer may take as already known.
    pub story: String,
    /// The answer's first words, written by the rules, not the model: they
    /// tell the turn's check outcome, so the prose cannot start by
    /// contradicting it (see [`opening`]).
    pub opening: String,
    /// The turn's first check: the deed (the action as a verb phrase) and its
    /// verdict. No sentence may tell it the other way round.
    pub check: Option<(String, Verdict)>,
    /// What the rules decided, as the lines under "What happened" word for
    /// word: the opening tells it, so the prose may not say it again.
    pub decided: Vec<String>,
    /// What the rules tell after the writer's prose (the game master's
    /// beats, for a small writer: [`closing`]).
    pub closing: String,
    /// The player's words this turn: the writer tells what they bring
    /// about, and is kept from saying them back (the host generation's
    /// `avoid`, docs/storyteller.md, "The player's words").
    pub action: String,
}

impl Prompt {
    /// The messages after the system message and before the answer: the
    /// story so far as exchanges, then the turn (opened by the summary of
    /// the turns that gave way, when some gave way at this turn). The same story gives the same messages,
    /// and a story told on adds messages only at the end.
    pub fn conversation(&self) -> Vec<(Role, String)> {
        let mut out = Vec::new();
        for e in &self.so_far.exchanges {
            out.push((Role::User, e.asked.clone()));
            out.push((Role::Assistant, e.answered.clone()));
        }
        let user = match &self.so_far.summary {
            Some(s) => with_summary(s, &self.user),
            None => self.user.clone(),
        };
        out.push((Role::User, user));
        out
    }
}

/// The words an answer opens with. With a check, the player's action and
/// the first check's outcome, told by the rules ([`checked`]) as the start
/// of a sentence the model finishes ("You try to pick the lock, but it will
/// not give, and" for a failure, "You pick the lock, and" for a success);
/// with no check, the action as done ("You look around the hall, and") or a
/// question as wondered ("You wonder who they are, and"), else "You" (second
/// person from the first word: a small model otherwise drifts to "I").
/// When the game master decided something the player is told
/// ([`Fact::beat_told`]), the opening tells it after the outcome, each in a
/// whole sentence. Promises: it never gives the player's words back — an
/// opening that would repeat [`narratoria_lexicon::ECHO_WORDS`] of them in
/// a row tells the outcome without the deed ("You try, but it does not
/// work.").
pub fn opening(deps: &Map<String, Value>, action: &str) -> String {
    opening_for(deps, action, WriterClass::Small)
}

/// [`opening`] for a writer of `class`. An opening that would give the
/// player's words back tells the deed shortened, its last phrases left
/// out ("You try to pick the lock, but" for "I pick the lock on the
/// cellar door"), when that gives none back; else the outcome alone —
/// except to a small writer, which cannot tell a deed it is not given:
/// it is told the deed shortened all the same.
pub fn opening_for(deps: &Map<String, Value>, action: &str, class: WriterClass) -> String {
    // A small writer goes on from a clause, not from whole sentences: the
    // beats close its turn instead ([`closing`]) — all but the oracle's
    // answer, which answers the player's question first, as the story's
    // own answers do.
    let beats: Vec<Fact> = match class {
        WriterClass::Small => beats_told(deps).into_iter().filter(is_oracle).collect(),
        _ => beats_told(deps),
    };
    let looked = || Looked {
        standing: first_standing(deps),
        recalled: first_recall(deps),
    };
    let verdict = first_verdict(deps);
    let told = |done: Option<String>| opening_of(verdict, looked(), done, action, &beats, false);
    let Some(deeds) = act(action).map(|a| shortened(&a)) else {
        return told(None);
    };
    // Then each with its last noun phrase pared to its head.
    let pared_deeds: Vec<String> = deeds.iter().filter_map(|d| pared(d)).collect();
    let deeds = deeds.into_iter().chain(pared_deeds);
    let mut shortest = None;
    for deed in deeds {
        let opening = told(Some(deed));
        if !echoes(&opening, action) {
            return opening;
        }
        shortest = Some(opening);
    }
    match (class, shortest) {
        (WriterClass::Small, Some(shortest)) => shortest,
        _ => opening_of(verdict, looked(), None, action, &beats, true),
    }
}

/// Whether `fact` is the oracle's answer to the player's question.
fn is_oracle(fact: &Fact) -> bool {
    matches!(fact, Fact::Beat { kind, .. } if kind == "oracle")
}

/// The game master's beats the player is told in the rules' words, in order.
fn beats_told(deps: &Map<String, Value>) -> Vec<Fact> {
    deps.values()
        .flat_map(facts_of)
        .filter(|f| f.beat_told().is_some())
        .collect()
}

/// What the rules tell after a small writer's prose: the game master's
/// beats ([`Fact::beat_told`]), in whole sentences; empty for a larger
/// writer, whose opening tells them ([`opening_for`]).
pub fn closing(deps: &Map<String, Value>, class: WriterClass) -> String {
    match class {
        WriterClass::Small => beats_told(deps)
            .iter()
            .filter(|f| !is_oracle(f))
            .filter_map(Fact::beat_told)
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// The deed `act` and its shorter forms, longest first: cut before each
/// word a phrase starts with ("pick the lock on the door" → "pick the
/// lock"), keeping at least the verb and one word.
fn shortened(act: &str) -> Vec<String> {
    let words: Vec<&str> = act.split_whitespace().collect();
    let starts = narratoria_lexicon::vocabulary::english();
    let mut deeds = vec![act.to_string()];
    for i in (2..words.len()).rev() {
        let w = words[i].to_lowercase();
        if starts
            .phrase_starts
            .contains(w.trim_matches(|c: char| !c.is_alphanumeric()))
        {
            deeds.push(
                words[..i]
                    .join(" ")
                    .trim_end_matches([',', ';'])
                    .to_string(),
            );
        }
    }
    deeds
}

/// `deed` with its last noun phrase pared to its determiner and its last
/// word, the phrase's head ("force the jammed maintenance hatch" → "force
/// the hatch"): the deed still named, in fewer of the player's words.
/// `None` when the phrase is two words or fewer, or the deed has none.
fn pared(deed: &str) -> Option<String> {
    let words: Vec<&str> = deed.split_whitespace().collect();
    let vocabulary = narratoria_lexicon::vocabulary::english();
    let bare = |w: &str| {
        w.to_lowercase()
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_string()
    };
    // The last determiner after the verb, with no phrase or clause after it.
    let at = (1..words.len())
        .rev()
        .take_while(|&i| {
            !vocabulary.phrase_starts.contains(&bare(words[i]))
                && !words[i].ends_with([',', ';', ':'])
        })
        .find(|&i| vocabulary.determiners.contains(&bare(words[i])))?;
    (words.len() - at > 2).then(|| {
        let mut kept = words[..=at].to_vec();
        kept.push(words[words.len() - 1]);
        kept.join(" ")
    })
}

/// What the turn's tools looked up, as the rules may open a question's
/// answer with it.
struct Looked {
    /// The first standing looked up: its faction's id and the standing in
    /// words.
    standing: Option<(String, String)>,
    /// What the first recall brought back (empty: nothing).
    recalled: Option<Vec<String>>,
}

/// [`opening`] from the first check's verdict, the first standing looked up
/// (in words, "The ashford watch regard you as neutral") and the action as a
/// verb phrase (`done`; `None` for a question, a quote or nothing: then the
/// outcome is told without it), then the game master's `beats` the player
/// is told. Without a check, a question or a quote
/// whose turn looked up a standing is answered by the rules: "What does the
/// Watch think of me?" opens "The ashford watch regard you as neutral, and";
/// a question that names no word of the faction is told first, so the
/// standing is not given as another group's answer ("You wonder what the
/// ferrymen think of you. The city watch regard you as neutral, and");
/// one whose turn recalled memories opens with the first of them ("You
/// wonder whether you have met her. You think back: you greet her by the
/// well.") or, when none came back, with nothing coming to mind.
/// `without_words`: the player's words are not told at all (neither the
/// deed nor the question wondered).
fn opening_of(
    verdict: Option<Verdict>,
    looked: Looked,
    done: Option<String>,
    action: &str,
    beats: &[Fact],
    without_words: bool,
) -> String {
    let done = done.filter(|_| !without_words);
    // The oracle's answer says what was asked: the question is not wondered too.
    let oracle = beats.iter().any(is_oracle);
    let wondered = wondered(action).filter(|_| !without_words && !oracle);
    // Told without the player's words, the outcome is a whole sentence: the
    // writer goes on from a full stop, not from a clause it cannot finish
    // without them ("You manage it: a moment of bliss.").
    if !beats.is_empty() {
        let lead = whole_lead(verdict, looked, done, wondered);
        let told: Vec<&str> = beats.iter().filter_map(Fact::beat_told).collect();
        let opening = format!("{lead} {}", told.join(" ")).trim().to_string();
        // Second person from the first word all the same — but a larger
        // writer told nothing of the deed begins where it likes.
        return match opening.is_empty() && !without_words {
            true => "You".into(),
            false => opening,
        };
    }
    let Some(verdict) = verdict else {
        return match (done, looked.standing) {
            // Words said end their sentence: the model tells what follows.
            (Some(a), _) if ends_a_sentence(&a) => format!("You {a}"),
            (Some(a), _) => format!("You {a}, and"),
            (None, Some((faction, s))) => match wondered {
                Some(w) if !names(action, &faction) => format!("You {w}. {s}, and"),
                _ => format!("{s}, and"),
            },
            (None, None) => match (wondered, looked.recalled) {
                (Some(w), Some(memories)) => match remembered(&memories) {
                    Some(m) => format!("You {w}. You think back: {m}"),
                    None if memories.is_empty() => {
                        format!("You {w}, but nothing comes to mind, and")
                    }
                    None => format!("You {w}, and"),
                },
                (Some(w), None) => format!("You {w}, and"),
                // A larger writer told nothing of the deed begins with what
                // comes of it, in its own words.
                (None, _) if without_words => String::new(),
                (None, _) => "You".into(),
            },
        };
    };
    match (done, verdict.twist()) {
        (Some(a), _) => checked(&a, verdict),
        (None, Some(twist)) => sentence_case(&format!("{twist}:")),
        (None, None) if verdict.succeeded() && without_words => "You manage it, and".into(),
        (None, None) if verdict.succeeded() => "You manage it:".into(),
        (None, None) => "You try, but".into(),
    }
}

/// The opening's first part in whole sentences, for beats to follow: the
/// deed and its outcome, the outcome alone, the question wondered (with
/// what a recall or a standing answered), or nothing.
fn whole_lead(
    verdict: Option<Verdict>,
    looked: Looked,
    done: Option<String>,
    wondered: Option<String>,
) -> String {
    let ended = |s: String| {
        if ends_a_sentence(&s) {
            s
        } else {
            format!("{s}.")
        }
    };
    if let Some(verdict) = verdict {
        return match done {
            Some(a) => checked_whole(&a, verdict),
            None => Lines::english().without_a_deed.of(verdict).to_string(),
        };
    }
    match (done, looked.standing, wondered) {
        (Some(a), _, _) => ended(format!("You {a}")),
        (None, Some((_, s)), _) => ended(s),
        (None, None, Some(w)) => match looked.recalled.as_deref().map(|m| (remembered(m), m)) {
            Some((Some(m), _)) => format!("You {w}. You think back: {m}"),
            Some((None, [])) => format!("You {w}, but nothing comes to mind."),
            _ => ended(format!("You {w}")),
        },
        (None, None, None) => String::new(),
    }
}

/// The verdict of the first check among the tools' outputs.
fn first_verdict(deps: &Map<String, Value>) -> Option<Verdict> {
    deps.values().flat_map(facts_of).find_map(|f| f.verdict())
}

/// The first standing looked up among the tools' outputs: its faction's id
/// and the standing in words, without its full stop ("The ashford watch
/// regard you as neutral").
fn first_standing(deps: &Map<String, Value>) -> Option<(String, String)> {
    deps.values().flat_map(facts_of).find_map(|f| {
        let Fact::Standing { faction, .. } = &f else {
            return None;
        };
        let words = f.in_words();
        Some((faction.clone(), words.trim_end_matches('.').to_string()))
    })
}

/// Whether the player's `action` names the faction `id` by one of its
/// words ("the Watch" names "ashford-watch").
fn names(action: &str, id: &str) -> bool {
    let faction = own_words(&id.replace(['-', '_'], " "));
    !own_words(action).is_disjoint(&faction)
}

/// The memories the first recall among the tools' outputs brought back
/// (`None` when the turn recalled nothing).
fn first_recall(deps: &Map<String, Value>) -> Option<Vec<String>> {
    deps.values().flat_map(facts_of).find_map(|f| match f {
        Fact::Recalled { memories } => Some(memories),
        _ => None,
    })
}

/// The first sentence of the first memory that tells something happening
/// (not a question wondered, as the account of a question turn opens),
/// its "You" in lower case: "you greet her by the well."
fn remembered(memories: &[String]) -> Option<String> {
    let memory = memories
        .iter()
        .map(|m| m.trim())
        .find(|m| !m.is_empty() && !m.starts_with("You wonder"))?;
    // Without a small model's echoes ("…is called Senna, and you remember
    // that she is called Senna"), kept in accounts written before they were cut.
    let cleaned = without_idle_clauses(memory);
    let memory = if cleaned.is_empty() {
        memory
    } else {
        cleaned.as_str()
    };
    // Its whole sentences within the budget: the first tells the deed, the
    // next ones what came of it ("She says she is Senna.").
    let ends = sentence_ends(memory);
    let end = ends
        .iter()
        .copied()
        .take_while(|&e| memory[..e].chars().count() <= MEMORY_CHARS)
        .last()
        .or_else(|| ends.first().copied())
        .unwrap_or(memory.len());
    let told = memory[..end].trim();
    let told = match told.strip_prefix("You ") {
        Some(rest) => format!("you {rest}"),
        None => told.to_string(),
    };
    Some(if ends_a_sentence(&told) {
        told
    } else {
        format!("{told}.")
    })
}

/// The opening of a question the story answers: the answer itself, a
/// turn's account as thought back to ("You think back: you slip her a
/// note…"). Never the player's words.
fn answered(answer: &str) -> String {
    match answer.strip_prefix("You ") {
        Some(rest) => format!("You think back: you {rest}"),
        None => answer.to_string(),
    }
}

/// `narrative` telling `answer`: as it is when it holds the answer's own
/// names and numbers (its words with a capital after its first, or a
/// digit), else with the answer before it, so the fact asked for is never
/// lost to a writer that left it out.
pub fn with_answer(narrative: &str, answer: Option<&str>) -> String {
    let Some(answer) = answer.map(str::trim).filter(|a| !a.is_empty()) else {
        return narrative.to_string();
    };
    let telling: Vec<&str> = answer
        .split_whitespace()
        .skip(1)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                || w.chars().any(|c| c.is_ascii_digit())
        })
        .collect();
    let told = if telling.is_empty() {
        narrative.contains(answer)
    } else {
        telling.iter().any(|w| narrative.contains(w))
    };
    match told {
        true => narrative.to_string(),
        false if narrative.trim().is_empty() => answered(answer),
        false => format!("{} {}", answered(answer), narrative.trim_start()),
    }
}

/// `deps` without the outputs of recalls (those holding `memories`).
fn without_recalls(deps: &Map<String, Value>) -> Map<String, Value> {
    deps.iter()
        .filter(|(_, output)| output.get("memories").is_none())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The most characters of a memory the opening tells (whole sentences; a
/// first sentence longer than this is told whole).
const MEMORY_CHARS: usize = 200;

/// `deps` without the recalled memories that are the recent turns' own
/// accounts (the host remembers every turn): those turns are in the story so
/// far already, and told again as memories they crowded out what happened. A
/// recall left with none is left out.
pub fn without_recent_accounts(
    deps: &Map<String, Value>,
    recent: &[RecentTurn],
) -> Map<String, Value> {
    let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let told: Vec<String> = recent
        .iter()
        .map(|t| {
            squeeze(&t.narrator)
                .chars()
                .take(ACCOUNT_START_CHARS)
                .collect()
        })
        .filter(|t: &String| !t.is_empty())
        .collect();
    let mut deps = deps.clone();
    // A recall whose memories were all recent turns found what the story so
    // far tells: it is left out, not told as nothing coming to mind.
    deps.retain(|_, output| {
        let Some(Value::Array(memories)) = output.get_mut("memories") else {
            return true;
        };
        let found = !memories.is_empty();
        memories.retain(|m| {
            let summary = squeeze(m.get("summary").and_then(Value::as_str).unwrap_or(""));
            !told.iter().any(|t| summary.contains(t.as_str()))
        });
        !(found && memories.is_empty())
    });
    deps
}

/// How much of a turn's narration identifies its account in a memory.
const ACCOUNT_START_CHARS: usize = 60;

/// How each style reads, as told to the model (the length is the
/// writer's profile's, [`WriterProfile::length_asked`]).
pub fn style_guide(style: Style) -> &'static str {
    match style {
        Style::Terse => "terse — short, plain sentences",
        Style::Vivid => "vivid — concrete sensory detail and strong verbs",
        Style::Poetic => "poetic — lyrical, rhythmic prose with imagery",
    }
}

/// How the writer is asked to write: the style, the writer's profile and
/// the player's length for a large writer.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    pub style: Style,
    pub profile: &'a WriterProfile,
    pub length: AnswerLength,
}

/// Builds the prompt. Promises: the system message names the style
/// (`Style: <name>`), the length the writer's profile asks for, the story's
/// language and its scenario, and stays the same all story long; the story
/// so far comes as earlier exchanges ([`StorySoFar`]) so that each turn's
/// prompt extends the last; the user message holds the action, what the
/// rules decided in words — never raw numbers — and the author's note, last,
/// with every part bounded in length.
pub fn build(facts: &Facts, asked: Asked) -> Prompt {
    let Asked {
        style,
        profile,
        length,
    } = asked;
    let language = facts.language;
    let scenario = scenario_told(facts, profile);
    let system = system_message(language, scenario.as_deref(), style, profile, length);
    let mut story = scenario.unwrap_or_default();

    let so_far = StorySoFar::of(facts.recent, profile);
    story.push('\n');
    story.push_str(&so_far.text());

    // Memories that are the story so far's own turns are in the story
    // already: neither what was decided nor the opening tells them again.
    let fresh = without_recent_accounts(facts.deps, facts.recent);
    let answer = facts.answer.map(str::trim).filter(|a| !a.is_empty());
    // The story's own answer stands for whatever a recall brought back.
    let fresh = match answer {
        Some(_) => without_recalls(&fresh),
        None => fresh,
    };
    let mut decided = decided(&fresh, facts.action, language, profile.class);
    if let Some(a) = answer {
        decided.insert(0, a.to_string());
    }
    let closing = match language.is_english() {
        true => closing(&fresh, profile.class),
        false => String::new(),
    };
    // What the rules tell after the writer's prose is not the writer's to
    // tell: a small writer shown it told it first, and the closing said it
    // again.
    let shown: Vec<String> = decided
        .iter()
        .filter(|line| closing.is_empty() || !closing.contains(line.as_str()))
        .cloned()
        .collect();
    let mut user = turn_message(facts, &shown, profile.class);
    // Nor may the prose repeat who is present, a line of the prompt.
    if let Some(present) = present_line(facts.deps, language) {
        decided.push(present);
    }
    let verdict = first_verdict(facts.deps);
    let done = act(facts.action);
    let check = verdict.map(|v| {
        let deed = done.clone().unwrap_or_else(|| facts.action.to_string());
        (deed, v)
    });
    // The rules' opening is English words: another language's prose is the
    // model's from its first word (the outcome is under "What happened").
    let opening = if let (Some(a), true, None) = (answer, language.is_english(), verdict) {
        answered(a)
    } else if language.is_english() {
        // A question whose recall found only turns the story so far tells
        // is answered from them ("You think back: …"), not left open for
        // the model to fill with something that never happened.
        let answered_by_the_story = first_recall(&fresh).is_none()
            && first_recall(facts.deps).is_some_and(|m| !m.is_empty());
        opening_for(
            if answered_by_the_story {
                facts.deps
            } else {
                &fresh
            },
            facts.action,
            profile.class,
        )
    } else {
        String::new()
    };
    story.push('\n');
    story.push_str(&user);
    story.push('\n');
    story.push_str(&opening);
    ask_to_narrate(&mut user, facts);
    Prompt {
        system,
        so_far,
        // Worked turns are English and shaped for a small model's two sentences.
        worked: profile.class == WriterClass::Small && language.is_english(),
        user,
        story,
        opening,
        check,
        decided,
        closing,
        action: facts.action.trim().to_string(),
    }
}

/// The story's premise on one line, within what the writer's class reads.
fn scenario_told(facts: &Facts, profile: &WriterProfile) -> Option<String> {
    let scenario_chars = match profile.class {
        WriterClass::Small => SCENARIO_CHARS,
        _ => LARGE_SCENARIO_CHARS,
    };
    facts
        .scenario
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|sc| one_line(sc, scenario_chars))
}

/// The system message: how to narrate, in which language and person, the
/// story's premise, the style and the length asked.
fn system_message(
    language: &Language,
    scenario: Option<&str>,
    style: Style,
    profile: &WriterProfile,
    length: AnswerLength,
) -> String {
    let mut system = String::from(
        "You are the narrator of an interactive story told to \"you\", its hero, who has just acted (\"Action\"); write what happens next.\n",
    );
    if language.is_english() {
        system.push_str("- Write in the second person (\"you\"), present tense.\n");
    } else {
        // The language's own "you" where its lines ship: told only "second
        // person" in English words, a writer echoed the player's "je".
        let you = Lines::shipped(language)
            .map(|l| format!(" (\"{}\")", l.you))
            .unwrap_or_default();
        system.push_str(&format!(
            "- Write in {name} ({own}) only, even where these instructions and the notes are in English; in the second person{you}, present tense, whatever person the player writes in.\n",
            name = language.name(),
            own = language.autonym(),
        ));
    }
    system.push_str(
        "- Tell exactly what the rules decided under \"What happened\": a failure stays a failure, a success a success. Never mention dice, numbers or game mechanics.\n\
         - Say something new: do not repeat the action's words or earlier narration.\n",
    );
    if profile.class != WriterClass::Small {
        // A larger writer restated the action first in a quarter of its
        // turns (docs/stories.md, "Echo").
        system.push_str(
            "- Begin with what happens because of the action, never with the action itself: the player knows what they did.\n",
        );
    }
    system.push_str(
        "- Never decide what you do next. Write only the narrative: no title, no lists, no questions, no talk of players or games.\n",
    );
    if let Some(sc) = scenario {
        system.push_str(&format!("The story: {sc}\n"));
    }
    system.push_str(&format!(
        "Style: {}.\nLength: {}.",
        style_guide(style),
        profile.length_asked(length)
    ));
    system
}

/// The user message's account of the turn: the action, what was
/// `decided`, what to keep in mind (whole sentences within what a writer of
/// `class` reads) and the story's state not told already.
fn turn_message(facts: &Facts, decided: &[String], class: WriterClass) -> String {
    let mut user = format!("Action: {}\n", one_line(facts.action, 2000));
    if !decided.is_empty() {
        user.push_str("What happened:\n");
        for line in decided {
            user.push_str(&format!("- {line}\n"));
        }
    }
    if let Some(present) = present_line(facts.deps, facts.language) {
        user.push_str(&format!("{present}\n"));
    }
    let context = facts.context.map(str::trim).filter(|c| !c.is_empty());
    if let Some(c) = context {
        let most = match class {
            WriterClass::Small => SMALL_CONTEXT_CHARS,
            _ => CONTEXT_CHARS,
        };
        user.push_str(&format!("Keep in mind: {}\n", whole_sentences(c, most)));
    }
    if let Some(state) = state_line(facts.state, context.unwrap_or_default()) {
        user.push_str(&format!("Story state: {state}\n"));
    }
    user
}

/// The user message's end: the player's steer last but one, where it
/// weighs most, then the ask to narrate (in the story's language, calling
/// the player by its "you").
fn ask_to_narrate(user: &mut String, facts: &Facts) {
    let language = facts.language;
    if let Some(note) = facts.author_note.map(str::trim).filter(|n| !n.is_empty()) {
        user.push_str(&format!("Author's note: {}\n", one_line(note, NOTE_CHARS)));
    }
    if language.is_english() {
        user.push_str("Narrate what happens next.");
    } else {
        // Last, where it weighs most: a writer echoed the player's "je"
        // with the language's "you" asked only in the system message.
        let you = Lines::shipped(language)
            .map(|l| format!(", calling the player \"{}\"", l.you))
            .unwrap_or_default();
        user.push_str(&format!(
            "Narrate what happens next, in {}{you}.",
            language.name()
        ));
    }
}

/// What the tools decided, one line per fact, in words of the story's
/// `language` (English where it has no lines). A check the planner gave no
/// reason is told as the player's `action` ("Force the door open: it
/// fails."): a bare "it fails." left the model nothing to tell.
/// A small writer is not told the game master's beats meant for the writer
/// alone (a thread moved, a scene ending): told "the story turns to the
/// countdown", the 0.5B writer wrote "The countdown ends".
fn decided(
    deps: &Map<String, Value>,
    action: &str,
    language: &Language,
    class: WriterClass,
) -> Vec<String> {
    let words = Lines::of(language);
    // The player's words told to "you" where the lexicon turns the
    // language's grammar so; else they stay the player's.
    let deed = match language.is_english() {
        true => act(action),
        false => Some(
            narratoria_lexicon::second_person(&one_line(action, 200), language)
                .unwrap_or_else(|| one_line(action, 200))
                .trim_end_matches(['.', '!', '?'])
                .to_string(),
        ),
    };
    let mut lines = Vec::new();
    for output in deps.values() {
        for mut fact in facts_of(output) {
            // Who is present is told apart ([`present_line`]).
            if matches!(fact, Fact::Roll { .. } | Fact::Present { .. }) {
                continue;
            }
            let for_the_writer = matches!(fact, Fact::Beat { .. }) && fact.beat_told().is_none();
            if for_the_writer && class == WriterClass::Small {
                continue;
            }
            if let Fact::Check { reason, .. } = &mut fact {
                if reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
                    reason.clone_from(&deed);
                }
            }
            lines.push(fact.told_in(words));
        }
    }
    lines
}

/// Who is in the scene with the player and how each regards them, as the
/// game master said ("With you here: Dee Marchetti, who is friendly towards
/// you."), in the
/// story's language.
fn present_line(deps: &Map<String, Value>, language: &Language) -> Option<String> {
    deps.values()
        .flat_map(facts_of)
        .find(|f| matches!(f, Fact::Present { .. }))
        .map(|f| f.told_in(Lines::of(language)))
}

/// The state the prose may need beyond what the prompt already says: the
/// scenario, its lore, people and factions are told elsewhere (or not
/// needed), and a value the `context` already holds word for word (where
/// the story is, told as "Now at") is not told twice.
fn state_line(state: &Value, context: &str) -> Option<String> {
    // The game master's table is told as its beats and who is present.
    const TOLD_ELSEWHERE: [&str; 6] =
        ["scenario", "lore", "factions", "player", "reputation", "gm"];
    match state {
        Value::Object(m) => {
            let rest: Map<String, Value> = m
                .iter()
                .filter(|(k, _)| !TOLD_ELSEWHERE.contains(&k.as_str()))
                .filter(|(_, v)| !v.as_str().is_some_and(|t| told_in(t, context)))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            (!rest.is_empty()).then(|| compact(&Value::Object(rest), STATE_CHARS))
        }
        _ => None,
    }
}

/// Whether `context` holds `text` (blank text is not "held"), white space
/// aside.
fn told_in(text: &str, context: &str) -> bool {
    let spaced = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = spaced(text);
    !text.is_empty() && spaced(context).contains(&text)
}

/// `text` on one line, as many of its whole sentences as `max` characters
/// hold; its start clipped when even the first does not fit.
fn whole_sentences(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    let mut kept = String::new();
    for sentence in sentences_of(&line) {
        if kept.chars().count() + sentence.chars().count() > max {
            break;
        }
        kept.push_str(sentence);
    }
    match kept.trim() {
        "" => clip_after(&line, max),
        whole => whole.to_string(),
    }
}

fn compact(v: &Value, max: usize) -> String {
    clip_after(&v.to_string(), max)
}

fn one_line(s: &str, max: usize) -> String {
    clip_after(&s.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn small() -> WriterProfile {
        WriterProfile::local(Some(135_000_000), 4096, AnswerLength::Medium)
    }

    fn asked(style: Style, profile: &WriterProfile) -> Asked<'_> {
        Asked {
            style,
            profile,
            length: AnswerLength::Medium,
        }
    }

    #[test]
    fn a_story_in_another_language_is_asked_for_in_it_with_no_english_opening() {
        let french = Language::parse("fr").unwrap();
        let deps = json!({"roll": {"formula": "1d20", "rolls": [4], "total": 4, "dc": 12,
                                   "outcome": "failure", "margin": -8}});
        let medium = WriterProfile::local(Some(1_500_000_000), 8192, AnswerLength::Medium);
        let facts = Facts {
            action: "J'entre dans l'auberge et je regarde autour de moi",
            context: None,
            scenario: None,
            author_note: None,
            language: &french,
            recent: &[],
            deps: deps.as_object().unwrap(),
            state: &json!({}),
            answer: None,
        };
        let p = build(&facts, asked(Style::Vivid, &medium));
        assert!(
            p.system.contains("Write in French (français) only"),
            "{}",
            p.system
        );
        assert!(
            p.user
                .ends_with("Narrate what happens next, in French, calling the player \"vous\"."),
            "{}",
            p.user
        );
        assert_eq!(p.opening, "");
        assert!(!p.worked);
        // The deed told to the language's own "you", and the outcome in
        // the story's words.
        assert!(
            p.user.contains(
                "- Vous entrez dans l'auberge et vous regardez autour de vous : c'est un échec."
            ),
            "{}",
            p.user
        );
        assert!(
            p.system.contains("second person (\"vous\")"),
            "{}",
            p.system
        );
        assert!(
            p.system.contains("Length: two to four sentences"),
            "{}",
            p.system
        );
    }

    #[test]
    fn the_system_message_stays_the_same_all_story_long() {
        let english = Language::english();
        let deps = Map::new();
        let mut recent = Vec::new();
        let mut systems = std::collections::HashSet::new();
        for i in 0..30 {
            let facts = Facts {
                action: "I walk on",
                context: None,
                scenario: Some("A salt marsh at dawn."),
                author_note: Some("Quiet dread."),
                language: &english,
                recent: &recent,
                deps: &deps,
                state: &json!({}),
                answer: None,
            };
            systems.insert(build(&facts, asked(Style::Vivid, &small())).system);
            recent.push(RecentTurn {
                player: format!("I walk on {i}"),
                narrator: format!("The reeds bend {i}."),
            });
        }
        assert_eq!(systems.len(), 1);
    }

    #[test]
    fn the_opening_tells_the_first_checks_outcome() {
        let check = |outcome: &str| {
            json!({"roll": {"formula": "1d20", "rolls": [9], "total": 9, "dc": 15,
                            "outcome": outcome, "margin": -6}})
        };
        let action = "I pick the lock on my cell door";
        for (outcome, words) in [
            (
                "failure",
                "You try to pick the lock on your cell door, but it will not give, and",
            ),
            (
                "criticalFailure",
                "You try to pick the lock on your cell door, but it goes badly wrong:",
            ),
            ("success", "You pick the lock on your cell door, and"),
            (
                "criticalSuccess",
                "You pick the lock on your cell door, and it goes better than you could have hoped:",
            ),
        ] {
            assert_eq!(opening(check(outcome).as_object().unwrap(), action), words);
        }
    }

    fn check(outcome: &str) -> Value {
        json!({"roll": {"formula": "1d20", "rolls": [9], "total": 9, "dc": 15,
                        "outcome": outcome, "margin": -6}})
    }

    #[test]
    fn an_action_tried_is_not_tried_twice_nor_given_back() {
        // An action already tried is not tried twice; a question is told without it.
        let failed = check("failure");
        let failed = failed.as_object().unwrap();
        assert_eq!(
            opening(failed, "I try to climb it"),
            "You try to climb it, but you lose your grip, and"
        );
        assert_eq!(opening(failed, "Can I climb the wall?"), "You try, but");
        // An opening that would give five of the player's words back in a
        // row tells the outcome alone to a larger writer; a small one is
        // told the deed all the same (it cannot tell what it is not given).
        assert_eq!(
            opening_for(failed, "I try to climb the wall", WriterClass::Medium),
            "You try, but"
        );
        assert_eq!(
            opening(failed, "I try to climb the wall"),
            "You try to climb the wall, but you lose your grip, and"
        );
        // A deed whose noun phrase gives five words back is told with the
        // phrase pared to its head, to any writer.
        for class in [WriterClass::Small, WriterClass::Medium] {
            assert_eq!(
                opening_for(failed, "I force the jammed maintenance hatch", class),
                "You try to force the hatch, but it will not give, and"
            );
        }
        assert_eq!(pared("pick the lock"), None);
        assert_eq!(
            pared("push the boulder off the cave entrance").as_deref(),
            Some("push the boulder off the entrance")
        );
        assert_eq!(
            pared("search the old crates for a rusty crowbar").as_deref(),
            Some("search the old crates for a crowbar")
        );
        // An action tried and managed is told as done.
        assert_eq!(
            opening(check("success").as_object().unwrap(), "I try to climb it"),
            "You climb it, and you make it, and"
        );
    }

    #[test]
    fn the_game_masters_beats_follow_the_outcome_in_whole_sentences() {
        let mut deps = check("failure").as_object().unwrap().clone();
        deps.insert(
            "direct".into(),
            json!({"beats": [
                {"kind": "complication", "text": "Someone nearby notices."},
                {"kind": "threadMoves", "text": "You are a step closer on the thread \u{201c}X\u{201d}."},
                {"kind": "event", "text": "Someone new arrives.", "hint": "It has to do with a lie and money."}
            ], "present": [{"name": "Dee Marchetti", "attitude": "wary"}]}),
        );
        let large = |action: &str| opening_for(&deps, action, WriterClass::Large);
        assert_eq!(
            large("I pick the lock on my cell door"),
            "You try to pick the lock on your cell door, but it will not give. Someone nearby notices. Someone new arrives."
        );
        // Shortened where the whole deed gives the player's words back.
        assert_eq!(
            large("I walk into the saloon and pick the lock of the back door"),
            "You try to walk into the saloon, but it does not work. Someone nearby notices. Someone new arrives."
        );
        // A larger writer is told the outcome alone where even that would.
        assert_eq!(
            large("I try to climb the wall"),
            "You try, but it does not work. Someone nearby notices. Someone new arrives."
        );
        // A small writer goes on from the deed; the beats close its turn.
        assert_eq!(
            opening(&deps, "I pick the lock on my cell door"),
            "You try to pick the lock on your cell door, but it will not give, and"
        );
        assert_eq!(
            closing(&deps, WriterClass::Small),
            "Someone nearby notices. Someone new arrives."
        );
        assert_eq!(closing(&deps, WriterClass::Large), "");
        let english = Language::english();
        let facts = Facts {
            action: "I pick the lock",
            context: None,
            scenario: None,
            author_note: None,
            language: &english,
            recent: &[],
            deps: &deps,
            state: &json!({}),
            answer: None,
        };
        let p = build(&facts, asked(Style::Vivid, &small()));
        assert!(
            p.user
                .contains("With you here: Dee Marchetti, who is wary towards you.\n"),
            "{}",
            p.user
        );
        assert!(
            p.user
                .contains("- Someone new arrives. It has to do with a lie and money.\n"),
            "{}",
            p.user
        );
        // The beats meant for the writer alone are a larger writer's.
        assert!(
            !p.user.contains("- You are a step closer on the thread"),
            "{}",
            p.user
        );
        let medium = WriterProfile::local(Some(1_800_000_000), 4096, AnswerLength::Medium);
        let p = build(&facts, asked(Style::Vivid, &medium));
        assert!(
            p.user.contains("- You are a step closer on the thread"),
            "{}",
            p.user
        );
        // An oracle's answer says what was asked: the question is not wondered too.
        let oracle = json!({"direct": {"beats": [{"kind": "oracle", "text": "Whether you can hear it: no."}]}});
        assert_eq!(
            opening_for(
                oracle.as_object().unwrap(),
                "Can I hear it?",
                WriterClass::Medium
            ),
            "Whether you can hear it: no."
        );
        assert_eq!(
            opening(oracle.as_object().unwrap(), "Can I hear it?"),
            "Whether you can hear it: no."
        );
        assert_eq!(closing(oracle.as_object().unwrap(), WriterClass::Small), "");
    }

    #[test]
    fn a_standing_answers_the_question_about_its_faction() {
        let action = "I pick the lock on my cell door";
        // A standing looked up decides nothing about a deed, but it answers
        // the turn's question.
        let standing = json!({"query": {"factionId": "ashford-watch", "score": 0,
                                        "standing": "neutral", "known": false}});
        let standing = standing.as_object().unwrap();
        assert_eq!(
            opening(standing, action),
            "You pick the lock on your cell door, and"
        );
        assert_eq!(
            opening(standing, "What does the Watch think of me?"),
            "The ashford watch regard you as neutral, and"
        );
        // A question about a group the story has no standing for is not
        // answered with another faction's.
        assert_eq!(
            opening(standing, "What do the ferrymen think of me now?"),
            "You wonder what the ferrymen think of you now. The ashford watch regard you as neutral, and"
        );
    }

    #[test]
    fn memories_recalled_answer_a_question() {
        // Memories recalled answer a question: the first one that tells
        // something happening, or nothing coming to mind.
        let recalled = json!({"recall": {"memories": [
            {"summary": "You wonder who she is, and she smiles."},
            {"summary": "You greet Senna by the well. She nods."},
            {"summary": "Mara sells you a map"}]}});
        assert_eq!(
            opening(recalled.as_object().unwrap(), "Have I met Senna before?"),
            "You wonder whether you have met Senna before. You think back: you greet Senna by the well. She nods."
        );
        let named = json!({"recall": {"memories": [{"summary": "Mara sells you a map"}]}});
        assert_eq!(
            opening(named.as_object().unwrap(), "Who is Mara?"),
            "You wonder who Mara is. You think back: Mara sells you a map."
        );
        // Only questions wondered before: the model answers as for any question.
        let wondered_only =
            json!({"recall": {"memories": [{"summary": "You wonder who she is."}]}});
        assert_eq!(
            opening(wondered_only.as_object().unwrap(), "Who is Senna?"),
            "You wonder who Senna is, and"
        );
        // A long memory is told in whole sentences within the budget.
        let long = format!("You meet Senna. {}", "She talks of the sea. ".repeat(20));
        let long = json!({"recall": {"memories": [{"summary": long}]}});
        let told = opening(long.as_object().unwrap(), "Who is Senna?");
        assert!(told.len() < 300 && told.ends_with("sea."), "{told}");
        let none = json!({"recall": {"memories": []}});
        assert_eq!(
            opening(none.as_object().unwrap(), "Have I met Senna before?"),
            "You wonder whether you have met Senna before, but nothing comes to mind, and"
        );
        // A deed that recalled memories is told as done.
        assert_eq!(
            opening(none.as_object().unwrap(), "I search the desk"),
            "You search the desk, and"
        );
    }

    #[test]
    fn no_outcome_leaves_the_deed_simply_done() {
        let action = "I pick the lock on my cell door";
        // A roll with no difficulty or nothing at all decide no outcome: the
        // action is simply done; a question or a quote is left for the model
        // to tell.
        for deps in [
            json!({"roll": {"formula": "1d6", "rolls": [4], "total": 4}}),
            json!({}),
        ] {
            let deps = deps.as_object().unwrap();
            assert_eq!(
                opening(deps, action),
                "You pick the lock on your cell door, and"
            );
            assert_eq!(
                opening(deps, "Where am I?"),
                "You wonder where you are, and"
            );
            assert_eq!(opening(deps, "What did she say?"), "You");
            assert_eq!(opening(deps, "\"Hello there.\""), "You");
            assert_eq!(opening(deps, "  "), "You");
            // Words said, then the saying: the words end the opening's
            // sentence, and the model tells what follows.
            assert_eq!(
                opening(deps, "\"Where are we headed?\" I ask the driver."),
                "You ask the driver, \"Where are we headed?\""
            );
        }
    }

    #[test]
    fn a_check_without_a_reason_is_told_as_the_action() {
        let deps = json!({"roll": {"formula": "1d20+2", "total": 9, "dc": 15,
                                   "outcome": "failure", "margin": -6}});
        let deps = deps.as_object().unwrap();
        assert_eq!(
            decided(
                deps,
                "I force the rusted door open.",
                &Language::english(),
                WriterClass::Small
            ),
            ["Force the rusted door open: it fails."]
        );
        // A question gives no action to name: the outcome alone.
        assert_eq!(
            decided(
                deps,
                "Can I open it?",
                &Language::english(),
                WriterClass::Small
            ),
            ["It fails."]
        );
    }

    #[test]
    fn grounds_the_prose_in_outcomes_history_and_state() {
        let deps = json!({
            "sneak": {"formula": "1d20+3", "rolls": [4], "total": 7, "dc": 15, "outcome": "failure",
                      "margin": -8, "reason": "Sneak past the guard"},
            "remember": {"mode": "hybrid", "memories": [{"summary": "Hilda lent us gold."}]},
            "standing": {"factionId": "city_guard", "score": -20, "standing": "unfriendly"},
            "broken": null
        });
        let state = json!({"location": "Ashford gate"});
        let recent = vec![RecentTurn {
            player: "I walk to the gate".into(),
            narrator: "You reach the gate at dusk.".into(),
        }];
        let english = Language::english();
        let facts = Facts {
            action: "I sneak past the guard",
            context: Some("It is night."),
            scenario: Some("A border town at war."),
            author_note: Some("Keep it grim; no one is rescued."),
            language: &english,
            recent: &recent,
            deps: deps.as_object().unwrap(),
            state: &state,
            answer: None,
        };
        let p = build(&facts, asked(Style::Poetic, &small()));
        assert!(p.system.contains("Style: poetic"), "{}", p.system);
        assert!(
            p.system.contains("Length: one or two sentences"),
            "{}",
            p.system
        );
        assert!(p.system.contains("A border town at war."), "{}", p.system);
        let talk = p.conversation();
        assert_eq!(talk[0], (Role::User, "Action: I walk to the gate".into()));
        assert_eq!(
            talk[1],
            (Role::Assistant, "You reach the gate at dusk.".into())
        );
        assert!(p.user.starts_with("Action: I sneak past the guard"));
        // The player's steer comes after what happened, before the ask.
        assert!(
            p.user.ends_with(
                "Author's note: Keep it grim; no one is rescued.\nNarrate what happens next."
            ),
            "{}",
            p.user
        );
        assert!(
            p.user.contains("Sneak past the guard: it fails."),
            "{}",
            p.user
        );
        assert!(!p.user.contains("1d20"), "{}", p.user);
        assert!(p.user.contains("Hilda lent us gold."));
        assert!(
            p.user.contains("The city guard regard you as unfriendly."),
            "{}",
            p.user
        );
        assert!(p.user.contains("could not be found out"));
        assert!(p.user.contains("It is night."));
        assert!(p.user.contains("Ashford gate"));
        // The story's words, not the instructions ("second person").
        for told in [
            "A border town at war.",
            "You reach the gate at dusk.",
            "I sneak past the guard",
            "Hilda",
        ] {
            assert!(p.story.contains(told), "{}", p.story);
        }
        assert!(!p.story.contains("person"), "{}", p.story);
    }

    /// The scene comes after the story so far, so each turn reads it again:
    /// a small writer is given its first whole sentences, a larger writer
    /// all of it, and where the story is is not told twice.
    #[test]
    fn a_small_writer_reads_the_scene_s_first_sentences_and_nothing_twice() {
        let scene = "Now at: The Drowned Lantern, a tavern by the ford. Lore: Mara Vell keeps \
                     the Drowned Lantern. She knows every debt in Ashford because half of them \
                     are owed to her. The bridge burned from the middle outward, where no torch \
                     could reach from either bank; whoever did it came by boat.";
        let state =
            json!({"location": "The Drowned Lantern,  a tavern by the ford", "hour": "dusk"});
        let deps = Map::new();
        let english = Language::english();
        let facts = Facts {
            action: "I look around",
            context: Some(scene),
            scenario: None,
            author_note: None,
            language: &english,
            recent: &[],
            deps: &deps,
            state: &state,
            answer: None,
        };
        let small_user = build(&facts, asked(Style::Terse, &small())).user;
        assert!(
            small_user.contains(
                "Keep in mind: Now at: The Drowned Lantern, a tavern by the ford. Lore: Mara Vell \
                 keeps the Drowned Lantern. She knows every debt in Ashford because half of \
                 them are owed to her.\n"
            ),
            "{small_user}"
        );
        assert!(!small_user.contains("bridge"), "{small_user}");
        let large = WriterProfile::local(Some(7_000_000_000), 8192, AnswerLength::Medium);
        let large_user = build(&facts, asked(Style::Terse, &large)).user;
        assert!(large_user.contains("came by boat."), "{large_user}");
        for user in [&small_user, &large_user] {
            assert!(user.contains("Story state: {\"hour\":\"dusk\"}"), "{user}");
            assert_eq!(user.matches("a tavern by the ford").count(), 1, "{user}");
        }
    }

    #[test]
    fn a_scene_whose_first_sentence_is_too_long_is_clipped() {
        let long = format!("Now at: {}.", "a long road ".repeat(40));
        let told = whole_sentences(&long, SMALL_CONTEXT_CHARS);
        assert!(
            told.ends_with('…') && told.chars().count() <= SMALL_CONTEXT_CHARS + 1,
            "{told}"
        );
        assert_eq!(whole_sentences("A. B.", SMALL_CONTEXT_CHARS), "A. B.");
    }

    #[test]
    fn long_parts_are_clipped() {
        let big = "x".repeat(10_000);
        let state = json!({"notes": big});
        let deps = Map::new();
        let english = Language::english();
        let facts = Facts {
            action: "look",
            context: Some(&big),
            scenario: Some(&big),
            author_note: Some(&big),
            language: &english,
            recent: &[],
            deps: &deps,
            state: &state,
            answer: None,
        };
        let p = build(&facts, asked(Style::Terse, &small()));
        assert!(
            p.user.len() + p.system.len()
                < CONTEXT_CHARS + STATE_CHARS + SCENARIO_CHARS + NOTE_CHARS + 1200,
            "{}",
            p.user.len()
        );
    }

    /// A question whose recall brought back only a turn the story so far
    /// already tells is answered from that turn (left open, a small model
    /// filled it with a voice nobody had heard); an older memory is told
    /// before a recent one.
    #[test]
    fn a_question_answered_only_by_a_recent_turn_thinks_back_to_it() {
        let told = "You step into the lighthouse and call out, and the keeper's face lights up.";
        let recent = vec![RecentTurn {
            player: "I step into the lighthouse and call out".into(),
            narrator: told.into(),
        }];
        let english = Language::english();
        let state = json!({});
        let build_with = |deps: &Value| {
            let facts = Facts {
                action: "What do I remember about the keeper?",
                context: None,
                scenario: None,
                author_note: None,
                language: &english,
                recent: &recent,
                deps: deps.as_object().unwrap(),
                state: &state,
                answer: None,
            };
            build(&facts, asked(Style::Vivid, &small())).opening
        };
        let only_recent = json!({"recall": {"memories": [{"summary": told}]}});
        assert_eq!(
            build_with(&only_recent),
            "You wonder what you remember about the keeper. You think back: you step into the lighthouse and call out, and the keeper's face lights up."
        );
        let older = json!({"recall": {"memories": [
            {"summary": told},
            {"summary": "You met the keeper at the harbour years ago."}
        ]}});
        assert_eq!(
            build_with(&older),
            "You wonder what you remember about the keeper. You think back: you met the keeper at the harbour years ago."
        );
    }

    #[test]
    fn a_recent_turns_own_account_is_not_told_as_a_memory() {
        let deps = json!({"recall": {"memories": [
            {"summary": "You ask the keeper why the lamp went dark, and he shrugs."},
            {"summary": "You met Mira at the well."}
        ]}, "roll": {"total": 3}});
        let recent = [RecentTurn {
            player: "I ask the keeper why the lamp went dark".into(),
            narrator: "You ask the keeper why the lamp went dark, and he shrugs.".into(),
        }];
        let kept = without_recent_accounts(deps.as_object().unwrap(), &recent);
        assert_eq!(
            kept["recall"]["memories"],
            json!([{"summary": "You met Mira at the well."}])
        );
        assert_eq!(kept["roll"], deps["roll"]);
        // A recall that found only recent turns is left out: nothing is told
        // as not coming to mind.
        let only_recent = json!({"recall": {"memories": [
            {"summary": "You ask the keeper why the lamp went dark, and he shrugs."}]}});
        assert!(without_recent_accounts(only_recent.as_object().unwrap(), &recent).is_empty());
        let found_nothing = json!({"recall": {"memories": []}});
        assert!(
            without_recent_accounts(found_nothing.as_object().unwrap(), &recent)
                .contains_key("recall")
        );
    }

    /// The prompt of an English question `action` the story answers with
    /// `answer`, after tools that gave `deps`.
    fn answered_prompt(action: &str, answer: &str, deps: &Value) -> Prompt {
        let facts = Facts {
            action,
            context: None,
            scenario: None,
            author_note: None,
            language: &Language::english(),
            recent: &[],
            deps: deps.as_object().unwrap(),
            state: &json!({}),
            answer: Some(answer),
        };
        build(&facts, asked(Style::Vivid, &small()))
    }

    #[test]
    fn the_story_s_answer_opens_the_prose_in_place_of_the_player_s_words() {
        // The recall found nothing; the story's lore holds the answer.
        let p = answered_prompt(
            "What was the name of the assayer again?",
            "The assayer, a nervous man named Whitcombe, has been in town only three months.",
            &json!({"recall": {"memories": []}}),
        );
        assert_eq!(
            p.opening,
            "The assayer, a nervous man named Whitcombe, has been in town only three months."
        );
        assert!(
            !p.opening.contains("wonder"),
            "no echo of the question: {}",
            p.opening
        );
        assert_eq!(
            p.decided.first().map(String::as_str),
            Some(p.opening.as_str())
        );
        // Nothing coming to mind would contradict the answer.
        assert!(!p.user.contains("Nothing from earlier"), "{}", p.user);
    }

    #[test]
    fn an_earlier_turn_as_the_answer_is_thought_back_to() {
        let p = answered_prompt(
            "What address did I give the waitress?",
            "You slip the waitress a note with your office address, 221 Pier Row.",
            &json!({}),
        );
        assert_eq!(
            p.opening,
            "You think back: you slip the waitress a note with your office address, 221 Pier Row."
        );
    }

    #[test]
    fn a_narrative_without_the_answer_s_names_gets_the_answer_first() {
        let said = "Dot Malloy is the waitress at the Harbor Light diner.";
        let answer = Some(said);
        assert_eq!(
            with_answer("She refills your cup without a word.", answer),
            "Dot Malloy is the waitress at the Harbor Light diner. She refills your cup without a word."
        );
        let told = "Dot Malloy, the waitress, refills your cup.";
        assert_eq!(with_answer(told, answer), told);
        assert_eq!(with_answer(told, None), told);
        assert_eq!(with_answer("", answer), said);
    }
}
