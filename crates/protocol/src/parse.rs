//! The engine's reading of a stdout line: strict about the fields it needs
//! (a missing or mistyped one is a [`Violation`]), silent about extra fields
//! (forward compatibility).

use serde_json::{Map, Value};

use crate::depth::{nesting_depth, MAX_NESTING_DEPTH};
use crate::event::{Asset, AssetKind, Event, LogLevel, ScriptError};
use crate::generate::{GenerateRequest, Message};
use crate::stream::MAX_LINE_BYTES;
use crate::violation::Violation;

/// A parsed line: either nothing (an empty line) or one event together with
/// the JSON object it came from (kept for the trace).
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // consumed at once; a box would only add an allocation
pub enum Line {
    Empty,
    Event(Event, Map<String, Value>),
}

/// An event together with the JSON object it was read from.
pub type RawEvent = (Event, Map<String, Value>);

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
    let depth = nesting_depth(text.as_bytes());
    if depth > MAX_NESTING_DEPTH {
        return Err(Violation::TooDeep(depth));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| Violation::NotJson(e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(Violation::NotAnObject);
    };
    let event = parse_event(&obj)?;
    Ok(Line::Event(event, obj))
}

/// Interprets a JSON object as a protocol event. Unknown extra fields are
/// ignored. A `generate` event is read like any other: whether the script may
/// send it (its skill must declare the `generate` capability) is for the
/// engine to decide.
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
        "generate" => Event::Generate(GenerateRequest {
            id: f.string("id", true)?.unwrap_or_default(),
            messages: f.messages("messages")?,
            max_tokens: f.token_count("maxTokens")?,
            temperature: f.number("temperature", false)?,
            stop: f.strings("stop", false)?.unwrap_or_default(),
            json_schema: f.object("jsonSchema", false)?.map(Value::Object),
            avoid: f.strings("avoid", false)?.unwrap_or_default(),
            stream: f.boolean("stream", false)?.unwrap_or(false),
        }),
        "cancel" => Event::Cancel {
            id: f.string("id", true)?.unwrap_or_default(),
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

    fn number(&self, field: &str, required: bool) -> Result<Option<f64>, Violation> {
        match self.present(field, required)? {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(_) => Err(self.bad(field, "must be a number")),
        }
    }

    fn object(&self, field: &str, required: bool) -> Result<Option<Map<String, Value>>, Violation> {
        match self.present(field, required)? {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m.clone())),
            Some(_) => Err(self.bad(field, "must be an object")),
        }
    }

    fn strings(&self, field: &str, required: bool) -> Result<Option<Vec<String>>, Violation> {
        match self.present(field, required)? {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(self.bad(field, "must be an array of strings")),
                })
                .collect::<Result<_, _>>()
                .map(Some),
            Some(_) => Err(self.bad(field, "must be an array of strings")),
        }
    }

    /// A required, positive whole number that fits in 32 bits.
    fn token_count(&self, field: &str) -> Result<u32, Violation> {
        self.present(field, true)?
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| self.bad(field, "must be a whole number of tokens, at least 1"))
    }

    /// A required, non-empty array of `{"role", "content"}` objects.
    fn messages(&self, field: &str) -> Result<Vec<Message>, Violation> {
        let Some(Value::Array(items)) = self.present(field, true)? else {
            return Err(self.bad(field, "must be an array of messages"));
        };
        if items.is_empty() {
            return Err(self.bad(field, "must hold at least one message"));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                serde_json::from_value(item.clone())
                    .map_err(|e| self.bad(field, &format!("item {i} is not a message: {e}")))
            })
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Role;
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
    fn refuses_lines_nested_deeper_than_the_limit() {
        let nested = |levels: usize| {
            format!(
                r#"{{"type":"log","level":"info","message":"m","extra":{}1{}}}"#,
                "[".repeat(levels - 1),
                "]".repeat(levels - 1)
            )
        };
        assert!(matches!(
            parse(&nested(MAX_NESTING_DEPTH)),
            Ok(Line::Event(Event::Log { .. }, _))
        ));
        assert_eq!(
            parse(&nested(MAX_NESTING_DEPTH + 1)),
            Err(Violation::TooDeep(MAX_NESTING_DEPTH + 1))
        );
        assert_eq!(parse(&nested(126)), Err(Violation::TooDeep(126)));
        let message = Violation::TooDeep(126).to_string();
        assert!(
            message.contains("126") && message.contains("32"),
            "{message}"
        );
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
    fn parses_a_generate_request_with_defaults() {
        let Event::Generate(g) = event(
            r#"{"type":"generate","id":"g1","messages":[{"role":"user","content":"Hi"}],"maxTokens":50}"#,
        ) else {
            panic!()
        };
        assert_eq!(g.id, "g1");
        assert_eq!(g.messages[0].role, Role::User);
        assert_eq!(g.max_tokens, 50);
        assert_eq!(g.temperature, None);
        assert!(g.stop.is_empty());
        assert_eq!(g.json_schema, None);
        assert!(!g.stream);
    }

    #[test]
    fn rejects_malformed_generate_requests() {
        let msgs = r#""messages":[{"role":"user","content":"Hi"}]"#;
        for bad in [
            format!(r#"{{"type":"generate",{msgs},"maxTokens":5}}"#),
            format!(r#"{{"type":"generate","id":7,{msgs},"maxTokens":5}}"#),
            r#"{"type":"generate","id":"g","maxTokens":5}"#.to_string(),
            r#"{"type":"generate","id":"g","messages":[],"maxTokens":5}"#.to_string(),
            r#"{"type":"generate","id":"g","messages":"hi","maxTokens":5}"#.to_string(),
            r#"{"type":"generate","id":"g","messages":[{"role":"bot","content":"x"}],"maxTokens":5}"#.to_string(),
            r#"{"type":"generate","id":"g","messages":[{"role":"user"}],"maxTokens":5}"#.to_string(),
            format!(r#"{{"type":"generate","id":"g",{msgs}}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":0}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":1.5}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":-1}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":5,"temperature":"hot"}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":5,"stop":"\n"}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":5,"stop":[1]}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":5,"jsonSchema":"x"}}"#),
            format!(r#"{{"type":"generate","id":"g",{msgs},"maxTokens":5,"stream":"yes"}}"#),
        ] {
            assert!(
                matches!(parse(&bad), Err(Violation::BadField { .. })),
                "{bad}: {:?}",
                parse(&bad)
            );
        }
    }
}
