//! Downloads against a small HTTP server on 127.0.0.1 (crate::test_server).

use std::net::TcpListener;
use std::time::Instant;

use super::*;
use crate::fixture::sha256_hex as sha;
use crate::test_server::{serve, serve_misbehaving, Misbehaviour};

/// `fetch` with the default limits of a file of unknown size.
fn fetch(
    url: &str,
    sha256: &str,
    dest: &Path,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<(), ModelsError> {
    super::fetch(url, sha256, dest, &Limits::for_size(None), on_progress)
}

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

#[test]
fn an_endless_body_is_stopped_at_its_limit_and_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_misbehaving(Misbehaviour::Endless);
    let dest = dir.path().join("m.bin");
    let limits = Limits::for_size(Some(1_000));
    let started = Instant::now();
    let mut most = 0;
    let err = super::fetch(&server.url, &"0".repeat(64), &dest, &limits, &mut |p| {
        most = most.max(p.done)
    })
    .unwrap_err();
    assert_eq!(err.code(), "download_too_large", "{err}");
    let limit = limits.max_bytes();
    assert_eq!(limit, 1_000 + 10 + SIZE_SLACK_BYTES);
    assert!(err.to_string().contains(&limit.to_string()), "{err}");
    assert!(
        most <= limit && most > 0,
        "{most} bytes kept, limit {limit}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(!part_path(&dest).exists());
    assert!(!dest.exists());
}

#[test]
fn an_announced_length_over_the_limit_is_refused_before_the_body_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let body = body();
    let server = serve(body.clone(), false, true);
    let dest = dir.path().join("m.bin");
    let mut most = 0;
    let err = super::fetch(
        &server.url,
        &sha(&body),
        &dest,
        &Limits::for_size(Some(1_000)),
        &mut |p| most = most.max(p.done),
    )
    .unwrap_err();
    assert_eq!(err.code(), "download_too_large", "{err}");
    assert!(err.to_string().contains("300000"), "{err}");
    assert_eq!(most, 0);
    assert!(!part_path(&dest).exists());
}

#[test]
fn a_file_of_exactly_its_catalog_size_downloads() {
    let dir = tempfile::tempdir().unwrap();
    let body = body();
    let server = serve(body.clone(), false, true);
    let dest = dir.path().join("m.bin");
    let limits = Limits::for_size(Some(body.len() as u64));
    super::fetch(&server.url, &sha(&body), &dest, &limits, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), body);
}

/// Bounds that make a test's trickle too slow within a second.
fn quick(min_rate: u64, grace_ms: u64, stall_ms: u64, stall_bytes: u64) -> Pace {
    Pace {
        min_rate,
        grace: Duration::from_millis(grace_ms),
        stall: Duration::from_millis(stall_ms),
        stall_bytes,
        unsized_deadline: Duration::from_secs(60),
    }
}

#[test]
fn a_trickle_is_stopped_at_its_deadline_and_keeps_its_part() {
    let dir = tempfile::tempdir().unwrap();
    let every = Duration::from_millis(20);
    let server = serve_misbehaving(Misbehaviour::Trickle {
        length: 1_000,
        every,
    });
    let dest = dir.path().join("m.bin");
    // 1,000 bytes at 2,000 B/s plus 300 ms: a deadline of 800 ms.
    let limits = Limits {
        size: Some(1_000),
        pace: quick(2_000, 300, 10_000, 1),
    };
    assert_eq!(limits.deadline(1_000), Duration::from_millis(800));
    let started = Instant::now();
    let err = super::fetch(&server.url, &"0".repeat(64), &dest, &limits, &mut |_| {}).unwrap_err();
    let took = started.elapsed();
    assert_eq!(err.code(), "download_too_slow", "{err}");
    assert!(err.to_string().contains("deadline"), "{err}");
    assert!(took >= Duration::from_millis(800), "{took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let kept = std::fs::metadata(part_path(&dest)).unwrap().len();
    assert!(kept > 0 && kept < 1_000, "{kept}");
}

#[test]
fn a_download_with_too_little_progress_is_stalled() {
    let dir = tempfile::tempdir().unwrap();
    let every = Duration::from_millis(50);
    let server = serve_misbehaving(Misbehaviour::Trickle {
        length: 1_000,
        every,
    });
    let dest = dir.path().join("m.bin");
    // A deadline of hours, but fewer than 64 bytes in 400 ms is a stall.
    let limits = Limits {
        size: Some(1_000),
        pace: quick(1, 60_000, 400, 64),
    };
    let started = Instant::now();
    let err = super::fetch(&server.url, &"0".repeat(64), &dest, &limits, &mut |_| {}).unwrap_err();
    let took = started.elapsed();
    assert_eq!(err.code(), "download_too_slow", "{err}");
    assert!(err.to_string().contains("fewer than 64 bytes"), "{err}");
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[test]
fn a_silent_server_is_a_stall() {
    let dir = tempfile::tempdir().unwrap();
    let every = Duration::from_secs(5);
    let server = serve_misbehaving(Misbehaviour::Trickle { length: 10, every });
    let dest = dir.path().join("m.bin");
    let limits = Limits {
        size: None,
        pace: quick(1, 60_000, 300, 1),
    };
    let started = Instant::now();
    let err = super::fetch(&server.url, &"0".repeat(64), &dest, &limits, &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "download_too_slow", "{err}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_download_stopped_for_slowness_goes_on_from_its_part() {
    let dir = tempfile::tempdir().unwrap();
    // The trickle sends b'x' bytes: the same file's first bytes.
    let body = vec![b'x'; 1_000];
    let every = Duration::from_millis(10);
    let slow = serve_misbehaving(Misbehaviour::Trickle {
        length: 1_000,
        every,
    });
    let dest = dir.path().join("m.bin");
    let limits = Limits {
        size: Some(1_000),
        pace: quick(4_000, 200, 10_000, 1),
    };
    let err = super::fetch(&slow.url, &sha(&body), &dest, &limits, &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "download_too_slow", "{err}");
    let kept = std::fs::metadata(part_path(&dest)).unwrap().len();
    assert!(kept > 0, "the part keeps what arrived");

    let fast = serve(body.clone(), false, true);
    let mut first = None;
    super::fetch(&fast.url, &sha(&body), &dest, &limits, &mut |p| {
        first.get_or_insert(p);
    })
    .unwrap();
    assert_eq!(first.unwrap().resumed_from, kept);
    assert_eq!(*fast.seen.lock().unwrap(), vec![Some(kept)]);
    assert_eq!(std::fs::read(&dest).unwrap(), body);
}

#[test]
fn a_part_larger_than_the_limit_is_started_over() {
    let dir = tempfile::tempdir().unwrap();
    let body = body();
    let server = serve(body.clone(), false, true);
    let dest = dir.path().join("m.bin");
    let limits = Limits::for_size(Some(body.len() as u64));
    std::fs::write(part_path(&dest), vec![0u8; limits.max_bytes() as usize + 1]).unwrap();
    super::fetch(&server.url, &sha(&body), &dest, &limits, &mut |_| {}).unwrap();
    assert_eq!(*server.seen.lock().unwrap(), vec![None]);
    assert_eq!(std::fs::read(&dest).unwrap(), body);
}

#[test]
fn the_default_pace_allows_a_slow_real_connection() {
    let limits = Limits::for_size(Some(92_871_040));
    // The default narrator's wheel at 32 KiB/s: about 47 minutes, plus a minute.
    let deadline = limits.deadline(92_871_040).as_secs();
    assert_eq!(deadline, 60 + 2_834, "{deadline}");
    assert_eq!(Pace::DEFAULT.stall, Duration::from_secs(60));
    assert_eq!(Limits::for_size(None).max_bytes(), UNSIZED_MAX_BYTES);
}

/// The bounds of a download of unknown size, as docs/models.md states them.
#[test]
fn a_download_of_unknown_size_has_a_stated_ceiling_and_deadline() {
    assert_eq!(UNSIZED_MAX_BYTES, 64 << 30);
    assert_eq!(
        Pace::DEFAULT.unsized_deadline,
        Duration::from_secs(4 * 3_600)
    );
    let unknown = Limits::for_size(None);
    assert_eq!(unknown.attempt_deadline(None, 0), UNSIZED_DEADLINE);
    // An announced length gives the deadline of its bytes instead.
    assert_eq!(
        unknown.attempt_deadline(Some(32 << 10), 0),
        Duration::from_secs(61)
    );
}

/// A body without a length that never ends, for a file of unknown size,
/// had no deadline (only the stall rule, which a byte now and then keeps
/// quiet): it now ends at the pace's deadline for a download of unknown
/// length.
#[test]
fn an_endless_body_of_unknown_size_is_stopped_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_misbehaving(Misbehaviour::Dribble {
        every: Duration::from_millis(10),
    });
    let dest = dir.path().join("m.bin");
    let limits = Limits {
        size: None,
        pace: Pace {
            unsized_deadline: Duration::from_millis(300),
            ..quick(1, 60_000, 10_000, 1)
        },
    };
    let started = Instant::now();
    let err = super::fetch(&server.url, &"0".repeat(64), &dest, &limits, &mut |_| {}).unwrap_err();
    let took = started.elapsed();
    assert_eq!(err.code(), "download_too_slow", "{err}");
    let message = err.to_string();
    assert!(message.contains("deadline of 300 ms"), "{message}");
    assert!(message.contains("unknown length"), "{message}");
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(part_path(&dest).is_file(), "the part is kept to go on from");
}

/// A server that redirects a download to an address without a host (or
/// another scheme, or in a loop) made the client panic; each is now a
/// download error naming the redirect.
#[test]
fn a_refused_redirect_is_a_download_error_not_a_panic() {
    use crate::test_hub::{serve_hub, HubTestFile, Quirks};
    let body = body();
    let resolve = "/o/r/resolve/main/m.gguf";
    for (location, says) in [
        ("file:///etc/passwd", "only http:// and https://"),
        ("data:text/plain,hello", "only http:// and https://"),
        ("ftp://127.0.0.1/m.gguf", "only http:// and https://"),
        (resolve, "more than 5 redirects"),
    ] {
        let hub = serve_hub(
            "o/r",
            vec![HubTestFile {
                path: "m.gguf".into(),
                body: body.clone(),
            }],
            Quirks {
                resolve_location: Some(location.into()),
                ..Quirks::default()
            },
        );
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("m.gguf");
        let url = format!("{}{resolve}", hub.endpoint);
        let err = fetch(&url, &sha(&body), &dest, &mut |_| {}).unwrap_err();
        assert_eq!(err.code(), "download_failed", "{location}: {err}");
        let message = err.to_string();
        assert!(message.contains("a redirect was refused"), "{message}");
        assert!(message.contains(says), "{location}: {message}");
        assert!(!dest.exists());
    }
}

/// A download may be handed to another host (the Hub's content network).
#[test]
fn a_download_follows_a_redirect_to_another_host() {
    use crate::test_hub::{serve_hub, HubTestFile, Quirks};
    let body = body();
    let cdn = serve(body.clone(), false, true);
    let hub = serve_hub(
        "o/r",
        vec![HubTestFile {
            path: "m.gguf".into(),
            body: body.clone(),
        }],
        Quirks {
            resolve_location: Some(cdn.url.clone()),
            ..Quirks::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("m.gguf");
    let url = format!("{}/o/r/resolve/main/m.gguf", hub.endpoint);
    fetch(&url, &sha(&body), &dest, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), body);
    assert_eq!(*cdn.seen.lock().unwrap(), vec![None]);
}
