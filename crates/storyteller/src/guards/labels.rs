//! `labels` (any language): the prompt's own labels or a chat template's
//! markers in the prose ("Action:", "<|im_start|>"): the model writing the
//! prompt on instead of the story. The host's answer stops at some
//! (`providers::host::stop_texts`); a hosted model's has no such stop.

use super::{Candidate, Guard};

/// The prompt's labels (`crate::prompt`) and chat templates' markers.
const LABELS: [&str; 12] = [
    "Action:",
    "Narrator:",
    "Player:",
    "What happened:",
    "Story so far:",
    "Keep in mind:",
    "Story state:",
    "<|",
    "|>",
    "</s>",
    "[INST]",
    "<start_of_turn>",
];

#[derive(Debug)]
pub struct Labels;

impl Guard for Labels {
    fn name(&self) -> &'static str {
        "labels"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        LABELS.iter().any(|label| c.text.contains(label))
    }
}

#[cfg(test)]
mod tests {
    use narratoria_core::narration::Language;

    use crate::guards::testing::{small, told};
    use crate::guards::Policy;
    use crate::guards::{Asked, Story};
    use crate::sentences::SentenceStream;

    #[test]
    fn the_prompts_labels_are_not_told_in_any_language() {
        for language in ["en", "fr"] {
            let policy = Policy::for_writer(&small(), &Language::parse(language).unwrap());
            for answer in [
                "La porte grince. Action: I open the door.",
                "La porte grince. <|im_start|>assistant: Vous entrez.",
            ] {
                let stream = SentenceStream::new(policy.clone(), Story::default(), Asked::First);
                assert_eq!(told(stream, &[answer]), "La porte grince.", "{language}");
            }
        }
    }
}
