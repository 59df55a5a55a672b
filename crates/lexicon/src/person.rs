//! The player's words in the second person in French, Spanish and German
//! ("J'essaie de crocheter la serrure." → "Vous essayez de crocheter la
//! serrure.", "Ich versuche, das Schloss zu knacken." → "Du versuchst, das
//! Schloss zu knacken."), as [`crate::deed`] turns English ones: the rules
//! tell the deed and the writer is told it in the story's own grammar
//! (docs/stories.md, "Language"). One data file a language
//! (`person/<code>.json`): the first-person subjects and what replaces
//! them, the words that may stand between subject and verb, the other
//! first-person words and theirs, the verbs turned by name, then the
//! endings turned by rule, longest first.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde::Deserialize;

use crate::stop_words::{elided_start, is_stop_word, without_elision};
use crate::Language;

/// One language's turn from "I" to "you", as its data file holds it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Person {
    /// "je", "j'", "ich", "yo".
    subjects: Vec<String>,
    /// What a subject becomes ("vous"); empty where the verb alone says who.
    you: String,
    /// The verb may stand before the subject ("Dann öffne ich").
    inverted: bool,
    /// The subject is usually left out, so a sentence's first verb is the
    /// speaker's ("Intento forzar la cerradura").
    subject_dropped: bool,
    /// Words that may stand between the subject and its verb ("ne", "le").
    clitics: HashSet<String>,
    /// Other first-person words and the second-person ones they become.
    words: HashMap<String, String>,
    /// First-person verbs turned by name ("suis" → "êtes").
    verbs: HashMap<String, String>,
    /// Endings turned by rule, the first that fits; a leading "C" asks for
    /// a consonant before the ending ("Cle": "sammle", not "hole").
    endings: Vec<(String, String)>,
}

fn read(json: &str) -> Person {
    serde_json::from_str(json).expect("valid person files ship")
}

static FRENCH: LazyLock<Person> = LazyLock::new(|| read(include_str!("../person/fr.json")));
static SPANISH: LazyLock<Person> = LazyLock::new(|| read(include_str!("../person/es.json")));
static GERMAN: LazyLock<Person> = LazyLock::new(|| read(include_str!("../person/de.json")));

fn of(language: &Language) -> Option<&'static Person> {
    Some(match language.code() {
        "fr" => &FRENCH,
        "es" => &SPANISH,
        "de" => &GERMAN,
        _ => return None,
    })
}

/// Words that join two clauses, after which a dropped subject's verb may
/// come again ("Abro la puerta y entro").
const JOINS: [&str; 5] = ["y", "e", "pero", "luego", "entonces"];

/// One word of the player's text, its punctuation kept apart.
#[derive(Debug, Clone)]
struct Token {
    lead: String,
    word: String,
    trail: String,
}

impl Token {
    fn read(raw: &str) -> Token {
        let start = raw.find(|c: char| c.is_alphanumeric()).unwrap_or(raw.len());
        let end = raw.rfind(|c: char| c.is_alphanumeric()).map_or(start, |i| {
            i + raw[i..].chars().next().map_or(1, char::len_utf8)
        });
        let end = end.max(start);
        Token {
            lead: raw[..start].to_string(),
            word: raw[start..end].to_string(),
            trail: raw[end..].to_string(),
        }
    }

    fn lower(&self) -> String {
        self.word.to_lowercase().replace('’', "'")
    }

    /// Whether a sentence or clause ends after it.
    fn ends_a_clause(&self) -> bool {
        self.trail.contains(['.', '!', '?', ';', ':', ','])
    }

    fn written(&self) -> String {
        format!("{}{}{}", self.lead, self.word, self.trail)
    }
}

/// `to` written as `like` is: capitalised when it is.
fn cased(to: &str, like: &str) -> String {
    match like.chars().next() {
        Some(c) if c.is_uppercase() => crate::facts::sentence_case(to),
        _ => to.to_string(),
    }
}

impl Person {
    /// The second person of the first-person verb `word` (lower case);
    /// `guessed`: nothing but its place says it is a verb, so a stop word
    /// ("como", "cuando") is not one.
    fn verb(&self, word: &str, language: &Language, guessed: bool) -> Option<String> {
        if let Some(you) = self.verbs.get(word) {
            return Some(you.clone());
        }
        if (guessed && is_stop_word(word, language)) || word.chars().count() < 3 {
            return None;
        }
        self.endings.iter().find_map(|(ending, you)| {
            let (ending, consonant) = match ending.strip_prefix('C') {
                Some(bare) => (bare, true),
                None => (ending.as_str(), false),
            };
            let stem = word.strip_suffix(ending)?;
            let before = stem.chars().last()?;
            let fits = !consonant || (before.is_alphabetic() && !"aeiouäöüy".contains(before));
            fits.then(|| format!("{stem}{you}"))
        })
    }

    /// The token at `at`, a verb of the speaker's, turned (its clitic
    /// start, "n'" or "m'", turned too); whether it was a verb.
    fn turn_verb(
        &self,
        tokens: &mut [Token],
        at: usize,
        language: &Language,
        guessed: bool,
    ) -> bool {
        let lower = tokens[at].lower();
        let (start, rest) = match elided_start(&lower, language) {
            Some(start) => (
                start.to_string(),
                without_elision(&lower, language).to_string(),
            ),
            None => (String::new(), lower.clone()),
        };
        let Some(turned) = self.verb(&rest, language, guessed) else {
            return false;
        };
        let start = self.words.get(&start).cloned().unwrap_or(start);
        tokens[at].word = cased(&format!("{start}{turned}"), &tokens[at].word);
        true
    }

    /// Where the verb of a subject at `at` is: past the clitics after it,
    /// or (where the verb may come first) just before it.
    fn verb_of(&self, tokens: &[Token], at: usize) -> Option<usize> {
        if self.inverted && at > 0 && !tokens[at - 1].ends_a_clause() {
            return Some(at - 1);
        }
        (at + 1..tokens.len()).find(|&i| !self.clitics.contains(&tokens[i].lower()))
    }

    /// `action` in the second person; `None` where no verb of the
    /// speaker's was found.
    fn turn(&self, action: &str, language: &Language) -> Option<String> {
        let mut tokens: Vec<Token> = action.split_whitespace().map(Token::read).collect();
        let mut done = vec![false; tokens.len()];
        let mut turned = false;
        let mut i = 0;
        while i < tokens.len() {
            let lower = tokens[i].lower();
            let elided = elided_start(&lower, language)
                .is_some_and(|s| self.subjects.iter().any(|x| x == s));
            if elided {
                // "j'essaie": the subject and its verb in one word.
                let like = tokens[i].word.clone();
                let rest = like.split_once(['\'', '’']).map_or("", |(_, r)| r);
                tokens[i].word = rest.to_string();
                if self.turn_verb(&mut tokens, i, language, false) {
                    let verb = tokens[i].word.to_lowercase();
                    tokens[i].word = cased(&format!("{} {verb}", self.you), &like);
                    (turned, done[i]) = (true, true);
                } else {
                    tokens[i].word = like;
                }
            } else if self.subjects.contains(&lower) {
                let like = tokens[i].word.clone();
                if let Some(v) = self.verb_of(&tokens, i).filter(|&v| !done[v]) {
                    let verb_first = v < i;
                    if self.turn_verb(&mut tokens, v, language, false) {
                        turned = true;
                        done[v] = true;
                        if verb_first {
                            // "Dann öffne ich" → "Dann öffnest du".
                            tokens[i].word = self.you.clone();
                        } else {
                            tokens[i].word = cased(&self.you, &like);
                            // The clitics between subject and verb.
                            for c in i + 1..v {
                                if let Some(you) = self.words.get(&tokens[c].lower()) {
                                    tokens[c].word = you.trim_end().to_string();
                                }
                                done[c] = true;
                            }
                        }
                        done[i] = true;
                    }
                }
            } else if self.subject_dropped && self.starts_a_clause(&tokens, i) {
                // The first verb of a sentence or clause, past its clitics.
                let v = (i..tokens.len()).find(|&k| !self.clitics.contains(&tokens[k].lower()));
                if let Some(v) = v {
                    if self.turn_verb(&mut tokens, v, language, true) {
                        turned = true;
                        for c in i..=v {
                            if c < v {
                                if let Some(you) = self.words.get(&tokens[c].lower()) {
                                    tokens[c].word = cased(you, &tokens[c].word);
                                }
                            }
                            done[c] = true;
                        }
                        i = v;
                    }
                }
            }
            i += 1;
        }
        if !turned {
            return None;
        }
        for (token, done) in tokens.iter_mut().zip(&done) {
            if *done {
                continue;
            }
            let lower = token.lower();
            if let Some(you) = self.words.get(&lower) {
                token.word = cased(you.trim_end(), &token.word);
            } else if let Some(start) = elided_start(&lower, language) {
                if let Some(you) = self.words.get(start) {
                    let rest = &token.word[start.len()..];
                    token.word = format!("{}{rest}", cased(you, &token.word));
                }
            }
        }
        let text: Vec<String> = tokens
            .iter()
            .map(Token::written)
            .filter(|w| !w.is_empty())
            .collect();
        let text = text.join(" ").replace("  ", " ");
        Some(crate::facts::sentence_case(text.trim()))
    }

    /// Whether a dropped subject's verb may stand at `i`: the text's
    /// start, a sentence's, or after a joining word.
    fn starts_a_clause(&self, tokens: &[Token], i: usize) -> bool {
        if i == 0 {
            return true;
        }
        let before = &tokens[i - 1];
        before.trail.contains(['.', '!', '?', ';'])
            || (JOINS.contains(&before.lower().as_str()) && before.trail.is_empty())
    }
}

/// The player's `action` in the second person of `language`, where the
/// lexicon ships its person file (French, Spanish, German) and the words
/// say what the speaker does; `None` for a question, for words with no
/// verb of the speaker's ("Crocheter la serrure"), or for another
/// language. English is [`crate::act`]'s.
pub fn second_person(action: &str, language: &Language) -> Option<String> {
    let action = action.split_whitespace().collect::<Vec<_>>().join(" ");
    if action.is_empty() || action.trim_end_matches(['"', '»', '”', ' ']).ends_with('?') {
        return None;
    }
    of(language)?.turn(&action, language)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turned(code: &str, action: &str) -> Option<String> {
        second_person(action, &Language::parse(code).unwrap())
    }

    #[test]
    fn french_deeds_are_told_to_vous() {
        for (said, told) in [
            (
                "J'essaie de crocheter la serrure de la cave.",
                "Vous essayez de crocheter la serrure de la cave.",
            ),
            (
                "Je frappe le garde avant qu'il ne dégaine.",
                "Vous frappez le garde avant qu'il ne dégaine.",
            ),
            (
                "je m'approche du comptoir",
                "Vous vous approchez du comptoir",
            ),
            ("Je lui demande son nom.", "Vous lui demandez son nom."),
            ("Je n'ouvre pas la porte.", "Vous n'ouvrez pas la porte."),
            ("Je prends mon épée.", "Vous prenez votre épée."),
            ("J'attends dans l'ombre", "Vous attendez dans l'ombre"),
            (
                "Je dis au garde que je suis le capitaine.",
                "Vous dites au garde que vous êtes le capitaine.",
            ),
            (
                "Je choisis la porte de gauche",
                "Vous choisissez la porte de gauche",
            ),
            // A stem whose è turns back to e (crocheter) or to é (céder).
            ("Je crochète la serrure.", "Vous crochetez la serrure."),
            ("Je soulève la trappe.", "Vous soulevez la trappe."),
            ("Je libère le prisonnier.", "Vous libérez le prisonnier."),
            ("Je cède le passage.", "Vous cédez le passage."),
            ("Je sèche mes larmes.", "Vous séchez vos larmes."),
            ("Je répète la question.", "Vous répétez la question."),
        ] {
            assert_eq!(turned("fr", said).as_deref(), Some(told), "{said}");
        }
        assert_eq!(turned("fr", "Comment s'appelait l'aubergiste déjà ?"), None);
        assert_eq!(turned("fr", "Crocheter la serrure"), None);
    }

    #[test]
    fn spanish_deeds_are_told_to_tu() {
        for (said, told) in [
            (
                "Intento forzar la cerradura del sótano.",
                "Intentas forzar la cerradura del sótano.",
            ),
            (
                "Le pregunto al posadero su nombre",
                "Le preguntas al posadero su nombre",
            ),
            (
                "Me escondo detrás de la barra.",
                "Te escondes detrás de la barra.",
            ),
            (
                "yo ataco al orco con mi hacha",
                "Atacas al orco con tu hacha",
            ),
            ("Abro la puerta y entro.", "Abres la puerta y entras."),
            ("No puedo dormir.", "No puedes dormir."),
        ] {
            assert_eq!(turned("es", said).as_deref(), Some(told), "{said}");
        }
        assert_eq!(turned("es", "¿Cómo se llamaba el posadero?"), None);
        assert_eq!(turned("es", "Cuando amanece, nada."), None);
    }

    #[test]
    fn german_deeds_are_told_to_du() {
        for (said, told) in [
            (
                "Ich versuche, das Schloss zu knacken.",
                "Du versuchst, das Schloss zu knacken.",
            ),
            ("Dann öffne ich die Tür.", "Dann öffnest du die Tür."),
            (
                "Ich schleiche mich an den Wachen vorbei.",
                "Du schleichst dich an den Wachen vorbei.",
            ),
            ("ich nehme mein Schwert", "Du nimmst dein Schwert"),
            ("Ich warte auf den Wirt.", "Du wartest auf den Wirt."),
            ("Ich sammle Kräuter.", "Du sammelst Kräuter."),
            ("Ich hole Wasser.", "Du holst Wasser."),
            ("Ich setze mich.", "Du setzt dich."),
            ("Ich gehe in die Taverne.", "Du gehst in die Taverne."),
        ] {
            assert_eq!(turned("de", said).as_deref(), Some(told), "{said}");
        }
        assert_eq!(turned("de", "Wie hieß der Wirt noch mal?"), None);
    }

    #[test]
    fn a_language_without_a_person_file_is_not_turned() {
        assert_eq!(turned("en", "I open the door"), None);
        assert_eq!(turned("it", "Apro la porta"), None);
    }
}
