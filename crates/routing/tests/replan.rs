//! A turn's replan routes the same input again, with the failed skill
//! disabled: it reuses the scores already made (nothing is embedded again)
//! and decides as a fresh router would.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use narratoria_routing::{Embed, RouteError, Router};

/// The real model, counting the texts it embeds.
struct Counting {
    model: narratoria_embed::Embedder,
    texts: Arc<AtomicUsize>,
}

impl Embed for Counting {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RouteError> {
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Embed::embed(&self.model, texts)
    }
}

fn counting_router() -> (Router, Arc<AtomicUsize>) {
    let dir = support::embedder_dir();
    let texts = Arc::new(AtomicUsize::new(0));
    let model = narratoria_embed::Embedder::load(&dir).expect("the embedding model loads");
    let router = Router::new(
        Box::new(Counting {
            model,
            texts: texts.clone(),
        }),
        narratoria_routing::model_key(&dir),
    );
    (router, texts)
}

fn skills(d: &narratoria_routing::Decision) -> Vec<&str> {
    d.skills.iter().map(|r| r.skill.as_str()).collect()
}

#[test]
fn a_replan_reuses_the_inputs_scores_and_decides_as_a_fresh_router() {
    let (router, embedded) = counting_router();
    let (_dir, catalog) = support::shipped_skills();
    router.prepare(&catalog).unwrap();
    // Two clauses, two skills: the clauses are embedded too.
    let input = "I attack the bandit and remember his face";
    let before = embedded.load(Ordering::SeqCst);
    let first = router.route(&catalog, input, &[]).unwrap();
    assert_eq!(skills(&first), ["dice-roller", "memory"]);
    let scored = embedded.load(Ordering::SeqCst);
    assert!(
        scored > before + 1,
        "the input and its clauses were embedded"
    );

    // The replan, memory having failed: nothing embedded, the same scores.
    let memory = ["memory".to_string()];
    let replan = router.route(&catalog, input, &memory).unwrap();
    assert_eq!(embedded.load(Ordering::SeqCst), scored);
    assert_eq!(skills(&replan), ["dice-roller"]);
    let (fresh, _) = counting_router();
    assert_eq!(fresh.route(&catalog, input, &memory).unwrap(), replan);

    // Another input is scored anew, and so is the same input against a
    // changed catalog.
    router
        .route(&catalog, "what was the ferryman called?", &[])
        .unwrap();
    assert!(embedded.load(Ordering::SeqCst) > scored);
    let changed = support::reworded_skills();
    let at = embedded.load(Ordering::SeqCst);
    let other = router.route(&changed.1, input, &[]).unwrap();
    assert!(embedded.load(Ordering::SeqCst) > at);
    assert_eq!(
        other,
        fresh.route(&changed.1, input, &[]).unwrap(),
        "scored against the catalog it was given"
    );
}
