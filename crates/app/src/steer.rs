//! A story's author's note and language (docs/stories.md, "Author's note"
//! and "Language"): the player reads and sets them, and every turn tells
//! them to the writer with the whole story.

use narratoria_core::error::ErrorCode;
use narratoria_core::narration::{Language, StoryTold, STORY_TURNS};
use narratoria_core::planner::TurnSummary;
use narratoria_core::store::{Store, TurnPlace};
use narratoria_core::sync;
use narratoria_core::turn::RECENT_TURNS;
use serde::Serialize;

use std::path::Path;

use crate::{locate, App, AppError};

/// A story's language, as the player is shown it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoryLanguage {
    /// Its ISO 639 code ("fr"); `None` while the story has none yet: it is
    /// told in English until the player's words tell which.
    pub code: Option<String>,
    /// Its English name ("French").
    pub name: String,
    /// Its own name for itself ("français").
    pub autonym: String,
    /// Set when the model that writes the story is known not to write this
    /// language well (docs/models.md, "Languages").
    pub writer_warning: Option<UnwrittenLanguage>,
}

/// The story's writer does not write the story's language well.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnwrittenLanguage {
    /// The writer's model file name, as the Model tab shows it.
    pub writer: String,
    /// The languages it writes well (ISO 639-1 codes, most fluent first).
    pub writes: Vec<String>,
    /// The catalog's models that write the story's language, by catalog
    /// name (`models download NAME`).
    pub models: Vec<String>,
}

impl StoryLanguage {
    fn of(language: Option<&Language>, writer: Option<&Path>) -> StoryLanguage {
        let shown = language.cloned().unwrap_or_default();
        StoryLanguage {
            code: language.map(|l| l.code().to_string()),
            name: shown.name().to_string(),
            autonym: shown.autonym().to_string(),
            writer_warning: writer.and_then(|w| unwritten(&shown, w)),
        }
    }

    /// The warning's line for the terminal (the window words its own).
    pub fn warning_line(&self) -> Option<String> {
        let w = self.writer_warning.as_ref()?;
        let mut line = format!(
            "{} writes {}, not {}: the story will read poorly.",
            w.writer,
            w.writes.join(", "),
            self.name
        );
        if !w.models.is_empty() {
            line.push_str(&format!(
                " Models that write {}: {} (narratoria models download NAME).",
                self.name,
                w.models.join(", ")
            ));
        }
        Some(line)
    }
}

/// Why `writer` cannot tell a story in `language`, when its languages are
/// known and do not hold it; `None` when it writes it or nobody knows.
fn unwritten(language: &Language, writer: &Path) -> Option<UnwrittenLanguage> {
    let (catalog, _) = locate::model_catalog();
    let writes = narratoria_models::languages::written_by(writer, &catalog)?;
    if writes.iter().any(|l| l == language.code()) {
        return None;
    }
    Some(UnwrittenLanguage {
        writer: writer
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        writes,
        models: narratoria_models::languages::narrators_writing(&catalog, language.code())
            .into_iter()
            .map(|e| e.name.clone())
            .collect(),
    })
}

impl App {
    /// The story's author's note; empty when it has none.
    pub fn author_note(&self, session: &str) -> Result<String, AppError> {
        Ok(sync::lock(&self.store).steer(session)?.author_note)
    }

    /// Keeps `note` (spaces around it taken off; empty: none) as the story's
    /// author's note, told to the writer from the next turn on; returns it
    /// as kept. A note over the limit is refused (`note_too_long`), and the
    /// one kept before stays.
    pub fn set_author_note(&self, session: &str, note: &str) -> Result<String, AppError> {
        let note = note.trim();
        sync::lock(&self.store).set_author_note(session, note)?;
        Ok(note.to_string())
    }

    /// Has the planner prepare, in the background, for the language
    /// `session` is told in (the router that reads it, and the skills'
    /// examples embedded for it), so a French story's first turn does not
    /// wait for it (docs/narrator.md, "Routing in every language"). An
    /// English story, or one whose language is not known yet, needs nothing.
    pub(crate) fn prepare_for_language(&self, session: &str) {
        let Ok(steer) = sync::lock(&self.store).steer(session) else {
            return;
        };
        let Some(language) = steer.language.filter(|l| !l.is_english()) else {
            return;
        };
        let (planner, catalog) = (self.planner(), self.registry.snapshot());
        std::thread::spawn(move || planner.warm_up_language(&catalog, &language));
    }

    /// The language the story is told in.
    pub fn story_language(&self, session: &str) -> Result<StoryLanguage, AppError> {
        let steer = sync::lock(&self.store).steer(session)?;
        let writer = self.writer_file();
        Ok(StoryLanguage::of(
            steer.language.as_ref(),
            writer.as_deref(),
        ))
    }

    /// Tells the story in the language `name` names (an ISO 639 code or an
    /// English name: "fr", "French") from the next turn on. Anything else is
    /// refused (`language_unknown`).
    pub fn set_story_language(&self, session: &str, name: &str) -> Result<StoryLanguage, AppError> {
        let language = Language::parse(name)
            .map_err(|e| AppError::new(ErrorCode::LanguageUnknown, e.to_string()))?;
        sync::lock(&self.store).set_language(session, &language)?;
        self.prepare_for_language(session);
        let writer = self.writer_file();
        Ok(StoryLanguage::of(Some(&language), writer.as_deref()))
    }
}

/// What a turn at `place`, whose player wrote `input`, is told: the
/// planner's window of recent turns, and the story as the narration is
/// told it (the branch's turns, the author's note, the language). A story
/// with no language yet takes the one `input` is written in, kept from then
/// on; when `input` says too little to tell, this turn is told in English
/// and the next one's words are judged again.
pub(crate) fn told_at(
    store: &Store,
    place: &TurnPlace,
    input: &str,
) -> Result<(Vec<TurnSummary>, StoryTold), AppError> {
    let steer = store.steer(&place.session)?;
    let language = match steer.language {
        Some(language) => language,
        None => match Language::detect(input) {
            Some(found) => {
                store.set_language(&place.session, &found)?;
                found
            }
            None => Language::english(),
        },
    };
    let turns = store.recent_for(place, STORY_TURNS)?;
    let recent = turns[turns.len().saturating_sub(RECENT_TURNS)..].to_vec();
    let before = place.path.len();
    Ok((
        recent,
        StoryTold::new(turns, before, steer.author_note, language),
    ))
}

#[cfg(test)]
mod tests {
    use crate::tests::{app_in, write_skill};
    use crate::App;
    use narratoria_core::error::ErrorCode;
    use std::path::Path;

    /// The default model writes English only: a French story says so, and
    /// names the catalog's models that write French; an English story, or
    /// a model nobody described, says nothing.
    #[test]
    fn a_writer_that_does_not_write_the_storys_language_is_named() {
        use super::{unwritten, StoryLanguage};
        use narratoria_core::narration::Language;
        let smol = Path::new("/models/SmolLM2-135M-Instruct.Q4_1.gguf");
        let french = Language::parse("fr").unwrap();
        let warning = unwritten(&french, smol).expect("SmolLM2 writes English only");
        assert_eq!(warning.writer, "SmolLM2-135M-Instruct.Q4_1.gguf");
        assert_eq!(warning.writes, ["en"]);
        assert!(
            warning.models.iter().any(|m| m == "qwen2.5-1.5b"),
            "{warning:?}"
        );
        assert!(
            !warning.models.iter().any(|m| m == "smollm2"),
            "{warning:?}"
        );
        assert_eq!(unwritten(&Language::english(), smol), None);
        assert_eq!(
            unwritten(
                &french,
                Path::new("/models/qwen2.5-1.5b-instruct-q4_k_m.gguf")
            ),
            None
        );
        assert_eq!(
            unwritten(&french, Path::new("/models/nobody-knows.gguf")),
            None
        );
        let line = StoryLanguage::of(Some(&french), Some(smol))
            .warning_line()
            .unwrap();
        assert!(
            line.starts_with("SmolLM2-135M-Instruct.Q4_1.gguf writes en, not French"),
            "{line}"
        );
        assert!(StoryLanguage::of(Some(&french), None)
            .warning_line()
            .is_none());
    }

    /// A storyteller that writes what it was told as the turn's narrative:
    /// the note, the language and the players' words of the turns it was
    /// told.
    const TELLS_WHAT_IT_WAS_TOLD: &str = "#!/usr/bin/env python3\nimport json, sys\n\
         req = json.loads(sys.stdin.readline())\n\
         i = req.get('input', {})\n\
         told = json.dumps({'authorNote': i.get('authorNote'), 'language': i.get('language'),\n\
                            'players': [t['player'] for t in i.get('recentTurns', [])]})\n\
         print(json.dumps({'type': 'done', 'ok': True, 'output': {'narrative': told}}))\n";

    /// An app over a sessions file in `dir`, with a storyteller that tells
    /// what it was told.
    fn app(dir: &Path) -> App {
        write_skill(dir, "storyteller", "narrate.py", TELLS_WHAT_IT_WAS_TOLD);
        app_in(dir)
    }

    fn told(view: &crate::TurnView) -> serde_json::Value {
        serde_json::from_str(&view.turn.narrative).expect("the storyteller's input")
    }

    #[tokio::test]
    async fn a_french_first_input_makes_a_french_story() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let id = app.new_session("Le Moulin").unwrap().session.id;
        assert_eq!(app.story_language(&id).unwrap().code, None);
        let first = app
            .play("J'entre dans l'auberge et je regarde autour de moi", None)
            .await
            .unwrap();
        assert_eq!(told(&first)["language"], "fr");
        let kept = app.story_language(&id).unwrap();
        assert_eq!(
            (kept.code.as_deref(), kept.name.as_str()),
            (Some("fr"), "French")
        );
        // Kept: a later English line does not change it.
        let second = app
            .play(
                "I walk into the harbour office and ask for the ledger",
                None,
            )
            .await
            .unwrap();
        assert_eq!(told(&second)["language"], "fr");
        // Reopened from its file, the story still knows it.
        drop(app);
        let app = self::app(dir.path());
        assert_eq!(app.story_language(&id).unwrap().code.as_deref(), Some("fr"));
    }

    #[tokio::test]
    async fn too_few_words_leave_the_language_to_the_next_turn() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let id = app.new_session("").unwrap().session.id;
        let first = app.play("hi", None).await.unwrap();
        assert_eq!(told(&first)["language"], "en");
        assert_eq!(app.story_language(&id).unwrap().code, None);
        app.play(
            "Ich öffne die Tür und gehe langsam in den dunklen Keller",
            None,
        )
        .await
        .unwrap();
        assert_eq!(app.story_language(&id).unwrap().code.as_deref(), Some("de"));
    }

    #[tokio::test]
    async fn the_note_the_language_and_the_whole_story_reach_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let id = app.new_session("").unwrap().session.id;
        assert_eq!(app.author_note(&id).unwrap(), "");
        let kept = app
            .set_author_note(&id, "  Keep it grim; Mara never lies.\n")
            .unwrap();
        assert_eq!(kept, "Keep it grim; Mara never lies.");
        assert_eq!(app.author_note(&id).unwrap(), kept);
        let set = app.set_story_language(&id, "Spanish").unwrap();
        assert_eq!(
            (set.code.as_deref(), set.autonym.as_str()),
            (Some("es"), "español")
        );
        for n in 1..=8 {
            app.play(&format!("I take step {n}"), None).await.unwrap();
        }
        let last = app.play("I take the last step", None).await.unwrap();
        let input = told(&last);
        assert_eq!(input["authorNote"], "Keep it grim; Mara never lies.");
        assert_eq!(input["language"], "es");
        let players = input["players"].as_array().unwrap();
        assert_eq!(
            players.len(),
            8,
            "every turn of the story, not the last few"
        );
        assert_eq!(players[0], "I take step 1");
        assert_eq!(players[7], "I take step 8");
        // The turn's record keeps only the last few of them.
        let plan = last.turn.attempts[0].plan.as_ref().unwrap();
        let narrate = plan["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["toolPath"] == "storyteller/narrate")
            .unwrap();
        assert_eq!(
            narrate["input"]["recentTurns"].as_array().unwrap().len(),
            crate::RECENT_TURNS
        );

        // Cleared, the note is no longer told.
        assert_eq!(app.set_author_note(&id, "").unwrap(), "");
        let after = app.play("I rest", None).await.unwrap();
        assert_eq!(told(&after)["authorNote"], serde_json::Value::Null);
    }

    #[test]
    fn a_note_too_long_and_a_language_there_is_none_of_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let id = app.new_session("").unwrap().session.id;
        app.set_author_note(&id, "Short.").unwrap();
        let long = app.set_author_note(&id, &"x".repeat(2001)).unwrap_err();
        assert_eq!(long.code, ErrorCode::NoteTooLong);
        assert!(long.message.contains("at most 2000"), "{}", long.message);
        assert_eq!(app.author_note(&id).unwrap(), "Short.");
        let unknown = app.set_story_language(&id, "Elvish").unwrap_err();
        assert_eq!(unknown.code, ErrorCode::LanguageUnknown);
        assert!(unknown.message.contains("Elvish"), "{}", unknown.message);
        assert_eq!(app.story_language(&id).unwrap().code, None);
        let missing = app.author_note("nobody").unwrap_err();
        assert_eq!(missing.code, ErrorCode::SessionNotFound);
    }
}
