//! The story as the writer reads it (docs/stories.md, "The story stays in the
//! writer's memory"): every earlier turn as an exchange — the player's action,
//! the narrator's answer — oldest first, as many as the writer's profile
//! allows. The prompt only ever grows at its end, so the host's cache reads
//! just the new turn; when the story outgrows its budget, the oldest turns
//! give way several at a time to a summary, and the kept turns are moved in
//! the cache rather than read again.

use narratoria_lexicon::sentence_ends;
use narratoria_protocol::writer::WriterProfile;

use crate::prompt::RecentTurn;

/// One earlier turn as the conversation tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The player's message ("Action: …"; the opening scene's is the
    /// story's start).
    pub asked: String,
    /// The narrator's answer, as told.
    pub answered: String,
}

/// The turns a prompt holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StorySoFar {
    /// What became of the turns that gave way, when some gave way at this
    /// turn: it opens this turn's message, and stays with it.
    pub summary: Option<String>,
    /// The turns kept, each asked as it was when it was played (a turn at
    /// which older turns gave way keeps its summary).
    pub exchanges: Vec<Exchange>,
}

/// Characters per token, counted low so the story never overruns its budget.
const CHARS_PER_TOKEN: usize = 3;

/// What the opening scene (a turn with no action) is answered to.
pub const STORY_START: &str = "Begin the story.";

/// How a summary opens the message it comes with.
pub fn with_summary(summary: &str, asked: &str) -> String {
    format!("Earlier in the story: {summary}\n\n{asked}")
}

impl StorySoFar {
    /// The turns of `recent` (oldest first) that fit `profile`'s story
    /// budget. Promises: the newest turns are kept; turns give way in
    /// blocks, never at the front of what was kept before a block, so a
    /// turn's prompt is the last one's with the turns that gave way taken
    /// out and the new turn added at the end (the host's cache moves the rest
    /// instead of reading it); each turn is told as it was when it was
    /// played, the summary of the turns gone before it included.
    pub fn of(recent: &[RecentTurn], profile: &WriterProfile) -> StorySoFar {
        let budget = profile.story_tokens as usize * CHARS_PER_TOKEN;
        let turn_chars = if profile.most_sentences.is_some_and(|n| n <= 2) {
            SMALL_TURN_CHARS
        } else {
            TURN_CHARS
        };
        let all: Vec<Exchange> = recent
            .iter()
            .map(|t| Exchange {
                asked: match one_line(&t.player, PLAYER_CHARS) {
                    a if a.is_empty() => STORY_START.to_string(),
                    a => format!("Action: {a}"),
                },
                answered: one_line(&t.narrator, turn_chars),
            })
            .collect();
        let n = all.len();
        // Turns give way a block at a time, larger for a larger budget.
        let block = (budget / BLOCK_CHARS).clamp(2, 8);
        let summary_chars = budget / 8;
        let room = budget.saturating_sub(summary_chars);
        // For each turn t (its story: the turns before it), the first turn
        // its prompt held, and the summary its message opened with.
        let mut start = vec![0usize; n + 1];
        let mut summary: Vec<Option<String>> = vec![None; n + 1];
        let cost = |i: usize, summary: &[Option<String>]| {
            all[i].asked.len()
                + all[i].answered.len()
                + EXCHANGE_OVERHEAD
                + summary[i].as_ref().map_or(0, |s| s.len() + 24)
        };
        for t in 1..=n {
            let mut s = start[t - 1];
            let mut held: usize = (s..t).map(|i| cost(i, &summary)).sum();
            while s < t && held > room {
                let until = (s + block).min(t);
                held -= (s..until).map(|i| cost(i, &summary)).sum::<usize>();
                s = until;
            }
            start[t] = s;
            if s > start[t - 1] {
                summary[t] = Some(summary_of(&all[..s], summary_chars)).filter(|s| !s.is_empty());
            }
        }
        let exchanges = (start[n]..n)
            .map(|i| Exchange {
                asked: match &summary[i] {
                    Some(s) => with_summary(s, &all[i].asked),
                    None => all[i].asked.clone(),
                },
                answered: all[i].answered.clone(),
            })
            .collect();
        StorySoFar {
            summary: summary[n].take(),
            exchanges,
        }
    }

    /// The story's own words, for the guards that ground prose in it.
    pub fn text(&self) -> String {
        let mut out = self.summary.clone().unwrap_or_default();
        for e in &self.exchanges {
            out.push('\n');
            out.push_str(&e.asked);
            out.push('\n');
            out.push_str(&e.answered);
        }
        out
    }
}

/// The most characters of one action.
const PLAYER_CHARS: usize = 300;
/// The most characters of one answer told again (a small model's two
/// sentences; a larger model's paragraphs).
const SMALL_TURN_CHARS: usize = 600;
const TURN_CHARS: usize = 4000;
/// The budget for each turn that gives way at once.
const BLOCK_CHARS: usize = 750;
/// A message's chat-template tokens, in characters.
const EXCHANGE_OVERHEAD: usize = 24;

/// The first sentence of each turn that gave way, newest kept within `max`
/// characters, oldest first.
fn summary_of(gone: &[Exchange], max: usize) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0;
    for e in gone.iter().rev() {
        let first = match sentence_ends(&e.answered).first() {
            Some(&end) => e.answered[..end].trim().to_string(),
            None => e.answered.trim().to_string(),
        };
        if first.is_empty() {
            continue;
        }
        if used + first.len() + 1 > max {
            break;
        }
        used += first.len() + 1;
        kept.push(first);
    }
    kept.reverse();
    kept.join(" ")
}

fn one_line(s: &str, max: usize) -> String {
    narratoria_lexicon::clip_after(&s.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_protocol::writer::{AnswerLength, WriterProfile};

    fn turns(n: usize) -> Vec<RecentTurn> {
        (0..n)
            .map(|i| RecentTurn {
                player: if i == 0 {
                    String::new()
                } else {
                    format!("I do thing {i}")
                },
                narrator: format!("Turn {i} happens. {}", "More words follow here. ".repeat(8)),
            })
            .collect()
    }

    fn small() -> WriterProfile {
        WriterProfile::local(Some(135_000_000), 4096, AnswerLength::Medium)
    }

    #[test]
    fn a_young_story_is_told_whole_opening_scene_first() {
        let s = StorySoFar::of(&turns(3), &small());
        assert_eq!(s.summary, None);
        assert_eq!(s.exchanges.len(), 3);
        assert_eq!(s.exchanges[0].asked, STORY_START);
        assert_eq!(s.exchanges[1].asked, "Action: I do thing 1");
        assert!(s.exchanges[2].answered.starts_with("Turn 2 happens."));
    }

    #[test]
    fn a_story_told_on_only_loses_turns_at_its_front_and_grows_at_its_end() {
        let profile = small();
        let budget = profile.story_tokens as usize * CHARS_PER_TOKEN;
        let mut shifts = 0;
        let mut before = StorySoFar::of(&turns(1), &profile);
        for n in 2..80 {
            let now = StorySoFar::of(&turns(n), &profile);
            let held = now.text().len() + now.summary.as_ref().map_or(0, String::len);
            assert!(held <= budget, "turn {n}: {held} of {budget}");
            // The turn played last is told as it was asked, summary and all.
            let last = now.exchanges.last().unwrap();
            let asked = format!("Action: I do thing {}", n - 1);
            match &before.summary {
                Some(s) => assert_eq!(last.asked, with_summary(s, &asked)),
                None => assert_eq!(last.asked, asked),
            }
            // What the last prompt held, its turn added: the new one is a
            // part of it from some turn on (turns give way only at the front).
            let mut then = before.exchanges.clone();
            then.push(last.clone());
            assert!(then.ends_with(&now.exchanges), "turn {n}");
            if now.exchanges.len() < then.len() {
                shifts += 1;
                assert!(
                    now.summary.as_deref().unwrap().contains("happens."),
                    "turn {n}"
                );
            } else {
                assert_eq!(now.summary, None, "turn {n}");
            }
            before = now;
        }
        // Turns give way in blocks: most turns only add one exchange.
        assert!(shifts > 0 && shifts < 80 / 3, "{shifts} shifts in 80 turns");
    }

    #[test]
    fn a_larger_writer_holds_more_of_the_story() {
        let medium = WriterProfile::local(Some(1_500_000_000), 8192, AnswerLength::Medium);
        let small_kept = StorySoFar::of(&turns(60), &small()).exchanges.len();
        let medium_kept = StorySoFar::of(&turns(60), &medium).exchanges.len();
        assert!(
            medium_kept > small_kept * 2,
            "{medium_kept} vs {small_kept}"
        );
    }

    #[test]
    fn no_budget_leaves_no_turn_and_no_panic() {
        let none = WriterProfile::local(Some(2_000_000_000), 256, AnswerLength::Medium);
        let s = StorySoFar::of(&turns(5), &none);
        assert!(s.exchanges.is_empty());
    }
}
