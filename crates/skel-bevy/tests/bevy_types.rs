//! skel-bevy in Bevy's own types: every vector given to or read from the plugin below is a
//! `bevy::math` type (poles, forward axes, the ground plane's normal, the root-motion delta);
//! no skel math type is named. The jobs then do what they say: the foot reaches its target
//! entity, the head looks at its own, the feet stand on a Bevy-typed ground, and the
//! character walks by the root motion it reports.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use std::sync::Arc;

use bevy::math::{Quat, Vec3};
use bevy::prelude::*;
use skel_bevy::anim::GroundPlane;
use skel_bevy::{
    SkelFootError, SkelFootPlacement, SkelIk, SkelIkChain, SkelIkJob, SkelPlayer, SkelRootMotion,
};

/// The world position of the character's joint named `name`.
fn joint_at(app: &mut App, name: &str) -> Vec3 {
    let mut q = app.world_mut().query::<(&Name, &GlobalTransform)>();
    q.iter(app.world())
        .find(|(n, _)| n.as_str() == name)
        .map(|(_, g)| g.translation())
        .unwrap()
}

/// A two-bone job with its pole given as Bevy's `Vec3`.
fn leg_with_pole(target: Entity, pole: Vec3) -> SkelIkJob {
    let mut job = SkelIkJob::two_bone("LeftUpLeg", "LeftLeg", "LeftFoot", target);
    if let SkelIkChain::TwoBone { ik, .. } = &mut job.chain {
        ik.pole = pole;
    }
    job
}

/// An aim job with its axes given as Bevy's `Vec3`s.
fn head_towards(target: Entity, forward: Vec3, up: Vec3) -> SkelIkJob {
    let mut job = SkelIkJob::aim("Head", target);
    if let SkelIkChain::Aim { ik, .. } = &mut job.chain {
        ik.forward = forward;
        ik.up = up;
    }
    job
}

#[test]
fn ik_and_foot_placement_take_bevy_vectors() {
    let mut app = common::app(&common::fixture(""));
    let place = Transform::from_xyz(1.0, 0.0, -0.5).with_rotation(Quat::from_rotation_y(0.4));
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        (place, SkelPlayer::new().with_layer("Idle")),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 2);

    // A reachable target for the left foot: 80 % of the way from hip to foot, moved forward
    // by a tenth of the leg (a bent knee); one for the head, up and to the side.
    let (hip, knee, foot) = (
        joint_at(&mut app, "LeftUpLeg"),
        joint_at(&mut app, "LeftLeg"),
        joint_at(&mut app, "LeftFoot"),
    );
    let leg = hip.distance(knee) + knee.distance(foot);
    let forward = place.rotation * Vec3::Z;
    let foot_goal = hip + (foot - hip) * 0.8 + forward * (0.1 * leg);
    let head_goal = place.transform_point(Vec3::new(1.5, 2.5, 1.0));
    let world = app.world_mut();
    let foot_target = world.spawn(Transform::from_translation(foot_goal)).id();
    let head_target = world.spawn(Transform::from_translation(head_goal)).id();
    let ik = SkelIk::new()
        .with_job(leg_with_pole(foot_target, Vec3::Z))
        .with_job(head_towards(head_target, Vec3::Z, Vec3::Y));
    world.entity_mut(character).insert(ik);
    common::step(&mut app, 20);

    let reached = joint_at(&mut app, "LeftFoot").distance(foot_goal);
    assert!(
        reached < 1e-3 * leg,
        "the foot misses its target by {reached} (leg {leg})"
    );
    let mut q = app.world_mut().query::<(&Name, &GlobalTransform)>();
    let head = q
        .iter(app.world())
        .find(|(n, _)| n.as_str() == "Head")
        .map(|(_, g)| *g)
        .unwrap();
    let looks = head.affine().transform_vector3(Vec3::Z).normalize();
    let angle = looks.angle_between((head_goal - head.translation()).normalize());
    println!("foot to its target {reached:e} (leg {leg}); head to its target {angle:e} rad");
    assert!(
        angle < 1e-3,
        "the head looks {angle} rad away from its target"
    );

    // Foot placement on a ground given in Bevy's types binds and runs.
    let ground = GroundPlane::new(Vec3::Y, 0.0).unwrap();
    let legs = [
        ["LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToes"],
        ["RightUpLeg", "RightLeg", "RightFoot", "RightToes"],
    ];
    app.world_mut()
        .entity_mut(character)
        .insert(SkelFootPlacement::new("Hips", legs, Arc::new(ground)));
    common::step(&mut app, 5);
    assert!(app.world().get::<SkelFootError>(character).is_none());
    let toe = joint_at(&mut app, "LeftToes");
    assert!(toe.is_finite(), "placement made {toe}");
}

#[test]
fn root_motion_reports_bevy_vectors_and_moves_the_character() {
    let mut app = common::app(&common::fixture(""));
    let character = common::spawn(
        &mut app,
        "root_motion_walk.gltf",
        (
            Transform::default(),
            SkelPlayer::new().with_layer("Walk"),
            SkelRootMotion::ground("hips"),
        ),
    );
    common::run_until_bound(&mut app, character);
    let mut walked = Vec3::ZERO;
    let mut turned = Quat::IDENTITY;
    for _ in 0..30 {
        let before = app.world().get::<Transform>(character).unwrap().translation;
        app.update();
        let (step, turn): (Vec3, Quat) = app.world().get::<SkelRootMotion>(character).unwrap().last;
        let after = app.world().get::<Transform>(character).unwrap().translation;
        assert!(
            (after - before - step).length() < 1e-5,
            "moved {} for a delta of {step}",
            after - before
        );
        walked += step;
        turned *= turn;
    }
    println!("walked {walked} in 30 frames, every frame's move its reported delta");
    assert!(walked.length() > 0.1, "the walk extracted only {walked}");
    assert!(
        turned.is_near_identity(),
        "ground motion turned by {turned}"
    );
}
