//! Foot placement over 1 000 characters, one frame per iteration: the synthetic biped (a
//! pelvis and two legs with toes) walking across a 10° `GroundPlane` at 60 Hz, each
//! character at its own phase of the walk and its own place, with its own state (locks,
//! eased ground, speeds). Each character's frame restores its clip pose (a 480-byte copy)
//! and solves it: rays, plant and lock, pelvis drop, two `TwoBoneIk` solves and the ankle
//! turns. `1000_characters_batch` places the same frame with one `solve_batch`.
//! `ground_casts` times the same number of plane casts alone, to show how little of
//! the frame the ground is. The target: at most 1 ms per frame on one core.
//!
//! Times are the benchmarking thread's CPU time, as skel-gltf's benches measure (the
//! development machine's two cores are shared: the wall clock there counts waiting for one).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benches")]

#[path = "../tests/foot_placement_biped/mod.rs"]
mod foot_placement_biped;

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use foot_placement_biped::{CYCLE, SPEED, biped, desc};
use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::{
    AnimError, FootBatchJob, FootPlacement, FootPlacementState, FootReport, GroundPlane,
    GroundQuery, PoseScratch, apply_clip,
};
use skel_test_support::cpu_clock::ThreadCpu;

const CHARACTERS: usize = 1_000;
/// Poses of one walk cycle at 60 Hz, shared by the characters at staggered phases.
const FRAMES: usize = 60;

fn foot_placement(c: &mut Criterion<ThreadCpu>) {
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    let a = 10_f32.to_radians();
    let ground = GroundPlane::through(Vec3::ZERO, Vec3::new(0.0, a.cos(), -a.sin())).unwrap();
    let mut scratch = PoseScratch::new(&data).unwrap();
    let poses: Vec<Vec<f32>> = (0..FRAMES)
        .map(|f| {
            apply_clip(
                &data,
                0,
                (f as f64 * CYCLE / FRAMES as f64) as f32,
                &mut scratch,
            );
            scratch.trs.clone()
        })
        .collect();
    let mut states: Vec<FootPlacementState> = (0..CHARACTERS)
        .map(|_| FootPlacementState::new(&placement))
        .collect();
    let mut trs: Vec<Vec<f32>> = (0..CHARACTERS).map(|_| poses[0].clone()).collect();
    let dt = 1.0 / 60.0;
    let mut frame = 0_usize;
    let root = move |i: usize, frame: usize| {
        // Side by side in rows of 40, each walking up the slope.
        let z = (SPEED * frame as f64 * f64::from(dt)) as f32 + (i / 40) as f32;
        Affine3A::from_translation(Vec3::new((i % 40) as f32, z * a.tan(), z))
    };
    c.bench_function("foot_placement/1000_characters", |b| {
        b.iter(|| {
            frame += 1;
            for (i, (state, pose)) in states.iter_mut().zip(&mut trs).enumerate() {
                pose.copy_from_slice(&poses[(frame + i) % FRAMES]);
                let report = placement
                    .solve(state, &data, pose, &root(i, frame), &ground, dt)
                    .unwrap();
                black_box(report);
            }
        });
    });
    // The same frame through `solve_batch`: two characters' legs share the SIMD lanes.
    let mut reports: Vec<Result<FootReport, AnimError>> =
        (0..CHARACTERS).map(|_| Ok(FootReport::default())).collect();
    c.bench_function("foot_placement/1000_characters_batch", |b| {
        b.iter(|| {
            frame += 1;
            for (i, pose) in trs.iter_mut().enumerate() {
                pose.copy_from_slice(&poses[(frame + i) % FRAMES]);
            }
            let mut jobs: Vec<FootBatchJob> = states
                .iter_mut()
                .zip(&mut trs)
                .enumerate()
                .map(|(i, (state, pose))| FootBatchJob {
                    state,
                    trs: pose,
                    root: root(i, frame),
                })
                .collect();
            placement
                .solve_batch(&data, &mut jobs, &mut reports, &ground, dt)
                .unwrap();
            black_box(&reports);
        });
    });
    // The rays alone: two or three per foot per frame (ankle, toes, and a held foot's toes).
    c.bench_function("foot_placement/1000_characters_ground_casts", |b| {
        b.iter(|| {
            frame += 1;
            for i in 0..CHARACTERS {
                let origin = root(i, frame).transform_point3(Vec3::new(0.1, 0.5, 0.0));
                for ray in 0..5 {
                    let at = origin + Vec3::new(0.0, 0.0, ray as f32 * 0.05);
                    black_box(ground.cast(black_box(at), Vec3::NEG_Y, 1.0));
                }
            }
        });
    });
}

fn main() {
    let mut c = Criterion::default()
        .with_measurement(ThreadCpu)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
        .configure_from_args();
    foot_placement(&mut c);
    c.final_summary();
}
