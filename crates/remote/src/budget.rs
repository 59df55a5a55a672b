//! How long a turn's planning may wait on a remote server (docs/models.md,
//! "External servers"): one budget a turn, that its warm-up, its plans and
//! its replans all draw on — the plan time (30 s), and the cold-load
//! allowance (120 s) while the server has not answered yet.
//!
//! The allowance is given once per server. It is whole again only at the
//! start of a turn, and only when the server has answered since it was last
//! given (a model the server unloaded after idling loads again): a server
//! that lists its models and never answers costs one turn at most the plan
//! time and the allowance, and each later turn the plan time.
//!
//! The planner is not told where a turn begins: a warm-up begins one (a turn
//! warms its planner first), and so does a first attempt that no warm-up
//! came just before.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// How a request to the server ended, as the budget counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The server answered in full: the model is loaded.
    Answered,
    /// Time ran out first: the server may be loading the model.
    TimedOut,
    /// The server failed otherwise (down, an HTTP error, a bad answer).
    Failed,
}

/// The time a plan may take, and whether the server is thought cold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Grant {
    pub limit: Duration,
    /// Whether the plan draws on the cold-load allowance.
    pub cold: bool,
}

/// A remote planner's budget (see the module's notes). Shared across
/// threads; every method is quick.
#[derive(Debug)]
pub(crate) struct Budget {
    plan_time: Duration,
    cold_load: Duration,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// Whether the server has answered since it was last thought cold.
    warm: bool,
    /// What is left of the cold-load allowance.
    cold_left: Duration,
    /// Whether the server answered since the allowance was last made whole.
    refill: bool,
    /// What is left of the open turn's plan time.
    turn_left: Duration,
    /// Whether a warm-up began the turn and no plan has come since.
    opened_by_warm_up: bool,
}

impl Budget {
    /// A budget of `plan_time` a turn and `cold_load` once, for a server
    /// that has not answered yet.
    pub(crate) fn new(plan_time: Duration, cold_load: Duration) -> Budget {
        Budget {
            plan_time,
            cold_load,
            state: Mutex::new(State {
                warm: false,
                cold_left: cold_load,
                refill: false,
                turn_left: plan_time,
                opened_by_warm_up: false,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Begins a turn: its plan time whole, and the allowance whole when the
    /// server has answered since it was last made whole.
    fn open(&self, s: &mut State) {
        s.turn_left = self.plan_time;
        if s.refill {
            s.cold_left = self.cold_load;
            s.refill = false;
        }
    }

    /// A warm-up begins a turn. Returns how long it may wait for the server:
    /// what is left of the allowance; `None` (send nothing) when the server
    /// is warm or the allowance is spent. A warm-up never takes the plan time.
    pub(crate) fn warm_up(&self) -> Option<Duration> {
        let mut s = self.state();
        self.open(&mut s);
        s.opened_by_warm_up = true;
        (!s.warm && !s.cold_left.is_zero()).then_some(s.cold_left)
    }

    /// A plan of `attempt` (1 begins a turn, unless a warm-up just did).
    /// Returns how long it may take: what is left of the turn's plan time,
    /// and of the allowance while the server is cold; `None` when the
    /// turn's budget is spent.
    pub(crate) fn plan(&self, attempt: u32) -> Option<Grant> {
        let mut s = self.state();
        if attempt <= 1 && !s.opened_by_warm_up {
            self.open(&mut s);
        }
        s.opened_by_warm_up = false;
        let cold = !s.warm;
        let limit = s.turn_left + if cold { s.cold_left } else { Duration::ZERO };
        (!limit.is_zero()).then_some(Grant { limit, cold })
    }

    /// Counts `spent` on a request made `cold` (a warm-up, or a plan granted
    /// while cold: the allowance pays first, then the turn's plan time)
    /// that ended in `outcome`.
    pub(crate) fn spend(&self, cold: bool, spent: Duration, outcome: Outcome) {
        let mut s = self.state();
        let mut spent = spent;
        if cold {
            let from_allowance = spent.min(s.cold_left);
            s.cold_left -= from_allowance;
            spent -= from_allowance;
        }
        s.turn_left = s.turn_left.saturating_sub(spent);
        match outcome {
            Outcome::Answered => {
                s.warm = true;
                s.refill = true;
            }
            Outcome::TimedOut => s.warm = false,
            Outcome::Failed => {}
        }
    }

    /// Whether the server has answered since it was last thought cold.
    pub(crate) fn is_warm(&self) -> bool {
        self.state().warm
    }

    /// The most the first plan of a turn begun now would be given.
    pub(crate) fn next_plan_time(&self) -> Duration {
        let s = self.state();
        if s.warm {
            return self.plan_time;
        }
        let allowance = if s.refill {
            self.cold_load
        } else {
            s.cold_left
        };
        self.plan_time + allowance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: Duration = Duration::from_secs(30);
    const COLD: Duration = Duration::from_secs(120);

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    /// The audit's turn against a server that never answers: two warm-ups
    /// of 60 s, then plans — 480 s before. Now the allowance is given once
    /// and the plan time once: 150 s in all, then 30 s a turn.
    #[test]
    fn a_silent_server_gets_the_allowance_once_and_the_plan_time_once_a_turn() {
        let b = Budget::new(PLAN, COLD);
        assert_eq!(b.next_plan_time(), secs(150));
        let mut total = Duration::ZERO;
        // Loading the planner, then the turn: each warm-up waits 60 s at most.
        for _ in 0..2 {
            let may = b.warm_up().expect("cold, with allowance left");
            let spent = may.min(secs(60));
            b.spend(true, spent, Outcome::TimedOut);
            total += spent;
        }
        assert_eq!(total, secs(120));
        for attempt in 1..=5 {
            if let Some(g) = b.plan(attempt) {
                assert!(g.cold);
                b.spend(true, g.limit, Outcome::TimedOut);
                total += g.limit;
            }
        }
        assert_eq!(total, secs(150), "the allowance and one plan time");
        // The next turn: no warm-up, one plan time for every attempt.
        assert_eq!(b.warm_up(), None);
        assert_eq!(b.next_plan_time(), PLAN);
        let mut turn = Duration::ZERO;
        for attempt in 1..=5 {
            if let Some(g) = b.plan(attempt) {
                b.spend(g.cold, g.limit, Outcome::TimedOut);
                turn += g.limit;
            }
        }
        assert_eq!(turn, PLAN);
    }

    /// A warm server's plans and replans share the turn's plan time; the
    /// next turn has it whole again.
    #[test]
    fn replans_share_the_turns_plan_time() {
        let b = Budget::new(PLAN, COLD);
        b.spend(true, secs(5), Outcome::Answered);
        assert!(b.is_warm());
        assert_eq!(b.warm_up(), None, "a warm server needs no warm-up");
        let g = b.plan(1).unwrap();
        assert_eq!(
            g,
            Grant {
                limit: PLAN,
                cold: false
            }
        );
        b.spend(false, secs(12), Outcome::Failed);
        assert_eq!(b.plan(2).unwrap().limit, secs(18));
        b.spend(false, secs(18), Outcome::TimedOut);
        assert!(!b.is_warm());
        // Thought cold again within the turn: what is left of the
        // allowance, never more than the turn began with.
        let g = b.plan(3).unwrap();
        assert_eq!(
            g,
            Grant {
                limit: COLD,
                cold: true
            }
        );
        b.spend(true, COLD, Outcome::TimedOut);
        assert_eq!(b.plan(4), None);
        // Spent, and no answer since: the next turn has the plan time alone.
        assert_eq!(b.next_plan_time(), PLAN);
        let g = b.plan(1).unwrap();
        assert_eq!(
            g,
            Grant {
                limit: PLAN,
                cold: true
            }
        );
        b.spend(g.cold, secs(2), Outcome::Answered);
        let g = b.plan(2).unwrap();
        assert_eq!(
            g,
            Grant {
                limit: secs(28),
                cold: false
            }
        );
        b.spend(g.cold, g.limit, Outcome::TimedOut);
        assert_eq!(b.plan(3), None, "nothing is given back within the turn");
        // It answered since: the next turn gets the allowance again.
        assert_eq!(b.next_plan_time(), PLAN + COLD);
        assert_eq!(b.plan(1).unwrap().limit, PLAN + COLD);
    }

    /// However a turn's calls go, they never add up past the plan time and
    /// the allowance: what is given back mid-turn waits for the next turn.
    #[test]
    fn no_turn_is_given_more_than_the_plan_time_and_the_allowance() {
        let b = Budget::new(PLAN, COLD);
        let may = b.warm_up().unwrap();
        b.spend(true, may - secs(1), Outcome::Answered);
        let mut total = may - secs(1);
        for attempt in 1..=5 {
            if let Some(g) = b.plan(attempt) {
                b.spend(g.cold, g.limit, Outcome::TimedOut);
                total += g.limit;
            }
        }
        assert!(total <= PLAN + COLD, "{total:?}");
    }

    #[test]
    fn a_first_attempt_without_a_warm_up_begins_a_turn() {
        let b = Budget::new(PLAN, COLD);
        b.spend(true, secs(1), Outcome::Answered);
        let g = b.plan(1).unwrap();
        b.spend(g.cold, PLAN, Outcome::Failed);
        assert_eq!(b.plan(2), None);
        assert_eq!(b.plan(1).unwrap().limit, PLAN, "a new turn");
    }
}
