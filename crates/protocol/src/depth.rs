//! How deeply a JSON text nests arrays and objects, measured without parsing
//! it: a line nested deeper than a program can read back (serde_json stops at
//! 128 levels, and the engine wraps every event in a few more levels when it
//! stores a turn) is refused before anything recurses into it.

/// Deepest nesting of arrays and objects accepted in one stdout line.
pub const MAX_NESTING_DEPTH: usize = 32;

/// The deepest nesting of arrays and objects in `text` (`{}` is 1, `[{}]`
/// is 2); brackets inside strings do not count. The text need not be valid
/// JSON: an invalid text yields some depth, and parsing it says why it is
/// invalid.
pub fn nesting_depth(text: &[u8]) -> usize {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_arrays_and_objects() {
        assert_eq!(nesting_depth(b"1"), 0);
        assert_eq!(nesting_depth(b"{}"), 1);
        assert_eq!(nesting_depth(br#"{"a":[{"b":[]}],"c":{}}"#), 4);
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        assert_eq!(nesting_depth(br#"{"a":"[[[{{{"}"#), 1);
        assert_eq!(nesting_depth(br#"{"a":"\"[[[","b":[]}"#), 2);
        assert_eq!(nesting_depth(br#"{"a":"\\","b":[[]]}"#), 3);
    }

    #[test]
    fn unbalanced_text_still_gives_a_depth() {
        assert_eq!(nesting_depth(b"]]]{"), 1);
        assert_eq!(nesting_depth(&[b'['; 1000]), 1000);
    }
}
