//! The storyteller's prose as players read it: 50 turns told by the real
//! default model (models/SmolLM2-135M-Instruct.Q4_1.gguf), lent the way the
//! host lends it (protocol 1.1 "Host generation"), each turn with a check
//! whose roll is fixed, told through the script's own fallback chain and
//! sentence limits. Every told turn must be the model's (not the template's),
//! open with its outcome (a failed
//! check is never told as a success), say something after it and end at a
//! sentence end; what the model wrote must never carry the player's words,
//! the previous narration (verbatim) or the chat template's markers. Fails,
//! not skips, when the model is missing.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use narratoria_core::host::Generator;
use narratoria_core::narration::{Language, WriterProfile};
use narratoria_narrator::{LlamaPlanner, LoadOptions, DEFAULT_MODEL_FILE};
use narratoria_protocol::{GenerateRequest, HostModel};
use narratoria_skills_builtin::host::AskError;
use narratoria_skills_builtin::{LogLevel, SkillError};
use narratoria_storyteller::fallback::{run, Job, Sink};
use narratoria_storyteller::prompt::{build, Asked, Facts, RecentTurn};
use narratoria_storyteller::providers::host::{stop_texts, Host, NAME as HOST};
use narratoria_storyteller::{StoryConfig, Style};
use serde_json::json;

fn model() -> &'static LlamaPlanner {
    static P: OnceLock<LlamaPlanner> = OnceLock::new();
    P.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../models")
            .join(DEFAULT_MODEL_FILE);
        LlamaPlanner::load(&path, LoadOptions::default()).expect("the default model loads")
    })
}

/// The host's model, lent in-process as the executor lends it to a script,
/// with what each request read: (prompt tokens, tokens read, not served
/// from the cache).
struct Lent(HostModel, Vec<(u32, u32)>);

impl Host for Lent {
    fn model(&self) -> &HostModel {
        &self.0
    }

    fn ask(
        &mut self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<String, AskError> {
        let cancel = Arc::new(AtomicBool::new(false));
        let deadline = Instant::now() + Duration::from_secs(60);
        // Broken off, the request is cancelled, as the host does at the run's end.
        let stop = Arc::clone(&cancel);
        let mut read = |delta: &str| {
            if !stop.load(Ordering::SeqCst) && on_delta(delta).is_break() {
                stop.store(true, Ordering::SeqCst);
            }
        };
        let written = Generator::generate(model(), request, &mut read, &cancel, deadline)
            .map_err(AskError::Failed)?;
        let usage = written.usage;
        self.1.push((
            usage.prompt_tokens,
            usage.prompt_tokens - usage.cached_tokens,
        ));
        Ok(written.text)
    }
}

/// What the player is shown: the prose pieces since the last reset, and
/// the failures on the way.
#[derive(Default)]
struct Shown {
    text: String,
    failures: Vec<String>,
    /// How often each guard refused a sentence (the chain's debug log).
    refusals: std::collections::BTreeMap<String, usize>,
}

impl Sink for Shown {
    fn delta(&mut self, text: &str) {
        self.text.push_str(text);
    }
    fn reset(&mut self, _: &str) {
        self.text.clear();
    }
    fn failure(&mut self, error: &SkillError) {
        self.failures.push(error.message.clone());
    }
    fn log(&mut self, _: LogLevel, message: &str) {
        if let Some(rest) = message.strip_prefix("guard ") {
            let name = rest.split_whitespace().next().unwrap_or_default();
            *self.refusals.entry(name.to_string()).or_default() += 1;
        }
    }
}

/// Players' actions, each told once as a failure and once as a success.
const ACTIONS: [&str; 25] = [
    "I attack the goblin with my sword",
    "I try to pick the lock on the cellar door",
    "I sneak past the sleeping guard",
    "I climb the crumbling tower wall",
    "I persuade the merchant to lower his price",
    "I leap across the broken bridge",
    "I search the library for the missing map",
    "I swing on the chandelier to reach the balcony",
    "I haggle with the ferryman over the fare",
    "I shoot an arrow at the rope holding the cage",
    "I lie to the captain about where I was last night",
    "I force open the rusted gate",
    "I calm the frightened horse",
    "I track the wolf through the snow",
    "I disarm the trap on the chest",
    "I swim across the cold river",
    "I bluff my way past the temple guards",
    "I wrestle the knife from the bandit",
    "I decipher the runes on the altar",
    "I hide in the shadows of the alley",
    "I bargain with the witch for a cure",
    "I push the boulder off the cave entrance",
    "I steal the key from the jailer's belt",
    "I read the old woman's palm",
    "I ride through the storm to the village",
];

#[test]
fn fifty_told_turns_follow_their_outcomes_and_never_echo() {
    let config = StoryConfig::default();
    let mut host = Lent(model().offer(), Vec::new());
    // Each turn's first request: (prompt tokens, tokens read).
    let mut reads: Vec<(u32, u32)> = Vec::new();
    let state = json!({"location": "the road to Ashford"});
    let mut recent: Vec<RecentTurn> = Vec::new();
    let english = Language::english();
    let mut problems = Vec::new();
    let mut told = 0;
    let mut lost = Vec::new();
    let mut refusals: std::collections::BTreeMap<String, usize> = Default::default();
    let turns = ACTIONS.iter().flat_map(|a| [(false, *a), (true, *a)]);
    for (n, (succeeds, action)) in turns.enumerate() {
        let (total, outcome) = if succeeds {
            (19, "success")
        } else {
            (6, "failure")
        };
        let deps = json!({"roll-dice": {
            "formula": "1d20+2", "rolls": [total - 2], "total": total, "dc": 15,
            "outcome": outcome, "margin": total - 15, "reason": action
        }});
        let facts = Facts {
            action,
            context: None,
            scenario: Some("A rain-soaked river town where a bridge has just burned."),
            author_note: None,
            language: &english,
            recent: &recent,
            deps: deps.as_object().unwrap(),
            state: &state,
            answer: None,
        };
        let profile = WriterProfile::local(host.0.parameters, host.0.context_tokens, config.length);
        let prompt = build(
            &facts,
            Asked {
                style: Style::Vivid,
                profile: &profile,
                length: config.length,
            },
        );
        // Told as the script tells it: the fallback chain over the host's
        // model, what the player is shown kept.
        let job = Job {
            prompt: &prompt,
            template: "TEMPLATE".into(),
            model_candidates: Vec::new(),
            deadline: Instant::now() + Duration::from_secs(120),
            told_before: recent.iter().map(|t| t.narrator.clone()).collect(),
            profile,
            language: Language::english(),
        };
        let mut shown = Shown::default();
        let asked_before = host.1.len();
        let answer = run(&config, &job, &mut shown, Some(&mut host));
        if let Some(&first) = host.1.get(asked_before) {
            reads.push(first);
        }
        eprintln!(
            "turn {}: {:?} {:?}",
            n + 1,
            &host.1[asked_before..],
            shown.failures
        );
        let text = shown.text.clone();
        for (guard, n) in &shown.refusals {
            *refusals.entry(guard.clone()).or_default() += n;
        }
        assert_eq!(
            text, answer.narrative,
            "turn {n}: what is shown is the answer"
        );
        told += 1;

        // The rules' opening tells the outcome; the model goes on from it.
        let opening = prompt.opening.clone();
        let told_outcome = if succeeds {
            opening.ends_with(", and") && !opening.contains(" but ")
        } else {
            opening.contains(", but ")
        };
        let mut wrong = Vec::new();
        if answer.provider != HOST {
            // Every try refused: the turn is told, by the template. The
            // 135M model's answers to one seed turn on every earlier
            // turn's words, so one such turn in fifty is chance; two are
            // the guards or the prompt failing the writer.
            lost.push(format!(
                "turn {n} {action:?}: told by {} ({:?})",
                answer.provider, shown.failures
            ));
            recent.push(RecentTurn {
                player: action.to_string(),
                narrator: text,
            });
            continue;
        }
        if !text.starts_with(&opening) || !told_outcome {
            wrong.push(format!("does not open with its outcome ({opening:?})"));
        }
        // What the model wrote after the rules' opening: at least the end of
        // the sentence the opening starts ("…, and he does.").
        let written = text.get(opening.len()..).unwrap_or_default();
        if written.split_whitespace().count() < 2 {
            wrong.push("says nothing after its opening".into());
        }
        // Only the rules tell a critical result.
        for twist in ["better than you could have", "badly wrong"] {
            if written.contains(twist) {
                wrong.push(format!("says {twist:?} itself"));
            }
        }
        if !text
            .trim_end()
            .ends_with(['.', '!', '?', '…', '"', '”', '\'', '’'])
        {
            wrong.push("does not end at a sentence end".into());
        }
        let restated = action.replacen("I ", "you ", 1).to_lowercase();
        if written.contains(action) || written.to_lowercase().contains(&restated) {
            wrong.push("repeats the player's words".into());
        }
        if let Some(previous) = recent.last() {
            if let Some(run) = shared_run(&previous.narrator, written, 8) {
                wrong.push(format!("repeats the previous narration: {run:?}"));
            }
        }
        let markers = ["<|im_start|>", "<|im_end|>", "Player:"];
        let stops = stop_texts();
        for marker in markers
            .into_iter()
            .chain(stops.iter().skip(1).map(String::as_str))
        {
            if text.contains(marker) {
                wrong.push(format!("carries {marker:?}"));
            }
        }
        if !wrong.is_empty() {
            problems.push(format!(
                "turn {n} ({outcome}) {action:?} → {text:?}: {}",
                wrong.join("; ")
            ));
        }
        recent.push(RecentTurn {
            player: action.to_string(),
            narrator: text,
        });
    }
    assert_eq!(told, 50);
    eprintln!("refusals by guard over 50 turns: {refusals:?}");
    assert!(
        problems.is_empty(),
        "{} of {told} turns:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        lost.len() <= 1,
        "{} of {told} turns lost:\n{}",
        lost.len(),
        lost.join("\n")
    );
    // The story stays in the model's memory: each turn reads its own new
    // tokens, not the story again (docs/stories.md).
    for n in [1, 2, 10, 25, 50] {
        if let Some((prompt, read)) = reads.get(n - 1) {
            eprintln!("turn {n}: prompt {prompt} tokens, read {read}");
        }
    }
    let mut later: Vec<u32> = reads[1..].iter().map(|&(_, read)| read).collect();
    later.sort_unstable();
    let median = later[later.len() / 2];
    let longest = reads.iter().map(|&(prompt, _)| prompt).max().unwrap_or(0);
    assert!(
        median * 4 < longest,
        "a turn reads {median} tokens (median) of prompts up to {longest}: {reads:?}"
    );
}

/// A run of `words` words of `earlier` that `later` repeats verbatim
/// (punctuation around words aside).
fn shared_run(earlier: &str, later: &str, words: usize) -> Option<String> {
    let norm = |s: &str| {
        s.split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
    };
    let a = norm(earlier);
    let b = norm(later);
    // Whole words: "guard" is not "guards".
    a.windows(words)
        .find(|run| b.windows(words).any(|w| w == *run))
        .map(|run| run.join(" "))
}
