//! Dice formulas.
//!
//! The dice-roller grammar of docs/skills-builtin.md, a sum of terms:
//!
//! ```text
//! formula  ::= term (("+" | "-") term)*      at least one dice term
//! term     ::= dice | modifier
//! dice     ::= count ("d" | "D") sides        count 1..=maxDice, sides 2..=maxSides
//! modifier ::= integer                        0..=100
//! ```
//!
//! Spaces between tokens are ignored. Examples: `1d20`, `3d6+2`, `2d10-1`,
//! `1d20+1d4+3`. There is no keep-highest/lowest.

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
    },
    Modifier {
        negative: bool,
        value: u32,
    },
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
                _ => return Err(p.unexpected("\"+\", \"-\" or the end")),
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

    /// The total number of dice.
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

impl fmt::Display for Formula {
    /// The canonical spelling: `1d20+1d4-2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            let (neg, body) = match t {
                Term::Dice {
                    negative,
                    count,
                    sides,
                } => (*negative, format!("{count}d{sides}")),
                Term::Modifier { negative, value } => (*negative, value.to_string()),
            };
            match (i, neg) {
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
        if matches!(self.peek(), Some('d' | 'D')) {
            self.pos += 1;
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
            Ok(Term::Dice {
                negative,
                count: n as u32,
                sides: sides as u32,
            })
        } else {
            if n > limits.max_modifier as u64 {
                return Err(FormulaError::Modifier {
                    value: n,
                    max: limits.max_modifier,
                });
            }
            Ok(Term::Modifier {
                negative,
                value: n as u32,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Formula, FormulaError> {
        Formula::parse(s, &Limits::default())
    }

    #[test]
    fn seed_examples_parse() {
        assert_eq!(
            parse("1d20").unwrap().terms,
            vec![Term::Dice {
                negative: false,
                count: 1,
                sides: 20
            }]
        );
        assert_eq!(
            parse("3d6+2").unwrap().terms,
            vec![
                Term::Dice {
                    negative: false,
                    count: 3,
                    sides: 6
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
        assert!(matches!(
            parse("4d6kh3"),
            Err(FormulaError::Unexpected { .. })
        ));
        assert_eq!(parse("  "), Err(FormulaError::Empty));
        assert_eq!(parse("5"), Err(FormulaError::NoDice(5)));
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
}
