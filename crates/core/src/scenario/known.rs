//! What the story already knows, and the answer it gives a question about
//! it: the player, the people, the factions, the lore, the premise and
//! setting, and what happened in the turns of this branch. The rules answer
//! from these before any writer is asked, so the fact itself reaches the
//! prose whatever the writer's size (docs/storyteller.md, "Facts the story
//! answers"). Pure functions over the state and the turns: no I/O.

use narratoria_lexicon::stop_words::is_stop_word;
use narratoria_lexicon::{
    asks_about_own_deed, asks_for_someone, asks_how, asks_with, is_question, sentences_of, stem,
};
use narratoria_lexicon::{deed, words::words_of, Language};
use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};

use super::lore::contains_word;
use super::start::lore_in;
use crate::planner::TurnSummary;

/// The longest answer told, in characters: one or two sentences.
pub const ANSWER_CHARS: usize = 300;

/// Where a known thing comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SourceKind {
    Player,
    Person,
    Faction,
    Lore,
    Scenario,
    Turn,
}

/// One thing the story knows: what it is called, the words that name it,
/// and what is known of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub kind: SourceKind,
    pub name: String,
    pub keys: Vec<String>,
    pub text: String,
}

/// The story's answer to a question.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// What is told: a sentence of the story's own, in its language.
    pub text: String,
    /// The name of what the answer is about (a person, a faction, an entry).
    pub about: String,
    pub source: SourceKind,
}

/// Everything `state` and the branch's `turns` (player input, narration;
/// oldest first) know, in the order a tie prefers: the player and where
/// they are, the people and lore, the factions, the premise, setting and
/// opening, then the turns, the newest first.
pub fn sources(state: &Map<String, Value>, turns: &[TurnSummary]) -> Vec<Source> {
    let mut out = Vec::new();
    let text = |v: Option<&Value>, key: &str| -> String {
        v.and_then(|o| o.get(key))
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let player = state.get("player");
    let (name, who) = (text(player, "name"), text(player, "description"));
    if !name.is_empty() || !who.is_empty() {
        out.push(Source {
            kind: SourceKind::Player,
            keys: vec![name.clone()],
            // The name is told beside what is known, when that does not
            // say it ([`told`]).
            text: if who.is_empty() { name.clone() } else { who },
            name,
        });
    }
    // Where the player is now, before everything further off.
    if let Some(location) = state.get("location").and_then(Value::as_str) {
        out.push(Source {
            kind: SourceKind::Scenario,
            name: "location".into(),
            keys: Vec::new(),
            text: location.trim().to_string(),
        });
    }
    for entry in lore_in(state).into_iter().filter(|e| e.enabled) {
        // People are lore entries keyed first by their own name, which
        // opens their content (see `start::person_entry`).
        let is_person = entry.keys.first() == Some(&entry.name)
            && !entry.name.is_empty()
            && entry.content.starts_with(entry.name.as_str());
        out.push(Source {
            kind: if is_person {
                SourceKind::Person
            } else {
                SourceKind::Lore
            },
            name: entry.name.clone(),
            keys: entry.keys.clone(),
            // A person's entry labelled with their name ("Jonas Pike: Owner
            // of…") is known without the label; their name is told beside
            // it ([`told`]).
            text: entry
                .content
                .strip_prefix(&format!("{}: ", entry.name))
                .filter(|_| is_person)
                .unwrap_or(&entry.content)
                .to_string(),
        });
    }
    // What the game master settled or the player pinned (docs/game-master.md).
    for fact in state
        .get("gm")
        .and_then(|gm| gm.get("facts"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let t = text(Some(fact), "text");
        if !t.is_empty() {
            out.push(Source {
                kind: SourceKind::Lore,
                name: "kept fact".into(),
                keys: Vec::new(),
                text: t,
            });
        }
    }
    for faction in state
        .get("factions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = text(Some(faction), "name");
        let description = text(Some(faction), "description");
        if name.is_empty() {
            continue;
        }
        out.push(Source {
            kind: SourceKind::Faction,
            keys: vec![name.clone()],
            text: if description.is_empty() {
                name.clone()
            } else {
                description
            },
            name,
        });
    }
    let scenario = state.get("scenario");
    for key in ["premise", "setting", "opening"] {
        let t = text(scenario, key);
        if !t.is_empty() {
            out.push(Source {
                kind: SourceKind::Scenario,
                name: key.to_string(),
                keys: Vec::new(),
                text: t,
            });
        }
    }
    for TurnSummary {
        input: player,
        narrative: narrator,
    } in turns.iter().rev()
    {
        // The player's words as the story tells them: "You slip her a note."
        let deed = if player.trim().is_empty() {
            String::new()
        } else {
            deed(player)
        };
        let told = format!("{deed} {}", narrator.trim());
        if told.trim().is_empty() {
            continue;
        }
        out.push(Source {
            kind: SourceKind::Turn,
            name: String::new(),
            keys: Vec::new(),
            text: told.trim().to_string(),
        });
    }
    out
}

/// The answer to `question` from `sources`, when it is a question and a
/// source holds what it asks about. Promises: `None` for a deed; the text
/// is the best sentence of the best source (the question's own words found
/// in it, a rare word counting more than a common one, a name or key the
/// question says counting most) and the sentence after it when both fit in
/// [`ANSWER_CHARS`], naming its subject when the sentences alone do not; a
/// question about what the player did ("did I…", "I gave…") prefers the
/// turns, any other the scenario's own sources.
pub fn answer(question: &str, sources: &[Source], language: &Language) -> Option<Answer> {
    if !is_question(question) {
        return None;
    }
    let asked = asked_stems(question, language);
    if asked.is_empty() {
        return None;
    }
    let lower = question.to_lowercase();
    let about_player_deed = asks_about_own_deed(question);
    let about_someone = asks_for_someone(question);
    // Each sentence of each source is stemmed once, for rarity and scoring.
    // What is known of the player, a person or a faction: each of its
    // sentences is about them, named or not.
    let read: Vec<Vec<HashSet<String>>> = sources
        .iter()
        .map(|s| {
            let about = match s.kind {
                SourceKind::Player | SourceKind::Faction | SourceKind::Person => {
                    stems_of(&s.name, language)
                }
                _ => HashSet::new(),
            };
            sentences_of(&s.text)
                .into_iter()
                .map(|t| &stems_of(t, language) | &about)
                .collect()
        })
        .collect();
    let weights = rarity(&asked, &read);
    let mut best: Option<(f32, usize, &Source, usize)> = None;
    for (rank, (source, stems)) in sources.iter().zip(&read).enumerate() {
        let named = source
            .keys
            .iter()
            .chain(std::iter::once(&source.name))
            .any(|k| !k.trim().is_empty() && contains_word(&lower, k));
        let preferred = match source.kind {
            SourceKind::Turn => about_player_deed,
            // "Who…" is answered by someone: a person, a group, the player.
            SourceKind::Person | SourceKind::Faction | SourceKind::Player => {
                !about_player_deed || about_someone
            }
            _ => !about_player_deed && !about_someone,
        };
        let sentences = sentences_of(&source.text);
        for at in 0..sentences.len() {
            // What would be told is what is weighed: the sentence and the next.
            let span = &stems[at..told_span_end(&sentences, at)];
            let found = found_in(span, &asked, &weights);
            if found == 0.0 && !named {
                continue;
            }
            let score = found + if named { 1.5 } else { 0.0 } + if preferred { 0.5 } else { 0.0 };
            if best.is_none_or(|(s, r, _, _)| score > s || (score == s && rank < r)) {
                best = Some((score, rank, source, at));
            }
        }
    }
    let (score, _, source, at) = best?;
    // A common word alone is chance, unless a name or key said which.
    if score < MIN_SCORE {
        return None;
    }
    Some(Answer {
        text: told(source, at, language),
        about: if source.name.is_empty() {
            source.kind_word()
        } else {
            source.name.clone()
        },
        source: source.kind,
    })
}

/// The least score an answer needs: one word of the question that few
/// sources hold, or a name with a word of what is asked.
const MIN_SCORE: f32 = 1.5;

/// How telling each of `asked` is: the fewer sources (`read`: each one's
/// sentences' stems) hold it, the more
/// (inverse document frequency, 1 for a word in every source).
fn rarity(asked: &[String], read: &[Vec<HashSet<String>>]) -> Vec<f32> {
    let n = read.len().max(1) as f32;
    asked
        .iter()
        .map(|a| {
            let holding = read
                .iter()
                .filter(|sentences| sentences.iter().any(|s| s.contains(a)))
                .count()
                .max(1) as f32;
            1.0 + (n / holding).ln()
        })
        .collect()
}

impl Source {
    fn kind_word(&self) -> String {
        match self.kind {
            SourceKind::Turn => "an earlier turn".into(),
            SourceKind::Scenario => self.name.clone(),
            _ => self.name.clone(),
        }
    }
}

/// Sentence `at` of `source` as told, with the next one when both fit in
/// [`ANSWER_CHARS`]; a person's sentence that does not name them ("He
/// trusts only his brother.") is told after the one before it that does,
/// else told beside their name ([`named`]). At most [`ANSWER_CHARS`]
/// characters.
fn told(source: &Source, at: usize, language: &Language) -> String {
    let sentences = sentences_of(&source.text);
    let pair = |from: usize| told_span(&sentences, from);
    // A lore entry's name is a label for its author, never told.
    let needs_name = !(source.name.is_empty()
        || matches!(
            source.kind,
            SourceKind::Turn | SourceKind::Scenario | SourceKind::Lore
        ));
    let says_name = |t: &str| t.to_lowercase().contains(&source.name.to_lowercase());
    let mut text = pair(at);
    if needs_name && !says_name(&text) && at > 0 && says_name(sentences[at - 1]) {
        // The sentence before says who "he" is.
        let before = pair(at - 1);
        if before.chars().count() <= ANSWER_CHARS {
            text = before;
        }
    }
    if needs_name && !says_name(&text) {
        text = named(&source.name, &text, language);
    }
    narratoria_lexicon::clip_to(&text, ANSWER_CHARS)
}

/// `description` told as a sentence of `name`'s, never as a label and its
/// text: a description that opens as a noun phrase (with one of the
/// language's determiners) set beside the name ("Halvorsen Extraction,
/// the corporation that owns Tithonus."), any other after it, in the
/// sentence that names it ("Jonas Pike. Runs the Silver Dollar.").
fn named(name: &str, description: &str, language: &Language) -> String {
    let first = description.split_whitespace().next().unwrap_or("");
    let lower = first.to_lowercase();
    let opens_a_noun_phrase =
        narratoria_lexicon::vocabulary::words_for(language).is_some_and(|w| {
            let bare = lower.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            w.determiners.contains(bare)
                || w.determiners
                    .iter()
                    .any(|d| d.ends_with('\'') && bare.starts_with(d.as_str()))
        });
    if !opens_a_noun_phrase {
        return format!("{name}. {description}");
    }
    let mut chars = description.chars();
    let lowered: String = chars
        .next()
        .into_iter()
        .flat_map(char::to_lowercase)
        .chain(chars)
        .collect();
    format!("{name}, {lowered}")
}

/// Sentence `at` of `sentences` and the next one when both fit in
/// [`ANSWER_CHARS`].
fn told_span(sentences: &[&str], at: usize) -> String {
    sentences[at..told_span_end(sentences, at)]
        .iter()
        .map(|t| t.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the sentences told from `at` end: after the next one when both
/// fit in [`ANSWER_CHARS`], else after `at`.
fn told_span_end(sentences: &[&str], at: usize) -> usize {
    let first = sentences[at].trim().chars().count();
    match sentences.get(at + 1) {
        Some(next) if first + next.trim().chars().count() < ANSWER_CHARS => at + 2,
        _ => at + 1,
    }
}

/// The stems of what `question` asks about: its words less the stop words,
/// the words it asks with and the words that ask how.
fn asked_stems(question: &str, language: &Language) -> Vec<String> {
    let mut stems: Vec<String> = words_of(question)
        .into_iter()
        .map(|w| w.trim_end_matches("'s").to_string())
        .filter(|w| !w.is_empty() && !asks_with(w) && !is_stop_word(w, language) && !asks_how(w))
        .map(|w| stem(&w, language))
        .collect();
    stems.sort();
    stems.dedup();
    stems
}

/// The stems of `text`'s words.
fn stems_of(text: &str, language: &Language) -> HashSet<String> {
    words_of(text)
        .into_iter()
        .map(|w| stem(w.trim_end_matches("'s"), language))
        .collect()
}

/// The weight of the `asked` stems that occur in the sentences of `span`.
fn found_in(span: &[HashSet<String>], asked: &[String], weights: &[f32]) -> f32 {
    asked
        .iter()
        .zip(weights)
        .filter(|(a, _)| span.iter().any(|s| s.contains(*a)))
        .map(|(_, w)| w)
        .sum()
}

#[cfg(test)]
mod tests;
