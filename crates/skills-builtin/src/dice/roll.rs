//! Rolling a parsed formula.

use rand::Rng;
use serde::Serialize;

use super::formula::{Formula, Term};

/// The result of one roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RollResult {
    /// The formula in canonical spelling.
    pub formula: String,
    /// Every die rolled, in formula order (subtracted dice included, as rolled).
    pub rolls: Vec<u32>,
    /// Each term: its spelling, its dice and its signed subtotal.
    pub terms: Vec<TermResult>,
    pub total: i64,
}

/// One term of a roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TermResult {
    pub term: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rolls: Vec<u32>,
    pub subtotal: i64,
}

/// Rolls every die of `formula` with `rng`, each uniformly in `1..=sides`.
pub fn roll<R: Rng + ?Sized>(formula: &Formula, rng: &mut R) -> RollResult {
    let mut rolls = Vec::new();
    let mut terms = Vec::new();
    let mut total = 0i64;
    for term in &formula.terms {
        let (negative, spelling, dice, sum) = match *term {
            Term::Dice {
                negative,
                count,
                sides,
            } => {
                let dice: Vec<u32> = (0..count).map(|_| rng.random_range(1..=sides)).collect();
                let sum: i64 = dice.iter().map(|&d| d as i64).sum();
                (negative, format!("{count}d{sides}"), dice, sum)
            }
            Term::Modifier { negative, value } => {
                (negative, value.to_string(), Vec::new(), value as i64)
            }
        };
        let subtotal = if negative { -sum } else { sum };
        total += subtotal;
        rolls.extend_from_slice(&dice);
        terms.push(TermResult {
            term: if negative {
                format!("-{spelling}")
            } else {
                spelling
            },
            rolls: dice,
            subtotal,
        });
    }
    RollResult {
        formula: formula.to_string(),
        rolls,
        terms,
        total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::formula::Limits;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn totals_add_up_and_stay_in_range() {
        let f = Formula::parse("2d6+1d4-1d8+3", &Limits::default()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..500 {
            let r = roll(&f, &mut rng);
            assert_eq!(r.rolls.len(), 4);
            assert!(r.rolls[..2].iter().all(|&d| (1..=6).contains(&d)));
            assert!((1..=4).contains(&r.rolls[2]));
            let expect =
                r.rolls[0] as i64 + r.rolls[1] as i64 + r.rolls[2] as i64 - r.rolls[3] as i64 + 3;
            assert_eq!(r.total, expect);
            assert_eq!(r.terms.iter().map(|t| t.subtotal).sum::<i64>(), r.total);
        }
    }

    #[test]
    fn same_seed_same_roll() {
        let f = Formula::parse("10d20", &Limits::default()).unwrap();
        let a = roll(&f, &mut ChaCha8Rng::seed_from_u64(42));
        let b = roll(&f, &mut ChaCha8Rng::seed_from_u64(42));
        let c = roll(&f, &mut ChaCha8Rng::seed_from_u64(43));
        assert_eq!(a, b);
        assert_ne!(a.rolls, c.rolls);
    }

    #[test]
    fn every_face_comes_up() {
        let f = Formula::parse("1d6", &Limits::default()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut seen = [false; 7];
        for _ in 0..200 {
            seen[roll(&f, &mut rng).total as usize] = true;
        }
        assert!(seen[1..].iter().all(|&s| s));
    }
}
