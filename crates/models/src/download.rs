//! Fetching one file over HTTP: resumed where an earlier attempt stopped
//! (HTTP Range), checked against its SHA-256, and moved into place only
//! when complete.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::error::ModelsError;

/// How far a download is: bytes on disk and the expected total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub total: Option<u64>,
    /// Bytes that were already on disk from an earlier attempt.
    pub resumed_from: u64,
}

/// Downloads `url` to `dest`. Bytes arrive in `dest` + `.part`; an existing
/// `.part` (an interrupted attempt) is continued with a Range request when
/// the server allows it, else started over. The whole file must hash to
/// `sha256` (lower-case hex): then it is renamed to `dest` in one step;
/// otherwise the `.part` is deleted and the error says both checksums. A
/// failed transfer keeps the `.part` for the next attempt.
pub fn fetch(
    url: &str,
    sha256: &str,
    dest: &Path,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<(), ModelsError> {
    let part = part_path(dest);
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| ModelsError::io(dir, e))?;
    }
    let mut hasher = Sha256::new();
    let mut have = hash_existing(&part, &mut hasher)?;
    let http = |reason: String| ModelsError::Http {
        url: url.to_string(),
        reason,
    };

    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(30))
        .timeout_read(Duration::from_secs(60))
        .build();
    let mut request = agent.get(url);
    if have > 0 {
        request = request.set("Range", &format!("bytes={have}-"));
    }
    let response = match request.call() {
        Ok(r) => Some(r),
        // The part already holds the whole file.
        Err(ureq::Error::Status(416, _)) if have > 0 => None,
        Err(ureq::Error::Status(code, r)) => {
            return Err(http(format!("HTTP {code} {}", r.status_text())))
        }
        Err(e) => return Err(http(e.to_string())),
    };

    if let Some(response) = response {
        let resumed = response.status() == 206 && starts_at(&response) == Some(have);
        if !resumed {
            // The server sends the whole file: start over.
            have = 0;
            hasher = Sha256::new();
        }
        let length: Option<u64> = response
            .header("Content-Length")
            .and_then(|v| v.trim().parse().ok());
        let total = length.map(|n| n + have);
        let mut out = OpenOptions::new()
            .create(true)
            .write(true)
            .append(resumed)
            .truncate(!resumed)
            .open(&part)
            .map_err(|e| ModelsError::io(&part, e))?;
        let resumed_from = have;
        let mut done = have;
        on_progress(Progress {
            done,
            total,
            resumed_from,
        });
        let mut reader = response.into_reader();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = out.flush();
                    return Err(http(format!(
                        "the connection broke after {done} bytes ({e}); try again to go on from there"
                    )));
                }
            };
            out.write_all(&buf[..n])
                .map_err(|e| ModelsError::io(&part, e))?;
            hasher.update(&buf[..n]);
            done += n as u64;
            on_progress(Progress {
                done,
                total,
                resumed_from,
            });
        }
        out.sync_all().map_err(|e| ModelsError::io(&part, e))?;
        if let Some(total) = total {
            if done < total {
                return Err(http(format!(
                    "the server ended the file after {done} of {total} bytes; try again to go on from there"
                )));
            }
        }
    }

    let actual = hex(&hasher.finalize());
    if !actual.eq_ignore_ascii_case(sha256) {
        let _ = std::fs::remove_file(&part);
        return Err(ModelsError::ChecksumMismatch {
            file: dest.file_name().map_or_else(
                || dest.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            expected: sha256.to_ascii_lowercase(),
            actual,
        });
    }
    std::fs::rename(&part, dest).map_err(|e| ModelsError::io(dest, e))
}

/// Where the bytes of an unfinished download of `dest` are kept.
pub fn part_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    dest.with_file_name(name)
}

/// Whether `path` exists and hashes to `sha256`.
pub fn matches_checksum(path: &Path, sha256: &str) -> Result<bool, ModelsError> {
    if !path.is_file() {
        return Ok(false);
    }
    let mut hasher = Sha256::new();
    hash_existing(path, &mut hasher)?;
    Ok(hex(&hasher.finalize()).eq_ignore_ascii_case(sha256))
}

/// Feeds the bytes already in `part` to `hasher`; returns how many there were.
fn hash_existing(part: &Path, hasher: &mut Sha256) -> Result<u64, ModelsError> {
    let mut file = match File::open(part) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(ModelsError::io(part, e)),
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut n_total = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(|e| ModelsError::io(part, e))?;
        if n == 0 {
            return Ok(n_total);
        }
        hasher.update(&buf[..n]);
        n_total += n as u64;
    }
}

/// The first byte a 206 response carries (`Content-Range: bytes START-END/TOTAL`).
fn starts_at(response: &ureq::Response) -> Option<u64> {
    let range = response.header("Content-Range")?;
    let spec = range.trim().strip_prefix("bytes")?.trim();
    spec.split('-').next()?.trim().parse().ok()
}

/// Lower-case hex of a digest.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
