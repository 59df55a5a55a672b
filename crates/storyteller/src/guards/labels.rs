//! `labels` (any language): the prompt's own labels or a chat template's
//! markers in the prose ("Action:", "<|im_start|>", the scene's "now at:"
//! in any case): the model writing the prompt on instead of the story. The host's
//! answer stops at some (`providers::host::stop_texts`); a hosted model's
//! has no such stop.

use narratoria_lexicon::labels::SCENE_LABELS;

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
        // The scene's labels in any case ("…keep in mind that now at:"); the
        // others as written ("what happened:" is prose too).
        LABELS.iter().any(|label| c.text.contains(label))
            || SCENE_LABELS
                .iter()
                .any(|label| contains_ignoring_case(c.text, label))
    }
}

/// Whether `text` holds `label` (ASCII) in any case, without lowering the
/// whole text for each sentence read.
fn contains_ignoring_case(text: &str, label: &str) -> bool {
    text.as_bytes()
        .windows(label.len())
        .any(|w| w.eq_ignore_ascii_case(label.as_bytes()))
}

#[cfg(test)]
mod tests {
    use narratoria_lexicon::Language;

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
                // The scene's labels, as a writer copied them from its turn.
                "La porte grince. Vous gardez en tête que now at: le quai.",
                "La porte grince. Lore: le gardien a disparu.",
            ] {
                let stream = SentenceStream::new(policy.clone(), Story::default(), Asked::First);
                assert_eq!(told(stream, &[answer]), "La porte grince.", "{language}");
            }
        }
    }
}
