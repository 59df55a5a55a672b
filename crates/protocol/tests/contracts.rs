//! The protocol's JSON Schemas checked in under `contracts/` must match the
//! types. Run with `NARRATORIA_WRITE_CONTRACTS=1` to regenerate the files.

use std::path::PathBuf;

use narratoria_protocol::schema::contract_schemas;

fn render(schema: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(schema).unwrap();
    s.push('\n');
    s
}

#[test]
fn checked_in_protocol_contracts_match_the_types() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../contracts");
    let write = std::env::var_os("NARRATORIA_WRITE_CONTRACTS").is_some();
    let mut stale = Vec::new();
    for (name, schema) in contract_schemas() {
        let path = dir.join(name);
        let want = render(&schema);
        if write {
            std::fs::write(&path, &want).unwrap();
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != want {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "contracts/ out of date with the protocol types: {stale:?} (regenerate with NARRATORIA_WRITE_CONTRACTS=1 cargo test -p narratoria-protocol --test contracts)"
    );
}

/// Every pinned wire line is valid under its contract schema.
#[test]
fn snapshots_match_the_contract_schemas() {
    let snapshots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let schemas = contract_schemas();
    let validator = |file: &str| {
        let schema = &schemas.iter().find(|(name, _)| *name == file).unwrap().1;
        jsonschema::validator_for(schema).unwrap()
    };
    let mut checked = 0;
    for (prefix, file) in [
        ("envelope-", "protocol-envelope.schema.json"),
        ("event-", "protocol-event.schema.json"),
        ("generated-", "protocol-generated.schema.json"),
        ("state-gm", "state-gm.schema.json"),
    ] {
        let validator = validator(file);
        for entry in std::fs::read_dir(&snapshots).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with(prefix) {
                continue;
            }
            let value: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{name} against {file}: {errors:?}");
            checked += 1;
        }
    }
    let pinned = std::fs::read_dir(&snapshots).unwrap().count();
    assert!(checked >= 14, "every kind of line is pinned ({checked})");
    assert_eq!(checked, pinned, "every snapshot is checked");

    let events = validator("protocol-event.schema.json");
    for bad in [
        serde_json::json!({"type": "log", "message": "no level"}),
        serde_json::json!({"type": "asset", "assetId": "a", "kind": "image"}),
        serde_json::json!({"type": "shout"}),
    ] {
        assert!(!events.is_valid(&bad), "{bad}");
    }
}
