//! Example embeddings are cached on disk by the model and the texts: a
//! second router reads them back, and a changed skill is embedded again alone.

mod support;

use narratoria_routing::Calibration;

fn files(dir: &std::path::Path) -> Vec<String> {
    let mut f: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    f.sort();
    f
}

#[test]
fn example_embeddings_are_cached_and_only_changed_skills_recomputed() {
    let cache = tempfile::tempdir().unwrap();
    let router = support::embedder_router(Some(cache.path()), Calibration::default());
    let (dir, catalog) = support::shipped_skills();
    let first = router.route(&catalog, "I attack the orc", &[]).unwrap();
    let stored = files(cache.path());
    assert!(!stored.is_empty());

    // A second router (a later run) reads the same files and decides the same.
    let again = support::embedder_router(Some(cache.path()), Calibration::default());
    let start = std::time::Instant::now();
    again.prepare(&catalog).unwrap();
    println!("index from the cache in {:?}", start.elapsed());
    assert_eq!(
        again.route(&catalog, "I attack the orc", &[]).unwrap(),
        first
    );
    assert_eq!(files(cache.path()), stored);

    // One skill's examples change: only its lists are embedded and stored anew.
    let path = dir.path().join("dice-roller/skill.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("\"stab him!\"", "\"I stab him\"", 1)).unwrap();
    let changed = narratoria_core::skills::discover(&[dir.path().to_path_buf()]).unwrap();
    again.prepare(&changed).unwrap();
    let now = files(cache.path());
    assert_eq!(now.len(), stored.len() + 1, "{now:?}");
}
