//! Prose released a whole sentence at a time, so what the player has seen
//! never needs taking back: a generation cut off by its length ends at the
//! last complete sentence instead of mid-word. The [`Policy`]'s guards
//! (`crate::guards`) read each sentence first: the prose ends before one a
//! guard refuses, or at a clause one cuts. A quotation left open when the
//! prose ends is closed (docs/storyteller.md, "What the model may tell").

use narratoria_lexicon::{
    ended_at, ends_a_sentence, open_quote, sentence_ends, sentences_of, trails_off,
};

use crate::guards::{Asked, Candidate, Policy, Story};

/// A guard's refusal: its name and the text it kept from the player (the
/// sentence refused, or the clauses cut from one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub guard: &'static str,
    pub text: String,
}

/// Collects streamed prose and releases it sentence by sentence. Promises:
/// [`SentenceStream::text`] is always the concatenation of everything
/// released; released text never starts with white space; after
/// [`SentenceStream::finish`] the text ends at a sentence end; every
/// sentence released is one the policy's guards allow, and none after one
/// they refused.
#[derive(Debug, Default, Clone)]
pub struct SentenceStream {
    text: String,
    held: String,
    policy: Policy,
    story: Story,
    asked: Asked,
    /// Sentences released so far.
    told: usize,
    /// A sentence was refused or cut: nothing more is released.
    closed: bool,
    refusals: Vec<Refusal>,
}

impl SentenceStream {
    /// A stream whose sentences `policy`'s guards read, answering `story`
    /// the `asked` time. The story's opening is released at once as the
    /// start of the first sentence; the pieces pushed next continue it.
    pub fn new(policy: Policy, story: Story, asked: Asked) -> SentenceStream {
        SentenceStream {
            text: story.opening.trim_start().to_string(),
            policy,
            story,
            asked,
            ..SentenceStream::default()
        }
    }

    /// Whether no whole sentence has been released (an opening alone is not one).
    pub fn no_sentence_yet(&self) -> bool {
        self.told == 0
    }

    /// Whether the first sentence was refused (so nothing will be told).
    pub fn turned_down(&self) -> bool {
        self.closed && self.told == 0
    }

    /// Each guard's refusal so far (several may refuse one sentence).
    pub fn refusals(&self) -> &[Refusal] {
        &self.refusals
    }

    /// Whether the answer is whole: something was told, and nothing more
    /// will be — a sentence was refused or cut, or every next sentence
    /// would be, whatever it says (the writer's most sentences are told).
    pub fn whole(&self) -> bool {
        if self.told == 0 {
            return false;
        }
        let opening = sentence_ends(self.story.opening.trim()).len();
        self.closed
            || self
                .policy
                .guards()
                .any(|g| g.refuses_every(self.told, self.told + opening))
    }

    /// Everything released so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Takes one piece; returns the sentences it completed (possibly none).
    pub fn push(&mut self, piece: &str) -> String {
        if self.closed {
            return String::new();
        }
        self.held.push_str(piece);
        if self.text.is_empty() {
            self.held = self.held.trim_start().to_string();
        }
        let end = releasable_end(&self.held, false).unwrap_or(0);
        self.release(end)
    }

    /// Ends the stream: a sentence ended by the end of the text is released;
    /// an unfinished one is dropped — unless nothing was released yet (no
    /// sentence of the model's, and no whole sentence of the opening's), when
    /// it is released without its loose end and with a full stop, so that
    /// there is an answer at all. A last sentence that trails off in an
    /// ellipsis ("and the Drowned Lan...") was cut by the model itself: it
    /// is always dropped. A quotation the told text leaves open is closed.
    pub fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        let unended = self.without_a_loose_end(&held);
        self.held = match releasable_end(&held, true) {
            _ if self.closed => String::new(),
            Some(end) => held[..end].to_string(),
            None if self.told > 0
                || self.opening_whole()
                || trails_off(&held)
                || unended.is_empty() =>
            {
                String::new()
            }
            None => format!("{unended}."),
        };
        self.release(self.held.len()) + &self.close_quotation()
    }

    /// Whether the rules' opening alone is a whole answer: sentences, none
    /// left for the model to finish ("The answer is no.").
    fn opening_whole(&self) -> bool {
        let opening = self.story.opening.trim();
        !opening.is_empty() && ends_a_sentence(opening)
    }

    /// `text` without the punctuation and joining words a cut left at its
    /// end ("you see the lamp room, and" → "you see the lamp room"); in a
    /// language without words, ended at its last joint mark.
    fn without_a_loose_end<'t>(&self, text: &'t str) -> &'t str {
        const JOINT_MARKS: [char; 5] = [',', ';', ':', '-', '—'];
        let Some(words) = self.policy.words() else {
            let cut = text.trim_end().trim_end_matches(JOINT_MARKS);
            let cut = cut.rfind(JOINT_MARKS).map_or(cut, |at| &cut[..at]);
            return cut.trim_end();
        };
        let mut rest = text;
        loop {
            rest = rest.trim_end().trim_end_matches(JOINT_MARKS).trim_end();
            let last_word = rest.rsplit(char::is_whitespace).next().unwrap_or("");
            if last_word.is_empty() || !words.loose_ends.contains(&last_word.to_lowercase()) {
                return rest;
            }
            rest = &rest[..rest.len() - last_word.len()];
        }
    }

    /// The closing mark of a quotation the told text leaves open, now told
    /// too (empty when none is open).
    fn close_quotation(&mut self) -> String {
        let closer = open_quote(&self.text).map(String::from).unwrap_or_default();
        self.text.push_str(&closer);
        closer
    }

    /// `sentence`, the model's next, as the guards read it: the opening's
    /// whole sentences come before it in the answer.
    fn candidate<'a>(&'a self, sentence: &'a str) -> Candidate<'a> {
        let opening = sentence_ends(self.story.opening.trim()).len();
        Candidate {
            text: sentence,
            index: self.told,
            at: self.told + opening,
            asked: self.asked,
            before: &self.text,
            story: &self.story,
        }
    }

    /// What of `sentence` the guards let be told — all of it, nothing, or
    /// its start before the first clause one cuts (unless that would leave
    /// a quotation open; a first sentence with no opening is the model's
    /// whole) — and their refusals of the rest.
    fn judged(&self, sentence: &str) -> (String, Vec<Refusal>) {
        let c = self.candidate(sentence);
        let refusal = |guard, text: &str| Refusal {
            guard,
            text: text.trim().to_string(),
        };
        let refusing = self.policy.guards().filter(|g| g.refuses(&c));
        let refusing: Vec<_> = refusing.map(|g| refusal(g.name(), sentence)).collect();
        if !refusing.is_empty() {
            return (String::new(), refusing);
        }
        let cuts = self
            .policy
            .guards()
            .filter_map(|g| Some((g.cuts(&c)?, g.name())));
        let cuts: Vec<_> = cuts.collect();
        let at = cuts.iter().map(|&(at, _)| at).min();
        let at = at.filter(|_| c.opened() || self.told > 0);
        let Some((at, kept)) = at.and_then(|at| Some((at, ended_at(&self.text, sentence, at)?)))
        else {
            return (sentence.to_string(), Vec::new());
        };
        let cutting = cuts.into_iter().filter(|&(c, _)| c == at);
        let refusals = cutting.map(|(_, g)| refusal(g, &sentence[at..])).collect();
        (kept, refusals)
    }

    /// Releases the sentences in `held[..end]` the guards allow, up to the
    /// first one refuses or cuts (which closes the stream).
    fn release(&mut self, end: usize) -> String {
        let ready: String = self.held.drain(..end).collect();
        let mut out = String::new();
        for sentence in sentences_of(&ready) {
            let (told, refusals) = self.judged(sentence);
            self.text.push_str(&told);
            out.push_str(&told);
            self.told += usize::from(!told.is_empty());
            if !refusals.is_empty() {
                self.closed = true;
                self.held.clear();
                self.refusals.extend(refusals);
                out.push_str(&self.close_quotation());
                break;
            }
        }
        out
    }
}

/// The end of the last sentence of `held` that may be released: one
/// followed by white space, or by the end of the text when `at_end` — but
/// never a last one trailing off in an ellipsis, which may be the model's
/// own cut ("and the Drowned Lan...").
fn releasable_end(held: &str, at_end: bool) -> Option<usize> {
    let trailing = trails_off(held);
    sentence_ends(held).into_iter().rev().find(|&e| {
        let last = held[e..].trim().is_empty();
        !(last && trailing) && (at_end || e < held.len())
    })
}

#[cfg(test)]
mod tests {
    use narratoria_lexicon::Language;

    use super::*;
    use crate::guards::testing::{every_guard, full, grounded, opened, small};

    /// An unguarded stream for a story that opens with `opening`.
    fn unguarded(opening: &str) -> SentenceStream {
        SentenceStream::new(Policy::default(), opened(opening), Asked::First)
    }

    fn stream(pieces: &[&str]) -> (Vec<String>, String) {
        let mut s = SentenceStream::default();
        let mut shown: Vec<String> = pieces.iter().map(|p| s.push(p)).collect();
        shown.push(s.finish());
        assert_eq!(shown.concat(), s.text());
        (shown, s.text().to_string())
    }

    #[test]
    fn a_last_sentence_that_trails_off_is_not_told() {
        let mut s = unguarded("You sleep until dawn, and");
        assert_eq!(
            s.push(" the bells ring. Then the Drowned Lan..."),
            " the bells ring."
        );
        assert_eq!(s.finish(), "");
        assert_eq!(s.text(), "You sleep until dawn, and the bells ring.");
        // Streamed with the white space after it, then the end.
        let mut spaced = unguarded("You sleep until dawn, and");
        assert_eq!(
            spaced.push(" the bells ring. The Drowned Lan... "),
            " the bells ring."
        );
        assert_eq!(spaced.finish(), "");
        let mut only = unguarded("You sleep until dawn, and");
        assert_eq!(only.push(" the Drowned Lan…"), "");
        assert_eq!(only.finish(), "");
        // An ellipsis inside the text is a pause, not an end.
        let mut pause = unguarded("You wait, and");
        pause.push(" nothing... then a bell rings.");
        pause.finish();
        assert_eq!(pause.text(), "You wait, and nothing... then a bell rings.");
    }

    #[test]
    fn a_cut_off_first_sentence_ends_without_a_loose_end() {
        let mut s = full(opened("You climb the stairs, and"));
        assert_eq!(s.push(" you see the lamp room, and the"), "");
        assert_eq!(s.finish(), " you see the lamp room.");
        assert_eq!(full(Story::default()).without_a_loose_end("and"), "");
        // In French by its words, and in a language without words at its
        // last joint mark.
        for code in ["fr", "ja"] {
            let policy = Policy::for_writer(&small(), &Language::parse(code).unwrap());
            let mut s = SentenceStream::new(policy, opened("Vous montez, et"), Asked::First);
            s.push(" vous voyez la salle, et la");
            assert_eq!(s.finish(), " vous voyez la salle.", "{code}");
        }
    }

    #[test]
    fn sentences_are_released_once_complete() {
        let (shown, text) = stream(&["  The door", " creaks.", " Cold air", " drifts in. It"]);
        assert_eq!(shown[0], "");
        assert_eq!(shown[1], "", "a full stop may still be followed by a quote");
        assert_eq!(shown[2], "The door creaks.");
        assert_eq!(shown[3], " Cold air drifts in.");
        assert_eq!(text, "The door creaks. Cold air drifts in.");
    }

    #[test]
    fn an_opening_is_released_at_once_and_its_sentence_finished_by_the_model() {
        let mut s = full(opened("You try to climb, but"));
        assert_eq!(s.text(), "You try to climb, but");
        assert!(!s.text().is_empty() && s.no_sentence_yet());
        assert_eq!(s.push(" the stones"), "");
        assert_eq!(s.push(" crumble. You draw"), " the stones crumble.");
        assert!(!s.no_sentence_yet());
        s.finish();
        assert_eq!(s.text(), "You try to climb, but the stones crumble.");
        // Cut off before its sentence ended: the sentence is closed with a full stop.
        let mut cut = full(opened("You look around, and"));
        cut.push(" see a cold hearth,");
        assert_eq!(cut.finish(), " see a cold hearth.");
        assert_eq!(cut.text(), "You look around, and see a cold hearth.");
    }

    #[test]
    fn each_guard_that_refuses_is_named() {
        let mut s = full(opened("You knock, and"));
        s.push(" the door opens. You say that I am lost. ");
        let names: Vec<&str> = s.refusals().iter().map(|r| r.guard).collect();
        assert_eq!(names, ["acts_for_player", "out_of_story"]);
        assert_eq!(s.refusals()[0].text, "You say that I am lost.");
        // A clause cut off is named too.
        let mut s = full(opened("You search the body, and"));
        s.push(" you find a ring, and you're happy. ");
        assert_eq!(
            s.refusals(),
            [Refusal {
                guard: "adds_nothing",
                text: ", and you're happy.".into()
            }]
        );
        assert!(SentenceStream::default().refusals().is_empty());
    }

    #[test]
    fn an_unfinished_last_sentence_is_dropped() {
        let (_, text) = stream(&["You win. The crowd roars and"]);
        assert_eq!(text, "You win.");
    }

    /// After an opening that is a whole answer ("The answer is no."), a
    /// sentence the model left unfinished is not closed into a fragment
    /// ("You look at the habitat drums, but they.").
    #[test]
    fn after_a_whole_opening_an_unfinished_sentence_is_dropped() {
        let mut s = full(opened("The answer is no."));
        s.push(" You look at the habitat drums, but they");
        s.finish();
        assert_eq!(s.text(), "The answer is no.");
    }

    #[test]
    fn a_sentence_ending_with_the_text_is_kept() {
        let (_, text) = stream(&["You win. \"Well done!\""]);
        assert_eq!(text, "You win. \"Well done!\"");
    }

    #[test]
    fn with_no_sentence_end_at_all_the_text_is_kept_with_a_full_stop() {
        let (_, text) = stream(&["You walk on,"]);
        assert_eq!(text, "You walk on.");
        let (_, text) = stream(&["   "]);
        assert_eq!(text, "");
    }

    #[test]
    fn a_quotation_left_open_when_the_prose_ends_is_closed() {
        // Past the most sentences, inside the driver's words.
        let text = grounded(
            every_guard(),
            &["You ask him, and he says, \"We ride at dawn. We rest now. Sleep.\" "],
        );
        assert_eq!(
            text,
            "You ask him, and he says, \"We ride at dawn. We rest now.\""
        );
        let text = grounded(
            every_guard(),
            &["He smiles. “The oasis is near. It is green. Trust me.” "],
        );
        assert_eq!(text, "He smiles. “The oasis is near.”");
        // The model stops inside the quotation.
        let (shown, text) = stream(&["She says, \"Go home. Now", ""]);
        assert_eq!(text, "She says, \"Go home.\"");
        assert_eq!(shown.last().map(String::as_str), Some("\""));
        // Closed quotations are left alone.
        assert_eq!(
            stream(&["She says, \"Go.\" He nods. "]).1,
            "She says, \"Go.\" He nods."
        );
    }

    #[test]
    fn a_title_ends_no_sentence() {
        let mut s = full(opened("You ask Dr. Venn about the plague, and"));
        // The opening holds no whole sentence: the model's first is its end.
        assert_eq!(s.push(" he frowns. "), " he frowns.");
    }

    #[test]
    fn closing_quotes_and_ellipses_stay_with_their_sentence() {
        let (shown, _) = stream(&["He says “Run!” and", " waits… Then"]);
        assert_eq!(shown[0], "He says “Run!”");
        assert_eq!(shown[1], " and waits…");
    }
}
