//! Root motion on a generated walk whose root moves a known distance per loop: totals over many
//! loops (any frame rate, backwards, ping-pong), the root held in place in the pose, blended
//! layers giving the weighted mean of their deltas, loops that turn composing as rigid motions,
//! seeks moving no one.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use glam::{Quat, Vec3};
use proptest::prelude::*;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, LayerDesc, LoopMode,
    NodeRest, NullSink, Player, Rig, RootMotion, Sampler, T_OFF, TRS_STRIDE,
};

const STRIDE: f32 = 1.5;
const BOB: f32 = 0.1;

/// A root walking `STRIDE` along +z per one-second loop, bobbing in y, optionally turning
/// `turn` radians about +y per loop, with a child.
fn walk(turn: f32) -> Arc<Rig> {
    let t = Sampler::new(
        vec![0.0, 0.5, 1.0],
        vec![0.0, 0.0, 0.0, 0.0, BOB, STRIDE / 2.0, 0.0, 0.0, STRIDE],
        Interpolation::Linear,
    )
    .unwrap();
    let q = |a: f32| Quat::from_rotation_y(a).to_array();
    let r = Sampler::new(
        vec![0.0, 0.5, 1.0],
        [q(0.0), q(turn / 2.0), q(turn)].concat(),
        Interpolation::Linear,
    )
    .unwrap();
    let clip = Clip::new(
        "walk",
        vec![t, r],
        vec![
            Channel {
                sampler: 0,
                node: 0,
                path: ChannelPath::Translation,
            },
            Channel {
                sampler: 1,
                node: 0,
                path: ChannelPath::Rotation,
            },
        ],
    );
    Rig::new(Arc::new(AnimationData {
        nodes: vec![NodeRest::new("hips", None), NodeRest::new("leg", Some(0))],
        clips: vec![clip],
        skeletons: vec![],
        morph_bindings: vec![],
        handedness: Handedness::RightHanded,
    }))
    .unwrap()
}

fn ground_and_yaw() -> RootMotion {
    RootMotion {
        node: 0,
        translation: [true, false, true],
        yaw: true,
    }
}

fn player(rig: &Arc<Rig>, speed: f32, mode: LoopMode) -> Player {
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(0).speed(speed).loop_mode(mode))
        .unwrap();
    p.set_root_motion(Some(ground_and_yaw())).unwrap();
    p
}

/// Whether two rotations are within about `angle` radians (`q` and `-q` are one rotation). By
/// the chord, not `acos` of the dot product, which cannot resolve small angles in f32.
fn same_rotation(a: Quat, b: Quat, angle: f32) -> bool {
    let chord = (a - b).length().min((a + b).length());
    2.0 * chord <= angle
}

fn close(a: f32, b: f32, rel: f32) -> bool {
    (a - b).abs() <= rel * b.abs().max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ten_and_a_quarter_loops_walk_ten_and_a_quarter_strides(
        fps in 10.0f32..240.0,
        backwards in any::<bool>(),
    ) {
        let rig = walk(0.0);
        let speed = if backwards { -1.0 } else { 1.0 };
        let mut p = player(&rig, speed, LoopMode::Repeat);
        let frames = (10.25 * fps).round() as usize;
        let dt = 10.25 / frames as f32;
        let mut summed = Vec3::ZERO;
        for _ in 0..frames {
            p.tick(dt, &mut NullSink);
            summed += p.root_motion_delta().translation;
            // The root is held in place on the extracted axes; the bob (y) stays.
            let trs = &p.scratch().trs;
            prop_assert_eq!(trs[T_OFF], 0.0);
            prop_assert_eq!(trs[T_OFF + 2], 0.0);
        }
        let total = p.root_motion_total().translation;
        let want = speed * 10.25 * STRIDE;
        prop_assert!(close(total.z, want, 1e-4), "total {} want {}", total.z, want);
        prop_assert!(close(summed.z, want, 1e-4), "summed deltas {}", summed.z);
        prop_assert!(total.x.abs() < 1e-4 && total.y == 0.0);
    }
}

#[test]
fn the_bob_stays_in_the_pose() {
    let rig = walk(0.0);
    let mut p = player(&rig, 1.0, LoopMode::Repeat);
    p.tick(0.5, &mut NullSink);
    let trs = &p.scratch().trs;
    assert!((trs[T_OFF + 1] - BOB).abs() < 1e-6, "y is not extracted");
    assert_eq!(trs[TRS_STRIDE + T_OFF], 0.0, "the child is untouched");
}

#[test]
fn a_blend_of_two_speeds_moves_by_the_mean() {
    let rig = walk(0.0);
    let mut p = Player::new(&rig);
    p.add_layer(LayerDesc::new(0).weight(0.5)).unwrap();
    p.add_layer(LayerDesc::new(0).weight(0.5).speed(2.0))
        .unwrap();
    p.set_root_motion(Some(ground_and_yaw())).unwrap();
    for _ in 0..120 {
        p.tick(1.0 / 60.0, &mut NullSink);
    }
    let z = p.root_motion_total().translation.z;
    // Two seconds: 2 strides at speed 1, 4 at speed 2, mean 3.
    assert!(close(z, 3.0 * STRIDE, 1e-4), "{z}");
}

#[test]
fn turning_loops_compose_as_rigid_motions() {
    // A quarter turn per loop: four loops walk a square back to the start, facing forward.
    let rig = walk(std::f32::consts::FRAC_PI_2);
    let mut p = player(&rig, 1.0, LoopMode::Repeat);
    for _ in 0..240 {
        p.tick(1.0 / 60.0, &mut NullSink);
    }
    let total = p.root_motion_total();
    assert!(total.translation.length() < 1e-3, "{:?}", total.translation);
    assert!(same_rotation(total.rotation, Quat::IDENTITY, 1e-3));
    // After one loop the character has turned a quarter and stands one stride along +z.
    let mut q = player(&rig, 1.0, LoopMode::Repeat);
    q.tick(1.0, &mut NullSink);
    let one = q.root_motion_total();
    assert!(
        (one.translation - Vec3::new(0.0, 0.0, STRIDE)).length() < 1e-4,
        "{one:?}"
    );
    let want = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    assert!(
        same_rotation(one.rotation, want, 1e-4),
        "{one:?} vs {want:?}"
    );
}

#[test]
fn ping_pong_walks_there_and_back_and_seeks_move_no_one() {
    let rig = walk(0.0);
    let mut p = player(&rig, 1.0, LoopMode::PingPong);
    for _ in 0..60 {
        p.tick(1.0 / 60.0, &mut NullSink);
    }
    assert!(close(p.root_motion_total().translation.z, STRIDE, 1e-4));
    for _ in 0..60 {
        p.tick(1.0 / 60.0, &mut NullSink);
    }
    assert!(
        p.root_motion_total().translation.z.abs() < 1e-4,
        "back at the start"
    );
    // One tick over a whole period and a half: there, back, and there again.
    let mut q = player(&rig, 1.0, LoopMode::PingPong);
    q.tick(3.0, &mut NullSink);
    assert!(close(q.root_motion_total().translation.z, STRIDE, 1e-4));
    // A seek is not a motion.
    q.layer_mut(0).unwrap().clock_mut().seek(0.1);
    q.tick(0.0, &mut NullSink);
    assert_eq!(q.root_motion_delta().translation, Vec3::ZERO);
}

#[test]
fn root_motion_ticks_allocate_nothing_and_bad_nodes_are_errors() {
    let rig = walk(0.3);
    let mut p = player(&rig, -1.3, LoopMode::Repeat);
    p.tick(0.01, &mut NullSink);
    let info = allocation_counter::measure(|| {
        for _ in 0..300 {
            p.tick(1.0 / 60.0, &mut NullSink);
        }
    });
    assert_eq!(info.count_total, 0);
    let bad = RootMotion {
        node: 9,
        ..ground_and_yaw()
    };
    assert!(p.set_root_motion(Some(bad)).is_err());
    assert_eq!(p.root_motion(), Some(ground_and_yaw()), "nothing changed");
}
