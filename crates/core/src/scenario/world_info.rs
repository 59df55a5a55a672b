//! Reading lorebooks: SillyTavern world info (`entries` keyed by number,
//! with `key`, `keysecondary`, `content`, `constant`, `disable`, `order`,
//! `comment`), a character card's `character_book` (`entries` list with
//! `keys`, `secondary_keys`, `insertion_order`, `enabled`, `priority`), and
//! Narratoria's own lore list (see [`LoreEntry`]).

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::Origin;
use super::json::without_bom;
use super::limits::{self, MAX_FILE_BYTES, NAME_CHARS};
use super::lore::{self, LoreEntry};
use super::ScenarioError;

/// The largest lorebook file read, in bytes.
pub const MAX_LOREBOOK_BYTES: usize = MAX_FILE_BYTES;

/// A lorebook as read: its entries, and what was left out and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lorebook {
    pub name: Option<String>,
    pub entries: Vec<LoreEntry>,
    /// One line per entry left out (blank, or with nothing to bring it in).
    pub skipped: Vec<String>,
}

/// Reads a lorebook file's bytes (a leading byte-order mark passed over).
/// Promises: a file that is not JSON, has no entries, or holds none that
/// can be told is refused with the problem named; so is one whose name,
/// entry names, keys or contents break the limits of [`super::limits`],
/// naming the field as the file does and the limit; entries that are blank
/// or could never be told are left out and listed in `skipped`; the
/// entries kept pass [`lore::check_all`].
pub fn parse_lorebook(bytes: &[u8]) -> Result<Lorebook, ScenarioError> {
    if bytes.len() > MAX_LOREBOOK_BYTES {
        return Err(ScenarioError::Lore(format!(
            "the file is {} bytes; lorebooks of at most {} bytes (5 MiB) are read",
            bytes.len(),
            MAX_LOREBOOK_BYTES
        )));
    }
    let value: Value = serde_json::from_slice(without_bom(bytes))
        .map_err(|e| ScenarioError::Lore(format!("the file is not JSON ({e})")))?;
    let (name, raw) = match &value {
        Value::Array(items) => (None, items.iter().collect::<Vec<_>>()),
        Value::Object(book) => {
            let name = book
                .get("name")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(String::from);
            if let Some(name) = &name {
                // Told as the player's words when the book joins a story.
                limits::chars(Origin::Lore, "name", name, NAME_CHARS)?;
            }
            let entries = match book.get("entries") {
                Some(Value::Array(items)) => items.iter().collect(),
                Some(Value::Object(by_id)) => by_id.values().collect(),
                Some(_) => {
                    return Err(ScenarioError::Lore(
                        "`entries` must be a list or an object of entries".into(),
                    ))
                }
                None => {
                    return Err(ScenarioError::Lore(
                        "no `entries`: this is not a world info or lorebook file".into(),
                    ))
                }
            };
            (name, entries)
        }
        _ => {
            return Err(ScenarioError::Lore(
                "the file must hold a JSON object with `entries`, or a list of entries".into(),
            ))
        }
    };
    let book = entries_from(&raw, "entries")?;
    if book.entries.is_empty() {
        return Err(ScenarioError::Lore(if book.skipped.is_empty() {
            "the lorebook has no entries".into()
        } else {
            format!(
                "none of its {} entries can be told: {}",
                book.skipped.len(),
                book.skipped.join("; ")
            )
        }));
    }
    Ok(Lorebook { name, ..book })
}

/// Entries from a list of JSON entries in any of the known shapes; blank or
/// never-told ones go to `skipped`. `at` names the list in messages.
pub fn entries_from(raw: &[&Value], at: &str) -> Result<Lorebook, ScenarioError> {
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for (i, item) in raw.iter().enumerate() {
        let Some(obj) = item.as_object() else {
            return Err(ScenarioError::Lore(format!("{at}[{i}] is not an object")));
        };
        let entry = entry_from(obj, &format!("{at}[{i}]"))?;
        if entry.content.trim().is_empty() {
            skipped.push(format!("{at}[{i}] ({:?}) has no content", entry.name));
        } else if !entry.constant && entry.keys.is_empty() {
            skipped.push(format!(
                "{at}[{i}] ({:?}) has no keys and is not constant",
                entry.name
            ));
        } else {
            entries.push(entry);
        }
    }
    lore::check_all(&entries, at)?;
    Ok(Lorebook {
        name: None,
        entries,
        skipped,
    })
}

/// One entry from any known shape. Promises: keys from `keys` or `key` (a
/// list, or one comma-separated string), held to the key limits, as are
/// secondary keys and the name (from `name` or `comment`, else the first
/// key); enabled unless `enabled: false` or `disable: true`; secondary keys
/// only when `selective` is not `false`; `order` from `order` or
/// `insertion_order` (default 100); `priority` from `priority`, else the
/// order (world info tells higher orders first).
fn entry_from(obj: &Map<String, Value>, at: &str) -> Result<LoreEntry, ScenarioError> {
    let keys = key_list(obj, &["keys", "key"], at)?;
    let secondary = key_list(
        obj,
        &["secondaryKeys", "secondary_keys", "keysecondary"],
        at,
    )?;
    let selective = flag(obj, "selective", at)?.unwrap_or(true);
    let content = match obj.get("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(_) => return Err(ScenarioError::Lore(format!("{at}.content must be text"))),
    };
    let enabled =
        flag(obj, "enabled", at)?.unwrap_or(true) && !flag(obj, "disable", at)?.unwrap_or(false);
    let constant = flag(obj, "constant", at)?.unwrap_or(false);
    let order = number(obj, &["order", "insertion_order"], at)?.unwrap_or(100);
    let priority = number(obj, &["priority"], at)?.unwrap_or(order);
    let named = ["name", "comment"]
        .iter()
        .filter_map(|k| Some((k, obj.get(*k).and_then(Value::as_str)?.trim())))
        .find(|(_, n)| !n.is_empty());
    if let Some((field, name)) = named {
        limits::chars(Origin::Lore, &format!("{at}.{field}"), name, NAME_CHARS)?;
    }
    let name = named
        .map(|(_, n)| n.to_string())
        .or_else(|| keys.first().cloned())
        .unwrap_or_else(|| at.to_string());
    Ok(LoreEntry {
        name,
        keys,
        secondary_keys: if selective { secondary } else { Vec::new() },
        content,
        enabled,
        constant,
        priority,
        order,
    })
}

fn key_list(
    obj: &Map<String, Value>,
    names: &[&str],
    at: &str,
) -> Result<Vec<String>, ScenarioError> {
    let Some((name, value)) = names.iter().find_map(|n| obj.get(*n).map(|v| (n, v))) else {
        return Ok(Vec::new());
    };
    let words: Vec<String> = match value {
        Value::Null => Vec::new(),
        Value::String(s) => s.split(',').map(String::from).collect(),
        Value::Array(items) => items
            .iter()
            .map(|k| {
                k.as_str().map(String::from).ok_or_else(|| {
                    ScenarioError::Lore(format!("{at}.{name} must be a list of text"))
                })
            })
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(ScenarioError::Lore(format!(
                "{at}.{name} must be a list of text"
            )))
        }
    };
    let keys: Vec<String> = words
        .into_iter()
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    limits::keys(Origin::Lore, &format!("{at}.{name}"), &keys)?;
    Ok(keys)
}

fn flag(obj: &Map<String, Value>, name: &str, at: &str) -> Result<Option<bool>, ScenarioError> {
    match obj.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ScenarioError::Lore(format!(
            "{at}.{name} must be true or false"
        ))),
    }
}

fn number(
    obj: &Map<String, Value>,
    names: &[&str],
    at: &str,
) -> Result<Option<i64>, ScenarioError> {
    for name in names {
        match obj.get(*name) {
            None | Some(Value::Null) => continue,
            Some(v) => {
                return v
                    .as_i64()
                    .or_else(|| v.as_f64().map(|f| f.round() as i64))
                    .map(Some)
                    .ok_or_else(|| ScenarioError::Lore(format!("{at}.{name} must be a number")))
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Lorebook, ScenarioError> {
        parse_lorebook(serde_json::to_string(&v).unwrap().as_bytes())
    }

    #[test]
    fn reads_sillytavern_world_info() {
        let book = parse(json!({
            "entries": {
                "0": {"uid": 0, "key": ["Ashford", "border town"], "keysecondary": [],
                      "comment": "The town", "content": "Ashford guards the ford.",
                      "constant": false, "selective": true, "order": 100, "disable": false},
                "1": {"uid": 1, "key": [], "content": "Winter is coming.", "constant": true, "order": 5},
                "2": {"uid": 2, "key": ["ghost"], "content": "Old.", "disable": true, "order": 100},
                "3": {"uid": 3, "key": [], "content": "no way in", "constant": false},
                "4": {"uid": 4, "key": ["blank"], "content": ""}
            }
        }))
        .unwrap();
        assert_eq!(book.entries.len(), 3);
        let town = &book.entries[0];
        assert_eq!(town.name, "The town");
        assert_eq!(town.keys, ["Ashford", "border town"]);
        assert_eq!((town.order, town.priority), (100, 100));
        assert!(book.entries[1].constant);
        assert!(!book.entries[2].enabled);
        assert_eq!(book.skipped.len(), 2);
        assert!(book.skipped[0].contains("no keys and is not constant"));
    }

    #[test]
    fn reads_a_character_book_and_our_own_list() {
        let book = parse(json!({
            "name": "Mara's book",
            "entries": [{"keys": ["ledger"], "secondary_keys": ["debt"], "selective": true,
                         "content": "Mara keeps a ledger of debts.", "enabled": true,
                         "insertion_order": 10, "priority": 3, "extensions": {}}]
        }))
        .unwrap();
        assert_eq!(book.name.as_deref(), Some("Mara's book"));
        let e = &book.entries[0];
        assert_eq!((e.order, e.priority), (10, 3));
        assert_eq!(e.secondary_keys, ["debt"]);
        let ours =
            parse(json!([{"name": "Gate", "keys": ["gate"], "content": "Shut at dusk."}])).unwrap();
        assert_eq!(ours.entries[0].name, "Gate");
    }

    #[test]
    fn broken_files_say_what_is_wrong() {
        let err = |b: &[u8]| parse_lorebook(b).unwrap_err().to_string();
        assert!(err(b"not json").contains("not JSON"));
        assert!(err(b"{}").contains("no `entries`"));
        assert!(err(b"42").contains("must hold a JSON object"));
        assert!(err(br#"{"entries": {}}"#).contains("has no entries"));
        assert!(err(br#"{"entries": [{"key": [1], "content": "x"}]}"#)
            .contains("entries[0].key must be a list of text"));
        assert!(
            err(br#"{"entries": [{"key": ["a"], "content": "x", "constant": "yes"}]}"#)
                .contains("entries[0].constant must be true or false")
        );
        assert!(
            err(br#"{"entries": [{"key": [], "content": "x"}]}"#).contains("none of its 1 entries")
        );
        assert!(err(&vec![b' '; MAX_LOREBOOK_BYTES + 1]).contains("5 MiB"));
    }

    #[test]
    fn keys_and_names_are_bounded_and_the_limit_named() {
        let err = |v: Value| parse(v).unwrap_err().to_string();
        let entry = |keys: Value| json!({"entries": [{"key": keys, "content": "Told."}]});
        let e = err(entry(json!(["k".repeat(201)])));
        assert!(e.contains("entries[0].key[0]") && e.contains("200"), "{e}");
        let many: Vec<String> = (0..101).map(|i| format!("k{i}")).collect();
        let e = err(entry(json!(many)));
        assert!(
            e.contains("entries[0].key holds 101 keys; at most 100"),
            "{e}"
        );
        let e = err(
            json!({"entries": [{"key": ["k"], "keysecondary": ["s".repeat(201)], "content": "c"}]}),
        );
        assert!(e.contains("entries[0].keysecondary[0]"), "{e}");
        let e =
            err(json!({"entries": [{"key": ["k"], "comment": "c".repeat(201), "content": "c"}]}));
        assert!(e.contains("entries[0].comment") && e.contains("200"), "{e}");
        let e = err(json!({"name": "n".repeat(201), "entries": [{"key": ["k"], "content": "c"}]}));
        assert!(e.contains("name holds 201 characters; at most 200"), "{e}");
        // 990 entries of 10 keys of 150 characters: 1,485,000 characters of keys.
        let entries: Vec<Value> = (0..990)
            .map(|i| {
                let keys: Vec<String> = (0..10)
                    .map(|j| format!("{i}-{j}-{}", "k".repeat(140)))
                    .collect();
                json!({"key": keys, "content": "Told."})
            })
            .collect();
        let e = err(json!({ "entries": entries }));
        assert!(e.contains("keys") && e.contains("131072"), "{e}");
    }

    #[test]
    fn a_lorebook_may_start_with_a_byte_order_mark() {
        let mut bytes = "\u{feff}".as_bytes().to_vec();
        bytes.extend_from_slice(
            br#"[{"name": "Gate", "keys": ["gate"], "content": "Shut at dusk."}]"#,
        );
        assert_eq!(parse_lorebook(&bytes).unwrap().entries.len(), 1);
    }
}
