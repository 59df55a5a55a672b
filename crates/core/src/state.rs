//! Session state and the deep merge that applies a script's `state_patch`.

use serde_json::{Map, Value};

/// Merges `patch` into `target`: `null` deletes a key, objects merge
/// recursively, arrays and scalars replace.
pub fn deep_merge(target: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (key, value) in patch {
        match value {
            Value::Null => {
                target.remove(key);
            }
            Value::Object(p) => match target.get_mut(key) {
                Some(Value::Object(t)) => deep_merge(t, p),
                _ => {
                    // A new object is merged into an empty one so that nulls
                    // inside it delete nothing and are not stored.
                    let mut fresh = Map::new();
                    deep_merge(&mut fresh, p);
                    target.insert(key.clone(), Value::Object(fresh));
                }
            },
            other => {
                target.insert(key.clone(), other.clone());
            }
        }
    }
}

/// `deep_merge` on a copy.
pub fn merged(target: &Map<String, Value>, patch: &Map<String, Value>) -> Map<String, Value> {
    let mut out = target.clone();
    deep_merge(&mut out, patch);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn check(target: Value, patch: Value, want: Value) {
        assert_eq!(Value::Object(merged(&obj(target), &obj(patch))), want);
    }

    #[test]
    fn example_1_nested_object_merge() {
        check(
            json!({"a": {"b": 1, "c": 2}}),
            json!({"a": {"c": 3, "d": 4}}),
            json!({"a": {"b": 1, "c": 3, "d": 4}}),
        );
    }

    #[test]
    fn example_2_array_replacement() {
        check(
            json!({"items": [1, 2, 3]}),
            json!({"items": [4, 5]}),
            json!({"items": [4, 5]}),
        );
    }

    #[test]
    fn example_3_key_deletion() {
        check(json!({"a": 1, "b": 2}), json!({"b": null}), json!({"a": 1}));
    }

    #[test]
    fn example_4_add_new_key() {
        check(json!({"a": 1}), json!({"b": 2}), json!({"a": 1, "b": 2}));
    }

    #[test]
    fn object_replaces_scalar_and_scalar_replaces_object() {
        check(
            json!({"a": 1}),
            json!({"a": {"b": 2}}),
            json!({"a": {"b": 2}}),
        );
        check(json!({"a": {"b": 2}}), json!({"a": 1}), json!({"a": 1}));
    }

    #[test]
    fn nested_null_deletes_nested_key_only() {
        check(
            json!({"a": {"b": 1, "c": 2}}),
            json!({"a": {"b": null}}),
            json!({"a": {"c": 2}}),
        );
        check(json!({}), json!({"a": {"b": null}}), json!({"a": {}}));
    }

    #[test]
    fn deleting_a_missing_key_is_harmless() {
        check(json!({"a": 1}), json!({"zzz": null}), json!({"a": 1}));
    }
}
