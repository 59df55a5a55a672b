//! Plan JSON (`contracts/plan-json.schema.json`): the narrator's output, a DAG of tool invocations.
//! Parsing validates against the generated schema first, so every rejection
//! names the offending field by JSON pointer.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;
use uuid::Uuid;

use crate::error::{ErrorCode, FieldError};

/// A plan: tools to run, in dependency order, with a narrative hint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "Plan JSON",
    description = "A narrator plan: a DAG of skill tool invocations."
)]
pub struct Plan {
    /// Unique plan identifier.
    pub request_id: Uuid,
    /// Optional narrator text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrative: Option<String>,
    /// Tools to execute.
    pub tools: Vec<ToolInvocation>,
    /// Whether `async` tools may run concurrently.
    #[serde(default)]
    pub parallel: bool,
    /// Skills whose tools must not run.
    #[serde(default)]
    pub disabled_skills: Vec<String>,
    /// Generation tracking.
    #[serde(default)]
    pub metadata: PlanMetadata,
}

/// One tool call inside a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolInvocation {
    /// Unique within the plan.
    #[schemars(length(min = 1, max = 128))]
    pub tool_id: String,
    /// `<skill-name>/<script-name>`, or a path that resolves to a skill's script.
    #[schemars(length(min = 1, max = 4096))]
    pub tool_path: String,
    /// JSON object passed to the script.
    #[serde(default)]
    pub input: Map<String, Value>,
    /// toolIds that must complete first.
    #[serde(default)]
    pub dependencies: Vec<String>,
    /// Whether the plan fails when this tool fails.
    #[serde(default = "yes")]
    pub required: bool,
    /// Whether the tool may run concurrently with others (when the plan is `parallel`).
    #[serde(default, rename = "async")]
    pub is_async: bool,
    /// Retry configuration.
    #[serde(default)]
    pub retry_policy: RetryPolicy,
}

fn yes() -> bool {
    true
}

/// How often and how patiently a failing tool is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    /// Base backoff delay in milliseconds; retry k waits `backoffMs × 2^(k−1)`.
    #[serde(default = "default_backoff_ms")]
    pub backoff_ms: u64,
}

fn default_max_retries() -> u32 {
    3
}
fn default_backoff_ms() -> u64 {
    100
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: default_max_retries(),
            backoff_ms: default_backoff_ms(),
        }
    }
}

impl RetryPolicy {
    /// The delay before retry `k` (1-based): `backoffMs × 2^(k−1)`, saturating.
    pub fn backoff(&self, k: u32) -> std::time::Duration {
        let factor = 1u64.checked_shl(k.saturating_sub(1)).unwrap_or(u64::MAX);
        std::time::Duration::from_millis(self.backoff_ms.saturating_mul(factor))
    }
}

/// Generation tracking for the replan loop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanMetadata {
    /// Attempt number (1, 2, 3, …).
    #[serde(default = "one")]
    #[schemars(range(min = 1))]
    pub generation_attempt: u32,
    /// The previous plan, when this one is a replan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_plan_id: Option<Uuid>,
}

fn one() -> u32 {
    1
}

impl Default for PlanMetadata {
    fn default() -> Self {
        Self {
            generation_attempt: 1,
            parent_plan_id: None,
        }
    }
}

/// Why a plan document was rejected before anything ran.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PlanError {
    #[error("plan is not valid JSON (line {line}, column {column}): {message}")]
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("plan does not match the Plan JSON contract: {}", FieldError::join(.0))]
    Invalid(Vec<FieldError>),
}

impl PlanError {
    /// The stable code the UI and CLI show.
    pub fn code(&self) -> ErrorCode {
        match self {
            PlanError::NotJson { .. } => ErrorCode::PlanNotJson,
            PlanError::Invalid(_) => ErrorCode::PlanInvalid,
        }
    }
}

/// The Plan JSON schema, generated from the types.
pub fn plan_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Plan)).expect("schema serialises")
}

fn plan_validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        crate::schema::compile(&plan_schema()).expect("generated plan schema compiles")
    })
}

impl Plan {
    /// Parses and validates a plan document; every contract violation is
    /// reported with its JSON pointer.
    pub fn from_json_str(text: &str) -> Result<Plan, PlanError> {
        let value: Value = serde_json::from_str(text).map_err(|e| PlanError::NotJson {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        Plan::from_value(value)
    }

    /// Validates a JSON value against the Plan JSON contract and converts it.
    pub fn from_value(value: Value) -> Result<Plan, PlanError> {
        let errors = crate::schema::validation_errors(plan_validator(), &value);
        if !errors.is_empty() {
            return Err(PlanError::Invalid(errors));
        }
        serde_json::from_value(value).map_err(|e| {
            PlanError::Invalid(vec![FieldError {
                pointer: String::new(),
                message: e.to_string(),
            }])
        })
    }

    /// A new empty plan with a fresh id.
    pub fn new(tools: Vec<ToolInvocation>) -> Plan {
        Plan {
            request_id: Uuid::new_v4(),
            narrative: None,
            tools,
            parallel: false,
            disabled_skills: Vec::new(),
            metadata: PlanMetadata::default(),
        }
    }
}

impl ToolInvocation {
    /// A tool invocation with contract defaults.
    pub fn new(tool_id: impl Into<String>, tool_path: impl Into<String>) -> ToolInvocation {
        ToolInvocation {
            tool_id: tool_id.into(),
            tool_path: tool_path.into(),
            input: Map::new(),
            dependencies: Vec::new(),
            required: true,
            is_async: false,
            retry_policy: RetryPolicy::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ID: &str = "6f1c2a8e-0a47-4a39-9b3e-3d2f1c0b9a77";

    #[test]
    fn fills_in_contract_defaults() {
        let plan = Plan::from_value(json!({
            "requestId": ID,
            "tools": [{"toolId": "a", "toolPath": "dice-roller/roll-dice"}]
        }))
        .unwrap();
        let t = &plan.tools[0];
        assert!(t.required);
        assert!(!t.is_async);
        assert!(t.dependencies.is_empty());
        assert_eq!(
            t.retry_policy,
            RetryPolicy {
                max_retries: 3,
                backoff_ms: 100
            }
        );
        assert!(!plan.parallel);
        assert!(plan.disabled_skills.is_empty());
        assert_eq!(plan.metadata.generation_attempt, 1);
    }

    #[test]
    fn round_trips_with_camel_case_names() {
        let plan = Plan::from_value(json!({
            "requestId": ID, "narrative": "n", "parallel": true, "disabledSkills": ["x"],
            "metadata": {"generationAttempt": 2, "parentPlanId": ID},
            "tools": [{"toolId": "a", "toolPath": "s/t", "input": {"k": 1}, "dependencies": [],
                       "required": false, "async": true, "retryPolicy": {"maxRetries": 0, "backoffMs": 5}}]
        }))
        .unwrap();
        let v = serde_json::to_value(&plan).unwrap();
        assert_eq!(v["tools"][0]["async"], true);
        assert_eq!(v["tools"][0]["retryPolicy"]["backoffMs"], 5);
        assert_eq!(v["metadata"]["parentPlanId"], ID);
        assert_eq!(v["disabledSkills"], json!(["x"]));
    }

    #[test]
    fn rejections_name_the_field() {
        let err =
            Plan::from_value(json!({"requestId": ID, "tools": [{"toolPath": "a/b"}]})).unwrap_err();
        let PlanError::Invalid(errors) = err else {
            panic!()
        };
        assert!(
            errors
                .iter()
                .any(|e| e.pointer == "/tools/0" && e.message.contains("toolId")),
            "{errors:?}"
        );

        let err = Plan::from_value(json!({"requestId": ID, "tools": {}})).unwrap_err();
        assert!(err.to_string().contains("/tools"), "{err}");

        let err = Plan::from_value(json!({"requestId": "nope", "tools": []})).unwrap_err();
        assert!(err.to_string().contains("/requestId"), "{err}");

        let err = Plan::from_value(json!({"requestId": ID, "tools": [
            {"toolId": "a", "toolPath": "a/b", "retryPolicy": {"maxRetries": -1}}]}))
        .unwrap_err();
        assert!(
            err.to_string().contains("/tools/0/retryPolicy/maxRetries"),
            "{err}"
        );
    }

    #[test]
    fn not_json_is_reported_with_position() {
        let err = Plan::from_json_str("{\"requestId\": ").unwrap_err();
        assert!(matches!(err, PlanError::NotJson { line: 1, .. }));
    }

    #[test]
    fn backoff_doubles_and_saturates() {
        let p = RetryPolicy {
            max_retries: 3,
            backoff_ms: 100,
        };
        assert_eq!(p.backoff(1).as_millis(), 100);
        assert_eq!(p.backoff(2).as_millis(), 200);
        assert_eq!(p.backoff(3).as_millis(), 400);
        let huge = RetryPolicy {
            max_retries: 100,
            backoff_ms: u64::MAX / 2,
        };
        assert_eq!(huge.backoff(90).as_millis(), u64::MAX as u128);
    }
}
