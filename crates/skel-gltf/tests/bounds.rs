//! `CharacterBounds` against the CPU reference: for every clip of every shared asset at 120 Hz,
//! every skinned and morphed vertex lies inside the box the per-joint spheres give; how tight
//! the boxes are (their volume over the exact vertex box's) is printed per asset. The bone
//! spheres boxed under the skins' bone matrices (what a crowd holds) hold every skinned vertex
//! too.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use skel_anim::glam::{DVec3, Vec3};
use skel_gltf::{CharacterBounds, CpuPoser, LoadOptions, carried_spheres_box, load_path};

#[test]
fn every_vertex_of_every_clip_lies_in_the_box() {
    let Some(shared) = common::shared_dir("every_vertex_of_every_clip_lies_in_the_box") else {
        return;
    };
    let (mut checked, mut bone_checked) = (0_usize, 0_usize);
    for file in common::asset_files(&shared.join("assets")) {
        let asset = load_path(&file, &LoadOptions::default()).unwrap();
        if asset.primitives.is_empty() {
            continue;
        }
        let bounds = CharacterBounds::new(&asset);
        let mut poser = CpuPoser::new(&asset).unwrap();
        let mut ratios: Vec<f64> = Vec::new();
        let clips: Vec<Option<usize>> = if asset.animation.clips.is_empty() {
            vec![None]
        } else {
            (0..asset.animation.clips.len()).map(Some).collect()
        };
        for clip in clips {
            let duration = clip.map_or(0.0, |c| asset.animation.clips[c].duration());
            let frames = (duration * 120.0).ceil() as usize;
            for f in 0..=frames {
                let time = f as f32 / 120.0;
                poser.pose(&asset, clip, time).unwrap();
                let (min, max) = bounds
                    .world_box(poser.node_world_matrices())
                    .expect("an asset with primitives has a box");
                // Rounding of the skinning sums: a millionth of the box's size.
                let slack = Vec3::splat(1e-6 * (max - min).length().max(1e-6));
                // The bone spheres under the bone matrices of their bindings' skins.
                let bindings = &asset.animation.skeletons;
                let bone_box = carried_spheres_box(bounds.bone_spheres().filter_map(|s| {
                    let skin = bindings.get(s.binding)?.skin;
                    Some((poser.skin_matrices(skin)?.get(s.joint)?, s.center, s.radius))
                }));
                let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
                for p in 0..asset.primitives.len() {
                    let skinned = asset.primitives[p].skeleton_binding.is_some();
                    for &v in poser.positions(p).unwrap() {
                        if !v.is_finite() {
                            continue;
                        }
                        assert!(
                            v.cmpge(min - slack).all() && v.cmple(max + slack).all(),
                            "{}: clip {clip:?} at {time} s: primitive {p} vertex {v} outside \
                             {min}..{max}",
                            file.display()
                        );
                        if skinned {
                            let (bmin, bmax) = bone_box.expect("skinned vertices, bone spheres");
                            assert!(
                                v.cmpge(bmin - slack).all() && v.cmple(bmax + slack).all(),
                                "{}: clip {clip:?} at {time} s: skinned vertex {v} of \
                                 primitive {p} outside the bone spheres' {bmin}..{bmax}",
                                file.display()
                            );
                            bone_checked += 1;
                        }
                        lo = lo.min(v);
                        hi = hi.max(v);
                        checked += 1;
                    }
                }
                let volume = |a: Vec3, b: Vec3| {
                    let d = (b - a).as_dvec3().max(DVec3::splat(1e-6));
                    d.x * d.y * d.z
                };
                ratios.push(volume(min, max) / volume(lo, hi));
            }
        }
        ratios.sort_by(f64::total_cmp);
        eprintln!(
            "{}: {} parts, box volume over the vertices' box: median {:.2}, worst {:.2} ({} poses)",
            file.file_name().unwrap().to_string_lossy(),
            bounds.part_count(),
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1],
            ratios.len()
        );
    }
    assert!(checked > 0, "no vertex checked");
    assert!(
        bone_checked > 0,
        "no skinned vertex checked against the bone spheres"
    );
}
