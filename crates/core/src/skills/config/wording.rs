//! Schema validation errors worded for a campaign author, each located by
//! JSON pointer.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::error::FieldError;
use crate::skills::manifest::escape_pointer;

/// One validation error as a [`FieldError`]: the pointer of the setting at
/// fault (the missing or unknown property itself, when there is one) and a
/// sentence saying what it must be.
pub(super) fn field_error(e: &jsonschema::ValidationError<'_>) -> FieldError {
    let pointer = e.instance_path().to_string();
    let got = short(e.instance());
    let (pointer, message) = match e.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| property.to_string());
            (
                format!("{pointer}/{}", escape_pointer(&name)),
                "is required".to_string(),
            )
        }
        ValidationErrorKind::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => article(&t.to_string()),
                TypeKind::Multiple(ts) => format!("one of the types {ts:?}"),
            };
            (pointer, format!("must be {want}, not {got}"))
        }
        ValidationErrorKind::Enum { options } => {
            let list = options.as_array().map(|a| {
                a.iter()
                    .map(|o| o.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            });
            (
                pointer,
                format!(
                    "must be one of {}, not {got}",
                    list.unwrap_or_else(|| options.to_string())
                ),
            )
        }
        ValidationErrorKind::Minimum { limit } => {
            (pointer, format!("must be at least {limit}, not {got}"))
        }
        ValidationErrorKind::Maximum { limit } => {
            (pointer, format!("must be at most {limit}, not {got}"))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            (pointer, format!("must be more than {limit}, not {got}"))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            (pointer, format!("must be less than {limit}, not {got}"))
        }
        ValidationErrorKind::MinLength { limit } => {
            (pointer, format!("must be at least {limit} characters long"))
        }
        ValidationErrorKind::MaxLength { limit } => {
            (pointer, format!("must be at most {limit} characters long"))
        }
        ValidationErrorKind::Pattern { pattern } => {
            (pointer, format!("must match the pattern {pattern}"))
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let names = unexpected.join(", ");
            let at = if unexpected.len() == 1 {
                format!("{pointer}/{}", escape_pointer(&unexpected[0]))
            } else {
                pointer
            };
            (
                at,
                format!("unknown setting {names} (not in the settings schema)"),
            )
        }
        ValidationErrorKind::Format { format } => (pointer, format!("must be a valid {format}")),
        _ => (pointer, e.to_string()),
    };
    FieldError { pointer, message }
}

/// A JSON type name with its article: "an integer", "a string", "null".
fn article(t: &str) -> String {
    match t {
        "integer" | "object" | "array" => format!("an {t}"),
        "null" => "null".into(),
        _ => format!("a {t}"),
    }
}

/// The offending value as JSON, cut to 40 characters.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_schema::schema;
    use super::super::{validate, ConfigError};
    use crate::error::FieldError;

    fn errs(r: Result<(), ConfigError>) -> Vec<FieldError> {
        r.unwrap_err().field_errors().to_vec()
    }

    #[test]
    fn wrong_type_enum_range_required_unknown_are_named() {
        let e = errs(validate(
            &schema(),
            &json!({"sides": "six", "mode": "odd", "bogus": 1}),
        ));
        let by = |p: &str| {
            e.iter()
                .find(|x| x.pointer == p)
                .map(|x| x.message.clone())
                .unwrap_or_default()
        };
        assert!(by("/sides").contains("must be an integer"), "{e:?}");
        assert!(
            by("/mode").contains("must be one of \"fair\", \"loaded\""),
            "{e:?}"
        );
        assert!(by("/endpoint").contains("required"), "{e:?}");
        assert!(by("/bogus").contains("unknown setting"), "{e:?}");
        let e = errs(validate(&schema(), &json!({"sides": 1, "endpoint": "x"})));
        assert_eq!(e[0].pointer, "/sides");
        assert!(e[0].message.contains("at least 2"), "{e:?}");
    }
}
