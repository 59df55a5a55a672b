//! Which languages a narrator model writes well: its catalog entry's, else
//! its family's as its GGUF names it (docs/models.md, "Languages"). A
//! story told in a language its writer does not write is named to the
//! player before the first turn reads badly.

use std::path::Path;

use crate::catalog::{Entry, Kind};

/// The languages Qwen2.5's model card names first (of its 29+).
pub(crate) const QWEN_LANGUAGES: &[&str] = &[
    "en", "zh", "fr", "es", "pt", "de", "it", "ru", "ja", "ko", "vi", "th", "ar",
];
/// The eight languages Llama 3.1 and 3.2 are supported in.
pub(crate) const LLAMA_LANGUAGES: &[&str] = &["en", "de", "fr", "it", "pt", "hi", "es", "th"];
/// The languages Mistral's model card names.
pub(crate) const MISTRAL_LANGUAGES: &[&str] = &["en", "fr", "de", "es", "it"];

/// Model families by a word of the GGUF's `general.name` (lower case), with
/// the languages their model cards name: for a model the catalog does not
/// list. The first family whose word the name holds is the model's.
const FAMILIES: &[(&str, &[&str])] = &[
    ("smollm", &["en"]),
    ("qwen", QWEN_LANGUAGES),
    ("llama-3", LLAMA_LANGUAGES),
    ("llama 3", LLAMA_LANGUAGES),
    ("mistral", MISTRAL_LANGUAGES),
];

/// The languages the narrator model in `path` writes well (ISO 639-1 codes,
/// most fluent first): those of the `catalog` entry that installs a file of
/// that name, else those its family's model card names, by the name its
/// GGUF header gives; `None` when neither tells (a model nobody described).
pub fn written_by(path: &Path, catalog: &[Entry]) -> Option<Vec<String>> {
    let file = path.file_name()?.to_string_lossy();
    let listed = catalog
        .iter()
        .filter(|e| e.kind == Kind::Narrator && !e.languages.is_empty())
        .find(|e| e.installed_name().eq_ignore_ascii_case(&file));
    if let Some(entry) = listed {
        return Some(entry.languages.clone());
    }
    let name = crate::gguf::read(path).ok()?.name?.to_lowercase();
    FAMILIES
        .iter()
        .find(|(word, _)| name.contains(word))
        .map(|(_, languages)| languages.iter().map(|l| l.to_string()).collect())
}

/// The `catalog`'s narrator models that write `code` well, in catalog order.
pub fn narrators_writing<'a>(catalog: &'a [Entry], code: &str) -> Vec<&'a Entry> {
    catalog
        .iter()
        .filter(|e| e.kind == Kind::Narrator && e.languages.iter().any(|l| l == code))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::builtin;

    #[test]
    fn a_listed_model_writes_its_entrys_languages() {
        let catalog = builtin();
        let smol = written_by(Path::new("/m/SmolLM2-135M-Instruct.Q4_1.gguf"), &catalog);
        assert_eq!(smol, Some(vec!["en".to_string()]));
        let qwen = written_by(Path::new("/m/qwen2.5-1.5b-instruct-q4_k_m.gguf"), &catalog).unwrap();
        assert!(qwen.iter().any(|l| l == "fr") && qwen.iter().any(|l| l == "de"));
    }

    #[test]
    fn an_unlisted_model_writes_its_familys_languages_by_its_gguf_name() {
        let dir = tempfile::tempdir().unwrap();
        let named = |file: &str, name: &'static str| {
            let path = dir.path().join(file);
            std::fs::write(&path, crate::fixture::named_gguf(name)).unwrap();
            written_by(&path, &builtin())
        };
        let coder = named("coder.gguf", "Qwen2.5 Coder 1.5B Instruct").unwrap();
        assert!(coder.iter().any(|l| l == "es"));
        assert_eq!(
            named("small.gguf", "SmolLM2 360M Instruct"),
            Some(vec!["en".into()])
        );
        assert_eq!(named("other.gguf", "Phi 3 Mini"), None);
    }

    #[test]
    fn the_catalog_names_the_narrators_that_write_a_language() {
        let catalog = builtin();
        let french: Vec<&str> = narrators_writing(&catalog, "fr")
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert!(
            french.contains(&"qwen2.5-1.5b") && !french.contains(&"smollm2"),
            "{french:?}"
        );
        assert!(narrators_writing(&catalog, "tlh").is_empty());
    }
}
