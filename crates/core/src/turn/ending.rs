//! How a turn ends: told by its narration step (then remembered), stopped
//! by the player, or fallen back on the template after every plan failed —
//! and the outcome that closes its trace (docs/architecture.md, "One turn,
//! as it flows"; docs/observability.md).

use serde_json::{Map, Value};

use super::attempt::status_of;
use super::fallback::fallback_result;
use super::{fallback_narration, memory, Progress, Turn, TurnEvent, TurnLog, TurnOutcome};
use crate::narration;
use crate::result::{ExecutionResult, ExecutionState};
use crate::store::NewTurn;
use crate::trace::{SpanKind, SpanParent, SpanStatus};

impl Turn<'_> {
    /// The turn whose last plan succeeded: remembered, then told.
    pub(super) async fn succeeded(self, p: Progress) -> TurnOutcome {
        let result = p.last_result.expect("the plan that succeeded has a result");
        let noted = memory::noted(&p.log.attempts);
        let result = self.remembered(result, &p.last_disabled, noted).await;
        self.told(result, p.log)
    }

    /// `result` after the memory skill kept the turn (when it can): its tool
    /// joins the trace, in a `memory` span under the turn's root on the
    /// turn's clock, and its state changes the turn's. A failure to
    /// remember never fails the turn.
    async fn remembered(
        &self,
        mut result: ExecutionResult,
        disabled: &[String],
        noted: bool,
    ) -> ExecutionResult {
        let narrative = result.narrative.clone().unwrap_or_default();
        let span = self
            .trace
            .open(SpanKind::Memory, "memory", Some(self.root.id()));
        let mut exec = self.opts.exec.clone();
        exec.trace = Some(SpanParent {
            trace: self.trace.clone(),
            span_id: span.id().to_string(),
        });
        let account = memory::Account {
            input: self.input,
            narrative: &narrative,
            noted,
            language: &self.told.language,
        };
        let state = result.final_state.clone();
        let Some(kept) = memory::keep(&self.catalog, disabled, account, state, &exec).await else {
            span.close(SpanStatus::Skipped);
            return result;
        };
        span.close(status_of(kept.success));
        if kept.success {
            result.final_state = kept.final_state;
        }
        result.execution_trace.extend(kept.execution_trace);
        result
    }

    /// The turn told by its narration step, or — when there was none (the
    /// storyteller disabled or failed) — by the outcome template, which tells
    /// what the rules decided in words.
    fn told(self, mut result: ExecutionResult, log: TurnLog) -> TurnOutcome {
        let narrative = match result.narrative.clone().filter(|n| !n.trim().is_empty()) {
            Some(n) => n,
            None => {
                let outputs = result
                    .execution_trace
                    .iter()
                    .filter_map(|t| t.output.as_ref());
                let told = narration::told_in(&self.told.language, self.input, outputs);
                self.send(TurnEvent::Fallback {
                    narrative: told.clone(),
                });
                told
            }
        };
        result.narrative = Some(narrative.clone());
        let state_after = result.final_state.clone();
        self.outcome(result, narrative, false, state_after, log)
    }

    /// The turn the player stopped: what its tools finished stays (their
    /// state changes too) and it is told by the outcome template from what
    /// they decided — nothing half-written. Without any tool run, the
    /// template alone, with no state change.
    pub(super) fn stopped(self, last: Option<ExecutionResult>, log: TurnLog) -> TurnOutcome {
        let Some(mut result) = last else {
            return self.fell_back(None, None, log);
        };
        let narrative = narration::told_in(
            &self.told.language,
            self.input,
            result
                .execution_trace
                .iter()
                .filter(|t| t.state == ExecutionState::Completed)
                .filter_map(|t| t.output.as_ref()),
        );
        self.send(TurnEvent::Fallback {
            narrative: narrative.clone(),
        });
        result.narrative = Some(narrative.clone());
        let state_after = result.final_state.clone();
        self.outcome(result, narrative, true, state_after, log)
    }

    /// The turn told by the template after every plan failed; no state changes.
    pub(super) fn fell_back(
        self,
        last: Option<ExecutionResult>,
        parent: Option<uuid::Uuid>,
        log: TurnLog,
    ) -> TurnOutcome {
        let narrative = fallback_narration(&self.told.language, self.input);
        self.send(TurnEvent::Fallback {
            narrative: narrative.clone(),
        });
        let result = fallback_result(last, parent, &self.state, narrative.clone());
        let state_after = self.state.clone();
        self.outcome(result, narrative, true, state_after, log)
    }

    /// Closes the turn's root span and keeps its trace with the turn.
    fn outcome(
        self,
        mut result: ExecutionResult,
        narrative: String,
        fallback: bool,
        state_after: Map<String, Value>,
        log: TurnLog,
    ) -> TurnOutcome {
        let Turn {
            mut root, trace, ..
        } = self;
        root.set("fallback", fallback);
        root.set("attempts", log.attempts.len());
        root.close(status_of(!fallback));
        let record = trace.record_so_far();
        result.trace = Some(record.clone());
        TurnOutcome {
            turn: NewTurn {
                input: self.input.to_string(),
                narrative,
                fallback,
                state_after,
                duration_ms: log.started.elapsed().as_millis() as u64,
                attempts: log.attempts,
                trace: Some(record),
            },
            result,
            health_changes: log.health_changes,
        }
    }
}
