//! Saved stories: list, start, open, rewind, export.

use narratoria_core::error::ErrorCode;
use narratoria_core::store::SessionInfo;
use narratoria_core::sync;
use serde_json::Map;

use crate::{App, AppError, SessionView};

impl App {
    /// Every saved session, most recent first.
    pub fn sessions(&self) -> Result<Vec<SessionInfo>, AppError> {
        Ok(sync::lock(&self.store).sessions()?)
    }

    /// Starts a new session and makes it current.
    pub fn new_session(&self, title: &str) -> Result<SessionView, AppError> {
        let title = if title.trim().is_empty() {
            "A new story"
        } else {
            title.trim()
        };
        let id = sync::lock(&self.store).create_session(title, &Map::new())?;
        self.open_session(&id)
    }

    /// Makes a session current and returns it with its turns.
    pub fn open_session(&self, id: &str) -> Result<SessionView, AppError> {
        let view = self.session_view(id)?;
        *sync::lock(&self.session) = Some(id.to_string());
        self.change_skill_state(|s| s.enter_session(id))?;
        self.prepare_for_language(id);
        Ok(view)
    }

    /// The current session, continuing the latest one when none is open; a
    /// player's very first story starts from the built-in scenario offered
    /// first, so it opens on a scene rather than on nothing.
    pub fn current_session(&self) -> Result<SessionView, AppError> {
        let current = sync::lock(&self.session).clone();
        match current {
            Some(id) => self.session_view(&id),
            None => {
                let latest = sync::lock(&self.store).latest_session()?;
                match latest {
                    Some(info) => self.open_session(&info.id),
                    None => self.new_story(None),
                }
            }
        }
    }

    /// The current session's id, continuing the latest one (or starting
    /// one) when none is open, without reading its turns.
    pub fn current_session_id(&self) -> Result<String, AppError> {
        let current = sync::lock(&self.session).clone();
        match current {
            Some(id) => Ok(id),
            None => Ok(self.current_session()?.session.id),
        }
    }

    pub(crate) fn session_view(&self, id: &str) -> Result<SessionView, AppError> {
        let store = sync::lock(&self.store);
        Ok(SessionView {
            session: store.session(id)?,
            turns: store.turns(id)?,
            state: store.current_state(id)?,
        })
    }

    /// Rewinds a session to just after turn `turn` (0 = its start).
    pub fn rewind(&self, id: &str, turn: u32) -> Result<SessionView, AppError> {
        let _held = self.turn_locks.hold_blocking(id);
        sync::lock(&self.store).rewind(id, turn)?;
        self.session_view(id)
    }

    /// A session as Markdown (`md`) or JSON (`json`).
    pub fn export(&self, id: &str, format: &str) -> Result<String, AppError> {
        let store = sync::lock(&self.store);
        match format {
            "json" => {
                Ok(serde_json::to_string_pretty(&store.export_json(id)?).expect("serialises"))
            }
            "md" | "markdown" => Ok(store.export_markdown(id)?),
            "tree" => {
                Ok(serde_json::to_string_pretty(&store.export_tree_json(id)?).expect("serialises"))
            }
            other => Err(AppError::new(
                ErrorCode::ExportFormatUnknown,
                format!("unknown export format {other:?} (md, json or tree)"),
            )),
        }
    }

    /// Writes a session's export (`md`, `json` or `tree`) to `dest` and
    /// returns the bytes written. The file is replaced whole: on any failure
    /// (a full disk, a missing folder) a file already at `dest` is left as it
    /// was and no partial file stays behind.
    pub fn export_to_file(
        &self,
        id: &str,
        format: &str,
        dest: &std::path::Path,
    ) -> Result<usize, AppError> {
        let text = self.export(id, format)?;
        narratoria_core::fs::write_atomically(dest, text.as_bytes(), false).map_err(|e| {
            AppError::new(
                ErrorCode::Io,
                format!("cannot write {}: {e}", dest.display()),
            )
        })?;
        Ok(text.len())
    }
}
