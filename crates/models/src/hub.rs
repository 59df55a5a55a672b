//! Speaking Hugging Face's Hub: which server it is, and what a link a
//! player pastes points at (a repository, or one GGUF file in it).

/// The Hub a download goes to: `HF_ENDPOINT` when it is set (a mirror, a
/// test server), else <https://huggingface.co>.
pub fn endpoint() -> String {
    endpoint_from(std::env::var("HF_ENDPOINT").ok().as_deref())
}

/// [`endpoint`] with the variable's value given (for tests): blank means
/// unset; a trailing `/` is dropped.
pub fn endpoint_from(var: Option<&str>) -> String {
    match var.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => v.trim_end_matches('/').to_string(),
        None => "https://huggingface.co".to_string(),
    }
}

/// What a Hugging Face link points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// A whole repository (`owner/name`): its .gguf files are to be listed
    /// so that the player can pick one.
    Repo { repo: String },
    /// One GGUF file of a repository at a revision (a branch, tag or
    /// commit); `path` may be in a sub-folder.
    File {
        repo: String,
        revision: String,
        path: String,
    },
}

impl Link {
    /// The repository, `owner/name`.
    pub fn repo(&self) -> &str {
        match self {
            Link::Repo { repo } | Link::File { repo, .. } => repo,
        }
    }
}

/// Why a pasted link is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{link:?} is not a Hugging Face model link: {reason}")]
pub struct LinkError {
    pub link: String,
    pub reason: String,
}

/// What a link a player pastes points at: `https://huggingface.co/OWNER/REPO`
/// (a repository), `.../blob/REV/PATH.gguf` or `.../resolve/REV/PATH.gguf`
/// (one file), the same on `hf.co`, with or without `https://`. Any other
/// host, a file that is not `.gguf`, a `.` or `..` segment, or a character
/// outside letters, digits, `-`, `_` and `.` is refused; the file's name must
/// be one plain name inside the models folder ([`narratoria_fs::child`]).
pub fn parse_link(link: &str) -> Result<Link, LinkError> {
    let refuse = |reason: &str| LinkError {
        link: link.to_string(),
        reason: reason.to_string(),
    };
    let text = link.trim();
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .unwrap_or(text);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.to_ascii_lowercase();
    if !matches!(
        host.as_str(),
        "huggingface.co" | "www.huggingface.co" | "hf.co"
    ) {
        return Err(refuse("only huggingface.co and hf.co links are taken"));
    }
    let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    if let Some(problem) = parts.iter().find_map(|p| segment_problem(p)) {
        return Err(refuse(problem));
    }
    match parts.as_slice() {
        [owner, name] => Ok(Link::Repo {
            repo: format!("{owner}/{name}"),
        }),
        [owner, name, "blob" | "resolve", revision, file @ ..] if !file.is_empty() => {
            let path = file.join("/");
            check_file_path(&path).map_err(|reason| refuse(&reason))?;
            Ok(Link::File {
                repo: format!("{owner}/{name}"),
                revision: revision.to_string(),
                path,
            })
        }
        _ => Err(refuse(
            "expected huggingface.co/OWNER/REPO or .../blob|resolve/REVISION/FILE.gguf",
        )),
    }
}

/// Whether `path`, a file's path inside a repository, may be downloaded
/// into the models folder; else why not. Every `/`-separated part must be
/// non-empty, not `.` or `..`, and only letters, digits, `-`, `_` and `.`;
/// the last must be a `.gguf` file whose name is one plain name inside the
/// models folder ([`narratoria_fs::child`]). The one rule for a file link,
/// for the file a player picks (`--pick`) and for what a repository's
/// listing offers (docs/models.md, "Links").
pub fn check_file_path(path: &str) -> Result<(), String> {
    let parts: Vec<&str> = path.split('/').collect();
    if let Some(problem) = parts.iter().find_map(|p| segment_problem(p)) {
        return Err(problem.to_string());
    }
    let last = parts[parts.len() - 1];
    if !last.to_ascii_lowercase().ends_with(".gguf") {
        return Err("it is not a .gguf file".into());
    }
    crate::catalog::plain_name(last).map_err(|e| format!("its file name is not usable: {e}"))?;
    Ok(())
}

/// Why one `/`-separated part of a link or a repository path is refused.
fn segment_problem(part: &str) -> Option<&'static str> {
    if part.is_empty() || part == "." || part == ".." {
        return Some("it has an empty, `.` or `..` part");
    }
    let plain = part
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    (!plain).then_some("it has a character other than letters, digits, `-`, `_` and `.`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_hf_endpoint_when_set() {
        assert_eq!(endpoint_from(None), "https://huggingface.co");
        assert_eq!(endpoint_from(Some(" ")), "https://huggingface.co");
        assert_eq!(
            endpoint_from(Some("http://127.0.0.1:8080/")),
            "http://127.0.0.1:8080"
        );
    }

    #[test]
    fn repository_and_file_links_are_understood() {
        assert_eq!(
            parse_link("https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF").unwrap(),
            Link::Repo {
                repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF".into()
            }
        );
        let file = Link::File {
            repo: "bartowski/Llama-3.2-1B-Instruct-GGUF".into(),
            revision: "main".into(),
            path: "Llama-3.2-1B-Instruct-Q4_K_M.gguf".into(),
        };
        for link in [
            "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/blob/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
            "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf?download=true",
            "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
        ] {
            assert_eq!(parse_link(link).unwrap(), file, "{link}");
        }
        let nested = parse_link("https://hf.co/o/r/blob/v1.0/q4/model.Q4_K_M.gguf").unwrap();
        assert_eq!(
            nested,
            Link::File {
                repo: "o/r".into(),
                revision: "v1.0".into(),
                path: "q4/model.Q4_K_M.gguf".into()
            }
        );
        assert_eq!(nested.repo(), "o/r");
    }

    #[test]
    fn hostile_or_foreign_links_are_refused() {
        for link in [
            "https://evil.example/Qwen/Qwen2.5-1.5B-Instruct-GGUF",
            "https://huggingface.co.evil.example/o/r",
            "https://huggingface.co/o/r/resolve/main/config.json",
            "https://huggingface.co/o/r/resolve/main/../../etc/x.gguf",
            "https://huggingface.co/o/r/resolve/main/./x.gguf",
            "https://huggingface.co/o/r/resolve/main/.hidden.gguf",
            "https://huggingface.co/o/r/resolve/main/a%2F..%2Fx.gguf",
            "https://huggingface.co/o/r/resolve/main/a b.gguf",
            "https://huggingface.co/o/r/resolve/main/",
            "https://huggingface.co/o//r",
            "https://huggingface.co/o",
            "https://huggingface.co/o/r/tree/main",
            "file:///etc/passwd",
            "",
        ] {
            let err = parse_link(link).unwrap_err();
            assert_eq!(err.link, link);
            assert!(
                err.to_string().contains("not a Hugging Face model link"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_repository_path_is_taken_only_when_a_file_link_would_be() {
        for good in ["m.gguf", "q4/m.Q4_K_M.gguf", "M.GGUF"] {
            assert_eq!(check_file_path(good), Ok(()), "{good}");
        }
        for bad in [
            "../x.gguf",
            "/etc/x.gguf",
            "a//x.gguf",
            "a/./x.gguf",
            "a/../../x.gguf",
            ".hidden.gguf",
            "a b.gguf",
            "x.gguf\\..\\y.gguf",
            "README.md",
            "",
        ] {
            assert!(check_file_path(bad).is_err(), "{bad}");
        }
    }
}
