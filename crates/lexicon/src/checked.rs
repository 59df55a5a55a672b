//! A checked deed and how it went, in one sentence the rules write: "You try
//! to pick the lock, but it will not give." The kind of deed comes from its
//! verb; how it turned out comes from the check's verdict, never from a model
//! (docs/storyteller.md, "The rules' opening").

use super::deed::ended;
use super::facts::Verdict;
use super::words::{words_of, JOINING_WORDS};

/// How a checked deed reads, as far as its outcome can be told from its verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A blow or a shot at someone: it lands or misses.
    Strike,
    /// A contest against someone: won or lost.
    Contest,
    /// Winning someone over: they are swayed or not.
    Persuade,
    /// Making someone believe something untrue.
    Deceive,
    /// Going unseen or taking unseen.
    Stealth,
    /// Looking for something: what is found is the narrator's to say.
    Search,
    /// Listening in: what is heard is the narrator's to say.
    Listen,
    /// Making sense of writing or signs.
    Decipher,
    /// Opening or breaking a thing.
    Force,
    /// Climbing.
    Climb,
    /// Jumping across or onto something.
    Jump,
    /// Getting away or keeping up with something fast.
    Quick,
    /// Anything else: the outcome alone is told.
    Other,
}

/// Verbs and the kind of deed they make; a verb matches its own inflections
/// ("sneaks", "sneaking") by its stem.
const VERBS: &[(&str, Kind)] = &[
    ("attack", Kind::Strike),
    ("strike", Kind::Strike),
    ("hit", Kind::Strike),
    ("punch", Kind::Strike),
    ("stab", Kind::Strike),
    ("slash", Kind::Strike),
    ("swing", Kind::Strike),
    ("shoot", Kind::Strike),
    ("fire", Kind::Strike),
    ("throw", Kind::Strike),
    ("hurl", Kind::Strike),
    ("kick", Kind::Strike),
    ("charge", Kind::Strike),
    ("bash", Kind::Strike),
    ("smash", Kind::Strike),
    ("cut", Kind::Strike),
    ("aim", Kind::Strike),
    ("cast", Kind::Strike),
    ("shove", Kind::Strike),
    ("tackle", Kind::Strike),
    ("grapple", Kind::Strike),
    ("fight", Kind::Contest),
    ("duel", Kind::Contest),
    ("wrestle", Kind::Contest),
    ("arm-wrestle", Kind::Contest),
    ("challenge", Kind::Contest),
    ("race", Kind::Contest),
    ("compete", Kind::Contest),
    ("outrun", Kind::Contest),
    ("outdrink", Kind::Contest),
    ("outshoot", Kind::Contest),
    ("gamble", Kind::Contest),
    ("bet", Kind::Contest),
    ("cheat", Kind::Contest),
    ("persuade", Kind::Persuade),
    ("convince", Kind::Persuade),
    ("charm", Kind::Persuade),
    ("haggle", Kind::Persuade),
    ("bargain", Kind::Persuade),
    ("negotiate", Kind::Persuade),
    ("plead", Kind::Persuade),
    ("beg", Kind::Persuade),
    ("bribe", Kind::Persuade),
    ("intimidate", Kind::Persuade),
    ("threaten", Kind::Persuade),
    ("flatter", Kind::Persuade),
    ("sweet-talk", Kind::Persuade),
    ("talk", Kind::Persuade),
    ("lie", Kind::Deceive),
    ("bluff", Kind::Deceive),
    ("deceive", Kind::Deceive),
    ("trick", Kind::Deceive),
    ("fool", Kind::Deceive),
    ("con", Kind::Deceive),
    ("sneak", Kind::Stealth),
    ("creep", Kind::Stealth),
    ("tiptoe", Kind::Stealth),
    ("hide", Kind::Stealth),
    ("steal", Kind::Stealth),
    ("pickpocket", Kind::Stealth),
    ("pilfer", Kind::Stealth),
    ("smuggle", Kind::Stealth),
    ("shadow", Kind::Stealth),
    ("tail", Kind::Stealth),
    ("search", Kind::Search),
    ("look", Kind::Search),
    ("find", Kind::Search),
    ("hunt", Kind::Search),
    ("spot", Kind::Search),
    ("examine", Kind::Search),
    ("inspect", Kind::Search),
    ("investigate", Kind::Search),
    ("track", Kind::Search),
    ("forage", Kind::Search),
    ("scan", Kind::Search),
    ("check", Kind::Search),
    ("overhear", Kind::Listen),
    ("listen", Kind::Listen),
    ("eavesdrop", Kind::Listen),
    ("decipher", Kind::Decipher),
    ("decode", Kind::Decipher),
    ("read", Kind::Decipher),
    ("translate", Kind::Decipher),
    ("pick", Kind::Force),
    ("unlock", Kind::Force),
    ("force", Kind::Force),
    ("pry", Kind::Force),
    ("break", Kind::Force),
    ("bend", Kind::Force),
    ("open", Kind::Force),
    ("disarm", Kind::Force),
    ("lift", Kind::Force),
    ("climb", Kind::Climb),
    ("scale", Kind::Climb),
    ("clamber", Kind::Climb),
    ("jump", Kind::Jump),
    ("leap", Kind::Jump),
    ("vault", Kind::Jump),
    ("chase", Kind::Quick),
    ("catch", Kind::Quick),
    ("grab", Kind::Quick),
    ("dodge", Kind::Quick),
    ("duck", Kind::Quick),
    ("escape", Kind::Quick),
    ("flee", Kind::Quick),
    ("run", Kind::Quick),
    ("swim", Kind::Quick),
    ("dive", Kind::Quick),
    ("block", Kind::Quick),
    ("parry", Kind::Quick),
];

/// Things a blow may be aimed at to break them open: then a strike is force.
const THINGS: &[&str] = &[
    "door",
    "gate",
    "lock",
    "chest",
    "window",
    "bars",
    "barricade",
    "wall",
    "crate",
    "box",
];

/// Verbs that strike only when aimed "at" something.
const AIMED: &[&str] = &["swing", "throw", "hurl", "fire", "shoot", "aim", "cast"];

/// Words that join a second deed to the first ("go upstairs and search").
const JOINS: &[&str] = &["and", "then"];

/// Ways a player says they attempt something, dropped before the deed.
const ATTEMPTS: &[&str] = &[
    "try to ",
    "tries to ",
    "try and ",
    "attempt to ",
    "want to ",
];

impl Kind {
    /// The kind of the first verb in `act` (a second-person verb phrase, see
    /// [`super::act`]) that says how a check could go: the first word, or the
    /// first word after "and" or "then".
    fn of(act: &str) -> Kind {
        let words: Vec<String> = act
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
                    .to_lowercase()
            })
            .collect();
        let heads = std::iter::once(0).chain(
            words
                .iter()
                .enumerate()
                .filter(|(_, w)| JOINS.contains(&w.as_str()))
                .map(|(i, _)| i + 1),
        );
        for at in heads {
            let Some(word) = words.get(at) else { continue };
            let Some(kind) = verb_kind(word) else {
                continue;
            };
            let aimed_at_a_thing = words[at + 1..]
                .iter()
                .take(4)
                .any(|w| THINGS.contains(&w.as_str()));
            let aimed = words[at + 1..].iter().any(|w| w == "at");
            return match kind {
                Kind::Strike if aimed_at_a_thing => Kind::Force,
                // "swing on the chandelier", "throw the rope across": a strike
                // only when aimed at something.
                Kind::Strike if AIMED.iter().any(|v| word.starts_with(v)) && !aimed => Kind::Other,
                // "pick a fight", "look around": not a lock, not a search.
                Kind::Force if word.starts_with("pick") && !aimed_at_a_thing => Kind::Other,
                Kind::Search
                    if word.starts_with("look") && words.get(at + 1).is_none_or(|w| w != "for") =>
                {
                    Kind::Other
                }
                kind => kind,
            };
        }
        Kind::Other
    }

    /// The end of a failed attempt's sentence, after "but".
    fn failed(self) -> &'static str {
        match self {
            Kind::Strike => "you miss",
            Kind::Contest => "you lose",
            Kind::Persuade => "they will not be swayed",
            Kind::Deceive => "they do not believe you",
            Kind::Stealth => "you are spotted",
            Kind::Search => "you find nothing",
            Kind::Listen => "you cannot make out a word",
            Kind::Decipher => "it makes no sense to you",
            Kind::Force => "it will not give",
            Kind::Climb => "you lose your grip",
            Kind::Jump => "you fall short",
            Kind::Quick => "you are too slow",
            Kind::Other => "it does not work",
        }
    }

    /// The end of a successful deed's sentence, after "and": `None` when the
    /// deed told as done already says it went well ("You pick the lock.").
    /// Never a negation, so the narrator's words after it are still read
    /// for a contradiction.
    fn succeeded(self) -> Option<&'static str> {
        match self {
            Kind::Strike => Some("it strikes home"),
            Kind::Contest => Some("you win"),
            Kind::Deceive => Some("they believe you"),
            Kind::Stealth => Some("you go unseen"),
            Kind::Search => Some("you find something"),
            Kind::Listen => Some("you catch a few words"),
            Kind::Decipher => Some("it starts to make sense"),
            Kind::Climb | Kind::Jump => Some("you make it"),
            Kind::Quick => Some("you are quick enough"),
            Kind::Persuade | Kind::Force | Kind::Other => None,
        }
    }
}

impl Kind {
    /// Words that tell a deed of this kind done ("the door slides open").
    fn done_words(self) -> &'static [&'static str] {
        match self {
            Kind::Strike => &[
                "hit", "hits", "strike", "strikes", "struck", "land", "lands", "landed", "slay",
                "slays", "slain", "kill", "kills", "killed", "wound", "wounds", "wounded", "dies",
                "dead",
            ],
            Kind::Contest => &[
                "win",
                "wins",
                "won",
                "beat",
                "beats",
                "victory",
                "victorious",
            ],
            Kind::Persuade => &[
                "agree",
                "agrees",
                "agreed",
                "convinced",
                "persuaded",
                "accept",
                "accepts",
                "accepted",
                "relents",
            ],
            Kind::Deceive => &["believe", "believes", "believed", "convinced", "fooled"],
            Kind::Stealth => &["unnoticed", "unseen", "undetected", "unheard"],
            Kind::Search => &[
                "find",
                "finds",
                "found",
                "discover",
                "discovers",
                "discovered",
                "uncover",
                "uncovers",
            ],
            Kind::Listen => &["overhear", "overhears", "overheard"],
            Kind::Decipher => &[
                "understand",
                "understands",
                "decipher",
                "deciphers",
                "deciphered",
                "decoded",
            ],
            Kind::Force => &[
                "open",
                "opens",
                "opened",
                "gives",
                "unlocks",
                "unlocked",
                "breaks",
                "broke",
                "swings",
                "slides",
                "shatters",
                "shattered",
            ],
            Kind::Climb => &["climb", "climbs", "top", "summit"],
            Kind::Jump => &["land", "lands", "landed", "clear", "clears", "cleared"],
            Kind::Quick => &[
                "catch", "catches", "caught", "escape", "escapes", "escaped", "dodge", "dodges",
                "dodged",
            ],
            Kind::Other => &[],
        }
    }

    /// Words that tell a deed of this kind gone wrong ("you miss").
    fn failed_words(self) -> &'static [&'static str] {
        match self {
            Kind::Strike => &["miss", "misses", "missed"],
            Kind::Contest => &["lose", "loses"],
            Kind::Stealth => &["spotted", "caught"],
            _ => &[],
        }
    }
}

/// Words that tell any deed done, or gone wrong.
const DONE: &[&str] = &[
    "succeed",
    "succeeds",
    "succeeded",
    "successfully",
    "manage",
    "manages",
    "managed",
];
const FAILED: &[&str] = &["fail", "fails", "failed", "vain", "unable"];

/// Words that turn a sentence round ("the door does not open").
const NEGATIONS: &[&str] = &[
    "not", "no", "nothing", "never", "cannot", "nor", "neither", "without",
];

/// Whether `sentence` tells the checked deed `act` the other way round from
/// `verdict`: done after a failure ("…, and the door slides open"), or gone
/// wrong after a success. Read clause by clause, by the words of the deed's
/// kind and of any deed; a clause with a negation, or one that also tells
/// the verdict's own way, is not read as either.
pub fn contradicts(act: &str, verdict: Verdict, sentence: &str) -> bool {
    let kind = Kind::of(attempted(act.trim()));
    let (other_way, other_own, same_way, same_own) = if verdict.succeeded() {
        (FAILED, kind.failed_words(), DONE, kind.done_words())
    } else {
        (DONE, kind.done_words(), FAILED, kind.failed_words())
    };
    let tells = |words: &[String], general: &[&str], own: &[&str]| {
        words
            .iter()
            .any(|w| general.contains(&w.as_str()) || own.contains(&w.as_str()))
    };
    clauses_of(sentence).iter().any(|clause| {
        !has_negation(clause)
            && !tells(clause, same_way, same_own)
            && tells(clause, other_way, other_own)
    })
}

/// Word beginnings of a catastrophe: the rules decide how much a deed
/// changes, and only a critical result's twist goes past a plain outcome
/// ("…, but it will not give, and a great storm of flames erupts").
const CATASTROPHES: [&str; 11] = [
    "erupt",
    "destroy",
    "explod",
    "explosion",
    "collaps",
    "inferno",
    "ablaze",
    "engulf",
    "catastroph",
    "disintegrat",
    "obliterat",
];

/// Whether `sentence` brings in a catastrophe: a word beginning as one of
/// [`CATASTROPHES`] does whose beginning none of `known` (the story's words
/// so far, lowercase: the player's action among them) shares. "The barn
/// explodes" is no escalation of "I blow up the barn with the powder keg"
/// only when the story has told an explosion; the player's "I blow up the
/// bridge" does not let a tower collapse. A proportionate mishap ("the
/// stones crumble", "the glass shatters") is no catastrophe.
pub fn escalates(sentence: &str, known: &[String]) -> bool {
    words_of(sentence).iter().any(|w| {
        CATASTROPHES
            .iter()
            .find(|c| w.starts_with(**c))
            .is_some_and(|c| !known.iter().any(|k| k.starts_with(c)))
    })
}

/// `sentence`'s clauses, each as its words ([`words_of`]): split at commas,
/// semicolons, colons, dashes and [`JOINING_WORDS`].
fn clauses_of(sentence: &str) -> Vec<Vec<String>> {
    sentence
        .split([',', ';', ':', '—', '–'])
        .flat_map(|part| {
            let words = words_of(part);
            let mut clauses = vec![Vec::new()];
            for w in words {
                if JOINING_WORDS.contains(&w.as_str()) {
                    clauses.push(Vec::new());
                } else if let Some(last) = clauses.last_mut() {
                    last.push(w);
                }
            }
            clauses
        })
        .filter(|c| !c.is_empty())
        .collect()
}

/// Whether `words` (lower case, straight apostrophes) hold a negation
/// ("not", "never", "can't", …).
pub fn has_negation(words: &[String]) -> bool {
    words
        .iter()
        .any(|w| NEGATIONS.contains(&w.as_str()) || w.ends_with("n't"))
}

/// The kind of a verb, by its stem: "sneaking" and "sneaks" are "sneak".
fn verb_kind(word: &str) -> Option<Kind> {
    VERBS
        .iter()
        .find(|(verb, _)| {
            word == *verb
                || word
                    .strip_prefix(verb)
                    .is_some_and(|rest| ["s", "es", "ing", "ed"].contains(&rest))
        })
        .map(|(_, kind)| *kind)
}

/// `act` without a leading "try to" and its like.
pub fn attempted(act: &str) -> &str {
    ATTEMPTS
        .iter()
        .find_map(|a| act.strip_prefix(a))
        .unwrap_or(act)
}

/// The deed `act` (a second-person verb phrase, see [`super::act`]) and how
/// its check went, as the start of a sentence a narrator finishes: "You try
/// to pick the lock, but it will not give, and"; "You swing at the orc, and
/// it strikes home, and"; "You pick the lock, and";
/// "You try to climb the wall, but it goes badly wrong:". Promises a text
/// starting with "You" that never tells a failure as a success or the other
/// way round.
pub fn checked(act: &str, verdict: Verdict) -> String {
    let deed = attempted(act.trim());
    let kind = Kind::of(deed);
    match (verdict.succeeded(), verdict.twist()) {
        (false, Some(twist)) => format!("You try to {deed}, but {twist}:"),
        (true, Some(twist)) => format!("You {deed}, and {twist}:"),
        (false, None) => format!("You try to {deed}, but {}, and", kind.failed()),
        (true, None) => match kind.succeeded() {
            Some(end) => format!("You {deed}, and {end}, and"),
            None => format!("You {deed}, and"),
        },
    }
}

/// The deed `act` and how its check went, in one whole sentence (what a
/// narration without a model tells): "You try to pick the lock, but it will
/// not give."; "You swing at the orc, and it strikes home."; "You pick the
/// lock." Same promises as [`checked`].
pub fn checked_whole(act: &str, verdict: Verdict) -> String {
    let deed = attempted(act.trim());
    let kind = Kind::of(deed);
    match (verdict.succeeded(), verdict.twist()) {
        (false, Some(twist)) => format!("You try to {deed}, but {twist}."),
        (true, Some(twist)) => format!("You {deed}, and {twist}."),
        (false, None) => format!("You try to {deed}, but {}.", kind.failed()),
        (true, None) => match kind.succeeded() {
            Some(end) => format!("You {deed}, and {end}."),
            None => format!("You {}", ended(deed)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deed_ending_in_words_said_ends_its_sentence_once() {
        assert_eq!(
            checked_whole("say to the guard, \"Let us pass.\"", Verdict::Success),
            "You say to the guard, \"Let us pass.\""
        );
    }

    #[test]
    fn a_failure_gets_the_reason_its_kind_of_deed_has() {
        use Verdict::Failure;
        for (act, want) in [
            ("pick the lock of the room across the hall", "You try to pick the lock of the room across the hall, but it will not give."),
            ("try to punch the ferryman who insults you", "You try to punch the ferryman who insults you, but you miss."),
            ("challenge the biggest ferryman to an arm-wrestling match", "You try to challenge the biggest ferryman to an arm-wrestling match, but you lose."),
            ("try to overhear the two ferrymen", "You try to overhear the two ferrymen, but you cannot make out a word."),
            ("go upstairs and search your room", "You try to go upstairs and search your room, but you find nothing."),
            ("kick down the door", "You try to kick down the door, but it will not give."),
            ("sneak past the guards", "You try to sneak past the guards, but you are spotted."),
            ("lie to the magistrate", "You try to lie to the magistrate, but they do not believe you."),
            ("attempt to persuade the captain", "You try to persuade the captain, but they will not be swayed."),
            ("scale the cliff", "You try to scale the cliff, but you lose your grip."),
            ("sing to the crowd", "You try to sing to the crowd, but it does not work."),
            ("pick a fight with the sailor", "You try to pick a fight with the sailor, but it does not work."),
        ] {
            assert_eq!(checked_whole(act, Failure), want);
            let open = checked(act, Failure);
            assert_eq!(open, format!("{}, and", want.trim_end_matches('.')));
        }
    }

    #[test]
    fn a_success_is_told_done_and_left_for_the_narrator_to_go_on() {
        use Verdict::Success;
        assert_eq!(
            checked_whole("pick the lock", Success),
            "You pick the lock."
        );
        assert_eq!(
            checked_whole("try to swing at the orc", Success),
            "You swing at the orc, and it strikes home."
        );
        assert_eq!(
            checked_whole("swing on the chandelier to reach the balcony", Success),
            "You swing on the chandelier to reach the balcony."
        );
        assert_eq!(
            checked_whole("wrestle the champion", Success),
            "You wrestle the champion, and you win."
        );
        assert_eq!(
            checked_whole("search the desk", Success),
            "You search the desk, and you find something."
        );
        assert_eq!(
            checked("try to pick the lock", Success),
            "You pick the lock, and"
        );
        // The narrator goes on from the rules' result, not just the deed.
        assert_eq!(
            checked("punch the ferryman who insults you", Success),
            "You punch the ferryman who insults you, and it strikes home, and"
        );
        assert_eq!(
            checked_whole("sneak past the guards", Success),
            "You sneak past the guards, and you go unseen."
        );
        assert_eq!(
            checked_whole("climb the spiral stairs to the lamp room", Success),
            "You climb the spiral stairs to the lamp room, and you make it."
        );
    }

    #[test]
    fn a_success_opening_leaves_the_narrators_words_open_to_the_contradiction_check() {
        for (verb, _) in VERBS {
            let open = checked(&format!("{verb} the thing"), Verdict::Success);
            assert!(!has_negation(&words_of(&open)), "{open}");
        }
        assert!(has_negation(&words_of("It won’t budge.")));
    }

    #[test]
    fn a_critical_result_carries_its_twist() {
        assert_eq!(
            checked("climb the wall", Verdict::CriticalFailure),
            "You try to climb the wall, but it goes badly wrong:"
        );
        assert_eq!(
            checked_whole("climb the wall", Verdict::CriticalFailure),
            "You try to climb the wall, but it goes badly wrong."
        );
        assert!(checked("leap the chasm", Verdict::CriticalSuccess).ends_with("could have hoped:"));
    }

    #[test]
    fn a_failure_never_reads_as_a_success() {
        for (verb, _) in VERBS {
            let act = format!("{verb} the thing");
            let failed = checked_whole(&act, Verdict::Failure);
            let won = checked_whole(&act, Verdict::Success);
            assert!(failed.contains(", but "), "{failed}");
            assert!(!won.contains(" but "), "{won}");
        }
    }

    #[test]
    fn a_sentence_that_tells_the_other_outcome_contradicts_it() {
        use Verdict::{Failure, Success};
        let door = "force the rusted door open";
        assert!(contradicts(door, Failure, " the door slides open."));
        assert!(contradicts(door, Failure, "You manage it after all."));
        assert!(!contradicts(door, Failure, " the door does not open."));
        assert!(!contradicts(door, Failure, " rust flakes onto your boots."));
        assert!(contradicts(
            "attack the goblin",
            Failure,
            " the goblin dies."
        ));
        assert!(contradicts("attack the goblin", Success, " but you miss."));
        assert!(!contradicts(
            "attack the goblin",
            Success,
            " the goblin staggers back."
        ));
        assert!(contradicts(
            "sneak past the guard",
            Success,
            "You are spotted."
        ));
        assert!(contradicts("search the desk", Failure, " you found a key."));
        assert!(!contradicts(
            "search the desk",
            Failure,
            " you can't find a thing."
        ));
    }

    #[test]
    fn a_negation_turns_round_only_its_own_clause() {
        use Verdict::{Failure, Success};
        let stone = "throw a stone to scare it off";
        assert!(contradicts(
            stone,
            Failure,
            " it is not a ravine, but you manage to do so."
        ));
        assert!(contradicts(
            "force the door open",
            Failure,
            " nothing stirs; the door swings open."
        ));
        assert!(!contradicts(
            "force the door open",
            Failure,
            " you fail to open it, and rust flakes off."
        ));
        assert!(!contradicts(
            "attack the goblin",
            Success,
            " it never saw you coming, and it dies."
        ));
        assert!(contradicts(
            "attack the goblin",
            Success,
            " it does not flinch, and you miss."
        ));
    }

    #[test]
    fn a_catastrophe_the_story_has_not_told_is_an_escalation() {
        let known = |text: &str| -> Vec<String> {
            text.split_whitespace().map(|w| w.to_lowercase()).collect()
        };
        let door = known("you try to force the rusted door open");
        assert!(escalates(
            "You try to force the rusted door open, but it will not give, and a great storm of flames erupts.",
            &door
        ));
        assert!(escalates("The tower collapses.", &door));
        assert!(escalates("The lamp is destroyed.", &door));
        assert!(!escalates("The door groans on its hinges.", &door));
        // What the player's words, or the story, already told.
        assert!(!escalates(
            "The powder keg explodes.",
            &known("i light the fuse to explode the powder keg")
        ));
        assert!(!escalates("The stones crumble under your hands.", &door));
        assert!(!escalates(
            "The mine collapses behind you.",
            &known("the old mine collapsed last winter")
        ));
    }
}
