#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! A `.gltf` whose buffer is a sibling file, loaded from its bytes and a map of URI → bytes
//! (what the npm package's `SkelAsset.fromGltf` passes after fetching the siblings): it plays
//! its clip exactly as skel's own player does on the same file read from its directory, and a
//! sibling left out is a typed error naming its URI.

use std::path::{Path, PathBuf};

use skel_anim::Handedness;
use skel_gltf::GltfError;
use skel_js::{Asset, FileMap, JsApiError};

mod common;
use common::mats;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    let path = fixture(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_gltf_with_its_bin_in_a_map_plays_as_from_its_directory() {
    let gltf = read("two_skins.gltf");
    let files: FileMap = [("two_skins.bin", read("two_skins.bin"))]
        .into_iter()
        .collect();
    let asset = Asset::from_gltf(&gltf, files, Handedness::RightHanded).unwrap();
    assert_eq!(asset.skeleton_count(), 2);
    let clip = asset.clip_named("Both").unwrap();
    let mut animator = asset.animator();
    animator.play(clip, true).unwrap();

    // skel's own player over the same file, its buffer read from the fixtures directory.
    let direct = skel_gltf::load_path(&fixture("two_skins.gltf"), &common::options()).unwrap();
    let (mut player, mut sink) = common::reference_player(direct, clip);

    let rest: Vec<Vec<f32>> = (0..asset.skeleton_count())
        .map(|b| animator.bone_matrices(b).unwrap().to_vec())
        .collect();
    for _ in 0..20 {
        animator.tick(1.0 / 30.0);
        player.tick(1.0 / 30.0, &mut sink);
    }
    for (binding, rest) in rest.iter().enumerate() {
        let ours = animator.bone_matrices(binding).unwrap();
        assert!(ours.iter().all(|v| v.is_finite()), "binding {binding}");
        assert_eq!(mats(ours), sink.bone_matrices[binding], "binding {binding}");
        // The clip moved this skeleton: equality at rest would prove nothing.
        let max = rest
            .iter()
            .zip(ours)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(max > 1e-3, "binding {binding} stayed at rest ({max})");
    }
    assert_eq!(mats(animator.world_matrices()), player.world_matrices());
}

#[test]
fn a_sibling_left_out_is_an_error_naming_its_uri() {
    let gltf = read("two_skins.gltf");
    let mut files = FileMap::new();
    files.insert("other.bin", read("two_skins.bin"));
    let err = Asset::from_gltf(&gltf, files, Handedness::RightHanded).unwrap_err();
    let JsApiError::Gltf(GltfError::MissingBuffer { buffer: 0, reason }) = &err else {
        panic!("expected a missing buffer, got {err}");
    };
    assert!(reason.contains("\"two_skins.bin\""), "{reason}");
    assert!(err.to_string().contains("two_skins.bin"), "{err}");
    // Without files, `from_bytes` cannot find it either.
    assert!(matches!(
        Asset::from_bytes(&gltf, Handedness::RightHanded),
        Err(JsApiError::Gltf(GltfError::MissingBuffer { buffer: 0, .. }))
    ));
}
