//! Telling a turn without a model: the player's action in the second person
//! and what the rules decided, in words — never the raw numbers. The
//! storyteller grounds its prompt in the same words, and the host falls back
//! on them when no narration could be written (docs/architecture.md).

pub mod checked;
pub mod deed;
pub mod facts;
pub mod language;
pub mod lines;
pub mod profile;
pub mod question;
pub mod sentence;
pub mod story;
pub mod template;

pub use checked::{checked, contradicts, escalates, has_negation, JOINING_WORDS};
pub use deed::{act, deed};
pub use facts::{facts_of, sentence_case, Fact, Verdict};
pub use language::Language;
pub use lines::Lines;
pub use profile::{AnswerLength, Guarding, WriterClass, WriterProfile};
pub use question::{is_question, wondered};
pub use sentence::{
    ended_at, ends_a_sentence, open_quote, sentence_ends, sentences_of, trails_off, CLOSERS,
    SENTENCE_ENDS, TITLES,
};
pub use story::{StoryTold, AUTHOR_NOTE_CHARS, STORY_CHARS, STORY_TURNS};
// The turn's narration step lives with the turn (`crate::turn`); these
// paths stay for the crates that name them here.
pub use crate::turn::narration_step as step;
pub use crate::turn::{story_context, RECENT_TURNS};
pub use template::{told, told_in};
