//! Echoes the token guard ([`crate::echo::EchoGuard`]) cannot see: a run of
//! words from the texts generation must not copy, written again with other
//! punctuation, case or spacing ("The truth of reality – it" after "the truth
//! of reality - it" tokenizes differently). Words are compared by their
//! letters and digits, lowercased. Streamed text is held back a run's length
//! of words; when a run is completed, the answer ends before that run's first
//! held word, which is never passed on.

use std::collections::HashSet;

/// Stops streamed text at the first run of `n` words copied from the sources.
#[derive(Debug, Clone)]
pub struct WordEcho {
    n: usize,
    runs: HashSet<Vec<String>>,
    /// Text not yet passed on.
    held: String,
    /// The last words already passed on (at most `n − 1`), for runs that
    /// start before the held text.
    passed: Vec<String>,
    stopped: bool,
}

/// A word's letters and digits, lowercased ("Reality," → "reality"); empty
/// for a word of punctuation only.
fn norm(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The words of `text` with their byte offsets, punctuation-only words left out.
fn words(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                let w = norm(&text[s..i]);
                if !w.is_empty() {
                    out.push((s, w));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

impl WordEcho {
    /// A stop for every run of `n` words found in `sources`; `n < 2` (or no
    /// sources) stops nothing.
    pub fn new(n: usize, sources: &[String]) -> WordEcho {
        let mut runs = HashSet::new();
        if n >= 2 {
            for source in sources {
                let ws: Vec<String> = words(source).into_iter().map(|(_, w)| w).collect();
                for run in ws.windows(n) {
                    runs.insert(run.to_vec());
                }
            }
        }
        WordEcho {
            n,
            runs,
            held: String::new(),
            passed: Vec::new(),
            stopped: false,
        }
    }

    /// Takes the next piece; returns the text now certain not to start a
    /// copied run. Promises: once a run is found, [`WordEcho::stopped`] is
    /// true and nothing more is returned.
    pub fn push(&mut self, piece: &str) -> String {
        if self.stopped {
            return String::new();
        }
        self.held.push_str(piece);
        if self.runs.is_empty() {
            return std::mem::take(&mut self.held);
        }
        // Only words followed by white space are whole.
        let complete = words(&self.held)
            .into_iter()
            .filter(|(s, _)| self.held[*s..].contains(char::is_whitespace))
            .collect::<Vec<_>>();
        if let Some(cut) = self.copied_from(&complete) {
            return self.stop_at(cut);
        }
        // Keep the last n − 1 whole words and any unfinished one.
        let keep_from = complete.len().saturating_sub(self.n - 1);
        let Some(&(cut, _)) = complete.get(keep_from) else {
            return String::new();
        };
        self.pass(cut, &complete[..keep_from])
    }

    /// Whether a copied run was found.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The text still held once generation ends, unless it completes a run.
    pub fn finish(&mut self) -> String {
        if self.stopped || self.runs.is_empty() {
            return std::mem::take(&mut self.held);
        }
        let all = words(&self.held);
        if let Some(cut) = self.copied_from(&all) {
            return self.stop_at(cut);
        }
        std::mem::take(&mut self.held)
    }

    /// The byte offset in `held` where the first copied run among `held`'s
    /// `complete` words starts (its first held word).
    fn copied_from(&self, complete: &[(usize, String)]) -> Option<usize> {
        let mut seq: Vec<&String> = self.passed.iter().collect();
        let before = seq.len();
        seq.extend(complete.iter().map(|(_, w)| w));
        for end in self.n..=seq.len() {
            let run: Vec<String> = seq[end - self.n..end]
                .iter()
                .map(|w| (*w).clone())
                .collect();
            if self.runs.contains(&run) {
                let first_held = (end - self.n).max(before) - before;
                return Some(complete.get(first_held).map_or(0, |(s, _)| *s));
            }
        }
        None
    }

    fn stop_at(&mut self, cut: usize) -> String {
        self.stopped = true;
        let out = self.held[..cut].to_string();
        self.held.clear();
        out
    }

    /// Passes on `held[..cut]`, whose whole words are `gone`.
    fn pass(&mut self, cut: usize, gone: &[(usize, String)]) -> String {
        self.passed.extend(gone.iter().map(|(_, w)| w.clone()));
        let excess = self.passed.len().saturating_sub(self.n - 1);
        self.passed.drain(..excess);
        let out = self.held[..cut].to_string();
        self.held.drain(..cut);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(echo: &mut WordEcho, pieces: &[&str]) -> String {
        let mut out: String = pieces.iter().map(|p| echo.push(p)).collect();
        out.push_str(&echo.finish());
        out
    }

    #[test]
    fn a_run_copied_with_other_punctuation_and_case_ends_the_answer_before_it() {
        let mut echo = WordEcho::new(4, &["He said: the truth of reality – it exists.".into()]);
        let out = stream(
            &mut echo,
            &[
                "You nod. ",
                "The Truth ",
                "of reality - ",
                "it exists, he says.",
            ],
        );
        assert_eq!(out, "You nod. ");
        assert!(echo.stopped());
    }

    #[test]
    fn text_without_a_copied_run_passes_whole() {
        let mut echo = WordEcho::new(4, &["the truth of reality it exists".into()]);
        let text = "You find the truth of a different kind, and it exists only here.";
        let pieces: Vec<&str> = text.split_inclusive(' ').collect();
        assert_eq!(stream(&mut echo, &pieces), text);
        assert!(!echo.stopped());
    }

    #[test]
    fn a_run_across_pieces_already_passed_on_cuts_at_its_first_held_word() {
        let mut echo = WordEcho::new(3, &["one two three".into()]);
        let mut out = String::new();
        for p in ["zero ", "one ", "two ", "three ", "four "] {
            out.push_str(&echo.push(p));
        }
        out.push_str(&echo.finish());
        assert_eq!(out, "zero ");
        assert!(echo.stopped());
        assert_eq!(echo.push("more"), "");
    }

    #[test]
    fn no_sources_or_a_small_n_pass_everything_at_once() {
        let mut none = WordEcho::new(8, &[]);
        assert_eq!(none.push("You walk on"), "You walk on");
        let mut small = WordEcho::new(1, &["You walk".into()]);
        assert_eq!(small.push("You walk"), "You walk");
    }
}
