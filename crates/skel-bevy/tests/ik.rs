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

    let (mut app, character) = common::idle_reaching(
        place,
        target_world,
        |target| SkelIkJob::two_bone(CHAIN[0], CHAIN[1], CHAIN[2], target),
        30,
    );

    // skel's own player: the same clip at the same time, the same job, the target in the
    // scene's frame.
    let time = common::layer_time(&app, character);
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
    let time = common::layer_time(&app, character);
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

/// Where a character stands on frame `f` of a walk moved by a controller in `Update`.
fn walked(f: u32) -> Transform {
    let f = f as f32;
    Transform::from_xyz(1.5 + 0.03 * f, 0.25, -2.0 + 0.01 * f)
        .with_rotation(Quat::from_rotation_y(0.7 + 0.01 * f))
}

/// The moving target, in the scene's frame, on frame `f`: a small circle around a point the
/// leg reaches with a bent knee.
fn wandering(centre: Vec3, leg: f32, f: u32) -> Vec3 {
    let a = f as f32 * 0.2;
    centre + Vec3::new(a.cos(), 0.0, a.sin()) * 0.03 * leg
}

#[derive(Resource)]
struct Walk {
    frame: u32,
    character: Entity,
    target: Entity,
    centre: Vec3,
    leg: f32,
}

/// A character controller and a moving target, both in `Update`: what IK must follow in the
/// same frame.
fn walk(mut walk: ResMut<Walk>, mut transforms: Query<&mut Transform>) {
    walk.frame += 1;
    let place = walked(walk.frame);
    *transforms.get_mut(walk.character).unwrap() = place;
    transforms.get_mut(walk.target).unwrap().translation =
        place.transform_point(wandering(walk.centre, walk.leg, walk.frame));
}

/// The distance from `node`'s joint to `target`, both after this frame's propagation.
fn miss(app: &mut App, character: Entity, node: usize, target: Entity) -> f32 {
    let joints = common::joints(app, character);
    let joint = joints.iter().find(|(n, _)| *n == node).unwrap().1;
    let at = |e: Entity| app.world().get::<GlobalTransform>(e).unwrap().translation();
    at(joint).distance(at(target))
}

#[test]
fn ik_follows_a_target_and_a_character_moved_this_frame() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let [start, mid, end] = CHAIN.map(|n| rig.node_index(n).unwrap());
    let mut rest = Player::new(&rig);
    rest.evaluate(&mut NullSink);
    let rest = rest.world_matrices().to_vec();
    let at = |n: usize| Vec3::from_array(rest[n].w_axis.truncate().to_array());
    let (hip, knee, foot) = (at(start), at(mid), at(end));
    let leg = hip.distance(knee) + knee.distance(foot);
    let centre = hip + (foot - hip) * 0.8 + Vec3::new(0.1, 0.0, 0.1) * leg;

    let mut app = common::app(&common::fixture(""));
    let target = app.world_mut().spawn(Transform::default()).id();
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        (
            walked(0),
            SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
            SkelIk::new().with_job(SkelIkJob::two_bone(CHAIN[0], CHAIN[1], CHAIN[2], target)),
        ),
    );
    app.insert_resource(Walk {
        frame: 0,
        character,
        target,
        centre,
        leg,
    });
    app.add_systems(Update, walk);
    common::run_until_bound(&mut app, character);

    // Every frame both move by about 3 cm (and the character turns), so a solve one frame
    // behind misses by about that much; the tolerance is the joints' 1e-5 of 2 m.
    let tol = 2e-5;
    let mut worst = 0.0f32;
    let step = walked(1).translation.distance(walked(0).translation);
    for _ in 0..40 {
        app.update();
        worst = worst.max(miss(&mut app, character, end, target));
    }
    println!(
        "moving target and character: foot to target at most {worst:e} (a frame's move {step:e})"
    );
    assert!(step > 1000.0 * tol, "the premise: the character moves");
    assert!(worst <= tol, "foot misses the target by up to {worst}");
}

#[test]
fn aim_follows_a_character_moved_by_root_motion() {
    let goal = Vec3::new(1.0, 0.5, 1.5);
    let mut app = common::app(&common::fixture(""));
    let target = app
        .world_mut()
        .spawn(Transform::from_translation(goal))
        .id();
    let character = common::spawn(
        &mut app,
        "root_motion_walk.gltf",
        (
            Transform::default(),
            SkelPlayer::new().with_layer(SkelLayer::clip("Walk")),
            skel_bevy::SkelRootMotion::ground("hips"),
            SkelIk::new().with_job(SkelIkJob::aim("leg", target)),
        ),
    );
    common::run_until_bound(&mut app, character);
    let rig = common::rig(&common::fixture("root_motion_walk.gltf"));
    let leg = rig.node_index("leg").unwrap();
    let joints = common::joints(&mut app, character);
    let entity = joints.iter().find(|(n, _)| *n == leg).unwrap().1;
    // `lag`: the angle a frame's root motion subtends at the target, which a solve one frame
    // behind would miss by.
    let (mut worst, mut lag) = (0.0f32, f32::MAX);
    for _ in 0..40 {
        let before = app.world().get::<Transform>(character).unwrap().translation;
        app.update();
        let after = app.world().get::<Transform>(character).unwrap().translation;
        let global = *app.world().get::<GlobalTransform>(entity).unwrap();
        lag = lag.min(after.distance(before) / global.translation().distance(goal));
        let forward = global.affine().transform_vector3(Vec3::Z).normalize();
        let wanted = (goal - global.translation()).normalize();
        // atan2 of sine and cosine: f32 `acos` of a dot product cannot tell angles under
        // about 5e-4 rad from 0.
        worst = worst.max(forward.cross(wanted).length().atan2(forward.dot(wanted)));
    }
    println!(
        "root motion: leg forward to target at most {worst:e} rad (a frame's move subtends at least {lag:e} rad)"
    );
    assert!(
        lag > 10.0 * 1e-4,
        "the premise: root motion moves the character"
    );
    assert!(
        worst < 1e-4,
        "leg forward misses the target by up to {worst} rad"
    );
}

#[test]
fn ik_jobs_changed_after_binding_take_effect() {
    let path = common::fixture("default_character.glb");
    let rig = common::rig(&path);
    let right = ["RightUpLeg", "RightLeg", "RightFoot"];
    let left_end = rig.node_index(CHAIN[2]).unwrap();
    let right_end = rig.node_index(right[2]).unwrap();
    let mut rest = Player::new(&rig);
    rest.evaluate(&mut NullSink);
    let rest = rest.world_matrices().to_vec();
    let at = |n: &str| {
        let m = rest[rig.node_index(n).unwrap()];
        Vec3::from_array(m.w_axis.truncate().to_array())
    };
    let bent = |[s, m, e]: [&str; 3]| {
        let leg = at(s).distance(at(m)) + at(m).distance(at(e));
        at(s) + (at(e) - at(s)) * 0.8 + Vec3::new(0.0, 0.0, 0.1) * leg
    };

    // Bound without IK; IK added afterwards.
    let mut app = common::app(&common::fixture(""));
    let left_target = app
        .world_mut()
        .spawn(Transform::from_translation(bent(CHAIN)))
        .id();
    let right_target = app
        .world_mut()
        .spawn(Transform::from_translation(bent(right)))
        .id();
    let character = common::spawn(
        &mut app,
        "default_character.glb",
        SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
    );
    common::run_until_bound(&mut app, character);
    common::step(&mut app, 5);
    let free = miss(&mut app, character, left_end, left_target);
    app.world_mut()
        .entity_mut(character)
        .insert(SkelIk::new().with_job(SkelIkJob::two_bone(
            CHAIN[0],
            CHAIN[1],
            CHAIN[2],
            left_target,
        )));
    common::step(&mut app, 2);
    let added = miss(&mut app, character, left_end, left_target);

    // The job moved to the other leg.
    let set = |app: &mut App, chain: [&str; 3], target: Entity| {
        let mut ik = app.world_mut().get_mut::<SkelIk>(character).unwrap();
        ik.jobs_mut()[0] = SkelIkJob::two_bone(chain[0], chain[1], chain[2], target);
    };
    set(&mut app, right, right_target);
    common::step(&mut app, 2);
    let (moved_right, left_after) = (
        miss(&mut app, character, right_end, right_target),
        miss(&mut app, character, left_end, left_target),
    );

    // A bad joint: a typed error, IK off (the animation alone), until a good change.
    set(
        &mut app,
        ["RightUpLeg", "NoKnee", "RightFoot"],
        right_target,
    );
    common::step(&mut app, 2);
    let error = format!(
        "{:?}",
        app.world()
            .get::<skel_bevy::SkelIkError>(character)
            .unwrap()
            .0
    );
    let off = miss(&mut app, character, right_end, right_target);
    set(&mut app, right, right_target);
    common::step(&mut app, 2);
    let fixed = miss(&mut app, character, right_end, right_target);
    let cleared = app
        .world()
        .get::<skel_bevy::SkelIkError>(character)
        .is_none();

    // Removed: IK off again.
    app.world_mut().entity_mut(character).remove::<SkelIk>();
    common::step(&mut app, 2);
    let removed = miss(&mut app, character, right_end, right_target);
    println!(
        "left foot to its target: free {free:e}, IK added {added:e}; moved to the right leg: \
         right {moved_right:e}, left {left_after:e}; bad joint {off:e} ({error}); fixed \
         {fixed:e}; removed {removed:e}"
    );
    let tol = 2e-5;
    assert!(
        free > 1000.0 * tol,
        "the animation already reaches the target"
    );
    assert!(added <= tol, "IK added after binding: {added}");
    assert!(
        moved_right <= tol,
        "job moved to the right leg: {moved_right}"
    );
    assert!(left_after > 1000.0 * tol, "the left leg is still solved");
    assert!(
        error.starts_with("Ik") && error.contains("NoKnee"),
        "{error}"
    );
    assert!(off > 1000.0 * tol, "IK still on after a bad change");
    assert!(fixed <= tol && cleared, "a good change did not restore IK");
    assert!(removed > 1000.0 * tol, "IK still on after removing SkelIk");
}
