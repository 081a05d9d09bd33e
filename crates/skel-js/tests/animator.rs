#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! The bindings' Rust side on the native target: assets load, animators pose what skel's own
//! player poses, the pose buffers keep their address across ticks (what the JavaScript views
//! rely on), and bad input is an error, never a panic.

use std::path::Path;

use skel_anim::Handedness;
use skel_anim::glam::Mat4;
use skel_js::{Animator, Asset, JsApiError};

mod common;
use common::mats;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Plays `clip` for `steps` ticks of `dt` through skel-js and through a `Player` made here from
/// the same bytes, and checks that every skinning matrix, world matrix and morph weight is
/// finite and equal (the same pipeline: a difference means the bindings changed the pose).
fn same_as_player(bytes: &[u8], clip: usize, dt: f32, steps: usize) {
    let asset = Asset::from_bytes(bytes, Handedness::RightHanded).unwrap();
    let mut animator = asset.animator();
    animator.play(clip, true).unwrap();

    let direct = skel_gltf::load_slice(bytes, None, &common::options()).unwrap();
    let (mut player, mut sink) = common::reference_player(direct, clip);

    let rest = animator.bone_matrices(0).unwrap().to_vec();
    for _ in 0..steps {
        animator.tick(dt);
        player.tick(dt, &mut sink);
    }
    for binding in 0..asset.skeleton_count() {
        let ours = animator.bone_matrices(binding).unwrap();
        assert_eq!(
            ours.len(),
            asset.skeleton_joints(binding).unwrap().len() * 16
        );
        assert!(ours.iter().all(|v| v.is_finite()), "binding {binding}");
        assert_eq!(mats(ours), sink.bone_matrices[binding], "binding {binding}");
    }
    let world = animator.world_matrices();
    assert_eq!(world.len(), asset.node_count() * 16);
    assert!(world.iter().all(|v| v.is_finite()));
    assert_eq!(mats(world), player.world_matrices());
    for binding in 0..asset.morph_binding_count() {
        assert_eq!(
            animator.morph_weights(binding).unwrap(),
            sink.morph_weights[binding].as_slice()
        );
    }
    // The clip moved the skeleton: a check that would pass on the rest pose proves nothing.
    let moved = animator.bone_matrices(0).unwrap();
    let max = rest
        .iter()
        .zip(moved)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(
        max > 1e-3,
        "clip {clip} left the pose at rest (max change {max})"
    );
}

#[test]
fn default_character_poses_as_skels_player() {
    let bytes = fixture("default_character.glb");
    let asset = Asset::from_bytes(&bytes, Handedness::RightHanded).unwrap();
    same_as_player(&bytes, asset.clip_named("Walk").unwrap(), 1.0 / 60.0, 40);
    same_as_player(&bytes, asset.clip_named("Wave").unwrap(), 0.1, 7);
}

#[test]
fn shared_assets_pose_as_skels_player() {
    for (rel, clip) in [
        ("CesiumMan/CesiumMan.glb", 0),
        ("Fox/Fox.glb", 2),
        ("RobotExpressive/RobotExpressive.glb", 6),
    ] {
        let Some(path) = skel_test_support::shared_asset("shared_assets_pose_as_skels_player", rel)
        else {
            return;
        };
        same_as_player(&std::fs::read(path).unwrap(), clip, 1.0 / 30.0, 17);
    }
}

/// The built-in character (right-handed) playing `clip` from its start for `time` seconds:
/// the asset, its animator and the animator's world matrices.
fn default_character_at(clip: &str, time: f32) -> (Asset, Animator, Vec<Mat4>) {
    let bytes = fixture("default_character.glb");
    let asset = Asset::from_bytes(&bytes, Handedness::RightHanded).unwrap();
    let mut animator = asset.animator();
    animator
        .play(asset.clip_named(clip).unwrap(), true)
        .unwrap();
    animator.tick(time);
    let world = mats(animator.world_matrices());
    (asset, animator, world)
}

/// Bone `i` is `inverse(meshWorld) · world[joint i] · inverseBind[i]`: the world matrices and the
/// skinning matrices the views hand out agree with each other.
#[test]
fn skinning_matrices_follow_from_world_matrices() {
    let (asset, animator, world) = default_character_at("Walk", 0.37);
    let skin = &asset.data().skeletons[0];
    let ibm = mats(&skin.inverse_bind_matrices);
    let mesh_inverse = world[skin.mesh_node].inverse();
    let bones = mats(animator.bone_matrices(0).unwrap());
    for (i, &joint) in skin.joints.iter().enumerate() {
        let expected = mesh_inverse * world[joint] * ibm[i];
        assert!(
            bones[i].abs_diff_eq(expected, 1e-4),
            "joint {i}: {:?} against {expected:?}",
            bones[i]
        );
    }
}

/// Local transforms compose to the world matrices (world = parent world · T · R · S), in
/// glTF's space for a right-handed load: what the Babylon.js adapter writes into its nodes.
#[test]
fn local_transforms_compose_to_world_matrices() {
    let (asset, animator, world) = default_character_at("Wave", 0.61);
    let trs = animator.local_transforms();
    assert_eq!(trs.len(), asset.node_count() * skel_anim::TRS_STRIDE);
    let mut differs_from_rest = false;
    for (node, t) in trs.chunks_exact(skel_anim::TRS_STRIDE).enumerate() {
        let local = Mat4::from_scale_rotation_translation(
            skel_anim::glam::Vec3::new(t[7], t[8], t[9]),
            skel_anim::glam::Quat::from_xyzw(t[3], t[4], t[5], t[6]),
            skel_anim::glam::Vec3::new(t[0], t[1], t[2]),
        );
        let parent = asset.node_parent(node).map_or(Mat4::IDENTITY, |p| world[p]);
        let composed = parent * local;
        assert!(
            composed.abs_diff_eq(world[node], 1e-4),
            "node {node}: {composed:?} against {:?}",
            world[node]
        );
        let rest = &asset.data().nodes[node];
        differs_from_rest |= (t[3] - rest.rotation[0]).abs() > 1e-3;
    }
    assert!(differs_from_rest, "the clip left every rotation at rest");
}

/// The JavaScript views stay valid between ticks only if the buffers never move.
#[test]
fn pose_buffers_keep_their_address() {
    let bytes = fixture("default_character.glb");
    let asset = Asset::from_bytes(&bytes, Handedness::RightHanded).unwrap();
    let mut animator = asset.animator();
    let before = (
        animator.bone_matrices(0).unwrap().as_ptr(),
        animator.world_matrices().as_ptr(),
        animator.morph_weights(0).unwrap().as_ptr(),
    );
    animator.play(1, true).unwrap();
    for _ in 0..10 {
        animator.tick(0.05);
    }
    animator.play(0, false).unwrap();
    animator.tick(0.05);
    let after = (
        animator.bone_matrices(0).unwrap().as_ptr(),
        animator.world_matrices().as_ptr(),
        animator.morph_weights(0).unwrap().as_ptr(),
    );
    assert_eq!(before, after);
}

#[test]
fn bad_indices_and_names_are_errors_with_the_numbers() {
    let bytes = fixture("default_character.glb");
    let asset = Asset::from_bytes(&bytes, Handedness::RightHanded).unwrap();
    let clips = asset.clip_names().len();
    let mut animator = asset.animator();
    let e = animator.play(clips, true).unwrap_err();
    assert!(
        matches!(e, JsApiError::NoSuchClip { clip, clip_count } if clip == clips && clip_count == clips)
    );
    assert!(e.to_string().contains(&format!("no clip {clips}")), "{e}");
    let e = asset.clip_named("Dance").unwrap_err();
    assert!(e.to_string().contains("\"Walk\""), "{e}");
    assert!(matches!(
        animator.bone_matrices(7),
        Err(JsApiError::NoSuchSkeleton {
            binding: 7,
            count: 1
        })
    ));
    assert!(animator.morph_weights(99).is_err());
    assert!(asset.clip_duration(clips).is_err());
    assert!(asset.clip_duration(0).unwrap() > 0.0);
}

/// Every file of the malformed corpus, and bytes that are no glTF at all, is an error with a
/// message (a panic here would abort the wasm module in a page).
#[test]
fn malformed_files_are_errors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/malformed");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str());
        if !matches!(ext, Some("glb" | "gltf")) {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        if let Err(e) = Asset::from_bytes(&bytes, Handedness::RightHanded) {
            assert!(!e.to_string().is_empty());
            seen += 1;
        }
    }
    assert!(seen >= 20, "only {seen} malformed files were refused");
    let e = Asset::from_bytes(b"not a glb", Handedness::RightHanded).unwrap_err();
    assert!(matches!(e, JsApiError::Gltf(_)), "{e}");
}
