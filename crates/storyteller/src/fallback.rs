//! The fallback chain (docs/storyteller.md): the configured provider, then
//! the local model (the host's, or one this script loads), then the template. Each step down is reported — an `error`
//! event with the failure's code, then a `log` warning saying why and what
//! answers next — and the narrative comes from the first step that answers.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use narratoria_lexicon::{ends_a_sentence, Language};
use narratoria_protocol::writer::{WriterClass, WriterProfile};
use narratoria_skills_builtin::{Events, LogLevel, SkillError};
use serde_json::json;

use crate::config::{Provider, StoryConfig, DEFAULT_OPENAI_ENDPOINT};
use crate::error::{BadAnswer, ProviderError};
use crate::guards::{Asked, Policy, Story};
use crate::prompt::Prompt;
use crate::providers::host::{self, Host};
use crate::providers::{anthropic, local, openai, HostedRequest};
use crate::sentences::SentenceStream;

/// Where the script's events go.
pub trait Sink {
    /// A piece of prose (`ui_event` `narration_delta`).
    fn delta(&mut self, text: &str);
    /// The prose shown so far is void (`ui_event` `narration_reset`); a later provider starts over.
    fn reset(&mut self, reason: &str);
    /// A step's failure (`error` event); the run goes on.
    fn failure(&mut self, error: &SkillError);
    fn log(&mut self, level: LogLevel, message: &str);
}

impl<W: Write> Sink for Events<W> {
    fn delta(&mut self, text: &str) {
        self.ui_event("narration_delta", json!({"text": text}));
    }
    fn reset(&mut self, reason: &str) {
        self.ui_event("narration_reset", json!({"reason": reason}));
    }
    fn failure(&mut self, error: &SkillError) {
        self.error(error);
    }
    fn log(&mut self, level: LogLevel, message: &str) {
        Events::log(self, level, message);
    }
}

/// One step of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    OpenAi,
    Anthropic,
    /// The player's model, loaded in the host (protocol 1.1).
    Host,
    Local,
    Template,
}

impl Step {
    /// The name in `output.provider`.
    pub fn name(self) -> &'static str {
        match self {
            Step::OpenAi => openai::NAME,
            Step::Anthropic => anthropic::NAME,
            Step::Host => host::NAME,
            Step::Local => local::NAME,
            Step::Template => "template",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Step::OpenAi | Step::Anthropic => "the hosted provider",
            Step::Host => "the host's model",
            Step::Local => "the local model",
            Step::Template => "the plain template",
        }
    }
}

/// The steps tried for a configured provider, in order. The local model is
/// the host's when it offers one (warm, shared), else loaded by this script.
pub fn steps(provider: Provider, host_offered: bool) -> Vec<Step> {
    let local = if host_offered {
        Step::Host
    } else {
        Step::Local
    };
    match provider {
        Provider::Local => vec![local, Step::Template],
        Provider::OpenAi => vec![Step::OpenAi, local, Step::Template],
        Provider::Anthropic => vec![Step::Anthropic, local, Step::Template],
    }
}

/// Everything one run needs besides the settings.
pub struct Job<'a> {
    pub prompt: &'a Prompt,
    /// The template's answer, ready in case every model fails.
    pub template: String,
    /// Where to look for the local model, in order.
    pub model_candidates: Vec<PathBuf>,
    /// When the local model must stop (the script's own time limit comes soon after).
    pub deadline: Instant,
    /// The narration of the turns before, which the prose must not start
    /// its later sentences like.
    pub told_before: Vec<String>,
    /// The profile of the model the host lends (or this script loads):
    /// its answer's length and the guards that read it. A hosted step is
    /// always [`WriterProfile::hosted`].
    pub profile: WriterProfile,
    /// The story's language: the word-based guards run only where it has
    /// their words.
    pub language: Language,
}

/// The narrative and who wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub narrative: String,
    pub provider: &'static str,
}

/// Runs the chain. Promises an answer (the template cannot fail) whose
/// narrative is exactly the concatenation of the `narration_delta` pieces
/// sent since the last `narration_reset`, and that the API key appears in no
/// event.
pub fn run(
    config: &StoryConfig,
    job: &Job,
    sink: &mut dyn Sink,
    mut host: Option<&mut dyn Host>,
) -> Answer {
    let chain = steps(config.provider, host.is_some());
    for (i, &step) in chain.iter().enumerate() {
        if step == Step::Template {
            break;
        }
        // The host's model writes on from the rules' opening: it is shown at
        // once, before the model's first word (docs/storyteller.md).
        let opening = job.prompt.opening.as_str();
        let writer = Writer {
            step,
            opens: step == Step::Host && !opening.trim().is_empty(),
            config,
            job,
        };
        if writer.opens {
            sink.delta(opening.trim_start());
        }
        let (stream, result) = writer.tell(sink, host.as_deref_mut());
        match writer.answer(&stream, result) {
            Ok(answer) => return closed(answer, &job.prompt.closing, writer.opens, sink),
            Err(error) => step_down(&writer, chain[i + 1], error, &stream, sink),
        }
    }
    sink.delta(&job.template);
    Answer {
        narrative: job.template.clone(),
        provider: Step::Template.name(),
    }
}

/// `answer` with the rules' closing after it (the game master's beats a
/// small writer is not trusted to tell: [`crate::prompt::closing`]), when
/// the writer went on from the rules' opening; streamed like the rest. A
/// beat the writer already told, word for word, is not told twice.
fn closed(mut answer: Answer, closing: &str, opened: bool, sink: &mut dyn Sink) -> Answer {
    let untold: Vec<&str> = narratoria_lexicon::sentences_of(closing)
        .into_iter()
        .map(str::trim)
        .filter(|beat| {
            let words = narratoria_lexicon::words::words_of(beat).len();
            words > 0 && narratoria_lexicon::words::shared_run(beat, &answer.narrative) < words
        })
        .collect();
    let closing = untold.join(" ");
    if opened && !closing.is_empty() {
        let piece = format!(" {closing}");
        sink.delta(&piece);
        answer.narrative.push_str(&piece);
    }
    answer
}

/// One step of the chain, asked to write.
struct Writer<'a> {
    step: Step,
    /// Whether the rules' opening was shown before the model's words.
    opens: bool,
    config: &'a StoryConfig,
    job: &'a Job<'a>,
}

impl Writer<'_> {
    /// Asks the writer until it tells a sentence, fails, or runs out of
    /// tries: a model that stopped at once, or whose first sentence was
    /// refused, with no sentence shown, is asked again, up to
    /// [`TRIES_WHEN_BARE`] times in all (and once more when the last try
    /// stopped at once).
    fn tell<'h>(
        &self,
        sink: &mut dyn Sink,
        mut host: Option<&mut (dyn Host + 'h)>,
    ) -> (SentenceStream, Result<(), ProviderError>) {
        let (policy, story) = self.guarded_story();
        let mut tries = 0;
        loop {
            tries += 1;
            let asked = match tries {
                1 => Asked::First,
                t if is_last_try(t) => Asked::Last,
                _ => Asked::Again,
            };
            let stream = SentenceStream::new(policy.clone(), story.clone(), asked);
            let (mut stream, result) = self.one_try(tries, stream, sink, host.as_deref_mut());
            // An answer that said nothing at all is asked again too: a
            // writer with no opening to go on from (a story in another
            // language) sometimes ends its turn at once.
            let bare = matches!(
                result,
                Err(ProviderError::BadAnswer {
                    reason: BadAnswer::Bare | BadAnswer::Empty,
                    ..
                })
            );
            if result.is_ok() {
                let last = stream.finish();
                if !last.is_empty() {
                    sink.delta(&last);
                }
            }
            log_refusals(&stream, sink);
            let refused = result.is_ok() && stream.turned_down();
            // A last try that stopped at once is one more draw of the same
            // last chance (the small model did, after three refused tries).
            let tries_left = tries < TRIES_WHEN_BARE || (bare && tries == TRIES_WHEN_BARE);
            if !((bare || refused) && stream.no_sentence_yet() && tries_left) {
                return (stream, result);
            }
        }
    }

    /// The guards for this writer and the story they read. A hosted writer
    /// is large; the host's or the script's own model is what its profile
    /// says.
    fn guarded_story(&self) -> (Policy, Story) {
        let job = self.job;
        let profile = match self.step {
            Step::OpenAi | Step::Anthropic => {
                WriterProfile::hosted(crate::narrate::HOSTED_CONTEXT_TOKENS, self.config.length)
            }
            Step::Host | Step::Local | Step::Template => job.profile,
        };
        let policy = Policy::for_writer(&profile, &job.language);
        let opening = job.prompt.opening.as_str();
        let story = Story {
            earlier: job.told_before.clone(),
            decided: job.prompt.decided.clone(),
            text: job.prompt.story.clone(),
            check: job.prompt.check.clone(),
            opening: String::from(if self.opens { opening } else { "" }),
        };
        (policy, story)
    }

    /// Try number `tries`: the model's pieces go through `stream`, and what
    /// it lets through is shown at once.
    fn one_try<'h>(
        &self,
        tries: u32,
        mut stream: SentenceStream,
        sink: &mut dyn Sink,
        host: Option<&mut (dyn Host + 'h)>,
    ) -> (SentenceStream, Result<(), ProviderError>) {
        let opening = self.job.prompt.opening.as_str();
        // The answer repeats the opening first; the stream already has it.
        let skip = if self.opens { opening.len() } else { 0 };
        let mut written = String::new();
        // A retry after the rules' opening is steered to tell the world
        // ("…, and the"): the small model's answers asked again alike
        // mostly went back to the same words about "you".
        let steered_prompt = steered(self.opens, opening, tries).map(|opening| Prompt {
            opening,
            ..self.job.prompt.clone()
        });
        let prompt = steered_prompt.as_ref().unwrap_or(self.job.prompt);
        let result = {
            let mut on_piece = |piece: &str| {
                let from = written.len().max(skip);
                written.push_str(piece);
                let shown = written
                    .get(from..)
                    .map_or(String::new(), |new| stream.push(new));
                if !shown.is_empty() {
                    sink.delta(&shown);
                }
                // Nothing more would be told (the answer is whole, or its
                // first sentence was turned down and it is asked again):
                // the rest need not be written.
                match stream.whole() || stream.turned_down() {
                    true => ControlFlow::Break(()),
                    false => ControlFlow::Continue(()),
                }
            };
            attempt(
                self.step,
                self.config,
                self.job,
                prompt,
                host,
                tries > 1,
                &mut on_piece,
            )
        };
        // The host's answer starts with the opening, verbatim (host::generate).
        debug_assert!(!self.opens || written.is_empty() || written.starts_with(opening));
        // The model's own words: past the opening this try gave it.
        let given = prompt.opening.as_str();
        let result = result.and_then(|()| says_something(&written, given, self.step));
        (stream, result)
    }

    /// The answer the writer's last try gives, or why it gives none.
    fn answer(
        &self,
        stream: &SentenceStream,
        result: Result<(), ProviderError>,
    ) -> Result<Answer, ProviderError> {
        let step = self.step;
        let opening = self.job.prompt.opening.as_str();
        // An opening that is a whole answer by itself (a memory recalled:
        // "… You think back: you greet Senna by the well.") is told alone
        // when the model adds nothing that may be told.
        if self.opens && stream.no_sentence_yet() && ends_a_sentence(opening) {
            return Ok(Answer {
                narrative: opening.trim().to_string(),
                provider: step.name(),
            });
        }
        match result {
            Ok(()) if !stream.no_sentence_yet() => Ok(Answer {
                narrative: stream.text().to_string(),
                provider: step.name(),
            }),
            Ok(()) => Err(ProviderError::BadAnswer {
                provider: step.name(),
                reason: if stream.turned_down() {
                    BadAnswer::Refused
                } else {
                    BadAnswer::Empty
                },
            }),
            Err(e) => Err(e),
        }
    }
}

/// Which guards refused what, logged for a bench to count.
fn log_refusals(stream: &SentenceStream, sink: &mut dyn Sink) {
    for refusal in stream.refusals() {
        let text: String = refusal.text.chars().take(60).collect();
        sink.log(
            LogLevel::Debug,
            &format!("guard {} refused: {text}", refusal.guard),
        );
    }
}

/// Tells why `writer` gave no narrative and that `next` answers instead:
/// the failure, a reset of the prose shown, a warning (the key scrubbed).
fn step_down(
    writer: &Writer,
    next: Step,
    error: ProviderError,
    stream: &SentenceStream,
    sink: &mut dyn Sink,
) {
    let step = writer.step;
    let key = writer.config.key();
    let scrub = |t: &str| key.map(|k| k.scrub(t)).unwrap_or_else(|| t.to_string());
    let failure = error.to_skill_error(step.name(), &scrub);
    sink.failure(&failure);
    if !stream.text().is_empty() {
        sink.reset(&format!(
            "{} stopped; {} starts over",
            step.name(),
            next.describe()
        ));
    }
    sink.log(
        LogLevel::Warn,
        &format!(
            "{} gave no narrative ({}: {}); falling back to {}",
            step.name(),
            code_name(&failure),
            failure.message,
            next.describe()
        ),
    );
}

/// The opening try number `tries` (from 1) gives the model: on the tries
/// between the first and the last, an opening that ends at a joint (", and",
/// ":") goes on with one of [`STEERS`] in turn, so the model's words tell
/// the world rather than "you" again, and each steered try starts
/// differently (two tries steered alike both wrote "…, and the light
/// flickers.", told the turn before). The last try has the opening as it
/// is: a steered opening may be what leaves the model with nothing to add
/// (it stopped at "…, and the" on both of a turn's steered tries). `None`:
/// the opening as it is.
fn steered(opens: bool, opening: &str, tries: u32) -> Option<String> {
    let at_a_joint = opening.ends_with(", and") || opening.ends_with(':');
    let between = tries > 1 && !is_last_try(tries);
    let steer = STEERS[(tries as usize).saturating_sub(2) % STEERS.len()];
    (opens && between && at_a_joint).then(|| format!("{opening} {steer}"))
}

/// The words steered tries go on with, in turn.
const STEERS: [&str; 2] = ["the", "a"];

/// Whether an answer says something past the rules' opening: a model that
/// stops at once ("You." or "You manage it: yes.") has told nothing.
fn says_something(written: &str, opening: &str, step: Step) -> Result<(), ProviderError> {
    let own = written
        .trim_start()
        .strip_prefix(opening)
        .unwrap_or(written);
    let words = own
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count();
    if words >= MIN_OWN_WORDS {
        return Ok(());
    }
    Err(ProviderError::BadAnswer {
        provider: step.name(),
        reason: if written.trim().is_empty() {
            BadAnswer::Empty
        } else {
            BadAnswer::Bare
        },
    })
}

/// Whether try number `tries` is a last one: the last of
/// [`TRIES_WHEN_BARE`], or the one more after it when it stopped at once.
fn is_last_try(tries: u32) -> bool {
    tries >= TRIES_WHEN_BARE
}

/// The fewest words a model's answer must add to the opening.
const MIN_OWN_WORDS: usize = 2;

/// How often one provider is asked when its answers stop at the opening or
/// their first sentence is refused (once more when the last one stopped at
/// the opening) (a small model's next answer, sampled
/// anew, often passes; a retry is held to
/// [`RETRY_MOST_TOKENS`], about 0.8 s on this machine).
const TRIES_WHEN_BARE: u32 = 6;

/// The most tokens a small model writes when asked again: about one sentence,
/// so a turn whose first answers were refused stays within its time.
const RETRY_MOST_TOKENS: u32 = 40;

fn code_name(e: &SkillError) -> String {
    serde_json::to_value(e.code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// One provider's try, with `prompt` (the job's, or its steered retry).
fn attempt<'h>(
    step: Step,
    config: &StoryConfig,
    job: &Job,
    prompt: &Prompt,
    host: Option<&mut (dyn Host + 'h)>,
    retry: bool,
    on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> Result<(), ProviderError> {
    let temperature = config.temperature.clamp(0.0, 2.0);
    let max_tokens = config.max_tokens.clamp(1, 4096);
    // A small model asked again is asked for little more than its first sentence.
    let small_max_tokens = if retry && job.profile.class == WriterClass::Small {
        max_tokens.min(RETRY_MOST_TOKENS)
    } else {
        max_tokens
    };
    // Only the host's stream is left unread once the answer is whole.
    let mut read_all = |piece: &str| {
        let _ = on_piece(piece);
    };
    match step {
        Step::OpenAi => hosted_attempt(Provider::OpenAi, config, job, prompt, &mut read_all),
        Step::Anthropic => hosted_attempt(Provider::Anthropic, config, job, prompt, &mut read_all),
        Step::Host => match host {
            Some(host) => host::generate(
                host,
                prompt,
                temperature,
                small_max_tokens.min(job.profile.answer_tokens),
                job.profile.class == WriterClass::Small,
                on_piece,
            ),
            None => Err(ProviderError::ModelMissing(
                "the host offers no model".into(),
            )),
        },
        Step::Local if !local::AVAILABLE => Err(ProviderError::NoOwnModel),
        Step::Local => local_attempt(job, prompt, temperature, small_max_tokens, &mut read_all),
        Step::Template => Ok(()),
    }
}

/// A try of the hosted `provider` (OpenAI-compatible or Anthropic).
fn hosted_attempt(
    provider: Provider,
    config: &StoryConfig,
    job: &Job,
    prompt: &Prompt,
    on_piece: &mut dyn FnMut(&str),
) -> Result<(), ProviderError> {
    let key = config.key();
    let endpoint = config.endpoint_for(provider);
    if provider == Provider::OpenAi && key.is_none() && endpoint == DEFAULT_OPENAI_ENDPOINT {
        return Err(ProviderError::Unauthorized {
            provider: openai::NAME,
            reason: "no API key is set (apiKey, e.g. ${OPENAI_API_KEY})".into(),
        });
    }
    let left = job.deadline.saturating_duration_since(Instant::now());
    let req = HostedRequest {
        endpoint,
        model: config.model_for(provider),
        key,
        prompt,
        temperature: config.temperature.clamp(0.0, 2.0),
        // The player's length for a hosted (large) writer, within the setting's most.
        max_tokens: config.max_tokens.clamp(1, 4096).min(
            WriterProfile::hosted(crate::narrate::HOSTED_CONTEXT_TOKENS, config.length)
                .answer_tokens,
        ),
        // Leave the local model time to answer after a hosted failure.
        timeout: Duration::from_secs(config.timeout_seconds.max(1))
            .min(left.saturating_sub(Duration::from_secs(30)))
            .max(Duration::from_secs(1)),
    };
    if provider == Provider::OpenAi {
        openai::stream(&req, on_piece)
    } else {
        anthropic::stream(&req, on_piece)
    }
}

/// A try of the script's own model, found among the job's candidates.
fn local_attempt(
    job: &Job,
    prompt: &Prompt,
    temperature: f32,
    max_tokens: u32,
    on_piece: &mut dyn FnMut(&str),
) -> Result<(), ProviderError> {
    let path = crate::config::find_model(&job.model_candidates).map_err(|tried| {
        ProviderError::ModelMissing(format!(
            "no model file at {} (run scripts/fetch-model.sh, or set modelPath)",
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    local::generate(
        &path,
        prompt,
        temperature,
        max_tokens,
        job.deadline,
        on_piece,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Recorder {
        events: Vec<String>,
    }

    impl Sink for Recorder {
        fn delta(&mut self, text: &str) {
            self.events.push(format!("delta:{text}"));
        }
        fn reset(&mut self, _: &str) {
            self.events.push("reset".into());
        }
        fn failure(&mut self, e: &SkillError) {
            self.events
                .push(format!("error:{:?}:{}", e.code, e.message));
        }
        fn log(&mut self, level: LogLevel, m: &str) {
            self.events.push(format!("log:{level:?}:{m}"));
        }
    }

    #[test]
    fn a_beat_the_writer_told_is_not_closed_with_again() {
        let told = |narrative: &str| Answer {
            narrative: narrative.into(),
            provider: "host",
        };
        let closing = "Word of it will be all over town by supper. The weather turns.";
        let mut sink = Recorder::default();
        let a = closed(
            told("You try, but it does not work, and the weather turns."),
            closing,
            true,
            &mut sink,
        );
        assert_eq!(
            a.narrative,
            "You try, but it does not work, and the weather turns. Word of it will be all over town by supper."
        );
        assert_eq!(
            sink.events,
            vec!["delta: Word of it will be all over town by supper."]
        );
        let a = closed(told("You wait."), closing, true, &mut sink);
        assert_eq!(a.narrative, format!("You wait. {closing}"));
    }

    fn job(prompt: &Prompt) -> Job<'_> {
        Job {
            prompt,
            template: "You wait. Nothing stirs.".into(),
            model_candidates: vec![PathBuf::from("/nonexistent/model.gguf")],
            deadline: Instant::now() + Duration::from_secs(30),
            told_before: Vec::new(),
            profile: WriterProfile::local(None, 4096, Default::default()),
            language: Language::english(),
        }
    }

    #[test]
    fn a_retry_after_the_rules_opening_is_steered_to_the_world() {
        let open = "You try to pick the lock, but it will not give, and";
        assert_eq!(steered(true, open, 1), None);
        assert_eq!(
            steered(true, open, 2).as_deref(),
            Some("You try to pick the lock, but it will not give, and the")
        );
        assert_eq!(
            steered(true, "You try, but it goes badly wrong:", 2).as_deref(),
            Some("You try, but it goes badly wrong: the")
        );
        // The next steered try starts differently.
        assert_eq!(
            steered(true, open, 3).as_deref(),
            Some("You try to pick the lock, but it will not give, and a")
        );
        assert_eq!(steered(true, open, TRIES_WHEN_BARE), None, "the last try");
        assert_eq!(steered(true, "You", 2), None);
        assert_eq!(steered(false, open, 2), None);
    }

    #[test]
    fn chains_step_down_to_the_template() {
        assert_eq!(
            steps(Provider::Local, false),
            vec![Step::Local, Step::Template]
        );
        assert_eq!(
            steps(Provider::Local, true),
            vec![Step::Host, Step::Template]
        );
        assert_eq!(
            steps(Provider::Anthropic, false),
            vec![Step::Anthropic, Step::Local, Step::Template]
        );
        assert_eq!(
            steps(Provider::OpenAi, true),
            vec![Step::OpenAi, Step::Host, Step::Template]
        );
    }

    #[test]
    fn a_missing_key_and_model_end_at_the_template_with_reasons() {
        let prompt = opened("You");
        let config = StoryConfig {
            provider: Provider::OpenAi,
            ..StoryConfig::default()
        };
        let mut rec = Recorder::default();
        let answer = run(&config, &job(&prompt), &mut rec, None);
        assert_eq!(answer.provider, "template");
        assert_eq!(answer.narrative, "You wait. Nothing stirs.");
        let e = &rec.events;
        assert!(e[0].starts_with("error:Unauthorized:"), "{e:?}");
        assert!(
            e[1].starts_with("log:Warn:openai gave no narrative (UNAUTHORIZED"),
            "{e:?}"
        );
        assert!(e[1].ends_with("falling back to the local model"), "{e:?}");
        assert!(e[2].starts_with("error:NotFound:"), "{e:?}");
        assert!(e[3].contains("falling back to the plain template"), "{e:?}");
        assert_eq!(e[4], "delta:You wait. Nothing stirs.");
        assert_eq!(e.len(), 5);
    }

    /// A host whose model answers with each of `words` in turn (the last
    /// one again when they run out), counting the requests.
    struct Answers {
        model: narratoria_protocol::HostModel,
        words: Vec<&'static str>,
        asked: usize,
    }

    impl Answers {
        /// A host model that answers `words[i]` to its i-th request (the last
        /// one again after that).
        fn new(words: Vec<&'static str>) -> Answers {
            Answers {
                model: narratoria_protocol::HostModel {
                    model: "m.gguf".into(),
                    context_tokens: 2048,
                    max_tokens: 100,
                    parameters: None,
                },
                words,
                asked: 0,
            }
        }
    }

    /// A prompt whose answer starts with `opening`.
    fn opened(opening: &str) -> Prompt {
        Prompt {
            system: "s".into(),
            user: "u".into(),
            opening: opening.into(),
            ..Prompt::default()
        }
    }

    impl Host for Answers {
        fn model(&self) -> &narratoria_protocol::HostModel {
            &self.model
        }
        fn ask(
            &mut self,
            _: &narratoria_protocol::GenerateRequest,
            on_delta: &mut dyn FnMut(&str) -> ControlFlow<()>,
        ) -> Result<String, narratoria_skills_builtin::host::AskError> {
            let words = self.words[self.asked.min(self.words.len() - 1)];
            self.asked += 1;
            let _ = on_delta(words);
            Ok(words.to_string())
        }
    }

    #[test]
    fn an_answer_that_stops_at_its_opening_is_told_by_the_template() {
        let prompt = opened("You look around the hall, and");
        let config = StoryConfig::default();
        let told = |words: Vec<&'static str>| {
            let mut host = Answers::new(words);
            let mut rec = Recorder::default();
            let answer = run(&config, &job(&prompt), &mut rec, Some(&mut host));
            (answer, rec.events, host.asked)
        };
        for bare in ["", ".", " nothing."] {
            let (answer, events, asked) = told(vec![bare]);
            assert_eq!(
                asked,
                TRIES_WHEN_BARE as usize + 1,
                "a bare answer is asked again, up to the tries allowed and one more last try"
            );
            assert_eq!(answer.provider, "template", "{bare:?}: {events:?}");
            assert_eq!(answer.narrative, "You wait. Nothing stirs.");
            assert!(
                events.iter().any(|e| e.contains("gave no narrative")),
                "{events:?}"
            );
            // The rules' opening was shown at once, then taken back.
            assert_eq!(
                events[0], "delta:You look around the hall, and",
                "{events:?}"
            );
            let reset = events.iter().position(|e| e == "reset").expect("a reset");
            assert!(
                !events[1..reset].iter().any(|e| e.starts_with("delta:")),
                "nothing of the bare answer is shown: {events:?}"
            );
        }
        let (answer, _, asked) = told(vec![" see a cold hearth."]);
        assert_eq!(
            answer.narrative,
            "You look around the hall, and see a cold hearth."
        );
        assert_eq!((answer.provider, asked), (host::NAME, 1));
        // Asked again, the model goes on from "…, and the".
        let (answer, events, asked) = told(vec![".", " hearth is cold."]);
        assert_eq!(
            answer.narrative,
            "You look around the hall, and the hearth is cold."
        );
        assert_eq!((answer.provider, asked), (host::NAME, 2));
        assert!(!events.iter().any(|e| e == "reset"), "{events:?}");
        // A first sentence bringing in a stranger is asked again, then left to the template.
        let (answer, _, asked) = told(vec![" a figure steps out.", " hearth is cold."]);
        assert_eq!(
            (answer.narrative.as_str(), answer.provider, asked),
            (
                "You look around the hall, and the hearth is cold.",
                host::NAME,
                2
            )
        );
        let (answer, events, asked) = told(vec![" two people stare at you."]);
        assert_eq!(
            (answer.provider, asked),
            ("template", TRIES_WHEN_BARE as usize)
        );
        assert!(
            events
                .iter()
                .any(|e| e.contains("someone the story has not met")),
            "{events:?}"
        );
        assert!(events.iter().any(|e| e == "reset"), "{events:?}");
        assert!(
            events.contains(&"log:Debug:guard stranger refused: two people stare at you.".into()),
            "{events:?}"
        );
    }

    #[test]
    fn a_whole_opening_is_told_alone_when_the_model_adds_nothing() {
        let prompt = opened("You wonder who she is. You think back: you greet Senna by the well.");
        let mut host = Answers::new(vec![""]);
        let mut rec = Recorder::default();
        let answer = run(
            &StoryConfig::default(),
            &job(&prompt),
            &mut rec,
            Some(&mut host),
        );
        assert_eq!(
            (answer.narrative.as_str(), answer.provider),
            (
                "You wonder who she is. You think back: you greet Senna by the well.",
                host::NAME
            )
        );
        assert!(!rec.events.iter().any(|e| e == "reset"), "{:?}", rec.events);
        // Words said end a whole opening too.
        let prompt = opened("You ask him, \"Where are we headed?\"");
        let mut host = Answers::new(vec![""]);
        let answer = run(
            &StoryConfig::default(),
            &job(&prompt),
            &mut Recorder::default(),
            Some(&mut host),
        );
        assert_eq!(
            (answer.narrative.as_str(), answer.provider),
            ("You ask him, \"Where are we headed?\"", host::NAME)
        );
    }
}
