//! A small stand-in for Hugging Face's Hub on 127.0.0.1, for tests of
//! downloads from the Hub (nothing in a test may reach the network). It
//! speaks the parts of the Hub's wire format Narratoria uses:
//! - `GET /api/models/OWNER/NAME/tree/REV[/DIR][?recursive=true]`: a JSON
//!   array of `{type, oid, size, path, lfs: {oid, size, pointerSize}}`, two
//!   entries a page, the next page named by a `Link: <…>; rel="next"`
//!   header;
//! - `HEAD|GET /OWNER/NAME/resolve/REV/PATH`: a 302 to `/cdn/SHA256` with
//!   `X-Linked-Etag`, `X-Linked-Size` and `X-Repo-Commit`;
//! - `GET /cdn/SHA256`: the bytes, with Range requests answered.
//!
//! Its [`Quirks`] make it misbehave as a hostile Hub could: redirects to
//! addresses without a host or on another host, next pages elsewhere, sizes
//! that lie.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use crate::fixture::sha256_hex;

/// One file of the repository the stand-in serves.
#[derive(Debug, Clone)]
pub struct HubTestFile {
    pub path: String,
    pub body: Vec<u8>,
}

/// How the stand-in departs from the real Hub, to test what a download does
/// then.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quirks {
    /// The tree listing and the linked etag give a checksum that is not the
    /// file's.
    pub wrong_checksum: bool,
    /// The first download of file bytes is cut half-way.
    pub cut_first_transfer: bool,
    /// The tree listing has no `lfs` objects, so the checksum must come
    /// from the resolve address's `X-Linked-Etag`.
    pub no_lfs_in_tree: bool,
    /// The resolve address redirects here instead of to `/cdn/SHA256`
    /// (`file:///etc/passwd`, another host…).
    pub resolve_location: Option<String>,
    /// Every tree listing answers a 302 to here instead of the listing.
    pub listing_location: Option<String>,
    /// A listing's next pages are named as absolute addresses on this base
    /// (`http://host:port`) instead of relative ones.
    pub next_page_base: Option<String>,
    /// The size the listing (`size`, `lfs.size`) and `X-Linked-Size` claim
    /// for every file, instead of its length.
    pub claimed_size: Option<u64>,
}

/// A request the stand-in saw: method, path, Range start.
pub type SeenRequest = (String, String, Option<u64>);

/// A running stand-in.
pub struct HubServer {
    /// Its address, to give as the Hub's endpoint.
    pub endpoint: String,
    /// Each request's method, path and Range start, in order.
    pub seen: Arc<Mutex<Vec<SeenRequest>>>,
}

/// Serves `files` as repository `repo` (`owner/name`) at revision `main`.
pub fn serve_hub(repo: &str, files: Vec<HubTestFile>, quirks: Quirks) -> HubServer {
    let repo = repo.to_string();
    let mut transfers = 0;
    serve(move |method, target, range| {
        let mut answer = answer(&repo, &files, &quirks, method, target, range);
        if answer.transfer && method != "HEAD" {
            transfers += 1;
            if quirks.cut_first_transfer && transfers == 1 {
                answer.body.truncate(answer.body.len() / 2);
            }
        }
        answer
    })
}

/// Serves the tree listing of `repo` as `pages` pages, every one `page` as
/// it is (any JSON, however large), each but the last naming the next
/// (`?cursor=N`); anything else is a 404. For tests of a listing's bounds.
pub fn serve_listing(repo: &str, page: Vec<u8>, pages: usize) -> HubServer {
    let tree = format!("/api/models/{repo}/tree/main");
    serve(move |_, target, _| {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        if !path.starts_with(&tree) {
            return plain("404 Not Found", "Repository not found");
        }
        let cursor = cursor(query);
        let next = if cursor + 1 < pages {
            format!("Link: <{tree}?cursor={}>; rel=\"next\"\r\n", cursor + 1)
        } else {
            String::new()
        };
        Answer {
            head: format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{next}Content-Length: {}\r\nConnection: close\r\n\r\n",
                page.len()
            ),
            body: page.clone(),
            transfer: false,
        }
    })
}

/// Serves each request on a loopback port with `respond` (method, target,
/// Range start → the answer; a HEAD gets the head alone), logging each.
fn serve(mut respond: impl FnMut(&str, &str, Option<u64>) -> Answer + Send + 'static) -> HubServer {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let endpoint = format!("http://{}", listener.local_addr().expect("its address"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let Some((method, target, range)) = read_head(&stream) else {
                continue;
            };
            log.lock()
                .expect("the log")
                .push((method.clone(), target.clone(), range));
            let answer = respond(&method, &target, range);
            let _ = stream.write_all(answer.head.as_bytes());
            if method != "HEAD" {
                let _ = stream.write_all(&answer.body);
            }
            let _ = stream.flush();
        }
    });
    HubServer { endpoint, seen }
}

/// The `cursor=N` of a listing's query (0 when absent).
fn cursor(query: &str) -> usize {
    query
        .split('&')
        .find_map(|p| p.strip_prefix("cursor="))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

struct Answer {
    head: String,
    body: Vec<u8>,
    /// File bytes (the transfer a quirk may cut).
    transfer: bool,
}

fn plain(status: &str, body: &str) -> Answer {
    Answer {
        head: format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ),
        body: body.as_bytes().to_vec(),
        transfer: false,
    }
}

fn checksum(file: &HubTestFile, quirks: &Quirks) -> String {
    if quirks.wrong_checksum {
        "0".repeat(64)
    } else {
        sha256_hex(&file.body)
    }
}

fn answer(
    repo: &str,
    files: &[HubTestFile],
    quirks: &Quirks,
    method: &str,
    target: &str,
    range: Option<u64>,
) -> Answer {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if let Some(rest) = path.strip_prefix(&format!("/api/models/{repo}/tree/main")) {
        if let Some(location) = &quirks.listing_location {
            return redirect(location, "");
        }
        let folder = rest.trim_start_matches('/');
        let recursive = query.contains("recursive=true");
        return tree_page(repo, files, quirks, folder, recursive, cursor(query));
    }
    if let Some(file) = path.strip_prefix(&format!("/{repo}/resolve/main/")) {
        let Some(f) = files.iter().find(|f| f.path == file) else {
            return plain("404 Not Found", "Entry not found");
        };
        let sha = checksum(f, quirks);
        let location = quirks
            .resolve_location
            .clone()
            .unwrap_or_else(|| format!("/cdn/{}", sha256_hex(&f.body)));
        let linked = format!(
            "X-Linked-Etag: \"{sha}\"\r\nX-Linked-Size: {}\r\nX-Repo-Commit: {}\r\n",
            claimed_size(f, quirks),
            "c".repeat(40)
        );
        return redirect(&location, &linked);
    }
    if let Some(sha) = path.strip_prefix("/cdn/") {
        let Some(f) = files.iter().find(|f| sha256_hex(&f.body) == sha) else {
            return plain("404 Not Found", "no such object");
        };
        let len = f.body.len() as u64;
        return match range {
            Some(s) if s >= len => Answer {
                head: format!("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{len}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
                body: Vec::new(),
                transfer: false,
            },
            Some(s) => Answer {
                head: format!(
                    "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {s}-{}/{len}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    len - 1,
                    len - s
                ),
                body: f.body[s as usize..].to_vec(),
                transfer: true,
            },
            None => Answer {
                head: format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n"),
                body: f.body.clone(),
                transfer: true,
            },
        };
    }
    let _ = method;
    plain("404 Not Found", "Repository not found")
}

/// A 302 to `location`, with `headers` (whole lines) besides.
fn redirect(location: &str, headers: &str) -> Answer {
    Answer {
        head: format!(
            "HTTP/1.1 302 Found\r\nLocation: {location}\r\n{headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        body: Vec::new(),
        transfer: false,
    }
}

/// The size the stand-in gives for `file`: its length, unless a quirk says
/// otherwise.
fn claimed_size(file: &HubTestFile, quirks: &Quirks) -> u64 {
    quirks.claimed_size.unwrap_or(file.body.len() as u64)
}

/// One page of the tree listing: the files (and the folders, as the Hub
/// lists them) directly under `folder`, or all of them when `recursive`.
fn tree_page(
    repo: &str,
    files: &[HubTestFile],
    quirks: &Quirks,
    folder: &str,
    recursive: bool,
    cursor: usize,
) -> Answer {
    let prefix = if folder.is_empty() {
        String::new()
    } else {
        format!("{folder}/")
    };
    let mut entries: Vec<serde_json::Value> = Vec::new();
    let mut folders: Vec<String> = Vec::new();
    for f in files {
        let Some(rest) = f.path.strip_prefix(&prefix) else {
            continue;
        };
        match rest.split_once('/') {
            Some((dir, _)) if !recursive => {
                let dir = format!("{prefix}{dir}");
                if !folders.contains(&dir) {
                    folders.push(dir.clone());
                    entries.push(serde_json::json!({"type": "directory", "oid": "d".repeat(40), "size": 0, "path": dir}));
                }
            }
            _ => {
                let size = claimed_size(f, quirks);
                let mut entry = serde_json::json!({"type": "file", "oid": "a".repeat(40), "size": size, "path": f.path});
                if !quirks.no_lfs_in_tree {
                    entry["lfs"] = serde_json::json!({"oid": checksum(f, quirks), "size": size, "pointerSize": 134});
                }
                entries.push(entry);
            }
        }
    }
    if entries.is_empty() && !folder.is_empty() {
        return plain("404 Not Found", "Entry not found");
    }
    let page: Vec<_> = entries.iter().skip(cursor).take(2).cloned().collect();
    let next = (cursor + 2 < entries.len()).then(|| {
        let sep = if recursive { "?recursive=true&" } else { "?" };
        let dir = if folder.is_empty() {
            String::new()
        } else {
            format!("/{folder}")
        };
        let base = quirks.next_page_base.as_deref().unwrap_or("");
        format!(
            "Link: <{base}/api/models/{repo}/tree/main{dir}{sep}cursor={}>; rel=\"next\"\r\n",
            cursor + 2
        )
    });
    let body = serde_json::to_string(&page).expect("JSON");
    Answer {
        head: format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{}Content-Length: {}\r\nConnection: close\r\n\r\n",
            next.unwrap_or_default(),
            body.len()
        ),
        body: body.into_bytes(),
        transfer: false,
    }
}

/// Reads one request's head: method, target, and Range start; `None` when
/// no whole head came within two seconds.
pub(crate) fn read_head(stream: &TcpStream) -> Option<(String, String, Option<u64>)> {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let mut parts = first.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut start = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(spec) = lower.strip_prefix("range: bytes=") {
            start = spec.trim().trim_end_matches('-').parse::<u64>().ok();
        }
    }
    Some((method, target, start))
}
