//! What a turn says when every plan failed: a template narration, and a
//! result that changes nothing.

use serde_json::{Map, Value};
use uuid::Uuid;

use crate::narration::Language;
use crate::result::ExecutionResult;

/// The template narration used when every plan failed, in `language`'s
/// lines (English where it has none): the lexicon's one template set
/// ([`narratoria_lexicon::no_plan`]). The same input always gets the same
/// template.
pub fn fallback_narration(language: &Language, input: &str) -> String {
    narratoria_lexicon::no_plan(language, input)
}

/// The result of a turn that fell back: the last plan's result if one ran
/// (else one saying no plan came out, under `plan_id` or a new id), told by
/// `narrative`, with the state as it was before the turn.
pub(super) fn fallback_result(
    last: Option<ExecutionResult>,
    plan_id: Option<Uuid>,
    state: &Map<String, Value>,
    narrative: String,
) -> ExecutionResult {
    let mut result = last.unwrap_or_else(|| ExecutionResult {
        plan_id: plan_id.unwrap_or_else(Uuid::new_v4),
        success: false,
        narrative: None,
        failed_tools: vec![],
        can_replan: false,
        failure_reason: None,
        failure_message: Some("no plan could be generated".into()),
        execution_trace: vec![],
        final_state: state.clone(),
        total_execution_time_ms: 0,
        generation_metadata: None,
        trace: None,
    });
    result.narrative = Some(narrative);
    result.final_state = state.clone();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_any_plan_the_result_says_none_came_and_keeps_the_state() {
        let mut state = Map::new();
        state.insert("hp".into(), Value::from(3));
        let r = fallback_result(None, None, &state, "told".into());
        assert!(!r.success);
        assert_eq!(
            r.failure_message.as_deref(),
            Some("no plan could be generated")
        );
        assert_eq!(r.narrative.as_deref(), Some("told"));
        assert_eq!(r.final_state, state);
    }
}
