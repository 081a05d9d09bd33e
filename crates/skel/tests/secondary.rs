//! The facade's VRM secondary motion (`skel::SecondaryMotion`): a loaded avatar's springs and
//! node constraints attach to a player by themselves, the options turn them off or change the
//! step, and springs that do not fit the file's nodes are a typed error.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;
use std::sync::Arc;

use skel::anim::spring::SpringOptions;
use skel::anim::{NullSink, Player, Rig};
use skel::gltf::GltfAsset;
use skel::{SecondaryMotion, SecondaryOptions, SkelError};
use skel_test_support::glb::Glb;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/vrm")
        .join(name)
}

fn load(name: &str) -> GltfAsset {
    skel::gltf::load_path(&fixture(name), &skel::gltf::LoadOptions::default()).unwrap()
}

/// World positions of every node after `seconds` of ticks of 1/30 s with `motion` attached.
fn played(asset: &GltfAsset, motion: &SecondaryMotion, seconds: u32) -> Vec<[f32; 3]> {
    let rig = Rig::new(Arc::new(asset.animation.clone())).unwrap();
    let mut player = Player::new(&rig);
    motion.attach(&mut player).unwrap();
    for _ in 0..seconds * 30 {
        player.tick(1.0 / 30.0, &mut NullSink);
    }
    player
        .world_matrices()
        .iter()
        .map(|m| m.w_axis.truncate().to_array())
        .collect()
}

fn worst(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (0..3).map(|i| (p[i] - q[i]).powi(2)).sum::<f32>().sqrt())
        .fold(0.0, f32::max)
}

#[test]
fn a_loaded_avatar_springs_unless_the_options_say_no() {
    // v1_gravity: chains pulled down, sideways and backwards: they leave their rest.
    let asset = load("v1_gravity.vrm");
    let on = SecondaryMotion::from_asset(&asset, &SecondaryOptions::default()).unwrap();
    assert!(on.springs().is_some());
    let off = SecondaryMotion::from_asset(&asset, &SecondaryOptions::OFF).unwrap();
    assert!(off.is_empty());
    let none = SecondaryOptions::default().with_springs(None);
    assert!(
        SecondaryMotion::from_asset(&asset, &none)
            .unwrap()
            .springs()
            .is_none()
    );
    let swung = worst(&played(&asset, &on, 2), &played(&asset, &off, 2));
    assert!(swung > 0.05, "the chains stayed at rest: {swung} m");
}

#[test]
fn the_spring_options_reach_the_springs() {
    let asset = load("v1_hair.vrm");
    let step = SpringOptions {
        step: 1.0 / 120.0,
        ..SpringOptions::default()
    };
    let options = SecondaryOptions::default().with_springs(Some(step));
    let motion = SecondaryMotion::from_asset(&asset, &options).unwrap();
    assert_eq!(motion.springs().unwrap().options().step, 1.0 / 120.0);
    let load = skel::LoadOptions::default().with_springs(Some(step));
    assert_eq!(load.secondary.springs, Some(step));
    assert!(skel::LoadOptions::default().secondary.springs.is_some());
}

#[test]
fn constraints_attach_and_an_asset_without_vrm_data_has_nothing() {
    let asset = load("v1_constraints.vrm");
    let motion = SecondaryMotion::from_asset(&asset, &SecondaryOptions::default()).unwrap();
    assert!(motion.constraints().is_some());
    let without = SecondaryOptions::default().with_node_constraints(false);
    let motion = SecondaryMotion::from_asset(&asset, &without).unwrap();
    assert!(motion.constraints().is_none());
    let plain = skel::gltf::load_slice(skel::DEFAULT_CHARACTER, None, &Default::default()).unwrap();
    let motion = SecondaryMotion::from_asset(&plain, &SecondaryOptions::default()).unwrap();
    assert!(motion.is_empty());
    // Attaching nothing leaves a player as it was.
    let rig = Rig::new(Arc::new(plain.animation.clone())).unwrap();
    let mut player = Player::new(&rig);
    motion.attach(&mut player).unwrap();
    assert!(player.springs().is_none());
}

#[test]
fn springs_that_do_not_fit_the_nodes_are_a_typed_error() {
    // v1_minimal's hair spring with its joints listed tip first: each joint's "child" is
    // then its parent.
    let bytes = std::fs::read(fixture("v1_minimal.vrm")).unwrap();
    let out = Glb::edited(&bytes, |gltf| {
        gltf["extensions"]["VRMC_springBone"]["springs"][0]["joints"]
            .as_array_mut()
            .unwrap()
            .reverse();
    });
    let asset = skel::gltf::load_slice(&out, None, &Default::default()).unwrap();
    let err = SecondaryMotion::from_asset(&asset, &SecondaryOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            SkelError::Secondary {
                what: "spring bones",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("the asset's spring bones: "),
        "{err}"
    );
    // Without springs the same file is fine.
    let off = SecondaryOptions::default().with_springs(None);
    assert!(SecondaryMotion::from_asset(&asset, &off).is_ok());
}
