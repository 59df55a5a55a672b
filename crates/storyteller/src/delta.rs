//! Streamed prose: pieces as they arrive, trimmed so that the narrative is
//! exactly the concatenation of the pieces shown.

/// Collects the pieces of one provider's answer. Leading whitespace is
/// dropped and trailing whitespace is held back until more text follows, so
/// [`DeltaStream::push`] returns only what may be shown now and
/// [`DeltaStream::text`] is always the concatenation of everything it returned.
#[derive(Debug, Default)]
pub struct DeltaStream {
    text: String,
    held: String,
}

impl DeltaStream {
    pub fn new() -> DeltaStream {
        DeltaStream::default()
    }

    /// Takes one piece; returns the part to show now (possibly empty).
    pub fn push(&mut self, piece: &str) -> String {
        let mut incoming = std::mem::take(&mut self.held);
        incoming.push_str(piece);
        if self.text.is_empty() {
            incoming = incoming.trim_start().to_string();
        }
        let keep = incoming.trim_end().len();
        self.held = incoming[keep..].to_string();
        incoming.truncate(keep);
        self.text.push_str(&incoming);
        incoming
    }

    /// Everything shown so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether anything has been shown.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_pieces_concatenate_to_the_text() {
        let mut d = DeltaStream::new();
        let pieces = [
            "  \n", "The ", "door", " creaks", ".  ", "\n", "Cold air", "\n\n",
        ];
        let shown: Vec<String> = pieces.iter().map(|p| d.push(p)).collect();
        assert_eq!(shown.concat(), d.text());
        assert_eq!(d.text(), "The door creaks.  \nCold air");
        assert_eq!(shown[0], "");
        assert_eq!(shown[1], "The");
        assert_eq!(shown[2], " door");
    }

    #[test]
    fn whitespace_only_answers_stay_empty() {
        let mut d = DeltaStream::new();
        d.push(" ");
        d.push("\n");
        assert!(d.is_empty());
    }
}
