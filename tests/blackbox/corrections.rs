//! Correcting a turn's mechanics at the terminal (`/roll`, `/noroll`,
//! `/corrections`), with the rule-based planner: the turn is played again
//! with the skills the player named, the correction is kept with the story
//! and shown by `skills check`, and it can be removed.

use crate::support::*;

#[test]
fn a_turn_corrected_at_the_terminal_is_played_again_and_remembered() {
    let story = StoryDir::told_by(
        r#"
        req = json.loads(sys.stdin.readline())
        emit({"type": "done", "ok": True, "output": {"narrative": "The tale goes on."}})
        "#,
    );
    let log = story.home().join("rolls.log");
    let dice = skill(
        &story.root,
        "dice-roller",
        &[("roll-dice.py", &worker_script(&log))],
    );
    let home = r(story.home());
    let root = r(&story.root);
    // No skill for a haggle by the rules' words; the player says it needed a roll.
    let played = with_stdin(
        &["play", "--new", "--skills", root],
        story.home(),
        b"I haggle for the horse\n/roll\n/roll\n/corrections\n/noskill nothing\n/quit\n",
    );
    let text = String::from_utf8_lossy(&played.stdout);
    let errors = String::from_utf8_lossy(&played.stderr);
    assert!(played.status.success(), "{text}\n{errors}");
    // The haggle drew no roll; /roll played it again with one.
    assert_eq!(ran(&log).len(), 1, "{text}\n{errors}");
    assert!(text.contains("this story has 1 correction"), "{text}");
    // A second /roll would change nothing: said, and nothing played.
    assert!(
        errors.contains("already used dice-roller") || text.contains("already used dice-roller"),
        "{text}\n{errors}"
    );
    assert!(
        text.contains("“I haggle for the horse” needs dice-roller"),
        "{text}"
    );
    assert!(
        errors.contains("the turn did not use nothing")
            || text.contains("the turn did not use nothing"),
        "{text}\n{errors}"
    );

    // The author sees it where the skill is checked.
    let checked = narratoria(
        ["skills", "check", r(&dice)],
        &[NO_MODEL, ("NARRATORIA_HOME", home)],
    );
    assert_eq!(checked.code, 0, "{}", checked.stderr);
    let corrections = &checked.json()["corrections"];
    assert_eq!(
        corrections[0]["correction"]["input"],
        "I haggle for the horse",
        "{}",
        pretty(corrections)
    );
    assert_eq!(
        corrections[0]["correction"]["needed"][0],
        "dice-roller/roll-dice"
    );

    // /noroll takes the roll back out, and its correction replaces the first.
    let again = with_stdin(
        &["play", "--skills", root],
        story.home(),
        b"/noroll\n/corrections\n/quit\n",
    );
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(
        again.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(ran(&log).len(), 1, "/noroll rolled: {text}");
    assert!(
        text.contains("“I haggle for the horse” needs no skill, not dice-roller"),
        "{text}"
    );
    let checked = narratoria(
        ["skills", "check", r(&dice)],
        &[NO_MODEL, ("NARRATORIA_HOME", home)],
    );
    let kept = checked.json()["corrections"].clone();
    assert_eq!(kept.as_array().map(Vec::len), Some(1), "{}", pretty(&kept));
    assert_eq!(kept[0]["correction"]["unneeded"][0], "dice-roller");
    let id = kept[0]["correction"]["id"].as_i64().unwrap();

    // /corrections remove forgets it.
    let removed = with_stdin(
        &["play", "--skills", root],
        story.home(),
        format!("/corrections remove {id}\n/corrections\n/quit\n").as_bytes(),
    );
    let text = String::from_utf8_lossy(&removed.stdout);
    assert!(
        text.contains(&format!("Correction {id} removed.")),
        "{text}"
    );
    assert!(text.contains("No corrections yet"), "{text}");
    let checked = narratoria(
        ["skills", "check", r(&dice)],
        &[NO_MODEL, ("NARRATORIA_HOME", home)],
    );
    assert_eq!(checked.json()["corrections"], serde_json::json!([]));
}
