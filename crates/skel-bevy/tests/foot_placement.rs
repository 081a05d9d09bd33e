//! `SkelFootPlacement`: the built-in character walking (placed away from the origin) over a
//! floor raised 8 cm in Bevy's world keeps its toes on it; without the component they sink
//! into it; a bad joint name is a `SkelFootError` and the feet stay as the clip has them.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use std::sync::Arc;

use bevy::prelude::*;
use skel_bevy::anim::{GroundPlane, glam as sg};
use skel_bevy::{SkelFootError, SkelFootPlacement, SkelLayer, SkelPlayer};

const FLOOR: f32 = 0.08;
const LEGS: [[&str; 4]; 2] = [
    ["LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToes"],
    ["RightUpLeg", "RightLeg", "RightFoot", "RightToes"],
];

fn feet(pelvis: &str) -> SkelFootPlacement {
    let floor = GroundPlane::new(sg::Vec3::Y, -FLOOR).unwrap();
    SkelFootPlacement::new(pelvis, LEGS, Arc::new(floor))
}

/// The lowest toe over a second and a half of walking, after the first half second.
fn lowest_toe(with: Option<SkelFootPlacement>) -> (f32, App, Entity) {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let toes = ["LeftToes", "RightToes"].map(|n| rig.node_index(n).unwrap());
    let mut app = common::app(&common::fixture(""));
    let place = Transform::from_xyz(2.0, 0.0, -1.0).with_rotation(Quat::from_rotation_y(0.6));
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("Walk"));
    let character = match with {
        Some(f) => common::spawn(&mut app, "default_character.glb", (place, player, f)),
        None => common::spawn(&mut app, "default_character.glb", (place, player)),
    };
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 30);
    let joints = common::joints(&mut app, character);
    let entities = toes.map(|t| joints.iter().find(|(n, _)| *n == t).unwrap().1);
    let mut lowest = f32::MAX;
    for _ in 0..90 {
        common::step(&mut app, 1);
        for e in entities {
            lowest = lowest.min(
                app.world()
                    .get::<GlobalTransform>(e)
                    .unwrap()
                    .translation()
                    .y,
            );
        }
    }
    (lowest, app, character)
}

#[test]
fn a_walking_character_keeps_its_toes_on_a_raised_floor() {
    let (placed, _, _) = lowest_toe(Some(feet("Hips")));
    let (free, _, _) = lowest_toe(None);
    println!("lowest toe: {placed} placed, {free} free, floor {FLOOR}");
    assert!(
        free < FLOOR - 0.01,
        "the clip's toes never sink below the floor ({free})"
    );
    assert!(
        placed >= FLOOR - 1e-3,
        "a placed toe went {} below the floor",
        FLOOR - placed
    );
}

#[test]
fn a_bad_joint_name_is_a_typed_error_and_changes_nothing() {
    let (placed, app, character) = lowest_toe(Some(feet("NoHips")));
    let error = app.world().get::<SkelFootError>(character).unwrap();
    assert!(format!("{}", error.0).contains("NoHips"), "{:?}", error.0);
    assert!(
        placed < FLOOR - 0.01,
        "the feet moved without a placement ({placed})"
    );
}
