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
    /// Guards joined to this one ([`EchoGuard::and`]).
    others: Vec<EchoGuard>,
}

impl EchoGuard {
    /// A guard forbidding every run of `n` tokens found in `sources`. `n < 2`
    /// (or no sources) forbids nothing.
    pub fn new(n: usize, sources: &[Vec<i32>]) -> EchoGuard {
        EchoGuard::of_runs(n, sources.iter().map(|s| (s.as_slice(), &[][..])))
    }

    /// A guard forbidding every run of `n` tokens of `sources` but those
    /// ending in a spared token (each source's tokens come with whether each
    /// is spared): the words of a name or a number are never forbidden, so a
    /// name is never misspelt to get round the guard.
    pub fn sparing(n: usize, sources: &[(Vec<i32>, Vec<bool>)]) -> EchoGuard {
        EchoGuard::of_runs(n, sources.iter().map(|(t, s)| (t.as_slice(), s.as_slice())))
    }

    /// The guard over each source's runs of `n` tokens, but those whose last
    /// token is marked spared (a source's marks may be fewer than its tokens).
    fn of_runs<'a>(n: usize, sources: impl Iterator<Item = (&'a [i32], &'a [bool])>) -> EchoGuard {
        let mut next: HashMap<Vec<i32>, HashSet<i32>> = HashMap::new();
        if n >= 2 {
            for (tokens, spared) in sources {
                for (i, run) in tokens.windows(n).enumerate() {
                    if spared.get(i + n - 1).copied().unwrap_or(false) {
                        continue;
                    }
                    next.entry(run[..n - 1].to_vec())
                        .or_default()
                        .insert(run[n - 1]);
                }
            }
        }
        EchoGuard {
            n,
            next,
            others: Vec::new(),
        }
    }

    /// Both guards' bans: what either forbids.
    pub fn and(mut self, other: EchoGuard) -> EchoGuard {
        if self.next.is_empty() {
            return other;
        }
        if other.next.is_empty() {
            return self;
        }
        // Runs of another length are kept as their own guard.
        self.others.push(other);
        self
    }

    /// The tokens that may not come next after `written` (the answer so far).
    pub fn banned(&self, written: &[i32]) -> Vec<i32> {
        let head = (self.n >= 2 && written.len() + 1 >= self.n)
            .then(|| &written[written.len() + 1 - self.n..]);
        let mut banned: Vec<i32> = head
            .and_then(|h| self.next.get(h))
            .into_iter()
            .flat_map(|set| set.iter().copied())
            .collect();
        for other in &self.others {
            banned.extend(other.banned(written));
        }
        banned
    }

    /// Whether the guard forbids anything.
    pub fn is_empty(&self) -> bool {
        self.next.is_empty() && self.others.iter().all(EchoGuard::is_empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_completing_a_copied_run_is_banned() {
        let g = EchoGuard::new(3, &[vec![1, 2, 3, 4]]);
        assert_eq!(g.banned(&[9, 1, 2]), vec![3]);
        assert_eq!(g.banned(&[2, 3]), vec![4]);
        assert!(g.banned(&[1, 3]).is_empty());
        assert!(g.banned(&[2]).is_empty(), "too short to complete a run");
    }

    #[test]
    fn runs_from_every_source_are_banned() {
        let g = EchoGuard::new(2, &[vec![5, 6], vec![5, 7]]);
        let mut b = g.banned(&[5]);
        b.sort();
        assert_eq!(b, vec![6, 7]);
    }

    #[test]
    fn a_name_or_a_number_is_never_forbidden() {
        // "I ask Dee Marchetti about the 221 boxes": the name and the number
        // are spared; a run ending in any other token is not.
        let tokens = vec![1, 2, 3, 4, 5, 6, 7, 8];
        let spared = vec![true, false, true, true, false, false, true, false];
        let g = EchoGuard::sparing(2, &[(tokens, spared)]);
        assert!(g.banned(&[3]).is_empty(), "Dee Marchetti");
        assert!(g.banned(&[2]).is_empty(), "ask Dee");
        assert!(g.banned(&[6]).is_empty(), "the 221");
        assert_eq!(g.banned(&[4]), vec![5], "Marchetti about");
        assert_eq!(g.banned(&[7]), vec![8], "221 boxes");
    }

    #[test]
    fn joined_guards_ban_what_either_bans() {
        let g = EchoGuard::new(3, &[vec![1, 2, 3]]).and(EchoGuard::new(2, &[vec![2, 9]]));
        let mut b = g.banned(&[1, 2]);
        b.sort();
        assert_eq!(b, vec![3, 9]);
        assert!(EchoGuard::default().and(EchoGuard::default()).is_empty());
    }

    #[test]
    fn a_small_n_or_no_source_bans_nothing() {
        assert!(EchoGuard::new(1, &[vec![1, 2]]).is_empty());
        assert!(EchoGuard::new(4, &[]).is_empty());
        assert!(EchoGuard::new(4, &[vec![1, 2]]).is_empty());
    }
}
