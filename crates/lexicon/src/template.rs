//! A turn told without a model: the player's deed, then what the rules
//! decided — a sentence per outcome, never the raw numbers — in the story's
//! language (`super::lines`). The one template set: the engine's turn told
//! when no narration came ([`told_in`]), the storyteller's last step
//! ([`told_with_flavour`]) and the turn with no plan at all ([`no_plan`]).

use serde_json::Value;

use super::checked::checked_whole;
use super::deed::{act, deed};
use super::facts::{facts_of, Fact};
use super::language::Language;
use super::lines::Lines;
use super::person::second_person;

/// The turn in a few plain English sentences ([`told_in`]).
pub fn told<'a>(action: &str, outputs: impl IntoIterator<Item = &'a Value>) -> String {
    told_in(&Language::english(), action, outputs)
}

/// The turn in a few plain sentences of `language` (English lines where it
/// has none shipped). Promises: never empty; a failed check is never told
/// as a success and the other way round; no digit from the tools' outputs
/// appears; it starts with the player's deed told to "you" where the
/// lexicon turns the language's words so (English "You …", French "Vous
/// …", Spanish and German: [`second_person`]), else with the outcome — and
/// where no outcome tells anything, with the player's words quoted in the
/// language's lines (`acted`; docs/stories.md, "Language"). `outputs` are
/// the outputs of the turn's tools in plan order (`null` for one that
/// failed).
pub fn told_in<'a>(
    language: &Language,
    action: &str,
    outputs: impl IntoIterator<Item = &'a Value>,
) -> String {
    let lines = Lines::of(language);
    let english = language.is_english();
    let facts: Vec<Fact> = outputs.into_iter().flat_map(facts_of).collect();
    let first_check = facts.iter().position(|f| f.verdict().is_some());
    let verdict = first_check.and_then(|i| facts[i].verdict());
    // The first check is told with the deed, in one sentence ("You try to
    // pick the lock, but it will not give."); later ones on their own.
    let done = match english {
        true => act(action),
        false => second_person(action, language),
    };
    let mut told = match (verdict, done) {
        (Some(verdict), Some(done)) if english => vec![checked_whole(&done, verdict)],
        // "Vous attaquez le garde : c'est un échec."
        (Some(_), Some(done)) => {
            let mut check = facts[first_check.expect("a verdict comes of a check")].clone();
            if let Fact::Check { reason, .. } = &mut check {
                *reason = Some(done);
            }
            vec![check.told_in(lines)]
        }
        (Some(verdict), None) if english => {
            vec![deed(action), lines.without_a_deed.of(verdict).to_string()]
        }
        (Some(verdict), None) => vec![lines.without_a_deed.of(verdict).to_string()],
        (None, _) if english => vec![deed(action)],
        (None, Some(done)) => vec![ended(&done)],
        (None, None) => vec![],
    };
    for (i, fact) in facts.iter().enumerate() {
        told.push(match fact {
            Fact::Check { .. } if Some(i) == first_check => continue,
            Fact::Check { verdict, .. } => lines.without_a_deed.of(*verdict).to_string(),
            Fact::StandingChanged { .. } | Fact::Standing { .. } => fact.told_in(lines),
            Fact::Recalled { memories } => match memories.first() {
                Some(m) => lines.you_remember.replace("{memory}", m),
                // Finding nothing is the recall's outcome, told like any other.
                None => fact.told_in(lines),
            },
            // What the game master decided happens is told as it decided it.
            Fact::Beat { .. } => match fact.beat_told() {
                Some(text) => text.to_string(),
                None => continue,
            },
            Fact::Roll { .. } | Fact::Present { .. } | Fact::Unavailable => continue,
        });
    }
    if told.is_empty() {
        let words = action.split_whitespace().collect::<Vec<_>>().join(" ");
        told.push(lines.acted.replace("{input}", &words));
    }
    told.join(" ")
}

/// `text` ending a sentence.
fn ended(text: &str) -> String {
    match text.ends_with(['.', '!', '…']) {
        true => text.to_string(),
        false => format!("{text}."),
    }
}

/// The turn told ([`told_in`]) and closed by a flavour line of `style`
/// ("terse", "vivid" or "poetic"; another reads as "vivid"), picked by a
/// stable hash of the action and style. Promises a non-empty text —
/// starting with "You" in English — the same for the same action, style and
/// outputs, and what [`told_in`] promises. The closing line names no place,
/// weather or object: the template knows nothing of the scene.
pub fn told_with_flavour<'a>(
    language: &Language,
    action: &str,
    style: &str,
    outputs: impl IntoIterator<Item = &'a Value>,
) -> String {
    let flavours = Lines::of(language).flavour.of_style(style);
    let key = format!("{}|{style}", action.trim().to_lowercase());
    let flavour = &flavours[(fnv1a(key.as_bytes()) % flavours.len() as u64) as usize];
    let told = told_in(language, action, outputs);
    format!("{told} {flavour}").trim_start().to_string()
}

/// What a turn says when no plan came out at all, in `language`'s lines
/// (English where it has none), the player's `input` trimmed into it. The
/// same input always gets the same line.
pub fn no_plan(language: &Language, input: &str) -> String {
    let templates = &Lines::of(language).no_plan;
    let pick = input
        .bytes()
        .fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize))
        % templates.len();
    templates[pick].replace("{input}", input.trim())
}

/// FNV-1a: a stable hash (the standard library's is not stable across builds).
fn fnv1a(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failed_attack_is_told_as_a_failure() {
        let roll = json!({"formula": "1d20+2", "total": 9, "outcome": "failure", "margin": -6});
        let t = told("I attack the goblin with my sword", [&roll]);
        assert_eq!(
            t,
            "You try to attack the goblin with your sword, but you miss."
        );
        let crit =
            json!({"formula": "1d20", "total": 20, "outcome": "criticalSuccess", "margin": 5});
        assert!(told("I leap the chasm", [&crit]).ends_with("hoped."));
    }

    #[test]
    fn no_number_from_the_tools_reaches_the_player() {
        let outputs = [
            json!({"formula": "1d20+7", "rolls": [13], "total": 20, "outcome": "success", "margin": 3}),
            json!({"factionId": "guild", "previousScore": 10, "delta": 15, "score": 25, "standing": "friendly"}),
            json!({"formula": "3d6", "total": 14}),
            Value::Null,
        ];
        let t = told("I bargain with the guild", outputs.iter());
        assert!(!t.chars().any(|c| c.is_ascii_digit()), "{t}");
        assert!(
            t.starts_with("You bargain with the guild.")
                && t.contains("The guild think better of you"),
            "{t}"
        );
    }

    #[test]
    fn a_recall_that_found_nothing_says_so() {
        let none = json!({"memories": []});
        assert_eq!(
            told("What do I remember about the keeper?", [&none]),
            "You wonder what you remember about the keeper. Nothing from earlier comes to mind."
        );
    }

    #[test]
    fn without_outcomes_only_the_deed_is_told() {
        assert_eq!(told("I look around", []), "You look around.");
    }

    #[test]
    fn another_language_is_told_the_outcome_in_its_own_words() {
        let fr = Language::parse("fr").unwrap();
        let roll = json!({"formula": "1d20", "total": 4, "outcome": "failure", "margin": -9});
        let standing = json!({"factionId": "city-watch", "previousScore": 0, "delta": 10,
                              "score": 10, "standing": "friendly"});
        let t = told_in(&fr, "J'attaque le garde", [&roll, &standing]);
        assert_eq!(
            t,
            "Vous attaquez le garde : c'est un échec. La faction « city watch » vous voit d'un meilleur œil (désormais amicale)."
        );
        // Words with no deed of the speaker's are told by the outcome alone.
        assert_eq!(
            told_in(&fr, "Attaquer le garde", [&roll]),
            "Vous essayez, mais cela ne donne rien."
        );
        let none = json!({"memories": []});
        assert_eq!(
            told_in(&fr, "Je réfléchis", [&none]),
            "Vous réfléchissez. Rien ne vous revient en mémoire."
        );
        let de = Language::parse("de").unwrap();
        assert_eq!(
            told_in(&de, "Ich versuche, das Schloss zu knacken", [&roll]),
            "Du versuchst, das Schloss zu knacken: es misslingt."
        );
        // A language without lines gets English ones, and no English grammar
        // forced on its player's words.
        let welsh = Language::parse("cy").unwrap();
        assert_eq!(
            told_in(&welsh, "Rwy'n agor y drws", [&roll]),
            "You try, but it does not work."
        );
    }

    /// A turn with no outcome to tell (no check, no standing, no memory)
    /// is told in the story's language, never as nothing: in each shipped
    /// language its own lines, in a language without lines English ones.
    #[test]
    fn a_turn_with_nothing_decided_is_never_told_as_nothing() {
        let roll_only = json!({"formula": "3d6", "total": 11});
        let cases = [
            ("en", "I open the door", "You open the door."),
            ("fr", "J'ouvre la porte", "Vous ouvrez la porte."),
            ("es", "Abro la puerta", "Abres la puerta."),
            ("de", "Ich öffne die Tür", "Du öffnest die Tür."),
            (
                "fr",
                "Ouvrir la porte",
                "Vous agissez : « Ouvrir la porte ».",
            ),
            ("es", "¡La puerta!", "Actúas: «¡La puerta!»."),
            ("de", "Die Tür öffnen", "Du handelst: „Die Tür öffnen“."),
            ("cy", "Rwy'n agor y drws", "You act: “Rwy'n agor y drws”."),
        ];
        for (code, action, expected) in cases {
            let language = Language::parse(code).unwrap();
            assert_eq!(told_in(&language, action, []), expected, "{code}");
            // A roll with no verdict tells nothing either.
            assert_eq!(told_in(&language, action, [&roll_only]), expected, "{code}");
            let flavoured = told_with_flavour(&language, action, "vivid", []);
            assert!(flavoured.starts_with(expected), "{code}: {flavoured}");
        }
        // The player's words on one line, however they were typed.
        let fr = Language::parse("fr").unwrap();
        assert_eq!(
            told_in(&fr, " Ouvrir\n la  porte ", []),
            "Vous agissez : « Ouvrir la porte »."
        );
        assert_eq!(
            told_in(&fr, " J'ouvre\n la  porte ", []),
            "Vous ouvrez la porte."
        );
    }

    fn none() -> Vec<Value> {
        Vec::new()
    }

    fn flavour(style: &str) -> Vec<String> {
        Lines::english().flavour.of_style(style).to_vec()
    }

    #[test]
    fn a_flavoured_telling_is_deterministic_and_follows_the_style() {
        let en = Language::english();
        let a = told_with_flavour(&en, "I open the door", "vivid", &none());
        assert_eq!(
            a,
            told_with_flavour(&en, "I open the door", "vivid", &none())
        );
        assert!(a.starts_with("You open the door. "), "{a}");
        assert!(flavour("vivid").iter().any(|f| a.ends_with(f)), "{a}");
        let t = told_with_flavour(&en, "I open the door", "terse", &none());
        assert!(flavour("terse").iter().any(|f| t.ends_with(f)), "{t}");
        let p = told_with_flavour(&en, "I open the door", "poetic", &none());
        assert!(flavour("poetic").iter().any(|f| p.ends_with(f)), "{p}");
    }

    #[test]
    fn a_flavoured_telling_tells_the_outcome_of_a_check_without_its_numbers() {
        let roll = json!({"formula": "1d20", "rolls": [3], "total": 3, "dc": 15,
                          "outcome": "failure", "margin": -12});
        let t = told_with_flavour(&Language::english(), "I attack", "terse", [&roll]);
        assert!(t.starts_with("You try to attack, but you miss. "), "{t}");
        assert!(!t.chars().any(|c| c.is_ascii_digit()), "{t}");
    }

    #[test]
    fn a_french_story_falls_back_on_french_words() {
        let roll = json!({"formula": "1d20", "rolls": [20], "total": 20, "dc": 15,
                          "outcome": "criticalSuccess", "margin": 5});
        let fr = Language::parse("fr").unwrap();
        let t = told_with_flavour(&fr, "J'escalade la falaise", "vivid", [&roll]);
        assert!(
            t.starts_with(
                "Vous escaladez la falaise : un triomphe — c'est une réussite éclatante. "
            ),
            "{t}"
        );
        let t = told_with_flavour(&fr, "Escalader la falaise", "vivid", [&roll]);
        assert!(
            t.starts_with("Cela se passe mieux que vous n'osiez l'espérer. "),
            "{t}"
        );
        let f = &Lines::of(&fr).flavour.vivid;
        assert!(f.iter().any(|line| t.ends_with(line.as_str())), "{t}");
    }

    #[test]
    fn the_same_input_gets_the_same_no_plan_line_with_the_input_trimmed() {
        let en = Language::english();
        let told = no_plan(&en, "  I sing ");
        assert_eq!(told, no_plan(&en, "  I sing "));
        assert!(Lines::english()
            .no_plan
            .iter()
            .any(|t| told == t.replace("{input}", "I sing")));
        let fr = Language::parse("fr").unwrap();
        assert!(Lines::of(&fr)
            .no_plan
            .contains(&no_plan(&fr, "Je chante").replace("Je chante", "{input}")));
    }
}
