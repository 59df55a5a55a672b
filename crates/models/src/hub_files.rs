//! What the Hugging Face Hub says of a repository's files: their paths,
//! sizes and SHA-256 checksums (docs/models.md, "Models from Hugging
//! Face"). A download is checked against the checksum the Hub gives when it
//! starts, because a catalog cannot pin what a publisher may re-upload.

use std::io::Read;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::ModelsError;

/// The most bytes one page of a tree listing may have.
const PAGE_MAX_BYTES: u64 = 8 << 20;
/// The most pages a listing is followed through (1,000 files a page).
const MAX_PAGES: usize = 50;

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

fn hub_error(repo: &str, reason: impl Into<String>) -> ModelsError {
    ModelsError::Hub {
        repo: repo.to_string(),
        reason: reason.into(),
    }
}

fn agent(redirects: u32) -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(30))
        .timeout(Duration::from_secs(120))
        .redirects(redirects)
        .build()
}

/// Whether `text` is a SHA-256 in hex; returns it in lower case.
fn sha256_of(text: &str) -> Option<String> {
    let text = text.trim().trim_start_matches("W/").trim_matches('"');
    (text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| text.to_ascii_lowercase())
}

/// The files of `repo` at `revision` under `folder` (`None`: the whole
/// repository, sub-folders included), from the Hub's tree API, followed
/// through its pages (`Link: <…>; rel="next"`). Every page is bounded in
/// size and the number of pages is bounded; an answer that is not the
/// API's is an error naming the repository.
pub fn list(
    endpoint: &str,
    repo: &str,
    revision: &str,
    folder: Option<&str>,
) -> Result<Vec<HubFile>, ModelsError> {
    let mut url = match folder.filter(|f| !f.is_empty()) {
        Some(folder) => format!("{endpoint}/api/models/{repo}/tree/{revision}/{folder}"),
        None => format!("{endpoint}/api/models/{repo}/tree/{revision}?recursive=true"),
    };
    let agent = agent(5);
    let mut files = Vec::new();
    for _ in 0..MAX_PAGES {
        let response = match agent.get(&url).call() {
            Ok(r) => r,
            Err(ureq::Error::Status(404, _)) => {
                return Err(hub_error(
                    repo,
                    format!("no such repository or revision ({revision}) on {endpoint}"),
                ))
            }
            Err(ureq::Error::Status(code, r)) => {
                return Err(hub_error(
                    repo,
                    format!("the file listing answered HTTP {code} {}", r.status_text()),
                ))
            }
            Err(e) => return Err(hub_error(repo, format!("the Hub cannot be reached: {e}"))),
        };
        let next = response.header("link").and_then(next_page);
        let mut body = Vec::new();
        response
            .into_reader()
            .take(PAGE_MAX_BYTES + 1)
            .read_to_end(&mut body)
            .map_err(|e| hub_error(repo, format!("the file listing was cut: {e}")))?;
        if body.len() as u64 > PAGE_MAX_BYTES {
            return Err(hub_error(
                repo,
                format!("a page of the file listing is larger than {PAGE_MAX_BYTES} bytes"),
            ));
        }
        let page: Vec<TreeEntry> = serde_json::from_slice(&body)
            .map_err(|e| hub_error(repo, format!("the file listing is not the Hub's: {e}")))?;
        files.extend(page.into_iter().filter(|e| e.kind == "file").map(|e| {
            let sha256 = e.lfs.as_ref().and_then(|l| sha256_of(&l.oid));
            let size = e.lfs.as_ref().and_then(|l| l.size).unwrap_or(e.size);
            HubFile {
                path: e.path,
                size,
                sha256,
            }
        }));
        match next {
            Some(n) => url = absolute(endpoint, &n),
            None => return Ok(files),
        }
    }
    Err(hub_error(
        repo,
        format!("the file listing has more than {MAX_PAGES} pages"),
    ))
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

/// A next-page address on the same Hub: a relative one is made absolute;
/// one on another server is taken as the Hub gives it.
fn absolute(endpoint: &str, next: &str) -> String {
    if next.starts_with("http://") || next.starts_with("https://") {
        next.to_string()
    } else {
        format!("{endpoint}/{}", next.trim_start_matches('/'))
    }
}

/// Where `source` downloads from, its size and its SHA-256, as the Hub at
/// `endpoint` gives them now: from the tree listing of the file's folder
/// (`lfs.oid`), else from the resolve address asked without following its
/// redirect (`X-Linked-Etag`, `X-Linked-Size`). A file the Hub gives no
/// SHA-256 for is refused: nothing is downloaded unchecked.
pub fn resolve(endpoint: &str, source: &HubSource) -> Result<Resolved, ModelsError> {
    let url = source.resolve_url(endpoint);
    let folder = source.file.rsplit_once('/').map(|(dir, _)| dir);
    let listed = list(endpoint, &source.repo, &source.revision, folder)?;
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
    if let Some(sha256) = &file.sha256 {
        return Ok(Resolved {
            url,
            size: Some(file.size),
            sha256: sha256.clone(),
        });
    }
    let response = match agent(0).head(&url).call() {
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
        .or(Some(file.size).filter(|s| *s > 0));
    Ok(Resolved { url, size, sha256 })
}

/// The GGUF files among `files`, by path, for a message.
fn names(files: &[HubFile]) -> String {
    let ggufs: Vec<&str> = ggufs(files).map(|f| f.path.as_str()).collect();
    if ggufs.is_empty() {
        "none".into()
    } else {
        ggufs.join(", ")
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
        assert_eq!(absolute("http://h:1", "/api/x"), "http://h:1/api/x");
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
