//! Writing files so that a crash never leaves half of one behind.

use std::io::Write;
use std::path::Path;

/// Replaces `path` with `bytes` so that a crash leaves either the old or the
/// new file, never a mix: a temp file beside it is written and synced, renamed
/// over `path`, and the folder synced. `private` files get mode 0600 on Unix,
/// others 0644. Each call writes its own uniquely named temp file, so threads
/// and processes writing the same path at once each leave a whole file (the
/// last rename wins). On failure the temp file is removed and `path` is
/// untouched.
pub fn write_atomically(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config.json".into());
    // Dropping the temp file on any early return removes it.
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if private { 0o600 } else { 0o644 };
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = private;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, "old").unwrap();
        // A rename onto a path whose parent is not a folder fails after the temp write.
        let bad = dir.path().join("config.json").join("x.json");
        assert!(write_atomically(&bad, b"new", false).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "a temp file was left behind: {left:?}");
    }

    /// Threads writing the same file at once each leave a whole file behind
    /// and none of them fails.
    #[test]
    fn concurrent_writers_never_mix_or_fail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skills-state.json");
        let contents: Vec<Vec<u8>> = (0..8u8).map(|i| vec![b'a' + i; 256 * 1024]).collect();
        std::thread::scope(|s| {
            for body in &contents {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..20 {
                        write_atomically(path, body, false).expect("write succeeds");
                        let now = std::fs::read(path).unwrap();
                        assert!(contents_is_whole(&now), "a mixed file was read");
                    }
                });
            }
        });
        assert!(contents_is_whole(&std::fs::read(&path).unwrap()));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("skills-state.json")]);
    }

    fn contents_is_whole(bytes: &[u8]) -> bool {
        bytes.len() == 256 * 1024 && bytes.iter().all(|&b| b == bytes[0])
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_readable_by_their_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("config.json");
        write_atomically(&secret, b"{}", true).unwrap();
        let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let open = dir.path().join("state.json");
        write_atomically(&open, b"{}", false).unwrap();
        let mode = std::fs::metadata(&open).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644);
    }
}
