//! Spring bones in a `Player`: the built-in character walking (its Walk clip, the character
//! carried forward), its left arm hung on springs. The springs step at their fixed rate on the
//! pose the clip gives at each step's own instant, so display rates whose frames land on the
//! same instants give the same state; the shown pose carries the springs' rotations.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use skel_anim::spring::{SpringBones, SpringBonesDesc, SpringDesc, SpringJointDesc, SpringOptions};
use skel_anim::{AnimationData, LayerDesc, Player, RecordingSink, Rig, SpringJob};
use skel_gltf::{LoadOptions, load_path};

fn character() -> Arc<AnimationData> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/default_character.glb");
    Arc::new(load_path(&path, &LoadOptions::default()).unwrap().animation)
}

fn node(data: &AnimationData, name: &str) -> usize {
    data.nodes.iter().position(|n| n.name == name).unwrap()
}

/// Springs on the left arm: the upper arm and the forearm, swinging under gravity.
fn arm_springs(data: &AnimationData) -> Arc<SpringBones> {
    let (upper, fore, hand) = (
        node(data, "LeftUpperArm"),
        node(data, "LeftForearm"),
        node(data, "LeftHand"),
    );
    let joint = |n, c| SpringJointDesc {
        stiffness: Some(0.5),
        drag_force: Some(0.2),
        gravity_power: Some(1.0),
        ..SpringJointDesc::new(n, Some(c))
    };
    let desc = SpringBonesDesc {
        springs: vec![SpringDesc {
            joints: vec![joint(upper, fore), joint(fore, hand)],
            ..SpringDesc::default()
        }],
        ..SpringBonesDesc::default()
    };
    Arc::new(SpringBones::new(&desc, &data.nodes, SpringOptions::default()).unwrap())
}

/// Two seconds of walking at `hz`, the character carried 1 m/s along +z; returns the player.
fn walk(data: &Arc<AnimationData>, springs: &Arc<SpringBones>, hz: u32) -> Player {
    let mut player = Player::new(&Rig::new(Arc::clone(data)).unwrap());
    player.add_layer(LayerDesc::new(0)).unwrap();
    player
        .set_springs(Some(SpringJob::new(Arc::clone(springs))))
        .unwrap();
    let mut sink = RecordingSink::default();
    let dt = 1.0 / hz as f32;
    for frame in 1..=2 * hz {
        let z = frame as f32 / hz as f32;
        player.springs_mut().unwrap().world = Affine3A::from_translation(Vec3::new(0.0, 0.0, z));
        player.tick(dt, &mut sink);
    }
    player
}

#[test]
fn every_display_rate_steps_the_same_springs_on_the_same_poses() {
    let data = character();
    let springs = arm_springs(&data);
    let hand = node(&data, "LeftHand");
    let at = |player: &Player| {
        player
            .springs()
            .unwrap()
            .state
            .world(hand)
            .unwrap()
            .translation
    };
    let want = at(&walk(&data, &springs, 60));
    for hz in [24, 30, 120, 144, 240] {
        let got = at(&walk(&data, &springs, hz));
        assert!(
            (got - want).length() < 1e-5,
            "{hz} Hz: {got} vs {want} at 60 Hz"
        );
    }
}

#[test]
fn the_shown_pose_carries_the_springs() {
    let data = character();
    let springs = arm_springs(&data);
    let hand = node(&data, "LeftHand");
    let mut player = Player::new(&Rig::new(Arc::clone(&data)).unwrap());
    player.add_layer(LayerDesc::new(0)).unwrap();
    player
        .set_springs(Some(SpringJob::new(Arc::clone(&springs))))
        .unwrap();
    let mut plain = Player::new(&Rig::new(Arc::clone(&data)).unwrap());
    plain.add_layer(LayerDesc::new(0)).unwrap();
    let mut sink = RecordingSink::default();
    for _ in 0..60 {
        player.tick(1.0 / 60.0, &mut sink);
        plain.tick(1.0 / 60.0, &mut sink);
    }
    // The player's hand is where the springs put it (the character at the origin)…
    let shown = player.world_matrices()[hand].w_axis.truncate();
    let sprung = player
        .springs()
        .unwrap()
        .state
        .world(hand)
        .unwrap()
        .translation;
    assert!(
        (shown - Vec3::from(sprung)).length() < 1e-5,
        "{shown} vs {sprung}"
    );
    // …and not where the clip alone puts it: the arm hangs under gravity.
    let clip = plain.world_matrices()[hand].w_axis.truncate();
    assert!((shown - clip).length() > 0.05, "{shown} vs {clip}");
    // Springs made for another rig are refused.
    let other = {
        let mut nodes = data.nodes.clone();
        nodes.pop();
        SpringBones::new(
            &SpringBonesDesc::default(),
            &nodes,
            SpringOptions::default(),
        )
        .unwrap()
    };
    assert!(
        player
            .set_springs(Some(SpringJob::new(Arc::new(other))))
            .is_err()
    );
}
