//! What the player sees of a turn at the terminal while it plays: the
//! planner thinking, the dice, the prose as it streams, a stop.

use narratoria_core::executor::ExecEvent;
use narratoria_core::turn::TurnEvent;
use serde_json::Value;

/// What the player reads after stopping a turn with Ctrl-C.
pub(super) const STOPPED: &str =
    "\n  The turn stopped: what was already decided is kept, the rest was left out.";

/// Prints one live event for the player; returns nothing, keeps the streamed narration.
pub(super) fn show(ev: &TurnEvent, streamed: &mut String) {
    match ev {
        TurnEvent::Planning { attempt, .. } if *attempt == 1 => dim("  … thinking"),
        TurnEvent::Planning { attempt, .. } => {
            dim(&format!("  … trying another way (plan {attempt})"))
        }
        TurnEvent::AttemptFailed { reason, .. } => dim(&format!("  ✗ {reason}")),
        TurnEvent::HealthChanged(c) => dim(&format!("  ! {} is now {:?}", c.skill, c.to)),
        TurnEvent::Execution {
            event: ExecEvent::ToolEvent { event, .. },
            ..
        } => {
            if event.get("type").and_then(Value::as_str) != Some("ui_event") {
                return;
            }
            let payload = event.get("payload").cloned().unwrap_or(Value::Null);
            match event.get("event").and_then(Value::as_str) {
                Some("dice_roll") => {
                    let formula = payload
                        .get("formula")
                        .and_then(Value::as_str)
                        .unwrap_or("?");
                    let rolls = payload
                        .get("rolls")
                        .map(|r| r.to_string())
                        .unwrap_or_default();
                    let total = payload
                        .get("total")
                        .map(|t| t.to_string())
                        .unwrap_or_default();
                    say(&format!("  🎲 {formula} → {rolls} = {total}"));
                }
                Some("narration_delta") => {
                    if let Some(t) = payload
                        .get("text")
                        .or_else(|| payload.get("delta"))
                        .and_then(Value::as_str)
                    {
                        if streamed.is_empty() {
                            say!();
                        }
                        streamed.push_str(t);
                        say_part!("{t}");
                    }
                }
                Some("narration_reset") if !streamed.is_empty() => {
                    // The prose so far is void: another provider starts over.
                    streamed.clear();
                    say("\n  (the story is told again)");
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// One line for the player.
pub(super) fn say(s: &str) {
    say!("{s}");
}

/// One line for the player, dimmed at a terminal.
pub(super) fn dim(s: &str) {
    crate::terminal::out_dim(s);
}
