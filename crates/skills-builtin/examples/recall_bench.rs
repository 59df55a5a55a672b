//! Recall over many stored memories, timed the way a script runs it: a
//! fresh connection to a file database per recall, embedding timed apart.
//!
//! ```sh
//! cargo run --release -p narratoria-skills-builtin --example recall_bench -- [COUNT] [MODEL_DIR]
//! ```
//!
//! COUNT defaults to 100,000; MODEL_DIR to models/all-MiniLM-L6-v2. Stored
//! embeddings are the model's embeddings of 400 distinct story sentences with
//! small noise added (embedding 100,000 texts would take the benchmark an
//! hour); summaries are those sentences with varied names for FTS5.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use narratoria_skills_builtin::memory::{Embedder, MemoryStore, NewMemory, DIMENSIONS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SUBJECTS: &[&str] = &[
    "Hilda the blacksmith",
    "Captain Mara",
    "the hooded stranger",
    "Brother Aldric",
    "the goblin king",
    "the city watch",
    "old Fenna",
    "the twin thieves",
    "Lord Varric",
    "the river witch",
    "the dwarven miners",
    "a wounded knight",
    "the ferryman",
    "Queen Isolde",
    "the cartographer",
    "a lost child",
    "the innkeeper",
    "the cult of ash",
    "a merchant caravan",
    "the lighthouse keeper",
];
const DEEDS: &[&str] = &[
    "lent the party twenty gold pieces",
    "betrayed us to the bandits",
    "told us about a hidden cave",
    "sold us a cursed amulet",
    "fought beside us against the wolves",
    "asked for help finding a stolen ring",
    "sailed us across the stormy bay",
    "warned us about the lighthouse",
    "stole the map of the sewers",
    "healed our wounds after the ambush",
    "challenged the party to a duel",
    "hid a letter under the altar",
    "bought the dragon egg from us",
    "burned down the old mill",
    "swore an oath of friendship",
    "lost a bet on the horse race",
    "was arrested for smuggling",
    "paid us to guard the bridge",
    "gave us a key to the crypt",
    "vanished during the festival",
];
const PLACES: &[&str] = &[
    "in Ashford",
    "at the harbour",
    "near the frozen north road",
    "under the cathedral",
];

fn model_dir() -> PathBuf {
    std::env::args()
        .nth(2)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/all-MiniLM-L6-v2")
        })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn p95(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[(v.len() * 95 / 100).min(v.len() - 1)]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(100_000);
    let t = Instant::now();
    let embedder = Embedder::load(&model_dir())?;
    println!("model load:            {:>9.1?}", t.elapsed());

    // 400 distinct sentences, embedded for real
    let sentences: Vec<String> = (0..400)
        .map(|i| {
            format!(
                "{} {} {}.",
                SUBJECTS[i % SUBJECTS.len()],
                DEEDS[(i / SUBJECTS.len()) % DEEDS.len()],
                PLACES[(i * 7) % PLACES.len()]
            )
        })
        .collect();
    let t = Instant::now();
    let mut base = Vec::new();
    for chunk in sentences.chunks(32) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        base.extend(embedder.embed(&refs)?);
    }
    println!(
        "embed 400 sentences:   {:>9.1?} ({:.1?} each, batches of 32)",
        t.elapsed(),
        t.elapsed() / 400
    );

    let dir = tempfile::tempdir()?;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let t = Instant::now();
    {
        let mut store = MemoryStore::open(dir.path())?;
        let mut batch_text = Vec::with_capacity(1000);
        let mut batch_vec = Vec::with_capacity(1000);
        for i in 0..count {
            let k = rng.random_range(0..base.len());
            let mut v: Vec<f32> = base[k]
                .iter()
                .map(|x| x + rng.random_range(-0.02..0.02))
                .collect();
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= n);
            batch_text.push(format!("Day {}: {}", i / 20 + 1, sentences[k]));
            batch_vec.push(v);
            if batch_text.len() == 1000 || i + 1 == count {
                let ms: Vec<NewMemory> = batch_text
                    .iter()
                    .zip(&batch_vec)
                    .map(|(s, v)| NewMemory {
                        summary: s,
                        timestamp: "2026-01-01T00:00:00Z",
                        metadata: None,
                        embedding: Some(v),
                        turn_account: false,
                    })
                    .collect();
                store.insert_many(&ms)?;
                batch_text.clear();
                batch_vec.clear();
            }
        }
        assert_eq!(store.len()? as usize, count);
    }
    println!("store {count} memories: {:>9.1?}", t.elapsed());
    let _ = DIMENSIONS;

    let queries = [
        "Who lent us money?",
        "the ambush and our wounds",
        "a cursed piece of jewellery",
        "someone who disappeared at the celebration",
        "a boat trip over rough water",
        "smugglers arrested by the guards",
        "the dragon egg",
        "a duel challenge",
        "the key to the tomb",
        "friends sworn forever",
    ];
    let (mut embed_t, mut open_t, mut recall_t, mut vector_t, mut kw_t, mut rescore_t) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for round in 0..3 {
        for q in queries {
            let t = Instant::now();
            let qv = embedder.embed_one(q)?;
            let e = t.elapsed();
            let t = Instant::now();
            let store = MemoryStore::open(dir.path())?; // a script opens the file each run
            let o = t.elapsed();
            let t = Instant::now();
            let (hits, timings) = store.recall(q, Some(&qv), 0.3, 5)?;
            let r = t.elapsed();
            if round == 0 {
                println!(
                    "  {q:45} → {}",
                    hits.first().map_or("(nothing)", |h| h.summary.as_str())
                );
            }
            if round > 0 {
                embed_t.push(e);
                open_t.push(o);
                recall_t.push(r);
                vector_t.push(timings.vector);
                kw_t.push(timings.keyword);
                rescore_t.push(timings.rescore);
            }
        }
    }
    println!(
        "over {count} memories, {} warm queries (median / p95):",
        recall_t.len()
    );
    println!(
        "  query embedding:     {:>9.2?} / {:.2?}",
        median(embed_t.clone()),
        p95(embed_t)
    );
    println!(
        "  open + migrate:      {:>9.2?} / {:.2?}",
        median(open_t.clone()),
        p95(open_t)
    );
    println!(
        "  recall top-5 total:  {:>9.2?} / {:.2?}",
        median(recall_t.clone()),
        p95(recall_t)
    );
    println!("    vector knn (bit):  {:>9.2?}", median(vector_t));
    println!("    keywords (fts5):   {:>9.2?}", median(kw_t));
    println!("    rescore + rank:    {:>9.2?}", median(rescore_t));
    Ok(())
}
