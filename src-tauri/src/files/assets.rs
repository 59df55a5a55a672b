//! The `narratoria-asset:` protocol: a skill's images and sounds, each judged
//! when it is read by `narratoria_app::assets` (inside its own skill's
//! folders once links are followed, an image or a sound by name).

use narratoria_app::assets::{path_from_url_path, AssetFolders};
use tauri::http::{header, Request, Response, StatusCode};

/// The protocol's name, as the page's `convertFileSrc(path, SCHEME)` uses it.
pub const SCHEME: &str = "narratoria-asset";

/// The answer to one request: the file, or 403 with the reason.
pub fn respond(folders: Option<&AssetFolders>, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let served = match (folders, path_from_url_path(request.uri().path())) {
        (Some(folders), Some(path)) => folders.read(&path).map_err(|e| e.to_string()),
        _ => Err("not an asset path".to_string()),
    };
    let response = match served {
        Ok(asset) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, asset.media_type)
            .header("X-Content-Type-Options", "nosniff")
            .body(asset.bytes),
        Err(reason) => Response::builder()
            .status(StatusCode::FORBIDDEN)
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(reason.into_bytes()),
    };
    response.unwrap_or_else(|_| Response::new(Vec::new()))
}
