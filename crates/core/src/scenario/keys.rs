//! Finding lore keys in a text: every key of every entry in one pass over
//! the text, however many keys there are and however long.
//!
//! The rule (see [`super::lore`]): a key occurs where its trimmed,
//! lower-cased text occurs in the lower-cased text and, when the key starts
//! (ends) with a word character — alphanumeric or `_` — the character
//! before (after) it is not one. A blank key never occurs. Every
//! occurrence is looked at, overlapping ones too, so the answer is the one
//! trying every place would give.
//!
//! The work: one Aho-Corasick pass over the text, plus a constant look at
//! each occurrence until its key is found. The keys occurring at one place
//! of the text, ending there, have different lengths, so there are at most
//! (text length × number of different key lengths) occurrences — linear in
//! the text, however the keys nearly match it.

use std::collections::HashMap;
use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};

use super::lore::LoreEntry;

/// Keys searched for together.
pub(crate) struct KeySet {
    /// For each different key (trimmed, lower-cased, not blank): whether it
    /// starts and whether it ends with a word character.
    patterns: Vec<(bool, bool)>,
    /// The pattern each key given is, `None` for a blank key.
    ids: Vec<Option<usize>>,
    /// `None` when no key is searched for.
    automaton: Option<AhoCorasick>,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl KeySet {
    /// The set of `keys`, in the order given.
    pub(crate) fn new<'k>(keys: impl IntoIterator<Item = &'k str>) -> KeySet {
        let mut texts: Vec<String> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let ids = keys
            .into_iter()
            .map(|key| {
                let key = key.trim().to_lowercase();
                if key.is_empty() {
                    return None;
                }
                let next = texts.len();
                let id = *index.entry(key.clone()).or_insert(next);
                if id == next {
                    texts.push(key);
                }
                Some(id)
            })
            .collect();
        let patterns = texts
            .iter()
            .map(|k| (k.starts_with(is_word), k.ends_with(is_word)))
            .collect();
        let automaton = if texts.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&texts)
                .map_err(|e| tracing::warn!("lore keys cannot be searched for: {e}"))
                .ok()
        };
        KeySet {
            patterns,
            ids,
            automaton,
        }
    }

    /// For each key given (in order), whether it occurs in `lower_text`
    /// (already lower-cased).
    pub(crate) fn found(&self, lower_text: &str) -> Vec<bool> {
        self.scan(lower_text).0
    }

    /// [`KeySet::found`], and how many occurrences were looked at.
    fn scan(&self, lower_text: &str) -> (Vec<bool>, usize) {
        let mut hit = vec![false; self.patterns.len()];
        let mut looked = 0;
        let mut left = self.patterns.len();
        if let Some(automaton) = &self.automaton {
            for m in automaton.find_overlapping_iter(lower_text) {
                looked += 1;
                let id = m.pattern().as_usize();
                if hit[id] {
                    continue;
                }
                let (starts_word, ends_word) = self.patterns[id];
                let before = lower_text
                    .get(..m.start())
                    .and_then(|s| s.chars().next_back());
                let after = lower_text.get(m.end()..).and_then(|s| s.chars().next());
                if (!starts_word || !before.is_some_and(is_word))
                    && (!ends_word || !after.is_some_and(is_word))
                {
                    hit[id] = true;
                    left -= 1;
                    if left == 0 {
                        break;
                    }
                }
            }
        }
        let found = self
            .ids
            .iter()
            .map(|id| id.is_some_and(|i| hit[i]))
            .collect();
        (found, looked)
    }
}

/// Which entries' keys occur in a text, all entries searched in one pass.
pub(crate) struct EntryKeys {
    set: KeySet,
    /// Each entry's keys and secondary keys, as ranges of the set's keys,
    /// and whether it has secondary keys at all (blank ones count).
    entries: Vec<(Range<usize>, Range<usize>, bool)>,
}

impl EntryKeys {
    /// The keys of `entries`.
    pub(crate) fn new(entries: &[LoreEntry]) -> EntryKeys {
        let mut keys: Vec<&str> = Vec::new();
        let mut ranges = Vec::with_capacity(entries.len());
        for e in entries {
            let primary = keys.len()..keys.len() + e.keys.len();
            keys.extend(e.keys.iter().map(String::as_str));
            let secondary = keys.len()..keys.len() + e.secondary_keys.len();
            keys.extend(e.secondary_keys.iter().map(String::as_str));
            ranges.push((primary, secondary, !e.secondary_keys.is_empty()));
        }
        EntryKeys {
            set: KeySet::new(keys),
            entries: ranges,
        }
    }

    /// For each entry (in order), whether its keys match `text`: one of its
    /// keys occurs and, when it has secondary keys, one of those too.
    pub(crate) fn matching(&self, text: &str) -> Vec<bool> {
        let found = self.set.found(&text.to_lowercase());
        let any = |r: &Range<usize>| found[r.clone()].iter().any(|f| *f);
        self.entries
            .iter()
            .map(|(primary, secondary, has_secondary)| {
                any(primary) && (!has_secondary || any(secondary))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_by_the_word_rule() {
        let set = KeySet::new(["Mara", "  ", "mara", "north gate", "+1", "café"]);
        assert_eq!(
            set.found("i ask mara about the north gate and a +1 café"),
            [true, false, true, true, true, true]
        );
        assert_eq!(
            set.found("the marauders of tamara; northgate x+1 cafés"),
            [false, false, false, false, true, false]
        );
        assert!(KeySet::new([]).found("anything").is_empty());
    }

    /// 1,000 entries whose keys, 3,801 to 4,000 `a` long, occur at almost
    /// every place of a greeting of 8,000 `a`, yet never as a whole word.
    #[test]
    fn near_matching_keys_cost_work_linear_in_the_text() {
        let keys: Vec<String> = (0..1_000).map(|i| "a".repeat(4_000 - i % 200)).collect();
        let text = "a".repeat(8_000);
        let set = KeySet::new(keys.iter().map(String::as_str));
        let (found, looked) = set.scan(&text);
        assert!(found.iter().all(|f| !f));
        // Each of the 200 lengths occurs at most once per place.
        assert!(looked <= text.len() * 200, "{looked} occurrences looked at");
        // One key, however long, is looked at once per place at most.
        let (_, looked) = KeySet::new([keys[0].as_str()]).scan(&text);
        assert!(looked <= text.len(), "{looked}");
        // And a key found is looked at no more.
        let (found, looked) = KeySet::new(["a"]).scan("a a a a");
        assert_eq!((found[0], looked), (true, 1));
    }

    #[test]
    fn entries_need_a_key_and_a_secondary_key_when_they_have_some() {
        let mut crypt = LoreEntry::new("crypt", &["crypt"], "Bones.");
        crypt.secondary_keys = vec!["open".into(), "enter".into()];
        let mut blank = LoreEntry::new("blank", &["crypt"], "Never.");
        blank.secondary_keys = vec!["  ".into()];
        let plain = LoreEntry::new("plain", &["Crypt"], "Cold.");
        let keys = EntryKeys::new(&[crypt, blank, plain]);
        assert_eq!(keys.matching("the crypt is near"), [false, false, true]);
        assert_eq!(keys.matching("I ENTER the crypt"), [true, false, true]);
        assert!(EntryKeys::new(&[]).matching("crypt").is_empty());
    }
}
