//! Reading a file that comes from outside (a card, a lorebook, a scenario)
//! without waiting on it and without reading more than its bound.

use std::io::Read;
use std::path::Path;

/// Why a file from outside was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not a regular file: `kind` says what it is, in words ("a FIFO").
    #[error("not a regular file ({kind})")]
    NotRegular { kind: &'static str },
    /// Longer than the bound: `size` bytes, or more.
    #[error("{size} bytes, more than the {max} allowed")]
    TooLarge { size: u64, max: u64 },
}

/// The bytes of the regular file (or link to one) at `path`, when it holds
/// at most `max` bytes. The file is opened without blocking and judged by
/// what was opened, so a FIFO or device never makes the read wait, and
/// reading stops past `max` even when the file grows while it is read.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            kind: kind_of(&meta.file_type()),
        });
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            max,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

/// What a file that is not a regular one is, in words.
fn kind_of(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "not a plain file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("card.json");
        std::fs::write(&file, b"{}").unwrap();
        assert_eq!(read_regular(&file, 2).unwrap(), b"{}");
        assert!(matches!(
            read_regular(&file, 1),
            Err(ReadError::TooLarge { size: 2, max: 1 })
        ));
        assert!(matches!(
            read_regular(dir.path(), 10),
            Err(ReadError::NotRegular { kind: "a folder" })
        ));
        assert!(matches!(
            read_regular(&dir.path().join("nope"), 10),
            Err(ReadError::Io(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("waiting.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            read_regular(&fifo, 10),
            Err(ReadError::NotRegular { kind: "a FIFO" })
        ));
    }
}
