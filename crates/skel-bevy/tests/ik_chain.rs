//! `SkelIk` chain and look-at jobs whose targets are Bevy entities: on a character placed and
//! turned away from the origin, a four-joint FABRIK chain (the left arm from the shoulder)
//! puts the hand on a reachable target, and a look-at over chest, neck and head turns the
//! head's forward axis onto its target; both as skel's own player with the same jobs poses
//! them (the plugin maps the entities' world positions into the scene's frame).

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::anim::{ChainIk, ChainJoints, IkJob, LayerDesc, NullSink, Player, glam as sg};
use skel_bevy::{SkelIk, SkelIkJob, SkelLayer, SkelPlayer};

const ARM: [&str; 4] = ["LeftShoulder", "LeftUpperArm", "LeftForearm", "LeftHand"];

#[test]
fn a_chain_job_puts_the_hand_on_a_target_entity() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let nodes = ARM.map(|n| rig.node_index(n).unwrap());
    // In the scene's frame: up and in front of the left shoulder, within the arm's reach.
    let mut rest = Player::new(&rig);
    rest.evaluate(&mut NullSink);
    let shoulder = rest.world_matrices()[nodes[1]].w_axis.truncate();
    let local_target = shoulder + sg::Vec3::new(0.1, 0.25, 0.3);
    let place = Transform::from_xyz(-1.0, 0.0, 2.0).with_rotation(Quat::from_rotation_y(-0.9));
    let target_world = place.transform_point(Vec3::from_array(local_target.to_array()));

    let (mut app, character) = common::idle_reaching(
        place,
        target_world,
        |target| SkelIkJob::chain(ARM, target),
        20,
    );

    // skel's own player with the same job and the target in the scene's frame.
    let time = common::layer_time(&app, character);
    let mut solved = Player::new(&rig);
    solved
        .add_layer(LayerDesc::new(rig.clip_index("Idle").unwrap()))
        .unwrap();
    solved.layer_mut(0).unwrap().clock_mut().seek(time);
    solved
        .add_ik(IkJob::Chain {
            joints: ChainJoints::new(&nodes).unwrap(),
            ik: ChainIk {
                target: local_target,
                ..ChainIk::default()
            },
        })
        .unwrap();
    solved.evaluate(&mut NullSink);
    let world: Vec<Mat4> = solved.world_matrices().iter().map(common::mat).collect();
    let (worst, tol) =
        common::worst_joint_difference(&mut app, character, place.to_matrix(), &world);
    let joints = common::joints(&mut app, character);
    let hand = joints.iter().find(|(n, _)| *n == nodes[3]).unwrap().1;
    let hand_world = app
        .world()
        .get::<GlobalTransform>(hand)
        .unwrap()
        .translation();
    let error = hand_world.distance(target_world);
    println!("hand to target {error:e}; worst joint against skel {worst:e}; tolerance {tol:e}");
    assert!(error <= 1e-3, "the hand misses the target by {error}");
    assert!(worst <= tol, "worst joint difference {worst} > {tol}");
}

#[test]
fn a_look_at_job_turns_the_head_to_a_target_entity() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let head = rig.node_index("Head").unwrap();
    let place = Transform::from_xyz(0.5, 0.0, -1.0).with_rotation(Quat::from_rotation_y(0.4));
    // To the character's left and up, in front: a turn every joint's share can make.
    let target_world = place.transform_point(Vec3::new(0.6, 1.9, 1.5));
    let (mut app, character) = common::idle_reaching(
        place,
        target_world,
        |target| SkelIkJob::look_at(["Chest", "Neck", "Head"], target),
        20,
    );
    let joints = common::joints(&mut app, character);
    let head_entity = joints.iter().find(|(n, _)| *n == head).unwrap().1;
    let g = app.world().get::<GlobalTransform>(head_entity).unwrap();
    let facing = g.affine().transform_vector3(Vec3::Z).normalize();
    let to = (target_world - g.translation()).normalize();
    println!("head facing {facing}, towards the target {to}");
    assert!(
        facing.dot(to) > 0.999,
        "the head faces {facing}, the target is at {to}"
    );
}

#[test]
fn a_full_body_job_lowers_the_pelvis_to_put_both_feet_on_their_entities() {
    use skel_bevy::anim::Effector;
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let node = |n: &str| rig.node_index(n).unwrap();
    // The feet 0.15 below where the rest pose has them: out of the straight legs' reach.
    let mut rest = Player::new(&rig);
    rest.evaluate(&mut NullSink);
    let at = |p: &mut Player, n: usize| p.world_matrices()[n].w_axis.truncate();
    let drop = sg::Vec3::new(0.0, -0.15, 0.0);
    let left = at(&mut rest, node("LeftFoot")) + drop;
    let right = at(&mut rest, node("RightFoot")) + drop;
    let place = Transform::from_xyz(0.3, 0.0, 0.7).with_rotation(Quat::from_rotation_y(1.1));
    let world = |p: sg::Vec3| place.transform_point(Vec3::from_array(p.to_array()));
    let mut app = common::app(&common::fixture(""));
    let [l, r] = [left, right].map(|p| {
        app.world_mut()
            .spawn(Transform::from_translation(world(p)))
            .id()
    });
    let legs = |side: &str| {
        ["UpLeg", "Leg", "Foot"]
            .iter()
            .map(|j| format!("{side}{j}"))
            .collect::<Vec<_>>()
    };
    let job = SkelIkJob::full_body(
        "Hips",
        ["Spine", "Chest"],
        vec![
            (Effector::LeftFoot, legs("Left"), l),
            (Effector::RightFoot, legs("Right"), r),
        ],
    );
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        (
            place,
            SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
            SkelIk::new().with_job(job),
        ),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 10);
    let joints = common::joints(&mut app, character);
    let entity = |n: usize| joints.iter().find(|(j, _)| *j == n).unwrap().1;
    let pos = |e: Entity| app.world().get::<GlobalTransform>(e).unwrap().translation();
    for (foot, target) in [("LeftFoot", left), ("RightFoot", right)] {
        let miss = pos(entity(node(foot))).distance(world(target));
        assert!(miss < 1e-3, "{foot} misses its entity by {miss}");
    }
    let hips = pos(entity(node("Hips"))).y;
    let rest_hips = world(at(&mut rest, node("Hips"))).y;
    assert!(
        rest_hips - hips > 0.05,
        "the pelvis came down only {}",
        rest_hips - hips
    );
}
