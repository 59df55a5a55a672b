//! The model view's library: the player's models and the catalog's,
//! downloading one with its progress, adding a GGUF file or one from a
//! Hugging Face link, choosing the one that narrates, removing one. Thin
//! over `narratoria_app::models`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use narratoria_app::chosen_paths::ChosenPaths;
use narratoria_app::desktop::DesktopPaths;
use narratoria_app::models::{Models, ModelsView, Removed};
use narratoria_app::roles::RoleChoice;
use narratoria_app::AppError;
use narratoria_core::error::ErrorCode;
use narratoria_core::sync::lock;
use narratoria_models::hub::{self, Link};
use narratoria_models::hub_files::HubFile;
use narratoria_models::{InstalledModel, ModelsError, Progress};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, State};

use super::commands::load_in_background;
use crate::startup::AppState;

/// The downloads running now, by catalog name or by the Hugging Face file
/// they fetch (one download of each at a time).
#[derive(Default)]
pub struct Downloads(std::sync::Mutex<Vec<String>>);

impl Downloads {
    /// Holds `key` until the returned claim is dropped; refused
    /// (`download_failed`) while another download holds it. `what` names
    /// the download in the refusal.
    fn claim(&self, key: String, what: &str) -> Result<Claim<'_>, AppError> {
        let mut active = lock(&self.0);
        if active.contains(&key) {
            return Err(AppError::new(
                ErrorCode::DownloadFailed,
                format!("{what} is being downloaded already"),
            ));
        }
        active.push(key.clone());
        Ok(Claim {
            downloads: self,
            key,
        })
    }
}

/// One running download's hold on its key, given back when dropped (also
/// when the download fails or panics).
struct Claim<'a> {
    downloads: &'a Downloads,
    key: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        lock(&self.downloads.0).retain(|k| k != &self.key);
    }
}

/// How far a download is, sent a few times a second.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    pub done: u64,
    pub total: Option<u64>,
}

/// The models on disk, each with its parameters, writer's profile and the
/// roles it has now (plans, writes), and the catalog's others.
#[tauri::command]
pub fn models_list(app: State<'_, AppState>, models: State<'_, Models>) -> ModelsView {
    models.list(&models.loaded(&app.model_info()))
}

/// Downloads the catalog model `name` into the player's models folder,
/// resumed where an earlier attempt stopped and checked against its
/// checksum; progress goes to `on_progress`. Returns where it is installed.
#[tauri::command]
pub async fn models_download(
    models: State<'_, Models>,
    downloads: State<'_, Downloads>,
    name: String,
    on_progress: Channel<DownloadProgress>,
) -> Result<PathBuf, AppError> {
    let _claim = downloads.claim(name.clone(), &name)?;
    let models = models.inner().clone();
    let fetched = name.clone();
    let outcome = tauri::async_runtime::spawn_blocking(move || {
        let mut report = throttled(|p| {
            let _ = on_progress.send(p);
        });
        models.download(&fetched, &mut report)
    })
    .await;
    match outcome {
        Ok(done) => done.map_err(AppError::from),
        Err(e) => Err(AppError::new(
            ErrorCode::DownloadFailed,
            format!("the download of {name} stopped: {e}"),
        )),
    }
}

/// Hands a download's progress to `send` a few times a second (every
/// 100 ms at most), and always its last step, when all has arrived.
fn throttled(mut send: impl FnMut(DownloadProgress)) -> impl FnMut(Progress) {
    let mut last_sent: Option<Instant> = None;
    move |p: Progress| {
        let finished = p.total.is_some_and(|t| p.done >= t);
        if finished || last_sent.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) {
            last_sent = Some(Instant::now());
            send(DownloadProgress {
                done: p.done,
                total: p.total,
            });
        }
    }
}

/// The whole-model GGUF files a Hugging Face link offers (a repository's,
/// smallest first, or the one a file link names), with their sizes; a link
/// that is not one is `model_link_invalid`.
#[tauri::command]
pub async fn models_hub_files(
    models: State<'_, Models>,
    link: String,
) -> Result<Vec<HubFile>, AppError> {
    let models = models.inner().clone();
    let shown = link.clone();
    tauri::async_runtime::spawn_blocking(move || hub_files(&models, &link))
        .await
        .map_err(|e| {
            AppError::new(
                ErrorCode::Io,
                format!("asking the Hub about {shown} stopped: {e}"),
            )
        })?
}

/// [`models_hub_files`] without the shell.
fn hub_files(models: &Models, link: &str) -> Result<Vec<HubFile>, AppError> {
    models.hub_files(link).map_err(AppError::from)
}

/// Downloads the GGUF file a Hugging Face link points at (`file`: the one
/// picked among a repository's, a path `models_hub_files` listed) into the
/// player's models folder, checked against the Hub's SHA-256 and resumed
/// where an earlier attempt stopped; progress goes to `on_progress`. A
/// repository with several files and no pick is `model_file_choice`; the
/// same file being downloaded already is `download_failed`.
#[tauri::command]
pub async fn models_add_from_hub(
    models: State<'_, Models>,
    downloads: State<'_, Downloads>,
    link: String,
    file: Option<String>,
    on_progress: Channel<DownloadProgress>,
) -> Result<InstalledModel, AppError> {
    let key = hub_download_key(&link, file.as_deref())?;
    let _claim = downloads.claim(key, &link)?;
    let models = models.inner().clone();
    let shown = link.clone();
    tauri::async_runtime::spawn_blocking(move || {
        add_from_hub(&models, &link, file.as_deref(), |p| {
            let _ = on_progress.send(p);
        })
    })
    .await
    .map_err(|e| {
        AppError::new(
            ErrorCode::DownloadFailed,
            format!("the download of {shown} stopped: {e}"),
        )
    })?
}

/// [`models_add_from_hub`] without the shell: the download, its progress
/// throttled into `send`.
fn add_from_hub(
    models: &Models,
    link: &str,
    file: Option<&str>,
    send: impl FnMut(DownloadProgress),
) -> Result<InstalledModel, AppError> {
    let mut report = throttled(send);
    models
        .add_from_hub(link, file, &mut report)
        .map_err(AppError::from)
}

/// What a Hub download is known by while it runs: the file it writes (the
/// same file from a repository link and a file link is one download), or
/// the repository when its one file is not picked yet. A link that is not
/// a Hugging Face model link is `model_link_invalid`.
fn hub_download_key(link: &str, file: Option<&str>) -> Result<String, AppError> {
    let parsed = hub::parse_link(link).map_err(|e| AppError::from(ModelsError::from(e)))?;
    let name = |path: &str| path.rsplit('/').next().unwrap_or(path).to_string();
    Ok(match (&parsed, file) {
        (Link::File { path, .. }, _) => format!("hf file {}", name(path)),
        (Link::Repo { .. }, Some(f)) => format!("hf file {}", name(f)),
        (Link::Repo { repo }, None) => format!("hf repo {repo}"),
    })
}

/// Copies a GGUF file the player chose in the shell's dialog
/// (`choose_model_file`) into the models folder, after checking it is a
/// whole model with a chat template.
#[tauri::command]
pub async fn models_add(
    models: State<'_, Models>,
    chosen: State<'_, ChosenPaths>,
    paths: State<'_, DesktopPaths>,
    path: String,
) -> Result<InstalledModel, AppError> {
    let file = chosen.allow(Path::new(&path), &paths.own_folders())?;
    let models = models.inner().clone();
    tauri::async_runtime::spawn_blocking(move || models.add(&file, false))
        .await
        .map_err(|e| AppError::new(ErrorCode::Io, format!("adding {path} stopped: {e}")))?
        .map_err(AppError::from)
}

/// Remembers `name` in `role` (`writer`, the default; `planner`; `both`)
/// and loads the player's roles again (`default`: forgets that role's
/// choice: the default model plans, the planner's model writes); the
/// `model-*` events follow as for `model_load`.
#[tauri::command]
pub fn models_use(
    handle: AppHandle,
    models: State<'_, Models>,
    name: String,
    role: Option<String>,
) -> Result<(), AppError> {
    let role: RoleChoice = role.as_deref().unwrap_or("writer").parse()?;
    models.choose_as(&name, role)?;
    load_in_background(handle, None);
    Ok(())
}

/// Deletes `name` from the player's models folder. When it was narrating,
/// the default model is loaded instead.
#[tauri::command]
pub fn models_remove(
    handle: AppHandle,
    app: State<'_, AppState>,
    models: State<'_, Models>,
    name: String,
) -> Result<Removed, AppError> {
    let removed = models.remove(&name)?;
    let info = app.model_info();
    if [info.path, info.writer_path].contains(&Some(removed.path.clone())) {
        load_in_background(handle, None);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_models::fixture::tiny_gguf;
    use narratoria_models::test_hub::{serve_hub, HubTestFile, Quirks};

    #[test]
    fn a_link_that_is_not_hugging_faces_is_refused_before_anything_runs() {
        for link in [
            "https://example.com/x.gguf",
            "https://huggingface.co/owner/repo/blob/main/notes.txt",
            "https://huggingface.co/owner/../x.gguf",
            "",
        ] {
            let e = hub_download_key(link, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::ModelLinkInvalid, "{link}: {e:?}");
        }
    }

    /// A repository link with a pick and the file's own link write the same
    /// file: they are one download.
    #[test]
    fn one_file_is_downloaded_once_at_a_time() {
        let picked = hub_download_key("https://huggingface.co/o/r", Some("sub/M.Q4.gguf")).unwrap();
        let linked = hub_download_key("hf.co/o/r/resolve/main/M.Q4.gguf", None).unwrap();
        assert_eq!(picked, linked);
        let whole = hub_download_key("https://huggingface.co/o/r/", None).unwrap();
        assert_ne!(whole, picked);

        let downloads = Downloads::default();
        let first = downloads.claim(picked.clone(), "o/r").unwrap();
        let again = downloads.claim(linked, "o/r").err().expect("refused");
        assert_eq!(again.code, ErrorCode::DownloadFailed);
        assert!(
            again.message.contains("being downloaded already"),
            "{}",
            again.message
        );
        let other = downloads.claim(whole, "o/r").expect("another file goes on");
        drop(first);
        drop(other);
        assert!(lock(&downloads.0).is_empty());
        downloads
            .claim(picked, "o/r")
            .expect("free again once the first ended");
    }

    #[test]
    fn progress_is_sent_a_few_times_a_second_and_always_at_the_end() {
        let mut sent = Vec::new();
        {
            let mut report = throttled(|p| sent.push(p));
            for done in (0..=1000).step_by(10) {
                report(Progress {
                    done,
                    total: Some(1000),
                    resumed_from: 0,
                });
            }
        }
        assert!(sent.len() < 10, "{} steps sent", sent.len());
        assert_eq!(sent.first().map(|p| p.done), Some(0));
        assert_eq!(
            sent.last().map(|p| (p.done, p.total)),
            Some((1000, Some(1000)))
        );
    }

    /// Through a local stand-in for the Hub (`HF_ENDPOINT`): a repository's
    /// two GGUF files are listed; without a pick the download is
    /// `model_file_choice`; the file picked is downloaded, checked and
    /// installed. The only test here that sets the environment.
    #[test]
    fn a_repository_link_lists_its_files_and_downloads_the_one_picked() {
        let home = std::env::temp_dir().join(format!(
            "narratoria-desktop-hub-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&home).unwrap();
        let body = tiny_gguf(true);
        let mut larger = body.clone();
        larger.extend([0u8; 64]);
        let hub = serve_hub(
            "owner/Tiny-GGUF",
            vec![
                HubTestFile {
                    path: "Tiny-Q8.gguf".into(),
                    body: larger,
                },
                HubTestFile {
                    path: "Tiny-Q4.gguf".into(),
                    body: body.clone(),
                },
                HubTestFile {
                    path: "README.md".into(),
                    body: b"# Tiny".to_vec(),
                },
            ],
            Quirks::default(),
        );
        std::env::set_var("NARRATORIA_HOME", &home);
        std::env::set_var("HF_ENDPOINT", &hub.endpoint);
        std::env::remove_var("NARRATORIA_MODEL_CATALOG");
        let models = Models::open(None);
        let link = "https://huggingface.co/owner/Tiny-GGUF";

        let files = hub_files(&models, link).unwrap();
        let listed: Vec<(&str, u64)> = files.iter().map(|f| (f.path.as_str(), f.size)).collect();
        assert_eq!(
            listed,
            [
                ("Tiny-Q4.gguf", body.len() as u64),
                ("Tiny-Q8.gguf", body.len() as u64 + 64)
            ]
        );

        let unpicked = add_from_hub(&models, link, None, |_| {}).unwrap_err();
        assert_eq!(unpicked.code, ErrorCode::ModelFileChoice, "{unpicked:?}");

        let mut sent = Vec::new();
        let added = add_from_hub(&models, link, Some("Tiny-Q4.gguf"), |p| sent.push(p)).unwrap();
        assert_eq!(added.name, "Tiny-Q4");
        assert_eq!(std::fs::read(&added.path).unwrap(), body);
        assert_eq!(
            sent.last().map(|p| p.done),
            Some(body.len() as u64),
            "{sent:?}"
        );

        let foreign = hub_files(&models, "https://example.com/x.gguf").unwrap_err();
        assert_eq!(foreign.code, ErrorCode::ModelLinkInvalid);
        let again = add_from_hub(&models, link, Some("Tiny-Q4.gguf"), |_| {}).unwrap_err();
        assert_eq!(
            again.code,
            ErrorCode::ModelUnusable,
            "already there: {again:?}"
        );
        let _ = std::fs::remove_dir_all(&home);
    }
}
