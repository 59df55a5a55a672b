//! `retells` (needs the language's words): the model's own words telling an
//! earlier turn's again in another shape. A way of speaking ("you're left
//! with the") once two earlier turns told it; a clause beginning as an
//! earlier one (its first four words, two of them its own: "you're not sure
//! if", seven turns of twelve; or all of a shorter one: "the light flickers
//! again"); a clause whose three words of its own or more all come from
//! one earlier clause ("the light spills out and illuminates your
//! reflection"); a clause an earlier turn told word for word ("…, and
//! you're not alone." closed nine turns): a first clause is refused, a
//! later one cut.

use std::collections::{HashMap, HashSet};

use super::read::{clause_words, clauses, words_of};
use super::repeats::SAME_RUN_WORDS;
use super::words::Words;
use super::{Candidate, Guard, Story};
use crate::sentences::sentences_of;

/// How many earlier turns make a way of speaking a loop.
const SAME_PHRASING_TURNS: usize = 2;

/// How many first words make two clauses start alike.
const SAME_CLAUSE_START_WORDS: usize = 4;

/// How many words of its own make a clause that may not retell an earlier
/// turn's: fewer ("the door opens") come back in any story.
const RETOLD_WORDS: usize = 3;

#[derive(Debug)]
pub struct Retells(pub &'static Words);

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

impl Retells {
    fn earlier(&self, story: &Story) -> Earlier {
        let w = self.0;
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
            read.texts.extend(
                told.map(|(_, words)| words)
                    .filter(|words| words.len() >= 2),
            );
        }
        read
    }
}

impl Guard for Retells {
    fn name(&self) -> &'static str {
        "retells"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        if !c.own() {
            return false;
        }
        let earlier = self.earlier(c.story);
        let phrased = |run: &[String]| {
            let turns = earlier.phrasings.get(run).copied().unwrap_or(0);
            turns >= SAME_PHRASING_TURNS
        };
        let retold = |clause: &Vec<String>| {
            let own = self.0.own_of(clause);
            clause.get(..SAME_CLAUSE_START_WORDS).is_some_and(phrased)
                || earlier.starts.iter().any(|start| clause.starts_with(start))
                || (own.len() >= RETOLD_WORDS && earlier.own.iter().any(|t| own.is_subset(t)))
        };
        c.words().windows(SAME_RUN_WORDS).any(phrased)
            || clauses(c.text).iter().any(retold)
            || clause_words(c.text)
                .first()
                .is_some_and(|(_, first)| earlier.texts.contains(first))
    }

    fn cuts(&self, c: &Candidate) -> Option<usize> {
        let earlier = self.earlier(c.story);
        clause_words(c.text)
            .into_iter()
            .find(|(joint, words)| *joint > 0 && earlier.texts.contains(words))
            .map(|(joint, _)| joint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guards::testing::full;
    use crate::guards::words::english;

    /// The starts no later clause may begin with, of `text`'s clauses of four words or more.
    fn starts_of(text: &str) -> Vec<Vec<String>> {
        let story = Story {
            earlier: vec![text.into()],
            ..Story::default()
        };
        let starts = Retells(english()).earlier(&story).starts;
        let starts = starts
            .into_iter()
            .filter(|s| s.len() == SAME_CLAUSE_START_WORDS);
        starts.collect()
    }

    #[test]
    fn a_clause_an_earlier_turn_told_word_for_word_is_not_told_again() {
        let told = |earlier: &str, answer: &str| {
            let mut s = full()
                .told_before([earlier])
                .opened_with("You light a fire, and");
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
        let mut s = full().told_before(once).opened_with("You sit down, and");
        assert_eq!(
            s.push(" you are in a room of old maps. "),
            " you are in a room of old maps."
        );
        let twice = [
            "You look up, and you are in a room with a fire.",
            "You wait, and you are in a room by the ford.",
        ];
        let mut s = full().told_before(twice).opened_with("You sit down, and");
        assert_eq!(s.push(" you are in a room of old maps. "), "");
        // Unless it is the model's last chance to tell the turn at all.
        let mut s = full()
            .told_before(twice)
            .opened_with("You sit down, and")
            .last_chance();
        assert_eq!(
            s.push(" you are in a room of old maps. "),
            " you are in a room of old maps."
        );
    }

    #[test]
    fn a_clause_may_not_start_as_one_of_an_earlier_turn() {
        let earlier = ["You try to slip upstairs, but it does not work, and you're not sure if it's the right thing to do."];
        let mut s = full()
            .told_before(earlier)
            .opened_with("You try to punch the ferryman, but you miss, and");
        assert_eq!(s.push(" you're not sure if he will forgive you. "), "");
        // A clause of function words and one other is a way of speaking.
        let mut s = full()
            .told_before(["You wait, and you are in a room with a fire."])
            .opened_with("You sit down, and");
        assert_eq!(
            s.push(" you are in a hall of maps. "),
            " you are in a hall of maps."
        );
        // One that is function words but one, once two earlier turns began with it.
        let left = [
            "You try, but you miss, and you're left with the door's own end.",
            "You climb, and you make it, and you're left with the lamp room's end.",
        ];
        let mut s = full()
            .told_before(left)
            .opened_with("You run, but you are too slow, and");
        assert_eq!(s.push(" you're left with the shore's end. "), "");
        let mut s = full()
            .told_before(left[..1].iter().copied())
            .opened_with("You run, but you are too slow, and");
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
            let mut s = full()
                .told_before(earlier)
                .opened_with("You wonder what you remember about the keeper, and");
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
            let mut s = full().told_before(earlier).opened_with(
                "You wonder what you remember about the keeper, but nothing comes to mind, and",
            );
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
