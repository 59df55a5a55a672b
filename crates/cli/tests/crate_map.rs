//! The crate map in docs/architecture.md is true: every workspace crate has
//! its row, depends on exactly the workspace crates its row allows (normal
//! and build dependencies; tests may use more), and depends on each
//! library its row names. Read from the manifests through `cargo metadata`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// One row of the map.
#[derive(Debug)]
struct Row {
    may_depend_on: BTreeSet<String>,
    libraries: BTreeSet<String>,
}

/// The names quoted in backticks in `cell`.
fn quoted(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The map's rows by crate folder (`crates/core`, `src-tauri`).
fn map_rows(doc: &str) -> BTreeMap<String, Row> {
    let mut rows = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").collect();
        if cells.len() != 4 {
            continue;
        }
        let folder = cells[0].trim().trim_matches('`');
        if !(folder.starts_with("crates/") || folder == "src-tauri") {
            continue;
        }
        let row = Row {
            may_depend_on: quoted(cells[2]),
            libraries: quoted(cells[3]),
        };
        assert!(
            rows.insert(folder.to_string(), row).is_none(),
            "{folder} has two rows in the crate map"
        );
    }
    rows
}

/// A package of the workspace: its folder, its name and its dependencies.
struct Package {
    folder: String,
    name: String,
    /// Workspace crates it depends on outside its tests (short names:
    /// `core` for `narratoria-core`).
    workspace_deps: BTreeSet<String>,
    /// Every dependency's name, of any kind.
    all_deps: BTreeSet<String>,
}

fn packages(root: &Path) -> Vec<Package> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| members.contains(p["id"].as_str().unwrap()))
        .map(|p| {
            let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
            let folder = manifest
                .parent()
                .unwrap()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let deps = p["dependencies"].as_array().unwrap();
            let workspace_deps = deps
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .filter_map(|d| d["name"].as_str()?.strip_prefix("narratoria-"))
                .map(str::to_string)
                .collect();
            let all_deps = deps
                .iter()
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            Package {
                folder,
                name: p["name"].as_str().unwrap().to_string(),
                workspace_deps,
                all_deps,
            }
        })
        .collect()
}

#[test]
fn the_crate_map_is_the_workspace() {
    let root = workspace_root();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let rows = map_rows(&doc);
    let packages = packages(&root);
    assert!(
        packages.len() >= 10,
        "the workspace read has too few crates"
    );
    let mut wrong = Vec::new();
    for p in &packages {
        let Some(row) = rows.get(&p.folder) else {
            wrong.push(format!(
                "{} ({}) has no row in the crate map",
                p.folder, p.name
            ));
            continue;
        };
        for dep in p.workspace_deps.difference(&row.may_depend_on) {
            wrong.push(format!(
                "{} depends on {dep}, which its row does not allow",
                p.folder
            ));
        }
        for dep in row.may_depend_on.difference(&p.workspace_deps) {
            wrong.push(format!(
                "{}'s row allows {dep}, which it does not depend on",
                p.folder
            ));
        }
        for lib in row.libraries.iter().filter(|l| !p.all_deps.contains(*l)) {
            wrong.push(format!(
                "{}'s row names {lib}, which is not one of its dependencies",
                p.folder
            ));
        }
    }
    let folders: BTreeSet<&str> = packages.iter().map(|p| p.folder.as_str()).collect();
    for folder in rows.keys().filter(|f| !folders.contains(f.as_str())) {
        wrong.push(format!(
            "the crate map has a row for {folder}, which is not in the workspace"
        ));
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_row_lists_its_crates_and_libraries_in_backticks() {
    let rows = map_rows(
        "| `crates/a` | owns a | `b`, `c` (optional) | `serde` |\n| `crates/b` | owns b | — | — |\n| crate | owns | may | libs |",
    );
    assert_eq!(rows.len(), 2, "the header is not a row");
    assert_eq!(
        rows["crates/a"].may_depend_on,
        ["b", "c"].map(String::from).into()
    );
    assert!(rows["crates/b"].may_depend_on.is_empty());
    assert_eq!(
        rows["crates/a"].libraries,
        ["serde"].map(String::from).into()
    );
}
