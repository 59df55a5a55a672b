//! The plan's JSON schema as a server is sent it, and the request fields
//! that carry it for each kind of server.
//!
//! It is [`plan_schema`] made easy to enforce: references inlined (some
//! servers' grammar converters do not follow `$ref`), `toolPath` limited to
//! the tools the plan may use, `tools` to [`MAX_MODEL_PLAN_TOOLS`] (as the
//! in-process planner's grammar), and `requestId` no longer required (the
//! host writes it). Whatever the server does with it, the answer is
//! checked against the real contract afterwards.

use narratoria_core::plan::plan_schema;
use narratoria_core::planner::MAX_MODEL_PLAN_TOOLS;
use serde_json::{json, Map, Value};

use crate::server::ServerKind;

/// How deep `$ref`s are followed when inlined (the plan's are two deep).
const MAX_DEPTH: usize = 16;

/// The schema a server is sent for a plan over `paths`, the usable tools.
pub fn plan_schema_for(paths: &[String]) -> Value {
    let full = plan_schema();
    let defs = full.get("$defs").cloned().unwrap_or(Value::Null);
    let mut schema = inline(&full, &defs, 0);
    if let Value::Object(o) = &mut schema {
        o.shift_remove("$schema");
        o.shift_remove("$defs");
        if let Some(Value::Array(required)) = o.get_mut("required") {
            required.retain(|r| r != "requestId");
        }
    }
    if paths.is_empty() {
        if let Some(tools) = schema
            .pointer_mut("/properties/tools")
            .and_then(Value::as_object_mut)
        {
            tools.insert("maxItems".into(), json!(0));
        }
    } else {
        if let Some(tools) = schema
            .pointer_mut("/properties/tools")
            .and_then(Value::as_object_mut)
        {
            tools.insert("maxItems".into(), json!(MAX_MODEL_PLAN_TOOLS));
        }
        if let Some(path) = schema
            .pointer_mut("/properties/tools/items/properties/toolPath")
            .and_then(Value::as_object_mut)
        {
            path.insert("enum".into(), json!(paths));
        }
    }
    schema
}

/// `value` with every `{"$ref": "#/$defs/X", …}` replaced by `X` (the
/// other keys beside the `$ref` kept over it).
fn inline(value: &Value, defs: &Value, depth: usize) -> Value {
    match value {
        Value::Object(o) => {
            let target = o
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name))
                .filter(|_| depth < MAX_DEPTH);
            let mut out = Map::new();
            if let Some(Value::Object(def)) = target {
                for (k, v) in def {
                    out.insert(k.clone(), inline(v, defs, depth + 1));
                }
            }
            for (k, v) in o {
                if k == "$ref" && target.is_some() {
                    continue;
                }
                out.insert(k.clone(), inline(v, defs, depth + 1));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| inline(v, defs, depth + 1)).collect()),
        other => other.clone(),
    }
}

/// The request fields that ask `kind` for JSON matching `schema` (called
/// `name` where the field wants a name): OpenAI's
/// `response_format` for every kind (llama-server, LM Studio and KoboldCpp
/// turn it into a grammar; Ollama's OpenAI endpoint takes it too), and for
/// Ollama its own `format` besides.
pub(crate) fn schema_fields(
    kind: ServerKind,
    name: &str,
    schema: &Value,
) -> Vec<(&'static str, Value)> {
    let mut fields = vec![(
        "response_format",
        json!({
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": false}
        }),
    )];
    if kind == ServerKind::Ollama {
        fields.push(("format", schema.clone()));
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_ref(v: &Value) -> bool {
        match v {
            Value::Object(o) => o.contains_key("$ref") || o.values().any(has_ref),
            Value::Array(a) => a.iter().any(has_ref),
            _ => false,
        }
    }

    #[test]
    fn the_sent_schema_is_self_contained_and_names_the_tools() {
        let s = plan_schema_for(&["dice-roller/roll-dice".to_string()]);
        assert!(!has_ref(&s), "{s}");
        assert!(s.get("$defs").is_none());
        assert_eq!(s["required"], json!(["tools"]));
        assert_eq!(
            s["properties"]["tools"]["items"]["properties"]["toolPath"]["enum"],
            json!(["dice-roller/roll-dice"])
        );
        assert_eq!(
            s["properties"]["tools"]["items"]["properties"]["retryPolicy"]["properties"]
                ["maxRetries"]["type"],
            "integer"
        );
        assert_eq!(s["properties"]["tools"]["maxItems"], MAX_MODEL_PLAN_TOOLS);
        let none = plan_schema_for(&[]);
        assert_eq!(none["properties"]["tools"]["maxItems"], 0);
    }

    #[test]
    fn ollama_gets_format_too() {
        let s = json!({"type": "object"});
        let names = |k| {
            schema_fields(k, "plan", &s)
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(ServerKind::LlamaServer), ["response_format"]);
        assert_eq!(names(ServerKind::Ollama), ["response_format", "format"]);
    }
}
