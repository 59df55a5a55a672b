//! The `skill.json` manifest (`contracts/skill-manifest.schema.json`) and the
//! Agent Skills `SKILL.md` frontmatter, both validated with errors located by
//! JSON pointer.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::FieldError;
use crate::protocol::ProtocolVersion;

/// Pattern of a skill name in `skill.json`: lowercase letters, digits, `-` and `_`.
pub const SKILL_NAME_PATTERN: &str = "^[a-z0-9][a-z0-9_-]*$";

/// A skill's `skill.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "Skill manifest (skill.json)")]
pub struct SkillManifest {
    /// Unique identifier; the first half of a toolPath.
    #[schemars(length(min = 1, max = 64), regex(pattern = "^[a-z0-9][a-z0-9_-]*$"))]
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Semantic version, e.g. `1.0.0`.
    #[schemars(length(min = 1, max = 64))]
    pub version: String,
    /// What the skill does; shown to players and to the narrator.
    #[schemars(length(min = 1, max = 1024))]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Per-tool time limit for this skill's scripts (default 30 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.001, max = 3600.0))]
    pub timeout_seconds: Option<f64>,
    /// The protocol version the skill's scripts speak (`narratoria/1` when
    /// absent). A skill asking for one the host cannot serve is passed over
    /// at discovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<ProtocolVersion>,
    /// Host features the skill's scripts use, e.g. `generate`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Optional metadata per script, by script name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scripts: BTreeMap<String, ScriptManifest>,
}

/// What a manifest says about one script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase")]
pub struct ScriptManifest {
    /// What the script does, for the narrator's catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the script's `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Overrides the skill's `timeoutSeconds` for this script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.001, max = 3600.0))]
    pub timeout_seconds: Option<f64>,
    /// Player inputs that call for this script, written the way players
    /// talk; the narrator routes a turn to the script by their meaning.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 500), inner(length(min = 1, max = 300)))]
    pub examples: Vec<String>,
    /// Player inputs that resemble the examples but must not call this script.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 500), inner(length(min = 1, max = 300)))]
    pub counter_examples: Vec<String>,
    /// Examples written in other languages than English, by language code
    /// ("fr", "es", "de"): a story told in that language is routed by them
    /// as well as by `examples` (docs/skills.md, "Examples in other
    /// languages").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "examples_by_language_schema")]
    pub examples_by_language: BTreeMap<String, Vec<String>>,
    /// Counter-examples in other languages than English, by language code.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "examples_by_language_schema")]
    pub counter_examples_by_language: BTreeMap<String, Vec<String>>,
}

/// A map from a language code (ISO 639-1 or -3, lower case) to at most 500
/// texts of 1 to 300 characters.
fn examples_by_language_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "propertyNames": { "pattern": "^[a-z]{2,3}$" },
        "additionalProperties": {
            "type": "array",
            "maxItems": 500,
            "items": { "type": "string", "minLength": 1, "maxLength": 300 }
        }
    })
}

/// The skill manifest schema, generated from the types.
pub fn manifest_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(SkillManifest)).expect("schema serialises")
}

fn manifest_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        crate::schema::compile(&manifest_schema()).expect("generated manifest schema compiles")
    })
}

/// Parses and validates `skill.json` text.
pub fn parse_manifest(text: &str) -> Result<SkillManifest, Vec<FieldError>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        vec![FieldError {
            pointer: String::new(),
            message: format!(
                "not valid JSON (line {}, column {}): {e}",
                e.line(),
                e.column()
            ),
        }]
    })?;
    let errors = crate::schema::validation_errors(manifest_validator(), &value);
    if !errors.is_empty() {
        return Err(errors);
    }
    let manifest: SkillManifest = serde_json::from_value(value).map_err(|e| {
        vec![FieldError {
            pointer: String::new(),
            message: e.to_string(),
        }]
    })?;
    let mut errors = Vec::new();
    for (name, script) in &manifest.scripts {
        if let Some(schema) = &script.input_schema {
            if let Err(e) = crate::schema::compile(schema) {
                errors.push(FieldError {
                    pointer: format!("/scripts/{}/inputSchema", escape_pointer(name)),
                    message: format!("not a usable JSON Schema: {e}"),
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(manifest)
    } else {
        Err(errors)
    }
}

/// Escapes one JSON pointer token.
pub fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The YAML frontmatter of an Agent Skills `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Frontmatter {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub license: Option<String>,
    #[serde(default)]
    pub compatibility: Option<String>,
    #[serde(default)]
    pub metadata: Option<BTreeMap<String, serde_norway::Value>>,
    #[serde(default, rename = "allowed-tools")]
    pub allowed_tools: Option<serde_norway::Value>,
}

impl Frontmatter {
    /// The manifest this frontmatter amounts to (`metadata.version`,
    /// `metadata.author`, `metadata.displayName` and `metadata.capabilities`
    /// are read when present; `metadata.examples` and
    /// `metadata.counterExamples` given per script, as maps from script
    /// name to a list, become those scripts' examples).
    pub fn into_manifest(self) -> SkillManifest {
        let capabilities = self.capabilities();
        let mut scripts: BTreeMap<String, ScriptManifest> = BTreeMap::new();
        for (key, counter) in [("examples", false), ("counterExamples", true)] {
            if let Some(serde_norway::Value::Mapping(by_script)) =
                self.metadata.as_ref().and_then(|m| m.get(key))
            {
                for (name, list) in by_script {
                    let Some(name) = name.as_str() else { continue };
                    let entry = scripts.entry(name.to_string()).or_default();
                    let texts = texts_of(list);
                    if counter {
                        entry.counter_examples = texts;
                    } else {
                        entry.examples = texts;
                    }
                }
            }
        }
        let meta = |k: &str| {
            self.metadata
                .as_ref()
                .and_then(|m| m.get(k))
                .and_then(|v| match v {
                    serde_norway::Value::String(s) => Some(s.clone()),
                    serde_norway::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
        };
        SkillManifest {
            display_name: meta("displayName").or_else(|| meta("display-name")),
            version: meta("version").unwrap_or_else(|| "0.0.0".into()),
            author: meta("author"),
            name: self.name,
            description: self.description,
            license: self.license,
            timeout_seconds: None,
            protocol: None,
            capabilities,
            scripts,
        }
    }

    /// `metadata.examples` and `metadata.counterExamples` given as plain
    /// lists (or one text, a line each): they hold for every script of the skill.
    pub fn shared_examples(&self) -> (Vec<String>, Vec<String>) {
        let list = |key: &str| match self.metadata.as_ref().and_then(|m| m.get(key)) {
            Some(v @ (serde_norway::Value::Sequence(_) | serde_norway::Value::String(_))) => {
                texts_of(v)
            }
            _ => Vec::new(),
        };
        (list("examples"), list("counterExamples"))
    }

    /// `metadata.capabilities`: a list, or one text of names separated by
    /// commas or spaces (Agent Skills metadata values are texts).
    fn capabilities(&self) -> Vec<String> {
        let names = |text: &str| {
            text.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|n| !n.is_empty())
                .map(String::from)
                .collect::<Vec<_>>()
        };
        match self.metadata.as_ref().and_then(|m| m.get("capabilities")) {
            Some(serde_norway::Value::String(text)) => names(text),
            Some(serde_norway::Value::Sequence(items)) => items
                .iter()
                .filter_map(|v| v.as_str())
                .flat_map(names)
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The non-empty texts of a YAML list, or of one text's lines.
fn texts_of(value: &serde_norway::Value) -> Vec<String> {
    let clean = |t: &str| Some(t.trim().to_string()).filter(|t| !t.is_empty());
    match value {
        serde_norway::Value::String(text) => text.lines().filter_map(clean).collect(),
        serde_norway::Value::Sequence(items) => items
            .iter()
            .filter_map(|v| v.as_str())
            .filter_map(clean)
            .collect(),
        _ => Vec::new(),
    }
}

/// Splits `SKILL.md` into its validated frontmatter and its body (the
/// behavioural prompt). `folder` is the skill folder's name, which `name` must match.
pub fn parse_skill_md(text: &str, folder: &str) -> Result<(Frontmatter, String), Vec<FieldError>> {
    let err = |pointer: &str, message: String| {
        vec![FieldError {
            pointer: pointer.into(),
            message,
        }]
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Err(err(
            "",
            "SKILL.md must start with a YAML frontmatter block between '---' lines".into(),
        ));
    };
    let mut yaml_end = None;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            yaml_end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((end, body_start)) = yaml_end else {
        return Err(err(
            "",
            "SKILL.md frontmatter is not closed by a '---' line".into(),
        ));
    };
    let fm: Frontmatter = serde_norway::from_str(&rest[..end])
        .map_err(|e| err("", format!("SKILL.md frontmatter is not valid: {e}")))?;
    let mut errors = Vec::new();
    if !valid_agent_skill_name(&fm.name) {
        errors.push(FieldError {
            pointer: "/name".into(),
            message: format!("{:?} must be 1-64 lowercase letters, digits and single hyphens (not at either end)", fm.name),
        });
    } else if fm.name != folder {
        errors.push(FieldError {
            pointer: "/name".into(),
            message: format!("{:?} must match the folder name {folder:?}", fm.name),
        });
    }
    if fm.description.trim().is_empty() || fm.description.chars().count() > 1024 {
        errors.push(FieldError {
            pointer: "/description".into(),
            message: "must be 1-1024 characters".into(),
        });
    }
    if fm
        .compatibility
        .as_ref()
        .is_some_and(|c| c.chars().count() > 500)
    {
        errors.push(FieldError {
            pointer: "/compatibility".into(),
            message: "must be at most 500 characters".into(),
        });
    }
    if errors.is_empty() {
        Ok((fm, rest[body_start..].trim().to_string()))
    } else {
        Err(errors)
    }
}

/// The Agent Skills name rule.
pub fn valid_agent_skill_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_requires_name_version_description() {
        let errs = parse_manifest(r#"{"name":"dice"}"#).unwrap_err();
        let text = FieldError::join(&errs);
        assert!(
            text.contains("version") && text.contains("description"),
            "{text}"
        );
    }

    #[test]
    fn manifest_rejects_bad_name_and_timeout() {
        let errs = parse_manifest(
            r#"{"name":"Bad Name","version":"1","description":"d","timeoutSeconds":-1}"#,
        )
        .unwrap_err();
        assert!(errs.iter().any(|e| e.pointer == "/name"), "{errs:?}");
        assert!(
            errs.iter().any(|e| e.pointer == "/timeoutSeconds"),
            "{errs:?}"
        );
    }

    #[test]
    fn manifest_rejects_unusable_input_schema() {
        let errs = parse_manifest(r#"{"name":"d","version":"1","description":"d","scripts":{"roll":{"inputSchema":{"type":"nonsense"}}}}"#)
            .unwrap_err();
        assert_eq!(errs[0].pointer, "/scripts/roll/inputSchema");
    }

    #[test]
    fn manifest_parses_script_metadata() {
        let m = parse_manifest(r#"{"name":"d","version":"1","description":"d","scripts":{"roll":{"description":"r","inputSchema":{"type":"object"}}}}"#).unwrap();
        assert_eq!(m.scripts["roll"].description.as_deref(), Some("r"));
    }

    #[test]
    fn manifest_reads_protocol_and_capabilities() {
        let m = parse_manifest(r#"{"name":"d","version":"1","description":"d","protocol":"narratoria/1.1","capabilities":["generate"]}"#).unwrap();
        assert_eq!(m.protocol, Some(ProtocolVersion::V1_1));
        assert_eq!(m.capabilities, vec!["generate".to_string()]);
        let m = parse_manifest(r#"{"name":"d","version":"1","description":"d"}"#).unwrap();
        assert_eq!(m.protocol, None);
        assert!(m.capabilities.is_empty());
        let errs =
            parse_manifest(r#"{"name":"d","version":"1","description":"d","protocol":"v2"}"#)
                .unwrap_err();
        assert_eq!(errs[0].pointer, "/protocol", "{errs:?}");
        let errs = parse_manifest(
            r#"{"name":"d","version":"1","description":"d","capabilities":"generate"}"#,
        )
        .unwrap_err();
        assert_eq!(errs[0].pointer, "/capabilities", "{errs:?}");
    }

    #[test]
    fn skill_md_reads_capabilities_from_metadata() {
        let caps = |meta: &str| {
            let text = format!("---\nname: lore\ndescription: d\nmetadata:\n{meta}---\n");
            parse_skill_md(&text, "lore")
                .unwrap()
                .0
                .into_manifest()
                .capabilities
        };
        assert_eq!(caps("  capabilities: generate\n"), vec!["generate"]);
        assert_eq!(
            caps("  capabilities: generate, speak\n"),
            vec!["generate", "speak"]
        );
        assert_eq!(caps("  capabilities: [generate]\n"), vec!["generate"]);
        assert!(caps("  version: \"1\"\n").is_empty());
    }

    #[test]
    fn examples_in_other_languages_are_read_by_language_and_checked() {
        let m = parse_manifest(r#"{"name":"d","version":"1","description":"d","scripts":{"roll":{"examples":["I attack the orc"],"examplesByLanguage":{"fr":["J'attaque l'orque"],"de":["Ich greife den Ork an"]},"counterExamplesByLanguage":{"es":["Me siento"]}}}}"#).unwrap();
        let roll = &m.scripts["roll"];
        assert_eq!(roll.examples, ["I attack the orc"]);
        assert_eq!(roll.examples_by_language["fr"], ["J'attaque l'orque"]);
        assert_eq!(roll.examples_by_language["de"], ["Ich greife den Ork an"]);
        assert_eq!(roll.counter_examples_by_language["es"], ["Me siento"]);
        for (bad, pointer) in [
            (
                r#"{"French":["J'attaque"]}"#,
                "/scripts/roll/examplesByLanguage",
            ),
            (r#"{"fr":[""]}"#, "/scripts/roll/examplesByLanguage/fr/0"),
            (
                r#"{"fr":"J'attaque"}"#,
                "/scripts/roll/examplesByLanguage/fr",
            ),
        ] {
            let text = format!(
                r#"{{"name":"d","version":"1","description":"d","scripts":{{"roll":{{"examplesByLanguage":{bad}}}}}}}"#
            );
            let errs = parse_manifest(&text).unwrap_err();
            assert!(errs.iter().any(|e| e.pointer == pointer), "{bad}: {errs:?}");
        }
    }

    #[test]
    fn script_examples_from_skill_json_and_skill_md() {
        let m = parse_manifest(r#"{"name":"d","version":"1","description":"d","scripts":{"roll":{"examples":["I attack the orc"],"counterExamples":["I sit down"]}}}"#).unwrap();
        assert_eq!(m.scripts["roll"].examples, ["I attack the orc"]);
        assert_eq!(m.scripts["roll"].counter_examples, ["I sit down"]);
        let errs = parse_manifest(
            r#"{"name":"d","version":"1","description":"d","scripts":{"roll":{"examples":[""]}}}"#,
        )
        .unwrap_err();
        assert_eq!(errs[0].pointer, "/scripts/roll/examples/0", "{errs:?}");

        let text = "---\nname: shop\ndescription: d\nmetadata:\n  examples:\n    buy: [\"I buy a rope\", \"how much for the sword?\"]\n  counterExamples:\n    buy:\n      - I walk past the shop\n---\n";
        let (fm, _) = parse_skill_md(text, "shop").unwrap();
        assert_eq!(fm.shared_examples(), (vec![], vec![]));
        let m = fm.into_manifest();
        assert_eq!(
            m.scripts["buy"].examples,
            ["I buy a rope", "how much for the sword?"]
        );
        assert_eq!(m.scripts["buy"].counter_examples, ["I walk past the shop"]);

        let text = "---\nname: shop\ndescription: d\nmetadata:\n  examples: [\"I buy a rope\"]\n  counterExamples: \"I walk past\\nI wave\"\n---\n";
        let (fm, _) = parse_skill_md(text, "shop").unwrap();
        assert_eq!(
            fm.shared_examples(),
            (
                vec!["I buy a rope".to_string()],
                vec!["I walk past".to_string(), "I wave".to_string()]
            )
        );
        assert!(fm.into_manifest().scripts.is_empty());
    }

    #[test]
    fn skill_md_frontmatter_and_body() {
        let (fm, body) = parse_skill_md(
            "---\nname: lore\ndescription: Knows lore.\nlicense: MIT\n---\n# Lore\nUse it.\n",
            "lore",
        )
        .unwrap();
        assert_eq!(fm.name, "lore");
        assert_eq!(fm.license.as_deref(), Some("MIT"));
        assert_eq!(body, "# Lore\nUse it.");
    }

    #[test]
    fn skill_md_name_rules() {
        assert!(parse_skill_md("---\nname: lore\ndescription: d\n---\n", "other").is_err());
        assert!(parse_skill_md("---\nname: Lore\ndescription: d\n---\n", "Lore").is_err());
        assert!(parse_skill_md("---\nname: a--b\ndescription: d\n---\n", "a--b").is_err());
        assert!(parse_skill_md(
            &format!("---\nname: {0}\ndescription: d\n---\n", "a".repeat(65)),
            &"a".repeat(65)
        )
        .is_err());
        let long = "x".repeat(1025);
        assert!(parse_skill_md(&format!("---\nname: a\ndescription: {long}\n---\n"), "a").is_err());
        assert!(parse_skill_md("no frontmatter", "a").is_err());
        assert!(parse_skill_md("---\nname: a\n", "a").is_err());
    }
}
