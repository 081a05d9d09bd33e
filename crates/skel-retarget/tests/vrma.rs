//! `.vrma` clips (`fixtures/vrm/walk.vrma`, `walk_tall.vrma`) retargeted with
//! [`retarget_vrma`] onto VRM 1.0 and 0.x fixture avatars and onto a non-VRM character through
//! the auto-map, checked by posing both rigs (forward kinematics in `f64`) at sampled times.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[path = "vrma/three.rs"]
mod three;

use std::path::PathBuf;

use glam::{DMat4, DQuat, DVec3};
use skel_anim::{
    AnimationData, ChannelPath, Clip, Handedness, compute_topo_order, evaluate_sampler,
};
use skel_gltf::vrm::{HumanBone, humanoid_parent};
use skel_gltf::{GltfAsset, LoadOptions, load_path};
use skel_retarget::{RetargetError, Vrma, retarget_vrma, vrma_pairs};

fn opts() -> LoadOptions {
    LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    }
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../fixtures/vrm/{name}"))
}

fn vrma(name: &str) -> Vrma {
    Vrma::load_path(&fixture(name), &opts()).unwrap()
}

fn avatar(name: &str) -> GltfAsset {
    load_path(&fixture(name), &opts()).unwrap()
}

/// World matrices of every node of `data` with `clip` applied at `t` (rest elsewhere).
fn world_at(data: &AnimationData, clip: &Clip, t: f32) -> Vec<DMat4> {
    let mut local: Vec<(DVec3, DQuat, DVec3)> = data
        .nodes
        .iter()
        .map(|n| {
            (
                glam::Vec3::from(n.translation).as_dvec3(),
                glam::Quat::from_array(n.rotation).as_dquat().normalize(),
                glam::Vec3::from(n.scale).as_dvec3(),
            )
        })
        .collect();
    for ch in &clip.channels {
        let s = &clip.samplers[ch.sampler];
        let mut v = [0.0f32; 4];
        match ch.path {
            ChannelPath::Translation => {
                evaluate_sampler(s, t, 3, false, &mut v, 0);
                local[ch.node].0 = glam::Vec3::from_slice(&v).as_dvec3();
            }
            ChannelPath::Rotation => {
                evaluate_sampler(s, t, 4, true, &mut v, 0);
                local[ch.node].1 = glam::Quat::from_array(v).as_dquat().normalize();
            }
            _ => {}
        }
    }
    let mut world = vec![DMat4::IDENTITY; data.nodes.len()];
    for n in compute_topo_order(&data.nodes).unwrap() {
        let (t, r, s) = local[n];
        let m = DMat4::from_scale_rotation_translation(s, r, t);
        world[n] = data.nodes[n].parent.map_or(m, |p| world[p] * m);
    }
    world
}

fn rotation(m: DMat4) -> DQuat {
    m.to_scale_rotation_translation().1.normalize()
}

fn angle(a: DQuat, b: DQuat) -> f64 {
    2.0 * a.dot(b).abs().min(1.0).acos()
}

const TIMES: [f32; 7] = [0.0, 0.13, 0.25, 0.4, 0.5, 0.77, 1.0];

/// The world turn of every paired bone from its rest, on the avatar and in the `.vrma`
/// (turned half round y for a VRM 0.x avatar), must agree; and the hips' world position must
/// be the `.vrma`'s scaled by the hips heights' ratio. Returns that ratio.
fn check_motion(src: &Vrma, target: &GltfAsset, half_turn: bool, tol: f64) -> f64 {
    let clips = retarget_vrma(src, target).unwrap();
    let pairs = vrma_pairs(src, target).unwrap();
    let (sd, td) = (&src.asset.animation, &target.animation);
    let empty = Clip::new("rest", Vec::new(), Vec::new());
    let (s_rest, t_rest) = (world_at(sd, &empty, 0.0), world_at(td, &empty, 0.0));
    let flip = if half_turn {
        DQuat::from_rotation_y(std::f64::consts::PI)
    } else {
        DQuat::IDENTITY
    };
    let hips = pairs.iter().find(|p| p.bone == HumanBone::Hips).unwrap();
    let ratio = t_rest[hips.target].w_axis.y / s_rest[hips.source].w_axis.y;
    for &t in &TIMES {
        let (sw, tw) = (world_at(sd, &sd.clips[0], t), world_at(td, &clips[0], t));
        for p in &pairs {
            // Three-vrm-animation measures each bone against its humanoid parent: the
            // `.vrma`'s rig has nothing between them, so this is its world turn.
            let s_turn = flip
                * rotation(sw[p.source])
                * rotation(s_rest[p.source]).inverse()
                * flip.inverse();
            let t_turn = rotation(tw[p.target]) * rotation(t_rest[p.target]).inverse();
            let err = angle(s_turn, t_turn);
            assert!(err < tol, "{:?} at {t}: {err} rad", p.bone);
        }
        let s_hips = flip * sw[hips.source].w_axis.truncate();
        let t_hips = tw[hips.target].w_axis.truncate();
        assert!(
            (t_hips - ratio * s_hips).length() < tol,
            "hips at {t}: {t_hips} vs {ratio} × {s_hips}"
        );
    }
    ratio
}

#[test]
fn on_the_same_rig_the_clip_is_the_source_clip() {
    let src = vrma("walk.vrma");
    let target = avatar("v1_expressions.vrm");
    let clips = retarget_vrma(&src, &target).unwrap();
    let (ours, theirs) = (&clips[0], &src.asset.animation.clips[0]);
    let bones: Vec<usize> = src.animation.human_bones.values().copied().collect();
    let mut compared = 0;
    for ch in theirs.channels.iter().filter(|c| bones.contains(&c.node)) {
        let mine = ours
            .channels
            .iter()
            .find(|c| c.node == ch.node && c.path == ch.path)
            .unwrap_or_else(|| panic!("no channel for node {} {:?}", ch.node, ch.path));
        let (a, b) = (&theirs.samplers[ch.sampler], &ours.samplers[mine.sampler]);
        assert_eq!(a.input(), b.input());
        for (x, y) in a.output().iter().zip(b.output()) {
            assert!(
                (x - y).abs() < 1e-5,
                "node {} {:?}: {x} vs {y}",
                ch.node,
                ch.path
            );
        }
        compared += 1;
    }
    // 19 bones rotated, the hips translated.
    assert_eq!(compared, 20);
    assert_eq!(check_motion(&src, &target, false, 1e-5), 1.0);
}

#[test]
fn another_rest_and_height_give_the_same_normalized_motion() {
    let tall = vrma("walk_tall.vrma");
    let target = avatar("v1_expressions.vrm");
    // The tall rig's hips stand at 1.25 m, the avatar's at 1 m.
    let ratio = check_motion(&tall, &target, false, 1e-5);
    assert!((ratio - 0.8).abs() < 1e-6, "{ratio}");
    // So on the avatar both clips are one clip.
    let a = &retarget_vrma(&tall, &target).unwrap()[0];
    let b = &retarget_vrma(&vrma("walk.vrma"), &target).unwrap()[0];
    for &t in &TIMES {
        let (wa, wb) = (
            world_at(&target.animation, a, t),
            world_at(&target.animation, b, t),
        );
        for n in 0..20 {
            let d = (wa[n].w_axis - wb[n].w_axis).length();
            assert!(d < 1e-5, "node {n} at {t}: {d} m apart");
        }
    }
}

#[test]
fn bone_directions_follow_the_source_on_a_scaled_avatar() {
    let src = vrma("walk_tall.vrma");
    let target = avatar("v1_scaled_root.vrm");
    // Hips at 2 m under the scale-2 root.
    let ratio = check_motion(&src, &target, false, 1e-5);
    assert!((ratio - 1.6).abs() < 1e-6, "{ratio}");
    // Directions from each bone to its humanoid child, in world space.
    let pairs = vrma_pairs(&src, &target).unwrap();
    let clips = retarget_vrma(&src, &target).unwrap();
    for &t in &TIMES {
        let sw = world_at(&src.asset.animation, &src.asset.animation.clips[0], t);
        let tw = world_at(&target.animation, &clips[0], t);
        let mut checked = 0;
        for c in &pairs {
            // The nearest humanoid ancestor the rig maps (no shoulders, no upperChest here).
            let mut up = humanoid_parent(c.bone);
            while let Some(b) = up.filter(|b| !pairs.iter().any(|p| p.bone == *b)) {
                up = humanoid_parent(b);
            }
            let Some(p) = up.and_then(|up| pairs.iter().find(|p| p.bone == up)) else {
                continue;
            };
            let dir = |w: &[DMat4], a: usize, b: usize| {
                (w[b].w_axis - w[a].w_axis).truncate().normalize()
            };
            let (ds, dt) = (dir(&sw, p.source, c.source), dir(&tw, p.target, c.target));
            assert!(
                ds.angle_between(dt) < 1e-4,
                "{:?} at {t}: {ds} vs {dt}",
                c.bone
            );
            checked += 1;
        }
        assert_eq!(checked, 18);
    }
}

#[test]
fn a_vrm0_avatar_faces_the_other_way_and_is_turned_half_round() {
    let src = vrma("walk.vrma");
    let target = avatar("v0_expressions.vrm");
    assert_eq!(check_motion(&src, &target, true, 1e-5), 1.0);
    // Without the half turn the same check fails: the motion would run backwards.
    let turned = std::panic::catch_unwind(|| check_motion(&src, &target, false, 1e-5));
    assert!(turned.is_err());
}

#[test]
fn expression_weights_drive_the_avatars_morph_targets() {
    let src = vrma("walk.vrma");
    let target = avatar("v1_expressions.vrm");
    let clip = &retarget_vrma(&src, &target).unwrap()[0];
    let weights: Vec<_> = clip
        .channels
        .iter()
        .filter(|c| c.path == ChannelPath::Weights)
        .collect();
    assert_eq!(weights.len(), 1);
    let s = &clip.samplers[weights[0].sampler];
    let tracks = src
        .animation
        .expression_tracks(&src.asset.animation.clips[0]);
    let track = |name: &str, t: f32| {
        let (_, s) = tracks.iter().find(|(n, _)| n == name).unwrap();
        let mut v = [0.0f32];
        evaluate_sampler(s, t, 1, false, &mut v, 0);
        v[0]
    };
    for t in [0.0, 0.25, 0.3, 0.5, 0.61, 0.9] {
        let mut w = [0.0f32; 3];
        evaluate_sampler(s, t, 3, false, &mut w, 0);
        // happy → target 0 (weight 1); blink → 1 (1); smirk → 0 (0.5) and 2 (0.25).
        let want = [
            track("happy", t) + 0.5 * track("smirk", t),
            track("blink", t),
            0.25 * track("smirk", t),
        ];
        for k in 0..3 {
            assert!(
                (w[k] - want[k]).abs() < 1e-6,
                "t {t} target {k}: {} vs {}",
                w[k],
                want[k]
            );
        }
    }
    assert!(track("happy", 0.5) > 0.99);
}

#[test]
fn a_non_vrm_character_plays_through_the_auto_map() {
    let Some(path) = skel_test_support::shared_asset(
        "a_non_vrm_character_plays_through_the_auto_map",
        "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf",
    ) else {
        return;
    };
    let target = load_path(&path, &opts()).unwrap();
    assert!(target.vrm().is_none());
    let src = vrma("walk_tall.vrma");
    let pairs = vrma_pairs(&src, &target).unwrap();
    // Every humanoid bone of the clip but the eyes has a joint on the character.
    let bones: Vec<HumanBone> = pairs.iter().map(|p| p.bone).collect();
    assert_eq!(bones.len(), 17, "{bones:?}");
    let ratio = check_motion(&src, &target, false, 1e-4);
    assert!(ratio > 0.5 && ratio < 1.2, "{ratio}");
}

#[test]
fn a_vrma_without_hips_height_is_refused() {
    let mut src = vrma("walk.vrma");
    src.asset.animation.nodes[1].translation[1] = 0.0;
    let e = retarget_vrma(&src, &avatar("v1_minimal.vrm")).unwrap_err();
    assert!(matches!(e, RetargetError::VrmaHips { .. }), "{e}");
}
