//! Hybrid ranking of recall candidates: meaning (cosine similarity) and
//! words (FTS5 bm25) in one score.
//!
//! With embeddings: `score = 0.8 · cosine + 0.2 · lexical`, where `lexical`
//! is a candidate's bm25 relative to the best bm25 of the query (1 for the
//! best keyword match, 0 for no keyword match); candidates under the
//! similarity threshold are dropped; a memory stored without an embedding
//! can still match by words (`score = 0.2 · lexical`). Without a query
//! embedding: `score = lexical`.

use serde::Serialize;
use serde_json::Value;

/// Weight of meaning in the hybrid score; words get the rest.
pub const VECTOR_WEIGHT: f32 = 0.8;

/// A memory that may be recalled.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: i64,
    pub summary: String,
    pub timestamp: String,
    pub metadata: Value,
    /// Cosine similarity to the query, when both have embeddings.
    pub similarity: Option<f32>,
    /// FTS5 bm25 of the match (lower is better, ≤ 0), when the words matched.
    pub bm25: Option<f64>,
}

/// A recalled memory, as returned to the narrator.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recalled {
    pub id: i64,
    pub summary: String,
    pub timestamp: String,
    #[serde(skip_serializing_if = "Value::is_null")]
    pub metadata: Value,
    pub score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    pub keyword_match: bool,
}

/// The best `limit` candidates, best first. `hybrid` says whether the query
/// had an embedding; then candidates with a similarity under `threshold` are
/// dropped. Ties keep the newer memory first.
pub fn rank(
    candidates: Vec<Candidate>,
    hybrid: bool,
    threshold: f32,
    limit: usize,
) -> Vec<Recalled> {
    let best_bm25 = candidates
        .iter()
        .filter_map(|c| c.bm25)
        .fold(0.0f64, |a, b| a.min(b));
    let lexical = |c: &Candidate| match c.bm25 {
        Some(b) if best_bm25 < 0.0 => (b / best_bm25).clamp(0.0, 1.0) as f32,
        Some(_) => 1.0,
        None => 0.0,
    };
    let mut out: Vec<Recalled> = candidates
        .into_iter()
        .filter_map(|c| {
            let lex = lexical(&c);
            let score = match (hybrid, c.similarity) {
                (false, _) => lex,
                (true, Some(sim)) if sim >= threshold => {
                    VECTOR_WEIGHT * sim + (1.0 - VECTOR_WEIGHT) * lex
                }
                (true, Some(_)) => return None,
                // stored without an embedding: found by its words alone
                (true, None) if c.bm25.is_some() => (1.0 - VECTOR_WEIGHT) * lex,
                (true, None) => return None,
            };
            Some(Recalled {
                id: c.id,
                summary: c.summary,
                timestamp: c.timestamp,
                metadata: c.metadata,
                score,
                similarity: c.similarity,
                keyword_match: c.bm25.is_some(),
            })
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.id.cmp(&a.id)));
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: i64, similarity: Option<f32>, bm25: Option<f64>) -> Candidate {
        Candidate {
            id,
            summary: format!("m{id}"),
            timestamp: String::new(),
            metadata: Value::Null,
            similarity,
            bm25,
        }
    }

    #[test]
    fn hybrid_mixes_meaning_and_words_and_applies_the_threshold() {
        let got = rank(
            vec![
                cand(1, Some(0.70), None),
                cand(2, Some(0.65), Some(-4.0)),
                cand(3, Some(0.10), Some(-8.0)),
                cand(4, None, Some(-2.0)),
                cand(5, None, None),
            ],
            true,
            0.3,
            10,
        );
        let ids: Vec<i64> = got.iter().map(|r| r.id).collect();
        // 0.52+0.1 > 0.56; 3 under the threshold; 4 has no embedding: 0.2 × 0.25
        assert_eq!(ids, vec![2, 1, 4]);
    }

    #[test]
    fn keyword_only_orders_by_bm25_and_limits() {
        let got = rank(
            vec![
                cand(1, None, Some(-1.0)),
                cand(2, None, Some(-5.0)),
                cand(3, None, Some(-3.0)),
            ],
            false,
            0.9,
            2,
        );
        assert_eq!(got.iter().map(|r| r.id).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(got[0].score, 1.0);
    }
}
