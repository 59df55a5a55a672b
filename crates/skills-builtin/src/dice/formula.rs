//! Dice formulas: the notation the dice-roller accepts and its limits.
//!
//! The dice-roller grammar of docs/skills-builtin.md, a sum of terms:
//!
//! ```text
//! formula  ::= term (("+" | "-") term)*      at least one dice term
//! term     ::= dice | modifier
//! dice     ::= count ("d" | "D") sides redo? keep?
//!                                            count 1..=maxDice, sides 2..=maxSides
//! redo     ::= "!"                           exploding: a die on its top face adds another
//!            | "r" integer                   rerolled once: dice at or below the value
//! keep     ::= ("kh" | "k") integer          keep the highest n (advantage: 2d20kh1)
//!            | "kl" integer                  keep the lowest n (disadvantage: 2d20kl1)
//! modifier ::= integer                        0..=100
//! ```
//!
//! Spaces between tokens are ignored; option letters may be either case.
//! Examples: `1d20`, `3d6+2`, `2d10-1`, `1d20+1d4+3`, `2d20kh1`, `4d6kh3`,
//! `3d6!`, `2d6r1`.
//!
//! The dice themselves are rolled by caith (`super::roll`). This reading
//! stays in front of it because every limit must be checked before anything
//! rolls, and caith's own parser cannot be that gate: it accepts a larger
//! language (products, targets, repeats), panics on a number past 64 bits and
//! explodes forever on `!1`. It uses only `std` and `thiserror`: the fuzz
//! target `dice_formula` compiles this file alone (docs/security.md).

use std::fmt;

/// Largest constant modifier.
pub const MAX_MODIFIER: u32 = 100;
/// Most terms in one formula.
pub const MAX_TERMS: usize = 20;

/// A parsed formula: a signed sum of terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formula {
    pub terms: Vec<Term>,
}

/// One term and whether it is subtracted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    Dice {
        negative: bool,
        count: u32,
        sides: u32,
        options: DiceOptions,
    },
    Modifier {
        negative: bool,
        value: u32,
    },
}

/// What happens to a term's dice after they are rolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiceOptions {
    /// Dice rolled again or added before any are kept.
    pub redo: Option<Redo>,
    /// Which dice count towards the total; all of them when `None`.
    pub keep: Option<Keep>,
}

impl DiceOptions {
    /// Plain dice: every die counts as rolled.
    pub const NONE: DiceOptions = DiceOptions {
        redo: None,
        keep: None,
    };

    /// `count`d`sides` with these options, the redo first and the keep
    /// after it, the keep spelled by `highest` and `lowest` (`kh`/`kl`
    /// here, caith's `K`/`k`).
    pub fn spell(self, count: u32, sides: u32, highest: &str, lowest: &str) -> String {
        let redo = match self.redo {
            None => String::new(),
            Some(Redo::Explode) => "!".to_string(),
            Some(Redo::RerollAtMost(n)) => format!("r{n}"),
        };
        let keep = match self.keep {
            None => String::new(),
            Some(Keep::Highest(n)) => format!("{highest}{n}"),
            Some(Keep::Lowest(n)) => format!("{lowest}{n}"),
        };
        format!("{count}d{sides}{redo}{keep}")
    }
}

/// Dice rolled again, or added, as a term rolls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redo {
    /// `!`: a die on its top face adds one more die, which may explode again.
    Explode,
    /// `rN`: each die at or below `N` is rolled once more and the new face
    /// replaces it.
    RerollAtMost(u32),
}

/// The dice of a term that count towards its total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// `khN`: the `N` highest.
    Highest(u32),
    /// `klN`: the `N` lowest.
    Lowest(u32),
}

/// Bounds a formula must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most dice in the whole formula.
    pub max_dice: u32,
    /// Most sides of one die.
    pub max_sides: u32,
    /// Largest constant modifier.
    pub max_modifier: u32,
    /// Most terms.
    pub max_terms: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_dice: 100,
            max_sides: 100,
            max_modifier: MAX_MODIFIER,
            max_terms: MAX_TERMS,
        }
    }
}

/// Why a formula was refused; every message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormulaError {
    #[error("the formula is empty; write e.g. \"1d20\" or \"3d6+2\"")]
    Empty,
    #[error("unexpected {found:?} at position {position} of {formula:?}; expected {expected}")]
    Unexpected {
        formula: String,
        position: usize,
        found: String,
        expected: &'static str,
    },
    #[error("the formula has no dice; write e.g. \"1d20+{0}\"")]
    NoDice(u32),
    #[error("{count} dice in one term is not allowed: the count must be at least 1")]
    ZeroDice { count: u32 },
    #[error("a d{sides} is not allowed: dice need between 2 and {max} sides")]
    Sides { sides: u32, max: u32 },
    #[error("{total} dice in total is more than the limit of {max}")]
    TooManyDice { total: u64, max: u32 },
    #[error("the modifier {value} is larger than the limit of {max}")]
    Modifier { value: u64, max: u32 },
    #[error("{count} terms is more than the limit of {max}")]
    TooManyTerms { count: usize, max: usize },
    #[error("keeping {keep} of {count} dice is not allowed: keep between 1 and {count}")]
    Keep { keep: u64, count: u32 },
    #[error(
        "rerolling {at_most} or less on a d{sides} is not allowed: reroll between 1 and {} or less",
        sides - 1
    )]
    Reroll { at_most: u64, sides: u32 },
}

impl Formula {
    /// Parses `text` and checks it against `limits`.
    pub fn parse(text: &str, limits: &Limits) -> Result<Formula, FormulaError> {
        let mut p = Parser { text, pos: 0 };
        p.skip_space();
        if p.at_end() {
            return Err(FormulaError::Empty);
        }
        let mut terms = Vec::new();
        let mut negative = false;
        loop {
            terms.push(p.term(negative, limits)?);
            p.skip_space();
            if p.at_end() {
                break;
            }
            negative = match p.peek() {
                Some('+') => false,
                Some('-') => true,
                _ => return Err(p.unexpected(p.expected_after_term(terms.last()))),
            };
            p.pos += 1;
            p.skip_space();
            if terms.len() >= limits.max_terms {
                return Err(FormulaError::TooManyTerms {
                    count: terms.len() + 1,
                    max: limits.max_terms,
                });
            }
        }
        let formula = Formula { terms };
        formula.check(limits)?;
        Ok(formula)
    }

    /// The total number of dice before any explode.
    pub fn dice_count(&self) -> u64 {
        self.terms
            .iter()
            .map(|t| match t {
                Term::Dice { count, .. } => *count as u64,
                Term::Modifier { .. } => 0,
            })
            .sum()
    }

    fn check(&self, limits: &Limits) -> Result<(), FormulaError> {
        let total = self.dice_count();
        if total == 0 {
            let m = self.terms.iter().find_map(|t| match t {
                Term::Modifier { value, .. } => Some(*value),
                _ => None,
            });
            return Err(FormulaError::NoDice(m.unwrap_or(0)));
        }
        if total > limits.max_dice as u64 {
            return Err(FormulaError::TooManyDice {
                total,
                max: limits.max_dice,
            });
        }
        Ok(())
    }
}

impl Term {
    /// The term's canonical spelling without its sign: `2d20kh1`, `3d6!`, `4`.
    pub fn spelling(&self) -> String {
        match *self {
            Term::Dice {
                count,
                sides,
                options,
                ..
            } => options.spell(count, sides, "kh", "kl"),
            Term::Modifier { value, .. } => value.to_string(),
        }
    }

    /// Whether the term is subtracted.
    pub fn is_negative(&self) -> bool {
        match *self {
            Term::Dice { negative, .. } | Term::Modifier { negative, .. } => negative,
        }
    }
}

impl fmt::Display for Formula {
    /// The canonical spelling: `1d20+1d4-2`, `2d20kh1+5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            let body = t.spelling();
            match (i, t.is_negative()) {
                (_, true) => write!(f, "-{body}")?,
                (0, false) => write!(f, "{body}")?,
                (_, false) => write!(f, "+{body}")?,
            }
        }
        Ok(())
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_whitespace()) {
            self.pos += self.peek().map_or(1, char::len_utf8);
        }
    }

    /// Consumes `letter` (either case) when it comes next.
    fn eat(&mut self, letter: char) -> bool {
        if matches!(self.peek(), Some(c) if c.eq_ignore_ascii_case(&letter)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn unexpected(&self, expected: &'static str) -> FormulaError {
        FormulaError::Unexpected {
            formula: self.text.to_string(),
            position: self.pos,
            found: self
                .peek()
                .map_or_else(|| "end".to_string(), |c| c.to_string()),
            expected,
        }
    }

    /// What may follow `term`, for the message of a character that may not.
    fn expected_after_term(&self, term: Option<&Term>) -> &'static str {
        match term {
            Some(Term::Dice { options, .. }) => match options {
                DiceOptions { keep: Some(_), .. } => "\"+\", \"-\" or the end",
                DiceOptions { redo: Some(_), .. } => "\"kh\", \"kl\", \"+\", \"-\" or the end",
                _ => "\"!\", \"r\", \"kh\", \"kl\", \"+\", \"-\" or the end",
            },
            _ => "\"+\", \"-\" or the end",
        }
    }

    /// Digits as a number; values past `u32` saturate (and then fail a limit).
    fn number(&mut self, expected: &'static str) -> Result<u64, FormulaError> {
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.unexpected(expected));
        }
        Ok(self.text[start..self.pos]
            .parse::<u64>()
            .unwrap_or(u64::MAX))
    }

    fn term(&mut self, negative: bool, limits: &Limits) -> Result<Term, FormulaError> {
        let n = self.number("a number such as \"1d20\" or \"3\"")?;
        if !self.eat('d') {
            if n > limits.max_modifier as u64 {
                return Err(FormulaError::Modifier {
                    value: n,
                    max: limits.max_modifier,
                });
            }
            return Ok(Term::Modifier {
                negative,
                value: n as u32,
            });
        }
        let sides = self.number("the number of sides after \"d\"")?;
        if n == 0 {
            return Err(FormulaError::ZeroDice { count: 0 });
        }
        if n > limits.max_dice as u64 {
            return Err(FormulaError::TooManyDice {
                total: n,
                max: limits.max_dice,
            });
        }
        if sides < 2 || sides > limits.max_sides as u64 {
            return Err(FormulaError::Sides {
                sides: sides.min(u32::MAX as u64) as u32,
                max: limits.max_sides,
            });
        }
        let (count, sides) = (n as u32, sides as u32);
        let options = self.options(count, sides)?;
        Ok(Term::Dice {
            negative,
            count,
            sides,
            options,
        })
    }

    /// The options after `count`d`sides`: a redo, then a keep, each at most once.
    fn options(&mut self, count: u32, sides: u32) -> Result<DiceOptions, FormulaError> {
        self.skip_space();
        let redo = if self.eat('!') {
            Some(Redo::Explode)
        } else if self.eat('r') {
            let at_most = self.number("the face to reroll at or below after \"r\"")?;
            if at_most == 0 || at_most >= sides as u64 {
                return Err(FormulaError::Reroll { at_most, sides });
            }
            Some(Redo::RerollAtMost(at_most as u32))
        } else {
            None
        };
        self.skip_space();
        let keep = if self.eat('k') {
            let lowest = self.eat('l');
            if !lowest {
                self.eat('h');
            }
            let keep = self.number("how many dice to keep after \"kh\" or \"kl\"")?;
            if keep == 0 || keep > count as u64 {
                return Err(FormulaError::Keep { keep, count });
            }
            let keep = keep as u32;
            Some(if lowest {
                Keep::Lowest(keep)
            } else {
                Keep::Highest(keep)
            })
        } else {
            None
        };
        Ok(DiceOptions { redo, keep })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Formula, FormulaError> {
        Formula::parse(s, &Limits::default())
    }

    fn dice(s: &str) -> (u32, u32, DiceOptions) {
        match parse(s).unwrap().terms[0] {
            Term::Dice {
                count,
                sides,
                options,
                ..
            } => (count, sides, options),
            t => panic!("{s}: {t:?}"),
        }
    }

    #[test]
    fn seed_examples_parse() {
        assert_eq!(
            parse("1d20").unwrap().terms,
            vec![Term::Dice {
                negative: false,
                count: 1,
                sides: 20,
                options: DiceOptions::NONE,
            }]
        );
        assert_eq!(
            parse("3d6+2").unwrap().terms,
            vec![
                Term::Dice {
                    negative: false,
                    count: 3,
                    sides: 6,
                    options: DiceOptions::NONE,
                },
                Term::Modifier {
                    negative: false,
                    value: 2
                }
            ]
        );
        assert_eq!(parse("2d10-1").unwrap().to_string(), "2d10-1");
    }

    #[test]
    fn sums_of_terms_and_spaces() {
        let f = parse(" 1d20 + 1D4 - 1d6 + 3 ").unwrap();
        assert_eq!(f.to_string(), "1d20+1d4-1d6+3");
        assert_eq!(f.dice_count(), 3);
    }

    #[test]
    fn advantage_and_disadvantage_keep_the_highest_or_lowest() {
        let advantage = DiceOptions {
            redo: None,
            keep: Some(Keep::Highest(1)),
        };
        assert_eq!(dice("2d20kh1"), (2, 20, advantage));
        assert_eq!(
            dice("2d20k1"),
            (2, 20, advantage),
            "k alone keeps the highest"
        );
        assert_eq!(dice("2d20KH1"), (2, 20, advantage));
        assert_eq!(
            dice("2d20kl1").2.keep,
            Some(Keep::Lowest(1)),
            "disadvantage"
        );
        assert_eq!(parse("4d6 kh3 + 2").unwrap().to_string(), "4d6kh3+2");
        assert_eq!(parse("2d20k1").unwrap().to_string(), "2d20kh1");
    }

    #[test]
    fn exploding_and_rerolled_dice() {
        assert_eq!(dice("3d6!").2.redo, Some(Redo::Explode));
        assert_eq!(dice("2d6r1").2.redo, Some(Redo::RerollAtMost(1)));
        assert_eq!(dice("2d6R2").2.redo, Some(Redo::RerollAtMost(2)));
        assert_eq!(parse("4d6r1kh3").unwrap().to_string(), "4d6r1kh3");
        assert_eq!(parse("5d10!kl2-1").unwrap().to_string(), "5d10!kl2-1");
    }

    #[test]
    fn bad_syntax_says_where() {
        let e = parse("1d").unwrap_err();
        assert!(e.to_string().contains("sides"), "{e}");
        let e = parse("1d20+").unwrap_err();
        assert!(
            matches!(e, FormulaError::Unexpected { position: 5, .. }),
            "{e:?}"
        );
        assert!(matches!(parse("d20"), Err(FormulaError::Unexpected { .. })));
        assert!(matches!(
            parse("1d20*2"),
            Err(FormulaError::Unexpected { .. })
        ));
        assert_eq!(parse("  "), Err(FormulaError::Empty));
        assert_eq!(parse("5"), Err(FormulaError::NoDice(5)));
    }

    #[test]
    fn options_come_once_each_redo_before_keep() {
        for bad in [
            "2d20kh1kh1",
            "2d20kh1r1",
            "3d6!!",
            "3d6!r1",
            "4d6r1!",
            "3d6x",
        ] {
            assert!(
                matches!(parse(bad), Err(FormulaError::Unexpected { .. })),
                "{bad}: {:?}",
                parse(bad)
            );
        }
        assert!(matches!(
            parse("2d20kh"),
            Err(FormulaError::Unexpected { .. })
        ));
        assert!(matches!(
            parse("2d6r"),
            Err(FormulaError::Unexpected { .. })
        ));
        let e = parse("1d20x").unwrap_err().to_string();
        assert!(e.contains("\"kh\""), "the message names the options: {e}");
    }

    #[test]
    fn limits_are_enforced() {
        assert!(matches!(parse("0d6"), Err(FormulaError::ZeroDice { .. })));
        assert!(matches!(
            parse("1d1"),
            Err(FormulaError::Sides { sides: 1, .. })
        ));
        assert!(matches!(
            parse("1d101"),
            Err(FormulaError::Sides {
                sides: 101,
                max: 100
            })
        ));
        assert!(matches!(
            parse("101d6"),
            Err(FormulaError::TooManyDice { total: 101, .. })
        ));
        assert!(matches!(
            parse("60d6+60d6"),
            Err(FormulaError::TooManyDice { total: 120, .. })
        ));
        assert!(matches!(
            parse("1d6+101"),
            Err(FormulaError::Modifier { value: 101, .. })
        ));
        assert!(matches!(
            parse("1d6+99999999999999999999999"),
            Err(FormulaError::Modifier { .. })
        ));
        let many = vec!["1d2"; 21].join("+");
        assert!(matches!(
            parse(&many),
            Err(FormulaError::TooManyTerms { .. })
        ));
        let tight = Limits {
            max_dice: 2,
            max_sides: 6,
            ..Limits::default()
        };
        assert!(Formula::parse("2d6", &tight).is_ok());
        assert!(Formula::parse("1d8", &tight).is_err());
        assert!(Formula::parse("1d6+2d6", &tight).is_err());
    }

    #[test]
    fn options_keep_the_limits() {
        // The count and sides limits hold whatever follows the dice.
        assert!(matches!(
            parse("101d6kh3"),
            Err(FormulaError::TooManyDice { total: 101, .. })
        ));
        assert!(matches!(
            parse("1d101!"),
            Err(FormulaError::Sides { sides: 101, .. })
        ));
        assert!(matches!(
            parse("60d6r1+60d6!"),
            Err(FormulaError::TooManyDice { total: 120, .. })
        ));
        // A keep is between 1 and the term's count.
        assert_eq!(
            parse("2d20kh3"),
            Err(FormulaError::Keep { keep: 3, count: 2 })
        );
        assert_eq!(
            parse("2d20kl0"),
            Err(FormulaError::Keep { keep: 0, count: 2 })
        );
        assert!(matches!(
            parse("2d20kh99999999999999999999999"),
            Err(FormulaError::Keep { .. })
        ));
        // A reroll leaves at least the top face alone, so it ends.
        assert_eq!(
            parse("2d6r6"),
            Err(FormulaError::Reroll {
                at_most: 6,
                sides: 6
            })
        );
        assert!(matches!(parse("2d6r0"), Err(FormulaError::Reroll { .. })));
        let e = parse("2d6r6").unwrap_err().to_string();
        assert!(e.contains("between 1 and 5"), "{e}");
    }
}
