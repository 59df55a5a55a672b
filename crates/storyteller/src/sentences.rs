//! Prose released a whole sentence at a time, so what the player has seen
//! never needs taking back: a generation cut off by its length ends at the
//! last complete sentence instead of mid-word. A [`Limit`] and the turn's
//! words end the prose early: after its most sentences, before a sentence
//! that decides what "you" do, speaks as "I", puts words in the player's
//! mouth, has someone say nothing, talks of the story itself, starts like
//! or retells an earlier turn's, brings in people the story has not met or
//! tells the turn's check the other way round, and before a clause that
//! adds nothing (told already, the check's failure again, or only what you
//! are). A quotation left open when the prose ends is closed
//! (docs/storyteller.md, "What the model may tell").

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use narratoria_core::narration::{
    contradicts, escalates, has_negation, Verdict, CLOSERS, JOINING_WORDS, SENTENCE_ENDS, TITLES,
};

/// Which sentences an answer may hold; the answer ends before the first
/// one it may not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limit {
    /// The most sentences (`None`: no bound).
    pub most: Option<usize>,
    /// A sentence after the first may not start with something "you" do
    /// ("You draw your sword"); what you see, hear or feel is allowed.
    pub leave_the_deeds_to_the_player: bool,
    /// No sentence may name a kind of person ("two people", "a figure") the
    /// story's text so far does not (see [`SentenceStream::grounded_in`]).
    pub known_people_only: bool,
}

impl Limit {
    /// For a small local model: it drifts from its third sentence on, from
    /// its second it often acts for the player, and with little told about
    /// the scene it fills it with people ("You are in a dark room with two
    /// people").
    pub const SMALL_MODEL: Limit = Limit {
        most: Some(2),
        leave_the_deeds_to_the_player: true,
        known_people_only: true,
    };
    /// For a hosted model: it keeps to the story and may bring in whom it
    /// likes, but the player's deeds stay the player's.
    pub const HOSTED_MODEL: Limit = Limit {
        most: None,
        leave_the_deeds_to_the_player: true,
        known_people_only: false,
    };
}

/// Words naming a kind of person, in their singular form. A small model
/// brings these in unasked ("a figure stands before you").
const PEOPLE: [&str; 21] = [
    "person",
    "figure",
    "man",
    "woman",
    "stranger",
    "someone",
    "somebody",
    "guard",
    "soldier",
    "boy",
    "girl",
    "child",
    "crowd",
    "group",
    "villager",
    "traveler",
    "traveller",
    "merchant",
    "warrior",
    "creature",
    "knight",
];

/// `word` lowercased, without punctuation and in its singular form
/// ("People" → "person", "guards" → "guard").
fn singular(word: &str) -> String {
    let w: String = word
        .chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    match w.as_str() {
        "people" => "person".into(),
        "men" => "man".into(),
        "women" => "woman".into(),
        "children" => "child".into(),
        _ if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") => w[..w.len() - 1].into(),
        _ => w,
    }
}

/// Whether `sentence` names a kind of person missing from `known` (the
/// singular words of the story's text, sorted). A kind said of someone
/// ("the old woman is a wise person") brings no one in; "there is a man"
/// does.
fn brings_in_someone(sentence: &str, known: &[String]) -> bool {
    let words: Vec<String> = sentence.split_whitespace().map(singular).collect();
    words.iter().enumerate().any(|(i, w)| {
        PEOPLE.contains(&w.as_str())
            && known.binary_search(w).is_err()
            && !said_of_someone(&words[..i])
    })
}

/// Whether the words before a noun make it what someone is: "is a" or
/// "was an", perhaps with one word between ("is a wise …"), not after
/// "there".
fn said_of_someone(before: &[String]) -> bool {
    let n = before.len();
    (2..=3).filter(|&back| back <= n).any(|back| {
        let at = n - back;
        matches!(before[at].as_str(), "is" | "was" | "are" | "were")
            && matches!(before[at + 1].as_str(), "a" | "an")
            && (at == 0 || before[at - 1] != "there")
    })
}

/// Words that may follow a sentence's opening "You" without deciding what
/// the player does: being, perceiving, knowing ("able", as in "are able
/// to", is "can"). Not "find" or "have": "You have a bit of luck, and you
/// find a way past them" overturned a failure.
const YOU_MAY: [&str; 22] = [
    "are", "were", "can", "could", "cannot", "can't", "able", "feel", "see", "hear", "notice",
    "smell", "sense", "spot", "realize", "realise", "know", "remember", "watch", "taste", "catch",
    "wonder",
];

/// Whether `sentence` starts by telling something "you" do ("You use your
/// magic", "You try to find a way out").
fn acts_for_the_player(sentence: &str) -> bool {
    // Said by someone in the story ("\"You go first,\" she says") is not done.
    let mut words = sentence.split_whitespace();
    let first = words.next().unwrap_or("");
    if !first.eq_ignore_ascii_case("you") {
        return false;
    }
    let next = words
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .to_lowercase();
    !next.is_empty() && !YOU_MAY.contains(&next.as_str())
}

/// Verbs of speech: "you" with one of these and a quotation puts words in
/// the player's mouth.
const SPEECH: [&str; 16] = [
    "say",
    "said",
    "says",
    "reply",
    "replied",
    "ask",
    "asked",
    "answer",
    "answered",
    "tell",
    "told",
    "shout",
    "shouted",
    "whisper",
    "whispered",
    "exclaimed",
];

/// Whether a sentence (its [`quoted_words`]) quotes words as the player's ("You say, 'I am the
/// keeper.'", "'Who goes there?' you ask"): "you" and a verb of speech
/// outside any quotation, with a quotation right after it or right before
/// it. Others' words ("'What do you say?' the keeper asks") and speech
/// without a quotation ("you say nothing") are not the player's.
fn speaks_for_the_player(words: &[QuotedWord]) -> bool {
    (0..words.len().saturating_sub(1)).any(|i| {
        let (you, verb) = (&words[i], &words[i + 1]);
        let spoken = !you.quoted
            && !verb.quoted
            && you.letters == "you"
            && SPEECH.contains(&verb.letters.as_str());
        let quote_after = words[i + 2..].iter().take(2).any(|w| w.opens);
        let quote_before = i > 0 && words[i - 1].closes;
        spoken && (quote_after || quote_before)
    })
}

/// Whether a sentence (its [`quoted_words`]) has someone speak and then say nothing: a verb of
/// speech that ends the sentence or its clause, in a sentence quoting
/// nothing ("…, and the barkeep says.", "the barkeep says, and you look at
/// him"). "You say nothing" and "she tells you the way" say something.
fn says_nothing(words: &[QuotedWord]) -> bool {
    !words.iter().any(|w| w.opens)
        && words.iter().enumerate().any(|(i, w)| {
            SPEECH.contains(&w.letters.as_str())
                && words
                    .get(i + 1)
                    .is_none_or(|n| JOINING_WORDS.contains(&n.letters.as_str()))
        })
}

/// Whether a sentence (its [`quoted_words`]) speaks as "I" outside any quotation: the narration
/// tells the player's story to "you", and an "I" of its own is the model
/// talking ("…, and I am left alone").
fn speaks_as_i(words: &[QuotedWord]) -> bool {
    words
        .iter()
        .any(|w| !w.quoted && ["i", "i'm", "i've", "i'd", "i'll"].contains(&w.letters.as_str()))
}

/// Talk of the story itself, or of its player, rather than of its world
/// ("…, and the story is over."), or that unsays it ("It's all just a
/// dream."): the host's answer stops at each
/// (`providers::host::stop_texts`), and a sentence that still holds one, begun
/// by the rules' opening ("…, and the" + " story is over."), is not told.
pub const TALK_OF_THE_STORY: [&str; 10] = [
    "all a dream",
    "all just a dream",
    "the player",
    "continue the story",
    "the story has",
    "the story goes",
    "the story continues",
    "the story ends",
    "the story is",
    "narrative",
];

/// Whether `sentence`, after the text told before it ending in `before`,
/// talks of the story itself ([`TALK_OF_THE_STORY`]).
fn talks_of_the_story(before: &str, sentence: &str) -> bool {
    // The longest phrase may begin this many characters before the sentence.
    let reach = TALK_OF_THE_STORY.iter().map(|t| t.len()).max().unwrap_or(0);
    let start = before
        .char_indices()
        .rev()
        .nth(reach.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let text = format!("{}{sentence}", &before[start..]).to_lowercase();
    TALK_OF_THE_STORY.iter().any(|talk| {
        text.match_indices(talk)
            .any(|(at, _)| at + talk.len() > text.len().saturating_sub(sentence.len()))
    })
}

/// One word of a sentence, and where it stands to the sentence's quotations.
struct QuotedWord {
    /// Its letters, lowercase.
    letters: String,
    /// It is inside a quotation.
    quoted: bool,
    /// A quotation opens with it.
    opens: bool,
    /// A quotation closes with it.
    closes: bool,
}

/// `sentence`'s words, each with where it stands to the quotations (an
/// apostrophe ending a plural possessive, "the guards'", closes none);
/// `inside`: the sentence starts within a quotation an earlier one opened.
fn quoted_words(sentence: &str, inside: bool) -> Vec<QuotedWord> {
    const OPEN: [char; 5] = ['"', '“', '«', '‘', '\''];
    const CLOSE: [char; 5] = ['"', '”', '»', '’', '\''];
    let mut inside = inside;
    let mut words = Vec::new();
    for w in sentence.split_whitespace() {
        let bare = w.trim_end_matches(|c: char| !c.is_alphanumeric() && !CLOSE.contains(&c));
        let possessive = bare.ends_with("s'") || bare.ends_with("s’");
        let opens = !inside && w.starts_with(OPEN);
        inside |= opens;
        let quoted = inside;
        let closes = inside && !possessive && bare.len() > 1 && bare.ends_with(CLOSE);
        if closes {
            inside = false;
        }
        let letters = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
            .replace('’', "'");
        words.push(QuotedWord {
            letters,
            quoted,
            opens,
            closes,
        });
    }
    words
}

/// Collects streamed prose and releases it sentence by sentence. Promises:
/// [`SentenceStream::text`] is always the concatenation of everything
/// released; released text never starts with white space; after
/// [`SentenceStream::finish`] the text ends at a sentence end; every
/// sentence released is one the [`Limit`] allows, and none after one it
/// refused.
#[derive(Debug, Default, Clone)]
pub struct SentenceStream {
    text: String,
    /// The words of their own of the checked deed when the check failed
    /// ([`failure_told_again`]).
    failed_deed_words: Option<HashSet<String>>,
    /// The words of their own of `text` ([`own_words`]), and whether it
    /// holds a negation: kept as `text` grows, for [`idle_clauses_after`].
    text_own: HashSet<String>,
    text_negates: bool,
    /// The quotation marks of `text`, kept as it grows ([`Quotes`]).
    text_quotes: Quotes,
    held: String,
    limit: Limit,
    /// Sentences released so far.
    told: usize,
    /// How the sentences of earlier turns start (their first words).
    told_before: Vec<Vec<String>>,
    /// Every run of [`SAME_RUN_WORDS`] words in the earlier turns' narration
    /// that says something of its own.
    told_runs: HashSet<Vec<String>>,
    /// Runs of mostly function words, with how many earlier turns told each.
    told_phrasings: HashMap<Vec<String>, usize>,
    /// How the clauses of the earlier turns' narration start (their first
    /// [`SAME_CLAUSE_START_WORDS`] words, when two say something).
    told_clause_starts: HashSet<Vec<String>>,
    /// The earlier turns' whole clauses that say something of their own
    /// ([`told_clause`]).
    told_clauses: Vec<Vec<String>>,
    /// The words of their own ([`own_of`]) of each clause of the earlier
    /// turns' narration holding at least [`RETOLD_WORDS`].
    told_clause_words: Vec<HashSet<String>>,
    /// The earlier turns' clauses of two words or more, by their words: no
    /// clause of the model's may be one of them word for word ("…, and
    /// you're not alone." closed nine turns in a row).
    told_clause_texts: HashSet<Vec<String>>,
    /// The first sentence began with the rules' opening ([`SentenceStream::opened_with`]).
    opened: bool,
    /// How many whole sentences the rules' opening holds ("You wonder who
    /// she is. You think back: you greet Senna by the well." holds two, "You
    /// wonder who she is, and" none).
    opening_sentences: usize,
    /// A sentence was refused: nothing more is released.
    closed: bool,
    /// The singular words of the story's text (see [`SentenceStream::grounded_in`]).
    known: Vec<String>,
    /// The checked deed and its verdict (see [`SentenceStream::keeping_to`]).
    check: Option<(String, Verdict)>,
    /// The first sentence may repeat earlier turns (see [`SentenceStream::last_chance`]).
    repeats_allowed_first: bool,
    /// The model's first clause may add nothing (see [`SentenceStream::asked_again`]).
    idle_allowed_first: bool,
}

impl SentenceStream {
    /// A stream with no limit.
    pub fn new() -> SentenceStream {
        SentenceStream::default()
    }

    /// A stream that ends the prose where `limit` says.
    pub fn limited(limit: Limit) -> SentenceStream {
        SentenceStream {
            limit,
            ..SentenceStream::default()
        }
    }

    /// Refuses a later sentence that starts with the same words as one of
    /// `earlier` (the narration of earlier turns), and any sentence of the
    /// model's own words that repeats a run of theirs or starts a clause as
    /// theirs did: a small model repeats its own lines turn after turn ("You
    /// are in a dark room, …", "and the tavern is in a fantasy world", "you're
    /// not sure if …").
    pub fn told_before<'a>(mut self, earlier: impl IntoIterator<Item = &'a str>) -> SentenceStream {
        for text in earlier {
            let words = words_of(text);
            let mut phrasings = HashSet::new();
            for run in words.windows(SAME_RUN_WORDS) {
                if says_something_of_its_own(run) {
                    self.told_runs.insert(run.to_vec());
                } else {
                    phrasings.insert(run.to_vec());
                }
            }
            let text_clauses = clauses(text);
            let (starts, phrasing_starts) = clause_starts(&text_clauses);
            phrasings.extend(phrasing_starts);
            for run in phrasings {
                *self.told_phrasings.entry(run).or_default() += 1;
            }
            self.told_clause_starts.extend(starts);
            self.told_clause_words.extend(
                text_clauses
                    .iter()
                    .map(|c| own_of(c))
                    .filter(|own| own.len() >= RETOLD_WORDS),
            );
            self.told_clauses
                .extend(text_clauses.into_iter().filter(|c| told_clause(c)));
            let mut rest = text;
            while !rest.trim().is_empty() {
                let cut = first_sentence_end(rest).unwrap_or(rest.len());
                let start = first_words(&rest[..cut]);
                if start.len() == SAME_START_WORDS {
                    self.told_before.push(start);
                }
                self.told_clause_texts.extend(
                    clause_spans(&rest[..cut])
                        .into_iter()
                        .map(|(_, clause)| words_of(clause))
                        .filter(|words| words.len() >= 2),
                );
                rest = &rest[cut..];
            }
        }
        self
    }

    /// Refuses any sentence of the model's own words that repeats a run of
    /// `decided`, the rules' words for this turn's outcomes: the opening
    /// tells them, and the model copied them after it ("…, and it goes better
    /// than you could have hoped: a triumph — it succeeds brilliantly").
    pub fn decided<'a>(mut self, decided: impl IntoIterator<Item = &'a str>) -> SentenceStream {
        for line in decided {
            self.told_runs.extend(
                words_of(line)
                    .windows(SAME_RUN_WORDS)
                    .filter(|run| says_something_of_its_own(run))
                    .map(<[String]>::to_vec),
            );
        }
        self
    }

    /// Releases `opening` at once as the start of the first sentence: words
    /// the rules wrote, certain before the model says anything. The pieces
    /// pushed next continue that sentence.
    pub fn opened_with(mut self, opening: &str) -> SentenceStream {
        self.text.clear();
        self.text_own.clear();
        self.text_negates = false;
        self.text_quotes = Quotes::default();
        self.tell(opening.trim_start());
        self.opened = true;
        self.opening_sentences = sentence_ends(opening.trim(), true).len();
        self
    }

    /// Whether no whole sentence has been released (an opening alone is not one).
    pub fn no_sentence_yet(&self) -> bool {
        self.told == 0
    }

    /// Whether the first sentence was refused (so nothing will be told).
    pub fn turned_down(&self) -> bool {
        self.closed && self.told == 0
    }

    /// Gives the story's text so far (scenario, earlier turns, the action,
    /// what the rules decided): with [`Limit::known_people_only`] a sentence
    /// may name only the kinds of person it names.
    pub fn grounded_in(mut self, story: &str) -> SentenceStream {
        self.known = story.split_whitespace().map(singular).collect();
        self.known.sort();
        self.known.dedup();
        self
    }

    /// Refuses any sentence that tells the checked deed `deed` the other way
    /// round from `verdict` ("…, but it will not give, and the door slides
    /// open"): the rules decided, the prose only tells it.
    pub fn keeping_to(mut self, check: Option<(String, Verdict)>) -> SentenceStream {
        self.failed_deed_words = check
            .as_ref()
            .filter(|(_, verdict)| !verdict.succeeded())
            .map(|(deed, _)| own_words(deed));
        self.check = check;
        self
    }

    /// Lets the first sentence repeat earlier turns' words: for a last try,
    /// when a repeat is the lesser fault than no prose of the model's at
    /// all. Every other check still holds, and later sentences may not repeat.
    pub fn last_chance(mut self) -> SentenceStream {
        self.repeats_allowed_first = true;
        self
    }

    /// Lets the model's first clause after the opening add nothing to it:
    /// for a model asked again, whose answers then mostly told the opening
    /// back in the world's words ("…, and you go unseen, and the shadows of
    /// the alley hide you") — the lesser fault than no prose of its own.
    /// Later clauses that add nothing are still cut.
    pub fn asked_again(mut self) -> SentenceStream {
        self.idle_allowed_first = true;
        self
    }

    /// Where the clauses of `sentence` start that add nothing: to what was
    /// told ([`idle_clauses`]), word for word to an earlier turn (a later
    /// clause only), or, after a failed check, to its failure
    /// ([`failure_told_again`]).
    fn idle_in(&self, sentence: &str) -> Idle {
        let clauses = clauses_read(sentence);
        let mut at = idle_clauses_after(&self.text_own, self.text_negates, &clauses);
        let said_before = |c: &&Clause| self.told_clause_texts.contains(&c.words);
        let said_first = clauses.first().is_some_and(|c| said_before(&c));
        at.extend(
            clauses
                .iter()
                .filter(|c| c.joint > 0)
                .filter(said_before)
                .map(|c| c.joint),
        );
        let failure = self
            .failed_deed_words
            .as_ref()
            .map(|named| failure_told_again(named, &clauses))
            .unwrap_or_default();
        let failure_first = failure.first() == Some(&0);
        at.extend(failure);
        at.sort_unstable();
        at.dedup();
        Idle {
            at,
            failure_first,
            said_first,
        }
    }

    /// Whether a clause (its words) retells one of an earlier turn's: at
    /// least [`RETOLD_WORDS`] words of its own, all of them that clause's
    /// ("a beam of light spills out, illuminating your reflection" told, and
    /// a turn later "the light spills out and illuminates your reflection").
    fn retells(&self, clause: &[String]) -> bool {
        let own = own_of(clause);
        own.len() >= RETOLD_WORDS
            && self
                .told_clause_words
                .iter()
                .any(|told| own.is_subset(told))
    }

    /// Whether the limit refuses `sentence` as sentence number `index`,
    /// told after [`SentenceStream::text`], whose clauses starting at `idle`
    /// add nothing ([`idle_clauses`]).
    fn refuses(&self, index: usize, sentence: &str, idle: &Idle) -> bool {
        // The model's sentence `index` is the answer's sentence `at`: the
        // rules' whole sentences come first, and after a whole opening the
        // model's first sentence is a later one.
        let at = index + self.opening_sentences;
        let words = quoted_words(sentence, self.text_quotes.open().is_some());
        let repeated = at > 0 && self.told_before.contains(&first_words(sentence));
        // The model's own words: all of a later sentence, the end of an opened first one.
        let own = at > 0 || (self.opened && !self.repeats_allowed_first);
        let phrased = |run: &[String]| {
            self.told_phrasings
                .get(run)
                .is_some_and(|&turns| turns >= SAME_PHRASING_TURNS)
        };
        let echoed = own && {
            let sentence_clauses = clauses(sentence);
            let (starts, phrasing_starts) = clause_starts(&sentence_clauses);
            words_of(sentence)
                .windows(SAME_RUN_WORDS)
                .any(|run| self.told_runs.contains(run) || phrased(run))
                || starts.iter().any(|s| self.told_clause_starts.contains(s))
                || sentence_clauses.iter().any(|c| {
                    self.told_clauses.iter().any(|told| c.starts_with(told)) || self.retells(c)
                })
                || phrasing_starts.iter().any(|s| phrased(s))
        };
        // The model's first clause adds nothing to what this answer told
        // ("…called Senna, and | you remember that she is called Senna").
        let idle_first = idle.at.first() == Some(&0);
        let failure_first = idle.failure_first;
        let said_first = idle.said_first;
        let idle = (at > 0 || (self.opened && !self.idle_allowed_first)) && idle_first;
        // The model's first clause tells the failure the rules told: refused
        // on every try but the last, since a retry steered to the world
        // mostly finds what follows from it.
        let failure_again =
            (at > 0 || (self.opened && !self.repeats_allowed_first)) && failure_first;
        // The rules' whole sentences count toward the most, but the model
        // may always add one of its own.
        let past_most = index > 0 && self.limit.most.is_some_and(|most| at >= most);
        let acts =
            self.limit.leave_the_deeds_to_the_player && at > 0 && acts_for_the_player(sentence);
        let stranger = self.limit.known_people_only && brings_in_someone(sentence, &self.known);
        let contra = self
            .check
            .as_ref()
            .is_some_and(|(deed, verdict)| contradicts(deed, *verdict, sentence));
        // Past a plain outcome (no critical twist), no catastrophe the story
        // has not told: the rules decide how much a deed changes.
        let overstated = !self
            .check
            .as_ref()
            .is_some_and(|(_, verdict)| verdict.twist().is_some())
            && escalates(sentence, &self.known);
        // Past the player's own deed (told by the rules' opening, or by the
        // first sentence of a model that writes it all), no words of theirs.
        let speaks = self.limit.leave_the_deeds_to_the_player
            && (at > 0 || self.opened)
            && speaks_for_the_player(&words);
        let as_i = speaks_as_i(&words);
        // A later sentence of the model's that only tells what you are.
        let vacant = index > 0 && tells_only_what_you_are(sentence);
        // Its first clause word for word an earlier turn's (a later one is
        // cut, see `idle_in`).
        let said_before = own && said_first;
        // Talk of the story may have begun in what was told before it.
        let meta = talks_of_the_story(&self.text, sentence);
        let cut_short = ends_cut_short(sentence);
        repeated
            || echoed
            || idle
            || failure_again
            || past_most
            || acts
            || stranger
            || contra
            || overstated
            || speaks
            || as_i
            || vacant
            || said_before
            || meta
            || cut_short
            || says_nothing(&words)
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
        match releasable_end(&self.held, false) {
            Some(end) => self.release(end),
            None => String::new(),
        }
    }

    /// Ends the stream: a sentence ended by the end of the text is released;
    /// an unfinished one is dropped — unless nothing was released yet, when
    /// it is released with a full stop so that there is an answer at all. A
    /// last sentence that trails off in an ellipsis is always dropped.
    /// A quotation the told text leaves open is closed.
    pub fn finish(&mut self) -> String {
        let mut out = if self.closed {
            String::new()
        } else {
            self.finish_sentences()
        };
        out.push_str(&self.close_quotation());
        out
    }

    /// [`SentenceStream::finish`]'s sentences.
    fn finish_sentences(&mut self) -> String {
        // A last sentence that trails off ("and the Drowned Lan...") was cut
        // by the model itself: it is dropped, even when it is the only one.
        if let Some(end) = releasable_end(&self.held, true) {
            let out = self.release(end);
            self.held.clear();
            return out;
        }
        if trails_off(&self.held) {
            self.held.clear();
            return String::new();
        }
        let rest = std::mem::take(&mut self.held);
        let rest = without_a_loose_end(&rest);
        if self.told == 0 && !rest.is_empty() {
            if self.refuses(0, rest, &self.idle_in(rest)) {
                self.closed = true;
                return String::new();
            }
            let out = format!("{rest}.");
            self.tell(&out);
            self.told += 1;
            return out;
        }
        String::new()
    }

    /// The closing mark of a quotation the told text leaves open, now told
    /// too (empty when none is open): a stream closed after a sentence
    /// inside a quotation ends it there.
    fn close_quotation(&mut self) -> String {
        let Some(closer) = self.text_quotes.open() else {
            return String::new();
        };
        let closer = closer.to_string();
        self.tell(&closer);
        closer
    }

    /// Adds `piece` to the told text.
    fn tell(&mut self, piece: &str) {
        self.text.push_str(piece);
        self.text_own.extend(own_words(piece));
        self.text_negates |= negates(piece);
        self.text_quotes.add(piece);
    }

    /// Everything released so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether anything has been released.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Releases the sentences in `held[..end]` the limit allows, up to the
    /// first it refuses (which closes the stream).
    fn release(&mut self, end: usize) -> String {
        let ready: String = self.held.drain(..end).collect();
        let mut out = String::new();
        let mut rest = ready.as_str();
        while !rest.trim().is_empty() {
            let cut = first_sentence_end(rest).unwrap_or(rest.len());
            let (sentence, after) = rest.split_at(cut);
            let idle = self.idle_in(sentence);
            if self.refuses(self.told, sentence, &idle) {
                self.closed = true;
                self.held.clear();
                out.push_str(&self.close_quotation());
                break;
            }
            // A later clause of the model's that adds nothing ends the
            // sentence before it, and the model's words after it are not
            // told either. (A first sentence with no opening is the model's
            // whole: a local model's own start of it stays.)
            let models_clauses = self.opened || self.told > 0;
            let kept = idle
                .at
                .into_iter()
                .find(|&at| at > 0 && models_clauses)
                .and_then(|at| ended_at(&self.text_quotes, sentence, at));
            let sentence = kept.as_deref().unwrap_or(sentence);
            let sentence = if self.text.is_empty() {
                sentence.trim_start()
            } else {
                sentence
            };
            self.tell(sentence);
            out.push_str(sentence);
            self.told += 1;
            if kept.is_some() {
                self.closed = true;
                self.held.clear();
                out.push_str(&self.close_quotation());
                break;
            }
            rest = after;
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
    sentence_ends(held, true).into_iter().rev().find(|&e| {
        let last = held[e..].trim().is_empty();
        !(last && trailing) && (at_end || e < held.len())
    })
}

/// Whether `text` ends in an ellipsis ("Lan...", "Lan…\""), closing quotes aside.
fn trails_off(text: &str) -> bool {
    let end = text.trim_end().trim_end_matches(CLOSERS);
    end.ends_with("...") || end.ends_with('…')
}

/// Words a cut-off sentence may not end on ("…, and").
const LOOSE_ENDS: [&str; 14] = [
    "and", "but", "or", "so", "then", "while", "as", "with", "the", "a", "an", "to", "of", "your",
];

/// Words no sentence ends on: what they begin is missing ("…, and you are
/// unable.", "you see the.").
const CUT_SHORT: [&str; 11] = [
    "and", "but", "or", "the", "a", "an", "to", "of", "your", "unable", "able",
];

/// Whether `sentence`, of two words or more, stops before what its last
/// word begins ([`CUT_SHORT`]).
fn ends_cut_short(sentence: &str) -> bool {
    let end = sentence
        .trim_end()
        .trim_end_matches(CLOSERS)
        .trim_end_matches(SENTENCE_ENDS)
        .trim_end_matches(CLOSERS);
    let mut words = end.split_whitespace().rev();
    let last = words.next().unwrap_or("");
    words.next().is_some() && CUT_SHORT.contains(&last.to_lowercase().as_str())
}

/// `text` without the punctuation and joining words a cut left at its end
/// ("you see the lamp room, and" → "you see the lamp room").
fn without_a_loose_end(text: &str) -> &str {
    let mut rest = text;
    loop {
        rest = rest
            .trim_end()
            .trim_end_matches([',', ';', ':', '-', '—'])
            .trim_end();
        let last_word = rest.rsplit(char::is_whitespace).next().unwrap_or("");
        if last_word.is_empty() || !LOOSE_ENDS.contains(&last_word.to_lowercase().as_str()) {
            return rest;
        }
        rest = &rest[..rest.len() - last_word.len()];
    }
}

/// How many first words make two sentences start alike.
const SAME_START_WORDS: usize = 5;

/// How many words in a row make a sentence repeat an earlier turn's.
const SAME_RUN_WORDS: usize = 5;

/// How many earlier turns must have told a run of mostly function words
/// before a sentence may not tell it again: once it is a way of speaking
/// ("you are left with a"), turn after turn a loop ("you are not the one
/// …, but as a woman in a tavern").
const SAME_PHRASING_TURNS: usize = 2;

/// Words any sentence may share with another: a run of these and one other
/// word ("you are left with a") is a way of speaking, not a repeat.
const FUNCTION_WORDS: [&str; 44] = [
    "a", "an", "the", "and", "but", "or", "so", "to", "of", "in", "on", "at", "by", "for", "from",
    "with", "into", "as", "is", "are", "was", "were", "be", "been", "it", "it's", "its", "you",
    "you're", "your", "he", "she", "they", "them", "their", "his", "her", "that", "this", "there",
    "have", "has", "had", "not",
];

/// Whether a run of words holds at least two words of its own (not
/// [`FUNCTION_WORDS`]): only such runs make a repeat.
fn says_something_of_its_own(run: &[String]) -> bool {
    run.iter()
        .filter(|w| !FUNCTION_WORDS.contains(&w.as_str()))
        .count()
        >= 2
}

/// Whether `word` (lower case) is a clause's own: not a function word, nor a
/// word of being and perceiving.
fn is_own(word: &str) -> bool {
    !FUNCTION_WORDS.contains(&word) && !YOU_MAY.contains(&word)
}

/// How many first words make two clauses start alike.
const SAME_CLAUSE_START_WORDS: usize = 4;

/// Where a sentence ends and the next one's first clause starts.
const SENTENCE_JOINTS: [&str; 3] = [". ", "! ", "? "];

/// Where a clause starts inside a sentence.
const INNER_JOINTS: [&str; 6] = [": ", "; ", ", and ", ", but ", ", so ", ", then "];

/// How `clauses` start (their first [`SAME_CLAUSE_START_WORDS`]
/// words): those holding two words of their own ("you're not sure if": a
/// small model began seven turns of twelve with it, each going on another
/// way), then those holding one, a way of speaking once and a loop when turn
/// after turn begins with it ("you're left with the door's own end", "…
/// the shore's end"). Function words and the words of being and perceiving
/// after "you" ("you can see the") are not a clause's own.
fn clause_starts(clauses: &[Vec<String>]) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut starts = (Vec::new(), Vec::new());
    for words in clause_openings(clauses) {
        let own = words.iter().filter(|w| is_own(w)).count();
        match own {
            0 => {}
            1 => starts.1.push(words),
            _ => starts.0.push(words),
        }
    }
    starts
}

/// The first [`SAME_CLAUSE_START_WORDS`] words of each of `clauses`
/// (clauses shorter than that have none).
fn clause_openings(clauses: &[Vec<String>]) -> Vec<Vec<String>> {
    clauses
        .iter()
        .filter(|words| words.len() >= SAME_CLAUSE_START_WORDS)
        .map(|words| words[..SAME_CLAUSE_START_WORDS].to_vec())
        .collect()
}

/// The words of each clause of `text`, cut after a sentence end or a joint.
fn clauses(text: &str) -> Vec<Vec<String>> {
    let mut marked = text.to_string();
    for joint in SENTENCE_JOINTS.iter().chain(&INNER_JOINTS) {
        marked = marked.replace(joint, &format!("{}\n", joint.trim_end()));
    }
    marked
        .split('\n')
        .map(words_of)
        .filter(|words| !words.is_empty())
        .collect()
}

/// Whether an earlier turn's clause is one no later clause may begin with:
/// three words or more, two of them its own ("the light flickers" told in
/// the first turn and "the light flickers again" in the third). A shorter
/// one, or one of function words, is a way of speaking.
fn told_clause(words: &[String]) -> bool {
    words.len() >= 3 && words.iter().filter(|w| is_own(w)).count() >= 2
}

/// A clause's words of its own: not [`FUNCTION_WORDS`], nor the words of
/// being and perceiving ([`YOU_MAY`]), each by its [`stem`].
pub(crate) fn own_words(text: &str) -> HashSet<String> {
    own_of(&words_of(text))
}

/// [`own_words`] of words already split by [`words_of`].
fn own_of(words: &[String]) -> HashSet<String> {
    words
        .iter()
        .filter(|w| !FUNCTION_WORDS.contains(&w.as_str()))
        .map(|w| stem(w))
        .filter(|w| !w.is_empty() && !YOU_MAY_STEMS.contains(w))
        .collect()
}

/// A word by its English stem, irregular plurals first made singular:
/// "illuminates", "illuminating" and "illuminate" are one, as are "spills"
/// and "spilled", "men" and "man". Only for telling words apart, never shown.
fn stem(word: &str) -> String {
    static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));
    ENGLISH.stem(&singular(word)).into_owned()
}

/// The stems of [`YOU_MAY`].
static YOU_MAY_STEMS: LazyLock<HashSet<String>> =
    LazyLock::new(|| YOU_MAY.iter().map(|w| stem(w)).collect());

/// How many words of its own make a clause that may not retell an earlier
/// turn's: fewer ("the door opens") come back in any story.
const RETOLD_WORDS: usize = 3;

/// Where the clauses of `sentence` start that add nothing to `before` (what
/// this answer told so far) and to the sentence's clauses before them —
/// every word of their own told already ("…is called Senna, and you
/// remember that she is called Senna"): 0 for its first clause, else the
/// byte index of the joint before the idle one, in order. A clause is idle
/// only with two words of its own or more and no new negation: "the guard
/// is not there" tells something new with words told already, but after
/// "…, but it will not give", "the door will not open" does not. A later
/// clause that only tells what you are ([`tells_only_what_you_are`]) adds
/// nothing either. (A first one is left to [`SentenceStream::refuses`]:
/// refusing a first sentence for it asks the model again, and a small model
/// writes "you're …" so often that a turn took twice the tries.)
fn idle_clauses(before: &str, sentence: &str) -> Vec<usize> {
    idle_clauses_after(&own_words(before), negates(before), &clauses_read(sentence))
}

/// [`idle_clauses`] after a text whose words of their own are `before_own`
/// and which holds a negation when `before_negates`.
fn idle_clauses_after(
    before_own: &HashSet<String>,
    before_negates: bool,
    clauses: &[Clause],
) -> Vec<usize> {
    // The sentence's own words told so far, beside `before_own`.
    let mut added: HashSet<&str> = HashSet::new();
    let mut told_negation = before_negates;
    let mut idle = Vec::new();
    for c in clauses {
        let told_already = c.own.len() >= 2
            && (told_negation || !c.negates)
            && c.own
                .iter()
                .all(|w| before_own.contains(w) || added.contains(w.as_str()));
        if told_already || (c.joint > 0 && c.only_what_you_are) {
            idle.push(c.joint);
        }
        added.extend(c.own.iter().map(String::as_str));
        told_negation |= c.negates;
    }
    idle
}

/// One clause of a sentence, read once for every check on it.
struct Clause {
    /// The byte index of the joint before it (0 for the first).
    joint: usize,
    /// Its words ([`words_of`]).
    words: Vec<String>,
    /// Its words of their own ([`own_of`]).
    own: HashSet<String>,
    /// It says something is not so ([`negates`]).
    negates: bool,
    /// [`tells_only_what_you_are`].
    only_what_you_are: bool,
}

/// The clauses of `sentence` ([`clause_spans`]), each read.
fn clauses_read(sentence: &str) -> Vec<Clause> {
    clause_spans(sentence)
        .into_iter()
        .map(|(joint, clause)| {
            let words = words_of(clause);
            Clause {
                joint,
                own: own_of(&words),
                negates: negates_in(&words),
                only_what_you_are: only_what_you_are(&words),
                words,
            }
        })
        .collect()
}

/// The clauses of a sentence that add nothing ([`SentenceStream::idle_in`]).
#[derive(Debug, Default)]
struct Idle {
    /// Where they start: 0 for the first clause, else the byte index of the
    /// joint before it, in order.
    at: Vec<usize>,
    /// The first clause tells a failed check's failure again.
    failure_first: bool,
    /// The first clause is word for word one an earlier turn told.
    said_first: bool,
}

/// The clauses of one sentence, each with the byte index of the joint
/// before it (0 for the first): cut at the [`INNER_JOINTS`].
fn clause_spans(sentence: &str) -> Vec<(usize, &str)> {
    let mut joints: Vec<(usize, usize)> = INNER_JOINTS
        .iter()
        .flat_map(|j| sentence.match_indices(j).map(|(at, j)| (at, j.len())))
        .collect();
    joints.sort_unstable();
    let mut clauses = Vec::new();
    let (mut joint, mut from) = (0, 0);
    for (at, len) in joints {
        if at >= from {
            clauses.push((joint, &sentence[from..at]));
            (joint, from) = (at, at + len);
        }
    }
    clauses.push((joint, &sentence[from..]));
    clauses
}

/// Where the clauses of `sentence` start that tell a failed deed's failure
/// again: a negation about something the deed names (`named`: its words of
/// their own) — "the door will not allow you" after "You try to force the
/// rusted door open, but it will not give". The rules told the failure;
/// the model is to tell what follows from it.
fn failure_told_again(named: &HashSet<String>, clauses: &[Clause]) -> Vec<usize> {
    clauses
        .iter()
        .filter(|c| c.negates && !c.own.is_disjoint(named))
        .map(|c| c.joint)
        .collect()
}

/// Whether `clause` only tells what you are or feel, with at most one word
/// of its own, nothing perceived and no negation ("you're happy", "you're
/// on your own", "you feel relieved"; not "you're not alone"): it tells
/// nothing of the world, and how the player's character feels is the
/// player's to say.
fn tells_only_what_you_are(clause: &str) -> bool {
    only_what_you_are(&words_of(clause))
}

/// [`tells_only_what_you_are`] of a clause's [`words_of`].
fn only_what_you_are(words: &[String]) -> bool {
    let being = match words {
        [first, ..] if first == "you're" || first == "youre" => 1,
        [first, second, ..] if first == "you" && BEING.contains(&second.as_str()) => 2,
        _ => return false,
    };
    let rest = &words[being..];
    let perceives = rest
        .iter()
        .any(|w| YOU_MAY.contains(&w.as_str()) && !BEING.contains(&w.as_str()));
    !perceives && !has_negation(rest) && rest.iter().filter(|w| is_own(w)).count() <= 1
}

/// The verbs of being and feeling after "you" in [`tells_only_what_you_are`].
const BEING: [&str; 5] = ["are", "were", "feel", "seem", "look"];

/// Whether `clause` says something is not so ("the guard is not there"):
/// a negation adds to words told already.
fn negates(clause: &str) -> bool {
    negates_in(&words_of(clause))
}

/// [`negates`] of a clause's [`words_of`].
fn negates_in(words: &[String]) -> bool {
    has_negation(words) || words.iter().any(|w| w == "nobody" || w == "none")
}

/// `sentence` ended at byte `at` with a full stop — `None` when that would
/// leave a quotation open, counting from `before` (the quotation marks of
/// what was told ahead of it).
fn ended_at(before: &Quotes, sentence: &str, at: usize) -> Option<String> {
    let mut quotes = before.clone();
    quotes.add(&sentence[..at]);
    if quotes.open().is_some() {
        return None;
    }
    let trailing = &sentence[sentence.trim_end().len()..];
    Some(format!("{}.{trailing}", sentence[..at].trim_end()))
}

/// `text` with each sentence ended before its first clause that adds
/// nothing to what came before, and without the sentences that add nothing
/// at all: a memory told back without the small model's echoes. Unlike the
/// stream, later sentences that add something stay.
pub(crate) fn without_idle_clauses(text: &str) -> String {
    let mut kept = String::new();
    let mut start = 0;
    let ends = sentence_ends(text, true);
    let last = (ends.last() != Some(&text.len())).then_some(text.len());
    for end in ends.into_iter().chain(last) {
        let sentence = &text[start..end];
        start = end;
        match idle_clauses(&kept, sentence).first() {
            Some(0) => {}
            Some(&at) => {
                let cut = ended_at(&Quotes::of(&kept), sentence, at);
                kept.push_str(cut.as_deref().unwrap_or(sentence));
            }
            None => kept.push_str(sentence),
        }
    }
    kept.trim().to_string()
}

/// The quotation marks of a text, counted (double quotes and guillemets; a
/// single quote may be an apostrophe), so the stream knows whether a
/// quotation is open without reading its text again.
#[derive(Debug, Default, Clone)]
struct Quotes {
    straight: usize,
    curly_open: usize,
    curly_close: usize,
    guillemet_open: usize,
    guillemet_close: usize,
}

impl Quotes {
    fn of(text: &str) -> Quotes {
        let mut quotes = Quotes::default();
        quotes.add(text);
        quotes
    }

    fn add(&mut self, text: &str) {
        for c in text.chars() {
            match c {
                '"' => self.straight += 1,
                '“' => self.curly_open += 1,
                '”' => self.curly_close += 1,
                '«' => self.guillemet_open += 1,
                '»' => self.guillemet_close += 1,
                _ => {}
            }
        }
    }

    /// The mark that closes the quotation left open, if one is.
    fn open(&self) -> Option<char> {
        if self.straight % 2 == 1 {
            Some('"')
        } else if self.curly_open > self.curly_close {
            Some('”')
        } else if self.guillemet_open > self.guillemet_close {
            Some('»')
        } else {
            None
        }
    }
}

/// A text's words, without case or punctuation.
fn words_of(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.chars()
                .map(|c| if c == '’' { '\'' } else { c })
                .filter(|c| c.is_alphanumeric() || *c == '\'')
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// A sentence's first words, without case or punctuation.
fn first_words(sentence: &str) -> Vec<String> {
    let mut words = words_of(sentence);
    words.truncate(SAME_START_WORDS);
    words
}

/// The byte index just after the first sentence end in `s` (closing quotes
/// included) that is followed by white space or ends `s`.
fn first_sentence_end(s: &str) -> Option<usize> {
    sentence_ends(s, true).first().copied()
}

/// The byte index just after each sentence end in `s` (closing quotes
/// included) that is followed by white space — or by the end of the text,
/// when `at_end`.
pub(crate) fn sentence_ends(s: &str, at_end: bool) -> Vec<usize> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if SENTENCE_ENDS.contains(&chars[i].1) {
            let mut j = i + 1;
            while j < chars.len()
                && (SENTENCE_ENDS.contains(&chars[j].1) || CLOSERS.contains(&chars[j].1))
            {
                j += 1;
            }
            let end = chars.get(j).map_or(s.len(), |(b, _)| *b);
            let followed_by_space = chars.get(j).is_some_and(|(_, c)| c.is_whitespace());
            // "Dr." and its like end no sentence (core `narration::TITLES`).
            let word = s[..chars[i].0]
                .rsplit(char::is_whitespace)
                .next()
                .unwrap_or("");
            let title = chars[i].1 == '.' && TITLES.contains(&word.to_lowercase().as_str());
            if !title && (followed_by_space || (at_end && j == chars.len())) {
                found.push(end);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    // The checks on one sentence's words, from the sentence itself.
    fn speaks_for_the_player(sentence: &str) -> bool {
        super::speaks_for_the_player(&quoted_words(sentence, false))
    }
    fn says_nothing(sentence: &str) -> bool {
        super::says_nothing(&quoted_words(sentence, false))
    }
    fn speaks_as_i(sentence: &str) -> bool {
        super::speaks_as_i(&quoted_words(sentence, false))
    }
    fn clause_starts(text: &str) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
        super::clause_starts(&clauses(text))
    }

    fn stream(pieces: &[&str]) -> (Vec<String>, String) {
        let mut s = SentenceStream::new();
        let mut shown: Vec<String> = pieces.iter().map(|p| s.push(p)).collect();
        shown.push(s.finish());
        assert_eq!(shown.concat(), s.text());
        (shown, s.text().to_string())
    }

    #[test]
    fn a_last_sentence_that_trails_off_is_not_told() {
        let mut s = SentenceStream::new().opened_with("You sleep until dawn, and");
        assert_eq!(
            s.push(" the bells ring. Then the Drowned Lan..."),
            " the bells ring."
        );
        assert_eq!(s.finish(), "");
        assert_eq!(s.text(), "You sleep until dawn, and the bells ring.");
        // Streamed with the white space after it, then the end.
        let mut spaced = SentenceStream::new().opened_with("You sleep until dawn, and");
        assert_eq!(
            spaced.push(" the bells ring. The Drowned Lan... "),
            " the bells ring."
        );
        assert_eq!(spaced.finish(), "");
        let mut only = SentenceStream::new().opened_with("You sleep until dawn, and");
        assert_eq!(only.push(" the Drowned Lan…"), "");
        assert_eq!(only.finish(), "");
        // An ellipsis inside the text is a pause, not an end.
        let mut pause = SentenceStream::new().opened_with("You wait, and");
        pause.push(" nothing... then a bell rings.");
        pause.finish();
        assert_eq!(pause.text(), "You wait, and nothing... then a bell rings.");
    }

    #[test]
    fn a_clause_an_earlier_turn_told_word_for_word_is_not_told_again() {
        let told = |earlier: &str, answer: &str| {
            let mut s = SentenceStream::new()
                .told_before([earlier])
                .opened_with("You light a fire, and");
            s.push(answer);
            s.finish();
            s.text().to_string()
        };
        let earlier = "You wonder what the light is, and you're not alone.";
        assert_eq!(told(earlier, " you're not alone."), "You light a fire, and");
        assert_eq!(
            told(earlier, " you're warm."),
            "You light a fire, and you're warm."
        );
        assert_eq!(
            told("You wave, and the man waves back.", " you're not alone."),
            "You light a fire, and you're not alone."
        );
        // A later clause said before is cut.
        assert_eq!(
            told(earlier, " the smoke rises, and you're not alone."),
            "You light a fire, and the smoke rises."
        );
    }

    #[test]
    fn the_rules_words_for_the_outcome_are_not_told_again() {
        let opening =
            "You force the rusted door open, and it goes better than you could have hoped:";
        let told = |answer: &str| {
            let mut s = SentenceStream::new()
                .decided(["Force the rusted door open: a triumph — it succeeds brilliantly."])
                .opened_with(opening);
            s.push(answer);
            s.finish();
            s.text().to_string()
        };
        assert_eq!(
            told(" a triumph — it succeeds brilliantly, you are now the lighthouse."),
            opening
        );
        assert_eq!(
            told(" the door bursts wide, and salt wind floods the stair."),
            format!("{opening} the door bursts wide, and salt wind floods the stair.")
        );
    }

    #[test]
    fn a_sentence_ending_on_what_begins_more_is_not_told() {
        let (out, _) = stream(&[
            "You try to shoot, but you miss, and the wolf runs. You are unable.",
            " It howls.",
        ]);
        assert_eq!(
            out.concat(),
            "You try to shoot, but you miss, and the wolf runs."
        );
        assert!(ends_cut_short("You see the."));
        assert!(ends_cut_short("\"Give it to.\""));
        assert!(!ends_cut_short("You are able to see the hill."));
        assert!(!ends_cut_short("He nods, and that is that."));
    }

    #[test]
    fn a_cut_off_first_sentence_ends_without_a_loose_end() {
        let mut s = SentenceStream::new().opened_with("You climb the stairs, and");
        assert_eq!(s.push(" you see the lamp room, and the"), "");
        assert_eq!(s.finish(), " you see the lamp room.");
        assert_eq!(without_a_loose_end("and"), "");
    }

    #[test]
    fn a_way_of_speaking_may_come_back_once_but_not_turn_after_turn() {
        let once = ["You look up, and you are in a room with a fire."];
        let mut s = SentenceStream::new()
            .told_before(once)
            .opened_with("You sit down, and");
        assert_eq!(
            s.push(" you are in a room of old maps. "),
            " you are in a room of old maps."
        );
        let twice = [
            "You look up, and you are in a room with a fire.",
            "You wait, and you are in a room by the ford.",
        ];
        let mut s = SentenceStream::new()
            .told_before(twice)
            .opened_with("You sit down, and");
        assert_eq!(s.push(" you are in a room of old maps. "), "");
        // Unless it is the model's last chance to tell the turn at all.
        let mut s = SentenceStream::new()
            .told_before(twice)
            .opened_with("You sit down, and")
            .last_chance();
        assert_eq!(
            s.push(" you are in a room of old maps. "),
            " you are in a room of old maps."
        );
    }

    #[test]
    fn a_clause_may_not_start_as_one_of_an_earlier_turn() {
        let earlier = ["You try to slip upstairs, but it does not work, and you're not sure if it's the right thing to do."];
        let mut s = SentenceStream::new()
            .told_before(earlier)
            .opened_with("You try to punch the ferryman, but you miss, and");
        assert_eq!(s.push(" you're not sure if he will forgive you. "), "");
        // A clause of function words and one other is a way of speaking.
        let mut s = SentenceStream::new()
            .told_before(["You wait, and you are in a room with a fire."])
            .opened_with("You sit down, and");
        assert_eq!(
            s.push(" you are in a hall of maps. "),
            " you are in a hall of maps."
        );
        // One that is function words but one, once two earlier turns began with it.
        let left = [
            "You try, but you miss, and you're left with the door's own end.",
            "You climb, and you make it, and you're left with the lamp room's end.",
        ];
        let mut s = SentenceStream::new()
            .told_before(left)
            .opened_with("You run, but you are too slow, and");
        assert_eq!(s.push(" you're left with the shore's end. "), "");
        let mut s = SentenceStream::new()
            .told_before(left[..1].iter().copied())
            .opened_with("You run, but you are too slow, and");
        assert_eq!(
            s.push(" you're left with the shore's end. "),
            " you're left with the shore's end."
        );
        assert_eq!(
            clause_starts("You sit down, and the fire dies. Rain falls on the roof.").0,
            [
                ["you", "sit", "down", "and"],
                ["rain", "falls", "on", "the"]
            ]
        );
        // Being and perceiving are not a clause's own words.
        assert!(clause_starts("The fog lifts, and you can see the sea.")
            .0
            .iter()
            .all(|start| start[0] != "you"));
    }

    #[test]
    fn a_sentence_escalating_past_a_plain_outcome_is_not_told() {
        let story = "Action: I try to force the rusted door open.";
        let opening = "You try to force the rusted door open, but it will not give, and";
        let told = |verdict: Verdict, piece: &str| {
            let mut s = SentenceStream::new()
                .grounded_in(story)
                .opened_with(opening)
                .keeping_to(Some(("force the rusted door open".into(), verdict)));
            let shown = s.push(piece);
            (shown, s.turned_down())
        };
        let flames = " a great storm of flames erupts. The";
        assert_eq!(told(Verdict::Failure, flames), (String::new(), true));
        // A proportionate mishap is told; so is a catastrophe the rules' twist allows.
        assert_eq!(
            told(Verdict::Failure, " the hinges groan. The"),
            (" the hinges groan.".to_string(), false)
        );
        assert_eq!(
            told(Verdict::CriticalFailure, flames),
            (" a great storm of flames erupts.".to_string(), false)
        );
    }

    #[test]
    fn a_sentence_telling_the_check_the_other_way_is_not_told() {
        let failed = Some(("force the rusted door open".to_string(), Verdict::Failure));
        let opening = "You try to force the rusted door open, but it will not give, and";
        let mut s = SentenceStream::new()
            .opened_with(opening)
            .keeping_to(failed.clone());
        assert_eq!(s.push(" the door slides open. Rust"), "");
        assert!(s.turned_down());
        let mut s = SentenceStream::new()
            .opened_with(opening)
            .keeping_to(failed);
        assert_eq!(
            s.push(" rust flakes onto your boots. "),
            " rust flakes onto your boots."
        );
    }

    #[test]
    fn a_failure_the_rules_told_is_not_told_again() {
        // Played: "…, but it will not give, and the door will not allow you."
        let failed = Some(("force the rusted door open".to_string(), Verdict::Failure));
        let opening = "You try to force the rusted door open, but it will not give, and";
        for again in [
            " the door will not allow you. ",
            " the door will not be able to open. ",
            " you cannot open it. ",
        ] {
            let mut s = SentenceStream::new()
                .opened_with(opening)
                .keeping_to(failed.clone());
            assert_eq!(s.push(again), "", "{again}");
            assert!(s.turned_down(), "{again}");
        }
        // Asked again it is still refused; on the last try it is the lesser
        // fault than no words of the model's.
        let again = " the door will not allow you. ";
        let mut s = SentenceStream::new()
            .opened_with(opening)
            .keeping_to(failed.clone())
            .asked_again();
        assert_eq!(s.push(again), "");
        let mut s = SentenceStream::new()
            .opened_with(opening)
            .keeping_to(failed.clone())
            .asked_again()
            .last_chance();
        assert_eq!(s.push(again), again.trim_end());
        // A later clause saying it again is cut; what follows from the
        // failure, even with a negation, is told.
        let mut s = SentenceStream::new()
            .opened_with(opening)
            .keeping_to(failed.clone());
        assert_eq!(
            s.push(" rust flakes off, and the door does not move. "),
            " rust flakes off."
        );
        let mut s = SentenceStream::new()
            .opened_with(opening)
            .keeping_to(failed);
        assert_eq!(s.push(" nobody answers. "), " nobody answers.");
        // After a success, nothing is held to it.
        let done = Some(("force the rusted door open".to_string(), Verdict::Success));
        let mut s = SentenceStream::new()
            .opened_with("You force the rusted door open, and")
            .keeping_to(done);
        assert_eq!(
            s.push(" the door does not creak. "),
            " the door does not creak."
        );
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
        let mut s =
            SentenceStream::limited(Limit::SMALL_MODEL).opened_with("You try to climb, but");
        assert_eq!(s.text(), "You try to climb, but");
        assert!(!s.is_empty() && s.no_sentence_yet());
        assert_eq!(s.push(" the stones"), "");
        assert_eq!(s.push(" crumble. You draw"), " the stones crumble.");
        assert!(!s.no_sentence_yet());
        s.finish();
        assert_eq!(s.text(), "You try to climb, but the stones crumble.");
        // Cut off before its sentence ended: the sentence is closed with a full stop.
        let mut cut = SentenceStream::new().opened_with("You look around, and");
        cut.push(" see a cold hearth,");
        assert_eq!(cut.finish(), " see a cold hearth.");
        assert_eq!(cut.text(), "You look around, and see a cold hearth.");
    }

    #[test]
    fn a_negation_told_again_adds_nothing() {
        let opening = "You try to force the rusted door open, but it will not give, and";
        assert_eq!(idle_clauses(opening, " the door will not open."), [0]);
        // A negation after a success is news.
        assert!(idle_clauses(
            "You sneak past the gate guard, and",
            " the gate guard does not stir."
        )
        .is_empty());
    }

    #[test]
    fn a_clause_that_only_tells_what_you_are_ends_the_prose_before_it() {
        // Played: "…, and you find something, and you're happy."
        for (added, kept) in [
            (" you find a ring, and you're happy. ", " you find a ring."),
            (
                " the raider falls, and you are on your own. ",
                " the raider falls.",
            ),
            (" the wind dies, and you feel relieved. ", " the wind dies."),
        ] {
            let mut s = SentenceStream::new().opened_with("You search the body, and");
            assert_eq!(s.push(added), kept, "{added}");
        }
        // What you perceive, or are in, or have done to you, is the world's.
        for added in [
            " you feel a cold wind on your neck. ",
            " you are in a narrow cave. ",
            " you are seized by the guards. ",
            " you hear a bell. ",
        ] {
            let mut s = SentenceStream::new().opened_with("You search the body, and");
            assert_eq!(s.push(added), added.trim_end(), "{added}");
        }
        // A later sentence of it alone is not told.
        let mut s = SentenceStream::new().opened_with("You search the body, and");
        assert_eq!(
            s.push(" you find a ring. You're pleased. "),
            " you find a ring."
        );
    }

    #[test]
    fn a_clause_that_adds_nothing_ends_the_prose_before_it() {
        // Played: the model told the rules' words back as its own.
        let mut echo = SentenceStream::new()
            .opened_with("You remember that the woman in grey is called Senna, and");
        assert_eq!(echo.push(" you remember that she is called Senna. "), "");
        assert!(echo.turned_down(), "its first clause adds nothing");
        // Asked again, the first clause may add nothing; a later one may not.
        let mut again = SentenceStream::new()
            .opened_with("You hide in the shadows, and you go unseen, and")
            .asked_again();
        assert_eq!(
            again.push(" the shadows hide you, and you hide in the shadows. "),
            " the shadows hide you."
        );
        // A later clause that adds nothing is cut off, and so is all after it.
        let mut later = SentenceStream::new().opened_with("You light the great lamp, and");
        let told = later.push(
            " the lamp casts a long shadow, and you see the shadow of the lamp. The sea is calm. ",
        );
        assert_eq!(told, " the lamp casts a long shadow.");
        assert_eq!(later.finish(), "");
        assert_eq!(
            later.text(),
            "You light the great lamp, and the lamp casts a long shadow."
        );
        // A later sentence that adds nothing is not told.
        let (_, text) = stream(&[
            "The door creaks open. ",
            "The door is open. ",
            "Rain falls.",
        ]);
        assert_eq!(text, "The door creaks open.");
        // Anything new is kept: a negation, the outcome of a search, another thing seen.
        let (_, text) =
            stream(&["You are spotted by the guard. The guard is not there, and you flee. "]);
        assert_eq!(
            text,
            "You are spotted by the guard. The guard is not there, and you flee."
        );
        let (_, text) = stream(&["You search the desk for the logbook, and you find it. "]);
        assert_eq!(
            text,
            "You search the desk for the logbook, and you find it."
        );
        // The same however the text comes in pieces.
        let (_, text) = stream(&["The door creaks open. The door is open. Rain falls."]);
        assert_eq!(text, "The door creaks open.");
        // A quotation is never cut open, nor one a sentence before opened.
        let quoted = "She says, \"I am Senna, and I am Senna.\"";
        assert_eq!(stream(&[quoted, " "]).1, quoted);
        let across = "She says, \"Come in. The fire is warm, and the fire is warm.\" Rain falls.";
        assert_eq!(stream(&[across]).1, across);
        // A model's own first sentence, with no opening from the rules, stays whole.
        let (_, text) = stream(&["You sneak past the gate guard, and you sneak past the guard."]);
        assert_eq!(
            text,
            "You sneak past the gate guard, and you sneak past the guard."
        );
    }

    #[test]
    fn a_memory_is_told_without_its_echoes() {
        assert_eq!(
            without_idle_clauses(
                "You remember that the woman in grey is called Senna, and you remember that \
                 she is called Senna. She is called Senna. The tide turns."
            ),
            "You remember that the woman in grey is called Senna. The tide turns."
        );
        assert_eq!(without_idle_clauses("You greet Mara."), "You greet Mara.");
        assert_eq!(
            without_idle_clauses("You greet Mara, and you greet Mara"),
            "You greet Mara."
        );
        assert_eq!(
            without_idle_clauses("You see the guard. You cannot see the guard."),
            "You see the guard. You cannot see the guard."
        );
        assert_eq!(
            without_idle_clauses(
                "You remember that the woman in grey is called Senna, and you remember that she is called Senna."
            ),
            "You remember that the woman in grey is called Senna."
        );
    }

    #[test]
    fn an_unfinished_last_sentence_is_dropped() {
        let (_, text) = stream(&["You win. The crowd roars and"]);
        assert_eq!(text, "You win.");
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

    /// The text `limit` lets through of `pieces`, in a story that already
    /// names whoever they name.
    fn limited(limit: Limit, pieces: &[&str]) -> String {
        let mut s = SentenceStream::limited(limit).grounded_in(&pieces.concat());
        let mut shown: Vec<String> = pieces.iter().map(|p| s.push(p)).collect();
        shown.push(s.finish());
        assert_eq!(shown.concat(), s.text());
        s.text().to_string()
    }

    #[test]
    fn the_rules_whole_sentences_count_toward_the_most() {
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL).opened_with(
            "You wonder who the barkeep is. You think back: you remember that he is called Oswin.",
        );
        assert_eq!(
            s.push(" The fire crackles. The barkeep smiles. "),
            " The fire crackles."
        );
        // After a whole opening the model's first sentence is a later one:
        // it may not act for the player, nor add nothing.
        for added in [" You ask him where he lives. ", " He is called Oswin. "] {
            let mut s = SentenceStream::limited(Limit::SMALL_MODEL)
                .opened_with(
                    "You wonder who he is. You think back: you remember that he is called Oswin.",
                )
                .asked_again();
            assert_eq!(s.push(added), "", "{added}");
            assert!(s.turned_down());
        }
        // An opening mid-sentence leaves the model its two.
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL).opened_with("You look around, and");
        s.push(" the fire crackles. The barkeep smiles. The door bangs. ");
        assert_eq!(
            s.text(),
            "You look around, and the fire crackles. The barkeep smiles."
        );
    }

    #[test]
    fn a_quotation_left_open_when_the_prose_ends_is_closed() {
        // Past the most sentences, inside the driver's words.
        let text = limited(
            Limit::SMALL_MODEL,
            &["You ask him, and he says, \"We ride at dawn. We rest now. Sleep.\" "],
        );
        assert_eq!(
            text,
            "You ask him, and he says, \"We ride at dawn. We rest now.\""
        );
        let text = limited(
            Limit::SMALL_MODEL,
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
    fn a_sentence_inside_a_quotation_speaks_for_whoever_opened_it() {
        // "I" inside the driver's words is the driver's, not the narrator's.
        let text = limited(
            Limit::SMALL_MODEL,
            &["You ask the way, and he says, \"North. I will take you,\" and smiles. "],
        );
        assert!(text.ends_with("and smiles."), "{text}");
        let text = limited(
            Limit::SMALL_MODEL,
            &["You ask the way, and he says, \"It is far. I will take you.\" "],
        );
        assert_eq!(
            text,
            "You ask the way, and he says, \"It is far. I will take you.\""
        );
    }

    #[test]
    fn a_small_model_tells_two_sentences_at_most() {
        let text = limited(
            Limit::SMALL_MODEL,
            &[
                "You call out, and the light flickers. Two",
                " men stare. One falls. The",
                " end.",
            ],
        );
        assert_eq!(text, "You call out, and the light flickers. Two men stare.");
        // Released in one piece or many, the same.
        let text = limited(Limit::SMALL_MODEL, &["A. B. C. D."]);
        assert_eq!(text, "A. B.");
    }

    #[test]
    fn the_prose_ends_before_a_later_sentence_acts_for_the_player() {
        for (answer, told) in [
            (
                "You try to force the door, but it is too heavy. You use your magic, and it glows.",
                "You try to force the door, but it is too heavy.",
            ),
            (
                "You push, but it holds. \"You go first,\" she says.",
                "You push, but it holds. \"You go first,\" she says.",
            ),
            (
                "You push, but it holds. You try to find a way out.",
                "You push, but it holds.",
            ),
            (
                "You plead, but he refuses. You have a bit of luck, and you get past.",
                "You plead, but he refuses.",
            ),
            (
                "You step inside, and it is dark. You see two people by the stairs.",
                "You step inside, and it is dark. You see two people by the stairs.",
            ),
            (
                "You step inside, and it is dark. You're not alone.",
                "You step inside, and it is dark. You're not alone.",
            ),
            (
                "You step inside, and it is dark. Your lantern gutters.",
                "You step inside, and it is dark. Your lantern gutters.",
            ),
        ] {
            assert_eq!(limited(Limit::SMALL_MODEL, &[answer]), told);
        }
        // The first sentence is the rules' opening and the model's end of it.
        assert_eq!(
            limited(
                Limit::HOSTED_MODEL,
                &["You draw your sword. You strike. The troll falls. It is over."]
            ),
            "You draw your sword."
        );
        assert_eq!(
            limited(
                Limit::HOSTED_MODEL,
                &["You wait. The troll falls. It is over. Dust settles."]
            ),
            "You wait. The troll falls. It is over. Dust settles."
        );
    }

    #[test]
    fn a_later_sentence_that_starts_like_an_earlier_turns_is_not_told() {
        let earlier = "You step in, and it is dark. You are in a dark room with two people.";
        let tell = |answer: &str| {
            let mut s = SentenceStream::limited(Limit::SMALL_MODEL)
                .told_before([earlier])
                .grounded_in(earlier);
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            text
        };
        assert_eq!(
            tell("You force the door, but it holds. You are in a dark room, and they stare."),
            "You force the door, but it holds."
        );
        assert_eq!(
            tell("You force the door, but it holds. Two people stare at you."),
            "You force the door, but it holds. Two people stare at you."
        );
        // The rules' opening sentence is always told, however it starts.
        assert_eq!(
            tell("You step in, and it is dark again."),
            "You step in, and it is dark again."
        );
    }

    #[test]
    fn a_clause_may_not_begin_with_a_whole_clause_of_an_earlier_turn() {
        let earlier = ["You step into the lighthouse and call out, and the light flickers."];
        let tell = |answer: &str| {
            let mut s = SentenceStream::new()
                .told_before(earlier)
                .opened_with("You wonder what you remember about the keeper, and");
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            text
        };
        assert_eq!(tell(" the light flickers again."), "");
        assert_eq!(tell(" the light flickers."), "");
        // Another clause of the same words, or a short one, is no loop.
        assert_eq!(
            tell(" the light is out, and it flickers."),
            " the light is out, and it flickers."
        );
    }

    #[test]
    fn a_clause_may_not_retell_an_earlier_turns_in_other_words() {
        // Played: the third turn told the second's light again.
        let earlier =
            ["You force the rusted door open, and a beam of light spills out, illuminating your reflection."];
        let tell = |answer: &str| {
            let mut s = SentenceStream::new().told_before(earlier).opened_with(
                "You wonder what you remember about the keeper, but nothing comes to mind, and",
            );
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            text
        };
        assert_eq!(
            tell(" the light spills out and illuminates your reflection."),
            ""
        );
        assert_eq!(
            tell(" the wind howls. Your reflection spills light out. "),
            " the wind howls."
        );
        // New words, or a short clause of told ones, are no retelling.
        assert_eq!(
            tell(" the keeper's lamp hangs cold above the stairs."),
            " the keeper's lamp hangs cold above the stairs."
        );
        assert_eq!(tell(" the light dims."), " the light dims.");
    }

    #[test]
    fn the_models_own_words_do_not_repeat_an_earlier_turns() {
        let earlier = "You run out, and the tavern is in a fantasy world.";
        let tell = |answer: &str| {
            let mut s = SentenceStream::limited(Limit::SMALL_MODEL)
                .told_before([earlier])
                .opened_with("You hide in an alley, and");
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            (text, s.turned_down())
        };
        assert_eq!(
            tell(" the tavern is in a fantasy world."),
            (String::new(), true)
        );
        assert_eq!(
            tell(" rain drips from the eaves. The tavern is in a fantasy world again."),
            (" rain drips from the eaves.".to_string(), false)
        );
        // Four words in a row are not a repeat.
        assert_eq!(
            tell(" the tavern is in sight."),
            (" the tavern is in sight.".to_string(), false)
        );
    }

    #[test]
    fn a_small_model_brings_in_no_one_the_story_has_not_met() {
        let story = "Action: I step into the lighthouse and call out to the keeper.";
        let tell = |limit: Limit, answer: &str| {
            let mut s = SentenceStream::limited(limit)
                .grounded_in(story)
                .opened_with("You step into the lighthouse and call out, and");
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            (text, s.turned_down())
        };
        // A later sentence naming strangers ends the prose before it.
        assert_eq!(
            tell(
                Limit::SMALL_MODEL,
                " the light flickers. You are in a dark room with two people, and they stare."
            ),
            (" the light flickers.".to_string(), false)
        );
        // The keeper is in the story; plurals and case count as the same word.
        assert_eq!(
            tell(
                Limit::SMALL_MODEL,
                " the Keeper answers. The keepers' lamp hums."
            ),
            (
                " the Keeper answers. The keepers' lamp hums.".to_string(),
                false
            )
        );
        // A first sentence naming a stranger tells nothing, even unfinished.
        for answer in [
            " a figure stands before you. The lamp hums.",
            " a figure stands there",
        ] {
            assert_eq!(tell(Limit::SMALL_MODEL, answer), (String::new(), true));
        }
        // A kind said of someone known brings no one in; "there is" does.
        assert!(!brings_in_someone(
            "The keeper is a kind person.",
            &["keeper".to_string()]
        ));
        assert!(brings_in_someone("There is a man at the door.", &[]));
        assert!(brings_in_someone("A man is a shadow.", &[]));
        // A hosted model may bring in whom it likes.
        assert_eq!(
            tell(Limit::HOSTED_MODEL, " a figure stands before you."),
            (" a figure stands before you.".to_string(), false)
        );
    }

    #[test]
    fn talk_of_the_story_is_not_told_even_when_the_opening_began_it() {
        assert!(talks_of_the_story("You haggle, and the", " story is over."));
        assert!(talks_of_the_story("", " The story goes on."));
        assert!(talks_of_the_story("", " \"It's all just a dream.\""));
        assert!(!talks_of_the_story("", " You dream of the sea."));
        assert!(!talks_of_the_story(
            "You haggle, and the",
            " storm is over."
        ));
        // Told before this sentence, the phrase is not this sentence's.
        assert!(!talks_of_the_story("the story is long.", " Rain falls."));
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL)
            .opened_with("You haggle with the ferryman over the fare, and the");
        assert_eq!(s.push(" story is over. "), "");
        assert!(s.turned_down());
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL)
            .opened_with("You haggle with the ferryman over the fare, and the");
        assert_eq!(s.push(" story is over"), "");
        assert_eq!(s.finish(), "");
    }

    #[test]
    fn no_one_speaks_to_say_nothing() {
        assert!(says_nothing(" the barkeep says."));
        assert!(says_nothing(" the barkeep says, and you look at him."));
        assert!(!says_nothing(" the barkeep says, \"Ferry's closed.\""));
        assert!(!says_nothing("\"Ferry's closed,\" the barkeep says."));
        assert!(!says_nothing(" you say nothing."));
        assert!(!says_nothing(" she tells you the way."));
        let mut s =
            SentenceStream::limited(Limit::SMALL_MODEL).opened_with("You sit by the fire, and");
        assert_eq!(s.push(" the barkeep says. "), "");
        assert!(s.turned_down());
        // Nor when the answer was cut short and its loose end trimmed.
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL);
        assert_eq!(s.push("The barkeep says, and"), "");
        assert_eq!(s.finish(), "");
    }

    #[test]
    fn the_narration_never_speaks_as_i() {
        assert!(speaks_as_i(
            " it succeeds brilliantly, and I am left alone."
        ));
        assert!(speaks_as_i(" I'm sure the keeper knows."));
        assert!(!speaks_as_i(" the boy says, \"I'm sorry, I was lost.\""));
        assert!(!speaks_as_i("‘I am the keeper,’ she whispers."));
        assert!(!speaks_as_i(" the ink is thick with dust."));
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL).opened_with("You knock, and");
        assert_eq!(s.push(" I am left alone. "), "");
        assert!(s.turned_down());
    }

    #[test]
    fn no_sentence_puts_words_in_the_players_mouth() {
        for said in [
            " you say, 'The keeper. I am the keeper.'",
            "\"Who goes there?\" you ask.",
            " and you reply: “Never.”",
            "‘I am the keeper,’ you whisper.",
        ] {
            assert!(speaks_for_the_player(said), "{said}");
        }
        for other in [
            " the keeper says, 'Welcome.'",
            "\"You go first,\" she says.",
            "'What do you say, stranger?' the keeper asks.",
            " you say nothing, and the keeper says, 'Welcome.'",
            " you tell of the sailors' song.",
            " you tell of the sailors’ song.",
        ] {
            assert!(!speaks_for_the_player(other), "{other}");
        }
        // A later sentence quoting the player, as no sentence starting "You" would.
        let mut s = SentenceStream::limited(Limit::HOSTED_MODEL);
        s.push("You look up, and the keeper nods. 'I am the keeper,' you say. Rain falls.");
        s.finish();
        assert_eq!(s.text(), "You look up, and the keeper nods.");
        // After the rules' opening, the model's first words are its own too.
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL).opened_with("You knock, and");
        assert_eq!(s.push(" you say, 'I am the keeper.' "), "");
        // A model that writes the whole turn may tell the player's own words first.
        let mut s = SentenceStream::limited(Limit::HOSTED_MODEL);
        assert_eq!(
            s.push("\"Open up,\" you say, knocking. "),
            "\"Open up,\" you say, knocking."
        );
    }

    #[test]
    fn a_title_ends_no_sentence() {
        let text = "You ask Dr. Venn about the plague. Mr. Hale nods.";
        let plague = text.find("plague.").unwrap() + "plague.".len();
        assert_eq!(sentence_ends(text, true), vec![plague, text.len()]);
        let mut s = SentenceStream::limited(Limit::SMALL_MODEL)
            .opened_with("You ask Dr. Venn about the plague, and");
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
