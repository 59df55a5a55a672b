//! `repeats`: the model telling an earlier turn again. In any language, a
//! later sentence starting as one of an earlier turn's ("You are in a dark
//! room, …" in four turns of ten), or the model's own words holding a run
//! of an earlier turn's narration or of the rules' words for this turn
//! ("…, and the tavern is in a fantasy world"). For a small writer, where
//! the language has words, also in another shape: a way of speaking two
//! turns told ("you're left with the"), a clause beginning as an earlier
//! one ("you're not sure if", seven turns of twelve; "the light flickers
//! again"), one whose own words all come from an earlier clause ("the
//! light spills out and illuminates your reflection"), or one told word for
//! word ("…, and you're not alone."): a first clause is refused, a later
//! one cut. In any language, too, a sentence that is only the start of one
//! already told ("You are." after "You are seen where you would rather not
//! have been seen."): a copy the host's echo ban broke off, which says
//! nothing.

use std::collections::{HashMap, HashSet};

use narratoria_lexicon::sentences_of;

use super::{Candidate, Guard, Story, Words};
use narratoria_lexicon::words::{clause_words, clauses, words_of};

/// How many earlier turns the guard reads: the whole story would refuse
/// every phrase a long story ever used. (As many as the planner is told,
/// by choice rather than by rule: the two may part.)
pub const TURNS_READ: usize = 6;

/// How many first words make two sentences start alike.
const SAME_START_WORDS: usize = 5;

/// How many words in a row make a repeat where the language's function
/// words are known (a run with two words of its own), and where not.
const SAME_RUN_WORDS: usize = 5;
const BARE_RUN_WORDS: usize = 8;

/// How many earlier turns make a way of speaking a loop.
const SAME_PHRASING_TURNS: usize = 2;

/// How many first words make two clauses start alike.
const SAME_CLAUSE_START_WORDS: usize = 4;

/// How many words of its own make a clause that may not retell an earlier
/// turn's: fewer ("the door opens") come back in any story.
const RETOLD_WORDS: usize = 3;

#[derive(Debug)]
pub struct Repeats {
    /// The story's language's words, where it has them.
    pub words: Option<&'static Words>,
    /// The same, where retellings in another shape count too.
    pub retellings: Option<&'static Words>,
}

impl Repeats {
    /// Whether the model's own `c` retells an earlier turn in another shape.
    fn retells(&self, w: &Words, c: &Candidate) -> bool {
        let earlier = earlier(w, c.story);
        let phrased = |run: &[String]| {
            let turns = earlier.phrasings.get(run).copied().unwrap_or(0);
            turns >= SAME_PHRASING_TURNS
        };
        let retold = |clause: &Vec<String>| {
            let own = w.own_of(clause);
            clause.get(..SAME_CLAUSE_START_WORDS).is_some_and(phrased)
                || earlier.starts.iter().any(|start| clause.starts_with(start))
                || (own.len() >= RETOLD_WORDS && earlier.own.iter().any(|t| own.is_subset(t)))
        };
        let first = clause_words(c.text).swap_remove(0).1;
        c.words().windows(SAME_RUN_WORDS).any(phrased)
            || clauses(c.text).iter().any(retold)
            || earlier.texts.contains(&first)
    }
}

impl Guard for Repeats {
    fn name(&self) -> &'static str {
        "repeats"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        let words = c.words();
        let start = words.get(..SAME_START_WORDS);
        let starts_alike = c.later()
            && c.story.earlier.iter().any(|text| {
                sentences_of(text)
                    .into_iter()
                    .any(|s| start.is_some_and(|start| words_of(s).starts_with(start)))
            });
        let n = self.words.map_or(BARE_RUN_WORDS, |_| SAME_RUN_WORDS);
        let told = c.story.earlier.iter().chain(&c.story.decided);
        let told: Vec<Vec<String>> = told.map(|t| words_of(t)).collect();
        let repeats = |run: &[String]| {
            self.words.is_none_or(|w| w.says_something(run))
                && told.iter().any(|t| t.windows(n).any(|r| r == run))
        };
        let retells = || self.retellings.is_some_and(|w| self.retells(w, c));
        starts_alike
            || broken_off(c, &words)
            || (c.own() && (words.windows(n).any(repeats) || retells()))
    }

    fn cuts(&self, c: &Candidate) -> Option<usize> {
        let earlier = earlier(self.retellings?, c.story);
        clause_words(c.text)
            .into_iter()
            .find(|(joint, words)| *joint > 0 && earlier.texts.contains(words))
            .map(|(joint, _)| joint)
    }
}

/// Whether `words` (those of `c`, two or more) are only the start of a
/// sentence told before: in the answer so far, the rules' words for this
/// turn, or an earlier turn.
fn broken_off(c: &Candidate, words: &[String]) -> bool {
    if words.len() < 2 {
        return false;
    }
    let told = std::iter::once(c.before)
        .chain(c.story.decided.iter().map(String::as_str))
        .chain(c.story.earlier.iter().map(String::as_str));
    told.flat_map(sentences_of).any(|sentence| {
        let whole = words_of(sentence);
        whole.len() > words.len() && whole.starts_with(words)
    })
}

/// The earlier turns, read for retelling.
#[derive(Default)]
struct Earlier {
    /// Runs and clause starts of function words but one, with how many
    /// turns told each.
    phrasings: HashMap<Vec<String>, usize>,
    /// What no clause may begin with.
    starts: Vec<Vec<String>>,
    /// The words of their own of each clause holding [`RETOLD_WORDS`].
    own: Vec<HashSet<String>>,
    /// Their clauses of two words or more, word for word.
    texts: HashSet<Vec<String>>,
}

/// The earlier turns of `story`, read for retelling in `w`.
fn earlier(w: &Words, story: &Story) -> Earlier {
    let mut read = Earlier::default();
    for text in &story.earlier {
        let runs = words_of(text);
        let runs = runs
            .windows(SAME_RUN_WORDS)
            .filter(|run| !w.says_something(run));
        let mut phrasings: HashSet<Vec<String>> = runs.map(<[String]>::to_vec).collect();
        for clause in clauses(text) {
            let own_words = |words: &[String]| words.iter().filter(|x| w.is_own(x)).count();
            let own = w.own_of(&clause);
            if own.len() >= RETOLD_WORDS {
                read.own.push(own);
            }
            if let Some(start) = clause.get(..SAME_CLAUSE_START_WORDS) {
                match own_words(start) {
                    0 => {}
                    1 => {
                        phrasings.insert(start.to_vec());
                    }
                    _ => read.starts.push(start.to_vec()),
                }
            }
            let covered = read.starts.last().is_some_and(|s| clause.starts_with(s));
            if clause.len() >= 3 && own_words(&clause) >= 2 && !covered {
                read.starts.push(clause);
            }
        }
        for run in phrasings {
            *read.phrasings.entry(run).or_default() += 1;
        }
        let told = sentences_of(text).into_iter().flat_map(clause_words);
        let told = told
            .map(|(_, words)| words)
            .filter(|words| words.len() >= 2);
        read.texts.extend(told);
    }
    read
}

#[cfg(test)]
mod tests {
    use narratoria_lexicon::Language;
    use narratoria_protocol::writer::WriterProfile;

    use super::*;
    use crate::guards::testing::{asked, full, opened, small, told};
    use crate::guards::Asked;
    use crate::guards::Policy;
    use crate::sentences::SentenceStream;
    use narratoria_lexicon::vocabulary::english;

    #[test]
    fn a_later_sentence_that_starts_like_an_earlier_turns_is_not_told() {
        let earlier = "You step in, and it is dark. You are in a dark room with two people.";
        let tell = |answer: &str| {
            let mut s = full(Story {
                earlier: vec![earlier.into()],
                text: earlier.into(),
                ..Story::default()
            });
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            text
        };
        assert_eq!(
            tell("You force the door, but it holds. You are in a dark room, and they stare."),
            "You force the door, but it holds."
        );
        assert_eq!(
            tell("You force the door, but it holds. Two people stare at you."),
            "You force the door, but it holds. Two people stare at you."
        );
        // The rules' opening sentence is always told, however it starts.
        assert_eq!(
            tell("You step in, and it is dark again."),
            "You step in, and it is dark again."
        );
    }

    #[test]
    fn the_models_own_words_do_not_repeat_an_earlier_turns() {
        let earlier = "You run out, and the tavern is in a fantasy world.";
        let tell = |answer: &str| {
            let mut s = full(Story {
                earlier: vec![earlier.into()],
                ..opened("You hide in an alley, and")
            });
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            (text, s.turned_down())
        };
        assert_eq!(
            tell(" the tavern is in a fantasy world."),
            (String::new(), true)
        );
        assert_eq!(
            tell(" rain drips from the eaves. The tavern is in a fantasy world again."),
            (" rain drips from the eaves.".to_string(), false)
        );
        // Four words in a row are not a repeat.
        assert_eq!(
            tell(" the tavern is in sight."),
            (" the tavern is in sight.".to_string(), false)
        );
    }

    #[test]
    fn the_rules_words_for_the_outcome_are_not_told_again() {
        let opening =
            "You force the rusted door open, and it goes better than you could have hoped:";
        let told = |answer: &str| {
            let mut s = full(Story {
                decided: vec![
                    "Force the rusted door open: a triumph — it succeeds brilliantly.".into(),
                ],
                ..opened(opening)
            });
            s.push(answer);
            s.finish();
            s.text().to_string()
        };
        assert_eq!(
            told(" a triumph — it succeeds brilliantly, you are now the lighthouse."),
            opening
        );
        assert_eq!(
            told(" the door bursts wide, and salt wind floods the stair."),
            format!("{opening} the door bursts wide, and salt wind floods the stair.")
        );
    }

    /// Kept from copying the rules' words on, a writer ended the copy where
    /// it was stopped: "You are." told nothing.
    #[test]
    fn a_copy_broken_off_is_not_told() {
        let opening = "You try to bluff Augie, but they do not believe you. You are seen where \
                       you would rather not have been seen.";
        for language in ["en", "fr"] {
            let policy = Policy::for_writer(&small(), &Language::parse(language).unwrap());
            let told = |answer: &str| {
                let mut s = SentenceStream::new(policy.clone(), opened(opening), Asked::Last);
                s.push(answer);
                s.finish();
                s.text().to_string()
            };
            assert_eq!(told(" You are."), opening, "{language}");
            assert_eq!(
                told(" You are cold."),
                format!("{opening} You are cold."),
                "a sentence of its own starting alike is told ({language})"
            );
        }
    }

    #[test]
    fn in_a_language_without_words_a_longer_run_repeats() {
        // French words read under a language that ships none.
        let french = Language::parse("ja").unwrap();
        let policy = Policy::for_writer(&small(), &french);
        let earlier = "Vous entrez, et la pluie tombe sur les toits de la vieille ville.";
        let grounded = |pieces: &[&str]| {
            let story = Story {
                earlier: vec![earlier.into()],
                text: pieces.concat(),
                ..Story::default()
            };
            told(
                SentenceStream::new(policy.clone(), story, Asked::First),
                pieces,
            )
        };
        // Seven words of it are no repeat; eight are.
        let seven = "Vous attendez. La pluie tombe sur les toits de Paris.";
        assert_eq!(grounded(&[seven]), seven);
        let eight = "La pluie tombe sur les toits de la place.";
        assert_eq!(grounded(&["Vous attendez. ", eight]), "Vous attendez.");
        // A hosted writer is held to it too.
        let hosted =
            Policy::for_writer(&WriterProfile::hosted(128_000, Default::default()), &french);
        assert!(hosted.names().contains(&"repeats"));
    }

    /// The starts no later clause may begin with, of `text`'s clauses of
    /// four words or more.
    fn starts_of(text: &str) -> Vec<Vec<String>> {
        let story = Story {
            earlier: vec![text.into()],
            ..Story::default()
        };
        let starts = earlier(english(), &story).starts;
        let starts = starts
            .into_iter()
            .filter(|s| s.len() == SAME_CLAUSE_START_WORDS);
        starts.collect()
    }

    #[test]
    fn a_clause_an_earlier_turn_told_word_for_word_is_not_told_again() {
        let told = |earlier: &str, answer: &str| {
            let mut s = full(Story {
                earlier: vec![earlier.into()],
                ..opened("You light a fire, and")
            });
            s.push(answer);
            s.finish();
            s.text().to_string()
        };
        let earlier = "You wonder what the light is, and you're not alone.";
        assert_eq!(told(earlier, " you're not alone."), "You light a fire, and");
        assert_eq!(
            told(earlier, " you're warm."),
            "You light a fire, and you're warm."
        );
        assert_eq!(
            told("You wave, and the man waves back.", " you're not alone."),
            "You light a fire, and you're not alone."
        );
        // A later clause said before is cut.
        assert_eq!(
            told(earlier, " the smoke rises, and you're not alone."),
            "You light a fire, and the smoke rises."
        );
    }

    #[test]
    fn a_way_of_speaking_may_come_back_once_but_not_turn_after_turn() {
        let once = ["You look up, and you are in a room with a fire."];
        let mut s = full(Story {
            earlier: once.into_iter().map(String::from).collect(),
            ..opened("You sit down, and")
        });
        assert_eq!(
            s.push(" you are in a room of old maps. "),
            " you are in a room of old maps."
        );
        let twice = [
            "You look up, and you are in a room with a fire.",
            "You wait, and you are in a room by the ford.",
        ];
        let mut s = full(Story {
            earlier: twice.into_iter().map(String::from).collect(),
            ..opened("You sit down, and")
        });
        assert_eq!(s.push(" you are in a room of old maps. "), "");
        // Unless it is the model's last chance to tell the turn at all.
        let mut s = asked(
            Story {
                earlier: twice.into_iter().map(String::from).collect(),
                ..opened("You sit down, and")
            },
            Asked::Last,
        );
        assert_eq!(
            s.push(" you are in a room of old maps. "),
            " you are in a room of old maps."
        );
    }

    #[test]
    fn a_clause_may_not_start_as_one_of_an_earlier_turn() {
        let earlier = ["You try to slip upstairs, but it does not work, and you're not sure if it's the right thing to do."];
        let mut s = full(Story {
            earlier: earlier.into_iter().map(String::from).collect(),
            ..opened("You try to punch the ferryman, but you miss, and")
        });
        assert_eq!(s.push(" you're not sure if he will forgive you. "), "");
        // A clause of function words and one other is a way of speaking.
        let mut s = full(Story {
            earlier: vec!["You wait, and you are in a room with a fire.".into()],
            ..opened("You sit down, and")
        });
        assert_eq!(
            s.push(" you are in a hall of maps. "),
            " you are in a hall of maps."
        );
        // One that is function words but one, once two earlier turns began with it.
        let left = [
            "You try, but you miss, and you're left with the door's own end.",
            "You climb, and you make it, and you're left with the lamp room's end.",
        ];
        let mut s = full(Story {
            earlier: left.into_iter().map(String::from).collect(),
            ..opened("You run, but you are too slow, and")
        });
        assert_eq!(s.push(" you're left with the shore's end. "), "");
        let mut s = full(Story {
            earlier: vec![left[0].into()],
            ..opened("You run, but you are too slow, and")
        });
        assert_eq!(
            s.push(" you're left with the shore's end. "),
            " you're left with the shore's end."
        );
        assert_eq!(
            starts_of("You sit down, and the fire dies. Rain falls on the roof."),
            [
                ["you", "sit", "down", "and"],
                ["rain", "falls", "on", "the"]
            ]
        );
        // Being and perceiving are not a clause's own words.
        assert!(starts_of("The fog lifts, and you can see the sea.")
            .iter()
            .all(|start| start[0] != "you"));
    }

    #[test]
    fn a_clause_may_not_begin_with_a_whole_clause_of_an_earlier_turn() {
        let earlier = ["You step into the lighthouse and call out, and the light flickers."];
        let tell = |answer: &str| {
            let mut s = full(Story {
                earlier: earlier.into_iter().map(String::from).collect(),
                ..opened("You wonder what you remember about the keeper, and")
            });
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            text
        };
        assert_eq!(tell(" the light flickers again."), "");
        assert_eq!(tell(" the light flickers."), "");
        // Another clause of the same words, or a short one, is no loop.
        assert_eq!(
            tell(" the light is out, and it flickers."),
            " the light is out, and it flickers."
        );
    }

    #[test]
    fn a_clause_may_not_retell_an_earlier_turns_in_other_words() {
        // Played: the third turn told the second's light again.
        let earlier =
            ["You force the rusted door open, and a beam of light spills out, illuminating your reflection."];
        let tell = |answer: &str| {
            let mut s = full(Story {
                earlier: earlier.into_iter().map(String::from).collect(),
                ..opened(
                    "You wonder what you remember about the keeper, but nothing comes to mind, and",
                )
            });
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            text
        };
        assert_eq!(
            tell(" the light spills out and illuminates your reflection."),
            ""
        );
        assert_eq!(
            tell(" the wind howls. Your reflection spills light out. "),
            " the wind howls."
        );
        // New words, or a short clause of told ones, are no retelling.
        assert_eq!(
            tell(" the keeper's lamp hangs cold above the stairs."),
            " the keeper's lamp hangs cold above the stairs."
        );
        assert_eq!(tell(" the light dims."), " the light dims.");
    }
}
