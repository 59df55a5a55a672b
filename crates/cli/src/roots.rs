//! Where the built-in skills live when no `--skills` is given.

use std::path::{Path, PathBuf};

/// The built-in skills folder: `$NARRATORIA_SKILLS_DIR`, else a `skills/`
/// folder beside or above the executable (a bundle), else the source
/// checkout it was built from, else the installed
/// `/usr/share/narratoria/skills`, else `./skills`.
pub fn builtin_skills_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("NARRATORIA_SKILLS_DIR") {
        return PathBuf::from(dir);
    }
    if let Ok(exe) = std::env::current_exe().and_then(|p| p.canonicalize()) {
        for dir in exe.ancestors().skip(1).take(5) {
            for candidate in [
                dir.join("skills"),
                dir.join("lib/narratoria/skills"),
                dir.join("share/narratoria/skills"),
            ] {
                if candidate.join("dice-roller").is_dir() {
                    return candidate;
                }
            }
        }
    }
    // A build from a source checkout whose target folder lives elsewhere.
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    if source.join("dice-roller").is_dir() {
        return source.canonicalize().unwrap_or(source);
    }
    for candidate in ["/usr/share/narratoria/skills", "/usr/lib/narratoria/skills"] {
        if Path::new(candidate).is_dir() {
            return PathBuf::from(candidate);
        }
    }
    PathBuf::from("skills")
}

/// The roots to use: the given ones, or the built-in folder.
pub fn skill_roots(given: &[PathBuf]) -> Vec<PathBuf> {
    if given.is_empty() {
        vec![builtin_skills_dir()]
    } else {
        given.to_vec()
    }
}
