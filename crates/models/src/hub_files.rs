//! What the Hugging Face Hub says of a repository's files: their paths,
//! sizes and SHA-256 checksums (docs/models.md, "Models from Hugging
//! Face"). A download is checked against the checksum the Hub gives when it
//! starts, because a catalog cannot pin what a publisher may re-upload.

use std::io::Read;
use std::time::{Duration, Instant};

use narratoria_http::{CallError, Redirects};
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use url::Url;

use crate::error::ModelsError;

/// The most bytes a repository's whole file listing may have, all its
/// pages together (docs/models.md, "Models from Hugging Face").
pub const MAX_LISTING_BYTES: u64 = 16 << 20;
/// The most entries (files and folders) a repository's whole file listing
/// may have, all its pages together.
pub const MAX_LISTING_ENTRIES: usize = 10_000;
/// The most pages a listing is followed through (the Hub gives up to 1,000
/// entries a page).
pub const MAX_PAGES: usize = 50;
/// The longest a whole listing may take, all its pages together.
pub const LISTING_TIME: Duration = Duration::from_secs(120);

/// A file in a Hub repository, named by the catalog or by a pasted link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HubSource {
    /// `owner/name`.
    pub repo: String,
    /// A branch, tag or commit; `main` when not given.
    #[serde(default = "main")]
    pub revision: String,
    /// The file's path in the repository (may be in a sub-folder).
    pub file: String,
}

fn main() -> String {
    "main".to_string()
}

impl HubSource {
    /// The file's name without its folders: the name it is installed under.
    pub fn file_name(&self) -> &str {
        self.file.rsplit('/').next().unwrap_or(&self.file)
    }

    /// The folder the file is in (`""`: the repository's top).
    pub fn folder(&self) -> &str {
        self.file.rsplit_once('/').map_or("", |(dir, _)| dir)
    }

    /// Where the file is downloaded from on the Hub at `endpoint`.
    pub fn resolve_url(&self, endpoint: &str) -> String {
        format!(
            "{endpoint}/{}/resolve/{}/{}",
            self.repo, self.revision, self.file
        )
    }

    /// The page a player can open to read about the file.
    pub fn page_url(&self, endpoint: &str) -> String {
        format!(
            "{endpoint}/{}/blob/{}/{}",
            self.repo, self.revision, self.file
        )
    }
}

/// One file of a repository's listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HubFile {
    pub path: String,
    pub size: u64,
    /// The file's SHA-256 (lower-case hex), for a file stored in LFS.
    pub sha256: Option<String>,
}

/// What a download from the Hub needs: where, how large, and the checksum
/// the whole file must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub url: String,
    pub size: Option<u64>,
    pub sha256: String,
}

/// Which part of a repository a listing covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    /// Every file, sub-folders included (`?recursive=true`).
    Repository,
    /// The files and folders directly in one folder (`""`: the top).
    Folder(&'a str),
}

/// One entry of the tree API's answer.
#[derive(Deserialize)]
struct TreeEntry {
    #[serde(rename = "type")]
    kind: String,
    path: String,
    #[serde(default)]
    size: u64,
    #[serde(default)]
    lfs: Option<Lfs>,
}

#[derive(Deserialize)]
struct Lfs {
    oid: String,
    #[serde(default)]
    size: Option<u64>,
}

impl TreeEntry {
    /// The entry as a listed file, when it is a file.
    fn into_file(self) -> Option<HubFile> {
        if self.kind != "file" {
            return None;
        }
        let sha256 = self.lfs.as_ref().and_then(|l| sha256_of(&l.oid));
        let size = self.lfs.as_ref().and_then(|l| l.size).unwrap_or(self.size);
        Some(HubFile {
            path: self.path,
            size,
            sha256,
        })
    }
}

fn hub_error(repo: &str, reason: impl Into<String>) -> ModelsError {
    ModelsError::Hub {
        repo: repo.to_string(),
        reason: reason.into(),
    }
}

/// Whether `text` is a SHA-256 in hex; returns it in lower case.
fn sha256_of(text: &str) -> Option<String> {
    let text = text.trim().trim_start_matches("W/").trim_matches('"');
    (text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| text.to_ascii_lowercase())
}

/// The files of `repo` at `revision` in `scope`, from the Hub's tree API,
/// followed through its pages (`Link: <…>; rel="next"`).
///
/// Promises: the whole listing, all pages together, has at most
/// [`MAX_LISTING_ENTRIES`] entries, [`MAX_LISTING_BYTES`] bytes and
/// [`MAX_PAGES`] pages and takes at most [`LISTING_TIME`]; every request
/// stays on the host and port of `endpoint` (a redirect is followed by
/// [`Redirects::SAME_HOST`], a next page elsewhere is refused). Past any of
/// these, or on an answer that is not the API's, the error is
/// [`ModelsError::Hub`] naming the repository and the bound; never a panic.
pub fn list(
    endpoint: &str,
    repo: &str,
    revision: &str,
    scope: Scope<'_>,
) -> Result<Vec<HubFile>, ModelsError> {
    let mut url = match scope {
        Scope::Repository => format!("{endpoint}/api/models/{repo}/tree/{revision}?recursive=true"),
        Scope::Folder("") => format!("{endpoint}/api/models/{repo}/tree/{revision}"),
        Scope::Folder(folder) => format!("{endpoint}/api/models/{repo}/tree/{revision}/{folder}"),
    };
    let agent = narratoria_http::agent_builder()
        .timeout_connect(Duration::from_secs(30))
        .build();
    let started = Instant::now();
    let mut listing = Listing::default();
    for _ in 0..MAX_PAGES {
        let left = LISTING_TIME.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(hub_error(
                repo,
                format!(
                    "the file listing took longer than {} s",
                    LISTING_TIME.as_secs()
                ),
            ));
        }
        let room = MAX_LISTING_BYTES.saturating_sub(listing.bytes);
        let of = ListingOf {
            endpoint,
            repo,
            revision,
        };
        let (body, next) = fetch_page(&agent, &url, left, room, &of)?;
        listing
            .take_page(&body)
            .map_err(|reason| hub_error(repo, reason))?;
        match next {
            Some(next) => url = next_page_url(endpoint, &next).map_err(|r| hub_error(repo, r))?,
            None => return Ok(listing.files),
        }
    }
    Err(hub_error(
        repo,
        format!("the file listing has more than {MAX_PAGES} pages"),
    ))
}

/// The repository a listing is of, for its requests and its errors.
struct ListingOf<'a> {
    endpoint: &'a str,
    repo: &'a str,
    revision: &'a str,
}

/// One page of a listing, asked within `time_left`: its body, at most
/// `room` bytes, and its next page's address as the `Link` header gives it.
fn fetch_page(
    agent: &ureq::Agent,
    url: &str,
    time_left: Duration,
    room: u64,
    of: &ListingOf<'_>,
) -> Result<(Vec<u8>, Option<String>), ModelsError> {
    let repo = of.repo;
    let request = narratoria_http::Request {
        method: "GET",
        url,
        body: None,
        rule: Redirects::SAME_HOST,
    };
    let prepare = |r: ureq::Request, _on_first_host: bool| r.timeout(time_left);
    let response = match narratoria_http::call(agent, request, &prepare) {
        Ok(answer) => answer.response,
        Err(CallError::Http(e)) => {
            return Err(hub_error(
                repo,
                match *e {
                    ureq::Error::Status(404, _) => format!(
                        "no such repository or revision ({}) on {}",
                        of.revision, of.endpoint
                    ),
                    ureq::Error::Status(code, r) => {
                        format!("the file listing answered HTTP {code} {}", r.status_text())
                    }
                    other => format!("the Hub cannot be reached: {other}"),
                },
            ))
        }
        Err(refused) => return Err(hub_error(repo, format!("the file listing: {refused}"))),
    };
    let next = response.header("link").and_then(next_page);
    let mut body = Vec::new();
    response
        .into_reader()
        .take(room + 1)
        .read_to_end(&mut body)
        .map_err(|e| hub_error(repo, format!("the file listing was cut: {e}")))?;
    if body.len() as u64 > room {
        return Err(hub_error(
            repo,
            format!("the file listing is larger than {MAX_LISTING_BYTES} bytes in all"),
        ));
    }
    Ok((body, next))
}

/// What a listing has gathered so far, over its pages.
#[derive(Default)]
struct Listing {
    files: Vec<HubFile>,
    /// Entries read, folders included.
    entries: usize,
    bytes: u64,
}

impl Listing {
    /// Adds one page's files. Reading stops at the first entry past
    /// [`MAX_LISTING_ENTRIES`]: the error says so.
    fn take_page(&mut self, body: &[u8]) -> Result<(), String> {
        self.bytes += body.len() as u64;
        let mut deserializer = serde_json::Deserializer::from_slice(body);
        let read = PageSeed { listing: self }
            .deserialize(&mut deserializer)
            .and_then(|()| deserializer.end());
        match read {
            Ok(()) => Ok(()),
            Err(_) if self.entries > MAX_LISTING_ENTRIES => Err(format!(
                "the file listing has more than {MAX_LISTING_ENTRIES} entries"
            )),
            Err(e) => Err(format!("the file listing is not the Hub's: {e}")),
        }
    }
}

/// Reads one page's JSON array into a [`Listing`], entry by entry.
struct PageSeed<'a> {
    listing: &'a mut Listing,
}

impl<'de> DeserializeSeed<'de> for PageSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PageSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of tree entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(entry) = seq.next_element::<TreeEntry>()? {
            self.listing.entries += 1;
            if self.listing.entries > MAX_LISTING_ENTRIES {
                return Err(serde::de::Error::custom("too many entries"));
            }
            self.listing.files.extend(entry.into_file());
        }
        Ok(())
    }
}

/// The `rel="next"` address of a `Link` header.
fn next_page(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"")
            .then(|| {
                target
                    .trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_string()
            })
    })
}

/// The address of a listing's next page on the Hub at `endpoint`: a
/// relative one is made absolute on it; an absolute one is taken only on
/// its scheme, host and port ("never to another host for listings";
/// docs/security.md, "Redirects"). Else why not.
fn next_page_url(endpoint: &str, next: &str) -> Result<String, String> {
    let shown = || format!("{:?}", next.chars().take(120).collect::<String>());
    match Url::parse(next) {
        Ok(page) => {
            let hub = Url::parse(endpoint)
                .map_err(|e| format!("the Hub's address {endpoint:?} is not usable ({e})"))?;
            if narratoria_http::same_origin(&page, &hub) {
                Ok(page.into())
            } else {
                Err(format!(
                    "the file listing's next page {} is not on {endpoint}; a listing never leaves the Hub's host",
                    shown()
                ))
            }
        }
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            Ok(format!("{endpoint}/{}", next.trim_start_matches('/')))
        }
        Err(e) => Err(format!(
            "the file listing's next page {} is not an address ({e})",
            shown()
        )),
    }
}

/// Where `source` downloads from, its size and its SHA-256, as the Hub at
/// `endpoint` gives them now: from the tree listing of the file's folder
/// (only that folder: [`Scope::Folder`]), then as [`resolve_listed`].
pub fn resolve(endpoint: &str, source: &HubSource) -> Result<Resolved, ModelsError> {
    let listed = list(
        endpoint,
        &source.repo,
        &source.revision,
        Scope::Folder(source.folder()),
    )?;
    let Some(file) = listed.iter().find(|f| f.path == source.file) else {
        return Err(hub_error(
            &source.repo,
            format!(
                "it has no file {} at {} (its GGUF files: {})",
                source.file,
                source.revision,
                names(&listed)
            ),
        ));
    };
    resolve_listed(endpoint, source, file)
}

/// Where `source` downloads from, its size and its SHA-256, given `file`,
/// its entry in a listing already read: the entry's `lfs.oid` and size,
/// else the resolve address's own answer, asked without following its
/// redirect (`X-Linked-Etag`, `X-Linked-Size`). A file the Hub gives no
/// SHA-256 for is refused: nothing is downloaded unchecked. A size of 0 is
/// taken as unknown.
pub fn resolve_listed(
    endpoint: &str,
    source: &HubSource,
    file: &HubFile,
) -> Result<Resolved, ModelsError> {
    let url = source.resolve_url(endpoint);
    let listed_size = Some(file.size).filter(|s| *s > 0);
    if let Some(sha256) = &file.sha256 {
        return Ok(Resolved {
            url,
            size: listed_size,
            sha256: sha256.clone(),
        });
    }
    // The redirect's own headers are what is read, so this request goes
    // through no redirect rule: its agent follows none (a 3xx is the answer).
    let agent = narratoria_http::agent_builder()
        .timeout_connect(Duration::from_secs(30))
        .timeout(Duration::from_secs(120))
        .build();
    let response = match agent.head(&url).call() {
        Ok(r) => r,
        Err(ureq::Error::Status(code, r)) => {
            return Err(hub_error(
                &source.repo,
                format!("{} answered HTTP {code} {}", source.file, r.status_text()),
            ))
        }
        Err(e) => {
            return Err(hub_error(
                &source.repo,
                format!("the Hub cannot be reached: {e}"),
            ))
        }
    };
    let sha256 = response
        .header("x-linked-etag")
        .and_then(sha256_of)
        .ok_or_else(|| {
            hub_error(
                &source.repo,
                format!(
                    "the Hub gives no SHA-256 for {}; it is not downloaded unchecked",
                    source.file
                ),
            )
        })?;
    let size = response
        .header("x-linked-size")
        .and_then(|s| s.trim().parse().ok())
        .filter(|s| *s > 0)
        .or(listed_size);
    Ok(Resolved { url, size, sha256 })
}

/// The GGUF files among `files`, by path, for a message.
fn names(files: &[HubFile]) -> String {
    let ggufs: Vec<&HubFile> = ggufs(files).collect();
    if ggufs.is_empty() {
        "none".into()
    } else {
        paths_for_message(ggufs.into_iter())
    }
}

/// The most paths a message names; the others are counted.
const NAMED_IN_A_MESSAGE: usize = 20;

/// `files`' paths for a message: the first [`NAMED_IN_A_MESSAGE`], and how
/// many more there are.
pub fn paths_for_message<'a>(files: impl ExactSizeIterator<Item = &'a HubFile>) -> String {
    let more = files.len().saturating_sub(NAMED_IN_A_MESSAGE);
    let named: Vec<&str> = files
        .take(NAMED_IN_A_MESSAGE)
        .map(|f| f.path.as_str())
        .collect();
    match more {
        0 => named.join(", "),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// The `.gguf` files among `files`.
pub fn ggufs(files: &[HubFile]) -> impl Iterator<Item = &HubFile> {
    files
        .iter()
        .filter(|f| f.path.to_ascii_lowercase().ends_with(".gguf"))
}

/// Whether `path` is one part of a model split into several files
/// (`…-00001-of-00003.gguf`), which is not one model on its own.
pub fn is_split_part(path: &str) -> bool {
    let stem = path.trim_end_matches(".gguf");
    let parts: Vec<&str> = stem.rsplitn(4, '-').collect();
    matches!(parts.as_slice(), [total, "of", index, _]
        if total.len() == 5 && index.len() == 5
            && total.bytes().all(|b| b.is_ascii_digit())
            && index.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_page_is_read_from_the_link_header() {
        assert_eq!(
            next_page(
                r#"<https://huggingface.co/api/models/o/r/tree/main?cursor=abc>; rel="next""#
            )
            .as_deref(),
            Some("https://huggingface.co/api/models/o/r/tree/main?cursor=abc")
        );
        assert_eq!(
            next_page(r#"</prev>; rel="prev", </api/x?cursor=2>; rel="next""#).as_deref(),
            Some("/api/x?cursor=2")
        );
        assert_eq!(next_page(r#"</prev>; rel="prev""#), None);
        assert_eq!(
            next_page_url("http://h:1", "/api/x").as_deref(),
            Ok("http://h:1/api/x")
        );
        assert_eq!(
            next_page_url("http://h:1", "http://h:1/api/x?cursor=2").as_deref(),
            Ok("http://h:1/api/x?cursor=2")
        );
        for elsewhere in [
            "http://other:1/api/x",
            "http://h:2/api/x",
            "https://h:1/api/x",
            "file:///etc/passwd",
            "data:text/plain,x",
        ] {
            let err = next_page_url("http://h:1", elsewhere).unwrap_err();
            assert!(
                err.contains("never leaves the Hub's host"),
                "{elsewhere}: {err}"
            );
        }
    }

    #[test]
    fn an_etag_is_a_checksum_only_when_it_is_one() {
        let sha = "AB".repeat(32);
        assert_eq!(sha256_of(&format!("\"{sha}\"")), Some("ab".repeat(32)));
        assert_eq!(sha256_of(&format!("W/\"{sha}\"")), Some("ab".repeat(32)));
        assert_eq!(sha256_of("\"a1b2c3\""), None);
        assert_eq!(sha256_of(&"g".repeat(64)), None);
    }

    #[test]
    fn split_parts_are_told_from_whole_files() {
        assert!(is_split_part(
            "qwen2.5-7b-instruct-q4_k_m-00001-of-00002.gguf"
        ));
        assert!(!is_split_part("qwen2.5-1.5b-instruct-q4_k_m.gguf"));
        assert!(!is_split_part("model-of-00002.gguf"));
    }

    #[test]
    fn a_source_names_its_download_and_its_file() {
        let s = HubSource {
            repo: "o/r".into(),
            revision: "main".into(),
            file: "q4/m.gguf".into(),
        };
        assert_eq!(s.file_name(), "m.gguf");
        assert_eq!(
            s.resolve_url("http://h"),
            "http://h/o/r/resolve/main/q4/m.gguf"
        );
    }
}
