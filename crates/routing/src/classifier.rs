//! A linear model over sentence embeddings that tells one skill's inputs
//! from everything else the catalog knows: the skill's examples against the
//! other skills' examples, its own counter-examples and the narration-only
//! class (docs/narrator.md, "Routing"). Fitted when a catalog's index is
//! built, from the authors' examples alone, so a skill the engine has never
//! seen gets one too.

use crate::index::dot;

/// A logistic-regression model: `logit(x) = w·x + b`.
#[derive(Debug, Clone, PartialEq)]
pub struct Linear {
    pub weights: Vec<f32>,
    pub bias: f32,
}

/// Gradient steps of a fit.
const STEPS: usize = 300;

impl Linear {
    /// The model's log-odds that `x` belongs to the positive class.
    pub fn logit(&self, x: &[f32]) -> f32 {
        self.bias + dot(&self.weights, x)
    }

    /// Fits a model that scores `positives` above `negatives`: each class
    /// weighs half whatever their sizes, the weights are held small by an L2
    /// penalty of `l2`, and the same inputs always give the same model.
    /// With no positive or no negative the model is constant.
    pub fn fit(positives: &[&[f32]], negatives: &[&[f32]], l2: f32) -> Linear {
        let dim = positives
            .iter()
            .chain(negatives)
            .map(|x| x.len())
            .max()
            .unwrap_or(0);
        if positives.is_empty() || negatives.is_empty() {
            let bias = if positives.is_empty() { -10.0 } else { 10.0 };
            return Linear {
                weights: vec![0.0; dim],
                bias,
            };
        }
        let rows: Vec<(&[f32], f32, f32)> = positives
            .iter()
            .map(|x| (*x, 1.0, 0.5 / positives.len() as f32))
            .chain(
                negatives
                    .iter()
                    .map(|x| (*x, 0.0, 0.5 / negatives.len() as f32)),
            )
            .collect();
        // Nesterov's accelerated gradient descent; the loss's curvature is at
        // most a quarter of the largest squared norm, plus the penalty.
        let norm = rows
            .iter()
            .map(|(x, _, _)| x.iter().map(|v| v * v).sum::<f32>())
            .fold(1.0f32, f32::max);
        let step = 1.0 / (0.25 * (norm + 1.0) + l2);
        let mut w = vec![0.0f32; dim + 1];
        let mut previous = w.clone();
        let mut grad = vec![0.0f32; dim + 1];
        for t in 0..STEPS {
            let momentum = t as f32 / (t as f32 + 3.0);
            let look: Vec<f32> = w
                .iter()
                .zip(&previous)
                .map(|(a, b)| a + momentum * (a - b))
                .collect();
            grad.iter_mut().for_each(|g| *g = 0.0);
            for (x, y, weight) in &rows {
                let z = look[dim] + dot(&look[..dim], x);
                let err = weight * (sigmoid(z) - y);
                for (g, v) in grad.iter_mut().zip(x.iter()) {
                    *g += err * v;
                }
                grad[dim] += err;
            }
            for (g, v) in grad[..dim].iter_mut().zip(&look) {
                *g += l2 * v;
            }
            previous = std::mem::replace(
                &mut w,
                look.iter().zip(&grad).map(|(v, g)| v - step * g).collect(),
            );
        }
        let bias = w.pop().unwrap_or(0.0);
        Linear { weights: w, bias }
    }
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fitted_model_separates_its_classes_and_is_deterministic() {
        let pos: Vec<Vec<f32>> = vec![vec![1.0, 0.1], vec![0.9, -0.2], vec![0.8, 0.3]];
        let neg: Vec<Vec<f32>> = vec![vec![-0.7, 0.2], vec![-1.0, 0.0]];
        let p: Vec<&[f32]> = pos.iter().map(Vec::as_slice).collect();
        let n: Vec<&[f32]> = neg.iter().map(Vec::as_slice).collect();
        let m = Linear::fit(&p, &n, 0.01);
        assert!(p.iter().all(|x| m.logit(x) > 0.0), "{m:?}");
        assert!(n.iter().all(|x| m.logit(x) < 0.0), "{m:?}");
        assert_eq!(m, Linear::fit(&p, &n, 0.01));
        // A stronger penalty keeps the weights smaller.
        let held = Linear::fit(&p, &n, 1.0);
        assert!(held.weights[0].abs() < m.weights[0].abs());
    }

    #[test]
    fn without_one_class_the_model_is_constant() {
        let x = [0.5f32, 0.5];
        assert!(Linear::fit(&[&x], &[], 0.1).logit(&x) > 0.0);
        assert!(Linear::fit(&[], &[&x], 0.1).logit(&x) < 0.0);
    }
}
