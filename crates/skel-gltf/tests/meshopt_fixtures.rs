//! Every meshopt-compressed buffer view of every fixture (gltfpack `-cc`,
//! glTF-Transform `meshopt`, and any shared asset that uses the extension) decoded by
//! skel-gltf's Rust decoder and by meshoptimizer (the `meshopt` crate, C++): the unfiltered
//! streams are equal byte for byte, and so are the filtered views, except the components of
//! the two filters whose SSE decoder uses approximate reciprocals (8-bit octahedral and
//! colour), which may differ by one unit (the README's tolerance). The loader's view (what
//! `GltfDocument` points the buffer view at) is the Rust decoder's. Every attribute view is
//! also re-encoded in format 1 (the fixtures are format 0) at every encoder level and must
//! decode to the same bytes.
#![cfg(feature = "meshopt")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod meshopt_native;

use std::path::{Path, PathBuf};

use meshopt_native::{Filter, filtered_difference};
use skel_gltf::GltfDocument;
use skel_gltf::meshopt as rust;

/// What one file's views gave.
#[derive(Default, Debug)]
struct Tally {
    views: usize,
    bytes: usize,
    filtered_components_off_by_one: usize,
    reencoded: usize,
}

/// Decodes every meshopt view of `path` both ways and compares; returns the tally.
fn check_file(path: &Path) -> Tally {
    let doc = GltfDocument::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut tally = Tally::default();
    let views = doc.raw_json()["bufferViews"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (index, view) in views.iter().enumerate() {
        let Some(ext) = ["EXT_meshopt_compression", "KHR_meshopt_compression"]
            .iter()
            .find_map(|n| view.get("extensions").and_then(|e| e.get(*n)))
        else {
            continue;
        };
        let at = format!("{} bufferViews[{index}]", path.display());
        let size = |k: &str| usize::try_from(ext[k].as_u64().unwrap_or(0)).unwrap();
        let (count, stride) = (size("count"), size("byteStride"));
        let (offset, length) = (size("byteOffset"), size("byteLength"));
        let stream = &doc.buffer(size("buffer")).unwrap()[offset..offset + length];
        let (mut ours, mut theirs) = match ext["mode"].as_str() {
            Some("ATTRIBUTES") => (
                rust::decode_vertex_buffer(stream, count, stride).unwrap(),
                meshopt_native::decode_vertices(stream, count, stride).unwrap(),
            ),
            Some("TRIANGLES") => (
                rust::decode_index_buffer(stream, count, stride).unwrap(),
                meshopt_native::decode_triangles(stream, count, stride).unwrap(),
            ),
            Some("INDICES") => (
                rust::decode_index_sequence(stream, count, stride).unwrap(),
                meshopt_native::decode_sequence(stream, count, stride).unwrap(),
            ),
            other => panic!("{at}: mode {other:?}"),
        };
        assert!(ours == theirs, "{at}: the streams decode differently");
        if ext["mode"] == "ATTRIBUTES" {
            // The fixtures are all format 0 (gltfpack writes EXT_meshopt_compression): their
            // data re-encoded in format 1 at every level is real data for its channel modes.
            for level in 0..=3 {
                let again = meshopt_native::encode_vertices(&ours, stride, level, 1);
                let decoded = rust::decode_vertex_buffer(&again, count, stride).unwrap();
                assert!(decoded == ours, "{at}: format 1 level {level}");
                tally.reencoded += 1;
            }
        }
        if let Some(filter) = Filter::from_name(ext["filter"].as_str()) {
            filter.rust(&mut ours, stride).unwrap();
            filter.native(&mut theirs, stride);
            let (worst, differ) = filtered_difference(filter, stride, &ours, &theirs);
            assert!(
                worst <= filter.tolerance(stride),
                "{at}: {filter:?} off by {worst} in {differ} components"
            );
            tally.filtered_components_off_by_one += differ;
        }
        // What the loader left in the document is the Rust decoder's output.
        let target = doc.json().buffer_views[index].buffer.value();
        assert!(
            doc.buffer(target).unwrap() == ours.as_slice(),
            "{at}: the loader's view"
        );
        tally.views += 1;
        tally.bytes += ours.len();
    }
    tally
}

/// The files of `dir` (recursively) whose JSON names a meshopt extension.
fn meshopt_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            meshopt_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "glb" || x == "gltf") {
            let bytes = std::fs::read(&path).unwrap();
            if bytes.windows(15).any(|w| w == b"meshopt_compres") {
                out.push(path);
            }
        }
    }
}

#[test]
fn every_fixture_view_decodes_as_meshoptimizer_decodes_it() {
    let peer = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/peer"));
    let mut files = Vec::new();
    meshopt_files(&peer, &mut files);
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for expected in [
        "character_gltfpack_cc.glb",
        "character_meshopt.glb",
        "textured_gltfpack_cc.glb",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not found in {names:?}"
        );
    }
    if let Some(assets) = skel_test_support::shared("meshopt_fixtures", "assets") {
        meshopt_files(&assets, &mut files);
    }
    let mut total = Tally::default();
    for file in &files {
        let t = check_file(file);
        assert!(t.views > 0, "{}: no meshopt view", file.display());
        eprintln!("{}: {t:?}", file.display());
        total.views += t.views;
        total.bytes += t.bytes;
        total.filtered_components_off_by_one += t.filtered_components_off_by_one;
        total.reencoded += t.reencoded;
    }
    eprintln!("{} files, {total:?}", files.len());
}
