//! `narratoria play`: `/note` and `/language` keep a story's author's note
//! and language, and the storyteller is told them with the whole story;
//! a story's first words in French make a French story; an action longer
//! than the storyteller reads is refused before it is played.

use crate::support::*;

/// A story whose storyteller tells what it was told: the note, the
/// language and how many turns of the story.
fn teller() -> StoryDir {
    StoryDir::told_by(
        r#"
        req = json.loads(sys.stdin.readline())
        i = req.get("input") or {}
        text = "note=%s lang=%s turns=%d." % (i.get("authorNote"), i.get("language"), len(i.get("recentTurns", [])))
        emit({"type": "done", "ok": True, "output": {"narrative": text}})
        "#,
    )
}

/// `narratoria play --new` on `story` with `input` on stdin; its output,
/// once it ended well.
fn play(story: &StoryDir, input: &str) -> String {
    let (db, root) = (r(&story.db), r(&story.root));
    stdout_of(
        &["play", "--new", "--session", db, "--skills", root],
        story.home(),
        input,
    )
}

#[test]
fn note_and_language_are_kept_and_told_to_the_storyteller() {
    let story = teller();
    let too_long = "x".repeat(2001);
    let input = format!(
        "/help\n/note\n/language\n/note Keep it grim; no jokes.\n/language French\n\
         I look around the harbour\n/note\n/language\n/note {too_long}\n/language Elvish\n\
         I walk on\n/note clear\n/note\nI stop\n/quit\n"
    );
    let text = play(&story, &input);
    let has = |words: &str| assert!(text.contains(words), "{words:?} missing from:\n{text}");
    has("/note [TEXT|clear]");
    has("/language [CODE]");
    has("No author's note. /note TEXT sets one");
    has("The story's language is not known yet");
    has("Author's note saved");
    has("The story is told in French (fr) from the next turn.");
    has("note=Keep it grim; no jokes. lang=fr turns=0.");
    has("Author's note: Keep it grim; no jokes.");
    has("The story is told in French (fr). /language CODE changes it.");
    // Refused, naming the limit; the note kept before stays.
    has("the author's note holds 2001 characters; at most 2000 are allowed");
    has("\"Elvish\" is not a language");
    has("note=Keep it grim; no jokes. lang=fr turns=1.");
    has("Author's note cleared.");
    has("note=None lang=fr turns=2.");
}

#[test]
fn a_storys_first_words_tell_its_language() {
    let story = teller();
    let text = play(
        &story,
        "J'entre dans l'auberge et je regarde autour de moi\n/language\n/quit\n",
    );
    assert!(text.contains("note=None lang=fr turns=0."), "{text}");
    assert!(text.contains("The story is told in French (fr)."), "{text}");
}

/// An action of 2,001 characters is refused before it is played — at the
/// terminal, which goes on to the next line, by `turn` and by
/// `play --jsonl` (exit 2) — naming how long an action may be; nothing of
/// it is saved, so the storyteller tells every later turn (it failed its
/// input check on every later turn before).
#[test]
fn an_action_longer_than_an_action_may_be_is_refused_up_front() {
    let story = teller();
    let long = format!("I shout {}", "a".repeat(1993));
    assert_eq!(long.chars().count(), 2001);
    let text = play(&story, &format!("{long}\nI look around\nI wait\n/quit\n"));
    for words in [
        "an action holds at most 2000 characters; this one holds 2001",
        " turns=0.",
        " turns=1.",
    ] {
        assert!(text.contains(words), "{words:?} missing from:\n{text}");
    }

    let (root, db) = (&story.root, &story.db);
    let refused = turn(root, db, story.home(), &long);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(
        refused
            .stderr
            .contains("error[action_too_long]: an action holds at most 2000"),
        "{}",
        refused.stderr
    );
    let args = ["play", "--jsonl", "--session", r(db), "--skills", r(root)];
    let jsonl = with_stdin(&args, story.home(), format!("{long}\n").as_bytes());
    let stderr = String::from_utf8_lossy(&jsonl.stderr);
    assert_eq!(jsonl.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error[action_too_long]"), "{stderr}");
    assert!(jsonl.stdout.is_empty());
}
