//! From signals to a decision: how much an input is like each script's
//! examples, unlike its counter-examples and unlike narration-only input,
//! plus the rare words it shares with the script's texts; the skills that
//! clear the threshold are the turn's.

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
    /// A skill is used when its best script scores at least this.
    pub threshold: f32,
    /// A skill after the first also needs this share of the first one's score.
    pub further_share: f32,
    /// Most skills one turn uses.
    pub max_skills: usize,
    /// Whether each clause of the input is scored on its own too.
    pub clauses: bool,
    /// A skill after the first must also be the best skill of one of the
    /// input's clauses (one clause, one skill).
    pub further_wins_a_clause: bool,
}

impl Default for Calibration {
    /// The best of a grid search on the tuning half (100 of 112 exact).
    fn default() -> Self {
        Calibration {
            top_k: 5,
            description_weight: 0.0,
            counter_weight: 1.0,
            narration_weight: 0.75,
            keyword_weight: 0.1,
            keyword_cap: 3.0,
            threshold: 0.09,
            further_share: 0.3,
            max_skills: 2,
            clauses: true,
            further_wins_a_clause: true,
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

/// One script's score for an input.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptScore {
    pub skill: String,
    pub script: String,
    pub score: f32,
}

/// A skill the turn uses, and the script routing chose for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed {
    pub skill: String,
    pub script: String,
    pub score: f32,
}

/// The skills whose best script scores at least the threshold (a later one
/// also at least `further_share` of the first), best first, at most
/// `max_skills`, each with its best script. None: narration only.
pub fn decide(scores: &[ScriptScore], cal: &Calibration) -> Vec<Routed> {
    decide_among(scores, None, cal)
}

/// [`decide`], where a skill after the first must also be in `clause_winners`
/// when that is given.
pub fn decide_among(
    scores: &[ScriptScore],
    clause_winners: Option<&[String]>,
    cal: &Calibration,
) -> Vec<Routed> {
    let mut best: Vec<Routed> = Vec::new();
    for s in scores {
        match best.iter_mut().find(|r| r.skill == s.skill) {
            Some(r) if r.score >= s.score => {}
            Some(r) => {
                r.script = s.script.clone();
                r.score = s.score;
            }
            None => best.push(Routed {
                skill: s.skill.clone(),
                script: s.script.clone(),
                score: s.score,
            }),
        }
    }
    best.sort_by(|a, b| b.score.total_cmp(&a.score));
    let top = best.first().map_or(0.0, |r| r.score);
    best.into_iter()
        .enumerate()
        .filter(|(i, r)| {
            r.score >= cal.threshold
                && (*i == 0
                    || (r.score >= cal.further_share * top
                        && clause_winners.is_none_or(|w| w.contains(&r.skill))))
        })
        .map(|(_, r)| r)
        .take(cal.max_skills)
        .collect()
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

    fn s(skill: &str, script: &str, score: f32) -> ScriptScore {
        ScriptScore {
            skill: skill.into(),
            script: script.into(),
            score,
        }
    }

    #[test]
    fn skills_above_the_threshold_best_first_with_their_best_script() {
        let cal = Calibration {
            threshold: 0.1,
            max_skills: 2,
            further_share: 0.0,
            ..Calibration::default()
        };
        let scores = [
            s("memory", "store", 0.2),
            s("memory", "recall", 0.3),
            s("dice", "roll", 0.4),
            s("rep", "update", 0.05),
        ];
        let got = decide(&scores, &cal);
        assert_eq!(
            got.iter()
                .map(|r| (r.skill.as_str(), r.script.as_str()))
                .collect::<Vec<_>>(),
            [("dice", "roll"), ("memory", "recall")]
        );
        let one = Calibration {
            max_skills: 1,
            ..cal
        };
        assert_eq!(decide(&scores, &one).len(), 1);
        let share = Calibration {
            further_share: 0.8,
            ..cal
        };
        assert_eq!(decide(&scores, &share).len(), 1);
        assert!(decide(&[s("rep", "update", 0.05)], &cal).is_empty());
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
