//! The script side of the protocol (types in `narratoria-protocol`): the
//! stdin envelope, read leniently, and a writer of stdout events, one JSON
//! object per line.

use std::io::Write;

use serde_json::{Map, Value};

pub use narratoria_protocol::{Envelope, Event, LogLevel, ScriptError};

use crate::error::SkillError;

impl From<&SkillError> for ScriptError {
    fn from(err: &SkillError) -> ScriptError {
        ScriptError {
            code: err.code.into(),
            message: err.message.clone(),
            recoverable: err.recoverable,
            details: err.details.clone(),
        }
    }
}

/// Parses the stdin line: any `narratoria/1.x` envelope (`narratoria/1` and
/// `narratoria/1.1` alike); anything else is a validation error naming the
/// problem.
pub fn parse_envelope(line: &str) -> Result<Envelope, SkillError> {
    Envelope::parse(line).map_err(|e| SkillError::validation(format!("stdin: {e}")))
}

/// Writes events to a sink (stdout in a script), one line each, flushed at
/// once so the executor sees them live. Write failures are ignored: a closed
/// stdout leaves nothing to report to.
pub struct Events<W: Write> {
    out: W,
    done: bool,
}

impl<W: Write> Events<W> {
    pub fn new(out: W) -> Events<W> {
        Events { out, done: false }
    }

    /// Writes any event; nothing is written once `done` has been.
    pub fn event(&mut self, event: &Event) {
        if self.done {
            return; // nothing may follow `done`
        }
        let mut line = event.to_line().into_bytes();
        line.push(b'\n');
        let _ = self.out.write_all(&line);
        let _ = self.out.flush();
        if matches!(event, Event::Done { .. }) {
            self.done = true;
        }
    }

    /// A `log` event.
    pub fn log(&mut self, level: LogLevel, message: impl Into<String>) {
        self.event(&Event::Log {
            level,
            message: message.into(),
        });
    }

    /// A `state_patch` event (deep-merged into session state if the run
    /// succeeds). The patch must be an object; another value is not sent and
    /// an error-level `log` says so.
    pub fn state_patch(&mut self, patch: Value) {
        if let Some(patch) = self.object("state_patch", "patch", patch) {
            self.event(&Event::StatePatch { patch });
        }
    }

    /// A `ui_event` forwarded live to the UI. The payload must be an object
    /// (`null` is sent as `{}`); another value is not sent and an error-level
    /// `log` says so.
    pub fn ui_event(&mut self, event: &str, payload: Value) {
        let payload = match payload {
            Value::Null => Some(Map::new()),
            other => self.object("ui_event", "payload", other),
        };
        if let Some(payload) = payload {
            self.event(&Event::UiEvent {
                event: event.to_string(),
                payload,
            });
        }
    }

    /// An `error` event carrying the failure's code.
    pub fn error(&mut self, err: &SkillError) {
        self.event(&Event::Error(err.into()));
    }

    /// The final `done` event; later events are dropped.
    pub fn done(&mut self, ok: bool, output: Option<Value>, summary: Option<String>) {
        self.event(&Event::Done {
            ok,
            output,
            summary,
        });
    }

    /// The sink, for tests.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// `value` as an object, or `None` after logging that `event.field` was not one.
    fn object(&mut self, event: &str, field: &str, value: Value) -> Option<Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                self.log(
                    LogLevel::Error,
                    format!("{event} not sent: its {field} must be an object, not {other}"),
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(buf: Vec<u8>) -> Vec<Value> {
        String::from_utf8(buf)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn events_are_one_json_object_per_line_and_nothing_follows_done() {
        let mut ev = Events::new(Vec::new());
        ev.log(LogLevel::Info, "hi\nthere");
        ev.error(&SkillError::validation("bad"));
        ev.done(false, None, Some("failed".into()));
        ev.log(LogLevel::Info, "late");
        let got = lines(ev.into_inner());
        assert_eq!(got.len(), 3);
        assert_eq!(got[0]["message"], "hi\nthere");
        assert_eq!(got[1]["code"], "VALIDATION_ERROR");
        assert_eq!(got[1]["recoverable"], false);
        assert_eq!(
            got[2],
            json!({"type": "done", "ok": false, "summary": "failed"})
        );
    }

    #[test]
    fn every_written_line_reads_back_as_the_engine_sees_it() {
        let mut ev = Events::new(Vec::new());
        ev.state_patch(json!({"a": 1}));
        ev.ui_event("dice_roll", json!({"total": 7}));
        ev.ui_event("ping", Value::Null);
        ev.error(&SkillError::internal("oops").with_details(json!({"at": 1})));
        ev.done(true, Some(json!({"x": 1})), None);
        let text = String::from_utf8(ev.into_inner()).unwrap();
        let mut checker = narratoria_protocol::StreamChecker::new(100, 1 << 20);
        for line in text.lines() {
            checker.accept(line.as_bytes()).unwrap();
        }
        assert!(checker.saw_done());
        assert_eq!(text.lines().count(), 5);
    }

    #[test]
    fn a_patch_or_payload_that_is_not_an_object_is_logged_instead() {
        let mut ev = Events::new(Vec::new());
        ev.state_patch(json!([1]));
        ev.ui_event("dice_roll", json!(3));
        let got = lines(ev.into_inner());
        assert_eq!(got.len(), 2);
        assert!(got
            .iter()
            .all(|l| l["type"] == "log" && l["level"] == "error"));
    }

    #[test]
    fn envelope_parses_and_rejects_other_protocols() {
        let env = Envelope::parse(r#"{"protocol":"narratoria/1","requestId":"r","toolId":"t","input":{"a":1},"deps":{},"config":{},"state":{}}"#).unwrap();
        assert_eq!(env.input["a"], 1);
        assert!(Envelope::parse(r#"{"protocol":"narratoria/9"}"#).is_err());
        assert!(Envelope::parse("not json").is_err());
    }

    #[test]
    fn scripts_accept_both_minor_versions() {
        for protocol in ["narratoria/1", "narratoria/1.1"] {
            let line = format!(r#"{{"protocol":"{protocol}","input":{{}},"host":{{}}}}"#);
            assert!(parse_envelope(&line).is_ok(), "{protocol}");
        }
        let err = parse_envelope(r#"{"protocol":"narratoria/2"}"#).unwrap_err();
        assert_eq!(err.code, crate::FailureCode::ValidationError);
        assert!(err.message.contains("narratoria/2"), "{}", err.message);
    }
}
