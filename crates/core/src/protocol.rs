//! Skill script protocol v1 (`narratoria/1`): the stdin envelope, the stdout
//! events and a line parser with size caps. Pure data and parsing — no I/O, so
//! both the engine side and any script-side helper can use it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol identifier carried in every envelope.
pub const PROTOCOL: &str = "narratoria/1";
/// The value of `NARRATORIA_PROTOCOL` given to scripts.
pub const PROTOCOL_VERSION: &str = "1";
/// Longest accepted stdout line, in bytes (without the newline).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// Default cap on events per attempt.
pub const DEFAULT_MAX_EVENTS: usize = 10_000;
/// Default cap on stdout bytes per attempt.
pub const DEFAULT_MAX_STDOUT_BYTES: usize = 8 * 1024 * 1024;

/// The single JSON line written to a script's stdin.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    pub protocol: String,
    pub request_id: String,
    pub tool_id: String,
    pub input: Map<String, Value>,
    /// Output of each declared dependency; `null` when it failed or was optional.
    pub deps: Map<String, Value>,
    pub config: Value,
    pub state: Value,
}

/// Severity of a `log` event.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

/// Kind of an `asset` event.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AssetKind {
    Image,
    Audio,
    Text,
    File,
}

/// The failure codes of seed 003; anything else is kept as text.
pub const FAILURE_CODES: [&str; 8] = [
    "VALIDATION_ERROR",
    "NOT_FOUND",
    "UNAUTHORIZED",
    "RATE_EXCEEDED",
    "TIMEOUT",
    "PERSISTENCE_ERROR",
    "EXTERNAL_SERVICE_ERROR",
    "INTERNAL_ERROR",
];

/// One event a script wrote to stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Log {
        level: LogLevel,
        message: String,
    },
    StatePatch {
        patch: Map<String, Value>,
    },
    Asset(Asset),
    UiEvent {
        event: String,
        payload: Map<String, Value>,
    },
    Error(ScriptError),
    Done {
        ok: bool,
        output: Option<Value>,
        summary: Option<String>,
    },
}

/// An `asset` event's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    pub asset_id: String,
    pub kind: AssetKind,
    pub path: Option<String>,
    pub url: Option<String>,
    pub mime_type: Option<String>,
    pub metadata: Option<Value>,
}

/// An `error` event's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError {
    pub code: String,
    pub message: String,
    /// `false` means the executor must not retry the attempt.
    pub recoverable: bool,
    pub details: Option<Value>,
}

/// Why a stdout line broke the protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    #[error("line is not valid JSON: {0}")]
    NotJson(String),
    #[error("line is not a JSON object")]
    NotAnObject,
    #[error("event has no \"type\" field")]
    MissingType,
    #[error("unknown event type {0:?}")]
    UnknownType(String),
    #[error("event {event:?}: field {field:?} {problem}")]
    BadField {
        event: String,
        field: String,
        problem: String,
    },
    #[error("line is longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong,
    #[error("line is not valid UTF-8")]
    NotUtf8,
    #[error("event after \"done\"")]
    EventAfterDone,
    #[error("exit status 0 without a \"done\" event")]
    MissingDone,
    #[error("more than {0} events")]
    TooManyEvents(usize),
    #[error("more than {0} bytes of stdout")]
    TooMuchOutput(usize),
    #[error("asset path {0:?} is outside the skill and data folders")]
    AssetOutsideFolders(String),
}

/// A parsed line: either nothing (an empty line) or one event together with
/// the JSON object it came from (kept for the trace).
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Empty,
    Event(Event, Map<String, Value>),
}

/// Parses one stdout line (without its newline) into an event.
pub fn parse_line(line: &[u8]) -> Result<Line, Violation> {
    if line.len() > MAX_LINE_BYTES {
        return Err(Violation::LineTooLong);
    }
    let text = std::str::from_utf8(line).map_err(|_| Violation::NotUtf8)?;
    let text = text.trim_end_matches('\r');
    if text.trim().is_empty() {
        return Ok(Line::Empty);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| Violation::NotJson(e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(Violation::NotAnObject);
    };
    let event = parse_event(&obj)?;
    Ok(Line::Event(event, obj))
}

/// Interprets a JSON object as a protocol event. Unknown extra fields are ignored.
pub fn parse_event(obj: &Map<String, Value>) -> Result<Event, Violation> {
    let ty = match obj.get("type") {
        None | Some(Value::Null) => return Err(Violation::MissingType),
        Some(Value::String(s)) => s.as_str(),
        Some(_) => {
            return Err(Violation::BadField {
                event: "?".into(),
                field: "type".into(),
                problem: "must be a string".into(),
            })
        }
    };
    let f = Fields { obj, event: ty };
    Ok(match ty {
        "log" => Event::Log {
            level: f.enumerated("level", true)?.unwrap_or(LogLevel::Info),
            message: f.string("message", true)?.unwrap_or_default(),
        },
        "state_patch" => Event::StatePatch {
            patch: f.object("patch", true)?.unwrap_or_default(),
        },
        "asset" => {
            let asset = Asset {
                asset_id: f.string("assetId", true)?.unwrap_or_default(),
                kind: f.enumerated("kind", true)?.unwrap_or(AssetKind::File),
                path: f.string("path", false)?,
                url: f.string("url", false)?,
                mime_type: f.string("mimeType", false)?,
                metadata: obj.get("metadata").filter(|v| !v.is_null()).cloned(),
            };
            if asset.path.is_none() && asset.url.is_none() {
                return Err(f.bad("path", "or \"url\" is required"));
            }
            Event::Asset(asset)
        }
        "ui_event" => Event::UiEvent {
            event: f.string("event", true)?.unwrap_or_default(),
            payload: f.object("payload", false)?.unwrap_or_default(),
        },
        "error" => Event::Error(ScriptError {
            code: f.string("code", true)?.unwrap_or_default(),
            message: f.string("message", true)?.unwrap_or_default(),
            recoverable: f.boolean("recoverable", false)?.unwrap_or(true),
            details: obj.get("details").filter(|v| !v.is_null()).cloned(),
        }),
        "done" => Event::Done {
            ok: f.boolean("ok", true)?.unwrap_or(false),
            output: obj.get("output").cloned(),
            summary: f.string("summary", false)?,
        },
        other => return Err(Violation::UnknownType(other.to_string())),
    })
}

struct Fields<'a> {
    obj: &'a Map<String, Value>,
    event: &'a str,
}

impl Fields<'_> {
    fn bad(&self, field: &str, problem: &str) -> Violation {
        Violation::BadField {
            event: self.event.into(),
            field: field.into(),
            problem: problem.into(),
        }
    }

    fn present(&self, field: &str, required: bool) -> Result<Option<&Value>, Violation> {
        match self.obj.get(field) {
            None | Some(Value::Null) if required => Err(self.bad(field, "is required")),
            None | Some(Value::Null) => Ok(None),
            Some(v) => Ok(Some(v)),
        }
    }

    fn string(&self, field: &str, required: bool) -> Result<Option<String>, Violation> {
        match self.present(field, required)? {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.bad(field, "must be a string")),
        }
    }

    fn boolean(&self, field: &str, required: bool) -> Result<Option<bool>, Violation> {
        match self.present(field, required)? {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.bad(field, "must be a boolean")),
        }
    }

    fn object(&self, field: &str, required: bool) -> Result<Option<Map<String, Value>>, Violation> {
        match self.present(field, required)? {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m.clone())),
            Some(_) => Err(self.bad(field, "must be an object")),
        }
    }

    fn enumerated<T: serde::de::DeserializeOwned>(
        &self,
        field: &str,
        required: bool,
    ) -> Result<Option<T>, Violation> {
        match self.present(field, required)? {
            None => Ok(None),
            Some(v) => serde_json::from_value(v.clone())
                .map(Some)
                .map_err(|_| self.bad(field, &format!("has an unknown value {v}"))),
        }
    }
}

/// Tracks one attempt's stream of lines against the protocol's rules and caps.
#[derive(Debug)]
pub struct StreamChecker {
    max_events: usize,
    max_bytes: usize,
    events: usize,
    bytes: usize,
    done: bool,
}

impl StreamChecker {
    /// A checker enforcing the given caps on events and stdout bytes.
    pub fn new(max_events: usize, max_bytes: usize) -> Self {
        Self {
            max_events,
            max_bytes,
            events: 0,
            bytes: 0,
            done: false,
        }
    }

    /// Accepts one raw line (without newline); returns its event, if any.
    pub fn accept(
        &mut self,
        line: &[u8],
    ) -> Result<Option<(Event, Map<String, Value>)>, Violation> {
        self.bytes = self.bytes.saturating_add(line.len() + 1);
        if self.bytes > self.max_bytes {
            return Err(Violation::TooMuchOutput(self.max_bytes));
        }
        match parse_line(line)? {
            Line::Empty => Ok(None),
            Line::Event(event, raw) => {
                if self.done {
                    return Err(Violation::EventAfterDone);
                }
                self.events += 1;
                if self.events > self.max_events {
                    return Err(Violation::TooManyEvents(self.max_events));
                }
                if matches!(event, Event::Done { .. }) {
                    self.done = true;
                }
                Ok(Some((event, raw)))
            }
        }
    }

    /// Whether a `done` event has been seen.
    pub fn saw_done(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(s: &str) -> Result<Line, Violation> {
        parse_line(s.as_bytes())
    }

    fn event(s: &str) -> Event {
        match parse(s).unwrap() {
            Line::Event(e, _) => e,
            Line::Empty => panic!("empty"),
        }
    }

    #[test]
    fn parses_every_event_type() {
        assert_eq!(
            event(r#"{"type":"log","level":"warn","message":"hi"}"#),
            Event::Log {
                level: LogLevel::Warn,
                message: "hi".into()
            }
        );
        assert!(matches!(
            event(r#"{"type":"state_patch","patch":{"a":1}}"#),
            Event::StatePatch { .. }
        ));
        assert!(matches!(
            event(r#"{"type":"asset","assetId":"a","kind":"image","path":"x.png"}"#),
            Event::Asset(Asset {
                kind: AssetKind::Image,
                ..
            })
        ));
        assert!(matches!(
            event(r#"{"type":"ui_event","event":"dice_roll","payload":{}}"#),
            Event::UiEvent { .. }
        ));
        assert_eq!(
            event(r#"{"type":"error","code":"NOT_FOUND","message":"m","recoverable":false}"#),
            Event::Error(ScriptError {
                code: "NOT_FOUND".into(),
                message: "m".into(),
                recoverable: false,
                details: None
            })
        );
        assert_eq!(
            event(r#"{"type":"done","ok":true,"output":{"x":1},"summary":"s"}"#),
            Event::Done {
                ok: true,
                output: Some(json!({"x":1})),
                summary: Some("s".into())
            }
        );
    }

    #[test]
    fn unknown_extra_fields_are_ignored() {
        assert!(matches!(
            event(r#"{"type":"done","ok":true,"future":42}"#),
            Event::Done { ok: true, .. }
        ));
    }

    #[test]
    fn rejects_malformed_lines() {
        assert!(matches!(parse("not json"), Err(Violation::NotJson(_))));
        assert_eq!(parse("[1,2]"), Err(Violation::NotAnObject));
        assert_eq!(parse(r#"{"ok":true}"#), Err(Violation::MissingType));
        assert_eq!(
            parse(r#"{"type":"shout"}"#),
            Err(Violation::UnknownType("shout".into()))
        );
        assert!(matches!(
            parse(r#"{"type":"done","ok":"yes"}"#),
            Err(Violation::BadField { .. })
        ));
        assert!(matches!(
            parse(r#"{"type":"done"}"#),
            Err(Violation::BadField { .. })
        ));
        assert!(matches!(
            parse(r#"{"type":"state_patch","patch":[1]}"#),
            Err(Violation::BadField { .. })
        ));
        assert!(matches!(
            parse(r#"{"type":"asset","assetId":"a","kind":"image"}"#),
            Err(Violation::BadField { .. })
        ));
        assert!(matches!(
            parse(r#"{"type":"log","level":"loud","message":"m"}"#),
            Err(Violation::BadField { .. })
        ));
        assert_eq!(parse_line(&[0xff, 0xfe]), Err(Violation::NotUtf8));
        let long = vec![b' '; MAX_LINE_BYTES + 1];
        assert_eq!(parse_line(&long), Err(Violation::LineTooLong));
    }

    #[test]
    fn empty_lines_are_accepted() {
        assert_eq!(parse(""), Ok(Line::Empty));
        assert_eq!(parse("   \r"), Ok(Line::Empty));
    }

    #[test]
    fn error_defaults_to_recoverable() {
        let Event::Error(e) = event(r#"{"type":"error","code":"X","message":"m"}"#) else {
            panic!()
        };
        assert!(e.recoverable);
    }

    #[test]
    fn stream_rejects_events_after_done_and_over_caps() {
        let mut c = StreamChecker::new(2, 1000);
        c.accept(br#"{"type":"log","level":"info","message":"a"}"#)
            .unwrap();
        c.accept(br#"{"type":"done","ok":true}"#).unwrap();
        assert!(c.saw_done());
        assert_eq!(c.accept(b""), Ok(None));
        assert_eq!(
            c.accept(br#"{"type":"log","level":"info","message":"b"}"#),
            Err(Violation::EventAfterDone)
        );

        let mut c = StreamChecker::new(1, 1000);
        c.accept(br#"{"type":"log","level":"info","message":"a"}"#)
            .unwrap();
        assert_eq!(
            c.accept(br#"{"type":"log","level":"info","message":"a"}"#),
            Err(Violation::TooManyEvents(1))
        );

        let mut c = StreamChecker::new(100, 10);
        assert_eq!(
            c.accept(br#"{"type":"done","ok":true}"#),
            Err(Violation::TooMuchOutput(10))
        );
    }

    #[test]
    fn envelope_uses_camel_case() {
        let env = Envelope {
            protocol: PROTOCOL.into(),
            request_id: "r".into(),
            tool_id: "t".into(),
            input: Map::new(),
            deps: Map::new(),
            config: json!({}),
            state: json!({}),
        };
        let v = serde_json::to_value(&env).unwrap();
        assert_eq!(v["requestId"], "r");
        assert_eq!(v["toolId"], "t");
        assert_eq!(v["protocol"], "narratoria/1");
    }
}
