//! Downloads against a small HTTP server on 127.0.0.1 (crate::test_server).

use std::net::TcpListener;

use super::*;
use crate::fixture::sha256_hex as sha;
use crate::test_server::serve;

fn body() -> Vec<u8> {
    (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect()
}

#[test]
fn downloads_verifies_and_moves_into_place() {
    let dir = tempfile::tempdir().unwrap();
    let body = body();
    let server = serve(body.clone(), false, true);
    let dest = dir.path().join("m.bin");
    let mut last = None;
    fetch(&server.url, &sha(&body), &dest, &mut |p| last = Some(p)).unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), body);
    assert!(!part_path(&dest).exists());
    let last = last.unwrap();
    assert_eq!(
        (last.done, last.total),
        (body.len() as u64, Some(body.len() as u64))
    );
}

#[test]
fn an_interrupted_download_resumes_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let body = body();
    let server = serve(body.clone(), true, true);
    let dest = dir.path().join("m.bin");
    let err = fetch(&server.url, &sha(&body), &dest, &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "download_failed", "{err}");
    assert!(err.to_string().contains("try again to go on"), "{err}");
    assert!(!dest.exists());
    let kept = std::fs::metadata(part_path(&dest)).unwrap().len();
    assert_eq!(kept, body.len() as u64 / 2);

    let mut first = None;
    fetch(&server.url, &sha(&body), &dest, &mut |p| {
        first.get_or_insert(p);
    })
    .unwrap();
    assert_eq!(first.unwrap().resumed_from, kept);
    assert_eq!(std::fs::read(&dest).unwrap(), body);
    assert!(!part_path(&dest).exists());
    assert_eq!(*server.seen.lock().unwrap(), vec![None, Some(kept)]);
}

#[test]
fn a_server_without_ranges_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let body = body();
    let server = serve(body.clone(), true, false);
    let dest = dir.path().join("m.bin");
    assert!(fetch(&server.url, &sha(&body), &dest, &mut |_| {}).is_err());
    fetch(&server.url, &sha(&body), &dest, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), body);
}

#[test]
fn a_complete_part_is_only_checked() {
    let dir = tempfile::tempdir().unwrap();
    let body = body();
    let server = serve(body.clone(), false, true);
    let dest = dir.path().join("m.bin");
    std::fs::write(part_path(&dest), &body).unwrap();
    fetch(&server.url, &sha(&body), &dest, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), body);
}

#[test]
fn a_checksum_mismatch_discards_the_download() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(body(), false, true);
    let dest = dir.path().join("m.bin");
    let wrong = "0".repeat(64);
    let err = fetch(&server.url, &wrong, &dest, &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "model_checksum_mismatch");
    assert!(err.to_string().contains(&wrong), "{err}");
    assert!(!dest.exists());
    assert!(!part_path(&dest).exists());
}

#[test]
fn an_unreachable_server_is_a_download_error() {
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/x", listener.local_addr().unwrap());
    drop(listener);
    let err = fetch(&url, &"0".repeat(64), &dir.path().join("x"), &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "download_failed");
}
