//! Downloads from Hugging Face's Hub, against a local stand-in speaking its
//! wire format (crate::test_hub): the tree listing, the resolve redirect,
//! Range requests, a wrong checksum and a cut transfer.

use super::*;
use crate::download::Pace;
use crate::fixture::tiny_gguf;
use crate::hub_files::{MAX_LISTING_BYTES, MAX_LISTING_ENTRIES};
use crate::test_hub::{serve_hub, serve_listing, sha256_hex, HubServer, HubTestFile, Quirks};

const REPO: &str = "tester/Tiny-Instruct-GGUF";

fn file(path: &str, body: Vec<u8>) -> HubTestFile {
    HubTestFile {
        path: path.into(),
        body,
    }
}

/// A repository with a README, two whole models (one in a sub-folder), and
/// a model split in two parts: more than one page of listing.
fn repo_files() -> Vec<HubTestFile> {
    vec![
        file("README.md", b"# Tiny".to_vec()),
        file("tiny-q4_k_m.gguf", tiny_gguf(true)),
        file("q8/tiny-q8_0.gguf", {
            let mut b = tiny_gguf(true);
            b.extend_from_slice(&[0; 16]);
            b
        }),
        file("tiny-f16-00001-of-00002.gguf", tiny_gguf(true)),
        file("tiny-f16-00002-of-00002.gguf", tiny_gguf(true)),
    ]
}

fn hub_entry(sha256: &str) -> Entry {
    Entry {
        name: "tiny-hub".into(),
        description: "a model on the Hub".into(),
        kind: Kind::Narrator,
        license: "MIT".into(),
        url: String::new(),
        sha256: sha256.into(),
        hub: Some(HubSource {
            repo: REPO.into(),
            revision: "main".into(),
            file: "tiny-q4_k_m.gguf".into(),
        }),
        parameters: Some(1_000),
        context: Some(2_048),
        languages: vec!["en".into()],
        size: None,
        ram: None,
        notes: None,
        unpack: Unpack::AsIs {
            file: "tiny-q4_k_m.gguf".into(),
        },
    }
}

fn library(root: &Path, hub: &HubServer, catalog: Vec<Entry>) -> Library {
    Library::new(root.join("own"), Vec::new(), catalog)
        .with_hub(&hub.endpoint)
        .with_pace(Pace {
            min_rate: 1,
            grace: std::time::Duration::from_secs(20),
            stall: std::time::Duration::from_secs(5),
            stall_bytes: 1,
            unsized_deadline: std::time::Duration::from_secs(20),
        })
}

fn seen(hub: &HubServer) -> Vec<crate::test_hub::SeenRequest> {
    hub.seen.lock().unwrap().clone()
}

#[test]
fn a_hub_entry_downloads_through_the_redirect_checked_against_the_listed_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let hub = serve_hub(REPO, repo_files(), Quirks::default());
    let lib = library(dir.path(), &hub, vec![hub_entry("")]);
    let mut last = None;
    let path = lib.download("tiny-hub", &mut |p| last = Some(p)).unwrap();
    assert_eq!(path, dir.path().join("own/tiny-q4_k_m.gguf"));
    assert_eq!(std::fs::read(&path).unwrap(), tiny_gguf(true));
    let total = tiny_gguf(true).len() as u64;
    assert_eq!(
        last.unwrap().total,
        Some(total),
        "the Hub's size is the total"
    );
    let requests = seen(&hub);
    assert!(
        requests
            .iter()
            .any(|(m, p, _)| m == "GET" && p.starts_with(&format!("/api/models/{REPO}/tree/main"))),
        "{requests:?}"
    );
    assert!(
        requests.iter().any(|(_, p, _)| p.starts_with("/cdn/")),
        "the redirect was followed: {requests:?}"
    );
    assert!(!dir.path().join("own/.downloads").exists());
}

#[test]
fn a_cut_transfer_from_the_hub_goes_on_with_a_range_request() {
    let dir = tempfile::tempdir().unwrap();
    let quirks = Quirks {
        cut_first_transfer: true,
        ..Quirks::default()
    };
    let hub = serve_hub(REPO, repo_files(), quirks);
    let lib = library(dir.path(), &hub, vec![hub_entry("")]);
    assert!(
        lib.download("tiny-hub", &mut |_| {}).is_err(),
        "the first transfer is cut"
    );
    let path = lib.download("tiny-hub", &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), tiny_gguf(true));
    let half = tiny_gguf(true).len() as u64 / 2;
    let ranges: Vec<Option<u64>> = seen(&hub)
        .into_iter()
        .filter(|(_, p, _)| p.starts_with("/cdn/"))
        .map(|(_, _, r)| r)
        .collect();
    assert_eq!(ranges, vec![None, Some(half)], "resumed where it stopped");
}

#[test]
fn a_file_that_does_not_match_the_hubs_checksum_is_thrown_away() {
    let dir = tempfile::tempdir().unwrap();
    let quirks = Quirks {
        wrong_checksum: true,
        ..Quirks::default()
    };
    let hub = serve_hub(REPO, repo_files(), quirks);
    let lib = library(dir.path(), &hub, vec![hub_entry("")]);
    let err = lib.download("tiny-hub", &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "model_checksum_mismatch", "{err}");
    assert!(!dir.path().join("own/tiny-q4_k_m.gguf").exists());
    assert!(!dir
        .path()
        .join("own/.downloads/tiny-q4_k_m.gguf.part")
        .exists());
}

#[test]
fn without_lfs_metadata_the_checksum_comes_from_the_linked_etag() {
    let dir = tempfile::tempdir().unwrap();
    let quirks = Quirks {
        no_lfs_in_tree: true,
        ..Quirks::default()
    };
    let hub = serve_hub(REPO, repo_files(), quirks);
    let lib = library(dir.path(), &hub, vec![hub_entry("")]);
    lib.download("tiny-hub", &mut |_| {}).unwrap();
    let requests = seen(&hub);
    assert!(
        requests
            .iter()
            .any(|(m, p, _)| m == "HEAD" && p.contains("/resolve/main/tiny-q4_k_m.gguf")),
        "{requests:?}"
    );
}

#[test]
fn a_catalog_checksum_the_hub_does_not_give_stops_the_download_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let hub = serve_hub(REPO, repo_files(), Quirks::default());
    let lib = library(dir.path(), &hub, vec![hub_entry(&"1".repeat(64))]);
    let err = lib.download("tiny-hub", &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "hub_failed");
    assert!(err.to_string().contains(&"1".repeat(64)), "{err}");
    assert!(!seen(&hub).iter().any(|(_, p, _)| p.starts_with("/cdn/")));
    // The same checksum pinned is taken.
    let lib = library(
        dir.path(),
        &hub,
        vec![hub_entry(&sha256_hex(&tiny_gguf(true)))],
    );
    lib.download("tiny-hub", &mut |_| {}).unwrap();
}

#[test]
fn a_repository_link_lists_its_whole_models_and_the_player_picks_one() {
    let dir = tempfile::tempdir().unwrap();
    let hub = serve_hub(REPO, repo_files(), Quirks::default());
    let lib = library(dir.path(), &hub, Vec::new());
    let link = format!("https://huggingface.co/{REPO}");
    let offered = lib.hub_files(&link).unwrap();
    let paths: Vec<&str> = offered.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["tiny-q4_k_m.gguf", "q8/tiny-q8_0.gguf"],
        "smallest first, split parts left out"
    );
    assert_eq!(
        offered[0].sha256.as_deref(),
        Some(sha256_hex(&tiny_gguf(true)).as_str())
    );

    let err = lib.add_from_hub(&link, None, &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "hub_choose_file");
    assert!(err.to_string().contains("q8/tiny-q8_0.gguf"), "{err}");

    let added = lib
        .add_from_hub(&link, Some("tiny-q8_0.gguf"), &mut |_| {})
        .unwrap();
    assert_eq!(added.name, "tiny-q8_0");
    assert_eq!(added.chat_template, Some(true));
    assert!(dir.path().join("own/tiny-q8_0.gguf").is_file());
    let again = lib
        .add_from_hub(&link, Some("tiny-q8_0.gguf"), &mut |_| {})
        .unwrap_err();
    assert_eq!(again.code(), "model_exists");
}

#[test]
fn a_file_link_adds_that_file_and_refuses_one_that_is_no_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = repo_files();
    files.push(file("no-template.gguf", tiny_gguf(false)));
    let hub = serve_hub(REPO, files, Quirks::default());
    let lib = library(dir.path(), &hub, Vec::new());
    let added = lib
        .add_from_hub(
            &format!("https://huggingface.co/{REPO}/blob/main/tiny-q4_k_m.gguf"),
            None,
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(added.name, "tiny-q4_k_m");

    let err = lib
        .add_from_hub(
            &format!("https://hf.co/{REPO}/resolve/main/no-template.gguf"),
            None,
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(err.code(), "model_no_chat_template", "{err}");
    assert!(!dir.path().join("own/no-template.gguf").exists());
    assert!(!dir.path().join("own/.downloads").exists());

    let missing = lib
        .add_from_hub(
            &format!("https://hf.co/{REPO}/resolve/main/gone.gguf"),
            None,
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(missing.code(), "hub_failed");
    assert!(
        missing.to_string().contains("tiny-q4_k_m.gguf"),
        "names what is there: {missing}"
    );

    let foreign = lib
        .add_from_hub(
            "https://example.com/o/r/resolve/main/x.gguf",
            None,
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(foreign.code(), "model_link_invalid");
    let nowhere = lib
        .hub_files("https://huggingface.co/nobody/nothing")
        .unwrap_err();
    assert_eq!(nowhere.code(), "hub_failed");
}

#[test]
fn every_built_in_hub_entry_passes_the_catalog_rules() {
    for e in crate::catalog::builtin() {
        if e.hub.is_some() {
            let json = serde_json::to_string(&vec![&e]).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("c.json");
            std::fs::write(&path, json).unwrap();
            crate::catalog::read_file(&path).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        }
    }
}

/// The tree requests `hub` saw.
fn listings(hub: &HubServer) -> usize {
    seen(hub)
        .iter()
        .filter(|(_, p, _)| p.starts_with("/api/models/"))
        .count()
}

/// A Hub stand-in answering a file link's download with a redirect to an
/// address without a host (`file:`, `data:`), another scheme or in a loop
/// crashed `models add` (exit 101): each is now an error naming it.
#[test]
fn a_file_link_redirected_where_it_may_not_go_is_an_error_not_a_panic() {
    let link = format!("https://huggingface.co/{REPO}/resolve/main/tiny-q4_k_m.gguf");
    let resolve = format!("/{REPO}/resolve/main/tiny-q4_k_m.gguf");
    for (location, says) in [
        ("file:///etc/passwd", "only http:// and https://"),
        (
            "data:text/plain;base64,R0dVRg==",
            "only http:// and https://",
        ),
        ("ftp://127.0.0.1/tiny.gguf", "only http:// and https://"),
        (resolve.as_str(), "more than 5 redirects"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let quirks = Quirks {
            resolve_location: Some(location.into()),
            ..Quirks::default()
        };
        let hub = serve_hub(REPO, repo_files(), quirks);
        let lib = library(dir.path(), &hub, Vec::new());
        let err = lib.add_from_hub(&link, None, &mut |_| {}).unwrap_err();
        assert_eq!(err.code(), "download_failed", "{location}: {err}");
        let message = err.to_string();
        assert!(message.contains("a redirect was refused"), "{message}");
        assert!(message.contains(says), "{location}: {message}");
        assert!(!dir.path().join("own/tiny-q4_k_m.gguf").exists());
    }
}

/// A listing stays on the Hub's host: a redirect of the listing, or a next
/// page, to another host (here another port, which answered the listing
/// before) is refused, and nothing is asked there.
#[test]
fn a_listing_never_leaves_the_hubs_host() {
    let link = format!("https://huggingface.co/{REPO}");
    let elsewhere = serve_hub(REPO, repo_files(), Quirks::default());
    let tree = format!(
        "{}/api/models/{REPO}/tree/main?recursive=true",
        elsewhere.endpoint
    );
    let cases = [
        (
            Quirks {
                listing_location: Some(tree),
                ..Quirks::default()
            },
            "for another host",
        ),
        (
            Quirks {
                next_page_base: Some(elsewhere.endpoint.clone()),
                ..Quirks::default()
            },
            "never leaves the Hub's host",
        ),
        (
            Quirks {
                listing_location: Some("file:///etc/passwd".into()),
                ..Quirks::default()
            },
            "only http:// and https://",
        ),
        (
            Quirks {
                listing_location: Some(format!("/api/models/{REPO}/tree/main")),
                ..Quirks::default()
            },
            "more than 5 redirects",
        ),
    ];
    for (quirks, says) in cases {
        let dir = tempfile::tempdir().unwrap();
        let hub = serve_hub(REPO, repo_files(), quirks);
        let lib = library(dir.path(), &hub, Vec::new());
        let err = lib.hub_files(&link).unwrap_err();
        assert_eq!(err.code(), "hub_failed", "{err}");
        assert!(err.to_string().contains(says), "{says}: {err}");
    }
    assert!(seen(&elsewhere).is_empty(), "{:?}", seen(&elsewhere));
}

/// `models add LINK --pick FILE` listed the repository twice (once to
/// offer, once more to pick) and a third time to find the file's checksum;
/// now once.
#[test]
fn adding_from_a_repository_lists_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let hub = serve_hub(REPO, repo_files(), Quirks::default());
    let lib = library(dir.path(), &hub, Vec::new());
    let link = format!("https://huggingface.co/{REPO}");
    lib.hub_files(&link).unwrap();
    let one_listing = listings(&hub);
    assert!(
        one_listing >= 2,
        "the stand-in pages its listing: {one_listing}"
    );
    lib.add_from_hub(&link, Some("tiny-q4_k_m.gguf"), &mut |_| {})
        .unwrap();
    assert_eq!(listings(&hub), 2 * one_listing, "{:?}", seen(&hub));
    // Without a pick the choice is offered from the same one listing.
    let before = listings(&hub);
    let err = lib.add_from_hub(&link, None, &mut |_| {}).unwrap_err();
    let ModelsError::HubChoose { files, .. } = err else {
        panic!("{err}")
    };
    assert_eq!(files.len(), 2);
    assert_eq!(listings(&hub) - before, one_listing);
}

/// The listing offered names that `--pick` then refused (`../x.gguf`,
/// an absolute path, a space): only names a pick takes are offered.
#[test]
fn only_names_a_pick_takes_are_offered() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = repo_files();
    for hostile in ["../escape.gguf", "/abs.gguf", "a b.gguf", ".hidden.gguf"] {
        files.push(file(hostile, tiny_gguf(true)));
    }
    let hub = serve_hub(REPO, files, Quirks::default());
    let lib = library(dir.path(), &hub, Vec::new());
    let link = format!("https://huggingface.co/{REPO}");
    let offered = lib.hub_files(&link).unwrap();
    let paths: Vec<&str> = offered.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["tiny-q4_k_m.gguf", "q8/tiny-q8_0.gguf"]);
    for path in &paths {
        assert_eq!(crate::hub::check_file_path(path), Ok(()));
    }
    let err = lib
        .add_from_hub(&link, Some("../escape.gguf"), &mut |_| {})
        .unwrap_err();
    assert_eq!(err.code(), "hub_choose_file", "{err}");
    assert!(!err.to_string().contains("escape"), "{err}");
}

/// 50 pages of minimal entries just under the old 8 MiB page bound gave
/// millions of files: a listing is bounded in entries and bytes in all.
#[test]
fn a_listing_is_bounded_in_entries_and_bytes_in_all() {
    let link = format!("https://huggingface.co/{REPO}");
    let entries = |n: usize| {
        let page: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"type":"file","path":"m{i}.gguf","size":1}}"#))
            .collect();
        format!("[{}]", page.join(",")).into_bytes()
    };
    // One page past the entries in all, then three pages that pass it together.
    for (page, pages) in [
        (entries(MAX_LISTING_ENTRIES + 1), 1),
        (entries(MAX_LISTING_ENTRIES / 3 + 1), 3),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let hub = serve_listing(REPO, page, pages);
        let lib = library(dir.path(), &hub, Vec::new());
        let err = lib.hub_files(&link).unwrap_err();
        assert_eq!(err.code(), "hub_failed", "{err}");
        assert!(
            err.to_string()
                .contains(&format!("more than {MAX_LISTING_ENTRIES} entries")),
            "{err}"
        );
    }
    // Pages of one entry, each 7 MiB: the third passes the bytes in all.
    let padding = "x".repeat(7 << 20);
    let page = format!(r#"[{{"type":"file","path":"m.gguf","size":1,"pad":"{padding}"}}]"#);
    let dir = tempfile::tempdir().unwrap();
    let hub = serve_listing(REPO, page.into_bytes(), 3);
    let lib = library(dir.path(), &hub, Vec::new());
    let err = lib.hub_files(&link).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("larger than {MAX_LISTING_BYTES} bytes in all")),
        "{err}"
    );
    assert_eq!(listings(&hub), 3);
}

/// A catalog entry pinned at a small size took 64 MiB when the Hub's
/// listing claimed 10^12 bytes: the catalog's size bounds the download.
#[test]
fn the_catalogs_size_bounds_a_hub_download_whatever_the_hub_claims() {
    let dir = tempfile::tempdir().unwrap();
    let mut large = tiny_gguf(true);
    large.extend(vec![0u8; 200 << 10]);
    let files = vec![file("tiny-q4_k_m.gguf", large.clone())];
    let quirks = Quirks {
        claimed_size: Some(1_000_000_000_000),
        ..Quirks::default()
    };
    let hub = serve_hub(REPO, files, quirks);
    let mut entry = hub_entry("");
    entry.size = Some(1_000);
    let lib = library(dir.path(), &hub, vec![entry]);
    let mut most = 0;
    let err = lib
        .download("tiny-hub", &mut |p| most = most.max(p.done))
        .unwrap_err();
    assert_eq!(err.code(), "download_too_large", "{err}");
    assert!(
        err.to_string().contains("the catalog's size of 1000 bytes"),
        "{err}"
    );
    assert_eq!(most, 0, "refused on the announced length");
    assert!(!dir.path().join("own/tiny-q4_k_m.gguf").exists());
    // Without a size in the catalog, the Hub's stands in.
    let lib = library(dir.path(), &hub, vec![hub_entry("")]);
    lib.download("tiny-hub", &mut |_| {}).unwrap();
}
