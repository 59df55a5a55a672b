//! A name that must stay inside a folder: one plain file or folder name,
//! never a path. Every place where a name from outside becomes a file path
//! (models, downloads, exports, skill data, imports, the window's commands)
//! goes through [`child`].

use std::path::{Path, PathBuf};

/// The longest name accepted, in bytes (the common file-system limit).
pub const MAX_NAME_BYTES: usize = 255;

/// Why a name cannot become a file inside its folder. The name is shown with
/// Rust's escaping, so a hostile name cannot drive a terminal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the name is empty")]
    Empty,
    #[error("the name {name:?} is longer than {MAX_NAME_BYTES} bytes")]
    TooLong { name: String },
    #[error("the name {name:?} holds a path separator; give a plain name, not a path")]
    Separator { name: String },
    #[error("the name {name:?} starts with '.'; names may not be hidden, '.' or '..'")]
    Dot { name: String },
    #[error("the name {name:?} holds a control character")]
    Control { name: String },
}

impl NameError {
    /// A short stable code for programs.
    pub fn code(&self) -> &'static str {
        "name_outside_folder"
    }
}

/// The path of `name` directly inside `folder`, when `name` is one plain
/// name: not empty, at most [`MAX_NAME_BYTES`] bytes, no `/` or `\`, not
/// starting with `.` (so neither `.`, `..` nor a hidden file), no control
/// character. Nothing is read from the disk: the promise is about the name.
pub fn child(folder: &Path, name: &str) -> Result<PathBuf, NameError> {
    let owned = || name.to_string();
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(NameError::TooLong {
            name: name.chars().take(40).collect::<String>() + "…",
        });
    }
    if name.contains(['/', '\\']) {
        return Err(NameError::Separator { name: owned() });
    }
    if name.starts_with('.') {
        return Err(NameError::Dot { name: owned() });
    }
    if name.chars().any(char::is_control) {
        return Err(NameError::Control { name: owned() });
    }
    let path = folder.join(name);
    // A Windows drive or root prefix ("C:x") would replace the folder.
    debug_assert_eq!(path.parent(), Some(folder));
    if path.parent() != Some(folder) {
        return Err(NameError::Separator { name: owned() });
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_stay_inside_the_folder() {
        let folder = Path::new("/home/p/models");
        for name in ["smollm2", "My Story.md", "qwen2.5-7b:q4", "héros", "a..b"] {
            assert_eq!(child(folder, name).unwrap(), folder.join(name), "{name}");
        }
    }

    #[test]
    fn names_that_would_leave_the_folder_are_refused() {
        let folder = Path::new("/home/p/models");
        let cases: [(&str, NameError); 9] = [
            ("", NameError::Empty),
            ("..", NameError::Dot { name: "..".into() }),
            (".", NameError::Dot { name: ".".into() }),
            (
                ".downloads",
                NameError::Dot {
                    name: ".downloads".into(),
                },
            ),
            (
                "../notes",
                NameError::Separator {
                    name: "../notes".into(),
                },
            ),
            (
                "../../x",
                NameError::Separator {
                    name: "../../x".into(),
                },
            ),
            (
                "/abs/dir/x",
                NameError::Separator {
                    name: "/abs/dir/x".into(),
                },
            ),
            (
                "a\\..\\b",
                NameError::Separator {
                    name: "a\\..\\b".into(),
                },
            ),
            (
                "x\u{1b}]52;c;aGk=\u{7}",
                NameError::Control {
                    name: "x\u{1b}]52;c;aGk=\u{7}".into(),
                },
            ),
        ];
        for (name, want) in cases {
            assert_eq!(child(folder, name), Err(want), "{name:?}");
        }
        assert!(matches!(
            child(folder, &"a".repeat(256)),
            Err(NameError::TooLong { .. })
        ));
        assert!(child(folder, &"a".repeat(255)).is_ok());
    }

    #[test]
    fn the_message_escapes_what_it_quotes() {
        let e = child(Path::new("/m"), "bad\u{1b}[2Jname/x").unwrap_err();
        let shown = e.to_string();
        assert!(!shown.contains('\u{1b}'), "{shown}");
        assert!(shown.contains("path separator"), "{shown}");
    }
}
