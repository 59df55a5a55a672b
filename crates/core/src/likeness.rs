//! How alike in meaning two texts are, as a sentence embedding model judges
//! it. The engine only asks; a host with a model answers (the narrator lends
//! the embedding model its router already holds).

/// Scores texts against a query by meaning.
pub trait Likeness: Send + Sync {
    /// One cosine similarity (−1 ..= 1, higher is more alike) per text of
    /// `texts`, in order, to `query`; an error says why none could be had.
    fn similarities(&self, query: &str, texts: &[String]) -> Result<Vec<f32>, String>;
}
