//! The live skill registry: a catalog that follows the skill folders on disk.
//! File changes arrive debounced (notify's debouncer); each batch rescans the
//! roots, keeps the last good version of a skill whose edit broke it, and
//! tells every subscriber what changed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult};
use serde::Serialize;
use tokio::sync::broadcast;

use crate::sync;

use super::health::SkillsState;
use super::{discover, Catalog, Problem, RootError};

/// What happened to a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    Added,
    Updated,
    Removed,
    /// A folder that is not a usable skill (for a known skill: its last good
    /// version keeps running).
    Broken,
}

/// One change to the registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillChange {
    pub kind: ChangeKind,
    /// The skill's name, when known.
    pub name: Option<String>,
    /// The skill folder.
    pub path: PathBuf,
    /// Why the folder is broken.
    pub problem: Option<String>,
    /// Whether the last good version is still in use (broken edits).
    pub kept_last_good: bool,
}

/// A catalog kept in step with the skill folders, shared by the UI, the
/// narrator and the executor.
pub struct Registry {
    roots: Vec<PathBuf>,
    current: RwLock<Arc<Catalog>>,
    state: Mutex<SkillsState>,
    changes: broadcast::Sender<SkillChange>,
}

/// Keeps a watch running; dropping it stops watching.
pub struct Watch {
    // A mutex makes the handle shareable across threads; it is never locked.
    _debouncer: Mutex<Box<dyn std::any::Any + Send>>,
}

/// Why watching could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {path}: {message}")]
pub struct WatchError {
    pub path: PathBuf,
    pub message: String,
}

impl Registry {
    /// Discovers the roots' skills and applies the user's skill choices.
    pub fn open(roots: &[PathBuf], state: SkillsState) -> Result<Arc<Registry>, RootError> {
        let mut catalog = discover(roots)?;
        state.apply(&mut catalog);
        let (changes, _) = broadcast::channel(256);
        Ok(Arc::new(Registry {
            roots: roots.to_vec(),
            current: RwLock::new(Arc::new(catalog)),
            state: Mutex::new(state),
            changes,
        }))
    }

    /// The current catalog (cheap; a consistent snapshot).
    pub fn snapshot(&self) -> Arc<Catalog> {
        Arc::clone(&sync::read(&self.current))
    }

    /// Every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<SkillChange> {
        self.changes.subscribe()
    }

    /// Runs `f` on the user's skill state, then re-applies it to the catalog.
    pub fn update_state<R>(&self, f: impl FnOnce(&mut SkillsState) -> R) -> R {
        let mut state = sync::lock(&self.state);
        let r = f(&mut state);
        let mut catalog = (*self.snapshot()).clone();
        state.apply(&mut catalog);
        *sync::write(&self.current) = Arc::new(catalog);
        r
    }

    /// A copy of the user's skill state.
    pub fn state(&self) -> SkillsState {
        sync::lock(&self.state).clone()
    }

    /// Rescans the roots after files under `touched` changed; returns (and
    /// broadcasts) what changed. A skill whose folder is now broken keeps its
    /// last good version.
    pub fn reload(&self, touched: &[PathBuf]) -> Vec<SkillChange> {
        let old = self.snapshot();
        let mut fresh = match discover(&self.roots) {
            Ok(c) => c,
            Err(e) => {
                // A root vanished: keep everything as it was and say so.
                let change = SkillChange {
                    kind: ChangeKind::Broken,
                    name: None,
                    path: e.path.clone(),
                    problem: Some(e.to_string()),
                    kept_last_good: true,
                };
                let _ = self.changes.send(change.clone());
                return vec![change];
            }
        };
        let touched_dirs: Vec<PathBuf> = touched
            .iter()
            .filter_map(|p| self.skill_folder_of(p))
            .collect();
        let was_touched = |dir: &Path| touched_dirs.iter().any(|t| t == dir);
        let mut changes = Vec::new();

        for skill in old.skills() {
            match fresh.get(&skill.name) {
                Some(now) => {
                    if now != skill || was_touched(&now.dir) {
                        changes.push(change(
                            ChangeKind::Updated,
                            Some(&now.name),
                            &now.dir,
                            None,
                            false,
                        ));
                    }
                }
                None => {
                    let problem = problem_under(&fresh.problems, &skill.dir);
                    if skill.dir.is_dir() && problem.is_some() {
                        if was_touched(&skill.dir) {
                            changes.push(change(
                                ChangeKind::Broken,
                                Some(&skill.name),
                                &skill.dir,
                                problem,
                                true,
                            ));
                        }
                        fresh.skills.push(skill.clone());
                    } else {
                        changes.push(change(
                            ChangeKind::Removed,
                            Some(&skill.name),
                            &skill.dir,
                            None,
                            false,
                        ));
                    }
                }
            }
        }
        for skill in fresh.skills() {
            if old.get(&skill.name).is_none() {
                changes.push(change(
                    ChangeKind::Added,
                    Some(&skill.name),
                    &skill.dir,
                    None,
                    false,
                ));
            }
        }
        for dir in &touched_dirs {
            let known = old.skills().iter().any(|s| &s.dir == dir);
            if !known {
                if let Some(p) = problem_under(&fresh.problems, dir) {
                    changes.push(change(ChangeKind::Broken, None, dir, Some(p), false));
                }
            }
        }
        fresh.skills.sort_by(|a, b| a.name.cmp(&b.name));
        fresh.reindex();
        sync::lock(&self.state).apply(&mut fresh);
        *sync::write(&self.current) = Arc::new(fresh);
        for c in &changes {
            let _ = self.changes.send(c.clone());
        }
        changes
    }

    /// The skill folder (a root's direct child) holding `path`.
    fn skill_folder_of(&self, path: &Path) -> Option<PathBuf> {
        let canon_roots = self.snapshot().roots().to_vec();
        for root in canon_roots.iter().chain(self.roots.iter()) {
            if let Ok(rest) = path.strip_prefix(root) {
                let first = rest.components().next()?;
                return Some(
                    std::fs::canonicalize(root)
                        .unwrap_or_else(|_| root.clone())
                        .join(first.as_os_str()),
                );
            }
        }
        None
    }

    /// Starts watching every root; changes are applied after `debounce` of quiet.
    pub fn watch(self: &Arc<Self>, debounce: Duration) -> Result<Watch, WatchError> {
        let me = Arc::downgrade(self);
        let mut debouncer = new_debouncer(debounce, None, move |res: DebounceEventResult| {
            let Some(registry) = me.upgrade() else { return };
            match res {
                Ok(events) => {
                    // Reads are not changes: the rescan itself opens every
                    // skill's files, and counting those would rescan forever.
                    let paths: Vec<PathBuf> = events
                        .iter()
                        .filter(|e| !matches!(e.kind, EventKind::Access(_)))
                        .flat_map(|e| e.paths.iter().cloned())
                        .collect();
                    if !paths.is_empty() {
                        registry.reload(&paths);
                    }
                }
                Err(errors) => {
                    for e in errors {
                        let _ = registry.changes.send(SkillChange {
                            kind: ChangeKind::Broken,
                            name: None,
                            path: e.paths.first().cloned().unwrap_or_default(),
                            problem: Some(format!("watching failed: {e}")),
                            kept_last_good: true,
                        });
                    }
                }
            }
        })
        .map_err(|e| WatchError {
            path: PathBuf::new(),
            message: e.to_string(),
        })?;
        for root in self.snapshot().roots() {
            debouncer
                .watch(root, RecursiveMode::Recursive)
                .map_err(|e| WatchError {
                    path: root.clone(),
                    message: e.to_string(),
                })?;
        }
        Ok(Watch {
            _debouncer: Mutex::new(Box::new(debouncer)),
        })
    }
}

fn change(
    kind: ChangeKind,
    name: Option<&str>,
    path: &Path,
    problem: Option<String>,
    kept: bool,
) -> SkillChange {
    SkillChange {
        kind,
        name: name.map(str::to_string),
        path: path.to_path_buf(),
        problem,
        kept_last_good: kept,
    }
}

fn problem_under(problems: &[Problem], dir: &Path) -> Option<String> {
    let found: Vec<String> = problems
        .iter()
        .filter(|p| p.path.starts_with(dir))
        .map(|p| format!("{}: {}", p.path.display(), p.reason))
        .collect();
    if found.is_empty() {
        None
    } else {
        Some(found.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn write_skill(root: &Path, name: &str, description: &str) {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("skill.json"),
            format!(r#"{{"name":"{name}","version":"1.0.0","description":"{description}"}}"#),
        )
        .unwrap();
    }

    fn wait_for(
        rx: &mut broadcast::Receiver<SkillChange>,
        what: impl Fn(&SkillChange) -> bool,
    ) -> SkillChange {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match rx.try_recv() {
                Ok(c) if what(&c) => return c,
                Ok(_) => {}
                Err(broadcast::error::TryRecvError::Empty) => {
                    assert!(Instant::now() < deadline, "no matching change within 10 s");
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("{e}"),
            }
        }
    }

    #[test]
    fn reload_reports_added_updated_removed_and_keeps_last_good() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        write_skill(&root, "alpha", "first");
        let reg = Registry::open(std::slice::from_ref(&root), SkillsState::default()).unwrap();

        write_skill(&root, "beta", "second");
        let ch = reg.reload(&[root.join("beta/skill.json")]);
        assert!(
            ch.iter()
                .any(|c| c.kind == ChangeKind::Added && c.name.as_deref() == Some("beta")),
            "{ch:?}"
        );

        write_skill(&root, "alpha", "first, edited");
        let ch = reg.reload(&[root.join("alpha/skill.json")]);
        assert!(
            ch.iter()
                .any(|c| c.kind == ChangeKind::Updated && c.name.as_deref() == Some("alpha")),
            "{ch:?}"
        );
        assert_eq!(
            reg.snapshot().get("alpha").unwrap().description,
            "first, edited"
        );

        std::fs::write(root.join("alpha/skill.json"), "{ broken").unwrap();
        let ch = reg.reload(&[root.join("alpha/skill.json")]);
        let broken = ch
            .iter()
            .find(|c| c.kind == ChangeKind::Broken)
            .expect("broken reported");
        assert!(
            broken.kept_last_good
                && broken
                    .problem
                    .as_deref()
                    .unwrap_or("")
                    .contains("skill.json")
        );
        assert_eq!(
            reg.snapshot().get("alpha").unwrap().description,
            "first, edited",
            "last good version kept"
        );

        std::fs::remove_dir_all(root.join("beta")).unwrap();
        let ch = reg.reload(&[root.join("beta")]);
        assert!(
            ch.iter()
                .any(|c| c.kind == ChangeKind::Removed && c.name.as_deref() == Some("beta")),
            "{ch:?}"
        );
        assert!(reg.snapshot().get("beta").is_none());
    }

    #[test]
    fn watcher_follows_real_file_edits() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        write_skill(&root, "alpha", "first");
        let reg = Registry::open(std::slice::from_ref(&root), SkillsState::default()).unwrap();
        let mut rx = reg.subscribe();
        let _watch = reg.watch(Duration::from_millis(50)).unwrap();

        std::fs::write(root.join("alpha/prompt.md"), "Use alpha for everything.").unwrap();
        wait_for(&mut rx, |c| {
            c.kind == ChangeKind::Updated && c.name.as_deref() == Some("alpha")
        });
        assert_eq!(
            reg.snapshot().get("alpha").unwrap().prompt.as_deref(),
            Some("Use alpha for everything.")
        );

        write_skill(&root, "gamma", "third");
        wait_for(&mut rx, |c| {
            c.kind == ChangeKind::Added && c.name.as_deref() == Some("gamma")
        });

        std::fs::create_dir_all(root.join("junk")).unwrap();
        std::fs::write(root.join("junk/notes.txt"), "not a skill").unwrap();
        let c = wait_for(&mut rx, |c| c.kind == ChangeKind::Broken);
        assert!(c.problem.unwrap().contains("not a skill folder"));
    }

    #[test]
    fn one_edit_is_one_change_and_then_quiet() {
        // The rescan after an edit reads every skill's files; those reads
        // must not count as edits (they once made the watcher rescan forever).
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for name in ["alpha", "beta", "gamma"] {
            write_skill(&root, name, "first");
        }
        let reg = Registry::open(std::slice::from_ref(&root), SkillsState::default()).unwrap();
        let mut rx = reg.subscribe();
        let _watch = reg.watch(Duration::from_millis(50)).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        std::fs::write(root.join("beta/prompt.md"), "Use beta.").unwrap();
        wait_for(&mut rx, |c| {
            c.kind == ChangeKind::Updated && c.name.as_deref() == Some("beta")
        });
        std::thread::sleep(Duration::from_millis(800));
        let mut after = Vec::new();
        while let Ok(c) = rx.try_recv() {
            after.push(c);
        }
        assert!(
            after.iter().all(|c| c.name.as_deref() == Some("beta")),
            "untouched skills reported: {after:?}"
        );
        assert!(after.len() <= 1, "the watcher kept rescanning: {after:?}");
    }

    #[test]
    fn user_choices_survive_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        write_skill(&root, "alpha", "first");
        let reg = Registry::open(std::slice::from_ref(&root), SkillsState::default()).unwrap();
        reg.update_state(|s| s.set_enabled("alpha", false));
        assert!(!reg.snapshot().get("alpha").unwrap().enabled);
        write_skill(&root, "alpha", "edited");
        reg.reload(&[root.join("alpha/skill.json")]);
        assert!(!reg.snapshot().get("alpha").unwrap().enabled);
    }
}
