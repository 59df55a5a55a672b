//! Pure arithmetic of standing: decay over days and the word for a score.

use super::config::Scale;

/// `score` after `days` in-game days at `rate` lost per day, rounded to the
/// nearest whole point; the sign never flips and no days means no change.
pub fn decayed(score: i64, rate: f64, days: i64) -> i64 {
    if days <= 0 || rate <= 0.0 || score == 0 {
        return score;
    }
    let factor = (1.0 - rate.min(1.0)).powf(days as f64);
    (score as f64 * factor).round() as i64
}

/// A word for a score on a scale: hostile, unfriendly, neutral, friendly, allied.
pub fn label(score: i64, scale: &Scale) -> &'static str {
    let share = if score >= 0 {
        score as f64 / scale.max.max(1) as f64
    } else {
        score as f64 / (-scale.min).max(1) as f64
    };
    match share {
        s if s >= 0.6 => "allied",
        s if s >= 0.2 => "friendly",
        s if s > -0.2 => "neutral",
        s if s > -0.6 => "unfriendly",
        _ => "hostile",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decay_fades_toward_zero() {
        assert_eq!(decayed(80, 0.1, 0), 80);
        assert_eq!(decayed(80, 0.1, 1), 72);
        assert_eq!(decayed(80, 0.1, 2), 65); // 64.8
        assert_eq!(decayed(-50, 0.5, 1), -25);
        assert_eq!(decayed(40, 0.0, 10), 40);
        assert_eq!(decayed(40, 1.0, 1), 0);
        assert_eq!(decayed(40, 0.1, -3), 40);
    }

    #[test]
    fn labels_follow_the_scale() {
        let s = Scale::default();
        assert_eq!(label(0, &s), "neutral");
        assert_eq!(label(25, &s), "friendly");
        assert_eq!(label(100, &s), "allied");
        assert_eq!(label(-30, &s), "unfriendly");
        assert_eq!(label(-100, &s), "hostile");
        let narrow = Scale { min: -10, max: 10 };
        assert_eq!(label(7, &narrow), "allied");
    }
}
