//! The oracle: a yes-or-no question the story holds no answer to, decided
//! by likelihood and the story's tension (the way solo role-players'
//! oracles answer, e.g. Mythic's fate chart), then kept as a fact.

use rand::Rng;
use serde::{Deserialize, Serialize};

/// How likely a yes is before tension weighs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Likelihood {
    Unlikely,
    Even,
    Likely,
}

impl Likelihood {
    /// Percent chance of a yes at middling tension (5).
    fn base(self) -> i64 {
        match self {
            Likelihood::Unlikely => 30,
            Likelihood::Even => 50,
            Likelihood::Likely => 70,
        }
    }
}

/// The oracle's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OracleAnswer {
    ExceptionalYes,
    Yes,
    No,
    ExceptionalNo,
}

impl OracleAnswer {
    /// The answer in words, for the fact kept and the beat told.
    pub fn in_words(self) -> &'static str {
        match self {
            OracleAnswer::ExceptionalYes => "yes, and more than you expected",
            OracleAnswer::Yes => "yes",
            OracleAnswer::No => "no",
            OracleAnswer::ExceptionalNo => "no, and worse than that",
        }
    }
}

/// Percent chance of a yes: the likelihood, raised five points for each
/// point of tension above 5 and lowered below it (a tense story says yes
/// to trouble more often), kept within 5–95.
pub fn chance_of_yes(likelihood: Likelihood, tension: u8) -> i64 {
    (likelihood.base() + (i64::from(tension) - 5) * 5).clamp(5, 95)
}

/// Asks the oracle. Promises: a d100 roll at or under the chance of yes
/// is a yes, its lowest fifth an exceptional yes; above it a no, its
/// highest fifth an exceptional no. Returns the answer and the roll.
pub fn ask(likelihood: Likelihood, tension: u8, rng: &mut impl Rng) -> (OracleAnswer, i64) {
    let chance = chance_of_yes(likelihood, tension);
    let roll: i64 = rng.random_range(1..=100);
    let answer = if roll <= chance / 5 {
        OracleAnswer::ExceptionalYes
    } else if roll <= chance {
        OracleAnswer::Yes
    } else if roll > 100 - (100 - chance) / 5 {
        OracleAnswer::ExceptionalNo
    } else {
        OracleAnswer::No
    };
    (answer, roll)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn tension_leans_the_oracle_towards_yes() {
        assert_eq!(chance_of_yes(Likelihood::Even, 5), 50);
        assert_eq!(chance_of_yes(Likelihood::Even, 9), 70);
        assert_eq!(chance_of_yes(Likelihood::Unlikely, 1), 10);
        assert_eq!(chance_of_yes(Likelihood::Likely, 9), 90);
    }

    #[test]
    fn the_answers_follow_the_chance_over_many_questions() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let yes = (0..2000)
            .filter(|_| {
                matches!(
                    ask(Likelihood::Likely, 5, &mut rng).0,
                    OracleAnswer::Yes | OracleAnswer::ExceptionalYes
                )
            })
            .count();
        assert!((1300..1500).contains(&yes), "{yes} of 2000 at 70 %");
    }

    #[test]
    fn the_same_seed_gives_the_same_answer() {
        let a = ask(Likelihood::Even, 6, &mut ChaCha8Rng::seed_from_u64(42));
        let b = ask(Likelihood::Even, 6, &mut ChaCha8Rng::seed_from_u64(42));
        assert_eq!(a, b);
    }
}
