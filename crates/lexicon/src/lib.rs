//! Narratoria's language, in one place: what a sentence is and where a
//! text's sentences end, the player's words in the second person, what the
//! rules decided told in words, the lines each shipped language tells them
//! with, and the turn told without a model. Pure functions over text and
//! data shipped with the crate: no I/O, no workspace crate below it
//! (docs/architecture.md, the crate map).

pub mod checked;
pub mod clip;
pub mod deed;
pub mod facts;
pub mod labels;
pub mod language;
pub mod lines;
pub mod person;
pub mod question;
pub mod sentence;
pub mod stem;
pub mod stop_words;
pub mod template;
pub mod vocabulary;
pub mod words;

pub use checked::{checked, contradicts, escalates, has_negation};
pub use clip::{clip_after, clip_in_place, clip_to};
pub use deed::{act, deed, deed_in};
pub use facts::{facts_of, sentence_case, Fact, Verdict};
pub use language::{Language, NotALanguage};
pub use lines::Lines;
pub use person::second_person;
pub use question::{
    asks_about_own_deed, asks_for_someone, asks_how, asks_with, asks_yes_or_no, is_question,
    wondered,
};
pub use sentence::{
    ended_at, ends_a_sentence, open_quote, sentence_ends, sentences_of, trails_off, CLOSERS,
    SENTENCE_ENDS, TITLES,
};
pub use stem::stem;
pub use stop_words::{is_function_word, is_stop_word, stop_words};
pub use template::{no_plan, told, told_in, told_with_flavour};
pub use words::{echoes, shared_run, ECHO_WORDS, JOINING_WORDS};
