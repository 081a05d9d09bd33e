//! Chain IK (FABRIK and CCD) against f64 references: random chains of 2 to 8 joints (random
//! rest transforms, bone lengths from equal to 100:1, a root frame that is rotated, uniformly
//! scaled and mirrored or not), random targets inside and outside reach, random poles.
//! Corrections are applied to an f32 TRS buffer with `apply_correction` and the positions
//! recomputed in f64 from that buffer; the references are this file's own f64 FABRIK and CCD
//! on positions (model-frame rotations), which share no code with the solver. Limits, frames
//! and weights are in `ik_chain_limits.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod ik_chain_support;

use glam::{DQuat, DVec3};
use ik_chain_support::{chain, close, lengths_kept, on_one_line, positions, solve, target, unit};
use proptest::prelude::*;
use skel_anim::ik::{ChainIk, ChainSolver};

/// Rotates the points after `from` about `pivot` by `q` (model frame).
fn turn_after(p: &mut [DVec3], from: usize, q: DQuat) {
    let pivot = p[from];
    for x in &mut p[from + 1..] {
        *x = pivot + q * (*x - pivot);
    }
}

/// The reference pole step: every joint turned about the root → tip line so that the
/// interior joints' mean offset faces the pole.
fn face_pole(p: &mut [DVec3], pole: DVec3) {
    let n = p.len();
    let Some(axis) = (p[n - 1] - p[0]).try_normalize() else {
        return;
    };
    let off = |v: DVec3| v - axis * axis.dot(v);
    let bend: DVec3 = p[1..n - 1].iter().map(|&x| off(x - p[0])).sum();
    let (Some(b), Some(w)) = (bend.try_normalize(), off(pole).try_normalize()) else {
        return;
    };
    if n < 3 {
        return;
    }
    let angle = axis.dot(b.cross(w)).atan2(b.dot(w));
    turn_after(p, 0, DQuat::from_axis_angle(axis, angle));
}

fn straight(p: &mut [DVec3], lengths: &[f64], target: DVec3) -> bool {
    let Some(dir) = (target - p[0]).try_normalize() else {
        return false;
    };
    if (target - p[0]).length() < lengths.iter().sum::<f64>() {
        return false;
    }
    for i in 1..p.len() {
        p[i] = p[i - 1] + dir * lengths[i - 1];
    }
    true
}

/// The reference FABRIK: positions only, every iteration run (tolerance 0).
fn fabrik_reference(
    mut p: Vec<DVec3>,
    lengths: &[f64],
    target: DVec3,
    pole: Option<DVec3>,
    iterations: u32,
) -> Vec<DVec3> {
    let n = p.len();
    if !straight(&mut p, lengths, target) {
        let root = p[0];
        for _ in 0..iterations {
            p[n - 1] = target;
            for i in (0..n - 1).rev() {
                p[i] = p[i + 1] + (p[i] - p[i + 1]).normalize() * lengths[i];
            }
            p[0] = root;
            for i in 0..n - 1 {
                p[i + 1] = p[i] + (p[i + 1] - p[i]).normalize() * lengths[i];
            }
        }
    }
    if let Some(pole) = pole {
        face_pole(&mut p, pole);
    }
    p
}

/// The reference CCD (textbook, no limits): model-frame arcs, tip first, every sweep run.
fn ccd_reference(
    mut p: Vec<DVec3>,
    lengths: &[f64],
    target: DVec3,
    pole: Option<DVec3>,
    iterations: u32,
) -> Vec<DVec3> {
    let n = p.len();
    if straight(&mut p, lengths, target) {
        return p;
    }
    for _ in 0..iterations {
        for i in (0..n - 1).rev() {
            let (e, t) = (p[n - 1] - p[i], target - p[i]);
            if let (Some(e), Some(t)) = (e.try_normalize(), t.try_normalize()) {
                turn_after(&mut p, i, DQuat::from_rotation_arc(e, t));
            }
        }
        if let Some(pole) = pole {
            face_pole(&mut p, pole);
        }
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Reachable target, no limits: FABRIK ends within 1e-5 of the chain of the target (half
    /// that asked as its tolerance, half left to the f32 pose; 1e-4 m on a 10 m chain), reports
    /// `reached`, keeps every bone's length to 1e-5. Targets from 30 % of the way between the
    /// least and the full reach: closer to the fully folded chain FABRIK converges slowly (a
    /// straight 4:1:5 chain with the target at 10 % was still 0.3 % of the chain off after 200
    /// iterations; a 2:3 one at 2 %, 0.07 %), and near 30 % some need more than 200 (a 3-bone
    /// chain at 30 % took 223), so up to 1000 are allowed.
    #[test]
    fn fabrik_reaches_reachable_targets(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                                        reach in 0.3..0.95f64) {
        // One bone reaches only the sphere of its length (the straightening test covers it).
        prop_assume!(c.n > 2);
        let target = target(&c, dir, reach);
        let ik = ChainIk {
            target,
            iterations: 1000,
            tolerance: (5e-6 * c.total()) as f32,
            ..ChainIk::default()
        };
        let (s, trs) = solve(&c, &ik, &[], &[]);
        let p = positions(&trs, c.n);
        let miss = (p[c.n - 1] - target.as_dvec3()).length();
        prop_assert!(s.reached, "{s:?}");
        prop_assert!(miss <= close(&c), "tip misses by {miss} of {}", c.total());
        lengths_kept(&c, &p)?;
    }

    /// Reachable target, no limits, CCD: the tip never moves away from the target as sweeps
    /// are added (each turn puts the tip at the point of its circle nearest the target), bone
    /// lengths are kept, and a reported `reached` is true of the f64 pose. (CCD need not
    /// converge: where the chain must fold back over a joint whose lines to the tip and to the
    /// target coincide it stalls, and it creeps on long chains; FABRIK is the one asked to
    /// reach.)
    #[test]
    fn ccd_closes_in_on_reachable_targets(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                                          reach in 0.02..0.95f64) {
        let target = target(&c, dir, reach);
        let tolerance = (5e-6 * c.total()) as f32;
        let mut last = f64::INFINITY;
        for iterations in [1, 2, 4, 8, 16, 64] {
            let ik = ChainIk { solver: ChainSolver::Ccd, target, iterations, tolerance, ..ChainIk::default() };
            let (s, trs) = solve(&c, &ik, &[], &[]);
            let p = positions(&trs, c.n);
            let miss = (p[c.n - 1] - target.as_dvec3()).length();
            prop_assert!(miss <= last + close(&c), "{iterations} sweeps: {miss} after {last}");
            prop_assert!(!s.reached || miss <= close(&c), "{s:?} but misses by {miss}");
            lengths_kept(&c, &p)?;
            last = miss;
        }
    }

    /// Out of reach: both solvers give the straight chain on the root → target line.
    #[test]
    fn unreachable_targets_straighten(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                                      reach in 1.001..4.0f64, ccd in any::<bool>(),
                                      pole in prop::array::uniform3(-1.0..1.0f64)) {
        let target = target(&c, dir, reach);
        let ik = ChainIk {
            solver: if ccd { ChainSolver::Ccd } else { ChainSolver::Fabrik },
            target,
            pole: Some(unit(pole).as_vec3()),
            ..ChainIk::default()
        };
        let (s, trs) = solve(&c, &ik, &[], &[]);
        prop_assert!(!s.reached);
        let p = positions(&trs, c.n);
        let toward = (target.as_dvec3() - p[0]).normalize();
        let mut along = 0.0;
        for i in 1..c.n {
            along += c.lengths[i - 1];
            let off = (p[i] - (p[0] + toward * along)).length();
            prop_assert!(off <= close(&c), "joint {i} off the line by {off}");
        }
    }

    /// No limits, with or without a pole, every iteration run: FABRIK's joint positions match
    /// the f64 reference FABRIK's, CCD's the reference CCD's.
    #[test]
    fn solvers_match_the_f64_references(c in chain(), dir in prop::array::uniform3(-1.0..1.0f64),
                                        reach in 0.02..1.5f64, ccd in any::<bool>(),
                                        pole in prop::option::of(prop::array::uniform3(-1.0..1.0f64)),
                                        iterations in 1u32..12) {
        let target = target(&c, dir, reach);
        let pole = pole.map(|p| unit(p).as_vec3());
        let ik = ChainIk {
            solver: if ccd { ChainSolver::Ccd } else { ChainSolver::Fabrik },
            target,
            pole,
            iterations,
            tolerance: 0.0,
            ..ChainIk::default()
        };
        // A chain lying on the target's line is bent first by the solver (documented); the
        // reference has no such rule.
        prop_assume!(!on_one_line(&c, target));
        let p0 = positions(&c.trs, c.n);
        let (_, trs) = solve(&c, &ik, &[], &[]);
        let p = positions(&trs, c.n);
        let pole = pole.map(|p| p.as_dvec3());
        let want = if ccd {
            ccd_reference(p0, &c.lengths, target.as_dvec3(), pole, iterations)
        } else {
            fabrik_reference(p0, &c.lengths, target.as_dvec3(), pole, iterations)
        };
        for i in 0..c.n {
            let off = (p[i] - want[i]).length();
            prop_assert!(off <= 1e-4 * c.total(), "joint {i} off the reference by {off} of {}", c.total());
        }
    }
}
