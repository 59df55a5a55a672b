//! Names what went wrong: a failed attempt's outcome becomes a typed
//! [`ToolError`], and a failed required tool's error type becomes the plan's
//! [`FailureReason`].

use std::time::Duration;

use crate::protocol::{Event, ScriptError};
use crate::result::{ExecutionState, FailureReason, ToolError, ToolErrorType};
use crate::runner::{Exit, Outcome};

/// Why a failed attempt failed. `timeout` is the tool's own limit;
/// `plan_deadline_hit` says the plan's limit, not the tool's, stopped it.
/// The first of these that applies wins: not started, protocol violation,
/// time limit, signal, the script's `error` event, `done.ok:false`, exit status.
pub(super) fn classify(o: &Outcome, timeout: Duration, plan_deadline_hit: bool) -> ToolError {
    let script_error = o.events.iter().rev().find_map(|(e, _)| match e {
        Event::Error(se) => Some(se),
        _ => None,
    });
    let (error_type, message, recoverable) = how_it_was_cut_short(o, timeout, plan_deadline_hit)
        .unwrap_or_else(|| what_the_script_told(o, script_error));
    ToolError {
        error_type,
        message,
        exit_code: match o.exit {
            Some(Exit::Code(c)) => Some(c),
            _ => None,
        },
        code: script_error.map(|e| e.code.clone()),
        recoverable,
    }
}

/// A failure's type, message and whether another try could help.
type Failure = (ToolErrorType, String, bool);

/// The failure when the host cut the attempt short or never started it:
/// not started, protocol violation, time limit, signal, in that order.
fn how_it_was_cut_short(
    o: &Outcome,
    timeout: Duration,
    plan_deadline_hit: bool,
) -> Option<Failure> {
    if let Some(reason) = &o.spawn_error {
        return Some((ToolErrorType::SpawnFailed, reason.clone(), false));
    }
    if let Some(v) = &o.violation {
        let message = format!("protocol violation: {v}");
        return Some((ToolErrorType::ProtocolViolation, message, false));
    }
    if o.timed_out && plan_deadline_hit {
        let message = "stopped: the plan's time limit ran out".to_string();
        return Some((ToolErrorType::PlanTimeout, message, false));
    }
    if o.timed_out {
        let message = format!("exceeded its {} ms timeout", timeout.as_millis());
        return Some((ToolErrorType::Timeout, message, true));
    }
    if let Some(Exit::Signal(s)) = o.exit {
        return Some((ToolErrorType::Signal, format!("killed by signal {s}"), true));
    }
    None
}

/// The failure of a script that ran to its end: its `error` event, else
/// `done.ok:false`, else its exit status.
fn what_the_script_told(o: &Outcome, script_error: Option<&ScriptError>) -> Failure {
    if let Some(se) = script_error {
        let message = format!("{}: {}", se.code, se.message);
        return (ToolErrorType::ScriptError, message, se.recoverable);
    }
    if matches!(o.done(), Some((false, _))) {
        let summary = o.events.iter().find_map(|(e, _)| match e {
            Event::Done {
                summary: Some(s), ..
            } => Some(s.clone()),
            _ => None,
        });
        let message =
            summary.unwrap_or_else(|| "the script reported failure (done.ok false)".into());
        return (ToolErrorType::ScriptError, message, true);
    }
    let message = match o.exit {
        Some(Exit::Code(c)) if c != 0 => format!("exited with status {c}"),
        _ => "ended without success".into(),
    };
    (ToolErrorType::NonzeroExit, message, true)
}

/// The state a tool ends in after failing this way.
pub(super) fn failed_state(error_type: ToolErrorType) -> ExecutionState {
    match error_type {
        ToolErrorType::Timeout | ToolErrorType::PlanTimeout => ExecutionState::Timeout,
        _ => ExecutionState::Failed,
    }
}

/// Why the plan failed when a required tool failed this way (`None`: the
/// tool has no error recorded).
pub(super) fn plan_failure(error_type: Option<ToolErrorType>) -> FailureReason {
    match error_type {
        Some(ToolErrorType::Timeout) | Some(ToolErrorType::PlanTimeout) => FailureReason::Timeout,
        Some(ToolErrorType::ProtocolViolation) => FailureReason::ProtocolViolation,
        _ => FailureReason::ToolFailure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{parse_event, Violation};
    use serde_json::{json, Value};

    const LIMIT: Duration = Duration::from_millis(250);

    /// An attempt that printed `lines` and ended with `exit`.
    fn ended(exit: Exit, lines: &[Value]) -> Outcome {
        let events = lines
            .iter()
            .map(|line| {
                let obj = line.as_object().expect("an event is an object").clone();
                (parse_event(&obj).expect("a valid event"), obj)
            })
            .collect();
        Outcome {
            events,
            exit: Some(exit),
            violation: None,
            timed_out: false,
            spawn_error: None,
            stderr_tail: String::new(),
            generations: Vec::new(),
        }
    }

    fn error_event(code: &str, recoverable: bool) -> Value {
        json!({"type": "error", "code": code, "message": "broken", "recoverable": recoverable})
    }

    fn done_false() -> Value {
        json!({"type": "done", "ok": false})
    }

    #[test]
    fn a_script_that_could_not_start_is_not_retried() {
        let mut o = ended(Exit::Unknown, &[]);
        o.exit = None;
        o.spawn_error = Some("no such file".into());
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::SpawnFailed);
        assert_eq!(e.message, "no such file");
        assert!(!e.recoverable);
    }

    #[test]
    fn the_tools_own_time_limit_is_a_recoverable_timeout() {
        let mut o = ended(Exit::Signal(9), &[]);
        o.timed_out = true;
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::Timeout);
        assert_eq!(e.message, "exceeded its 250 ms timeout");
        assert!(e.recoverable);
        assert_eq!(failed_state(e.error_type), ExecutionState::Timeout);
    }

    #[test]
    fn the_plans_time_limit_is_a_plan_timeout_that_is_not_retried() {
        let mut o = ended(Exit::Signal(9), &[]);
        o.timed_out = true;
        let e = classify(&o, LIMIT, true);
        assert_eq!(e.error_type, ToolErrorType::PlanTimeout);
        assert_eq!(e.message, "stopped: the plan's time limit ran out");
        assert!(!e.recoverable);
        assert_eq!(failed_state(e.error_type), ExecutionState::Timeout);
    }

    #[test]
    fn a_signal_is_recoverable_and_has_no_exit_code() {
        let e = classify(&ended(Exit::Signal(15), &[]), LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::Signal);
        assert_eq!(e.message, "killed by signal 15");
        assert_eq!(e.exit_code, None);
        assert!(e.recoverable);
        assert_eq!(failed_state(e.error_type), ExecutionState::Failed);
    }

    #[test]
    fn a_nonzero_exit_without_events_keeps_its_status() {
        let e = classify(&ended(Exit::Code(3), &[]), LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::NonzeroExit);
        assert_eq!(e.message, "exited with status 3");
        assert_eq!(e.exit_code, Some(3));
        assert_eq!(e.code, None);
        assert!(e.recoverable);
    }

    #[test]
    fn an_end_of_unknown_kind_is_a_nonzero_exit() {
        let e = classify(&ended(Exit::Unknown, &[]), LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::NonzeroExit);
        assert_eq!(e.message, "ended without success");
        assert_eq!(e.exit_code, None);
    }

    #[test]
    fn a_protocol_violation_wins_over_everything_but_a_failed_start() {
        let mut o = ended(Exit::Code(0), &[error_event("INTERNAL_ERROR", true)]);
        o.violation = Some(Violation::MissingDone);
        o.timed_out = true;
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::ProtocolViolation);
        assert!(
            e.message.starts_with("protocol violation: "),
            "{}",
            e.message
        );
        assert!(!e.recoverable);
        assert_eq!(e.code.as_deref(), Some("INTERNAL_ERROR"));
    }

    #[test]
    fn done_false_after_an_error_event_reports_the_scripts_code() {
        let o = ended(
            Exit::Code(1),
            &[error_event("RATE_EXCEEDED", true), done_false()],
        );
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::ScriptError);
        assert_eq!(e.message, "RATE_EXCEEDED: broken");
        assert_eq!(e.code.as_deref(), Some("RATE_EXCEEDED"));
        assert_eq!(e.exit_code, Some(1));
        assert!(e.recoverable);
    }

    #[test]
    fn the_scripts_recoverable_false_is_kept() {
        let o = ended(
            Exit::Code(1),
            &[error_event("VALIDATION_ERROR", false), done_false()],
        );
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::ScriptError);
        assert!(!e.recoverable);
    }

    #[test]
    fn the_last_error_event_is_the_one_reported() {
        let o = ended(
            Exit::Code(1),
            &[
                error_event("NOT_FOUND", true),
                error_event("UNAUTHORIZED", false),
                done_false(),
            ],
        );
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.code.as_deref(), Some("UNAUTHORIZED"));
        assert!(!e.recoverable);
    }

    #[test]
    fn done_false_without_an_error_event_uses_its_summary() {
        let o = ended(
            Exit::Code(0),
            &[json!({"type": "done", "ok": false, "summary": "the dice fell off the table"})],
        );
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::ScriptError);
        assert_eq!(e.message, "the dice fell off the table");
        assert_eq!(e.code, None);
        assert!(e.recoverable);
    }

    #[test]
    fn done_false_without_a_summary_says_so() {
        let e = classify(&ended(Exit::Code(0), &[done_false()]), LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::ScriptError);
        assert_eq!(e.message, "the script reported failure (done.ok false)");
        assert!(e.recoverable);
    }

    #[test]
    fn a_signal_wins_over_the_scripts_error_event() {
        let o = ended(Exit::Signal(9), &[error_event("INTERNAL_ERROR", false)]);
        let e = classify(&o, LIMIT, false);
        assert_eq!(e.error_type, ToolErrorType::Signal);
        assert_eq!(e.code.as_deref(), Some("INTERNAL_ERROR"));
    }

    #[test]
    fn a_required_tools_error_type_names_the_plans_failure() {
        use ToolErrorType::*;
        assert_eq!(plan_failure(Some(Timeout)), FailureReason::Timeout);
        assert_eq!(plan_failure(Some(PlanTimeout)), FailureReason::Timeout);
        assert_eq!(
            plan_failure(Some(ProtocolViolation)),
            FailureReason::ProtocolViolation
        );
        for other in [
            ToolNotFound,
            SkillDisabled,
            SpawnFailed,
            ConfigInvalid,
            ScriptError,
            NonzeroExit,
            Signal,
            DependencyFailed,
        ] {
            assert_eq!(plan_failure(Some(other)), FailureReason::ToolFailure);
        }
        assert_eq!(plan_failure(None), FailureReason::ToolFailure);
    }
}
