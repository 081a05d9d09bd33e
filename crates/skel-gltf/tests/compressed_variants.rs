//! The built-in character re-encoded by the peer tools (`fixtures/peer/`, written by
//! `scripts/peer/compressed/make_fixtures.sh`: gltfpack's default `KHR_mesh_quantization`
//! output, gltfpack `-cc` and glTF-Transform `meshopt` with the octahedral, quaternion and
//! exponential filters, and glTF-Transform `draco` over gltfpack's quantised output) loads and
//! poses like the original: at rest and in the middle of every clip, every skinned vertex of a
//! variant lies within the quantisation tolerance of one of the original's and the other way
//! round, and so does every triangle's centre (the indices). A decoder that returns wrong
//! bytes (a filter not undone, a stride off, indices scrambled) moves vertices by far more.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;

use glam::Vec3;
use skel_anim::Handedness;
use skel_gltf::{CpuPoser, GltfAsset, LoadOptions, load_path};

fn load(name: &str) -> GltfAsset {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures")).join(name);
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    load_path(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every vertex (world space) and every triangle centre of the asset, posed.
fn posed_points(
    asset: &GltfAsset,
    poser: &mut CpuPoser,
    clip: Option<usize>,
    t: f32,
) -> (Vec<Vec3>, Vec<Vec3>) {
    poser.pose(asset, clip, t).unwrap();
    let mut vertices = Vec::new();
    let mut centres = Vec::new();
    for (i, prim) in asset.primitives.iter().enumerate() {
        let p = poser.positions(i).unwrap();
        vertices.extend_from_slice(p);
        let indices: Vec<u32> = prim
            .indices
            .clone()
            .unwrap_or_else(|| (0..u32::try_from(p.len()).unwrap()).collect());
        for tri in indices.chunks_exact(3) {
            let c = tri.iter().map(|&k| p[k as usize]).sum::<Vec3>() / 3.0;
            centres.push(c);
        }
    }
    (vertices, centres)
}

/// The largest distance from a point of `a` to its nearest point of `b`.
fn directed_hausdorff(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter()
        .map(|p| {
            b.iter()
                .map(|q| p.distance_squared(*q))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
        .sqrt()
}

fn diagonal(points: &[Vec3]) -> f32 {
    let lo = points
        .iter()
        .copied()
        .fold(Vec3::splat(f32::INFINITY), Vec3::min);
    let hi = points
        .iter()
        .copied()
        .fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
    (hi - lo).length()
}

/// Compares `variant` with the original at rest and mid-clip; returns the worst distance as a
/// fraction of the original's diagonal.
fn worst_relative_distance(variant: &str) -> f32 {
    let original = load("default_character.glb");
    let other = load(variant);
    assert_eq!(
        other.animation.clips.len(),
        original.animation.clips.len(),
        "{variant}: clips"
    );
    assert!(
        other.primitives.iter().all(|p| p.influences.is_some()),
        "{variant}: skinned"
    );
    let mut po = CpuPoser::new(&original).unwrap();
    let mut pv = CpuPoser::new(&other).unwrap();
    let mut worst = 0.0f32;
    let mut cases = vec![(None, None, 0.0)];
    for (i, clip) in original.animation.clips.iter().enumerate() {
        let j = other
            .animation
            .clips
            .iter()
            .position(|c| c.name == clip.name)
            .unwrap_or_else(|| panic!("{variant}: no clip {}", clip.name));
        cases.push((Some(i), Some(j), clip.duration() * 0.37));
    }
    for (ci, cj, t) in cases {
        let (vo, co) = posed_points(&original, &mut po, ci, t);
        let (vv, cv) = posed_points(&other, &mut pv, cj, t);
        assert!(!vv.is_empty() && !cv.is_empty(), "{variant}: no geometry");
        let diag = diagonal(&vo);
        for d in [
            directed_hausdorff(&vv, &vo),
            directed_hausdorff(&vo, &vv),
            directed_hausdorff(&cv, &co),
            directed_hausdorff(&co, &cv),
        ] {
            worst = worst.max(d / diag);
        }
    }
    worst
}

/// gltfpack quantises positions to 14 bits and weights to 8 (glTF-Transform `meshopt` the same,
/// its filters 12–16 bits): the worst distance measured over the four variants is 3.3e-4 of
/// the diagonal (gltfpack `-cc`, clip `Run`); a Draco decode that scaled the 8-bit weights
/// wrongly measured 1.5e-2.
const TOLERANCE: f32 = 1e-3;

#[test]
fn gltfpack_default_quantised_output_poses_like_the_original() {
    let d = worst_relative_distance("peer/character_gltfpack.glb");
    assert!(d <= TOLERANCE, "worst distance {d} of the diagonal");
}

#[test]
fn gltfpack_cc_meshopt_output_poses_like_the_original() {
    let d = worst_relative_distance("peer/character_gltfpack_cc.glb");
    assert!(d <= TOLERANCE, "worst distance {d} of the diagonal");
}

#[test]
fn gltf_transform_meshopt_output_poses_like_the_original() {
    let d = worst_relative_distance("peer/character_meshopt.glb");
    assert!(d <= TOLERANCE, "worst distance {d} of the diagonal");
}

#[test]
fn gltf_transform_draco_output_poses_like_the_original() {
    let d = worst_relative_distance("peer/character_gltfpack_draco.glb");
    assert!(d <= TOLERANCE, "worst distance {d} of the diagonal");
}
