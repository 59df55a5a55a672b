//! Prose from the loaded model, as the host lends it to skills: real
//! SmolLM2-135M, streamed pieces, stop sequences, the echo guard, the cache
//! of the previous prompt, the token budget, cancellation and deadlines.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use narratoria_narrator::{Finish, LlamaPlanner, LoadOptions, ProseRequest, Role};

fn planner() -> &'static LlamaPlanner {
    static P: OnceLock<LlamaPlanner> = OnceLock::new();
    P.get_or_init(|| {
        LlamaPlanner::load(&support::model_path(), LoadOptions::default())
            .expect("default model loads")
    })
}

fn request(user: &str) -> ProseRequest {
    ProseRequest {
        messages: vec![
            (
                Role::System,
                "You are the narrator of a fantasy story. Write two short sentences in the second person.".into(),
            ),
            (Role::User, user.into()),
        ],
        max_tokens: 60,
        deadline: Instant::now() + Duration::from_secs(60),
        ..ProseRequest::default()
    }
}

#[test]
fn streamed_pieces_are_the_text_and_the_budget_holds() {
    let mut pieces = String::new();
    let prose = planner()
        .write(&request("The player opens the tavern door."), &mut |p| {
            pieces.push_str(p)
        })
        .unwrap();
    assert_eq!(pieces, prose.text);
    assert!(!prose.text.trim().is_empty());
    assert!(prose.completion_tokens <= 60, "{}", prose.completion_tokens);
    assert!(matches!(prose.finish, Finish::Stop | Finish::Length));
    assert!(!prose.text.contains("<|im_end|>") && !prose.text.contains("<|im_start|>"));
}

#[test]
fn nothing_from_a_stop_sequence_on_is_written() {
    for seed in 0..4 {
        let mut r = request("Describe the market square at noon.");
        r.sampling.seed = seed;
        r.stops = vec![".".into()];
        let prose = planner().write(&r, &mut |_| {}).unwrap();
        assert!(!prose.text.contains('.'), "{:?}", prose.text);
    }
}

#[test]
fn the_echo_guard_keeps_the_players_words_out() {
    let words = "I walk slowly into the old dark tavern and sit by the fire";
    for seed in 0..4 {
        let mut r = request(&format!("Repeat exactly: {words}"));
        r.sampling.seed = seed;
        r.echo_ngram = 4;
        r.avoid = vec![words.into()];
        let prose = planner().write(&r, &mut |_| {}).unwrap();
        let lower = prose.text.to_lowercase();
        let w: Vec<&str> = words.split(' ').collect();
        for run in w.windows(5) {
            let run = run.join(" ").to_lowercase();
            assert!(!lower.contains(&run), "{run:?} echoed in {:?}", prose.text);
        }
    }
}

#[test]
fn the_players_words_are_not_said_back_but_their_names_are() {
    let words = "I follow Captain Edmund Thorne down to the frozen hold below the deck";
    let w: Vec<&str> = words.split(' ').collect();
    let mut named = 0;
    for seed in 0..4 {
        let mut r = request(&format!("Repeat exactly: {words}"));
        r.sampling.seed = seed;
        r.unechoed = vec![words.into()];
        let prose = planner().write(&r, &mut |_| {}).unwrap();
        // No five of the words in a row, but where the fifth is a name's.
        for run in w.windows(5) {
            let last = run[4].chars().next().unwrap();
            if last.is_lowercase() {
                let run = run.join(" ");
                assert!(
                    !prose.text.contains(&run),
                    "{run:?} echoed in {:?}",
                    prose.text
                );
            }
        }
        named += usize::from(prose.text.contains("Edmund Thorne"));
    }
    assert!(named > 0, "the name was never written");
}

#[test]
fn a_repeated_prompt_is_served_from_the_cache() {
    // Other tests write between these two calls, but they share the system
    // message, so at least that much of the prompt is kept.
    let r = request("The player lights a torch in the crypt.");
    let first = planner().write(&r, &mut |_| {}).unwrap();
    let again = planner().write(&r, &mut |_| {}).unwrap();
    assert!(
        again.cached_tokens >= 20 && again.cached_tokens < again.prompt_tokens,
        "{} of {} cached (first: {})",
        again.cached_tokens,
        again.prompt_tokens,
        first.cached_tokens
    );
}

#[test]
fn cancellation_and_deadlines_keep_the_text_so_far() {
    let mut r = request("Tell a long tale of the northern wars.");
    r.max_tokens = 400;
    let cancel = Arc::new(AtomicBool::new(false));
    r.cancel = cancel.clone();
    let mut seen = 0;
    let prose = planner()
        .write(&r, &mut |_| {
            seen += 1;
            if seen == 3 {
                cancel.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
    assert_eq!(prose.finish, Finish::Cancelled);
    assert!(prose.completion_tokens < 20, "{}", prose.completion_tokens);

    let mut r = request("Tell a long tale of the southern seas.");
    r.max_tokens = 400;
    r.deadline = Instant::now() + Duration::from_millis(1);
    let prose = planner().write(&r, &mut |_| {}).unwrap();
    assert_eq!(prose.finish, Finish::Deadline);
}

#[test]
fn a_given_answer_start_is_continued_not_repeated() {
    let mut r = request("The player draws a sword.");
    r.messages.push((Role::Assistant, "You".into()));
    let prose = planner().write(&r, &mut |_| {}).unwrap();
    assert!(!prose.text.starts_with("You"), "{:?}", prose.text);
}

#[test]
fn a_json_schema_shapes_the_answer() {
    let mut r = request("Name the innkeeper.");
    r.json_schema = Some(
        r#"{"type":"object","properties":{"name":{"type":"string","maxLength":20}},"required":["name"]}"#
            .into(),
    );
    r.max_tokens = 40;
    let prose = planner().write(&r, &mut |_| {}).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&prose.text).unwrap_or_else(|e| panic!("{e}: {}", prose.text));
    assert!(v["name"].is_string());
}
