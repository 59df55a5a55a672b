//! Which of a context's cached tokens a new prompt can keep (docs/stories.md,
//! "The story stays in the writer's memory"). The common start is kept where
//! it is; after it, runs of at least `min_run` cached tokens that the prompt
//! goes on with — the story's kept turns after older ones gave way — are
//! moved back to close the gap, as llama-server's cache reuse and KoboldCpp's
//! context shift do. What follows is read. Runs only ever move towards the
//! start and nothing is read before a moved run: llama.cpp reads a sequence's
//! new tokens only after every position its cache holds. Pure arithmetic on
//! token ids: the worker applies the plan to the llama.cpp cache.

use std::collections::HashMap;
use std::hash::Hash;
use std::ops::Range;

/// A run of cached tokens that moves: the tokens at positions
/// `from..from + len` now belong at `to..to + len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub from: usize,
    pub to: usize,
    pub len: usize,
}

impl Move {
    /// How far the run moves (negative: towards the start).
    pub fn delta(&self) -> i64 {
        self.to as i64 - self.from as i64
    }
}

/// How to turn the cache into the new prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reuse {
    /// Cached tokens kept in place: the prompt's first `kept` tokens.
    pub kept: usize,
    /// Runs moved, in prompt order (both `from` and `to` increase).
    pub moves: Vec<Move>,
    /// Spans of the prompt to read, in order; together with `kept` and the
    /// moves they cover the prompt exactly once, and the last one always
    /// ends at the prompt's end (its logits are needed).
    pub read: Vec<Range<usize>>,
}

impl Reuse {
    /// Prompt tokens served from the cache.
    pub fn served(&self) -> usize {
        self.kept + self.moves.iter().map(|m| m.len).sum::<usize>()
    }

    /// Cached positions no move or the kept start covers: to drop first.
    pub fn dropped(&self, cached_len: usize) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut at = self.kept;
        for m in &self.moves {
            if m.from > at {
                out.push(at..m.from);
            }
            at = m.from + m.len;
        }
        if at < cached_len {
            out.push(at..cached_len);
        }
        out
    }

    /// The moves, each towards the start, in the order they are applied.
    pub fn move_order(&self) -> Vec<Move> {
        self.moves.clone()
    }
}

/// Plans the reuse of `cached` for `prompt` (`prompt` not empty). With
/// `shift` false (a model whose cache cannot move), only the common start
/// is kept.
pub fn plan<T: Eq + Hash + Copy>(cached: &[T], prompt: &[T], min_run: usize, shift: bool) -> Reuse {
    let last = prompt.len().saturating_sub(1);
    // The last token is always read again: its logits start the answer.
    let kept = cached
        .iter()
        .zip(prompt)
        .take_while(|(a, b)| a == b)
        .count()
        .min(last);
    let mut moves = Vec::new();
    let min_run = min_run.max(1);
    if shift && kept < cached.len() && kept + min_run <= last {
        // Where each run of `min_run` cached tokens after the kept start begins.
        let mut starts: HashMap<&[T], Vec<usize>> = HashMap::new();
        for (i, w) in cached[kept..].windows(min_run).enumerate() {
            starts.entry(w).or_default().push(kept + i);
        }
        let (mut c, mut q) = (kept, kept);
        // Only where the prompt goes on: a run found after tokens still to
        // read would need them read before cells already in place.
        while q + min_run <= last {
            let found = starts
                .get(&prompt[q..q + min_run])
                .and_then(|at| at.iter().copied().find(|&from| from >= c));
            let Some(from) = found else {
                break;
            };
            let mut len = min_run;
            while from + len < cached.len()
                && q + len < last
                && cached[from + len] == prompt[q + len]
            {
                len += 1;
            }
            moves.push(Move { from, to: q, len });
            c = from + len;
            q += len;
        }
    }
    let mut read = Vec::new();
    let mut at = kept;
    for m in &moves {
        if m.to > at {
            read.push(at..m.to);
        }
        at = m.to + m.len;
    }
    read.push(at..prompt.len());
    Reuse { kept, moves, read }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    /// Rebuilds the prompt from the cache as the plan says, reading the rest
    /// from the prompt: what the worker's cache holds afterwards.
    fn applied(cached: &[char], prompt: &[char], r: &Reuse) -> Vec<char> {
        let mut out = vec!['?'; prompt.len()];
        out[..r.kept].copy_from_slice(&cached[..r.kept]);
        for m in &r.moves {
            out[m.to..m.to + m.len].copy_from_slice(&cached[m.from..m.from + m.len]);
        }
        for span in &r.read {
            out[span.clone()].copy_from_slice(&prompt[span.clone()]);
        }
        out
    }

    #[test]
    fn a_story_told_on_reads_only_its_new_turn() {
        let cached = toks("SYSTEM turn1 turn2 answer2");
        let prompt = toks("SYSTEM turn1 turn2 answer2 turn3");
        let r = plan(&cached, &prompt, 4, true);
        assert_eq!(r.kept, cached.len());
        assert!(r.moves.is_empty());
        assert_eq!(r.read, vec![cached.len()..prompt.len()]);
    }

    #[test]
    fn older_turns_giving_way_move_the_rest_instead_of_reading_it() {
        let cached = toks("SYSTEM|old turns here|kept turns one two three|answer");
        let prompt = toks("SYSTEM|kept turns one two three|answer|new turn");
        let r = plan(&cached, &prompt, 6, true);
        assert_eq!(r.kept, "SYSTEM|".len());
        assert_eq!(r.moves.len(), 1);
        let m = r.moves[0];
        assert_eq!(m.from, "SYSTEM|old turns here|".len());
        assert_eq!(m.to, r.kept);
        assert!(m.delta() < 0);
        assert_eq!(applied(&cached, &prompt, &r), prompt);
        assert!(r.served() > prompt.len() / 2, "{r:?}");
        assert_eq!(r.dropped(cached.len())[0], r.kept..m.from);
    }

    #[test]
    fn what_comes_after_new_words_is_read_not_moved() {
        // llama.cpp reads a sequence's tokens only after every position it
        // holds: a run behind new words cannot be moved.
        let cached = toks("SYSTEM|turn a|turn b|turn c is long enough|answer c");
        let prompt = toks("SYSTEM|Earlier: a, b.|turn c is long enough|answer c|turn d");
        let r = plan(&cached, &prompt, 8, true);
        assert!(r.moves.is_empty(), "{r:?}");
        assert_eq!(r.read, vec![r.kept..prompt.len()]);
        assert_eq!(applied(&cached, &prompt, &r), prompt);
    }

    #[test]
    fn the_last_token_is_always_read_again() {
        let cached = toks("same prompt");
        let r = plan(&cached, &cached, 2, true);
        assert_eq!(r.kept, cached.len() - 1);
        assert_eq!(r.read, vec![cached.len() - 1..cached.len()]);
    }

    #[test]
    fn without_shifting_only_the_common_start_is_kept() {
        let cached = toks("SYSTEM|old|kept kept kept kept");
        let prompt = toks("SYSTEM|kept kept kept kept|new");
        let r = plan(&cached, &prompt, 4, false);
        assert!(r.moves.is_empty());
        assert_eq!(r.read, vec![r.kept..prompt.len()]);
    }

    #[test]
    fn several_gaps_close_one_after_another_each_run_moving_back() {
        let cached = toks("S|xxxxxxxx|AAAAAAAA|yyyy|BBBBBBBB|");
        let prompt = toks("S|AAAAAAAA|BBBBBBBB|end");
        let r = plan(&cached, &prompt, 6, true);
        assert_eq!(applied(&cached, &prompt, &r), prompt);
        assert_eq!(r.moves.len(), 2, "{r:?}");
        assert!(r.moves.iter().all(|m| m.delta() < 0));
        assert_eq!(r.read.len(), 1);
        // Simulate the cache: each move shifts the cells of its source range;
        // no cell is caught twice and none lands on another.
        let mut cells: Vec<(usize, char)> = (0..cached.len()).map(|i| (i, cached[i])).collect();
        for span in r.dropped(cached.len()) {
            cells.retain(|(p, _)| !span.contains(p));
        }
        for m in r.move_order() {
            for (p, _) in cells.iter_mut() {
                if (m.from..m.from + m.len).contains(p) {
                    *p = (*p as i64 + m.delta()) as usize;
                }
            }
        }
        let mut out = vec!['?'; prompt.len()];
        for span in &r.read {
            out[span.clone()].copy_from_slice(&prompt[span.clone()]);
        }
        for (p, t) in cells {
            assert_eq!(out[p], '?', "two cells at {p}");
            out[p] = t;
        }
        assert_eq!(out, prompt);
    }

    #[test]
    fn an_unrelated_prompt_is_read_whole() {
        let r = plan(&toks("abcdefgh"), &toks("zyxwvuts"), 3, true);
        assert_eq!(r.kept, 0);
        assert!(r.moves.is_empty());
        assert_eq!(r.read, vec![0..8]);
    }
}
