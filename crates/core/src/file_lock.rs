//! An exclusive lock on a small file that several threads and processes
//! read, change and write back, so that no writer overwrites another's
//! change with what it read before that change.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// Holds the lock on a file until dropped.
#[derive(Debug)]
pub struct FileLock {
    // The lock belongs to this open file; closing it releases the lock.
    _file: File,
    #[cfg(not(unix))]
    _process: std::sync::MutexGuard<'static, ()>,
}

/// The lock file guarding `path`: `<path>.lock` beside it. It is never
/// removed, since removing it would let two writers lock different files.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// Waits until no other holder, in this process or another, holds the lock
/// on `path`, then holds it until the returned guard is dropped. Creates the
/// folder and the lock file when missing.
pub fn lock_exclusive(path: &Path) -> std::io::Result<FileLock> {
    let lock = lock_path(path);
    if let Some(dir) = lock.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock)?;
    hold(&file)?;
    Ok(FileLock {
        _file: file,
        #[cfg(not(unix))]
        _process: PROCESS_WIDE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    })
}

/// flock locks belong to the open file description, so two opens of the lock
/// file exclude each other even within one process.
#[cfg(unix)]
#[allow(unsafe_code)]
fn hold(file: &File) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    loop {
        // SAFETY: flock only acts on the descriptor, which `file` keeps open
        // for the duration of the call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Elsewhere only this process's threads are kept apart, by a process-wide
/// lock the guard holds.
#[cfg(not(unix))]
fn hold(_file: &File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(not(unix))]
static PROCESS_WIDE: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn the_lock_file_sits_beside_the_file() {
        assert_eq!(
            lock_path(Path::new("/a/skills-state.json")),
            Path::new("/a/skills-state.json.lock")
        );
    }

    #[cfg(unix)]
    #[test]
    fn holders_exclude_each_other_even_in_one_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/state.json");
        let inside = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..4 {
                let (path, inside) = (&path, Arc::clone(&inside));
                s.spawn(move || {
                    for _ in 0..10 {
                        let _held = lock_exclusive(path).unwrap();
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                        std::thread::sleep(Duration::from_millis(1));
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert!(lock_path(&path).exists());
    }
}
