//! The story written out: the current branch as JSON or Markdown, for
//! reading and sharing, and the whole tree as JSON.

use serde_json::Value;

use super::{Store, StoreError};

impl Store {
    /// The current branch as one JSON document: the session, the branch's
    /// name, the initial state and its turns, first to head.
    pub fn export_json(&self, session: &str) -> Result<Value, StoreError> {
        let info = self.session(session)?;
        Ok(serde_json::json!({
            "branch": info.branch,
            "session": info,
            "initialState": self.initial_state(session)?,
            "turns": self.turns(session)?,
        }))
    }

    /// The whole story as one JSON document: the session, the initial
    /// state, every branch and every turn with all its narrations.
    pub fn export_tree_json(&self, session: &str) -> Result<Value, StoreError> {
        let tree = self.tree(session)?;
        let mut doc = serde_json::to_value(&tree).expect("serialises");
        doc["initialState"] = Value::Object(self.initial_state(session)?);
        Ok(doc)
    }

    /// The current branch as Markdown, for reading and sharing.
    pub fn export_markdown(&self, session: &str) -> Result<String, StoreError> {
        let info = self.session(session)?;
        let mut md = format!(
            "# {}\n\n_Started {}; {} turn(s)._\n",
            info.title, info.created_at, info.turns
        );
        if self.branches(session)?.len() > 1 {
            md.push_str(&format!("\n_Branch: {}._\n", info.branch));
        }
        for t in self.turns(session)? {
            md.push_str(&format!(
                "\n## Turn {}\n\n> {}\n\n{}\n",
                t.number,
                t.input.replace('\n', "\n> "),
                t.narrative
            ));
        }
        Ok(md)
    }
}
