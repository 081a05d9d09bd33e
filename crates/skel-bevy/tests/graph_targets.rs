//! `SkelGraphTargets`: a graph's two-bone operation whose vec3 target is bound to a Bevy
//! entity puts the built-in character's right hand on it, and follows it when it moves, in
//! the same frame; a binding to a parameter the graph lacks changes nothing.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::{SkelGraph, SkelGraphFile, SkelGraphTargets};

const GRAPH: &str = r#"{
  "parameters": { "reach": {"type": "vec3"}, "elbow": {"type": "vec3", "default": [-1, -0.5, -0.5]} },
  "layers": [ { "name": "base", "entry": "idle", "states": { "idle": { "clip": "Idle" } },
    "operations": [ { "ik": "two_bone", "joints": ["RightUpperArm", "RightForearm", "RightHand"],
                      "target": "reach", "pole": "elbow" } ] } ] }"#;

#[test]
fn a_graph_operation_reaches_for_a_bound_entity() {
    let dir = common::TempDir::new("graph_targets");
    std::fs::copy(
        common::fixture("default_character.glb"),
        dir.0.join("character.glb"),
    )
    .unwrap();
    std::fs::write(dir.0.join("graph.json"), GRAPH).unwrap();
    let rig = common::rig(&dir.0.join("character.glb"));
    let hand_node = rig.node_index("RightHand").unwrap();
    let mut app = common::app(&dir.0);
    let place = Transform::from_xyz(1.0, 0.0, -0.5).with_rotation(Quat::from_rotation_y(0.5));
    // In front of the right shoulder, within the arm's reach, in the character's frame.
    let ball_at = |local: Vec3| place.transform_point(local);
    let ball = app
        .world_mut()
        .spawn(Transform::from_translation(ball_at(Vec3::new(
            -0.3, 1.5, 0.35,
        ))))
        .id();
    let server = app.world().resource::<AssetServer>().clone();
    let file = server.load::<SkelGraphFile>("graph.json");
    let character = common::spawn(
        &mut app,
        "character.glb",
        (
            place,
            SkelGraph::new(file),
            SkelGraphTargets::new()
                .with("reach", ball)
                .with("nowhere", ball),
        ),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 5);
    let joints = common::joints(&mut app, character);
    let hand = joints.iter().find(|(n, _)| *n == hand_node).unwrap().1;
    let pos = |app: &App, e: Entity| app.world().get::<GlobalTransform>(e).unwrap().translation();
    let miss = pos(&app, hand).distance(pos(&app, ball));
    assert!(miss < 1e-3, "the hand misses the ball by {miss}");
    // The ball moves: the hand follows in the frame it moved.
    let moved = ball_at(Vec3::new(-0.35, 1.35, 0.3));
    app.world_mut()
        .get_mut::<Transform>(ball)
        .unwrap()
        .translation = moved;
    common::step(&mut app, 1);
    let miss = pos(&app, hand).distance(moved);
    assert!(
        miss < 1e-3,
        "a frame after the ball moved, the hand misses it by {miss}"
    );
}
