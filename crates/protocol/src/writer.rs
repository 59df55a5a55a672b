//! What a writer can be trusted with, read from the model itself
//! (docs/stories.md, "The writer's profile"): how much of the story its
//! prompt holds, how long it writes and which guards read its sentences.
//! A small model keeps the close guarding it needs; a larger one writes at
//! the length the player chose under the guards every model shares.
//!
//! It lives with the protocol because both ends read it from the same
//! wire data: the host's model offer ([`crate::HostModel`]: its parameters
//! and context) and the player's length setting in the skill's config.

use serde::{Deserialize, Serialize};

/// How large a writer is, as far as its prose goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriterClass {
    /// Under a billion parameters (the bundled 135M model): it drifts after
    /// two sentences, acts for the player and repeats itself.
    Small,
    /// One to six billion: a few grounded sentences.
    Medium,
    /// Six billion and more, and every hosted model.
    Large,
}

/// How long the player likes each turn's prose (a setting; it governs
/// [`WriterClass::Large`] writers, the others write what they can hold).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerLength {
    Short,
    #[default]
    Medium,
    Long,
}

/// Which guards read the writer's sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Guarding {
    /// Every guard, the word-based ones among them where the story's
    /// language has their words.
    Full,
    /// The guards every model shares: prompt echo, template tokens, an
    /// unfinished sentence, a repeat of an earlier turn, the rules' outcome
    /// told the other way round.
    Neutral,
}

/// One writer's profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriterProfile {
    pub class: WriterClass,
    /// The writer's context, in tokens.
    pub context_tokens: u32,
    /// How many tokens of the story (earlier turns) a prompt may hold.
    pub story_tokens: u32,
    /// The most tokens one answer may take.
    pub answer_tokens: u32,
    /// The most sentences an answer may hold (`None`: its tokens bound it).
    pub most_sentences: Option<usize>,
    pub guarding: Guarding,
}

/// Parameters from which a local model is no longer small, and from which
/// it is large.
const MEDIUM_FROM: u64 = 1_000_000_000;
const LARGE_FROM: u64 = 6_000_000_000;

/// The tokens a prompt needs besides the story: instructions, scenario,
/// worked turns, the turn itself and the author's note.
const PROMPT_TOKENS: u32 = 900;

impl WriterClass {
    /// The class of a local model with `parameters` (unknown: small, the
    /// cautious reading).
    pub fn of_parameters(parameters: Option<u64>) -> WriterClass {
        match parameters {
            Some(p) if p >= LARGE_FROM => WriterClass::Large,
            Some(p) if p >= MEDIUM_FROM => WriterClass::Medium,
            _ => WriterClass::Small,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            WriterClass::Small => "small",
            WriterClass::Medium => "medium",
            WriterClass::Large => "large",
        }
    }
}

impl AnswerLength {
    pub fn name(self) -> &'static str {
        match self {
            AnswerLength::Short => "short",
            AnswerLength::Medium => "medium",
            AnswerLength::Long => "long",
        }
    }
}

impl WriterProfile {
    /// The profile of a local model of `parameters` whose context holds
    /// `context_tokens`.
    pub fn local(parameters: Option<u64>, context_tokens: u32, length: AnswerLength) -> Self {
        Self::of(
            WriterClass::of_parameters(parameters),
            context_tokens,
            length,
        )
    }

    /// The profile of a hosted model (always large) with `context_tokens`.
    pub fn hosted(context_tokens: u32, length: AnswerLength) -> Self {
        Self::of(WriterClass::Large, context_tokens, length)
    }

    /// The profile of a writer of `class`.
    pub fn of(class: WriterClass, context_tokens: u32, length: AnswerLength) -> Self {
        let (answer_tokens, most_sentences, guarding) = match class {
            WriterClass::Small => (70, Some(2), Guarding::Full),
            WriterClass::Medium => (160, Some(4), Guarding::Neutral),
            WriterClass::Large => (
                match length {
                    AnswerLength::Short => 160,
                    AnswerLength::Medium => 320,
                    AnswerLength::Long => 640,
                },
                None,
                Guarding::Neutral,
            ),
        };
        let room = context_tokens.saturating_sub(PROMPT_TOKENS + answer_tokens);
        let story_tokens = match class {
            // A small model loses the thread in a long prompt: a few turns.
            WriterClass::Small => room.min(1_024),
            WriterClass::Medium | WriterClass::Large => room,
        };
        WriterProfile {
            class,
            context_tokens,
            story_tokens,
            answer_tokens,
            most_sentences,
            guarding,
        }
    }

    /// How long each answer should be, in words a prompt can ask for.
    pub fn length_asked(&self, length: AnswerLength) -> &'static str {
        match (self.class, length) {
            (WriterClass::Small, _) => "one or two sentences",
            (WriterClass::Medium, _) => "two to four sentences",
            (WriterClass::Large, AnswerLength::Short) => "one short paragraph",
            (WriterClass::Large, AnswerLength::Medium) => "one or two paragraphs",
            (WriterClass::Large, AnswerLength::Long) => "two to four paragraphs",
        }
    }

    /// One line for the player: "medium writer: up to 4 sentences, 160
    /// tokens an answer, 2,948 tokens of story, shared guards".
    pub fn describe(&self) -> String {
        let sentences = match self.most_sentences {
            Some(n) => format!("up to {n} sentences, "),
            None => String::new(),
        };
        format!(
            "{} writer: {sentences}{} tokens an answer, {} tokens of story, {} guards",
            self.class.name(),
            self.answer_tokens,
            self.story_tokens,
            match self.guarding {
                Guarding::Full => "all",
                Guarding::Neutral => "shared",
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_model_keeps_its_close_guarding() {
        let p = WriterProfile::local(Some(134_515_008), 4096, AnswerLength::Long);
        assert_eq!(p.class, WriterClass::Small);
        assert_eq!(p.most_sentences, Some(2));
        assert_eq!(p.answer_tokens, 70);
        assert_eq!(p.guarding, Guarding::Full);
        assert!(p.story_tokens <= 1_024);
        // Unknown size reads as small.
        assert_eq!(
            WriterProfile::local(None, 4096, AnswerLength::Medium).class,
            WriterClass::Small
        );
    }

    #[test]
    fn a_one_to_six_billion_model_writes_a_few_sentences_under_shared_guards() {
        let p = WriterProfile::local(Some(1_543_714_304), 8192, AnswerLength::Long);
        assert_eq!(p.class, WriterClass::Medium);
        assert_eq!(p.most_sentences, Some(4));
        assert_eq!(p.guarding, Guarding::Neutral);
        assert_eq!(p.story_tokens, 8192 - 900 - 160);
    }

    #[test]
    fn a_large_or_hosted_model_writes_at_the_players_length() {
        let short = WriterProfile::local(Some(7_615_616_512), 32_768, AnswerLength::Short);
        let long = WriterProfile::hosted(32_768, AnswerLength::Long);
        assert_eq!(short.class, WriterClass::Large);
        assert_eq!(long.class, WriterClass::Large);
        assert!(short.answer_tokens < long.answer_tokens);
        assert_eq!(long.most_sentences, None);
        assert_eq!(long.guarding, Guarding::Neutral);
    }

    #[test]
    fn a_context_too_small_for_the_prompt_leaves_no_story_not_a_wrap() {
        let p = WriterProfile::local(Some(2_000_000_000), 512, AnswerLength::Medium);
        assert_eq!(p.story_tokens, 0);
    }
}
