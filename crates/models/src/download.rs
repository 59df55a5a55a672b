//! Fetching one file over HTTP: resumed where an earlier attempt stopped
//! (HTTP Range), checked against its SHA-256, and moved into place only
//! when complete.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::error::ModelsError;

/// Bytes a download may exceed its catalog size by, besides 1% of it: room
/// for a catalog whose size is a little off, while a body that never ends
/// is stopped early.
pub const SIZE_SLACK_BYTES: u64 = 64 << 10;

/// The most bytes a download whose catalog entry gives no size may have
/// (128 GiB: more than the largest model a player's machine could run).
pub const UNSIZED_MAX_BYTES: u64 = 128 << 30;

/// How slow a download may be before it is given up. A download that is
/// given up keeps its `.part`: the next attempt goes on from there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// The slowest average rate the deadline allows, in bytes per second:
    /// an attempt has `grace` plus the time its bytes need at this rate.
    pub min_rate: u64,
    /// The time an attempt is allowed beyond what its bytes need at
    /// `min_rate` (connecting, a slow start, a pause).
    pub grace: Duration,
    /// An attempt that receives fewer than `stall_bytes` for this long
    /// (nothing at all included) is stalled and given up.
    pub stall: Duration,
    /// See `stall`.
    pub stall_bytes: u64,
}

impl Pace {
    /// A slow but real connection: 32 KiB/s (256 kbit/s) on average plus a
    /// minute; stalled after 60 s with fewer than 16 KiB.
    pub const DEFAULT: Pace = Pace {
        min_rate: 32 << 10,
        grace: Duration::from_secs(60),
        stall: Duration::from_secs(60),
        stall_bytes: 16 << 10,
    };
}

impl Default for Pace {
    fn default() -> Pace {
        Pace::DEFAULT
    }
}

/// The bounds one download attempt keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The file's size as the catalog gives it, when it does.
    pub size: Option<u64>,
    pub pace: Pace,
}

impl Limits {
    /// The limits of a file of `size` bytes (`None`: unknown) at the
    /// default pace.
    pub fn for_size(size: Option<u64>) -> Limits {
        Limits {
            size,
            pace: Pace::DEFAULT,
        }
    }

    /// The most bytes the whole file may have: its size, plus 1% and
    /// [`SIZE_SLACK_BYTES`]; without a size, [`UNSIZED_MAX_BYTES`].
    pub fn max_bytes(&self) -> u64 {
        match self.size {
            Some(size) => size
                .saturating_add(size / 100)
                .saturating_add(SIZE_SLACK_BYTES),
            None => UNSIZED_MAX_BYTES,
        }
    }

    /// The time an attempt that must bring `bytes` has: the pace's grace
    /// plus `bytes` at its minimum rate.
    pub fn deadline(&self, bytes: u64) -> Duration {
        let rate = self.pace.min_rate.max(1);
        let millis = u128::from(bytes) * 1_000 / u128::from(rate);
        let millis = u64::try_from(millis).unwrap_or(u64::MAX);
        self.pace
            .grace
            .saturating_add(Duration::from_millis(millis))
    }

    /// Where the limit of [`Limits::max_bytes`] comes from, for an error.
    fn basis(&self) -> String {
        match self.size {
            Some(size) => {
                format!("the catalog's size of {size} bytes plus 1% and {SIZE_SLACK_BYTES} bytes")
            }
            None => "the most a model without a size in the catalog may have".into(),
        }
    }
}

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
///
/// The attempt keeps to `limits`:
/// - the whole file has at most [`Limits::max_bytes`]: a larger announced
///   length is refused before the body is read, a body that goes past it is
///   stopped at the first byte too many; either way the `.part` is deleted
///   and the error is [`ModelsError::DownloadTooLarge`]. A `.part` already
///   larger is not resumed but started over;
/// - it ends within [`Limits::deadline`] of the bytes it still has to bring
///   (counted from the catalog's size, else from the announced length; with
///   neither, there is no deadline), checked as bytes arrive, so at most one
///   stall window late;
/// - it never goes [`Pace::stall`] with fewer than [`Pace::stall_bytes`]
///   (a silent connection included).
///
/// Too slow is [`ModelsError::DownloadTooSlow`]; the `.part` is kept.
pub fn fetch(
    url: &str,
    sha256: &str,
    dest: &Path,
    limits: &Limits,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<(), ModelsError> {
    let part = part_path(dest);
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(|e| ModelsError::io(dir, e))?;
    }
    let max = limits.max_bytes();
    let mut hasher = Sha256::new();
    let mut have = hash_existing(&part, &mut hasher)?;
    if have > max {
        // Not the start of this file: ask for all of it (the part is
        // overwritten when the answer comes).
        have = 0;
        hasher = Sha256::new();
    }
    let http = |reason: String| ModelsError::Http {
        url: url.to_string(),
        reason,
    };
    let too_large = |seen: String| {
        let _ = std::fs::remove_file(&part);
        ModelsError::DownloadTooLarge {
            url: url.to_string(),
            limit: max,
            basis: limits.basis(),
            seen,
        }
    };
    let too_slow = |done: u64, reason: String| ModelsError::DownloadTooSlow {
        url: url.to_string(),
        done,
        reason,
    };
    let pace = limits.pace;
    let stalled = |done: u64| {
        let what = match pace.stall_bytes {
            0 | 1 => "nothing".to_string(),
            n => format!("fewer than {n} bytes"),
        };
        too_slow(done, format!("{what} arrived in {}", seconds(pace.stall)))
    };

    let started = Instant::now();
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(30))
        .timeout_read(pace.stall)
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
        let total = length.map(|n| n.saturating_add(have));
        if let Some(total) = total.filter(|t| *t > max) {
            return Err(too_large(format!("the server announced {total} bytes")));
        }
        let deadline = limits
            .size
            .or(total)
            .map(|expected| limits.deadline(expected.saturating_sub(have)));
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
        // The last time `pace.stall_bytes` had arrived since the one before.
        let (mut mark_at, mut mark_done) = (Instant::now(), done);
        let mut reader = response.into_reader();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            // Never more than one byte past the limit.
            let room = max.saturating_sub(done).saturating_add(1);
            let want = usize::try_from(room).map_or(buf.len(), |r| r.min(buf.len()));
            let n = match reader.read(&mut buf[..want]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                    ) =>
                {
                    let _ = out.sync_all();
                    return Err(stalled(done));
                }
                Err(e) => {
                    let _ = out.sync_all();
                    return Err(http(format!(
                        "the connection broke after {done} bytes ({e}); try again to go on from there"
                    )));
                }
            };
            if done + n as u64 > max {
                drop(out);
                return Err(too_large(format!(
                    "the server kept sending past {max} bytes"
                )));
            }
            out.write_all(&buf[..n])
                .map_err(|e| ModelsError::io(&part, e))?;
            hasher.update(&buf[..n]);
            done += n as u64;
            on_progress(Progress {
                done,
                total,
                resumed_from,
            });
            let now = Instant::now();
            if done - mark_done >= pace.stall_bytes {
                (mark_at, mark_done) = (now, done);
            } else if now.duration_since(mark_at) >= pace.stall {
                let _ = out.sync_all();
                return Err(stalled(done));
            }
            if let Some(deadline) = deadline {
                if now.duration_since(started) > deadline {
                    let _ = out.sync_all();
                    return Err(too_slow(
                        done,
                        format!(
                            "it passed its deadline of {} ({} plus {} bytes at {} bytes/s)",
                            seconds(deadline),
                            seconds(pace.grace),
                            deadline_bytes(limits, total, resumed_from),
                            pace.min_rate
                        ),
                    ));
                }
            }
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

/// The bytes an attempt's deadline was counted for.
fn deadline_bytes(limits: &Limits, total: Option<u64>, have: u64) -> u64 {
    limits.size.or(total).unwrap_or(0).saturating_sub(have)
}

/// `d` for a message: whole seconds, or milliseconds under ten seconds.
fn seconds(d: Duration) -> String {
    if d < Duration::from_secs(10) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", d.as_secs())
    }
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
