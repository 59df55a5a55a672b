//! The envelope: the one JSON line a script receives on stdin.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::generate::HostCapabilities;
use crate::story::StoryPlace;
use crate::version::{ProtocolVersion, VersionError};

/// The single JSON line written to a script's stdin. Every field has a
/// default, so a script reads an envelope leniently; the host always writes
/// all of them (`host` only for `narratoria/1.1` scripts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "Script envelope (a script's stdin line)",
    transform = without_defaults
)]
pub struct Envelope {
    /// The protocol version the script is spoken to with, e.g. `narratoria/1`.
    #[serde(default)]
    #[schemars(with = "ProtocolVersion")]
    pub protocol: String,
    /// The plan's `requestId`.
    #[serde(default)]
    pub request_id: String,
    #[serde(default)]
    pub tool_id: String,
    /// The tool's input (an object; kept as any JSON so a script can report
    /// a wrong one itself).
    #[serde(default)]
    #[schemars(with = "Map<String, Value>")]
    pub input: Value,
    /// Output of each declared dependency; `null` when it failed or was optional.
    #[serde(default)]
    pub deps: Map<String, Value>,
    /// The skill's resolved config; a script reads `null` as `{}`.
    #[serde(default)]
    pub config: Value,
    /// The session state when the tool starts.
    #[serde(default)]
    pub state: Value,
    /// What the host offers (`narratoria/1.1`): `{}` when it has no model
    /// loaded; absent for `narratoria/1` scripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostCapabilities>,
    /// Where the script acts: the story, branch and turn being played and the
    /// turns it follows. Absent when a plan runs outside a story.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub story: Option<StoryPlace>,
}

/// Leaves the readers' defaults out of the envelope's schema: it describes
/// what the host writes, which is every field.
fn without_defaults(schema: &mut schemars::Schema) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(property) = property {
                property.remove("default");
            }
        }
    }
}

/// Why a stdin line is not an envelope this side can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("not a protocol envelope: {0}")]
    NotJson(String),
    #[error("unsupported protocol: {0}")]
    BadVersion(#[from] VersionError),
    #[error("unsupported protocol {found}; this side speaks {speaks} (any narratoria/{}.x envelope is read)", speaks.major)]
    Incompatible {
        found: ProtocolVersion,
        speaks: ProtocolVersion,
    },
}

impl Envelope {
    /// Parses the stdin line. Any envelope of this crate's major version is
    /// accepted, whatever its minor version (minor versions only add fields,
    /// which are ignored when unknown); an envelope without `protocol` is
    /// read as `narratoria/1`. Another major version is an error.
    pub fn parse(line: &str) -> Result<Envelope, EnvelopeError> {
        let envelope: Envelope =
            serde_json::from_str(line.trim()).map_err(|e| EnvelopeError::NotJson(e.to_string()))?;
        let found = envelope.version()?;
        let speaks = ProtocolVersion::LATEST;
        if found.major != speaks.major {
            return Err(EnvelopeError::Incompatible { found, speaks });
        }
        Ok(envelope)
    }

    /// The envelope's protocol version; `narratoria/1` when it names none.
    pub fn version(&self) -> Result<ProtocolVersion, VersionError> {
        if self.protocol.is_empty() {
            Ok(ProtocolVersion::V1)
        } else {
            ProtocolVersion::parse(&self.protocol)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::HostModel;
    use crate::version::PROTOCOL;
    use serde_json::json;

    #[test]
    fn envelope_uses_camel_case() {
        let env = Envelope {
            protocol: PROTOCOL.into(),
            request_id: "r".into(),
            tool_id: "t".into(),
            input: json!({}),
            deps: Map::new(),
            config: json!({}),
            state: json!({}),
            host: None,
            story: None,
        };
        let v = serde_json::to_value(&env).unwrap();
        assert_eq!(v["requestId"], "r");
        assert_eq!(v["toolId"], "t");
        assert_eq!(v["protocol"], "narratoria/1");
        assert!(v.get("host").is_none());
        assert!(v.get("story").is_none());
    }

    #[test]
    fn reads_both_minor_versions_and_rejects_other_majors() {
        let env = Envelope::parse(r#"{"protocol":"narratoria/1","requestId":"r","toolId":"t","input":{"a":1},"deps":{},"config":{},"state":{}}"#).unwrap();
        assert_eq!(env.input["a"], 1);
        assert_eq!(env.host, None);
        let env = Envelope::parse(
            r#"{"protocol":"narratoria/1.1","host":{"generate":{"model":"m.gguf","contextTokens":4096,"maxTokens":512}}}"#,
        )
        .unwrap();
        assert_eq!(
            env.host.and_then(|h| h.generate),
            Some(HostModel {
                model: "m.gguf".into(),
                context_tokens: 4096,
                max_tokens: 512,
                parameters: None,
            })
        );
        assert_eq!(
            Envelope::parse(r#"{"protocol":"narratoria/1.1","host":{}}"#)
                .unwrap()
                .host,
            Some(HostCapabilities::default())
        );
        assert!(Envelope::parse(r#"{"protocol":"narratoria/1.7"}"#).is_ok());
        assert!(Envelope::parse("{}").is_ok());

        let err = Envelope::parse(r#"{"protocol":"narratoria/9"}"#).unwrap_err();
        assert!(matches!(err, EnvelopeError::Incompatible { .. }), "{err:?}");
        assert!(err.to_string().contains("narratoria/9"), "{err}");
        assert!(matches!(
            Envelope::parse(r#"{"protocol":"mcp/1"}"#),
            Err(EnvelopeError::BadVersion(_))
        ));
        assert!(matches!(
            Envelope::parse("not json"),
            Err(EnvelopeError::NotJson(_))
        ));
    }
}
