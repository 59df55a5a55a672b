//! A roll against a difficulty: the rules decide the outcome in code, so the
//! narration only has to tell it (docs/skills-builtin.md, "Dice checks").

use serde::Serialize;

use super::formula::{DiceOptions, Formula, Keep, Redo, Term};
use super::roll::RollResult;

/// The difficulty classes the planner chooses from (easy, medium, hard, very hard).
pub const DIFFICULTIES: [(u32, &str); 4] = [
    (10, "easy"),
    (15, "medium"),
    (20, "hard"),
    (25, "very hard"),
];

/// How a check went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckOutcome {
    /// A natural 20 on the check's d20.
    CriticalSuccess,
    /// The total met or beat the difficulty.
    Success,
    /// The total fell short of the difficulty.
    Failure,
    /// A natural 1 on the check's d20.
    CriticalFailure,
}

impl CheckOutcome {
    /// Whether the action succeeds.
    pub fn succeeded(self) -> bool {
        matches!(self, CheckOutcome::CriticalSuccess | CheckOutcome::Success)
    }
}

/// The verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub dc: i64,
    pub outcome: CheckOutcome,
    /// `total − dc`: how far above (positive) or below (negative) the difficulty.
    pub margin: i64,
    /// The face of the check's d20, when the formula has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub natural: Option<u32>,
}

/// Judges `roll` (of `formula`) against `dc`. Promises: a natural 20 on the
/// formula's check die — the first added term of d20s that counts exactly
/// one die and does not explode (`1d20`, advantage `2d20kh1`, disadvantage
/// `2d20kl1`, `1d20r1`) — is a critical success and a natural 1 a critical
/// failure, whatever the total; otherwise success when `total ≥ dc`;
/// `margin = total − dc` always.
pub fn judge(formula: &Formula, roll: &RollResult, dc: i64) -> Check {
    let natural = check_die(formula, roll);
    let margin = roll.total - dc;
    let outcome = match natural {
        Some(20) => CheckOutcome::CriticalSuccess,
        Some(1) => CheckOutcome::CriticalFailure,
        _ if margin >= 0 => CheckOutcome::Success,
        _ => CheckOutcome::Failure,
    };
    Check {
        dc,
        outcome,
        margin,
        natural,
    }
}

/// The face that counts of the formula's check die: the term's subtotal,
/// since it counts exactly one die.
fn check_die(formula: &Formula, roll: &RollResult) -> Option<u32> {
    formula
        .terms
        .iter()
        .zip(&roll.terms)
        .find_map(|(term, result)| match *term {
            Term::Dice {
                negative: false,
                count,
                sides: 20,
                options,
            } if counts_one_die(count, options) => u32::try_from(result.subtotal).ok(),
            _ => None,
        })
}

/// Whether `count` dice with `options` add exactly one face to the total.
fn counts_one_die(count: u32, options: DiceOptions) -> bool {
    let kept = match options.keep {
        None => count,
        Some(Keep::Highest(n) | Keep::Lowest(n)) => n,
    };
    kept == 1 && options.redo != Some(Redo::Explode)
}

/// The word for a difficulty class (`"dc 12"` when it is none of the named ones).
pub fn difficulty_name(dc: i64) -> String {
    DIFFICULTIES
        .iter()
        .find(|(d, _)| *d as i64 == dc)
        .map(|(_, name)| name.to_string())
        .unwrap_or_else(|| format!("dc {dc}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::formula::Limits;
    use crate::dice::roll::TermResult;

    fn fixed(formula: &str, faces: &[u32]) -> (Formula, RollResult) {
        let f = Formula::parse(formula, &Limits::default()).unwrap();
        let mut faces = faces.iter().copied();
        let mut terms = Vec::new();
        let mut rolls = Vec::new();
        let mut total = 0i64;
        for t in &f.terms {
            let (neg, dice, sum) = match *t {
                Term::Dice {
                    negative, count, ..
                } => {
                    let d: Vec<u32> = (0..count).map(|_| faces.next().unwrap()).collect();
                    let s = d.iter().map(|&x| x as i64).sum();
                    (negative, d, s)
                }
                Term::Modifier { negative, value } => (negative, vec![], value as i64),
            };
            let sub = if neg { -sum } else { sum };
            total += sub;
            rolls.extend(&dice);
            terms.push(TermResult {
                term: String::new(),
                rolls: dice,
                subtotal: sub,
            });
        }
        let r = RollResult {
            formula: f.to_string(),
            rolls,
            terms,
            total,
        };
        (f, r)
    }

    #[test]
    fn meeting_the_difficulty_succeeds_and_falling_short_fails() {
        let (f, r) = fixed("1d20+2", &[13]);
        let c = judge(&f, &r, 15);
        assert_eq!(
            (c.outcome, c.margin, c.natural),
            (CheckOutcome::Success, 0, Some(13))
        );
        let (f, r) = fixed("1d20+2", &[7]);
        let c = judge(&f, &r, 15);
        assert_eq!((c.outcome, c.margin), (CheckOutcome::Failure, -6));
        assert!(!c.outcome.succeeded());
    }

    #[test]
    fn natural_twenty_and_one_are_critical_whatever_the_total() {
        let (f, r) = fixed("1d20", &[20]);
        assert_eq!(judge(&f, &r, 25).outcome, CheckOutcome::CriticalSuccess);
        let (f, r) = fixed("1d20+30", &[1]);
        let c = judge(&f, &r, 10);
        assert_eq!(c.outcome, CheckOutcome::CriticalFailure);
        assert_eq!(c.margin, 21);
    }

    #[test]
    fn only_a_single_added_d20_counts_as_natural() {
        let (f, r) = fixed("2d20", &[20, 1]);
        assert_eq!(judge(&f, &r, 15).natural, None);
        assert_eq!(judge(&f, &r, 15).outcome, CheckOutcome::Success);
        let (f, r) = fixed("3d6", &[1, 1, 1]);
        assert_eq!(judge(&f, &r, 10).outcome, CheckOutcome::Failure);
        let (f, r) = fixed("1d4+1d20", &[1, 20]);
        assert_eq!(judge(&f, &r, 30).natural, Some(20));
    }

    #[test]
    fn advantage_and_disadvantage_judge_the_die_they_keep() {
        use crate::dice::roll::roll;
        use rand::SeedableRng;
        use rand_chacha::ChaCha8Rng;
        let mut crits = 0;
        for (formula, pick) in [("2d20kh1+2", 1usize), ("2d20kl1+2", 0)] {
            let f = Formula::parse(formula, &Limits::default()).unwrap();
            for seed in 0..300 {
                let r = roll(&f, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
                let mut faces = r.rolls.clone();
                faces.sort_unstable();
                let kept = faces[pick];
                let c = judge(&f, &r, 15);
                assert_eq!(c.natural, Some(kept), "{formula}: {r:?}");
                match kept {
                    20 => assert_eq!(c.outcome, CheckOutcome::CriticalSuccess),
                    1 => assert_eq!(c.outcome, CheckOutcome::CriticalFailure),
                    _ => assert_eq!(c.outcome.succeeded(), kept as i64 + 2 >= 15),
                }
                crits += usize::from(kept == 20 || kept == 1);
            }
        }
        assert!(crits > 0, "some kept die was a natural 20 or 1");
        // Kept dice that count more than one, or explode, have no natural face.
        let (f, r) = fixed("1d20!", &[7]);
        assert_eq!(judge(&f, &r, 15).natural, None);
    }

    #[test]
    fn outcomes_serialise_in_camel_case() {
        let (f, r) = fixed("1d20", &[20]);
        let v = serde_json::to_value(judge(&f, &r, 15)).unwrap();
        assert_eq!(v["outcome"], "criticalSuccess");
        assert_eq!(
            serde_json::to_value(CheckOutcome::CriticalFailure).unwrap(),
            "criticalFailure"
        );
        assert_eq!(difficulty_name(20), "hard");
        assert_eq!(difficulty_name(12), "dc 12");
    }
}
