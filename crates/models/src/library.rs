//! The models a user has: GGUF files in the user's own models folder
//! (writable) and in the installed program's or checkout's folders
//! (read-only), next to the catalog of models that can be downloaded.

use std::path::{Path, PathBuf};

use serde::Serialize;

use narratoria_fs::child;

use crate::catalog::{self, Entry, Kind, Unpack};
use crate::download::{self, Pace, Progress};
use crate::error::ModelsError;
use crate::gguf;
use crate::hub::Link;
use crate::hub_files::{self, HubFile, HubSource, Scope};
use crate::unpack;

/// The user's models folder, the read-only ones, and the catalog.
///
/// Every name given to a library (a model's, a catalog entry's, a file
/// name an entry gives) becomes a path only through
/// [`narratoria_fs::child`]: one plain name directly inside a models
/// folder.
#[derive(Debug, Clone)]
pub struct Library {
    own: PathBuf,
    bundled: Vec<PathBuf>,
    catalog: Vec<Entry>,
    pace: Pace,
    /// The Hugging Face Hub that Hub entries and links download from.
    hub: String,
}

/// A model on disk.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstalledModel {
    /// The name `models use` and `models remove` take: the catalog name,
    /// else the file name without `.gguf`.
    pub name: String,
    pub kind: Kind,
    pub path: PathBuf,
    /// Bytes on disk (a folder's files added up).
    pub size: u64,
    pub quantization: Option<String>,
    pub context_length: Option<u64>,
    /// The model's parameters, from its tensor table (`None` for an
    /// embedder, or a file that cannot be read).
    pub parameters: Option<u64>,
    pub architecture: Option<String>,
    /// Whether the GGUF carries a chat template (`None` for an embedder).
    pub chat_template: Option<bool>,
    /// Part of the installed program or the checkout: not removable.
    pub read_only: bool,
    /// The narrator model that play, turn, narrate and the window load.
    pub in_use: bool,
    /// Why the file cannot be used, when it cannot.
    pub problem: Option<String>,
}

/// Everything `models list` shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// The user's models folder.
    pub models_dir: PathBuf,
    pub installed: Vec<InstalledModel>,
    /// Catalog entries that are not installed anywhere.
    pub available: Vec<Entry>,
}

impl Library {
    /// A library over the user's folder `own` and the read-only `bundled`
    /// folders (searched in order, after `own`).
    pub fn new(own: PathBuf, bundled: Vec<PathBuf>, catalog: Vec<Entry>) -> Library {
        let bundled = bundled.into_iter().filter(|d| !same_dir(d, &own)).collect();
        Library {
            own,
            bundled,
            catalog,
            pace: Pace::DEFAULT,
            hub: crate::hub::endpoint(),
        }
    }

    /// The same library asking the Hub at `endpoint` instead of
    /// [`crate::hub::endpoint`] (tests use a local server).
    pub fn with_hub(mut self, endpoint: &str) -> Library {
        self.hub = crate::hub::endpoint_from(Some(endpoint));
        self
    }

    /// The Hub this library asks.
    pub fn hub(&self) -> &str {
        &self.hub
    }

    /// The same library with downloads held to `pace` instead of
    /// [`Pace::DEFAULT`] (tests use one of a second).
    pub fn with_pace(mut self, pace: Pace) -> Library {
        self.pace = pace;
        self
    }

    /// The user's models folder.
    pub fn own_dir(&self) -> &Path {
        &self.own
    }

    /// The catalog this library downloads from.
    pub fn catalog(&self) -> &[Entry] {
        &self.catalog
    }

    /// Every model on disk (the user's first; a file found twice, or a model
    /// of the same name in a later folder, is listed once: the copy
    /// [`Library::find`] would use) with `in_use` marked, and the catalog
    /// entries not installed.
    pub fn list(&self, in_use: Option<&Path>) -> Listing {
        let in_use = in_use.and_then(|p| p.canonicalize().ok());
        let mut installed: Vec<InstalledModel> = Vec::new();
        let mut seen: Vec<PathBuf> = Vec::new();
        for (dir, read_only) in self.folders() {
            for path in gguf_files(dir)
                .into_iter()
                .chain(self.embedder_folders(dir))
            {
                let real = path.canonicalize().unwrap_or_else(|_| path.clone());
                if seen.contains(&real) {
                    continue;
                }
                seen.push(real.clone());
                let used = in_use.as_ref() == Some(&real);
                // A later copy of a listed model is only marked, never read.
                let name = model_name(&self.catalog, &path);
                if let Some(first) = installed.iter_mut().find(|m| m.name == name) {
                    first.in_use |= used;
                    continue;
                }
                let mut model = self.describe(&path, read_only);
                model.in_use = used;
                installed.push(model);
            }
        }
        let available = self
            .catalog
            .iter()
            .filter(|e| !installed.iter().any(|m| m.name == e.name))
            .cloned()
            .collect();
        Listing {
            models_dir: self.own.clone(),
            installed,
            available,
        }
    }

    /// The installed model called `name` (its catalog name, file name, or
    /// file name without `.gguf`), the user's folder first. Only a direct
    /// child of a models folder is found: a name that is not one plain
    /// name ([`narratoria_fs::child`]) finds nothing.
    pub fn find(&self, name: &str) -> Option<PathBuf> {
        self.find_checked(name).ok().flatten()
    }

    /// [`Library::find`], with the name error when `name` (or the file
    /// name its catalog entry gives) is not one plain name.
    fn find_checked(&self, name: &str) -> Result<Option<PathBuf>, ModelsError> {
        child(&self.own, name)?;
        let wanted: Vec<String> = match catalog::find(&self.catalog, name) {
            Some(e) => vec![e.installed_name().to_string()],
            None => vec![name.to_string(), format!("{name}.gguf")],
        };
        for (dir, _) in self.folders() {
            for w in &wanted {
                let path = child(dir, w)?;
                if path.is_file() || path.is_dir() {
                    return Ok(Some(path));
                }
            }
        }
        Ok(None)
    }

    /// Copies (or, with `link`, symlinks) a GGUF file into the user's
    /// folder. The file must be a complete GGUF model with a chat template.
    pub fn add(&self, file: &Path, link: bool) -> Result<InstalledModel, ModelsError> {
        let header = gguf::read(file)?;
        if !header.has_chat_template {
            return Err(ModelsError::NoChatTemplate {
                path: file.to_path_buf(),
            });
        }
        let file_name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model.gguf".into());
        let file_name = if file_name.ends_with(".gguf") {
            file_name
        } else {
            format!("{file_name}.gguf")
        };
        let dest = self.own.join(&file_name);
        if dest.exists() || dest.symlink_metadata().is_ok() {
            return Err(ModelsError::AlreadyThere {
                name: model_name(&self.catalog, &dest),
                path: dest,
            });
        }
        std::fs::create_dir_all(&self.own).map_err(|e| ModelsError::io(&self.own, e))?;
        if link {
            let target = file.canonicalize().map_err(|e| ModelsError::io(file, e))?;
            symlink(&target, &dest).map_err(|e| ModelsError::io(&dest, e))?;
        } else {
            let tmp = download::part_path(&dest);
            std::fs::copy(file, &tmp).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                ModelsError::io(&dest, e)
            })?;
            std::fs::rename(&tmp, &dest).map_err(|e| ModelsError::io(&dest, e))?;
        }
        Ok(self.describe(&dest, false))
    }

    /// Deletes the model `name` from the user's folder; returns its path.
    /// `name` must be one plain name ([`narratoria_fs::child`]), else the
    /// name error and nothing is touched. Only an entry whose real parent
    /// folder is the user's models folder is deleted: a model only in a
    /// read-only folder (one inside the user's folder included) is refused.
    /// A link is removed as a link; what it points to is kept.
    pub fn remove(&self, name: &str) -> Result<PathBuf, ModelsError> {
        let path = self.find_checked(name)?.ok_or_else(|| self.unknown(name))?;
        let parent = path.parent().and_then(|p| p.canonicalize().ok());
        let own = self.own.canonicalize().ok();
        if parent.is_none() || parent != own {
            return Err(ModelsError::ReadOnly {
                name: name.to_string(),
                path,
            });
        }
        let meta = path
            .symlink_metadata()
            .map_err(|e| ModelsError::io(&path, e))?;
        let removed = if meta.is_dir() {
            // Never follows links inside the folder either.
            std::fs::remove_dir_all(&path)
        } else {
            // A file, or a link (to a file or a folder): the entry itself.
            remove_entry(&path)
        };
        removed.map_err(|e| ModelsError::io(&path, e))?;
        Ok(path)
    }

    /// Downloads the catalog entry `name` into the user's folder (resumed
    /// when an earlier attempt was interrupted, checked, unpacked, moved
    /// into place at the end); returns the installed file or folder. A model
    /// already in the user's folder is not downloaded again. Every file
    /// written is a direct child of the user's folder or of its
    /// `.downloads` folder: an entry whose names are not plain names gets
    /// the name error before anything is written. The download is held to
    /// the entry's size and the library's [`Pace`] ([`download::fetch`]).
    pub fn download(
        &self,
        name: &str,
        on_progress: &mut dyn FnMut(Progress),
    ) -> Result<PathBuf, ModelsError> {
        let entry = catalog::find(&self.catalog, name).ok_or_else(|| self.unknown(name))?;
        let installed = child(&self.own, entry.installed_name())?;
        if let Unpack::Members { members, .. } = &entry.unpack {
            for m in members {
                child(&self.own, &m.file)?;
            }
        }
        if installed_complete(entry, &installed) {
            return Ok(installed);
        }
        let downloads = self.own.join(".downloads");
        let archive = child(&downloads, &entry.download_name())?;
        let (url, sha256, size) = match &entry.hub {
            Some(source) => {
                let resolved = hub_files::resolve(&self.hub, source)?;
                if !entry.sha256.is_empty() && !entry.sha256.eq_ignore_ascii_case(&resolved.sha256)
                {
                    return Err(ModelsError::Hub {
                        repo: source.repo.clone(),
                        reason: format!(
                            "{} on the Hub has sha256 {}, not the catalog's {}; nothing was downloaded",
                            source.file, resolved.sha256, entry.sha256
                        ),
                    });
                }
                // The catalog's size, when it pins one, bounds the download:
                // the Hub's can only stand in for a size the catalog lacks
                // (docs/models.md, "The catalog").
                (resolved.url, resolved.sha256, entry.size.or(resolved.size))
            }
            None => (entry.url.clone(), entry.sha256.clone(), entry.size),
        };
        if !download::matches_checksum(&archive, &sha256)? {
            let limits = download::Limits {
                size,
                pace: self.pace,
            };
            download::fetch(&url, &sha256, &archive, &limits, on_progress)?;
        }
        match &entry.unpack {
            Unpack::AsIs { .. } => {
                std::fs::rename(&archive, &installed).map_err(|e| ModelsError::io(&installed, e))?
            }
            Unpack::Members {
                folder: None,
                members,
            } => unpack::members(&archive, members, &self.own)?,
            Unpack::Members {
                folder: Some(_),
                members,
            } => {
                let staging = self
                    .own
                    .join(format!(".{}.unpacking", entry.installed_name()));
                let _ = std::fs::remove_dir_all(&staging);
                unpack::members(&archive, members, &staging).inspect_err(|_| {
                    let _ = std::fs::remove_dir_all(&staging);
                })?;
                let _ = std::fs::remove_dir_all(&installed);
                std::fs::rename(&staging, &installed)
                    .map_err(|e| ModelsError::io(&installed, e))?;
            }
        }
        let _ = std::fs::remove_file(&archive);
        let _ = std::fs::remove_dir(&downloads);
        Ok(installed)
    }

    /// The GGUF files a Hugging Face link offers: the one file a file link
    /// names, or every whole-model `.gguf` of a repository (the parts of
    /// split models left out), with sizes and the Hub's checksums, smallest
    /// first. Only paths a pick can take are offered
    /// ([`crate::hub::check_file_path`], the rule of a file link): a listed
    /// `../x.gguf` or `/abs/x.gguf` is left out. One listing
    /// ([`hub_files::list`], bounded in total): the repository for a
    /// repository link, the file's folder for a file link.
    pub fn hub_files(&self, link: &str) -> Result<Vec<HubFile>, ModelsError> {
        let link = crate::hub::parse_link(link)?;
        let (revision, wanted) = match &link {
            Link::Repo { .. } => ("main", None),
            Link::File { revision, path, .. } => (revision.as_str(), Some(path.as_str())),
        };
        let scope = match wanted {
            None => Scope::Repository,
            Some(path) => Scope::Folder(path.rsplit_once('/').map_or("", |(dir, _)| dir)),
        };
        let files = hub_files::list(&self.hub, link.repo(), revision, scope)?;
        let mut offered: Vec<HubFile> = hub_files::ggufs(&files)
            .filter(|f| wanted.is_none_or(|w| f.path == w))
            .filter(|f| !hub_files::is_split_part(&f.path))
            .filter(|f| crate::hub::check_file_path(&f.path).is_ok())
            .cloned()
            .collect();
        offered.sort_by(|a, b| a.size.cmp(&b.size).then(a.path.cmp(&b.path)));
        if offered.is_empty() {
            return Err(ModelsError::Hub {
                repo: link.repo().to_string(),
                reason: match wanted {
                    Some(w) => format!("it has no file {w} at {revision}"),
                    None => {
                        "it has no GGUF file of a whole model (split models are not taken)".into()
                    }
                },
            });
        }
        Ok(offered)
    }

    /// Downloads the GGUF file a Hugging Face `link` points at into the
    /// user's folder, checked against the Hub's SHA-256 and resumed like a
    /// catalog download, then read like [`Library::add`]: a file that is not
    /// a whole GGUF model with a chat template is deleted and refused. A
    /// repository link needs `file` (one of [`Library::hub_files`]' paths,
    /// or its name) unless it holds one GGUF; otherwise the error
    /// ([`ModelsError::HubChoose`]) carries the files offered, with their
    /// sizes. The repository (or the file's folder) is listed once.
    pub fn add_from_hub(
        &self,
        link: &str,
        file: Option<&str>,
        on_progress: &mut dyn FnMut(Progress),
    ) -> Result<InstalledModel, ModelsError> {
        let parsed = crate::hub::parse_link(link)?;
        let (source, listed) = match &parsed {
            Link::File {
                repo,
                revision,
                path,
            } => {
                let source = HubSource {
                    repo: repo.clone(),
                    revision: revision.clone(),
                    file: path.clone(),
                };
                (source, None)
            }
            Link::Repo { repo } => {
                let offered = self.hub_files(link)?;
                let Some(pick) = pick_offered(&offered, file) else {
                    return Err(ModelsError::HubChoose {
                        repo: repo.clone(),
                        files: offered,
                    });
                };
                let source = HubSource {
                    repo: repo.clone(),
                    revision: "main".into(),
                    file: pick.path.clone(),
                };
                (source, Some(pick.clone()))
            }
        };
        let dest = child(&self.own, source.file_name())?;
        if dest.symlink_metadata().is_ok() {
            return Err(ModelsError::AlreadyThere {
                name: model_name(&self.catalog, &dest),
                path: dest,
            });
        }
        let resolved = match &listed {
            Some(entry) => hub_files::resolve_listed(&self.hub, &source, entry)?,
            None => hub_files::resolve(&self.hub, &source)?,
        };
        self.install_from_hub(&source, &resolved, &dest, on_progress)
    }

    /// Fetches `resolved` into the `.downloads` folder and, when it is a
    /// whole GGUF model with a chat template, moves it to `dest`; else
    /// deletes it and says why.
    fn install_from_hub(
        &self,
        source: &HubSource,
        resolved: &hub_files::Resolved,
        dest: &Path,
        on_progress: &mut dyn FnMut(Progress),
    ) -> Result<InstalledModel, ModelsError> {
        let downloads = self.own.join(".downloads");
        let part = child(&downloads, source.file_name())?;
        let limits = download::Limits {
            size: resolved.size,
            pace: self.pace,
        };
        if !download::matches_checksum(&part, &resolved.sha256)? {
            download::fetch(&resolved.url, &resolved.sha256, &part, &limits, on_progress)?;
        }
        let checked = gguf::read(&part)
            .map_err(ModelsError::from)
            .and_then(|header| {
                if header.has_chat_template {
                    Ok(())
                } else {
                    Err(ModelsError::NoChatTemplate {
                        path: dest.to_path_buf(),
                    })
                }
            });
        if let Err(e) = checked {
            let _ = std::fs::remove_file(&part);
            let _ = std::fs::remove_dir(&downloads);
            return Err(e);
        }
        std::fs::rename(&part, dest).map_err(|e| ModelsError::io(dest, e))?;
        let _ = std::fs::remove_dir(&downloads);
        Ok(self.describe(dest, false))
    }

    /// The error for a name that is neither installed nor in the catalog.
    pub fn unknown(&self, name: &str) -> ModelsError {
        let listing = self.list(None);
        let names = |v: Vec<String>| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        ModelsError::Unknown {
            name: name.to_string(),
            installed: names(listing.installed.into_iter().map(|m| m.name).collect()),
            catalog: names(self.catalog.iter().map(|e| e.name.clone()).collect()),
        }
    }

    fn folders(&self) -> impl Iterator<Item = (&Path, bool)> {
        std::iter::once((self.own.as_path(), false))
            .chain(self.bundled.iter().map(|d| (d.as_path(), true)))
    }

    /// Catalog embedders whose files are all present in `dir`.
    fn embedder_folders(&self, dir: &Path) -> Vec<PathBuf> {
        self.catalog
            .iter()
            .filter(|e| e.kind == Kind::Embedder)
            .filter_map(|e| Some((e, child(dir, e.installed_name()).ok()?)))
            .filter(|(e, p)| installed_complete(e, p))
            .map(|(_, p)| p)
            .collect()
    }

    fn describe(&self, path: &Path, read_only: bool) -> InstalledModel {
        let name = model_name(&self.catalog, path);
        if path.is_dir() {
            return InstalledModel {
                name,
                kind: Kind::Embedder,
                path: path.to_path_buf(),
                size: folder_size(path),
                quantization: None,
                context_length: None,
                parameters: None,
                architecture: None,
                chat_template: None,
                read_only,
                in_use: false,
                problem: None,
            };
        }
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let (header, problem) = match gguf::read(path) {
            Ok(h) => {
                let problem = (!h.has_chat_template).then(|| "no chat template".to_string());
                (Some(h), problem)
            }
            Err(e) => (None, Some(e.to_string())),
        };
        InstalledModel {
            name,
            kind: Kind::Narrator,
            path: path.to_path_buf(),
            size,
            quantization: header.as_ref().and_then(|h| h.quantization()),
            context_length: header.as_ref().and_then(|h| h.context_length),
            parameters: header.as_ref().map(|h| h.parameters),
            architecture: header.as_ref().and_then(|h| h.architecture.clone()),
            chat_template: header.as_ref().map(|h| h.has_chat_template),
            read_only,
            in_use: false,
            problem,
        }
    }
}

/// The file of `offered` that `chosen` names (its path, or its name
/// without folders); with no choice, the only one offered.
fn pick_offered<'a>(offered: &'a [HubFile], chosen: Option<&str>) -> Option<&'a HubFile> {
    match chosen {
        Some(c) => offered
            .iter()
            .find(|f| f.path == c || f.path.rsplit('/').next() == Some(c)),
        None if offered.len() == 1 => offered.first(),
        None => None,
    }
}

/// The catalog name of the model at `path`, else its file name without `.gguf`.
fn model_name(catalog: &[Entry], path: &Path) -> String {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    catalog
        .iter()
        .find(|e| e.installed_name() == file)
        .map(|e| e.name.clone())
        .unwrap_or_else(|| file.strip_suffix(".gguf").unwrap_or(&file).to_string())
}

/// Whether every file of `entry` is at `installed`.
fn installed_complete(entry: &Entry, installed: &Path) -> bool {
    match &entry.unpack {
        Unpack::Members {
            folder: Some(_),
            members,
        } => members
            .iter()
            .all(|m| child(installed, &m.file).is_ok_and(|p| p.is_file())),
        _ => installed.is_file(),
    }
}

/// The `*.gguf` files directly in `dir`, sorted by name.
fn gguf_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "gguf") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn folder_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Removes the file or link at `path` (a link to a folder included) without
/// following it.
#[cfg(unix)]
fn remove_entry(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(path)
}

/// Removes the file or link at `path` without following it (on Windows a
/// link to a folder is removed with `remove_dir`, which does not follow it).
#[cfg(not(unix))]
fn remove_entry(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(path).or_else(|_| std::fs::remove_dir(path))
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::fs::copy(target, link).map(|_| ())
}

#[cfg(test)]
mod hub_tests;
#[cfg(test)]
mod tests;
