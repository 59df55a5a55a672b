//! Telling a turn without a model: the player's action in the second person
//! and what the rules decided, in words — never the raw numbers. The
//! storyteller grounds its prompt in the same words, and the host falls back
//! on them when no narration could be written (docs/architecture.md).
//!
//! The words themselves are the lexicon's (`narratoria_lexicon`); the
//! engine keeps here what it tells the narration of the story.

pub mod bounds;
pub mod story;

// `checked` and `deed` name both a module and its function: one import
// brings both.
pub use narratoria_lexicon::{
    act, checked, clip_to, contradicts, deed, ended_at, ends_a_sentence, escalates, facts_of,
    has_negation, is_question, open_quote, sentence_case, sentence_ends, sentences_of, told,
    told_in, trails_off, wondered, Fact, Language, Lines, Verdict, CLOSERS, JOINING_WORDS,
    SENTENCE_ENDS, TITLES,
};
pub use narratoria_lexicon::{facts, language, lines, question, sentence, template};
// A writer's profile is read from the host's model offer, on the wire.
pub use bounds::{
    check_action, ActionTooLong, ACTION_CHARS, AUTHOR_NOTE_CHARS, LANGUAGE_CHARS, NARRATION_CHARS,
    SCENARIO_CHARS, SCENE_CHARS, STORY_TURNS,
};
pub use narratoria_protocol::writer::{AnswerLength, Guarding, WriterClass, WriterProfile};
pub use story::{StoryTold, STORY_CHARS};
// The turn's narration step lives with the turn (`crate::turn`); these
// paths stay for the crates that name them here.
pub use crate::turn::narration_step as step;
pub use crate::turn::{story_context, RECENT_TURNS};
