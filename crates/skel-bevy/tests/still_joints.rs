//! Joints the pose does not move are not written: on the built-in character playing `Walk`,
//! a joint no channel of the clip targets keeps its change tick frame after frame (so change
//! detection and propagation skip it) and keeps a value set on it, while an animated joint
//! is written every frame.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::{SkelLayer, SkelPlayer};

/// The tick at which `entity`'s `Transform` last changed.
fn changed_at(app: &App, entity: Entity) -> u32 {
    app.world()
        .entity(entity)
        .get_ref::<Transform>()
        .unwrap()
        .last_changed()
        .get()
}

#[test]
fn a_joint_the_pose_does_not_move_is_not_written() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let walk = rig.clip_index("Walk").unwrap();
    let animated: Vec<usize> = rig.data().clips[walk]
        .channels
        .iter()
        .map(|c| c.node)
        .collect();
    let mut app = common::app(path.parent().unwrap());
    let file = path.file_name().unwrap().to_str().unwrap();
    let character = common::spawn(
        &mut app,
        file,
        SkelPlayer::new().with_layer(SkelLayer::clip("Walk")),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 3);

    let joints = common::joints(&mut app, character);
    let &(still_node, still) = joints
        .iter()
        .find(|(node, _)| !animated.contains(node))
        .expect("a joint entity no channel of Walk targets");
    let &(moving_node, moving) = joints
        .iter()
        .find(|(node, _)| animated.contains(node))
        .expect("an animated joint entity");
    let set = Transform::from_xyz(0.25, -0.5, 0.75);
    *app.world_mut().get_mut::<Transform>(still).unwrap() = set;
    let (still_tick, moving_tick) = (changed_at(&app, still), changed_at(&app, moving));

    for frame in 0..5 {
        app.update();
        assert_eq!(
            changed_at(&app, still),
            still_tick,
            "frame {frame}: still node {still_node} was written"
        );
        assert_eq!(*app.world().get::<Transform>(still).unwrap(), set);
    }
    assert!(
        changed_at(&app, moving) > moving_tick,
        "animated node {moving_node} was not written"
    );
}
