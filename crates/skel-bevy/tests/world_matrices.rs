//! After fixed steps, every driven joint's `GlobalTransform` equals skel's own world matrix
//! for the same clip at the same time (1e-5 of the model's size), on the built-in character,
//! Fox and RobotExpressive.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use std::path::Path;

use bevy::prelude::*;
use skel_bevy::{SkelLayer, SkelPlayer};

/// Plays clip `clip` of `path` for `frames` steps through the plugin and compares.
fn check(path: &Path, clip: &str, frames: usize) {
    let rig = common::rig(path);
    let dir = path.parent().unwrap();
    let file = path.file_name().unwrap().to_str().unwrap();
    let mut app = common::app(dir);
    let character = common::spawn(
        &mut app,
        file,
        SkelPlayer::new().with_layer(SkelLayer::clip(clip)),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, frames);

    let time = common::layer_time(&app, character);
    assert!(time > 0.0, "the clip did not advance");
    let world = common::clip_world(&rig, rig.clip_index(clip).unwrap(), time);

    let (lo, hi) = world.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), m| {
        let t = m.w_axis.truncate();
        (lo.min(t), hi.max(t))
    });
    let tol = 1e-5 * (hi - lo).length().max(1.0);
    let joints = common::joints(&mut app, character);
    assert!(joints.len() >= rig.data().skeletons[0].joints.len());
    let mut worst = 0.0f32;
    for (node, entity) in joints {
        let global = app.world().get::<GlobalTransform>(entity).unwrap();
        let got = global.to_matrix();
        let diff = (got - world[node]).abs().to_cols_array();
        let d = diff.iter().copied().fold(0.0, f32::max);
        worst = worst.max(d);
        assert!(
            d <= tol,
            "{file} node {node}: bevy {got} vs skel {} (diff {d}, tolerance {tol})",
            world[node]
        );
    }
    println!("{file} {clip} t={time}: worst difference {worst:e} (tolerance {tol:e})");
}

#[test]
fn built_in_character_matches_skel() {
    check(&common::fixture("default_character.glb"), "Walk", 37);
}

#[test]
fn fox_matches_skel() {
    let test = "fox_matches_skel";
    if let Some(path) = skel_test_support::shared_asset(test, "Fox/Fox.glb") {
        check(&path, "Run", 41);
    }
}

#[test]
fn robot_expressive_matches_skel() {
    let test = "robot_expressive_matches_skel";
    if let Some(path) = skel_test_support::shared_asset(test, "RobotExpressive/RobotExpressive.glb")
    {
        check(&path, "Dance", 53);
    }
}
