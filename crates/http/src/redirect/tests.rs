//! Each kind of redirect against a loopback server that answers from a
//! script: a path → the status and `Location` it answers with.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::thread;

use super::*;

/// Serves `routes` (path → (status, location)) on a loopback port until the
/// test ends; any other path answers 200 "ok". Returns `http://127.0.0.1:PORT`.
fn serve(routes: Vec<(&'static str, u16, String)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let routes = Arc::new(routes);
    thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { return };
            let routes = Arc::clone(&routes);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) <= 2 {
                    break;
                }
            }
            let answer = match routes.iter().find(|(p, _, _)| *p == path) {
                Some((_, status, location)) => format!(
                    "HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                ),
                None => "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".to_string(),
            };
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    base
}

fn get(url: &str, rule: Redirects) -> Result<Answer, CallError> {
    let agent = agent_builder().build();
    call(
        &agent,
        Request {
            method: "GET",
            url,
            body: None,
            rule,
        },
        &|r, _| r,
    )
}

fn refusal(result: Result<Answer, CallError>) -> String {
    match result {
        Err(CallError::Redirect { reason }) => reason,
        Err(other) => panic!("expected a refused redirect, got {other}"),
        Ok(a) => panic!(
            "expected a refused redirect, got HTTP {} from {}",
            a.response.status(),
            a.url
        ),
    }
}

#[test]
fn a_redirect_to_a_file_data_or_ftp_address_is_refused_not_a_panic() {
    for (status, location) in [
        (302, "file:///etc/passwd"),
        (301, "data:text/plain,hello"),
        (307, "ftp://example.org/m"),
    ] {
        let base = serve(vec![("/m", status, location.into())]);
        let reason = refusal(get(&format!("{base}/m"), Redirects::ANY_HOST));
        assert!(
            reason.contains("only http:// and https://"),
            "{location}: {reason}"
        );
    }
}

#[test]
fn a_redirect_to_an_http_url_without_a_host_is_refused() {
    let base = serve(vec![("/m", 302, "http:///nohost".into())]);
    // `http:///nohost` parses with the host "nohost"; a bare authority-less
    // form is what has no host.
    let result = get(&format!("{base}/m"), Redirects::ANY_HOST);
    assert!(matches!(
        result,
        Err(CallError::Redirect { .. }) | Err(CallError::Http(_))
    ));
    let base = serve(vec![("/m", 302, "http:".into())]);
    let reason = refusal(get(&format!("{base}/m"), Redirects::ANY_HOST));
    assert!(!reason.is_empty());
}

#[test]
fn a_relative_redirect_on_the_same_host_is_followed() {
    let base = serve(vec![("/a", 302, "/b".into())]);
    let answer = get(&format!("{base}/a"), Redirects::SAME_HOST).unwrap();
    assert_eq!(answer.response.status(), 200);
    assert!(answer.url.ends_with("/b"), "{}", answer.url);
}

#[test]
fn another_host_is_refused_where_the_rule_keeps_to_one() {
    let other = serve(vec![]);
    let base = serve(vec![("/a", 302, format!("{other}/b"))]);
    let reason = refusal(get(&format!("{base}/a"), Redirects::SAME_HOST));
    assert!(reason.contains("another host"), "{reason}");
    // The same redirect is followed where any host may answer.
    let answer = get(&format!("{base}/a"), Redirects::ANY_HOST).unwrap();
    assert!(answer.url.starts_with(&other), "{}", answer.url);
}

#[test]
fn a_redirect_loop_stops_at_the_bound() {
    let base = serve(vec![("/a", 302, "/b".into()), ("/b", 302, "/a".into())]);
    let reason = refusal(get(&format!("{base}/a"), Redirects::SAME_HOST));
    assert!(reason.contains("more than 5 redirects"), "{reason}");
}

#[test]
fn no_redirect_is_followed_where_the_rule_allows_none() {
    let base = serve(vec![("/a", 302, "/b".into())]);
    let reason = refusal(get(&format!("{base}/a"), Redirects::NONE));
    assert!(reason.contains("follows no redirect"), "{reason}");
}

#[test]
fn a_redirect_without_a_location_is_refused() {
    // A 3xx whose Location is empty joins to the same address: refused by
    // the count, never a loop.
    let base = serve(vec![("/a", 302, String::new())]);
    let result = get(&format!("{base}/a"), Redirects::SAME_HOST);
    assert!(matches!(result, Err(CallError::Redirect { .. })));
}

#[test]
fn a_request_with_a_body_is_not_sent_again() {
    let base = serve(vec![("/v1/chat", 307, "/v2/chat".into())]);
    let agent = agent_builder().build();
    let result = call(
        &agent,
        Request {
            method: "POST",
            url: &format!("{base}/v1/chat"),
            body: Some(b"{}"),
            rule: Redirects::SAME_HOST,
        },
        &|r, _| r,
    );
    let reason = refusal(result);
    assert!(reason.contains("not sent again"), "{reason}");
}

#[test]
fn credentials_are_set_only_on_the_first_host() {
    let other = serve(vec![]);
    let base = serve(vec![("/a", 302, format!("{other}/b"))]);
    let agent = agent_builder().build();
    let seen = std::sync::Mutex::new(Vec::new());
    call(
        &agent,
        Request {
            method: "GET",
            url: &format!("{base}/a"),
            body: None,
            rule: Redirects::ANY_HOST,
        },
        &|r, first| {
            seen.lock().unwrap().push(first);
            r
        },
    )
    .unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![true, false]);
}

#[test]
fn a_refused_address_is_quoted_without_its_password() {
    let base = serve(vec![("/a", 302, "ftp://user:hunter2@example.org/x".into())]);
    let reason = refusal(get(&format!("{base}/a"), Redirects::ANY_HOST));
    assert!(!reason.contains("hunter2"), "{reason}");
}

#[test]
fn https_to_http_on_the_same_port_is_another_origin_and_gets_no_key() {
    let a = Url::parse("https://h.example:8443/v1").unwrap();
    let b = Url::parse("http://h.example:8443/v1").unwrap();
    assert!(!same_origin(&a, &b));
    assert!(same_origin(
        &a,
        &Url::parse("https://h.example:8443/other").unwrap()
    ));
}

#[test]
fn a_first_address_that_cannot_be_asked_is_the_address_s_fault_not_a_redirect() {
    let agent = agent_builder().build();
    for url in ["not an address", "ftp://example.org/x", "http:///"] {
        let result = call(
            &agent,
            Request {
                method: "GET",
                url,
                body: None,
                rule: Redirects::SAME_HOST,
            },
            &|r, _| r,
        );
        assert!(matches!(result, Err(CallError::Address { .. })), "{url}");
    }
}
