//! One solve of each IK job, as a player or a batch runs it per character per frame:
//!
//! - `ik/fabrik_6x10`: a 6-joint chain, FABRIK, 10 iterations run in full (tolerance 0),
//!   pole on, no limits (the budget: at most 1 µs);
//! - `ik/fabrik_6x10_batch64`: 64 of those chains (targets a little apart) in one
//!   `ChainIk::solve_batch`, four at a time in SIMD lanes; criterion's time is per call, so
//!   divide by 64 for a solve;
//! - `ik/fabrik_6x10_limits`: the same with a cone on every joint (rotations every iteration);
//! - `ik/ccd_6x10`: the same chain by CCD, 10 sweeps;
//! - `ik/look_at_3`: spine, neck and head;
//! - `ik/full_body_4`: both hands and both feet out of reach (pelvis, 2-joint spine, 4 limbs);
//! - `ik/two_bone`: `TwoBoneIk` (ozz's `IKTwoBoneJob` is the reference for this case).
//!
//! `cargo bench -p skel-anim --bench ik` (add `-- --quick` for a short run).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benches")]

mod ik_chain;

use std::hint::black_box;

use criterion::Criterion;
use glam::{Affine3A, Quat, Vec3};
use ik_chain::chain;
use skel_anim::TwoBoneIk;
use skel_anim::ik::{
    BodyPose, ChainIk, ChainJob, ChainSolution, ChainSolver, Effector, FullBodyIk, JointLimit,
    JointShare, LookAtIk,
};

fn body() -> BodyPose {
    let pelvis = Affine3A::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let mut pose = BodyPose::new(pelvis);
    pose.spine_count = 2;
    pose.spine[0] = pelvis * Affine3A::from_translation(Vec3::new(0.0, 0.2, 0.0));
    pose.spine[1] = pose.spine[0] * Affine3A::from_translation(Vec3::new(0.0, 0.25, 0.0));
    let limb = |anchor: Affine3A, at: Vec3, down: f32| {
        let a = anchor * Affine3A::from_translation(at);
        let b = a * Affine3A::from_translation(Vec3::new(0.0, -down, 0.02));
        [
            a,
            b,
            b * Affine3A::from_translation(Vec3::new(0.0, -down, -0.02)),
        ]
    };
    pose.limbs[0] = Some(limb(pose.spine[1], Vec3::new(0.2, 0.1, 0.0), 0.27));
    pose.limbs[1] = Some(limb(pose.spine[1], Vec3::new(-0.2, 0.1, 0.0), 0.27));
    pose.limbs[2] = Some(limb(pelvis, Vec3::new(0.1, -0.05, 0.0), 0.45));
    pose.limbs[3] = Some(limb(pelvis, Vec3::new(-0.1, -0.05, 0.0), 0.45));
    pose
}

fn benches(c: &mut Criterion) {
    let models = chain();
    let fabrik = ChainIk {
        solver: ChainSolver::Fabrik,
        target: Vec3::new(0.9, 1.7, 0.3),
        pole: Some(Vec3::Z),
        iterations: 10,
        tolerance: 0.0,
        ..ChainIk::default()
    };
    let mut out = [Quat::IDENTITY; 6];
    c.bench_function("ik/fabrik_6x10", |b| {
        b.iter(|| black_box(fabrik.solve(black_box(&models), &[], &mut out).unwrap()));
    });
    let mut outs = [[Quat::IDENTITY; 6]; 64];
    let mut solutions: Vec<_> = (0..64).map(|_| Ok(ChainSolution::default())).collect();
    c.bench_function("ik/fabrik_6x10_batch64", |b| {
        b.iter(|| {
            let mut outs = outs.iter_mut();
            let mut jobs: [ChainJob; 64] = std::array::from_fn(|k| ChainJob {
                ik: ChainIk {
                    target: fabrik.target + Vec3::splat(1e-3 * k as f32),
                    ..fabrik
                },
                models: black_box(&models),
                limits: &[],
                from_rest: &[],
                corrections: outs.next().unwrap(),
            });
            ChainIk::solve_batch(&mut jobs, &mut solutions).unwrap();
        });
    });
    let cones = [JointLimit::cone(Vec3::Y, 0.6, 0.3); 6];
    c.bench_function("ik/fabrik_6x10_limits", |b| {
        b.iter(|| black_box(fabrik.solve(black_box(&models), &cones, &mut out).unwrap()));
    });
    let ccd = ChainIk {
        solver: ChainSolver::Ccd,
        ..fabrik
    };
    c.bench_function("ik/ccd_6x10", |b| {
        b.iter(|| black_box(ccd.solve(black_box(&models), &[], &mut out).unwrap()));
    });
    let look = LookAtIk {
        target: Vec3::new(2.0, 2.5, 1.0),
        ..LookAtIk::default()
    };
    let shares = [JointShare::default(); 3];
    c.bench_function("ik/look_at_3", |b| {
        b.iter(|| {
            black_box(
                look.solve(black_box(&models[3..]), &shares, &mut out[3..])
                    .unwrap(),
            )
        });
    });
    let pose = body();
    let mut full = FullBodyIk::default();
    for (e, target) in [
        (Effector::LeftHand, Vec3::new(0.9, 1.4, 0.4)),
        (Effector::RightHand, Vec3::new(-0.9, 1.5, 0.3)),
        (Effector::LeftFoot, Vec3::new(0.15, -0.2, 0.1)),
        (Effector::RightFoot, Vec3::new(-0.15, -0.1, -0.1)),
    ] {
        let goal = full.goal_mut(e);
        goal.target = target;
        goal.weight = 1.0;
    }
    c.bench_function("ik/full_body_4", |b| {
        b.iter(|| black_box(full.solve(black_box(&pose)).unwrap()));
    });
    let two = TwoBoneIk {
        target: Vec3::new(0.3, 1.2, 0.2),
        pole: Vec3::Z,
        ..TwoBoneIk::default()
    };
    c.bench_function("ik/two_bone", |b| {
        b.iter(|| {
            black_box(
                two.solve(black_box(&models[0]), &models[1], &models[2])
                    .unwrap(),
            )
        });
    });
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
