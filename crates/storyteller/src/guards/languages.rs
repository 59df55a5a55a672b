//! The guards that need words read French, Spanish and German stories as
//! they read English ones, by each language's shipped words
//! (docs/stories.md, "Language").

use narratoria_lexicon::Language;

use super::testing::{grounded, opened, small};
use super::{Asked, Policy, Story};
use crate::sentences::SentenceStream;

fn every_guard(code: &str) -> Policy {
    Policy::for_writer(&small(), &Language::parse(code).unwrap())
}

/// What a small writer's `answer` keeps after `opening`, in a story whose
/// text is `story`, and whether the whole answer was turned down.
fn told_after(code: &str, story: &str, opening: &str, answer: &str) -> (String, bool) {
    let story = Story {
        text: story.into(),
        ..opened(opening)
    };
    let mut s = SentenceStream::new(every_guard(code), story, Asked::First);
    let mut text = s.push(answer);
    text.push_str(&s.finish());
    (text, s.turned_down())
}

#[test]
fn a_shipped_language_is_read_by_every_guard() {
    for code in ["fr", "es", "de"] {
        let names = every_guard(code).names();
        for name in [
            "repeats",
            "labels",
            "most_sentences",
            "unfinished",
            "adds_nothing",
            "acts_for_player",
            "stranger",
            "out_of_story",
        ] {
            assert!(names.contains(&name), "{code}: {name} in {names:?}");
        }
    }
}

#[test]
fn a_later_sentence_does_not_act_for_the_player() {
    for (code, answer, kept) in [
        (
            "fr",
            "Vous poussez, mais elle résiste. Vous ouvrez la fenêtre et sautez.",
            "Vous poussez, mais elle résiste.",
        ),
        (
            "fr",
            "Vous poussez, mais elle résiste. Vous entendez des pas.",
            "Vous poussez, mais elle résiste. Vous entendez des pas.",
        ),
        (
            "de",
            "Du drückst, aber sie hält. Du öffnest das Fenster und springst.",
            "Du drückst, aber sie hält.",
        ),
        (
            "de",
            "Du drückst, aber sie hält. Du hörst Schritte.",
            "Du drückst, aber sie hält. Du hörst Schritte.",
        ),
        (
            "es",
            "Empujas, pero resiste. Tú abres la ventana y saltas.",
            "Empujas, pero resiste.",
        ),
    ] {
        assert_eq!(grounded(every_guard(code), &[answer]), kept, "{code}");
    }
}

#[test]
fn no_one_the_story_has_not_met_is_brought_in() {
    let (text, _) = told_after(
        "fr",
        "Action : J'entre dans le phare et j'appelle le gardien.",
        "Vous entrez dans le phare, et",
        " la lumière vacille. Deux hommes vous regardent depuis l'escalier.",
    );
    assert_eq!(text, " la lumière vacille.");
    let (text, _) = told_after(
        "fr",
        "Un homme attend près du quai.",
        "Vous approchez, et",
        " la lumière vacille. L'homme lève les yeux.",
    );
    assert_eq!(text, " la lumière vacille. L'homme lève les yeux.");
    let (text, _) = told_after(
        "de",
        "Aktion: Ich betrete den Leuchtturm.",
        "Du betrittst den Leuchtturm, und",
        " das Licht flackert. Zwei Männer starren dich an.",
    );
    assert_eq!(text, " das Licht flackert.");
    let (text, _) = told_after(
        "es",
        "Acción: Entro en el faro.",
        "Entras en el faro, y",
        " la luz parpadea. Dos mujeres te miran.",
    );
    assert_eq!(text, " la luz parpadea.");
}

#[test]
fn the_narration_stays_in_the_story() {
    for (code, opening, answer) in [
        ("fr", "Vous frappez, et", " j'entends un bruit. "),
        ("fr", "Vous frappez, et", " ce n’était qu’un rêve. "),
        ("de", "Du klopfst, und", " ich bleibe allein zurück. "),
        ("es", "Llamas a la puerta, y", " el narrador se calla. "),
    ] {
        let (text, turned_down) = told_after(code, "", opening, answer);
        assert_eq!((text.as_str(), turned_down), ("", true), "{code}: {answer}");
    }
    // Words inside a quotation are the speaker's.
    let kept = grounded(
        every_guard("fr"),
        &["Vous frappez, et le garde répond : « Je suis là. » "],
    );
    assert!(kept.contains("répond : « Je suis là."), "{kept}");
}

#[test]
fn a_sentence_does_not_stop_before_what_its_last_word_begins() {
    for (code, answer, kept) in [
        (
            "fr",
            "Vous poussez la porte. Vous voyez le.",
            "Vous poussez la porte.",
        ),
        (
            "fr",
            "Vous poussez la porte. Le garde en prend un.",
            "Vous poussez la porte. Le garde en prend un.",
        ),
        (
            "de",
            "Du drückst die Tür auf. Du siehst den.",
            "Du drückst die Tür auf.",
        ),
        (
            "de",
            "Du drückst die Tür auf. Der Wirt sieht dich an.",
            "Du drückst die Tür auf. Der Wirt sieht dich an.",
        ),
        ("es", "Empujas la puerta. Ves el.", "Empujas la puerta."),
    ] {
        assert_eq!(grounded(every_guard(code), &[answer]), kept, "{code}");
    }
}
