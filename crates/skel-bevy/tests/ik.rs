//! `SkelIk`: a two-bone job whose target is a Bevy entity, on a character placed away from
//! the origin (so the target goes through the scene's frame), reaches a reachable target, and
//! poses every joint as skel's own player with the same job and target does.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::anim::{IkJob, LayerDesc, NullSink, Player, TwoBoneIk, glam as sg};
use skel_bevy::{SkelIk, SkelIkJob, SkelLayer, SkelPlayer};

const CHAIN: [&str; 3] = ["LeftUpLeg", "LeftLeg", "LeftFoot"];

#[test]
fn foot_reaches_a_target_entity() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let [start, mid, end] = CHAIN.map(|n| rig.node_index(n).unwrap());

    // The target, in the scene's frame: 80 % of the way from the hip to the foot at rest,
    // moved sideways and forward by a tenth of the leg: a bent knee, well within reach.
    let mut rest = Player::new(&rig);
    rest.evaluate(&mut NullSink);
    let at = |p: &mut Player, n: usize| p.world_matrices()[n].w_axis.truncate();
    let (hip, foot, knee) = (at(&mut rest, start), at(&mut rest, end), at(&mut rest, mid));
    let leg = hip.distance(knee) + knee.distance(foot);
    let local_target = hip + (foot - hip) * 0.8 + sg::Vec3::new(0.1, 0.0, 0.1) * leg;

    // The character is placed and turned: the plugin maps the entity's world position back.
    let place = Transform::from_xyz(1.5, 0.25, -2.0).with_rotation(Quat::from_rotation_y(0.7));
    let target_world = place.transform_point(Vec3::from_array(local_target.to_array()));

    let mut app = common::app(&common::fixture(""));
    let target = app
        .world_mut()
        .spawn(Transform::from_translation(target_world))
        .id();
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        (
            place,
            SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
            SkelIk::new().with_job(SkelIkJob::two_bone(CHAIN[0], CHAIN[1], CHAIN[2], target)),
        ),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 30);

    // skel's own player: the same clip at the same time, the same job, the target in the
    // scene's frame.
    let time = app
        .world()
        .get::<SkelPlayer>(character)
        .unwrap()
        .player()
        .unwrap()
        .layers()[0]
        .clock()
        .time();
    let idle = rig.clip_index("Idle").unwrap();
    let mut free = Player::new(&rig);
    free.add_layer(LayerDesc::new(idle)).unwrap();
    free.layer_mut(0).unwrap().clock_mut().seek(time);
    free.evaluate(&mut NullSink);
    let mut solved = Player::new(&rig);
    solved.add_layer(LayerDesc::new(idle)).unwrap();
    solved.layer_mut(0).unwrap().clock_mut().seek(time);
    solved
        .add_ik(IkJob::TwoBone {
            start,
            mid,
            end,
            ik: TwoBoneIk {
                target: local_target,
                ..TwoBoneIk::default()
            },
        })
        .unwrap();
    solved.evaluate(&mut NullSink);

    // Premise: reachable from the animated hip, and the animation alone misses it.
    let reach = at(&mut free, start).distance(local_target);
    assert!(reach < 0.95 * leg, "target out of reach: {reach} of {leg}");
    let miss = at(&mut free, end).distance(local_target);

    let world: Vec<Mat4> = solved.world_matrices().iter().map(common::mat).collect();
    let (worst, tol) =
        common::worst_joint_difference(&mut app, character, place.to_matrix(), &world);
    let joints = common::joints(&mut app, character);
    let foot_entity = joints.iter().find(|(n, _)| *n == end).unwrap().1;
    let foot_world = app
        .world()
        .get::<GlobalTransform>(foot_entity)
        .unwrap()
        .translation();
    let error = foot_world.distance(target_world);
    println!(
        "foot to target {error:e} (animation alone {miss:e}); worst joint vs skel {worst:e}; \
         tolerance {tol:e}"
    );
    // The two-bone solve is analytic (law of cosines), so a reachable target is met up to
    // f32 rounding, the same rounding the joint comparison bounds: the same tolerance.
    assert!(
        miss > 100.0 * tol,
        "the animation already reaches the target"
    );
    assert!(
        error <= tol,
        "foot {foot_world} misses target {target_world} by {error}"
    );
    assert!(worst <= tol, "worst joint difference {worst} > {tol}");
}

#[test]
fn unknown_ik_node_is_a_typed_error() {
    let mut app = common::app(&common::fixture(""));
    let target = app.world_mut().spawn(Transform::default()).id();
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        (
            SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
            SkelIk::new().with_job(SkelIkJob::two_bone(
                "LeftUpLeg",
                "NoKnee",
                "LeftFoot",
                target,
            )),
        ),
    );
    let e = common::failed_untouched(app, character);
    assert!(e.starts_with("Ik"), "{e}");
    assert!(e.contains("NoKnee"), "{e}");
}

#[test]
fn head_aims_at_a_target_entity() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let head = rig.node_index("Head").unwrap();
    let place = Transform::from_xyz(-1.0, 0.0, 0.5).with_rotation(Quat::from_rotation_y(-1.1));

    let mut app = common::app(&common::fixture(""));
    // Up and to the character's left, in front of it: away from where the head looks.
    let local_target = Vec3::new(1.5, 2.5, 1.0);
    let target = app
        .world_mut()
        .spawn(Transform::from_translation(
            place.transform_point(local_target),
        ))
        .id();
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        (
            place,
            SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
            SkelIk::new().with_job(SkelIkJob::aim("Head", target)),
        ),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 20);

    let joints = common::joints(&mut app, character);
    let entity = joints.iter().find(|(n, _)| *n == head).unwrap().1;
    let global = *app.world().get::<GlobalTransform>(entity).unwrap();
    let forward = global.affine().transform_vector3(Vec3::Z).normalize();
    let wanted = (place.transform_point(local_target) - global.translation()).normalize();
    let angle = forward.angle_between(wanted);

    // skel's own player: the same clip, time and job.
    let time = app
        .world()
        .get::<SkelPlayer>(character)
        .unwrap()
        .player()
        .unwrap()
        .layers()[0]
        .clock()
        .time();
    let mut solved = Player::new(&rig);
    solved
        .add_layer(LayerDesc::new(rig.clip_index("Idle").unwrap()))
        .unwrap();
    solved.layer_mut(0).unwrap().clock_mut().seek(time);
    solved
        .add_ik(IkJob::Aim {
            node: head,
            ik: skel_bevy::anim::AimIk {
                target: sg::Vec3::from_array(local_target.to_array()),
                ..Default::default()
            },
        })
        .unwrap();
    solved.evaluate(&mut NullSink);
    let world: Vec<Mat4> = solved.world_matrices().iter().map(common::mat).collect();
    let (worst, tol) =
        common::worst_joint_difference(&mut app, character, place.to_matrix(), &world);
    // Premise: the animation alone looks elsewhere.
    let mut free = Player::new(&rig);
    free.add_layer(LayerDesc::new(rig.clip_index("Idle").unwrap()))
        .unwrap();
    free.layer_mut(0).unwrap().clock_mut().seek(time);
    free.evaluate(&mut NullSink);
    let free_head = place.to_matrix() * common::mat(&free.world_matrices()[head]);
    let to_target = place.transform_point(local_target) - free_head.w_axis.truncate();
    let free_angle = free_head
        .transform_vector3(Vec3::Z)
        .normalize()
        .angle_between(to_target.normalize());
    println!(
        "head forward to target {angle:e} rad (animation alone {free_angle}); worst joint vs \
         skel {worst:e} (tol {tol:e})"
    );
    // An aim is a shortest-arc rotation onto the target direction: exact up to f32 rounding
    // of unit vectors (~1e-7), read back through matrices: 1e-4 rad is 1e3 times that.
    assert!(
        free_angle > 0.1,
        "the animation already looks at the target"
    );
    assert!(
        angle < 1e-4,
        "head forward misses the target by {angle} rad"
    );
    assert!(worst <= tol, "worst joint difference {worst} > {tol}");
}
