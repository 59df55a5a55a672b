//! Rolling a parsed formula: each dice term is rolled by caith, with the
//! caller's generator, so a seeded roll stays reproducible.

use caith::{RollHistory, Roller};
use rand::Rng;
use serde::Serialize;

use super::formula::{Formula, Term};

/// The result of one roll.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RollResult {
    /// The formula in canonical spelling.
    pub formula: String,
    /// Every die rolled, term after term (subtracted, dropped, exploded and
    /// rerolled dice included, as rolled).
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
    /// Every die the term rolled; with a keep or a reroll, more than count.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rolls: Vec<u32>,
    /// What the term adds to the total: the dice that count, signed.
    pub subtotal: i64,
}

/// Why a checked formula could not be rolled: a fault of this code, since
/// `Formula::parse` only lets through what caith rolls.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the dice roller could not roll {term:?}: {reason}")]
pub struct RollError {
    pub term: String,
    pub reason: String,
}

/// Rolls every die of `formula` with `rng`, each uniformly in `1..=sides`,
/// then applies the term's reroll or explosion and its keep. Promises: the
/// same formula and the same generator state give the same result;
/// `total` is the sum of the terms' subtotals.
pub fn roll<R: Rng + ?Sized>(formula: &Formula, rng: &mut R) -> Result<RollResult, RollError> {
    let mut rolls = Vec::new();
    let mut terms = Vec::new();
    let mut total = 0i64;
    for term in &formula.terms {
        let (dice, sum) = match *term {
            Term::Dice { .. } => roll_dice(term, rng)?,
            Term::Modifier { value, .. } => (Vec::new(), value as i64),
        };
        let subtotal = if term.is_negative() { -sum } else { sum };
        total += subtotal;
        rolls.extend_from_slice(&dice);
        let spelling = term.spelling();
        terms.push(TermResult {
            term: if term.is_negative() {
                format!("-{spelling}")
            } else {
                spelling
            },
            rolls: dice,
            subtotal,
        });
    }
    Ok(RollResult {
        formula: formula.to_string(),
        rolls,
        terms,
        total,
    })
}

/// One dice term through caith: every face it rolled and its unsigned sum.
fn roll_dice<R: Rng + ?Sized>(term: &Term, rng: &mut R) -> Result<(Vec<u32>, i64), RollError> {
    let notation = caith_notation(term);
    let failed = |reason: String| RollError {
        term: term.spelling(),
        reason,
    };
    let result = Roller::new(&notation)
        .and_then(|roller| roller.roll_with(&mut Lent(rng)))
        .map_err(|e| failed(e.to_string()))?;
    let single = result
        .as_single()
        .ok_or_else(|| failed("a repeated roll".to_string()))?;
    let mut faces = Vec::new();
    for entry in single.get_history() {
        match entry {
            // The dice a reroll replaced; their new faces follow in `Roll`.
            RollHistory::ReRolls(dice) => faces.extend(
                dice.iter()
                    .filter(|rolled| rolled.len() > 1)
                    .map(|rolled| rolled[0].res),
            ),
            RollHistory::Roll(dice) => faces.extend(dice.iter().map(|d| d.res)),
            _ => {}
        }
    }
    let faces = faces.into_iter().map(|f| f as u32).collect();
    Ok((faces, single.get_total()))
}

/// The term in caith's notation: reroll (`rN`) or explode (`!`) first, then
/// the keep (`KN` highest, `kN` lowest), the order in which caith applies
/// them correctly.
fn caith_notation(term: &Term) -> String {
    let Term::Dice {
        count,
        sides,
        options,
        ..
    } = *term
    else {
        return term.spelling();
    };
    options.spell(count, sides, "K", "k")
}

/// Lends a rand 0.9 generator to caith, which draws its faces through rand
/// 0.8's traits (rand_core 0.6): the same bits, so a seeded roll stays
/// reproducible.
struct Lent<'a, R: ?Sized>(&'a mut R);

impl<R: rand::RngCore + ?Sized> rand_core_06::RngCore for Lent<'_, R> {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core_06::Error> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::formula::Limits;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn parse(text: &str) -> Formula {
        Formula::parse(text, &Limits::default()).unwrap()
    }

    /// `formula` rolled once with each of `seeds`.
    fn rolled(formula: &str, seeds: std::ops::Range<u64>) -> Vec<RollResult> {
        let f = parse(formula);
        seeds
            .map(|seed| roll(&f, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap())
            .collect()
    }

    #[test]
    fn totals_add_up_and_stay_in_range() {
        let f = parse("2d6+1d4-1d8+3");
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..500 {
            let r = roll(&f, &mut rng).unwrap();
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
        for formula in ["10d20", "2d20kh1", "4d6r1kh3", "6d6!"] {
            let f = parse(formula);
            let a = roll(&f, &mut ChaCha8Rng::seed_from_u64(42)).unwrap();
            let b = roll(&f, &mut ChaCha8Rng::seed_from_u64(42)).unwrap();
            assert_eq!(a, b, "{formula}");
        }
        let f = parse("10d20");
        let a = roll(&f, &mut ChaCha8Rng::seed_from_u64(42)).unwrap();
        let c = roll(&f, &mut ChaCha8Rng::seed_from_u64(43)).unwrap();
        assert_ne!(a.rolls, c.rolls);
    }

    #[test]
    fn every_face_comes_up() {
        let f = parse("1d6");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut seen = [false; 7];
        for _ in 0..200 {
            seen[roll(&f, &mut rng).unwrap().total as usize] = true;
        }
        assert!(seen[1..].iter().all(|&s| s));
    }

    #[test]
    fn advantage_keeps_the_higher_die() {
        for r in rolled("2d20kh1+3", 0..200) {
            assert_eq!(r.rolls.len(), 2, "both dice are shown: {r:?}");
            let higher = *r.rolls.iter().max().unwrap() as i64;
            assert_eq!(r.terms[0].subtotal, higher, "{r:?}");
            assert_eq!(r.total, higher + 3);
            assert_eq!(r.formula, "2d20kh1+3");
        }
    }

    #[test]
    fn disadvantage_keeps_the_lower_die() {
        for r in rolled("2d20kl1", 0..200) {
            assert_eq!(r.rolls.len(), 2);
            assert_eq!(r.total, *r.rolls.iter().min().unwrap() as i64, "{r:?}");
        }
        for r in rolled("4d6kh3", 0..200) {
            let mut dice = r.rolls.clone();
            dice.sort_unstable();
            let best: u32 = dice[1..].iter().sum();
            assert_eq!(r.total, best as i64, "{r:?}");
        }
    }

    #[test]
    fn exploding_dice_add_a_die_for_each_top_face() {
        let mut exploded = 0;
        for r in rolled("3d6!", 0..300) {
            let sixes = r.rolls.iter().filter(|&&d| d == 6).count();
            assert_eq!(r.rolls.len(), 3 + sixes, "one more die per six: {r:?}");
            assert_eq!(r.total, r.rolls.iter().map(|&d| d as i64).sum::<i64>());
            exploded += usize::from(sixes > 0);
        }
        assert!(exploded > 0, "some roll exploded");
    }

    #[test]
    fn every_accepted_formula_rolls() {
        // Formulas made at random from the notation's pieces, near and past
        // the limits: whatever the parser accepts, caith rolls without an
        // error or a panic.
        use rand::Rng;
        let mut gen = ChaCha8Rng::seed_from_u64(3);
        let limits = Limits {
            max_dice: 12,
            max_sides: 12,
            ..Limits::default()
        };
        let pick = |gen: &mut ChaCha8Rng, options: &[&str]| -> String {
            options[gen.random_range(0..options.len())].to_string()
        };
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..5_000 {
            let mut text = String::new();
            for term in 0..gen.random_range(1..4) {
                if term > 0 {
                    text += &pick(&mut gen, &["+", "-", " + "]);
                }
                let n = gen.random_range(0..14);
                if gen.random_bool(0.2) {
                    text += &n.to_string();
                    continue;
                }
                text += &format!(
                    "{n}{}{}",
                    pick(&mut gen, &["d", "D"]),
                    gen.random_range(0..14)
                );
                text += &pick(&mut gen, &["", "", "!", "r"]);
                if text.ends_with('r') {
                    text += &gen.random_range(0..14).to_string();
                }
                let keep = pick(&mut gen, &["", "", "kh", "kl", "k", "KH"]);
                if !keep.is_empty() {
                    text += &format!("{keep}{}", gen.random_range(0..14));
                }
            }
            match Formula::parse(&text, &limits) {
                Ok(f) => {
                    let r = roll(&f, &mut gen).unwrap_or_else(|e| panic!("{text:?}: {e}"));
                    assert_eq!(r.terms.iter().map(|t| t.subtotal).sum::<i64>(), r.total);
                    accepted += 1;
                }
                Err(_) => refused += 1,
            }
        }
        assert!(
            accepted > 500 && refused > 500,
            "{accepted} accepted, {refused} refused"
        );
    }

    #[test]
    fn rerolled_dice_replace_the_low_faces_once() {
        let mut rerolled = 0;
        for r in rolled("2d6r2", 0..300) {
            let t = &r.terms[0];
            let replaced = t.rolls.len() - 2;
            rerolled += replaced;
            // The replaced faces come first, then the two that count.
            assert!(t.rolls[..replaced].iter().all(|&d| d <= 2), "{r:?}");
            let counted: u32 = t.rolls[replaced..].iter().sum();
            assert_eq!(t.subtotal, counted as i64, "{r:?}");
            let still_low = t.rolls[replaced..].iter().filter(|&&d| d <= 2).count();
            assert!(
                still_low <= replaced,
                "only a rerolled die may stay low: {r:?}"
            );
        }
        assert!(rerolled > 0, "some die was rerolled");
    }
}
