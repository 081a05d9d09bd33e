//! The seed's test 9: `tick` allocates nothing. A counting global allocator (this test binary
//! only, from the `allocation-counter` crate) counts every allocation made on the measuring thread
//! while the controller ticks a generated 64-joint rig whose clip animates translation, rotation
//! and scale of every joint (STEP, LINEAR and CUBICSPLINE) plus morph weights, over thousands of
//! frames with loop wrap-around, backwards play, clamped play and a bone-control hook installed.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use skel_anim::glam::Mat4;

use skel_anim::{
    AnimationController, NullSink, PoseHook, PoseSink, R_OFF, RecordingSink, S_OFF, TRS_STRIDE,
};

/// Heap allocations made by this thread while `f` runs (`allocation-counter` counts per
/// thread, so tests running side by side do not disturb each other).
fn allocations_during(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

/// A hook that edits the pose in place, as bone control does: moves one joint and hides
/// another. It allocates nothing itself, so any allocation seen is the controller's.
#[derive(Debug)]
struct EditInPlace;

impl PoseHook for EditInPlace {
    fn before_channels(&self, trs: &mut [f32]) {
        trs[TRS_STRIDE + R_OFF + 3] = 1.0;
    }
    fn after_channels(&self, trs: &mut [f32]) {
        trs[2 * TRS_STRIDE + S_OFF..2 * TRS_STRIDE + S_OFF + 3].fill(0.0);
    }
}

/// A sink that only reads what it is given (and keeps a checksum, so the work is not skipped).
#[derive(Default)]
struct Checksum(f64);

impl PoseSink for Checksum {
    fn bone_matrices(&mut self, _binding: usize, matrices: &[Mat4]) {
        self.0 += matrices
            .iter()
            .flat_map(Mat4::to_cols_array)
            .map(f64::from)
            .sum::<f64>();
    }
    fn morph_weights(&mut self, _binding: usize, weights: &[f32]) {
        self.0 += weights.iter().map(|&v| f64::from(v)).sum::<f64>();
    }
}

#[test]
fn the_counter_sees_allocations() {
    // Without this the test below could pass with a counter that counts nothing.
    let n = allocations_during(|| {
        let v = std::hint::black_box(vec![1.0_f32; 64]);
        drop(v);
    });
    assert_eq!(n, 1, "one allocation");
}

#[test]
fn tick_allocates_nothing_on_a_64_joint_rig() {
    let data = common::generated_rig(64, 4, 0x5eed);
    assert!(data.skeletons[0].bone_count() >= 60);
    let clip = &data.clips[0];
    for joint in 1..=64 {
        for path in [
            skel_anim::ChannelPath::Translation,
            skel_anim::ChannelPath::Rotation,
            skel_anim::ChannelPath::Scale,
        ] {
            assert!(
                clip.channels
                    .iter()
                    .any(|c| c.node == joint && c.path == path)
            );
        }
    }
    let duration = clip.duration();
    let mut controller = AnimationController::new(Arc::new(data)).unwrap();
    controller.set_clip(Some(0)).unwrap();
    controller.set_pose_hook(Some(Arc::new(EditInPlace)));

    // A RecordingSink grows on its first use of each binding; after that it only copies.
    let mut recording = RecordingSink::default();
    controller.tick(0.0, &mut recording);
    let mut checksum = Checksum::default();
    let mut null = NullSink;

    let frames = 3000;
    let mut wraps = 0;
    let n = allocations_during(|| {
        let mut last = controller.time;
        for frame in 0..frames {
            match frame {
                // Backwards for a while, wrapping from the start to the end.
                1000 => controller.speed_ratio = -1.5,
                // Clamped play, into the end and staying there.
                2000 => {
                    controller.speed_ratio = 1.0;
                    controller.looping = false;
                }
                _ => {}
            }
            let dt = 16.0 + (frame % 7) as f32;
            match frame % 3 {
                0 => controller.tick(dt, &mut recording),
                1 => controller.tick(dt, &mut checksum),
                _ => controller.tick(dt, &mut null),
            }
            let forward = controller.speed_ratio > 0.0;
            if controller.looping && (forward == (controller.time < last)) {
                wraps += 1;
            }
            last = controller.time;
        }
    });
    assert_eq!(n, 0, "tick allocated {n} times over {frames} frames");
    assert!(
        wraps >= 10,
        "the clip ({duration} s) should wrap many times, wrapped {wraps}"
    );
    assert!(checksum.0.is_finite() && checksum.0 != 0.0);
    assert_eq!(controller.time, duration, "clamped play holds the end");
    assert_eq!(recording.bone_matrices[0].len(), 64);
    assert_eq!(recording.morph_weights[0].len(), 4);

    // Scrubbing with evaluate_at allocates nothing either.
    let n = allocations_during(|| {
        for i in 0..200 {
            controller
                .evaluate_at(Some(0), i as f32 * 0.013, &mut null)
                .unwrap();
        }
        controller.evaluate_at(None, 0.0, &mut null).unwrap();
    });
    assert_eq!(n, 0, "evaluate_at allocated {n} times");
}
