//! How much a plan's scripts may still write to stdout. A tool's caps on
//! events and bytes cover all of its attempts together, and every tool of a
//! plan draws from the plan's caps too, so neither retries nor many tools
//! can make a stored result grow past a known size.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::protocol::Violation;

/// Events and stdout bytes still allowed, shared by the attempts (and, for a
/// plan's budget, the tools) that draw from it.
#[derive(Debug)]
pub struct OutputBudget {
    events_left: AtomicUsize,
    bytes_left: AtomicUsize,
    max_events: usize,
    max_bytes: usize,
    /// The plan's budget, for a tool's; `None` for the plan's own.
    plan: Option<Arc<OutputBudget>>,
}

impl OutputBudget {
    /// A whole plan's budget.
    pub fn for_plan(max_events: usize, max_bytes: usize) -> Arc<OutputBudget> {
        Arc::new(OutputBudget::new(max_events, max_bytes, None))
    }

    /// A tool's budget, for all its attempts, drawing on `plan` as well.
    pub fn for_tool(plan: &Arc<OutputBudget>, max_events: usize, max_bytes: usize) -> OutputBudget {
        OutputBudget::new(max_events, max_bytes, Some(Arc::clone(plan)))
    }

    fn new(max_events: usize, max_bytes: usize, plan: Option<Arc<OutputBudget>>) -> OutputBudget {
        OutputBudget {
            events_left: AtomicUsize::new(max_events),
            bytes_left: AtomicUsize::new(max_bytes),
            max_events,
            max_bytes,
            plan,
        }
    }

    /// Takes `n` bytes of stdout (a line and its newline); fails, naming the
    /// cap, once the tool's or the plan's bytes are used up.
    pub fn spend_bytes(&self, n: usize) -> Result<(), Violation> {
        if !take(&self.bytes_left, n) {
            return Err(self.exceeded_bytes());
        }
        match &self.plan {
            Some(plan) => plan.spend_bytes(n),
            None => Ok(()),
        }
    }

    /// Takes one event; fails, naming the cap, once the tool's or the plan's
    /// events are used up.
    pub fn spend_event(&self) -> Result<(), Violation> {
        if !take(&self.events_left, 1) {
            return Err(self.exceeded_events());
        }
        match &self.plan {
            Some(plan) => plan.spend_event(),
            None => Ok(()),
        }
    }

    fn exceeded_bytes(&self) -> Violation {
        match self.plan {
            Some(_) => Violation::TooMuchOutput(self.max_bytes),
            None => Violation::PlanTooMuchOutput(self.max_bytes),
        }
    }

    fn exceeded_events(&self) -> Violation {
        match self.plan {
            Some(_) => Violation::TooManyEvents(self.max_events),
            None => Violation::PlanTooManyEvents(self.max_events),
        }
    }
}

/// Subtracts `n` from `left` unless that would go below zero (then `left`
/// drops to zero, so that later, smaller requests fail too).
fn take(left: &AtomicUsize, n: usize) -> bool {
    let before = left
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
            Some(l.saturating_sub(n))
        })
        .unwrap_or(0);
    before >= n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tools_attempts_share_its_caps() {
        let plan = OutputBudget::for_plan(1000, 1000);
        let tool = OutputBudget::for_tool(&plan, 2, 100);
        // First attempt.
        tool.spend_bytes(60).unwrap();
        tool.spend_event().unwrap();
        // A retry continues from what is left.
        assert_eq!(tool.spend_bytes(60), Err(Violation::TooMuchOutput(100)));
        tool.spend_event().unwrap();
        assert_eq!(tool.spend_event(), Err(Violation::TooManyEvents(2)));
        assert_eq!(tool.spend_bytes(1), Err(Violation::TooMuchOutput(100)));
    }

    #[test]
    fn tools_together_stay_within_the_plans_caps() {
        let plan = OutputBudget::for_plan(3, 150);
        let a = OutputBudget::for_tool(&plan, 10, 100);
        let b = OutputBudget::for_tool(&plan, 10, 100);
        a.spend_bytes(100).unwrap();
        assert_eq!(b.spend_bytes(60), Err(Violation::PlanTooMuchOutput(150)));
        a.spend_event().unwrap();
        b.spend_event().unwrap();
        b.spend_event().unwrap();
        assert_eq!(a.spend_event(), Err(Violation::PlanTooManyEvents(3)));
    }

    #[test]
    fn spending_exactly_what_is_left_is_allowed() {
        let plan = OutputBudget::for_plan(1, 10);
        let tool = OutputBudget::for_tool(&plan, 1, 10);
        tool.spend_bytes(10).unwrap();
        tool.spend_event().unwrap();
        assert!(tool.spend_bytes(1).is_err());
    }
}
