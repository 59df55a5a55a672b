//! A guard against echoes: generation may not repeat any run of `n` tokens
//! that appears in the texts it must not copy (the player's words, the last
//! narration, the instructions). It works on token ids, so it needs no model.

use std::collections::{HashMap, HashSet};

/// Which tokens would complete a forbidden run of `n` tokens.
#[derive(Debug, Clone, Default)]
pub struct EchoGuard {
    n: usize,
    /// The first `n − 1` tokens of each forbidden run → the tokens that may not follow.
    next: HashMap<Vec<i32>, HashSet<i32>>,
}

impl EchoGuard {
    /// A guard forbidding every run of `n` tokens found in `sources`. `n < 2`
    /// (or no sources) forbids nothing.
    pub fn new(n: usize, sources: &[Vec<i32>]) -> EchoGuard {
        let mut next: HashMap<Vec<i32>, HashSet<i32>> = HashMap::new();
        if n >= 2 {
            for source in sources {
                for run in source.windows(n) {
                    next.entry(run[..n - 1].to_vec())
                        .or_default()
                        .insert(run[n - 1]);
                }
            }
        }
        EchoGuard { n, next }
    }

    /// The tokens that may not come next after `written` (the answer so far).
    pub fn banned(&self, written: &[i32]) -> impl Iterator<Item = i32> + '_ {
        let head = (self.n >= 2 && written.len() + 1 >= self.n)
            .then(|| &written[written.len() + 1 - self.n..]);
        head.and_then(|h| self.next.get(h))
            .into_iter()
            .flat_map(|set| set.iter().copied())
    }

    /// Whether the guard forbids anything.
    pub fn is_empty(&self) -> bool {
        self.next.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_completing_a_copied_run_is_banned() {
        let g = EchoGuard::new(3, &[vec![1, 2, 3, 4]]);
        assert_eq!(g.banned(&[9, 1, 2]).collect::<Vec<_>>(), vec![3]);
        assert_eq!(g.banned(&[2, 3]).collect::<Vec<_>>(), vec![4]);
        assert_eq!(g.banned(&[1, 3]).count(), 0);
        assert_eq!(g.banned(&[2]).count(), 0, "too short to complete a run");
    }

    #[test]
    fn runs_from_every_source_are_banned() {
        let g = EchoGuard::new(2, &[vec![5, 6], vec![5, 7]]);
        let mut b: Vec<i32> = g.banned(&[5]).collect();
        b.sort();
        assert_eq!(b, vec![6, 7]);
    }

    #[test]
    fn a_small_n_or_no_source_bans_nothing() {
        assert!(EchoGuard::new(1, &[vec![1, 2]]).is_empty());
        assert!(EchoGuard::new(4, &[]).is_empty());
        assert!(EchoGuard::new(4, &[vec![1, 2]]).is_empty());
    }
}
