#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! A `.gltf`'s external files given as a map of URI → bytes (what the browser has) load the
//! same asset as the directory beside the file; URIs are matched as the directory reader
//! resolves them (percent-decoded, `./`, `../`, absolute), and a file the map lacks is a typed
//! error naming its URI.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skel_gltf::{
    ExternalFiles, FileMap, GltfAsset, GltfDocument, GltfError, ImageSlot, LoadOptions, load_path,
    load_slice, load_slice_with_files,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn opts() -> LoadOptions {
    LoadOptions::default()
}

/// `two_skins.gltf` (two skins, a clip, one external buffer) and its `.bin`.
fn two_skins() -> (Value, Vec<u8>) {
    let json = std::fs::read(fixtures().join("two_skins.gltf")).unwrap();
    let bin = std::fs::read(fixtures().join("two_skins.bin")).unwrap();
    (serde_json::from_slice(&json).unwrap(), bin)
}

/// `json` with buffer 0's URI replaced by `uri`, as bytes.
fn with_uri(mut json: Value, uri: &str) -> Vec<u8> {
    json["buffers"][0]["uri"] = Value::from(uri);
    serde_json::to_vec(&json).unwrap()
}

/// A fresh folder under the test target's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("skel-gltf-files-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn missing_buffer(err: &GltfError) -> (usize, &str) {
    match err {
        GltfError::MissingBuffer { buffer, reason } => (*buffer, reason.as_str()),
        other => panic!("expected MissingBuffer, got {other}"),
    }
}

#[test]
fn a_file_map_loads_what_the_directory_loads() {
    let from_dir = load_path(&fixtures().join("two_skins.gltf"), &opts()).unwrap();
    let (json, bin) = two_skins();
    let bytes = serde_json::to_vec(&json).unwrap();
    let files: FileMap = [("two_skins.bin", bin)].into_iter().collect();
    let from_map = load_slice_with_files(&bytes, files, &opts()).unwrap();
    assert_eq!(from_map, from_dir);
    assert_eq!(from_map.skins.len(), 2);
    assert!(!from_map.animation.clips.is_empty());
}

#[test]
fn a_missing_sibling_is_a_missing_buffer_naming_its_uri() {
    let (json, bin) = two_skins();
    let bytes = with_uri(json, "meshes/two%20skins.bin");
    // Keyed under another name: the map does not hold the URI the JSON gives.
    let files: FileMap = [("two_skins.bin", bin)].into_iter().collect();
    let err = load_slice_with_files(&bytes, files, &opts()).unwrap_err();
    let (buffer, reason) = missing_buffer(&err);
    assert_eq!(buffer, 0);
    assert!(reason.contains("\"meshes/two%20skins.bin\""), "{reason}");
    assert!(reason.contains("not among the files given"), "{reason}");
    // No files at all: the error it always gave.
    let err = load_slice(&bytes, None, &opts()).unwrap_err();
    assert!(
        missing_buffer(&err).1.contains("no base directory"),
        "{err}"
    );
}

#[test]
fn a_short_sibling_is_a_buffer_length_error() {
    let (json, bin) = two_skins();
    let bytes = serde_json::to_vec(&json).unwrap();
    let files: FileMap = [("two_skins.bin", bin[..100].to_vec())]
        .into_iter()
        .collect();
    let err = load_slice_with_files(&bytes, files, &opts()).unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::BufferLength {
                buffer: 0,
                actual: 100,
                ..
            }
        ),
        "{err}"
    );
}

/// Percent-encoding, `./`, `x/../` and a leading `../` name the same file in a map as in the
/// directory the `.gltf` sits in.
#[test]
fn relative_uris_resolve_as_in_the_directory() {
    let (json, bin) = two_skins();
    let tmp = TempDir::new("relative");
    std::fs::create_dir_all(tmp.0.join("scene")).unwrap();
    std::fs::create_dir_all(tmp.0.join("data dir")).unwrap();
    std::fs::write(tmp.0.join("data dir/two skins.bin"), &bin).unwrap();
    let reference = load_path(&fixtures().join("two_skins.gltf"), &opts()).unwrap();
    for uri in [
        "../data%20dir/two%20skins.bin",
        "./../data dir/./two skins.bin",
        "../scene/../data%20dir/two%20skins.bin",
    ] {
        let bytes = with_uri(json.clone(), uri);
        let gltf = tmp.0.join("scene/x.gltf");
        std::fs::write(&gltf, &bytes).unwrap();
        let from_dir = load_path(&gltf, &opts()).unwrap();
        assert_eq!(from_dir, reference, "{uri} from the directory");
        // The page keys the file by the URI as written, or by any spelling of the same path.
        for key in [uri, "../data dir/two skins.bin"] {
            let files: FileMap = [(key, bin.clone())].into_iter().collect();
            let from_map = load_slice_with_files(&bytes, files, &opts()).unwrap();
            assert_eq!(from_map, reference, "{uri} from a map keyed {key:?}");
        }
        // `../` is not dropped: the file beside the `.gltf` is another file.
        let files: FileMap = [("data dir/two skins.bin", bin.clone())]
            .into_iter()
            .collect();
        let err = load_slice_with_files(&bytes, files, &opts()).unwrap_err();
        assert!(missing_buffer(&err).1.contains(uri), "{uri}: {err}");
    }
}

/// An absolute path replaces the directory (as `Path::join` does), and is a key of its own in
/// a map.
#[test]
fn absolute_uris_resolve_as_in_the_directory() {
    let (json, bin) = two_skins();
    let tmp = TempDir::new("absolute");
    let file = tmp.0.join("two_skins.bin");
    std::fs::write(&file, &bin).unwrap();
    let uri = file.to_str().unwrap().to_owned();
    if !uri.starts_with('/') {
        return; // A Windows path is not a URI path.
    }
    let bytes = with_uri(json, &uri);
    let elsewhere = tmp.0.join("elsewhere");
    let from_dir = load_slice(&bytes, Some(&elsewhere), &opts()).unwrap();
    let files: FileMap = [(uri.as_str(), bin.clone())].into_iter().collect();
    let from_map = load_slice_with_files(&bytes, files, &opts()).unwrap();
    assert_eq!(from_map, from_dir);
    let files: FileMap = [("two_skins.bin", bin)].into_iter().collect();
    let err = load_slice_with_files(&bytes, files, &opts()).unwrap_err();
    assert!(missing_buffer(&err).1.contains(&uri), "{err}");
}

/// A source's own error reaches the caller unchanged.
#[derive(Debug)]
struct Refusing;

impl ExternalFiles for Refusing {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, GltfError> {
        Err(GltfError::Io {
            path: PathBuf::from(path),
            source: std::io::Error::other("refused"),
        })
    }
}

#[test]
fn a_sources_error_is_passed_on_and_a_directory_is_a_source() {
    let (json, bin) = two_skins();
    let bytes = with_uri(json, "two%20skins.bin");
    let err = GltfDocument::from_slice_with_files(&bytes, Refusing).unwrap_err();
    assert!(
        matches!(&err, GltfError::Io { path, .. } if path == Path::new("two skins.bin")),
        "{err}"
    );
    let tmp = TempDir::new("dir-source");
    std::fs::write(tmp.0.join("two skins.bin"), &bin).unwrap();
    let doc = GltfDocument::from_slice_with_files(&bytes, tmp.0.clone()).unwrap();
    assert_eq!(doc.buffer(0).unwrap(), &bin[..940]);
    assert!(doc.external_files().is_some());
    // A directory without the file: the I/O error names the joined path.
    let empty = TempDir::new("dir-empty");
    let err = GltfDocument::from_slice_with_files(&bytes, empty.0.clone()).unwrap_err();
    assert!(
        matches!(&err, GltfError::Io { path, .. } if *path == empty.0.join("two skins.bin")),
        "{err}"
    );
}

fn decoded(asset: &GltfAsset) -> Vec<Option<&skel_gltf::DecodedImage>> {
    asset
        .images
        .iter()
        .map(|slot| match slot {
            ImageSlot::Decoded(img) => Some(img),
            _ => None,
        })
        .collect()
}

/// Images named by URI are read from the map when decoded, as from the directory.
#[test]
fn images_come_from_the_map_too() {
    let test = "images_come_from_the_map_too";
    let Some(dir) = skel_test_support::shared_asset(test, "Superhero_Male_FullBody") else {
        return;
    };
    let gltf = dir.join("Superhero_Male_FullBody.gltf");
    let from_dir = load_path(&gltf, &opts()).unwrap();
    assert!(
        decoded(&from_dir).iter().any(Option::is_some),
        "the directory load decodes no image: the test shows nothing"
    );
    let bytes = std::fs::read(&gltf).unwrap();
    let json: Value = serde_json::from_slice(&bytes).unwrap();
    let mut files = FileMap::new();
    let uris = json["buffers"].as_array().into_iter().flatten();
    let uris = uris.chain(json["images"].as_array().into_iter().flatten());
    for uri in uris.filter_map(|o| o["uri"].as_str()) {
        if let Ok(b) = std::fs::read(dir.join(uri)) {
            files.insert(uri, b);
        }
    }
    let from_map = load_slice_with_files(&bytes, files, &opts()).unwrap();
    assert_eq!(decoded(&from_map), decoded(&from_dir));
    assert_eq!(from_map.primitives, from_dir.primitives);
    assert_eq!(from_map.animation, from_dir.animation);
    // An image the map lacks is a failed slot naming its URI, not an error.
    let missing = from_map
        .images
        .iter()
        .zip(json["images"].as_array().unwrap());
    for (slot, image) in missing {
        if let ImageSlot::Failed { reason } = slot {
            assert!(reason.contains(image["uri"].as_str().unwrap()), "{reason}");
        }
    }
}
