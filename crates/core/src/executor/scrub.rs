//! Keeps a skill's secrets out of everything its run leaves behind: the
//! output its dependents read, the state patches that reach the session and
//! its saved turns, the error that becomes the plan's failure message (shown,
//! stored and given to the narrator when it replans), and the stderr tail.

use super::attempts::ToolRun;
use crate::result::ToolError;
use crate::skills::config::{scrub, scrub_map, scrub_text};

impl ToolRun {
    /// Replaces every occurrence of `secrets` in what the run produced.
    pub(super) fn scrub(&mut self, secrets: &[String]) {
        if secrets.is_empty() {
            return;
        }
        if let Some(output) = &mut self.output {
            scrub(output, secrets);
        }
        for patch in &mut self.patches {
            scrub_map(patch, secrets);
        }
        for event in &mut self.events {
            scrub_map(event, secrets);
        }
        if let Some(error) = &mut self.error {
            scrub_error(error, secrets);
        }
        scrub_text(&mut self.stderr, secrets);
    }
}

/// Replaces every occurrence of `secrets` in an error's words.
pub(super) fn scrub_error(error: &mut ToolError, secrets: &[String]) {
    scrub_text(&mut error.message, secrets);
    if let Some(code) = &mut error.code {
        scrub_text(code, secrets);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::result::{ExecutionState, ToolErrorType};
    use crate::skills::config::REDACTED;

    #[test]
    fn nothing_a_run_leaves_behind_keeps_a_secret() {
        let secret = "sk-live-0123456789".to_string();
        let mut run = ToolRun::not_run(ToolError {
            error_type: ToolErrorType::ScriptError,
            message: format!("UNAUTHORIZED: key {secret} refused"),
            exit_code: Some(1),
            code: Some(format!("E_{secret}")),
            recoverable: false,
        });
        run.state = ExecutionState::Completed;
        run.output = Some(json!({"echo": secret, secret.clone(): [secret]}));
        run.patches = vec![json!({"player": {"key": secret}})
            .as_object()
            .unwrap()
            .clone()];
        run.stderr = format!("debug {secret}\n");
        run.scrub(std::slice::from_ref(&secret));
        let text = format!(
            "{:?} {:?} {:?} {:?}",
            run.output, run.patches, run.error, run.stderr
        );
        assert!(!text.contains(&secret), "{text}");
        assert!(text.contains(REDACTED));
    }
}
