//! What the engine's fuzz targets feed their input to; the engine's corpus
//! replay test includes this same file.

use narratoria_core::dag::Dag;
use narratoria_core::plan::Plan;
use narratoria_core::skills::config;
use narratoria_core::skills::manifest::{parse_manifest, parse_skill_md};
use serde_json::Value;

/// Parses and validates `data` as a plan, then orders its tools. A plan that
/// was accepted is accepted again after a round trip.
pub fn plan(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(plan) = Plan::from_json_str(text) else {
        return;
    };
    if let Ok(dag) = Dag::new(&plan.tools) {
        assert_eq!(dag.topological_order().len(), plan.tools.len());
        let mut queue = dag.queue();
        let mut seen = 0;
        while let Some(i) = queue.pop() {
            queue.finish(i);
            seen += 1;
        }
        assert_eq!(
            seen,
            plan.tools.len(),
            "every tool of a valid DAG is scheduled"
        );
    }
    let again = serde_json::to_value(&plan).expect("a plan serialises");
    if let Err(e) = Plan::from_value(again) {
        panic!("an accepted plan is refused after a round trip: {e}");
    }
}

/// Parses `data` as a `skill.json`.
pub fn skill_json(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_manifest(text);
    }
}

/// Parses `data` as a `SKILL.md` in a folder named `skill`.
pub fn skill_md(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_skill_md(text, "skill");
    }
}

/// `data` is up to three lines: a settings schema, the player's settings and
/// the environment variables the player allowed (comma-separated). Checks
/// validation, defaults, redaction and `${VAR}` resolution, and that
/// resolution never reads a variable the player did not allow.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.splitn(3, '\n');
    let schema: Value = match lines.next().map(serde_json::from_str) {
        Some(Ok(v)) => v,
        _ => return,
    };
    let settings: Value = match lines.next().map(serde_json::from_str) {
        Some(Ok(v)) => v,
        _ => Value::Object(Default::default()),
    };
    let allowed: Vec<String> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    // Schemas that fail to compile are reported, not panicked on.
    if narratoria_core::schema::compile(&schema).is_err() {
        return;
    }
    let _ = config::validate(&schema, &settings);
    let _ = config::validate_stored(&schema, &settings);
    let filled = config::with_defaults(&schema, &settings);
    let redacted = config::redact(&schema, &filled);
    for secret in config::secret_values(&schema, &filled) {
        let mut shown = redacted.clone();
        config::scrub(&mut shown, std::slice::from_ref(&secret));
        let text = serde_json::to_string(&shown).expect("serialises");
        assert!(!text.contains(&secret), "a scrubbed secret is still shown");
    }
    let player = config::PlayerSettings {
        settings,
        allow_env: allowed.clone(),
    };
    let lookup = |name: &str| {
        assert!(
            allowed.iter().any(|a| a == name),
            "resolution read {name:?}, which the player did not allow"
        );
        Some(format!("value-of-{name}"))
    };
    let _ = config::resolve(Some(&schema), None, Some(&player), &lookup);
    let _ = config::resolve(None, Some(&filled), Some(&player), &lookup);
}
