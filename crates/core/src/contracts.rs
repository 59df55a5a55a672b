//! The contract schemas generated from the Rust types, checked in under
//! `contracts/` and kept in step by this module's test.

use serde_json::Value;

/// The contract schemas: file name under `contracts/` → schema.
pub fn contract_schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("plan-json.schema.json", crate::plan::plan_schema()),
        (
            "execution-result.schema.json",
            serde_json::to_value(schemars::schema_for!(crate::result::ExecutionResult))
                .expect("schema serialises"),
        ),
        (
            "skill-manifest.schema.json",
            crate::skills::manifest::manifest_schema(),
        ),
    ]
    .into_iter()
    .chain(crate::run_folder::schemas())
    .collect()
}

/// The text a contract schema file must hold (pretty JSON, trailing newline).
pub fn render(schema: &Value) -> String {
    let mut s = serde_json::to_string_pretty(schema).expect("schema serialises");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::compile;
    use std::path::PathBuf;

    fn contracts_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../contracts")
    }

    /// Fails when a checked-in schema and the Rust types disagree. Run with
    /// `NARRATORIA_WRITE_CONTRACTS=1` to regenerate the files.
    #[test]
    fn checked_in_contracts_match_the_types() {
        let write = std::env::var_os("NARRATORIA_WRITE_CONTRACTS").is_some();
        let mut stale = Vec::new();
        for (name, schema) in contract_schemas() {
            let path = contracts_dir().join(name);
            let want = render(&schema);
            if write {
                std::fs::write(&path, &want).unwrap();
            }
            let have = std::fs::read_to_string(&path).unwrap_or_default();
            if have != want {
                stale.push(name);
            }
        }
        assert!(stale.is_empty(), "contracts/ out of date with the types: {stale:?} (regenerate with NARRATORIA_WRITE_CONTRACTS=1 cargo test -p narratoria-core contracts)");
    }

    #[test]
    fn contract_schemas_compile() {
        for (name, schema) in contract_schemas() {
            assert!(compile(&schema).is_ok(), "{name}");
        }
    }
}
