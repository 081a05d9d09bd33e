//! The controller's clock: how `tick` moves `time` (loop wrap, clamp, speed, negative speed,
//! bad deltas ignored, paused), and `evaluate_at` posing without moving it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::flat;
use skel_anim::{
    AnimError, AnimationController, AnimationData, Channel, ChannelPath, Clip, Handedness,
    Interpolation, NodeRest, RecordingSink, Sampler, SkeletonBinding,
};

/// One joint sliding along x: x = t for t in [0, 2] (LINEAR, keys at 0 and 2), so the bone's
/// x translation reads back the time the pose was evaluated at. Clip 1 is 3 s long and slides
/// along y.
fn slider() -> AnimationController {
    let clip = |name: &str, end: f32, axis: usize| {
        let mut to = [0.0_f32; 3];
        to[axis] = end;
        Clip::new(
            name,
            vec![
                Sampler::new(
                    vec![0.0, end],
                    [[0.0; 3], to].concat(),
                    Interpolation::Linear,
                )
                .unwrap(),
            ],
            vec![Channel {
                sampler: 0,
                node: 0,
                path: ChannelPath::Translation,
            }],
        )
    };
    let data = AnimationData {
        nodes: vec![NodeRest::new("joint", None), NodeRest::new("mesh", None)],
        clips: vec![clip("x", 2.0, 0), clip("y", 3.0, 1)],
        skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap()],
        morph_bindings: vec![],
        handedness: Handedness::RightHanded,
    };
    let mut c = AnimationController::new(Arc::new(data)).unwrap();
    c.set_clip(Some(0)).unwrap();
    c
}

/// Ticks by `delta_ms` and returns (time, the bone's x and y translation).
fn tick(c: &mut AnimationController, delta_ms: f32) -> (f32, f32, f32) {
    let mut sink = RecordingSink::default();
    c.tick(delta_ms, &mut sink);
    (
        c.time,
        flat(&sink.bone_matrices[0])[12],
        flat(&sink.bone_matrices[0])[13],
    )
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn defaults() {
    let c = slider();
    assert_eq!(c.time, 0.0);
    assert!(c.playing);
    assert_eq!(c.speed_ratio, 1.0);
    assert!(c.looping);
    assert_eq!(c.duration(), 2.0);
}

#[test]
fn looping_wraps_past_the_end() {
    let mut c = slider();
    let (t, x, _) = tick(&mut c, 1500.0);
    assert!(close(t, 1.5) && close(x, 1.5));
    let (t, x, _) = tick(&mut c, 1000.0);
    assert!(close(t, 0.5) && close(x, 0.5), "wrapped to {t}, pose {x}");
    // Landing exactly on the end is the start of the next loop.
    let (t, x, _) = tick(&mut c, 1500.0);
    assert_eq!((t, x), (0.0, 0.0));
    // Several loops in one long step.
    let (t, _, _) = tick(&mut c, 7300.0);
    assert!(close(t, 1.3), "after 7.3 s: {t}");
}

#[test]
fn clamped_play_holds_the_ends() {
    let mut c = slider();
    c.looping = false;
    let (t, x, _) = tick(&mut c, 2500.0);
    assert_eq!((t, x), (2.0, 2.0));
    let (t, _, _) = tick(&mut c, 16.0);
    assert_eq!(t, 2.0, "stays at the end");
    c.speed_ratio = -1.0;
    let (t, x, _) = tick(&mut c, 500.0);
    assert!(close(t, 1.5) && close(x, 1.5));
    let (t, x, _) = tick(&mut c, 5000.0);
    assert_eq!((t, x), (0.0, 0.0), "clamps at the start going backwards");
}

#[test]
fn speed_ratio_scales_and_negative_speed_wraps_backwards() {
    let mut c = slider();
    c.speed_ratio = 2.0;
    let (t, _, _) = tick(&mut c, 250.0);
    assert!(close(t, 0.5));
    c.speed_ratio = -1.0;
    let (t, x, _) = tick(&mut c, 1000.0);
    assert!(close(t, 1.5) && close(x, 1.5), "0.5 − 1 wraps to {t}");
    c.speed_ratio = 0.0;
    let (t, _, _) = tick(&mut c, 1000.0);
    assert!(close(t, 1.5), "speed 0 holds");
    // A tiny step back from 0 must not land on the end itself (the loop is [0, duration)).
    c.time = 0.0;
    c.speed_ratio = -1.0;
    let (t, _, _) = tick(&mut c, 1e-6);
    assert!((0.0..2.0).contains(&t), "{t}");
}

#[test]
fn nan_and_infinite_steps_are_ignored() {
    let mut c = slider();
    tick(&mut c, 700.0);
    for delta in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let (t, x, _) = tick(&mut c, delta);
        assert!(
            close(t, 0.7) && close(x, 0.7),
            "delta {delta} moved the clock to {t}"
        );
    }
    for speed in [f32::NAN, f32::INFINITY] {
        c.speed_ratio = speed;
        let (t, _, _) = tick(&mut c, 16.0);
        assert!(close(t, 0.7), "speed {speed} moved the clock to {t}");
    }
    c.speed_ratio = 1.0;
    // A clock set to NaN from outside counts from 0 instead of staying poisoned.
    c.time = f32::NAN;
    let (t, x, _) = tick(&mut c, 100.0);
    assert!(close(t, 0.1) && close(x, 0.1), "{t}");
    c.time = f32::INFINITY;
    let (t, _, _) = tick(&mut c, 0.0);
    assert_eq!(t, 0.0);
}

#[test]
fn paused_keeps_the_time_but_still_poses() {
    let mut c = slider();
    tick(&mut c, 400.0);
    c.playing = false;
    let (t, x, _) = tick(&mut c, 1000.0);
    assert!(close(t, 0.4) && close(x, 0.4));
}

#[test]
fn without_a_clip_time_stays_at_zero_and_the_pose_is_at_rest() {
    let mut c = slider();
    c.set_clip(None).unwrap();
    assert_eq!(c.duration(), 0.0);
    let (t, x, _) = tick(&mut c, 500.0);
    assert_eq!((t, x), (0.0, 0.0));
}

#[test]
fn switching_clips_uses_the_new_duration() {
    let mut c = slider();
    tick(&mut c, 1500.0);
    c.set_clip(Some(1)).unwrap();
    assert_eq!(c.duration(), 3.0);
    let (t, x, y) = tick(&mut c, 1000.0);
    assert!(close(t, 2.5) && x == 0.0 && close(y, 2.5), "{t} {x} {y}");
    assert_eq!(
        c.set_clip(Some(2)),
        Err(AnimError::NoSuchClip {
            clip: 2,
            clip_count: 2
        })
    );
    assert_eq!(c.clip(), Some(1), "a refused clip leaves the choice alone");
}

#[test]
fn evaluate_at_does_not_move_the_clock() {
    let mut c = slider();
    tick(&mut c, 700.0);
    let mut sink = RecordingSink::default();
    c.evaluate_at(Some(0), 1.3, &mut sink).unwrap();
    assert!(
        close(flat(&sink.bone_matrices[0])[12], 1.3),
        "posed at the time asked for"
    );
    assert!(close(c.time, 0.7), "clock moved to {}", c.time);
    assert_eq!(c.clip(), Some(0));
    // Another clip, and times outside the clip, also leave clock and clip alone.
    c.evaluate_at(Some(1), 2.0, &mut sink).unwrap();
    assert!(close(flat(&sink.bone_matrices[0])[13], 2.0));
    c.evaluate_at(Some(0), -3.0, &mut sink).unwrap();
    assert_eq!(flat(&sink.bone_matrices[0])[12], 0.0);
    c.evaluate_at(Some(0), 99.0, &mut sink).unwrap();
    assert_eq!(
        flat(&sink.bone_matrices[0])[12],
        2.0,
        "not wrapped: the last key holds"
    );
    c.evaluate_at(None, 1.0, &mut sink).unwrap();
    assert_eq!(flat(&sink.bone_matrices[0])[12], 0.0, "rest pose");
    assert_eq!(
        c.evaluate_at(Some(5), 1.0, &mut sink),
        Err(AnimError::NoSuchClip {
            clip: 5,
            clip_count: 2
        })
    );
    assert!(close(c.time, 0.7));
    assert_eq!(c.clip(), Some(0));
    // The next tick carries on from the clock, not from the evaluated time.
    let (t, x, _) = tick(&mut c, 100.0);
    assert!(close(t, 0.8) && close(x, 0.8));
}

#[test]
fn debug_accessors_reflect_the_last_pose() {
    let mut c = slider();
    tick(&mut c, 500.0);
    assert_eq!(c.node_names().collect::<Vec<_>>(), ["joint", "mesh"]);
    assert_eq!(c.world_matrices().len(), 2);
    assert!(close(c.world_matrices()[0].w_axis.x, 0.5));
    assert!(close(c.bone_matrices(0).unwrap()[0].w_axis.x, 0.5));
    assert!(c.bone_matrices(1).is_none());
    assert!(c.morph_weights(0).is_none());
}

#[test]
fn a_culled_controller_keeps_time_but_poses_nothing_until_visible() {
    let mut c = slider();
    tick(&mut c, 250.0);
    c.visible = false;
    let mut sink = RecordingSink::default();
    for _ in 0..3 {
        c.tick(250.0, &mut sink);
    }
    assert!(close(c.time, 1.0), "the clock moved on: {}", c.time);
    assert!(sink.bone_matrices.is_empty(), "no pose while not visible");
    assert!(
        close(flat(c.bone_matrices(0).unwrap())[12], 0.25),
        "the last pose stays the one before culling"
    );
    c.visible = true;
    let (time, x, _) = tick(&mut c, 250.0);
    assert!(
        close(time, 1.25) && close(x, 1.25),
        "posed at its current time: {time}, {x}"
    );
}

#[test]
fn culled_groups_and_blends_keep_time_but_pose_nothing() {
    let data = slider().data().clone();
    let mut group = skel_anim::create_animation_groups(Arc::clone(&data))
        .unwrap()
        .remove(0);
    group.clock_mut().play();
    group.set_visible(false);
    let mut sink = RecordingSink::default();
    group.tick(500.0, &mut sink);
    assert!(!group.visible() && sink.bone_matrices.is_empty());
    assert!(close(group.clock().time(), 0.5));
    group.set_visible(true);
    group.tick(500.0, &mut sink);
    assert!(close(flat(&sink.bone_matrices[0])[12], 1.0));

    let mut blend = skel_anim::WeightedBlend::with_weights(data, &[(0, 1.0)]).unwrap();
    blend.set_visible(false);
    let mut sink = RecordingSink::default();
    blend.tick(500.0, &mut sink);
    assert!(!blend.visible() && sink.bone_matrices.is_empty());
    blend.set_visible(true);
    blend.tick(500.0, &mut sink);
    assert!(close(flat(&sink.bone_matrices[0])[12], 1.0));
}
