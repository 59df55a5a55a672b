//! TypeScript declarations of the types the UI reads, generated from the Rust
//! types with ts-rs and checked in under `ui/src/bindings/`. Each crate that
//! owns such types has a test that regenerates them into a scratch folder and
//! fails when the checked-in files differ; with `NARRATORIA_UPDATE_BINDINGS=1`
//! the test writes them instead.

use std::path::{Path, PathBuf};

/// Set to `1` to make the bindings tests rewrite the checked-in files.
pub const UPDATE_VAR: &str = "NARRATORIA_UPDATE_BINDINGS";

/// The checked-in declarations differ from what the Rust types generate.
#[derive(Debug, thiserror::Error)]
pub enum BindingsError {
    #[error(
        "the TypeScript bindings in {dir} are out of date ({files}); \
         regenerate them with `{command}` and commit the result",
        files = .files.join(", "),
        dir = .dir.display()
    )]
    Stale {
        dir: PathBuf,
        files: Vec<String>,
        command: String,
    },
    #[error("bindings: {0}")]
    Io(#[from] std::io::Error),
}

/// The settings every generated file is written with: into `out_dir`, and
/// 64-bit integers as `number`, which is what JSON gives the UI.
pub fn config(out_dir: &Path) -> ts_rs::Config {
    ts_rs::Config::new()
        .with_out_dir(out_dir)
        .with_large_int("number")
}

/// The checked-in folder, `ui/src/bindings/` of this repository.
pub fn checked_in_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/bindings")
}

/// Succeeds when every file under `generated` has an identical twin under
/// `checked_in`. When [`UPDATE_VAR`] is `1`, copies the files that differ
/// over their twins instead and succeeds. `command` is how a developer
/// regenerates the files, quoted in the error.
pub fn compare_or_update(
    generated: &Path,
    checked_in: &Path,
    command: &str,
) -> Result<(), BindingsError> {
    let update = std::env::var(UPDATE_VAR).as_deref() == Ok("1");
    compare_or_copy(generated, checked_in, update, command)
}

/// [`compare_or_update`] with the choice made: `update` copies, otherwise compares.
fn compare_or_copy(
    generated: &Path,
    checked_in: &Path,
    update: bool,
    command: &str,
) -> Result<(), BindingsError> {
    let mut stale = Vec::new();
    for relative in files_under(generated)? {
        let fresh = std::fs::read(generated.join(&relative))?;
        let target = checked_in.join(&relative);
        if std::fs::read(&target).ok().as_deref() == Some(fresh.as_slice()) {
            continue;
        }
        if update {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&target, &fresh)?;
        } else {
            stale.push(relative.display().to_string());
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(BindingsError::Stale {
            dir: checked_in.to_path_buf(),
            files: stale,
            command: command.to_string(),
        })
    }
}

/// Every file below `root`, as paths relative to it, sorted.
fn files_under(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(root.join(&folder))? {
            let entry = entry?;
            let relative = folder.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                folders.push(relative);
            } else {
                found.push(relative);
            }
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders() -> (tempfile::TempDir, tempfile::TempDir) {
        let generated = tempfile::tempdir().unwrap();
        let checked_in = tempfile::tempdir().unwrap();
        std::fs::create_dir(generated.path().join("nested")).unwrap();
        std::fs::write(generated.path().join("A.ts"), "export type A = string;\n").unwrap();
        std::fs::write(
            generated.path().join("nested/B.ts"),
            "export type B = number;\n",
        )
        .unwrap();
        (generated, checked_in)
    }

    #[test]
    fn missing_or_different_files_are_named_with_the_command() {
        let (generated, checked_in) = folders();
        std::fs::write(checked_in.path().join("A.ts"), "export type A = number;\n").unwrap();
        let err = compare_or_copy(generated.path(), checked_in.path(), false, "regen now")
            .unwrap_err()
            .to_string();
        assert!(err.contains("A.ts"), "{err}");
        assert!(err.contains("nested/B.ts"), "{err}");
        assert!(err.contains("`regen now`"), "{err}");
        assert!(
            !checked_in.path().join("nested").exists(),
            "comparing writes nothing"
        );
    }

    #[test]
    fn updating_copies_the_files_and_then_they_match() {
        let (generated, checked_in) = folders();
        compare_or_copy(generated.path(), checked_in.path(), true, "-").unwrap();
        compare_or_copy(generated.path(), checked_in.path(), false, "-").unwrap();
        assert_eq!(
            std::fs::read_to_string(checked_in.path().join("nested/B.ts")).unwrap(),
            "export type B = number;\n"
        );
    }
}
