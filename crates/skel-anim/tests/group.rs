//! Animation groups and their playback clock: one group per clip sharing the keyframes, the pose
//! equal to the controller's at the group's time, and the clock's edge cases — delta 0, huge
//! deltas, NaN and infinite deltas, negative speed, time exactly at the end, looping and clamped,
//! sub-ranges, zero-length clips, play / pause / stop / restart / seek — plus zero allocations.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod playback_rig;

use std::sync::Arc;

use playback_rig::{DURATION, RUN, STILL, WALK, rig};
use skel_anim::{
    AnimError, AnimationController, AnimationData, AnimationGroup, PlaybackClock, RecordingSink,
    T_OFF, create_animation_groups, tick_animation,
};

fn data() -> Arc<AnimationData> {
    Arc::new(rig(6))
}

/// Bone matrices and morph weights of `clip` at `t` through the plain controller.
fn controller_pose(data: &Arc<AnimationData>, clip: usize, t: f32) -> RecordingSink {
    let mut c = AnimationController::new(data.clone()).unwrap();
    let mut sink = RecordingSink::default();
    c.evaluate_at(Some(clip), t, &mut sink).unwrap();
    sink
}

fn playing(duration: f32) -> PlaybackClock {
    let mut clock = PlaybackClock::new(duration);
    clock.play();
    clock
}

#[test]
fn one_group_per_clip_all_sharing_the_keyframes() {
    let data = data();
    let groups = create_animation_groups(data.clone()).unwrap();
    assert_eq!(groups.len(), data.clips.len());
    for (i, g) in groups.iter().enumerate() {
        assert_eq!(g.clip(), i);
        assert_eq!(g.name(), data.clips[i].name);
        assert!(Arc::ptr_eq(g.data(), &data), "no copy of the asset");
        assert!(!g.is_playing(), "groups start stopped, as Babylon's");
        assert_eq!(g.time(), 0.0);
        assert_eq!(g.clock().to(), data.clips[i].duration());
    }
    assert!(std::ptr::eq(
        groups[0].data().clips[0].samplers[0].output().as_ptr(),
        groups[1].data().clips[0].samplers[0].output().as_ptr(),
    ));
    assert!(matches!(
        AnimationGroup::new(data, 9),
        Err(AnimError::NoSuchClip { clip: 9, .. })
    ));
}

#[test]
fn a_group_poses_its_clip_at_its_time_exactly_as_the_controller() {
    let data = data();
    let mut groups = create_animation_groups(data.clone()).unwrap();
    let group = &mut groups[RUN];
    group.play();
    let mut sink = RecordingSink::default();
    for _ in 0..50 {
        tick_animation(group, 37.0, &mut sink);
        let want = controller_pose(&data, RUN, group.time());
        assert_eq!(
            sink.bone_matrices,
            want.bone_matrices,
            "at {} s",
            group.time()
        );
    }
    // Groups of one asset are independent: the walk group has not moved.
    assert_eq!(groups[WALK].time(), 0.0);
}

#[test]
fn delta_zero_and_bad_deltas_leave_the_clock_alone() {
    let mut clock = playing(2.0);
    clock.advance(500.0);
    for delta in [0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        clock.advance(delta);
        assert_eq!(clock.time(), 0.5, "delta {delta}");
        assert!(clock.is_playing() && !clock.is_finished());
    }
    // A bad speed is refused rather than stored.
    clock.set_speed_ratio(f32::NAN);
    clock.set_speed_ratio(f32::INFINITY);
    assert_eq!(clock.speed_ratio(), 1.0);
    // A huge but finite delta times a huge speed overflows f32 — still ignored, not NaN.
    clock.set_speed_ratio(f32::MAX);
    clock.advance(f32::MAX);
    assert!(clock.time().is_finite());
}

#[test]
fn a_paused_or_stopped_clock_does_not_move() {
    let mut clock = playing(2.0);
    clock.advance(300.0);
    clock.pause();
    clock.advance(300.0);
    assert_eq!(clock.time(), 0.3);
    clock.play();
    clock.advance(300.0);
    assert!((clock.time() - 0.6).abs() < 1e-6);
    clock.stop();
    assert_eq!(clock.time(), 0.0);
    assert!(!clock.is_playing());
    clock.advance(300.0);
    assert_eq!(clock.time(), 0.0);
}

#[test]
fn a_huge_delta_wraps_many_loops_in_one_tick() {
    let mut clock = playing(2.0);
    clock.advance(1000.0 * (2.0 * 1000.0 + 0.5)); // 1000 loops and a quarter
    assert!((clock.time() - 0.5).abs() < 1e-3, "time {}", clock.time());
    assert_eq!(clock.loops_this_tick(), 1000);
    clock.advance(10.0);
    assert_eq!(clock.loops_this_tick(), 0);
    // Days of clip time still land inside the range.
    clock.advance(1e11);
    assert!((0.0..2.0).contains(&clock.time()));
}

#[test]
fn negative_speed_plays_backwards_and_wraps_from_the_start_to_the_end() {
    let mut clock = playing(1.0);
    clock.set_speed_ratio(-1.0);
    clock.seek(0.1);
    clock.advance(200.0);
    assert!((clock.time() - 0.9).abs() < 1e-6, "time {}", clock.time());
    assert_eq!(clock.loops_this_tick(), 1);
    clock.set_speed_ratio(-2.0);
    clock.advance(100.0);
    assert!((clock.time() - 0.7).abs() < 1e-6);
}

#[test]
fn landing_exactly_on_the_end_wraps_when_looping() {
    let mut clock = playing(1.0);
    clock.advance(250.0);
    clock.advance(750.0);
    assert_eq!(
        clock.time(),
        0.0,
        "exactly at the end is the start of the next loop"
    );
    assert_eq!(clock.loops_this_tick(), 1);
    assert!(!clock.is_finished());
}

#[test]
fn landing_exactly_on_the_end_finishes_and_holds_when_clamped() {
    let data = data();
    let mut group = AnimationGroup::new(data.clone(), WALK).unwrap();
    group.set_looping(false);
    group.play();
    let mut sink = RecordingSink::default();
    group.tick(1000.0 * DURATION / 2.0, &mut sink);
    assert!(!group.is_finished());
    group.tick(1000.0 * DURATION / 2.0, &mut sink);
    assert_eq!(group.time(), DURATION);
    assert!(group.is_finished() && group.finished_this_tick());
    assert!(!group.is_playing());
    // The last frame is held.
    let last = controller_pose(&data, WALK, DURATION);
    assert_eq!(sink.bone_matrices, last.bone_matrices);
    // The flag is for one tick only; the finished state stays.
    group.tick(16.0, &mut sink);
    assert!(group.is_finished() && !group.finished_this_tick());
    assert_eq!(group.time(), DURATION);
    assert_eq!(sink.bone_matrices, last.bone_matrices);
    // Play again after the end starts over.
    group.play();
    assert_eq!(group.time(), 0.0);
    assert!(group.is_playing() && !group.is_finished());
}

#[test]
fn summed_frame_times_reach_the_end_on_the_right_frame() {
    // 60 frames of 1000/60 ms (not exact in binary) make one second: a clamped one-second
    // clock finishes on frame 60, not 61; a looping one wraps on frame 60. Backwards likewise.
    for speed in [1.0, -1.0] {
        let mut clamped = PlaybackClock::new(1.0);
        clamped.set_looping(false);
        clamped.set_speed_ratio(speed);
        clamped.play();
        let mut looping = playing(1.0);
        looping.set_speed_ratio(speed);
        if speed < 0.0 {
            looping.seek(1.0);
        }
        for frame in 1..=60 {
            clamped.advance(1000.0 / 60.0);
            looping.advance(1000.0 / 60.0);
            assert_eq!(
                clamped.is_finished(),
                frame == 60,
                "speed {speed}, frame {frame}"
            );
            // Forwards, reaching `to` is the next loop's start; backwards, reaching `from` is
            // still inside the range (the wrap comes on the next frame).
            let wraps = speed > 0.0 && frame == 60;
            assert_eq!(looping.loops_this_tick(), u32::from(wraps), "frame {frame}");
        }
        assert_eq!(clamped.time(), if speed > 0.0 { 1.0 } else { 0.0 });
        assert_eq!(looping.time(), 0.0);
        looping.advance(1000.0 / 60.0);
        let want = if speed > 0.0 { 1.0 / 60.0 } else { 59.0 / 60.0 };
        assert!(
            (looping.time() - want).abs() < 1e-6,
            "time {}",
            looping.time()
        );
        assert_eq!(looping.loops_this_tick(), u32::from(speed < 0.0));
    }
}

#[test]
fn overshooting_the_end_clamps_and_finishes_in_either_direction() {
    let mut clock = PlaybackClock::new(1.0);
    clock.set_looping(false);
    clock.play();
    clock.advance(5000.0);
    assert_eq!(clock.time(), 1.0);
    assert!(clock.finished_this_tick());

    let mut clock = PlaybackClock::new(1.0);
    clock.set_looping(false);
    clock.set_speed_ratio(-1.0);
    // Playing backwards from the start: play rewinds to the end first.
    clock.play();
    assert_eq!(clock.time(), 1.0);
    clock.advance(400.0);
    assert!((clock.time() - 0.6).abs() < 1e-6);
    clock.advance(600.0);
    assert_eq!(clock.time(), 0.0);
    assert!(clock.is_finished() && clock.finished_this_tick());
    clock.restart();
    assert_eq!(
        clock.time(),
        1.0,
        "restart goes to the start of the playing direction"
    );
}

#[test]
fn sub_ranges_loop_and_clamp_within_from_and_to() {
    let mut clock = playing(2.0);
    clock.set_range(0.5, 1.5).unwrap();
    assert_eq!(clock.time(), 0.5, "the time moves into the range");
    clock.advance(1250.0);
    assert!(
        (clock.time() - 0.75).abs() < 1e-6,
        "wrapped within the range"
    );
    clock.seek(9.0);
    assert_eq!(clock.time(), 1.5, "seek clamps to the range");
    clock.seek(f32::NAN);
    assert_eq!(clock.time(), 1.5);
    clock.stop();
    assert_eq!(clock.time(), 0.5, "stop goes back to from");
    clock.set_looping(false);
    clock.play();
    clock.advance(2000.0);
    assert_eq!(clock.time(), 1.5);
    assert!(clock.is_finished());
    for (from, to) in [(1.0, 0.5), (f32::NAN, 1.0), (0.0, f32::INFINITY)] {
        assert!(matches!(
            clock.set_range(from, to),
            Err(AnimError::BadPlaybackRange { .. })
        ));
    }
}

#[test]
fn go_to_frame_converts_frames_to_seconds() {
    let data = data();
    let mut group = AnimationGroup::new(data.clone(), RUN).unwrap();
    group.go_to_frame(30.0, 60.0);
    assert_eq!(group.time(), 0.5);
    let mut sink = RecordingSink::default();
    group.tick(100.0, &mut sink); // stopped: the time holds, the pose is written
    assert_eq!(group.time(), 0.5);
    assert_eq!(
        sink.bone_matrices,
        controller_pose(&data, RUN, 0.5).bone_matrices
    );
    group.go_to_frame(1.0, 0.0); // infinite time: ignored
    assert_eq!(group.time(), 0.5);
}

#[test]
fn a_zero_length_clip_holds_its_only_key() {
    let data = data();
    assert_eq!(data.clips[STILL].duration(), 0.0);
    let mut group = AnimationGroup::new(data.clone(), STILL).unwrap();
    group.play();
    let mut sink = RecordingSink::default();
    for delta in [0.0, 16.0, 1e9, -5.0] {
        group.tick(delta, &mut sink);
        assert_eq!(group.time(), 0.0);
        assert!(!group.is_finished(), "looping: never finishes");
        assert_eq!(group.player().scratch().trs[T_OFF + 2], 3.0);
    }
    group.set_looping(false);
    group.play();
    group.tick(0.0, &mut sink);
    assert!(!group.is_finished(), "no step, no end");
    group.tick(16.0, &mut sink);
    assert!(group.is_finished() && group.finished_this_tick());
    assert_eq!(group.time(), 0.0);
}

#[test]
fn ticking_a_group_allocates_nothing() {
    let data = data();
    let mut group = AnimationGroup::new(data, WALK).unwrap();
    group.play();
    group.set_speed_ratio(-1.3);
    let mut sink = RecordingSink::default();
    group.tick(16.0, &mut sink);
    let info = allocation_counter::measure(|| {
        for _ in 0..500 {
            group.tick(16.6, &mut sink);
        }
        group.seek(0.3);
        group.tick(1e7, &mut sink);
    });
    assert_eq!(info.count_total, 0, "{info:?}");
    let seen = allocation_counter::measure(|| drop(std::hint::black_box(vec![0_u8; 8])));
    assert_eq!(seen.count_total, 1, "the counter is installed");
}
