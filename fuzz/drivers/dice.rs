//! What the dice fuzz target feeds its input to; the built-in skills' corpus
//! replay test includes this same file. `super::formula` is the dice formula
//! module of crates/skills-builtin.

use super::formula::{Formula, Limits};

/// Parses `data` as a dice formula under the default limits; an accepted
/// formula respects them.
pub fn dice_formula(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = Limits::default();
    if let Ok(formula) = Formula::parse(text, &limits) {
        assert!(!formula.terms.is_empty());
        assert!(formula.terms.len() <= limits.max_terms);
        assert!(formula.dice_count() <= u64::from(limits.max_dice));
    }
}
