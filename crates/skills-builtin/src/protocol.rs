//! The script side of protocol `narratoria/1`: the stdin envelope and the
//! events written to stdout, one JSON object per line.

use std::io::Write;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::SkillError;

/// The protocol version this crate speaks.
pub const PROTOCOL: &str = "narratoria/1";

/// The one JSON line a script receives on stdin.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    #[serde(default)]
    pub protocol: String,
    #[serde(default)]
    pub request_id: String,
    #[serde(default)]
    pub tool_id: String,
    #[serde(default)]
    pub input: Value,
    #[serde(default)]
    pub deps: Map<String, Value>,
    /// The skill's resolved config; `null` is read as `{}`.
    #[serde(default)]
    pub config: Value,
    #[serde(default)]
    pub state: Value,
}

impl Envelope {
    /// Parses the stdin line; an error names what is wrong with it.
    pub fn parse(line: &str) -> Result<Envelope, SkillError> {
        let env: Envelope = serde_json::from_str(line.trim()).map_err(|e| {
            SkillError::validation(format!("stdin is not a protocol envelope: {e}"))
        })?;
        if !env.protocol.is_empty() && env.protocol != PROTOCOL {
            return Err(SkillError::validation(format!(
                "unsupported protocol {:?}; this script speaks {PROTOCOL}",
                env.protocol
            )));
        }
        Ok(env)
    }
}

/// Severity of a `log` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
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

    fn emit(&mut self, event: Value) {
        if self.done {
            return; // nothing may follow `done`
        }
        let mut line = serde_json::to_vec(&event).unwrap_or_default();
        line.push(b'\n');
        let _ = self.out.write_all(&line);
        let _ = self.out.flush();
    }

    /// A `log` event.
    pub fn log(&mut self, level: LogLevel, message: impl Into<String>) {
        self.emit(json!({"type": "log", "level": level, "message": message.into()}));
    }

    /// A `state_patch` event (deep-merged into session state if the run succeeds).
    pub fn state_patch(&mut self, patch: Value) {
        self.emit(json!({"type": "state_patch", "patch": patch}));
    }

    /// A `ui_event` forwarded live to the UI.
    pub fn ui_event(&mut self, event: &str, payload: Value) {
        self.emit(json!({"type": "ui_event", "event": event, "payload": payload}));
    }

    /// An `error` event carrying the failure's code.
    pub fn error(&mut self, err: &SkillError) {
        let mut ev = json!({
            "type": "error",
            "code": err.code,
            "message": err.message,
            "recoverable": err.recoverable,
        });
        if let Some(d) = &err.details {
            ev["details"] = d.clone();
        }
        self.emit(ev);
    }

    /// The final `done` event; later events are dropped.
    pub fn done(&mut self, ok: bool, output: Option<Value>, summary: Option<String>) {
        let mut ev = json!({"type": "done", "ok": ok});
        if let Some(o) = output {
            ev["output"] = o;
        }
        if let Some(s) = summary {
            ev["summary"] = Value::String(s);
        }
        self.emit(ev);
        self.done = true;
    }

    /// The sink, for tests.
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn envelope_parses_and_rejects_other_protocols() {
        let env = Envelope::parse(r#"{"protocol":"narratoria/1","requestId":"r","toolId":"t","input":{"a":1},"deps":{},"config":{},"state":{}}"#).unwrap();
        assert_eq!(env.input["a"], 1);
        assert!(Envelope::parse(r#"{"protocol":"narratoria/9"}"#).is_err());
        assert!(Envelope::parse("not json").is_err());
    }
}
