//! Retargeted clips: RobotExpressive's `Dance` played on the built-in character through
//! `SkelPlayer::with_retargeted_clips` poses every joint as skel-retarget's own result
//! (the clip baked by `skel_retarget::retarget`, played by skel's player) at the same time.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use std::sync::Arc;

use bevy::prelude::*;
use skel_bevy::anim::{NullSink, Player, Rig};
use skel_bevy::{SkelLayer, SkelMapping, SkelPlayer, SkelRetarget, SkelRig};
use skel_retarget::{HumanoidMap, RetargetOptions};

/// A glTF file's animation data, read the way the plugin reads it.
fn data(path: &std::path::Path) -> skel_bevy::anim::AnimationData {
    let rig = common::rig(path);
    rig.data().as_ref().clone()
}

#[test]
fn robot_dance_on_the_built_in_character_matches_skel_retarget() {
    let test = "robot_dance_on_the_built_in_character_matches_skel_retarget";
    let Some(robot) = skel_test_support::shared_asset(test, "RobotExpressive/RobotExpressive.glb")
    else {
        return;
    };
    let character = common::fixture("default_character.glb");
    let (root, rel) = common::asset_root(&[&character, &robot]);

    // skel-retarget's own result: the robot's clips baked onto the character's rig.
    let (source, target) = (data(&robot), data(&character));
    let map = HumanoidMap::pair(
        &HumanoidMap::detect(&source).unwrap(),
        &HumanoidMap::detect(&target).unwrap(),
    );
    let clips =
        skel_retarget::retarget(&source, &target, &map, &RetargetOptions::default()).unwrap();
    let rig: Arc<Rig> = Arc::clone(
        SkelRig::from_data(skel_retarget::with_clips(&target, clips))
            .unwrap()
            .rig(),
    );
    let dance = rig.clip_index("Dance").unwrap();
    assert!(
        common::rig(&character).clip_index("Dance").is_none(),
        "the character has a Dance of its own"
    );

    let mut app = common::app(&root);
    let entity = common::spawn(
        &mut app,
        &rel[0],
        SkelPlayer::new()
            .with_retargeted_clips(SkelRetarget::new(rel[1].clone(), SkelMapping::Humanoid))
            .with_layer(SkelLayer::clip("Dance")),
    );
    common::run_until_bound(&mut app, entity);
    common::step(&mut app, 45);

    let time = common::layer_time(&app, entity);
    assert!(time > 0.0, "the clip did not advance");
    let world = common::clip_world(&rig, dance, time);

    // The retargeted dance moves the character away from its rest pose (the premise).
    let mut rest = Player::new(&rig);
    rest.evaluate(&mut NullSink);
    let rest_world: Vec<Mat4> = rest.world_matrices().iter().map(common::mat).collect();
    let moved = world
        .iter()
        .zip(&rest_world)
        .filter(|(a, b)| !a.abs_diff_eq(**b, 1e-3))
        .count();
    assert!(moved > 5, "only {moved} nodes move in the retargeted dance");

    let (worst, tol) = common::worst_joint_difference(&mut app, entity, Mat4::IDENTITY, &world);
    println!("retargeted Dance t={time}: worst joint difference {worst:e} (tolerance {tol:e})");
    assert!(worst <= tol, "worst joint difference {worst} > {tol}");
}
