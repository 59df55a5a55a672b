//! The command names and argument names as the sources on each side spell
//! them: the shell's `#[tauri::command]` functions, `startup.rs`'s handler
//! list, `build.rs`'s declared commands, and the page's `call<…>("name",
//! { … })` in ui/src.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One argument a command reads from the page.
#[derive(Debug)]
pub struct Arg {
    /// The key Tauri reads it under (the parameter's name in camelCase).
    pub key: String,
    /// Whether the page may leave it out (`Option<…>`).
    pub optional: bool,
}

/// One call the page makes.
#[derive(Debug)]
pub struct PageCall {
    /// `file:line`, for the failure message.
    pub at: String,
    pub command: String,
    /// The keys of the arguments object (none when it sends none).
    pub keys: Vec<String>,
}

/// Parameters Tauri fills in itself rather than from the page's arguments.
const FROM_THE_SHELL: &[&str] = &["State<", "AppHandle", "Window", "Webview"];

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `dir` whose name ends with one of `endings`.
fn files(dir: &Path, endings: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if endings.iter().any(|e| path.to_string_lossy().ends_with(e)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `snake_case` as Tauri turns an argument's name into its key.
pub fn camel_case(name: &str) -> String {
    let mut out = String::new();
    for (i, part) in name.split('_').filter(|p| !p.is_empty()).enumerate() {
        if i == 0 {
            out.push_str(part);
        } else {
            let mut chars = part.chars();
            out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
            out.push_str(chars.as_str());
        }
    }
    out
}

/// The text from just after `open` (at `from`) to its matching `close`,
/// counting every kind of bracket.
fn bracketed(text: &str, from: usize) -> &str {
    let mut depth = 0usize;
    for (i, c) in text[from..].char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' if depth == 0 => return &text[from..from + i],
            ')' | ']' | '}' | '>' => depth -= 1,
            _ => {}
        }
    }
    panic!(
        "unclosed bracket in {:?}",
        &text[from..text.len().min(from + 80)]
    );
}

/// `text` split at the commas outside any bracket, each piece trimmed, empty ones left out.
fn top_level_items(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(text[start..].trim());
    items.into_iter().filter(|s| !s.is_empty()).collect()
}

/// The shell's commands by name, with the arguments each reads from the page.
pub fn defined_commands() -> BTreeMap<String, Vec<Arg>> {
    let mut out = BTreeMap::new();
    for file in files(&crate_dir().join("src"), &[".rs"]) {
        if file.components().any(|c| c.as_os_str() == "page_contract") {
            continue; // these checks name the attribute without being commands
        }
        let text = read(&file);
        for (at, _) in text.match_indices("#[tauri::command]") {
            let rest = &text[at..];
            let fn_at = rest
                .find("fn ")
                .expect("a function follows #[tauri::command]")
                + 3;
            let open = fn_at + rest[fn_at..].find('(').expect("its parameters");
            let name = rest[fn_at..open].trim().to_string();
            let args = top_level_items(bracketed(rest, open + 1))
                .into_iter()
                .filter_map(|param| {
                    let (name, ty) = param.split_once(':').expect("name: Type");
                    let ty = ty.trim();
                    if FROM_THE_SHELL.iter().any(|s| ty.starts_with(s)) {
                        return None;
                    }
                    Some(Arg {
                        key: camel_case(name.trim().trim_start_matches("mut ")),
                        optional: ty.starts_with("Option<"),
                    })
                })
                .collect();
            out.insert(name, args);
        }
    }
    out
}

/// The commands `startup.rs` hands to `generate_handler!`.
pub fn registered_commands() -> BTreeSet<String> {
    let text = read(&crate_dir().join("src/startup.rs"));
    let at =
        text.find("generate_handler![").expect("the handler list") + "generate_handler![".len();
    top_level_items(bracketed(&text, at))
        .into_iter()
        .map(|path| path.rsplit("::").next().unwrap_or(path).to_string())
        .collect()
}

/// The commands `build.rs` declares, which the window's capability lists.
pub fn declared_commands() -> BTreeSet<String> {
    let text = read(&crate_dir().join("build.rs"));
    let at = text.find("&[\n").expect("the COMMANDS list") + 2;
    top_level_items(bracketed(&text, at))
        .into_iter()
        .map(|name| name.trim_matches('"').to_string())
        .collect()
}

/// The app's own commands the window's capability allows
/// (`capabilities/default.json`: `allow-<command in kebab case>`).
pub fn allowed_commands() -> BTreeSet<String> {
    let text = read(&crate_dir().join("capabilities/default.json"));
    let capability: serde_json::Value =
        serde_json::from_str(&text).expect("the capability is JSON");
    capability["permissions"]
        .as_array()
        .expect("the capability's permissions")
        .iter()
        .filter_map(|p| p.as_str()?.strip_prefix("allow-"))
        .map(|name| name.replace('-', "_"))
        .collect()
}

/// Every `call<…>("command", { … })` in the page's sources.
pub fn page_calls() -> Vec<PageCall> {
    let ui = crate_dir().join("../ui/src");
    let mut out = Vec::new();
    for file in files(&ui, &[".ts", ".tsx"]) {
        let text = read(&file);
        for (at, _) in text.match_indices("call<") {
            let rest = &text[at..];
            let Some(name_at) = rest.find(">(\"").map(|i| i + 3) else {
                continue;
            };
            let name_end = name_at + rest[name_at..].find('"').expect("a closing quote");
            let after = rest[name_end + 1..].trim_start();
            let keys = match after.strip_prefix(',').map(str::trim_start) {
                Some(object) if object.starts_with('{') => {
                    let body = bracketed(object, 1);
                    top_level_items(body)
                        .into_iter()
                        .map(|entry| entry.split(':').next().unwrap_or(entry).trim().to_string())
                        .collect()
                }
                _ => Vec::new(),
            };
            out.push(PageCall {
                at: format!(
                    "{}:{}",
                    file.strip_prefix(&ui).unwrap_or(&file).display(),
                    text[..at].lines().count()
                ),
                command: rest[name_at..name_end].to_string(),
                keys,
            });
        }
    }
    out
}
