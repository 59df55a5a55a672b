//! Host generation end to end: real script processes asking a stand-in
//! model (the engine has no language model; the real one is tested in the
//! narrator crate) through the executor.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::serve::HostLink;
use super::{Generator, Written};
use crate::executor::{execute, ExecutorOptions};
use crate::plan::{Plan, ToolInvocation};
use crate::protocol::{FinishReason, GenerateRequest, GenerationError, HostModel, Usage};
use crate::result::ExecutionResult;

/// Writes the last message back, one word per delta.
struct Parrot;

impl Generator for Parrot {
    fn offer(&self) -> HostModel {
        HostModel {
            model: "parrot.gguf".into(),
            context_tokens: 2048,
            max_tokens: 64,
            parameters: None,
        }
    }

    fn generate(
        &self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
        cancel: &Arc<AtomicBool>,
        _deadline: Instant,
    ) -> Result<Written, GenerationError> {
        let last = &request.messages.last().expect("a message").content;
        let mut text = String::new();
        for word in last.split_inclusive(' ') {
            if cancel.load(Ordering::SeqCst) {
                return Ok(written(text, FinishReason::Cancelled));
            }
            on_delta(word);
            text.push_str(word);
        }
        Ok(written(text, FinishReason::Stop))
    }
}

fn written(text: String, finish_reason: FinishReason) -> Written {
    Written {
        usage: Usage {
            prompt_tokens: 3,
            cached_tokens: 0,
            completion_tokens: text.split(' ').count() as u32,
            ms: 1,
        },
        text,
        finish_reason,
    }
}

/// A skill whose one script runs `body` after reading its envelope into `$env`.
fn skill(root: &Path, capabilities: &str, body: &str) {
    let dir = root.join("teller");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("skill.json"),
        format!(
            r#"{{"name":"teller","version":"1.0.0","description":"d","protocol":"narratoria/1.1","capabilities":[{capabilities}]}}"#
        ),
    )
    .unwrap();
    let path = dir.join("scripts").join("tell.sh");
    std::fs::write(&path, format!("#!/bin/sh\nread -r env\n{body}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Asks for `Once upon a time` and returns the host's final reply and the envelope.
const ASK: &str = r#"printf '%s\n' '{"type":"generate","id":"g1","messages":[{"role":"user","content":"Once upon a time"}],"maxTokens":16,"stream":true}'
deltas=0
while read -r reply; do
  case "$reply" in
    *'"delta"'*) deltas=$((deltas+1)) ;;
    *) break ;;
  esac
done
printf '{"type":"done","ok":true,"output":{"deltas":%s,"reply":%s,"envelope":%s}}\n' "$deltas" "$reply" "$env""#;

async fn run(root: &Path, host: HostLink) -> ExecutionResult {
    let catalog = crate::skills::discover(&[root.to_path_buf()]).unwrap();
    let plan = Plan::new(vec![ToolInvocation::new("tell", "teller/tell")]);
    let opts = ExecutorOptions {
        host,
        ..ExecutorOptions::default()
    };
    execute(&plan, &catalog, Map::new(), &opts, None).await
}

fn parrot() -> HostLink {
    HostLink {
        generator: Some(Arc::new(Parrot)),
    }
}

fn output(result: &ExecutionResult) -> &Value {
    let tool = &result.execution_trace[0];
    assert!(result.success, "{:?} {:?}", tool.error, tool.stderr);
    tool.output.as_ref().expect("output")
}

#[tokio::test]
async fn a_skill_with_the_capability_gets_the_hosts_model_streamed() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), r#""generate""#, ASK);
    let result = run(dir.path(), parrot()).await;
    let out = output(&result);
    assert_eq!(out["envelope"]["protocol"], "narratoria/1.1");
    assert_eq!(
        out["envelope"]["host"],
        json!({"generate": {"model": "parrot.gguf", "contextTokens": 2048, "maxTokens": 64}})
    );
    assert_eq!(out["deltas"], 4);
    assert_eq!(out["reply"]["done"], true);
    assert_eq!(out["reply"]["id"], "g1");
    assert_eq!(out["reply"]["text"], "Once upon a time");
    assert_eq!(out["reply"]["finishReason"], "stop");
    let trace = &result.execution_trace[0].events;
    let generation = trace
        .iter()
        .find(|e| e["type"] == "generation")
        .expect("a transcript in the trace");
    assert_eq!(generation["id"], "g1");
    assert_eq!(generation["finishReason"], "stop");
    assert!(generation.get("promptHash").is_some());
    assert!(
        !serde_json::to_string(generation)
            .unwrap()
            .contains("Once upon"),
        "the transcript keeps a hash, not the prompt"
    );
}

#[tokio::test]
async fn without_a_model_the_envelope_says_so_and_requests_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), r#""generate""#, ASK);
    let result = run(dir.path(), HostLink::default()).await;
    let out = output(&result);
    assert_eq!(out["envelope"]["host"], json!({}));
    assert_eq!(out["reply"]["error"]["code"], "NOT_FOUND");
}

#[tokio::test]
async fn a_skill_without_the_capability_speaks_version_1_and_may_not_ask() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "", ASK);
    let result = run(dir.path(), parrot()).await;
    let tool = &result.execution_trace[0];
    assert!(!result.success);
    let error = tool.error.as_ref().expect("an error");
    assert_eq!(
        error.error_type,
        crate::result::ToolErrorType::ProtocolViolation
    );
    assert!(error.message.contains("capability"), "{}", error.message);
}

#[tokio::test]
async fn asking_for_more_than_the_hosts_max_tokens_breaks_the_protocol() {
    let dir = tempfile::tempdir().unwrap();
    skill(
        dir.path(),
        r#""generate""#,
        &ASK.replace(r#""maxTokens":16"#, r#""maxTokens":65"#),
    );
    let result = run(dir.path(), parrot()).await;
    let error = result.execution_trace[0].error.as_ref().expect("an error");
    assert_eq!(
        error.error_type,
        crate::result::ToolErrorType::ProtocolViolation
    );
    assert!(error.message.contains("maxTokens"), "{}", error.message);
}

#[tokio::test]
async fn a_script_that_never_reads_its_replies_does_not_hold_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let long = "word ".repeat(60);
    let body = format!(
        r#"printf '%s\n' '{{"type":"generate","id":"g","messages":[{{"role":"user","content":"{long}"}}],"maxTokens":64,"stream":true}}'
printf '%s\n' '{{"type":"done","ok":true,"output":{{}}}}'"#
    );
    skill(dir.path(), r#""generate""#, &body);
    let started = Instant::now();
    let result = run(dir.path(), parrot()).await;
    assert!(result.success, "{:?}", result.execution_trace[0].error);
    assert!(started.elapsed().as_secs() < 10);
}

/// [`Parrot`], a word every 20 ms: slow enough to be cancelled midway.
struct SlowParrot;

impl Generator for SlowParrot {
    fn offer(&self) -> HostModel {
        Parrot.offer()
    }

    fn generate(
        &self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
        cancel: &Arc<AtomicBool>,
        deadline: Instant,
    ) -> Result<Written, GenerationError> {
        let mut slow = |word: &str| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            on_delta(word)
        };
        Parrot.generate(request, &mut slow, cancel, deadline)
    }
}

/// Cancels its first request after one piece, then asks again and reads
/// the second to its end.
const CANCEL_THEN_ASK: &str = r#"long=$(printf 'word %.0s' $(seq 1 60))
printf '{"type":"generate","id":"g1","messages":[{"role":"user","content":"%s"}],"maxTokens":64,"stream":true}\n' "$long"
read -r first
printf '%s\n' '{"type":"cancel","id":"g1"}'
while read -r reply; do
  case "$reply" in
    *'"delta"'*) ;;
    *) break ;;
  esac
done
printf '%s\n' '{"type":"generate","id":"g2","messages":[{"role":"user","content":"Once upon a time"}],"maxTokens":16,"stream":true}'
while read -r second; do
  case "$second" in
    *'"delta"'*) ;;
    *) break ;;
  esac
done
printf '{"type":"done","ok":true,"output":{"cancelled":%s,"next":%s}}\n' "$reply" "$second""#;

#[tokio::test]
async fn a_request_cancelled_ends_at_once_and_the_next_is_served_whole() {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), r#""generate""#, CANCEL_THEN_ASK);
    let host = HostLink {
        generator: Some(Arc::new(SlowParrot)),
    };
    let started = Instant::now();
    let result = run(dir.path(), host).await;
    let out = output(&result);
    assert_eq!(out["cancelled"]["id"], "g1");
    assert_eq!(out["cancelled"]["finishReason"], "cancelled");
    let words = out["cancelled"]["text"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .count();
    assert!(
        words < 30,
        "stopped midway, not after all 60 words: {words}"
    );
    assert_eq!(out["next"]["id"], "g2");
    assert_eq!(out["next"]["finishReason"], "stop");
    assert_eq!(out["next"]["text"], "Once upon a time");
    assert!(started.elapsed().as_secs() < 10);
}

#[tokio::test]
async fn only_a_skill_with_the_capability_may_cancel() {
    let dir = tempfile::tempdir().unwrap();
    skill(
        dir.path(),
        "",
        r#"printf '%s\n' '{"type":"cancel","id":"g1"}'
printf '%s\n' '{"type":"done","ok":true,"output":{}}'"#,
    );
    let result = run(dir.path(), parrot()).await;
    let error = result.execution_trace[0].error.as_ref().expect("an error");
    assert_eq!(
        error.error_type,
        crate::result::ToolErrorType::ProtocolViolation
    );
    assert!(error.message.contains("cancel"), "{}", error.message);
}
