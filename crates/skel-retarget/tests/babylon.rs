//! Against Babylon.js itself: `scripts/peer/retarget.mjs` ran `retargetAnimationGroup` with the
//! same maps and options on the same assets and wrote the target joints' world transforms
//! (goldens under `tests/golden/`). Tolerances: 1e-4 of the target's height on joint positions,
//! 1e-3 rad on rotations.

mod common;

use std::path::PathBuf;

use glam::{Quat, Vec3};
use serde::Deserialize;
use skel_anim::{AnimationData, PoseScratch, apply_clip, compute_world_matrices};
use skel_retarget::{NodeMap, RetargetOptions, retarget, with_clips};

#[derive(Deserialize)]
struct Golden {
    source: String,
    target: String,
    root: String,
    ground: String,
    times: Vec<f32>,
    map: std::collections::BTreeMap<String, String>,
    clips: Vec<GoldenClip>,
}

#[derive(Deserialize)]
struct GoldenClip {
    name: String,
    root_fixed: bool,
    /// Per time: joint name → world translation (3) and rotation (4).
    samples: Vec<std::collections::BTreeMap<String, [f32; 7]>>,
}

fn rig(test: &str, rel: &str) -> Option<AnimationData> {
    if rel.starts_with("fixtures/") {
        return Some(common::character());
    }
    common::asset(test, rel)
}

/// The height of a rig: the extent of its skin joints' rest world positions along y.
fn height(data: &AnimationData) -> f32 {
    let mut scratch = PoseScratch::new(data).unwrap_or_else(|e| panic!("{e}"));
    compute_world_matrices(data, &mut scratch);
    let ys: Vec<f32> = data
        .skeletons
        .iter()
        .flat_map(|s| &s.joints)
        .map(|&j| scratch.world[j].w_axis.y)
        .collect();
    ys.iter().copied().fold(f32::MIN, f32::max) - ys.iter().copied().fold(f32::MAX, f32::min)
}

/// The angle between two rotations, in `f64` and without `acos` (which near 1 resolves only
/// steps of about 5e-4 rad in `f32`).
fn angle(a: Quat, b: Quat) -> f32 {
    let d = a.as_dquat().normalize().inverse() * b.as_dquat().normalize();
    (2.0 * d.xyz().length().atan2(d.w.abs())) as f32
}

fn compare(case: &str) {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden"))
        .join(format!("{case}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let golden: Golden = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let test = format!("babylon::{case}");
    let (Some(source), Some(target)) = (rig(&test, &golden.source), rig(&test, &golden.target))
    else {
        return;
    };
    let map = NodeMap::from_names(
        &source,
        &target,
        golden.map.iter().map(|(t, s)| (t.as_str(), s.as_str())),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tolerance = 1e-4 * height(&target);
    let mut worst = (0.0f32, 0.0f32);
    for clip in &golden.clips {
        let options = RetargetOptions {
            fix_root_position: clip.root_fixed,
            root: Some(golden.root.clone()),
            ground: Some(golden.ground.clone()),
            clips: Some(vec![clip.name.clone()]),
            ..RetargetOptions::default()
        };
        let baked = retarget(&source, &target, &map, &options).unwrap_or_else(|e| panic!("{e}"));
        let mut data = with_clips(&target, baked);
        // The retargeted clip under a name of its own (an unnamed source clip would be "").
        data.clips
            .last_mut()
            .unwrap_or_else(|| panic!("no clip"))
            .name = "retargeted".into();
        let index = data
            .clip_index("retargeted")
            .unwrap_or_else(|| panic!("no clip"));
        let mut scratch = PoseScratch::new(&data).unwrap_or_else(|e| panic!("{e}"));
        for (&t, sample) in golden.times.iter().zip(&clip.samples) {
            apply_clip(&data, index, t, &mut scratch);
            compute_world_matrices(&data, &mut scratch);
            for (name, v) in sample {
                let node = data
                    .nodes
                    .iter()
                    .position(|n| &n.name == name)
                    .unwrap_or_else(|| panic!("{name}"));
                let (_, r, p) = scratch.world[node].to_scale_rotation_translation();
                let dp = (p - Vec3::new(v[0], v[1], v[2])).length();
                let dr = angle(r, Quat::from_xyzw(v[3], v[4], v[5], v[6]));
                worst = (worst.0.max(dp / tolerance * 1e-4), worst.1.max(dr));
                assert!(
                    dp <= tolerance,
                    "{case} {:?} t={t} {name}: position off by {dp} (tolerance {tolerance})",
                    clip.name
                );
                assert!(
                    dr <= 1e-3,
                    "{case} {:?} t={t} {name}: rotation off by {dr} rad",
                    clip.name
                );
            }
        }
    }
    eprintln!(
        "{case}: worst position error {:.2e} of the height, rotation {:.2e} rad",
        worst.0, worst.1
    );
}

#[test]
fn robot_expressive_onto_superhero() {
    compare("robot_to_superhero");
}

#[test]
fn built_in_character_onto_superhero() {
    compare("character_to_superhero");
}

#[test]
fn cesium_man_onto_rigged_figure() {
    compare("cesium_man_to_rigged_figure");
}

#[test]
fn rigged_figure_onto_cesium_man() {
    compare("rigged_figure_to_cesium_man");
}
