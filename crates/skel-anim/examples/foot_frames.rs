//! Foot placement frames as a plain program for instruction counts (valgrind
//! `--tool=cachegrind --cache-sim=no`, the difference of two runs that differ only in FRAMES)
//! and times: the `foot_placement` bench's frame (`benches/foot_placement.rs`): CHARACTERS
//! copies of the synthetic biped walking up a 10° `GroundPlane`, each at its own phase and
//! place, one `FootPlacement::solve` per character per frame.
//!
//! ```text
//! foot_frames CHARACTERS FRAMES [batch]
//! ```
//!
//! With `batch`, each frame places every character in one `FootPlacement::solve_batch`.
//!
//! Prints `characters N frames F ns_per_frame T checksum C`. `scripts/ik/count.sh foot`
//! drives it. `SKEL_KERNELS=baseline` in the environment runs the baseline (SSE2) build of the
//! job instead of the widest this CPU has, for A/B runs.

#[path = "../tests/foot_placement_biped/mod.rs"]
mod foot_placement_biped;

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use foot_placement_biped::{CYCLE, SPEED, biped, desc};
use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::{
    AnimError, CpuKernels, FootBatchJob, FootPlacement, FootPlacementState, FootReport,
    GroundPlane, PoseScratch, apply_clip,
};

/// Poses of one walk cycle at 60 Hz, shared by the characters at staggered phases.
const POSES: usize = 60;

fn main() -> ExitCode {
    let batch = std::env::args().any(|a| a == "batch");
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let [characters, frames] = args[..] else {
        eprintln!("usage: foot_frames CHARACTERS FRAMES");
        return ExitCode::FAILURE;
    };
    let data = biped();
    let Ok(placement) = FootPlacement::new(&data, &desc()) else {
        eprintln!("foot_frames: the biped has no legs");
        return ExitCode::FAILURE;
    };
    let placement = if std::env::var_os("SKEL_KERNELS").is_some_and(|v| v == "baseline") {
        placement.with_kernels(CpuKernels::Baseline)
    } else {
        placement
    };
    let a = 10_f32.to_radians();
    let Ok(ground) = GroundPlane::through(Vec3::ZERO, Vec3::new(0.0, a.cos(), -a.sin())) else {
        return ExitCode::FAILURE;
    };
    let Ok(mut scratch) = PoseScratch::new(&data) else {
        return ExitCode::FAILURE;
    };
    #[expect(clippy::cast_precision_loss, reason = "small counts")]
    let poses: Vec<Vec<f32>> = (0..POSES)
        .map(|f| {
            #[expect(clippy::cast_possible_truncation, reason = "seconds of a cycle")]
            let t = (f as f64 * CYCLE / POSES as f64) as f32;
            apply_clip(&data, 0, t, &mut scratch);
            scratch.trs.clone()
        })
        .collect();
    let mut states: Vec<FootPlacementState> = (0..characters)
        .map(|_| FootPlacementState::new(&placement))
        .collect();
    let mut trs: Vec<Vec<f32>> = (0..characters).map(|_| poses[0].clone()).collect();
    let dt = 1.0 / 60.0;
    #[expect(clippy::cast_precision_loss, reason = "small counts")]
    #[expect(clippy::cast_possible_truncation, reason = "metres")]
    let root = |i: usize, frame: usize| {
        // Side by side in rows of 40, each walking up the slope.
        let z = (SPEED * frame as f64 * f64::from(dt)) as f32 + (i / 40) as f32;
        Affine3A::from_translation(Vec3::new((i % 40) as f32, z * a.tan(), z))
    };
    let mut checksum = 0.0_f64;
    let start = Instant::now();
    let mut reports: Vec<Result<FootReport, AnimError>> =
        (0..characters).map(|_| Ok(FootReport::default())).collect();
    for frame in 0..frames {
        if batch {
            for (i, pose) in trs.iter_mut().enumerate() {
                pose.copy_from_slice(&poses[(frame + i) % POSES]);
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
            if let Err(e) = placement.solve_batch(&data, &mut jobs, &mut reports, &ground, dt) {
                eprintln!("foot_frames: {e}");
                return ExitCode::FAILURE;
            }
        } else {
            for (i, ((state, pose), report)) in states
                .iter_mut()
                .zip(&mut trs)
                .zip(&mut reports)
                .enumerate()
            {
                pose.copy_from_slice(&poses[(frame + i) % POSES]);
                *report = placement.solve(state, &data, pose, &root(i, frame), &ground, dt);
            }
        }
        for report in &reports {
            match report {
                Ok(report) => checksum += f64::from(black_box(report).pelvis_drop),
                Err(e) => {
                    eprintln!("foot_frames: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    #[expect(clippy::cast_precision_loss, reason = "small counts")]
    let ns = start.elapsed().as_secs_f64() * 1e9 / frames.max(1) as f64;
    println!("characters {characters} frames {frames} ns_per_frame {ns:.1} checksum {checksum:.6}");
    ExitCode::SUCCESS
}
