//! Listing models and checking a server, against a stand-in on 127.0.0.1.

mod support;

use narratoria_remote::{Server, ServerKind};
use support::{models_answer, nothing_listens, redirect, respond, TestServer};

#[test]
fn models_are_listed_with_the_key_in_the_header_only() {
    let server =
        TestServer::start(|_, s| models_answer(s, &["llama3:latest", "qwen2.5:7b"], "library"));
    let remote = Server::new(&server.url, "llama3").with_api_key(Some("sk-test-key".into()));
    assert_eq!(
        remote.list_models().unwrap(),
        ["llama3:latest", "qwen2.5:7b"]
    );
    let got = server.received();
    assert_eq!(got[0].method, "GET");
    assert_eq!(got[0].path, "/v1/models");
    assert_eq!(got[0].header("authorization"), Some("Bearer sk-test-key"));
}

#[test]
fn a_check_finds_the_model_and_the_kind() {
    let server = TestServer::start(|_, s| models_answer(s, &["llama3:latest"], "library"));
    let check = Server::new(&server.url, "llama3").check().unwrap();
    assert!(check.model_listed);
    assert_eq!(check.kind, Some(ServerKind::Ollama));
    assert_eq!(check.models, ["llama3:latest"]);
    assert!(check.round_trip_ms < 10_000);

    let missing = Server::new(&server.url, "mistral");
    let check = missing.check().unwrap();
    assert!(!check.model_listed);
    let e = check.require_model(&missing).unwrap_err();
    assert_eq!(e.code(), "remote_model_missing");
    assert!(e.to_string().contains("llama3:latest"), "{e}");
}

#[test]
fn a_server_running_one_model_serves_it_whatever_its_name() {
    let server = TestServer::start(|_, s| models_answer(s, &["/models/q.gguf"], "llamacpp"));
    let check = Server::new(&server.url, "anything").check().unwrap();
    assert_eq!(check.kind, Some(ServerKind::LlamaServer));
    assert!(check.model_listed);
}

#[test]
fn a_server_that_is_down_is_unreachable() {
    let url = nothing_listens();
    let remote = Server::new(&url, "m").with_kind(ServerKind::LmStudio);
    let e = remote.check().unwrap_err();
    assert_eq!(e.code(), "remote_unreachable", "{e}");
    assert!(e.to_string().starts_with("LM Studio at 127.0.0.1:"), "{e}");
    let e = Server::new("ftp://127.0.0.1/v1", "m")
        .list_models()
        .unwrap_err();
    assert_eq!(e.code(), "remote_unreachable", "{e}");
}

#[test]
fn broken_model_lists_are_clear_errors() {
    let server = TestServer::start(|r, s| match r.path.as_str() {
        "/a/v1/models" => respond(s, 200, "application/json", "<html>hello</html>"),
        "/b/v1/models" => respond(s, 200, "application/json", r#"{"data": 3}"#),
        "/c/v1/models" => respond(s, 200, "application/json", &"[".repeat(2 << 20)),
        _ => respond(
            s,
            500,
            "application/json",
            r#"{"error":{"message":"out of memory"}}"#,
        ),
    });
    let at = |prefix: &str| Server::new(server.url.replace("/v1", &format!("/{prefix}/v1")), "m");
    let e = at("a").list_models().unwrap_err();
    assert_eq!(e.code(), "remote_bad_answer", "{e}");
    let e = at("b").list_models().unwrap_err();
    assert_eq!(e.code(), "remote_bad_answer", "{e}");
    let e = at("c").list_models().unwrap_err();
    assert_eq!(e.code(), "remote_too_large", "{e}");
    assert!(e.to_string().contains("1 MiB"), "{e}");
    let e = at("d").list_models().unwrap_err();
    assert_eq!(e.code(), "remote_http", "{e}");
    assert!(e.to_string().contains("HTTP 500: out of memory"), "{e}");
}

#[test]
fn an_answer_echoing_the_key_never_shows_it() {
    let server = TestServer::start(|r, s| {
        let auth = r.header("authorization").unwrap_or_default().to_string();
        let body = format!(r#"{{"error":{{"message":"bad key {auth}"}}}}"#);
        let status = if r.path.starts_with("/x") { 200 } else { 500 };
        respond(
            s,
            status,
            "application/json",
            &if status == 200 {
                format!("not json {auth}")
            } else {
                body
            },
        );
    });
    let key = "sk-very-secret-0123";
    let remote = Server::new(&server.url, "m").with_api_key(Some(key.into()));
    let e = remote.list_models().unwrap_err();
    assert_eq!(e.code(), "remote_http");
    assert!(!e.to_string().contains(key), "{e}");
    assert!(!format!("{e:?}").contains(key), "{e:?}");
    assert!(e.to_string().contains("••••••••"), "{e}");
    let remote =
        Server::new(server.url.replace("/v1", "/x/v1"), "m").with_api_key(Some(key.into()));
    let e = remote.list_models().unwrap_err();
    assert_eq!(e.code(), "remote_bad_answer");
    assert!(!e.to_string().contains(key), "{e}");
}

/// A model list redirected off the server — to a file, to a `data:`
/// address, to another host — is refused with `remote_redirect`: no panic
/// (the client used to crash on a `Location` without a host), nothing asked
/// of the other host, the key in no message (docs/security.md, "Redirects").
#[test]
fn a_redirect_off_the_server_is_refused_never_followed_nor_a_crash() {
    let elsewhere = TestServer::start(|_, s| models_answer(s, &["not-yours"], "library"));
    let key = "sk-redirected-0123";
    for (status, location) in [
        (302, "file:///etc/passwd".to_string()),
        (302, "data:application/json,{\"data\":[]}".to_string()),
        (301, "ftp://127.0.0.1/v1/models".to_string()),
        (307, format!("{}/models", elsewhere.url)),
    ] {
        let server = TestServer::start(move |_, s| redirect(s, status, &location));
        let remote = Server::new(&server.url, "m").with_api_key(Some(key.into()));
        let e = remote.list_models().unwrap_err();
        assert_eq!(e.code(), "remote_redirect", "{e}");
        assert!(e.to_string().starts_with("the server at 127.0.0.1:"), "{e}");
        assert!(e.to_string().contains("not followed"), "{e}");
        assert!(!e.to_string().contains(key), "{e}");
        assert_eq!(remote.check().unwrap_err().code(), "remote_redirect");
    }
    assert!(
        elsewhere.received().is_empty(),
        "another host is never asked: {:?}",
        elsewhere.received()
    );
}

/// A redirect on the server's own host and port is followed, the key sent
/// on each hop.
#[test]
fn a_redirect_on_the_same_server_is_followed_with_the_key() {
    let server = TestServer::start(|r, s| match r.path.as_str() {
        "/v1/models" => redirect(s, 302, "/v1/moved/models"),
        _ => models_answer(s, &["llama3"], "library"),
    });
    let remote = Server::new(&server.url, "llama3").with_api_key(Some("sk-k".into()));
    assert_eq!(remote.list_models().unwrap(), ["llama3"]);
    let got = server.received();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].path, "/v1/moved/models");
    assert!(got
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer sk-k")));
}

/// An endpoint that names no host is unreachable, not a redirect.
#[test]
fn an_endpoint_without_a_host_is_unreachable() {
    let e = Server::new("http://:80/v1", "m").list_models().unwrap_err();
    assert_eq!(e.code(), "remote_unreachable", "{e}");
}
