//! Scenarios a player can start from: the built-in ones and those saved in
//! a folder (`<name>.json`), a saved one overriding a built-in one of the
//! same name.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::builtin;
use super::error::Origin;
use super::limits::MAX_FILE_BYTES;
use super::model::{check_name, Scenario};
use super::ScenarioError;

/// A scenario as a list shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioSummary {
    pub name: String,
    pub title: String,
    pub premise: String,
    pub builtin: bool,
    /// The file it was read from, for saved ones.
    pub path: Option<PathBuf>,
}

/// A saved scenario file that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unreadable {
    pub path: PathBuf,
    pub problem: String,
}

/// Every scenario: built-in ones first (unless a saved one has their
/// name), then the saved ones in `dir` by name; broken files are reported,
/// not fatal, and so is anything named `*.json` that is not a regular file
/// (a FIFO, a device, a folder), which is never read. A missing `dir`
/// holds none.
pub fn list(dir: &Path) -> (Vec<ScenarioSummary>, Vec<Unreadable>) {
    let mut saved = Vec::new();
    let mut broken = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    for path in files {
        match read_file(&path) {
            Ok(s) => saved.push(summary(&s, Some(path))),
            Err(e) => broken.push(Unreadable {
                path,
                problem: e.to_string(),
            }),
        }
    }
    let mut all: Vec<ScenarioSummary> = builtin::all()
        .into_iter()
        .filter(|b| !saved.iter().any(|s| s.name == b.name))
        .map(|b| summary(&b, None))
        .collect();
    all.extend(saved);
    (all, broken)
}

/// The scenario called `name`: saved in `dir`, else built in.
pub fn find(dir: &Path, name: &str) -> Result<Scenario, ScenarioError> {
    check_name(name).map_err(|_| ScenarioError::NotFound(name.to_string()))?;
    let path = file_of(dir, name);
    if path.is_file() {
        return read_file(&path);
    }
    builtin::find(name).ok_or_else(|| ScenarioError::NotFound(name.to_string()))
}

/// Refuses a name that is not a plain file name or that a scenario saved
/// in `dir` already has.
pub fn check_name_free(dir: &Path, name: &str) -> Result<(), ScenarioError> {
    check_name(name)?;
    let path = file_of(dir, name);
    if path.exists() {
        return Err(ScenarioError::Invalid(format!(
            "{} already exists; choose another name or edit that file",
            path.display()
        )));
    }
    Ok(())
}

/// Saves `scenario` as `dir/<its name>.json` (creating `dir`); returns the path.
pub fn save(dir: &Path, scenario: &Scenario) -> Result<PathBuf, ScenarioError> {
    check_name(&scenario.name)?;
    scenario.check()?;
    std::fs::create_dir_all(dir).map_err(|e| ScenarioError::io(dir, e))?;
    let path = file_of(dir, &scenario.name);
    let text = serde_json::to_string_pretty(scenario).expect("a scenario serialises");
    crate::fs::write_atomically(&path, format!("{text}\n").as_bytes(), false)
        .map_err(|e| ScenarioError::io(&path, e))?;
    Ok(path)
}

/// Reads one scenario file; its name is the file's name. Promises: only a
/// regular file (or a link to one) of at most [`MAX_FILE_BYTES`] is read;
/// anything else is refused without waiting on it (a FIFO is opened
/// without blocking and never read).
pub fn read_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = read_regular(path)?;
    let mut scenario = Scenario::from_json(&text).map_err(|e| match e {
        ScenarioError::Invalid(m) => ScenarioError::Invalid(format!("{}: {m}", path.display())),
        other => other,
    })?;
    if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
        scenario.name = stem.to_string();
    }
    Ok(scenario)
}

/// A regular file's text, at most [`MAX_FILE_BYTES`] ([`crate::fs::read_regular`]:
/// a FIFO put in its place after a look at its name cannot make the read wait).
fn read_regular(path: &Path) -> Result<String, ScenarioError> {
    let bytes = crate::fs::read_regular(path, MAX_FILE_BYTES as u64).map_err(|e| match e {
        crate::fs::ReadError::Io(e) => ScenarioError::io(path, e),
        crate::fs::ReadError::NotRegular { kind } => ScenarioError::Invalid(format!(
            "{}: not a regular file ({kind}); only regular files are read",
            path.display()
        )),
        crate::fs::ReadError::TooLarge { size, .. } => ScenarioError::too_large(
            Origin::Scenario,
            &path.display().to_string(),
            usize::try_from(size).unwrap_or(usize::MAX),
            MAX_FILE_BYTES,
            "bytes",
        ),
    })?;
    String::from_utf8(bytes).map_err(|_| {
        ScenarioError::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ),
        )
    })
}

fn file_of(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.json"))
}

fn summary(s: &Scenario, path: Option<PathBuf>) -> ScenarioSummary {
    ScenarioSummary {
        name: s.name.clone(),
        title: s.title.clone(),
        premise: s.premise.clone(),
        builtin: path.is_none(),
        path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_scenarios_join_and_override_the_built_in_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (all, broken) = list(&dir.path().join("missing"));
        assert!(broken.is_empty());
        assert!(all.iter().all(|s| s.builtin));
        let mut mine = builtin::find("ashford").unwrap();
        mine.title = "My Ashford".into();
        let path = save(dir.path(), &mine).unwrap();
        assert!(path.ends_with("ashford.json"));
        mine.name = "zz-mine".into();
        save(dir.path(), &mine).unwrap();
        std::fs::write(dir.path().join("broken.json"), "{").unwrap();
        let (all, broken) = list(dir.path());
        assert_eq!(broken.len(), 1);
        assert!(broken[0].problem.contains("broken.json"));
        let ashford: Vec<_> = all.iter().filter(|s| s.name == "ashford").collect();
        assert_eq!(ashford.len(), 1);
        assert_eq!(ashford[0].title, "My Ashford");
        assert!(!ashford[0].builtin);
        assert_eq!(find(dir.path(), "zz-mine").unwrap().title, "My Ashford");
        assert_eq!(
            find(dir.path(), "nowhere").unwrap_err(),
            ScenarioError::NotFound("nowhere".into())
        );
        assert!(matches!(
            find(dir.path(), "../etc"),
            Err(ScenarioError::NotFound(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_among_the_scenarios_is_passed_over_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("waiting.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo makes a FIFO");
        let mine = builtin::find("ashford").map(|mut s| {
            s.name = "mine".into();
            s
        });
        save(dir.path(), &mine.unwrap()).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let at = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(list(&at));
        });
        let (all, broken) = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("listing does not wait on a FIFO");
        assert!(all.iter().any(|s| s.name == "mine"));
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].path, fifo);
        assert!(
            broken[0].problem.contains("not a regular file"),
            "{}",
            broken[0].problem
        );
    }

    #[test]
    fn a_scenario_file_may_start_with_a_byte_order_mark() {
        let dir = tempfile::tempdir().unwrap();
        let text = serde_json::to_string(&builtin::find("ashford").unwrap()).unwrap();
        std::fs::write(dir.path().join("bom.json"), format!("\u{feff}{text}")).unwrap();
        assert_eq!(find(dir.path(), "bom").unwrap().name, "bom");
    }
}
