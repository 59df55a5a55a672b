//! Finds the narrative inside a JSON object while it is still being written,
//! so the player sees the text as the model produces it.

/// An incremental scanner over the compact plan's JSON text. Feed it the
/// generated text piece by piece; it returns the decoded characters of the
/// top-level `"narrative"` string value that each piece completes.
#[derive(Debug, Default)]
pub struct NarrativeScanner {
    depth: u32,
    in_string: bool,
    escape: bool,
    unicode: Option<String>,
    expect_key: bool,
    is_key: bool,
    key: String,
    last_key: String,
    capturing: bool,
    done: bool,
}

impl NarrativeScanner {
    /// A scanner at the start of a document.
    pub fn new() -> Self {
        Self::default()
    }

    /// True once the top-level object has closed.
    pub fn is_complete(&self) -> bool {
        self.done
    }

    /// Consumes `piece` and returns the narrative text it adds (possibly empty).
    pub fn push(&mut self, piece: &str) -> String {
        let mut out = String::new();
        for c in piece.chars() {
            if self.done {
                break;
            }
            if self.in_string {
                self.string_char(c, &mut out);
                continue;
            }
            match c {
                '{' => {
                    self.depth += 1;
                    self.expect_key = true;
                }
                '[' => {
                    self.depth += 1;
                    self.expect_key = false;
                }
                '}' | ']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.done = true;
                    }
                }
                // Only top-level keys matter: nested objects never hold the narrative.
                ',' => self.expect_key = self.depth == 1,
                ':' => self.expect_key = false,
                '"' => {
                    self.in_string = true;
                    self.is_key = self.expect_key;
                    self.key.clear();
                    self.capturing =
                        !self.is_key && self.depth == 1 && self.last_key == "narrative";
                }
                _ => {}
            }
        }
        out
    }

    fn string_char(&mut self, c: char, out: &mut String) {
        if let Some(hex) = self.unicode.as_mut() {
            hex.push(c);
            if hex.len() == 4 {
                let decoded = u32::from_str_radix(hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or('\u{FFFD}');
                self.unicode = None;
                self.emit(decoded, out);
            }
            return;
        }
        if self.escape {
            self.escape = false;
            let decoded = match c {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'u' => {
                    self.unicode = Some(String::new());
                    return;
                }
                other => other,
            };
            self.emit(decoded, out);
            return;
        }
        match c {
            '\\' => self.escape = true,
            '"' => {
                self.in_string = false;
                if self.is_key {
                    self.last_key = std::mem::take(&mut self.key);
                } else if self.depth == 1 {
                    self.last_key.clear();
                }
                self.capturing = false;
            }
            other => self.emit(other, out),
        }
    }

    fn emit(&mut self, c: char, out: &mut String) {
        if self.is_key {
            self.key.push(c);
        } else if self.capturing {
            out.push(c);
        }
    }
}

/// Tells when one JSON value, written piece by piece, is complete: a string
/// once its closing quote is written, an object or array once it closes.
/// Assumes well-formed JSON (the grammar guarantees it).
#[derive(Debug, Default)]
pub struct ValueEnd {
    depth: u32,
    in_string: bool,
    escape: bool,
    started: bool,
    done: bool,
}

impl ValueEnd {
    /// A tracker before the value's first character.
    pub fn new() -> Self {
        Self::default()
    }

    /// True once the value is complete.
    pub fn is_complete(&self) -> bool {
        self.done
    }

    /// Consumes `piece`.
    pub fn push(&mut self, piece: &str) {
        for c in piece.chars() {
            if self.done {
                return;
            }
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if c == '\\' {
                    self.escape = true;
                } else if c == '"' {
                    self.in_string = false;
                    self.done = self.depth == 0;
                }
                continue;
            }
            match c {
                '"' => {
                    self.in_string = true;
                    self.started = true;
                }
                '{' | '[' => {
                    self.depth += 1;
                    self.started = true;
                }
                '}' | ']' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.done = self.depth == 0;
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(pieces: &[&str]) -> (Vec<String>, bool) {
        let mut s = NarrativeScanner::new();
        let out = pieces.iter().map(|p| s.push(p)).collect();
        (out, s.is_complete())
    }

    #[test]
    fn streams_the_narrative_piece_by_piece() {
        let (out, done) = scan(&[
            "{\"narr",
            "ative\":\"You ",
            "climb\\n the ",
            "wall.\",\"tools\":[]}",
        ]);
        assert_eq!(out, vec!["", "You ", "climb\n the ", "wall."]);
        assert!(done);
    }

    #[test]
    fn ignores_narrative_keys_inside_tools() {
        let text =
            r#"{"tools":[{"id":"a","input":{"narrative":"no"}}],"narrative":"yes \u00e9\"q\""}"#;
        let (out, done) = scan(&[text]);
        assert_eq!(out.concat(), "yes é\"q\"");
        assert!(done);
    }

    #[test]
    fn tolerates_whitespace_and_incomplete_input() {
        let (out, done) = scan(&["{ \"narrative\" : \"Dark", "ness"]);
        assert_eq!(out.concat(), "Darkness");
        assert!(!done);
    }

    #[test]
    fn value_end_sees_strings_and_objects_close() {
        let mut v = ValueEnd::new();
        v.push("\"a \\\" {b");
        assert!(!v.is_complete());
        v.push("c\"");
        assert!(v.is_complete());
        let mut o = ValueEnd::new();
        o.push("{\"use\":\"x}\",\"input\":{\"a\":[1,{}]");
        assert!(!o.is_complete());
        o.push("}");
        assert!(!o.is_complete());
        o.push("}");
        assert!(o.is_complete());
    }
}
