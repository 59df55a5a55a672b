//! From what a remote model wrote to a plan the engine can run — or a
//! reason in a sentence why not, for the next attempt's prompt.
//!
//! The model's JSON is found (code fences, a thinking block or words around
//! it are tolerated), the host's fields are written over the model's
//! (`requestId`, `metadata`, `disabledSkills`), and the result must pass
//! the Plan JSON contract ([`Plan::from_value`], as
//! [`Plan::from_json_str`] does), use at most [`MAX_MODEL_PLAN_TOOLS`]
//! tools besides the narration (as the in-process planner), name only tools
//! the plan may use, form a graph without cycles, and give each tool an
//! input its schema accepts.

use narratoria_core::dag::Dag;
use narratoria_core::plan::{Plan, PlanError};
use narratoria_core::planner::{PlanRequest, MAX_MODEL_PLAN_TOOLS};
use narratoria_core::turn::narration_step::is_host_tool;
use narratoria_core::FieldError;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::catalog::{self, SkillCard};
use narratoria_lexicon::clip_to as clip;

/// The plan in `text`, checked against the request and the usable tools
/// (`cards`); an answer that is not one is the reason why, in a sentence.
pub(crate) fn plan_from_answer(
    text: &str,
    request: &PlanRequest<'_>,
    cards: &[SkillCard],
) -> Result<Plan, String> {
    let json_text = json_part(text);
    let mut value: Value = serde_json::from_str(json_text).map_err(|e| {
        let reason = PlanError::NotJson {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        format!("{reason}; the answer was: {}", clip(text, 200))
    })?;
    let Value::Object(plan) = &mut value else {
        return Err(format!(
            "the answer is JSON but not an object: {}",
            clip(text, 200)
        ));
    };
    plan.insert("requestId".into(), json!(Uuid::new_v4().to_string()));
    let mut metadata = json!({"generationAttempt": request.attempt.max(1)});
    if let Some(parent) = request.parent_plan_id {
        metadata["parentPlanId"] = json!(parent.to_string());
    }
    plan.insert("metadata".into(), metadata);
    plan.insert("disabledSkills".into(), json!(request.disabled_skills));
    let narrative_empty = plan
        .get("narrative")
        .is_none_or(|n| n.as_str().is_some_and(|s| s.trim().is_empty()));
    if !request.narrative || narrative_empty {
        plan.shift_remove("narrative");
    }
    let plan = Plan::from_value(value).map_err(|e| clip(&e.to_string(), 600))?;
    let used = plan
        .tools
        .iter()
        .filter(|t| !is_host_tool(request.catalog, t))
        .count();
    if used > MAX_MODEL_PLAN_TOOLS {
        return Err(format!(
            "the plan uses {used} tools; a plan uses at most {MAX_MODEL_PLAN_TOOLS}: choose the ones the action needs most"
        ));
    }

    let available: Vec<&str> = catalog::tools(cards).map(|t| t.path.as_str()).collect();
    for t in &plan.tools {
        if !available.contains(&t.tool_path.as_str()) {
            return Err(format!(
                "tool {:?} uses {:?}, which is not an available tool (available: {})",
                clip(&t.tool_id, 60),
                clip(&t.tool_path, 120),
                if available.is_empty() {
                    "none".to_string()
                } else {
                    available.join(", ")
                }
            ));
        }
    }
    Dag::new(&plan.tools)
        .map_err(|e| clip(&format!("the plan's tools cannot run in order: {e}"), 600))?;
    for t in &plan.tools {
        let schema = catalog::tools(cards)
            .find(|c| c.path == t.tool_path)
            .and_then(|c| c.declared_schema.as_ref());
        let Some(validator) = schema.and_then(|s| narratoria_core::schema::compile(s).ok()) else {
            continue;
        };
        let errors =
            narratoria_core::schema::validation_errors(&validator, &Value::Object(t.input.clone()));
        if !errors.is_empty() {
            return Err(clip(
                &format!(
                    "tool {:?} ({}) has an input its schema refuses: {}",
                    t.tool_id,
                    t.tool_path,
                    FieldError::join(&errors)
                ),
                600,
            ));
        }
    }
    Ok(plan)
}

/// The JSON object in a model's answer: inside a code fence when there is
/// one, after a `<think>…</think>` block, from the first `{` to the last
/// `}` when words surround it; the trimmed text otherwise.
pub(crate) fn json_part(text: &str) -> &str {
    let mut t = text.trim();
    if let Some(rest) = t.strip_prefix("<think>") {
        t = rest
            .split_once("</think>")
            .map_or("", |(_, after)| after)
            .trim();
    }
    if let Some((_, after)) = t.split_once("```") {
        // Past the fence's language tag (```json) to the fence's end.
        let body = after.split_once('\n').map_or(after, |(_, b)| b);
        t = body
            .split_once("```")
            .map_or(body, |(inside, _)| inside)
            .trim();
    }
    match (t.find('{'), t.rfind('}')) {
        (Some(start), Some(end)) if start < end && (start > 0 || end + 1 < t.len()) => {
            &t[start..=end]
        }
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_is_found_in_fences_and_words() {
        assert_eq!(json_part("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(json_part("```\n{\"a\":1}```"), "{\"a\":1}");
        assert_eq!(
            json_part("Here it is: {\"a\":{}} hope it helps"),
            "{\"a\":{}}"
        );
        assert_eq!(json_part("<think>hmm {x}</think>\n{\"a\":1}"), "{\"a\":1}");
        assert_eq!(json_part("  {\"a\":1  "), "{\"a\":1");
        assert_eq!(json_part("no json"), "no json");
    }
}
