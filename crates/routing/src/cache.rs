//! Example embeddings kept on disk between runs, one file per list of
//! texts, named by the hash of the model and the texts: a skill whose
//! examples did not change is never embedded again. A file no run has read
//! or written for [`KEPT_UNUSED`] is removed when the cache is next written
//! (lists an author has since edited, a lorebook no longer played, vectors
//! of an older representation), so the folder does not grow without end.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use directories::ProjectDirs;
use sha2::{Digest, Sha256};

/// The user's cache folder for routing: `$NARRATORIA_CACHE_DIR/routing`,
/// else `routing` in the platform's cache folder for Narratoria (the
/// `directories` crate's, as for the other folders in core's `paths`: on
/// Linux `$XDG_CACHE_HOME/narratoria`, by default `~/.cache/narratoria`),
/// else a folder under the temp dir.
pub fn default_cache_dir() -> PathBuf {
    let cache_root = std::env::var_os("NARRATORIA_CACHE_DIR")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    cache_dir_in(cache_root, ProjectDirs::from("", "", "narratoria").as_ref())
}

/// `routing` in `cache_root` (NARRATORIA_CACHE_DIR) when given, else in
/// `project`'s cache folder, else in the temp dir.
fn cache_dir_in(cache_root: Option<PathBuf>, project: Option<&ProjectDirs>) -> PathBuf {
    match (cache_root, project) {
        (Some(root), _) => root.join("routing"),
        (None, Some(project)) => project.cache_dir().join("routing"),
        (None, None) => std::env::temp_dir().join("narratoria-routing"),
    }
}

/// How long a cache file that no run reads or writes is kept.
pub const KEPT_UNUSED: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// The cache key of `texts` embedded by the model `model_key`.
pub fn key(model_key: &str, texts: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(model_key.as_bytes());
    for t in texts {
        h.update([0u8]);
        h.update(t.as_bytes());
    }
    hex(&h.finalize())
}

/// The vectors stored under `key` in `dir`, when there are exactly `count`
/// (a file holds its vectors' width, then the vectors). A file read counts
/// as used: it is kept another [`KEPT_UNUSED`].
pub fn load(dir: &Path, key: &str, count: usize) -> Option<Vec<Vec<f32>>> {
    let path = dir.join(format!("{key}.f32"));
    let bytes = std::fs::read(&path).ok()?;
    let (width, rows) = bytes.split_first_chunk::<4>()?;
    let width = u32::from_le_bytes(*width) as usize;
    if width == 0 || rows.len() != count * width * 4 {
        return None;
    }
    mark_used(&path);
    Some(
        rows.chunks_exact(width * 4)
            .map(|row| {
                row.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            })
            .collect(),
    )
}

/// Sets `path`'s modification time to now (a cache that cannot be touched
/// only ages sooner).
fn mark_used(path: &Path) {
    if let Ok(file) = std::fs::OpenOptions::new().write(true).open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// Removes the cache files in `dir` (vectors, and half-written files a
/// stopped run left) that were last used more than `unused_for` before
/// `now`; returns how many. Other files and folders are left alone.
pub fn prune(dir: &Path, unused_for: Duration, now: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let Some(cutoff) = now.checked_sub(unused_for) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".f32") || name.ends_with(".tmp")
        })
        .filter(|e| {
            e.metadata()
                .ok()
                .filter(std::fs::Metadata::is_file)
                .and_then(|m| m.modified().ok())
                .is_some_and(|modified| modified < cutoff)
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// Stores `vectors` (all of one width) under `key` in `dir` (written aside,
/// then renamed, so a reader never sees half a file). A cache that cannot be
/// written is skipped.
pub fn store(dir: &Path, key: &str, vectors: &[Vec<f32>]) {
    let width = vectors.first().map_or(0, Vec::len) as u32;
    let bytes: Vec<u8> = width
        .to_le_bytes()
        .into_iter()
        .chain(vectors.iter().flatten().flat_map(|x| x.to_le_bytes()))
        .collect();
    let path = dir.join(format!("{key}.f32"));
    let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, bytes))
        .and_then(|()| std::fs::rename(&tmp, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return;
    }
    prune(dir, KEPT_UNUSED, SystemTime::now());
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narratoria_cache_dir_wins_over_the_platform_folder() {
        let project = ProjectDirs::from("", "", "narratoria");
        assert_eq!(
            cache_dir_in(Some(PathBuf::from("/n/cache")), project.as_ref()),
            PathBuf::from("/n/cache/routing")
        );
        if let Some(project) = &project {
            let dir = cache_dir_in(None, Some(project));
            assert!(dir.ends_with("narratoria/routing"), "{dir:?}");
        }
        assert_eq!(
            cache_dir_in(None, None),
            std::env::temp_dir().join("narratoria-routing")
        );
    }

    #[test]
    fn vectors_round_trip_and_keys_follow_the_texts() {
        let dir = tempfile::tempdir().unwrap();
        let v = vec![vec![0.5f32; 768], vec![-1.0f32; 768]];
        let k = key("m", &["a".into(), "b".into()]);
        assert_ne!(k, key("m", &["a".into(), "c".into()]));
        assert_ne!(k, key("n", &["a".into(), "b".into()]));
        assert_ne!(k, key("m", &["ab".into()]));
        store(dir.path(), &k, &v);
        assert_eq!(load(dir.path(), &k, 2), Some(v));
        assert_eq!(load(dir.path(), &k, 3), None);
        assert_eq!(load(dir.path(), &k, 4), None);
        assert_eq!(load(dir.path(), "other", 2), None);
    }

    /// Sets `path`'s modification time to `days` days ago.
    fn age(path: &Path, days: u64) {
        let then = SystemTime::now() - Duration::from_secs(days * 24 * 60 * 60);
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(then)
            .unwrap();
    }

    fn modified(path: &Path) -> SystemTime {
        std::fs::metadata(path).unwrap().modified().unwrap()
    }

    #[test]
    fn files_unused_for_a_month_go_when_the_cache_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let v = vec![vec![0.25f32; 4]];
        store(d, "read", &v);
        store(d, "stale", &v);
        std::fs::write(d.join("stale.41.tmp"), b"half").unwrap();
        std::fs::write(d.join("notes.txt"), b"not ours").unwrap();
        for name in ["read.f32", "stale.f32", "stale.41.tmp", "notes.txt"] {
            age(&d.join(name), 40);
        }
        // Reading a file counts as using it.
        assert_eq!(load(d, "read", 1), Some(v.clone()));
        assert!(modified(&d.join("read.f32")) > SystemTime::now() - Duration::from_secs(60));
        // A read that does not fit (another count) does not.
        age(&d.join("read.f32"), 40);
        assert_eq!(load(d, "read", 2), None);
        assert!(modified(&d.join("read.f32")) < SystemTime::now() - KEPT_UNUSED);
        assert_eq!(load(d, "read", 1), Some(v.clone()));

        // The next write removes what went unused for longer than KEPT_UNUSED.
        store(d, "new", &v);
        let mut left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["new.f32", "notes.txt", "read.f32"]);
    }

    #[test]
    fn pruning_keeps_what_was_used_within_the_period() {
        let dir = tempfile::tempdir().unwrap();
        let v = vec![vec![1.0f32; 2]];
        store(dir.path(), "a", &v);
        store(dir.path(), "b", &v);
        age(&dir.path().join("a.f32"), 29);
        assert_eq!(prune(dir.path(), KEPT_UNUSED, SystemTime::now()), 0);
        assert_eq!(
            prune(
                dir.path(),
                KEPT_UNUSED,
                SystemTime::now() + Duration::from_secs(2 * 24 * 60 * 60)
            ),
            1
        );
        assert!(dir.path().join("b.f32").is_file());
        assert_eq!(
            prune(&dir.path().join("missing"), KEPT_UNUSED, SystemTime::now()),
            0
        );
    }
}
