//! The images and sounds the desktop window may load, judged when each file
//! is read: it must be an image or sound by its name, resolve (links
//! followed, at the moment it is opened) inside the one skill folder — or
//! that skill's data folder — it is named under, and be a plain file. A
//! skill's `config.json`, `skill.json`, scripts, the player's settings and
//! anything a link leads to elsewhere are refused.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Largest asset served, in bytes.
pub const MAX_ASSET_BYTES: u64 = 64 * 1024 * 1024;

/// Why an asset was not served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssetError {
    #[error("{0} is not an absolute path without `..`")]
    BadPath(String),
    #[error("{0} is not an image or a sound")]
    NotAnAsset(String),
    #[error("{0} is not in a skill folder")]
    OutsideSkills(String),
    #[error("{0} leads outside its skill's folders")]
    Escapes(String),
    #[error("{0} cannot be read: {1}")]
    Unreadable(String, String),
    #[error("{0} is larger than {MAX_ASSET_BYTES} bytes")]
    TooLarge(String),
}

/// The media type of an asset file by its extension; `None` for anything
/// that is not an image or a sound (SVG included: it can carry scripts).
pub fn media_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "bmp" => "image/bmp",
        "mp3" => "audio/mpeg",
        "ogg" | "oga" => "audio/ogg",
        "opus" => "audio/opus",
        "wav" => "audio/wav",
        "flac" => "audio/flac",
        "m4a" => "audio/mp4",
        "weba" => "audio/webm",
        _ => return None,
    })
}

/// Where assets may come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetFolders {
    /// Skill roots: an asset lies in `<root>/<skill>/…`.
    pub skill_roots: Vec<PathBuf>,
    /// The user's skill-data folder: an asset may lie in `<data>/<skill>/…`.
    pub data_root: Option<PathBuf>,
}

/// An asset's bytes and media type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    pub bytes: Vec<u8>,
    pub media_type: &'static str,
}

impl AssetFolders {
    /// Reads the asset at `requested` if it may be shown (see the module).
    pub fn read(&self, requested: &Path) -> Result<Asset, AssetError> {
        let shown = requested.display().to_string();
        let plain = requested.is_absolute()
            && requested
                .components()
                .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        if !plain {
            return Err(AssetError::BadPath(shown));
        }
        let media_type =
            media_type(requested).ok_or_else(|| AssetError::NotAnAsset(shown.clone()))?;
        let home = self
            .skill_folder_of(requested)
            .ok_or_else(|| AssetError::OutsideSkills(shown.clone()))?;
        let home = home
            .canonicalize()
            .map_err(|e| AssetError::Unreadable(shown.clone(), e.to_string()))?;
        let file = std::fs::File::open(requested)
            .map_err(|e| AssetError::Unreadable(shown.clone(), e.to_string()))?;
        // Judged by what was opened, so that a link swapped in between
        // checking and opening changes nothing.
        let real = opened_path(&file, requested)
            .map_err(|e| AssetError::Unreadable(shown.clone(), e.to_string()))?;
        if !real.starts_with(&home) {
            return Err(AssetError::Escapes(shown));
        }
        if media_type_of_real(&real) != Some(media_type) {
            return Err(AssetError::NotAnAsset(shown));
        }
        let meta = file
            .metadata()
            .map_err(|e| AssetError::Unreadable(shown.clone(), e.to_string()))?;
        if !meta.is_file() {
            return Err(AssetError::NotAnAsset(shown));
        }
        if meta.len() > MAX_ASSET_BYTES {
            return Err(AssetError::TooLarge(shown));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_ASSET_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| AssetError::Unreadable(shown.clone(), e.to_string()))?;
        if bytes.len() as u64 > MAX_ASSET_BYTES {
            return Err(AssetError::TooLarge(shown));
        }
        Ok(Asset { bytes, media_type })
    }

    /// The one skill folder (or skill data folder) `path` is named under:
    /// `<root>/<skill>` for the first root `path` lies in.
    fn skill_folder_of(&self, path: &Path) -> Option<PathBuf> {
        let roots = self.skill_roots.iter().chain(self.data_root.iter());
        for root in roots {
            for root in [
                root.clone(),
                root.canonicalize().unwrap_or_else(|_| root.clone()),
            ] {
                if let Ok(rest) = path.strip_prefix(&root) {
                    let mut parts = rest.components();
                    let skill = parts.next()?;
                    // The file must lie inside the skill folder, not be it.
                    parts.next()?;
                    return Some(root.join(skill));
                }
            }
        }
        None
    }
}

/// The file's extension as the real (link-resolved) name gives it.
fn media_type_of_real(real: &Path) -> Option<&'static str> {
    let name = real.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    if lower == "config.json" || lower == "skill.json" || lower == "skill.md" {
        return None;
    }
    media_type(real)
}

/// The path the open file really is.
#[cfg(target_os = "linux")]
fn opened_path(file: &std::fs::File, _requested: &Path) -> std::io::Result<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
}

/// The path the open file really is (resolved after opening).
#[cfg(not(target_os = "linux"))]
fn opened_path(_file: &std::fs::File, requested: &Path) -> std::io::Result<PathBuf> {
    requested.canonicalize()
}

/// The file path inside an asset URL's path (`/` then the percent-encoded
/// absolute path, as the page's `convertFileSrc` writes it).
pub fn path_from_url_path(url_path: &str) -> Option<PathBuf> {
    let encoded = url_path.strip_prefix('/').unwrap_or(url_path);
    let bytes = encoded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let text = String::from_utf8(out).ok()?;
    (!text.contains('\0')).then(|| PathBuf::from(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct World {
        _dir: tempfile::TempDir,
        folders: AssetFolders,
        skill: PathBuf,
        outside: PathBuf,
    }

    fn world() -> World {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("skills");
        let skill = root.join("painter");
        std::fs::create_dir_all(skill.join("data")).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::write(skill.join("data/sunset.png"), b"\x89PNG").unwrap();
        std::fs::write(skill.join("config.json"), b"{\"apiKey\": \"sk\"}").unwrap();
        std::fs::write(root.join("other/map.png"), b"\x89PNG other").unwrap();
        let outside = base.join("passwd");
        std::fs::write(&outside, b"root:x:0:0").unwrap();
        World {
            folders: AssetFolders {
                skill_roots: vec![root],
                data_root: Some(base.join("skill-data")),
            },
            skill,
            outside,
            _dir: dir,
        }
    }

    #[test]
    fn an_image_inside_its_skill_is_served() {
        let w = world();
        let a = w.folders.read(&w.skill.join("data/sunset.png")).unwrap();
        assert_eq!(a.media_type, "image/png");
        assert_eq!(a.bytes, b"\x89PNG");
    }

    #[test]
    fn settings_and_other_files_are_refused() {
        let w = world();
        assert!(matches!(
            w.folders.read(&w.skill.join("config.json")),
            Err(AssetError::NotAnAsset(_))
        ));
        assert!(matches!(
            w.folders.read(&w.skill.join("data/../config.json")),
            Err(AssetError::BadPath(_))
        ));
        assert!(matches!(
            w.folders.read(Path::new("relative/x.png")),
            Err(AssetError::BadPath(_))
        ));
        assert!(matches!(
            w.folders.read(&w.outside.with_extension("png")),
            Err(AssetError::OutsideSkills(_))
        ));
    }

    /// A name that did not exist when it was first seen can become a link
    /// to a secret: the link is judged when the file is read.
    #[cfg(unix)]
    #[test]
    fn links_leaving_the_skill_are_refused_when_read() {
        let w = world();
        let later = w.skill.join("data/later.png");
        assert!(matches!(
            w.folders.read(&later),
            Err(AssetError::Unreadable(..))
        ));
        std::os::unix::fs::symlink(&w.outside, &later).unwrap();
        assert!(matches!(
            w.folders.read(&later),
            Err(AssetError::Escapes(_))
        ));
        // Into another skill, or to the skill's own settings under an image's name.
        let cross = w.skill.join("data/cross.png");
        let other = w.folders.skill_roots[0].join("other/map.png");
        std::os::unix::fs::symlink(&other, &cross).unwrap();
        assert!(matches!(
            w.folders.read(&cross),
            Err(AssetError::Escapes(_))
        ));
        let disguised = w.skill.join("data/key.png");
        std::os::unix::fs::symlink(w.skill.join("config.json"), &disguised).unwrap();
        assert!(matches!(
            w.folders.read(&disguised),
            Err(AssetError::NotAnAsset(_))
        ));
    }

    #[test]
    fn url_paths_decode_to_file_paths() {
        assert_eq!(
            path_from_url_path("/%2Fhome%2Fme%2Fskills%2Fa%20b%2Fx.png"),
            Some(PathBuf::from("/home/me/skills/a b/x.png"))
        );
        assert_eq!(path_from_url_path("/%2Fx%00.png"), None);
        assert_eq!(path_from_url_path("/%zz"), None);
    }
}
