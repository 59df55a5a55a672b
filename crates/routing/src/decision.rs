//! From signals to a decision: each skill's classifier, fitted on the
//! catalog's examples, plus how much an input is like each script's
//! examples, unlike its counter-examples and unlike narration-only input,
//! and the rare words it shares with the script's texts; the skills that
//! clear the thresholds are the turn's.

/// How the signals are weighed. The defaults were chosen on the tuning half
/// of the labelled set (docs/narrator.md, "Routing").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Similarity to a script's examples is the mean of the best `top_k`.
    pub top_k: usize,
    /// Weight of the similarity to the skill's and script's descriptions.
    pub description_weight: f32,
    /// Weight of how far the closest counter-example beats the closest example.
    pub counter_weight: f32,
    /// Weight of the narration-only class's similarity, subtracted.
    pub narration_weight: f32,
    /// Weight of the keyword score, which counts up to `keyword_cap`.
    pub keyword_weight: f32,
    pub keyword_cap: f32,
    /// The L2 penalty of each skill's classifier (docs/narrator.md).
    pub l2: f32,
    /// A skill's score is its classifier's log-odds plus this many times its
    /// best script's example score (meaning and keywords).
    pub example_weight: f32,
    /// A skill is used when its score is at least this.
    pub threshold: f32,
    /// A skill after the first needs at least this score.
    pub further_threshold: f32,
    /// The best skill must also score at least the narration-only class's
    /// score plus this (see [`crate::ExampleIndex::narration_score`]): an
    /// input more like narration-only input than like any skill's examples
    /// needs narration only.
    pub narration_margin: f32,
    /// Most skills one turn uses.
    pub max_skills: usize,
    /// Whether each clause of the input is scored on its own too.
    pub clauses: bool,
    /// A skill after the first must also be the best skill of one of the
    /// input's clauses (one clause, one skill).
    pub further_wins_a_clause: bool,
    /// A skill after the first that is the best skill of one of the
    /// input's clauses and scores at least this *on that clause* is used
    /// whatever its score for the whole input (each clause of a compound
    /// deed asks for its own skill: "what did the abbot tell us, and do the
    /// monks like us?"). Infinite: never.
    pub clause_threshold: f32,
}

impl Default for Calibration {
    /// The best of a grid search on the tuning inputs (260 of 292 exact),
    /// and the clause threshold searched after it on those and the compound
    /// deeds' tuning half (docs/narrator.md, "Routing").
    fn default() -> Self {
        Calibration {
            top_k: 5,
            description_weight: 0.0,
            counter_weight: 1.0,
            narration_weight: 0.75,
            keyword_weight: 0.1,
            keyword_cap: 3.0,
            l2: 0.0003,
            example_weight: 20.0,
            threshold: -0.4,
            further_threshold: 0.6,
            narration_margin: -1.0,
            max_skills: 2,
            clauses: true,
            further_wins_a_clause: true,
            clause_threshold: 4.0,
        }
    }
}

impl Calibration {
    /// The calibration of a router reading every language's examples with
    /// multilingual-e5-small: the best of a grid search on the English
    /// tuning inputs and the French, Spanish and German tuning halves
    /// together, 388 of 460 exact (docs/narrator.md, "Routing in every
    /// language"). e5's similarities lie closer together than MiniLM's, so
    /// the examples weigh less beside the classifiers, and the words shared
    /// with examples in the input's language weigh more.
    pub fn multilingual() -> Self {
        Calibration {
            keyword_weight: 0.2,
            example_weight: 10.0,
            threshold: 2.4,
            further_threshold: 2.4,
            narration_margin: 1.0,
            ..Calibration::default()
        }
    }
}

/// How one text compares with one script's texts (cosine similarities).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Signals {
    /// Mean of the best `top_k` example similarities.
    pub examples: f32,
    /// The best example similarity.
    pub best_example: f32,
    /// The best counter-example similarity (0 without counter-examples).
    pub counter: f32,
    pub description: f32,
    /// Mean of the best `top_k` similarities to the narration-only class.
    pub narration: f32,
}

/// The meaning part of a script's score for one text.
pub fn semantic_score(s: &Signals, cal: &Calibration) -> f32 {
    s.examples + cal.description_weight * s.description
        - cal.counter_weight * (s.counter - s.best_example).max(0.0)
        - cal.narration_weight * s.narration
}

/// The keyword part of a script's score.
pub fn keyword_score(keywords: f64, cal: &Calibration) -> f32 {
    cal.keyword_weight * (keywords as f32).min(cal.keyword_cap) / cal.keyword_cap.max(1e-6)
}

/// A skill the turn uses, and the script routing chose for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed {
    pub skill: String,
    pub script: String,
    pub score: f32,
}

/// One skill's scores for one input: for the whole input, then for each clause.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillScore {
    pub skill: String,
    /// Its best script for the whole input.
    pub script: String,
    /// The skill's score per text (whole input first).
    pub per_text: Vec<f32>,
    /// What the whole input's score is made of.
    pub parts: ScoreParts,
}

/// The parts of a skill's score for the whole input:
/// `model + example_weight × (meaning + keywords)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScoreParts {
    /// The example score from meaning (examples, counter-examples,
    /// narration-only) of the script whose examples the input is most like
    /// (not always the script routed to, which its sibling classifier picks).
    pub meaning: f32,
    /// That same script's keyword score.
    pub keywords: f32,
    /// The skill's classifier's log-odds.
    pub model: f32,
}

/// The skills the turn uses, best first: the best one when it scores at
/// least the threshold and at least `narration` (the narration-only
/// class's score) plus the margin, then others scoring at least
/// `further_threshold` (and, with `further_wins_a_clause`, scoring best on
/// one of the input's clauses), at most `max_skills`. None: narration only.
pub fn decide(skills: &[SkillScore], narration: f32, cal: &Calibration) -> Vec<Routed> {
    let whole = |s: &SkillScore| s.per_text.first().copied().unwrap_or(f32::MIN);
    let mut ranked: Vec<&SkillScore> = skills.iter().collect();
    ranked.sort_by(|a, b| whole(b).total_cmp(&whole(a)));
    let clauses = skills.iter().map(|s| s.per_text.len()).max().unwrap_or(0);
    // Each clause's best skill, and its score on that clause.
    let clause_winners: Vec<(&str, f32)> = (1..clauses)
        .filter_map(|t| {
            skills
                .iter()
                .filter(|s| s.per_text.len() > t)
                .max_by(|a, b| a.per_text[t].total_cmp(&b.per_text[t]))
                .map(|s| (s.skill.as_str(), s.per_text[t]))
        })
        .collect();
    let wins_a_clause = |skill: &str| clause_winners.iter().any(|(s, _)| *s == skill);
    let carries_a_clause = |skill: &str| {
        clause_winners
            .iter()
            .any(|(s, score)| *s == skill && *score >= cal.clause_threshold)
    };
    ranked
        .into_iter()
        .enumerate()
        .filter(|(i, s)| {
            let score = whole(s);
            if *i == 0 {
                score >= cal.threshold && score >= narration + cal.narration_margin
            } else {
                carries_a_clause(&s.skill)
                    || (score >= cal.threshold
                        && score >= cal.further_threshold
                        && (!cal.further_wins_a_clause || wins_a_clause(&s.skill)))
            }
        })
        .map(|(_, s)| Routed {
            skill: s.skill.clone(),
            script: s.script.clone(),
            score: whole(s),
        })
        .take(cal.max_skills)
        .collect()
}

/// Whether the input's clauses can change what [`decide`] makes of
/// `skills` scored on the whole input alone: when a clause may carry a
/// skill of its own, or a skill after the best one may be used and must
/// win a clause to be.
pub fn clauses_can_decide(skills: &[SkillScore], cal: &Calibration) -> bool {
    if cal.clause_threshold.is_finite() && cal.max_skills > 1 {
        return true;
    }
    let mut whole: Vec<f32> = skills
        .iter()
        .map(|s| s.per_text.first().copied().unwrap_or(f32::MIN))
        .collect();
    whole.sort_by(|a, b| b.total_cmp(a));
    cal.further_wins_a_clause
        && cal.max_skills > 1
        && whole.first().is_some_and(|&best| best >= cal.threshold)
        && whole
            .get(1)
            .is_some_and(|&next| next >= cal.threshold && next >= cal.further_threshold)
}

/// The mean of the `k` largest of `values` (0 when empty).
pub fn top_k_mean(values: &mut [f32], k: usize) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(|a, b| b.total_cmp(a));
    let k = k.clamp(1, values.len());
    values[..k].iter().sum::<f32>() / k as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A narration-only score no skill has to beat.
    const NO_NARRATION: f32 = f32::MIN;

    fn s(skill: &str, per_text: &[f32]) -> SkillScore {
        SkillScore {
            skill: skill.into(),
            script: format!("{skill}-script"),
            per_text: per_text.to_vec(),
            parts: ScoreParts::default(),
        }
    }

    #[test]
    fn the_best_skill_over_the_threshold_then_others_over_the_further_one() {
        let cal = Calibration {
            threshold: 0.0,
            further_threshold: 2.0,
            further_wins_a_clause: false,
            max_skills: 2,
            ..Calibration::default()
        };
        let got = decide(
            &[s("memory", &[1.0]), s("dice", &[3.0]), s("rep", &[2.5])],
            NO_NARRATION,
            &cal,
        );
        assert_eq!(
            got.iter()
                .map(|r| (r.skill.as_str(), r.script.as_str()))
                .collect::<Vec<_>>(),
            [("dice", "dice-script"), ("rep", "rep-script")]
        );
        // Under the further threshold: one skill.
        assert_eq!(
            decide(&[s("dice", &[3.0]), s("rep", &[1.5])], NO_NARRATION, &cal).len(),
            1
        );
        // The best one under the threshold: narration only.
        assert!(decide(&[s("dice", &[-0.5]), s("rep", &[-1.0])], NO_NARRATION, &cal).is_empty());
        let one = Calibration {
            max_skills: 1,
            ..cal
        };
        assert_eq!(
            decide(&[s("dice", &[3.0]), s("rep", &[2.5])], NO_NARRATION, &one).len(),
            1
        );
    }

    #[test]
    fn the_best_skill_must_beat_narration_only_by_the_margin() {
        let cal = Calibration {
            threshold: 0.0,
            narration_margin: -1.0,
            ..Calibration::default()
        };
        let skills = [s("dice", &[3.0]), s("rep", &[0.5])];
        assert_eq!(decide(&skills, 3.5, &cal).len(), 1);
        // "I put my sword away": more like narration-only input than like a skill's.
        assert!(decide(&skills, 4.5, &cal).is_empty());
    }

    #[test]
    fn a_further_skill_must_win_a_clause_when_asked() {
        let cal = Calibration {
            threshold: 0.0,
            further_threshold: 1.0,
            further_wins_a_clause: true,
            ..Calibration::default()
        };
        // "I attack the bandit and remember his face": each clause has its skill.
        let two = [s("dice", &[3.0, 4.0, -1.0]), s("memory", &[2.0, -2.0, 3.0])];
        assert_eq!(decide(&two, NO_NARRATION, &cal).len(), 2);
        // One clause wins for dice only: memory stays out.
        let one = [s("dice", &[3.0, 4.0]), s("memory", &[2.0, 1.0])];
        assert_eq!(decide(&one, NO_NARRATION, &cal).len(), 1);
    }

    #[test]
    fn a_clause_that_scores_its_skill_high_enough_carries_it() {
        let cal = Calibration {
            threshold: 0.0,
            further_threshold: 1.0,
            further_wins_a_clause: true,
            clause_threshold: 4.0,
            ..Calibration::default()
        };
        // Memory is low on the whole input, and wins its clause by far.
        let carried = [s("dice", &[3.0, 5.0, -1.0]), s("memory", &[0.2, -2.0, 4.5])];
        let chosen: Vec<String> = decide(&carried, NO_NARRATION, &cal)
            .into_iter()
            .map(|r| r.skill)
            .collect();
        assert_eq!(chosen, ["dice", "memory"]);
        // Winning its clause below the clause threshold is not enough.
        let weak = [s("dice", &[3.0, 5.0, -1.0]), s("memory", &[0.2, -2.0, 3.5])];
        assert_eq!(decide(&weak, NO_NARRATION, &cal).len(), 1);
        // Nor is scoring high on a clause another skill wins.
        let beaten = [s("dice", &[3.0, 5.0, 6.0]), s("memory", &[0.2, -2.0, 4.5])];
        assert_eq!(decide(&beaten, NO_NARRATION, &cal).len(), 1);
        // A clause threshold makes clauses worth embedding for any input.
        assert!(clauses_can_decide(
            &[s("dice", &[3.0]), s("memory", &[-5.0])],
            &cal
        ));
    }

    #[test]
    fn clauses_are_needed_only_for_a_possible_second_skill() {
        let cal = Calibration {
            threshold: 0.0,
            further_threshold: 1.0,
            further_wins_a_clause: true,
            clause_threshold: f32::INFINITY,
            ..Calibration::default()
        };
        assert!(clauses_can_decide(
            &[s("dice", &[3.0]), s("memory", &[1.5])],
            &cal
        ));
        // The second under the further threshold, or nothing at all used.
        assert!(!clauses_can_decide(
            &[s("dice", &[3.0]), s("memory", &[0.5])],
            &cal
        ));
        assert!(!clauses_can_decide(
            &[s("dice", &[-1.0]), s("memory", &[-2.0])],
            &cal
        ));
        // Without the clause rule, or with one skill at most, never.
        let free = Calibration {
            further_wins_a_clause: false,
            ..cal
        };
        assert!(!clauses_can_decide(
            &[s("dice", &[3.0]), s("memory", &[1.5])],
            &free
        ));
        let one = Calibration {
            max_skills: 1,
            ..cal
        };
        assert!(!clauses_can_decide(
            &[s("dice", &[3.0]), s("memory", &[1.5])],
            &one
        ));
    }

    #[test]
    fn counter_examples_and_narration_lower_the_score() {
        let cal = Calibration::default();
        let plain = Signals {
            examples: 0.6,
            best_example: 0.7,
            ..Signals::default()
        };
        let countered = Signals {
            counter: 0.9,
            ..plain
        };
        let chatty = Signals {
            narration: 0.5,
            ..plain
        };
        assert!(semantic_score(&countered, &cal) < semantic_score(&plain, &cal));
        assert!(semantic_score(&chatty, &cal) < semantic_score(&plain, &cal));
        assert!(keyword_score(10.0, &cal) <= cal.keyword_weight + 1e-6);
        assert_eq!(top_k_mean(&mut [0.1, 0.9, 0.5], 2), 0.7);
        assert_eq!(top_k_mean(&mut [], 2), 0.0);
    }
}
