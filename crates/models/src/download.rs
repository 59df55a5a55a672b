//! Fetching one file over HTTP: resumed where an earlier attempt stopped
//! (HTTP Range), checked against its SHA-256, and moved into place only
//! when complete.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use narratoria_http::{CallError, Redirects};
use sha2::{Digest, Sha256};

use crate::error::ModelsError;

/// Bytes a download may exceed its catalog size by, besides 1% of it: room
/// for a catalog whose size is a little off, while a body that never ends
/// is stopped early.
pub const SIZE_SLACK_BYTES: u64 = 64 << 10;

/// The most bytes a download whose size is known neither from its catalog
/// entry (or the Hub) nor from the server may have: 64 GiB, more than the
/// largest model a player's machine could run (docs/models.md, "The
/// catalog").
pub const UNSIZED_MAX_BYTES: u64 = 64 << 30;

/// The longest an attempt whose length is known neither from the catalog
/// (or the Hub) nor from the server may take, whatever its pace: 4 hours.
/// Counting it from [`UNSIZED_MAX_BYTES`] at [`Pace::min_rate`] would give
/// weeks; an attempt stopped here keeps its `.part` and the next one goes on
/// from there (docs/models.md, "The catalog").
pub const UNSIZED_DEADLINE: Duration = Duration::from_secs(4 * 60 * 60);

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
    /// The whole time an attempt of unknown length has
    /// ([`UNSIZED_DEADLINE`] by default).
    pub unsized_deadline: Duration,
}

impl Pace {
    /// A slow but real connection: 32 KiB/s (256 kbit/s) on average plus a
    /// minute; stalled after 60 s with fewer than 16 KiB; 4 hours for a
    /// download of unknown length.
    pub const DEFAULT: Pace = Pace {
        min_rate: 32 << 10,
        grace: Duration::from_secs(60),
        stall: Duration::from_secs(60),
        stall_bytes: 16 << 10,
        unsized_deadline: UNSIZED_DEADLINE,
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
    /// The file's size as the catalog (or the Hub) gives it, when known.
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

    /// The time an attempt has that starts with `have` bytes of a file
    /// whose whole length is `total` as the server announced it: counted
    /// by [`Limits::deadline`] from the catalog's size, else from `total`;
    /// with neither, [`Pace::unsized_deadline`]. Every attempt has one.
    pub fn attempt_deadline(&self, total: Option<u64>, have: u64) -> Duration {
        match self.size.or(total) {
            Some(expected) => self.deadline(expected.saturating_sub(have)),
            None => self.pace.unsized_deadline,
        }
    }

    /// Where the limit of [`Limits::max_bytes`] comes from, for an error.
    fn basis(&self) -> String {
        match self.size {
            Some(size) => {
                format!("the catalog's size of {size} bytes plus 1% and {SIZE_SLACK_BYTES} bytes")
            }
            None => "the most a model of unknown size may have".into(),
        }
    }

    /// Where the deadline of [`Limits::attempt_deadline`] comes from, for
    /// an error.
    fn deadline_basis(&self, total: Option<u64>, have: u64) -> String {
        match self.size.or(total) {
            Some(expected) => format!(
                "{} plus {} bytes at {} bytes/s",
                seconds(self.pace.grace),
                expected.saturating_sub(have),
                self.pace.min_rate
            ),
            None => "the most a download of unknown length may take".into(),
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
/// Redirects are followed by the product's rule, to any http(s) host (a
/// download is handed to a content network), at most five
/// ([`narratoria_http::Redirects::ANY_HOST`]); a refused one (another
/// scheme, no host, too many) is [`ModelsError::Http`] naming it, never a
/// panic.
///
/// The attempt keeps to `limits`:
/// - the whole file has at most [`Limits::max_bytes`]: a larger announced
///   length is refused before the body is read, a body that goes past it is
///   stopped at the first byte too many; either way the `.part` is deleted
///   and the error is [`ModelsError::DownloadTooLarge`]. A `.part` already
///   larger is not resumed but started over;
/// - it ends within [`Limits::attempt_deadline`] (counted from the
///   catalog's size, else from the announced length, else
///   [`Pace::unsized_deadline`]), checked as bytes arrive, so at most one
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
    let attempt = Attempt {
        url,
        part: &part,
        limits,
        started: Instant::now(),
    };
    let mut hasher = Sha256::new();
    let mut have = hash_existing(&part, &mut hasher)?;
    if have > limits.max_bytes() {
        // Not the start of this file: ask for all of it (the part is
        // overwritten when the answer comes).
        have = 0;
        hasher = Sha256::new();
    }
    if let Some(response) = attempt.request(have)? {
        let resumed = response.status() == 206 && starts_at(&response) == Some(have);
        if !resumed {
            // The server sends the whole file: start over.
            have = 0;
            hasher = Sha256::new();
        }
        attempt.receive(response, have, &mut hasher, on_progress)?;
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

/// One attempt of [`fetch`]: where it reads from and writes to, its
/// limits, and when it started.
struct Attempt<'a> {
    url: &'a str,
    part: &'a Path,
    limits: &'a Limits,
    started: Instant,
}

impl Attempt<'_> {
    /// Asks for the file from byte `have` on (Range when `have` > 0),
    /// following redirects by [`Redirects::ANY_HOST`]. `None`: the server
    /// says the `.part` already holds the whole file (416).
    fn request(&self, have: u64) -> Result<Option<ureq::Response>, ModelsError> {
        let agent = narratoria_http::agent_builder()
            .timeout_connect(Duration::from_secs(30))
            .timeout_read(self.limits.pace.stall)
            .build();
        let range = (have > 0).then(|| format!("bytes={have}-"));
        let prepare = |request: ureq::Request, _on_first_host: bool| match &range {
            Some(range) => request.set("Range", range),
            None => request,
        };
        let request = narratoria_http::Request {
            method: "GET",
            url: self.url,
            body: None,
            rule: Redirects::ANY_HOST,
        };
        match narratoria_http::call(&agent, request, &prepare) {
            Ok(answer) => Ok(Some(answer.response)),
            Err(CallError::Http(e)) => match *e {
                ureq::Error::Status(416, _) if have > 0 => Ok(None),
                ureq::Error::Status(code, r) => {
                    Err(self.http(format!("HTTP {code} {}", r.status_text())))
                }
                other => Err(self.http(other.to_string())),
            },
            Err(refused) => Err(self.http(refused.to_string())),
        }
    }

    /// Writes `response`'s body to the `.part` (appended after `have`
    /// bytes when `have` > 0, else from its start) and into `hasher`,
    /// within the attempt's limits (see [`fetch`]).
    fn receive(
        &self,
        response: ureq::Response,
        have: u64,
        hasher: &mut Sha256,
        on_progress: &mut dyn FnMut(Progress),
    ) -> Result<(), ModelsError> {
        let max = self.limits.max_bytes();
        let length: Option<u64> = response
            .header("Content-Length")
            .and_then(|v| v.trim().parse().ok());
        let total = length.map(|n| n.saturating_add(have));
        if let Some(total) = total.filter(|t| *t > max) {
            return Err(self.too_large(format!("the server announced {total} bytes")));
        }
        let deadline = self.limits.attempt_deadline(total, have);
        let mut out = OpenOptions::new()
            .create(true)
            .write(true)
            .append(have > 0)
            .truncate(have == 0)
            .open(self.part)
            .map_err(|e| ModelsError::io(self.part, e))?;
        let mut progress = Progress {
            done: have,
            total,
            resumed_from: have,
        };
        on_progress(progress);
        let mut pace = PaceWatch::new(progress.done);
        let mut reader = response.into_reader();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            // Never more than one byte past the limit.
            let room = max.saturating_sub(progress.done).saturating_add(1);
            let want = usize::try_from(room).map_or(buf.len(), |r| r.min(buf.len()));
            let n = match self.read(&mut reader, &mut buf[..want], &out, progress.done)? {
                0 => break,
                n => n,
            };
            if progress.done + n as u64 > max {
                drop(out);
                return Err(self.too_large(format!("the server kept sending past {max} bytes")));
            }
            out.write_all(&buf[..n])
                .map_err(|e| ModelsError::io(self.part, e))?;
            hasher.update(&buf[..n]);
            progress.done += n as u64;
            on_progress(progress);
            let late = self.started.elapsed() > deadline;
            if pace.stalled(progress.done, &self.limits.pace) || late {
                let _ = out.sync_all();
                return Err(if late {
                    self.too_slow(
                        progress.done,
                        format!(
                            "it passed its deadline of {} ({})",
                            seconds(deadline),
                            self.limits.deadline_basis(total, have)
                        ),
                    )
                } else {
                    self.stalled(progress.done)
                });
            }
        }
        out.sync_all().map_err(|e| ModelsError::io(self.part, e))?;
        match total {
            Some(total) if progress.done < total => Err(self.http(format!(
                "the server ended the file after {} of {total} bytes; try again to go on from there",
                progress.done
            ))),
            _ => Ok(()),
        }
    }

    /// Reads the next bytes of the body into `buf`; a timeout is a stall
    /// and a broken connection a download error, each with the `.part`
    /// synced (`done` bytes in it) for the next attempt.
    fn read(
        &self,
        reader: &mut impl Read,
        buf: &mut [u8],
        out: &File,
        done: u64,
    ) -> Result<usize, ModelsError> {
        loop {
            match reader.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = out.sync_all();
                    return Err(if narratoria_http::is_timeout_kind(e.kind()) {
                        self.stalled(done)
                    } else {
                        self.http(format!(
                            "the connection broke after {done} bytes ({e}); try again to go on from there"
                        ))
                    });
                }
            }
        }
    }

    fn http(&self, reason: String) -> ModelsError {
        ModelsError::Http {
            url: self.url.to_string(),
            reason,
        }
    }

    /// The body went past the limit: the `.part` is deleted.
    fn too_large(&self, seen: String) -> ModelsError {
        let _ = std::fs::remove_file(self.part);
        ModelsError::DownloadTooLarge {
            url: self.url.to_string(),
            limit: self.limits.max_bytes(),
            basis: self.limits.basis(),
            seen,
        }
    }

    fn too_slow(&self, done: u64, reason: String) -> ModelsError {
        ModelsError::DownloadTooSlow {
            url: self.url.to_string(),
            done,
            reason,
        }
    }

    fn stalled(&self, done: u64) -> ModelsError {
        let pace = self.limits.pace;
        let what = match pace.stall_bytes {
            0 | 1 => "nothing".to_string(),
            n => format!("fewer than {n} bytes"),
        };
        self.too_slow(done, format!("{what} arrived in {}", seconds(pace.stall)))
    }
}

/// The stall rule's memory: the last time [`Pace::stall_bytes`] had
/// arrived since the time before.
struct PaceWatch {
    mark_at: Instant,
    mark_done: u64,
}

impl PaceWatch {
    fn new(done: u64) -> PaceWatch {
        PaceWatch {
            mark_at: Instant::now(),
            mark_done: done,
        }
    }

    /// Whether, with `done` bytes now, fewer than `pace.stall_bytes` have
    /// arrived for `pace.stall`.
    fn stalled(&mut self, done: u64, pace: &Pace) -> bool {
        let now = Instant::now();
        if done - self.mark_done >= pace.stall_bytes {
            (self.mark_at, self.mark_done) = (now, done);
            false
        } else {
            now.duration_since(self.mark_at) >= pace.stall
        }
    }
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
