//! `PickFilter` never turns away a ray that hits a skinned triangle: on every shared asset with
//! skinned geometry, posed at several times of each clip, every corner of every skinned
//! triangle lies in its group's box, and random rays aimed at random inner
//! points of random skinned triangles (half of them near a corner; from random directions, starting well outside the
//! character) are all let through; and the filter does turn away rays that cross the
//! character's box while missing every triangle (how many is printed), so that it saves work.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use skel_anim::glam::{Mat4, Vec3};
use skel_gltf::{CharacterBounds, CpuPoser, GltfAsset, LoadOptions, PickFilter, load_path, pick};

/// Every skinned triangle of the posed asset whose corners are finite: primitive, triangle,
/// its three corners.
fn skinned_triangles(asset: &GltfAsset, poser: &CpuPoser) -> Vec<(usize, usize, [Vec3; 3])> {
    common::posed_triangles(asset, poser, |prim| prim.skeleton_binding.is_some())
        .into_iter()
        .filter(|(_, _, tri)| tri.iter().all(|v| v.is_finite()))
        .collect()
}

/// The bone matrix of `(binding, joint)` in `poser`'s pose (`jointWorld · inverseBind`, what
/// carries the joint's mesh-space sphere to the skinned vertices' world).
fn bone(asset: &GltfAsset, poser: &CpuPoser, binding: usize, joint: usize) -> Option<Mat4> {
    let skin = asset.animation.skeletons.get(binding)?.skin;
    poser.skin_matrices(skin)?.get(joint).copied()
}

#[test]
fn rays_at_skinned_triangles_are_never_filtered_out() {
    let Some(shared) = common::shared_dir("rays_at_skinned_triangles_are_never_filtered_out")
    else {
        return;
    };
    let mut assets = 0;
    for file in common::asset_files(&shared.join("assets")) {
        let asset = load_path(&file, &LoadOptions::default()).unwrap();
        if !asset
            .primitives
            .iter()
            .any(|p| p.skeleton_binding.is_some() && p.influences.is_some())
        {
            continue;
        }
        let bounds = CharacterBounds::new(&asset);
        let filter = PickFilter::new(&asset.primitives);
        assert!(filter.is_complete(), "{}: incomplete", file.display());
        assets += 1;
        let mut poser = CpuPoser::new(&asset).unwrap();
        let mut boxes = Vec::new();
        let clips = asset.animation.clips.len().max(1);
        let (mut aimed, mut crossing, mut turned_away) = (0_usize, 0_usize, 0_usize);
        for clip in 0..clips {
            let clip_index = (!asset.animation.clips.is_empty()).then_some(clip);
            let duration = clip_index.map_or(0.0, |c| asset.animation.clips[c].duration());
            for k in 0..4 {
                let time = duration * k as f32 / 4.0 + 0.013;
                poser.pose(&asset, clip_index, time).unwrap();
                let tris = skinned_triangles(&asset, &poser);
                if tris.is_empty() {
                    continue;
                }
                let (min, max) = bounds.world_box(poser.node_world_matrices()).unwrap();
                let size = (max - min).length();
                let matrix = |b: usize, j: usize| bone(&asset, &poser, b, j);
                // Every corner of every skinned triangle lies in its group's box (a millionth
                // of the character's size allowed for the skinning sums' rounding).
                let mut scratch = Vec::new();
                filter.set_matrices(matrix, &mut scratch);
                let slack = Vec3::splat(1e-6 * size);
                for &(p, t, tri) in &tris {
                    let group = filter
                        .group_of(p, t)
                        .expect("a skinned triangle has a group");
                    let (lo, hi) = filter.group_box(group, &scratch).unwrap();
                    for v in tri {
                        assert!(
                            v.cmpge(lo - slack).all() && v.cmple(hi + slack).all(),
                            "{}: clip {clip} at {time}: primitive {p} triangle {t}: corner {v} \
                             outside its group's box {lo}..{hi}",
                            file.display()
                        );
                    }
                }
                let mut runner = TestRunner::new(Config {
                    cases: 128,
                    failure_persistence: None,
                    ..Config::default()
                });
                // Half the rays aim near a corner (the corners farthest from a group's
                // centre set its sphere's radius), half anywhere inside.
                let case = (
                    0..tris.len(),
                    0..6_usize,
                    0.001_f32..0.96,
                    0.001_f32..0.96,
                    (-1.0_f32..1.0, -1.0_f32..1.0, -1.0_f32..1.0),
                );
                runner
                    .run(&case, |(t, mode, u, v, (dx, dy, dz))| {
                        let (u, v) = if mode < 3 {
                            (u * 0.01, v * 0.01)
                        } else if u + v > 0.98 {
                            (u / 2.0, v / 2.0)
                        } else {
                            (u, v)
                        };
                        let mut tri = tris[t].2;
                        tri.rotate_left(mode % 3);
                        let [a, b, c] = tri;
                        let aim = a + (b - a) * u + (c - a) * v;
                        let d = Vec3::new(dx, dy, dz).normalize_or(Vec3::Z);
                        let origin = aim - d * (2.0 * size + 1.0);
                        prop_assert!(
                            filter.may_hit(matrix, origin, d, &mut Vec::new()),
                            "{}: clip {clip} at {time}: a ray at triangle {t} ({a} {b} {c}) \
                             through {aim} turned away",
                            file.display()
                        );
                        Ok(())
                    })
                    .unwrap();
                aimed += 128;
                // Rays across the box along its axes, through random points inside: the ones
                // that hit nothing skinned may be turned away.
                let mut s = 0x9e37_79b9_u64 ^ ((clip as u64) << 8) ^ k as u64;
                let mut r = || {
                    s = s
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    (s >> 40) as f32 / (1_u64 << 24) as f32
                };
                for _ in 0..64 {
                    let inside = min + (max - min) * Vec3::new(r(), r(), r());
                    let axis = (r() * 6.0) as usize % 6;
                    let d = [
                        Vec3::X,
                        Vec3::Y,
                        Vec3::Z,
                        Vec3::NEG_X,
                        Vec3::NEG_Y,
                        Vec3::NEG_Z,
                    ][axis];
                    let origin = inside - d * (2.0 * size + 1.0);
                    let hit = pick(&asset, &poser, None, origin, d).unwrap();
                    let skinned_hit = hit
                        .is_some_and(|h| asset.primitives[h.primitive].skeleton_binding.is_some());
                    let may = filter.may_hit(matrix, origin, d, &mut boxes);
                    assert!(
                        may || !skinned_hit,
                        "{}: a ray hitting {hit:?} turned away",
                        file.display()
                    );
                    crossing += 1;
                    turned_away += usize::from(!may);
                }
            }
        }
        println!(
            "{}: {} groups; {aimed} aimed rays all let through; {turned_away} of {crossing} rays \
             across the box turned away",
            file.file_name().unwrap().to_string_lossy(),
            filter.group_count()
        );
        if file.to_string_lossy().contains("CesiumMan") {
            assert!(
                turned_away * 10 > crossing,
                "CesiumMan: the filter turns away only {turned_away} of {crossing}"
            );
        }
    }
    assert!(assets >= 3, "only {assets} skinned assets found");
}
