//! Feeds every file of a fuzz corpus to a driver, for the crates' `cargo
//! test` replays of fuzz/corpus/<target>.

use std::path::PathBuf;

/// Runs `drive` on every file in fuzz/corpus/`target`; a panic names the
/// file. Returns how many inputs were replayed.
pub fn each_input(target: &str, drive: fn(&[u8])) -> usize {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        if let Err(panic) = std::panic::catch_unwind(|| drive(&data)) {
            std::panic::resume_unwind(Box::new(format!(
                "{} fails: {:?}",
                file.display(),
                panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
            )));
        }
    }
    files.len()
}
