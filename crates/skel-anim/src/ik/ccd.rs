//! CCD for [`ChainIk`](super::ChainIk) ([`ChainSolver::Ccd`](super::ChainSolver::Ccd) and
//! [`ChainSolver::CcdThreeJs`](super::ChainSolver::CcdThreeJs)): cyclic coordinate descent.
//!
//! # Algorithm
//!
//! Each iteration is one sweep over the joints from the tip's parent down to the root. At
//! joint `i`, with the tip `e` and the target `t` seen from the joint (its local space), the
//! joint turns so that the line to the tip points at the target, by at most
//! [`max_step`](super::ChainIk::max_step), and is clamped to its limit; the tip moves with it
//! and the sweep goes on to the parent. After the sweep the pole step runs (see
//! [`chain`](super::chain)); the iterations stop once the tip is within the tolerance.
//!
//! # The textbook mode and three.js's
//!
//! [`ChainSolver::Ccd`](super::ChainSolver::Ccd):
//! - a target at or past the chain's length straightens the chain first (as FABRIK's step 1),
//!   so the answer is exact rather than approached over many sweeps;
//! - a hinge turns by the angle about its axis that best points the tip at the target (the
//!   projection of `e` and `t` onto the hinge's plane), then that angle is clamped;
//! - other joints turn by the shortest arc `e → t`, then are clamped ([`JointLimit`](super::JointLimit)).
//!
//! [`ChainSolver::CcdThreeJs`](super::ChainSolver::CcdThreeJs) follows three.js's `CCDIKSolver.updateOne` (0.187) step by
//! step, to match it (`scripts/peer/three-ik` writes goldens from it):
//! - the turn is `acos(ê · t̂)` about `ê × t̂`; a turn under 1e-5 rad is skipped, and a sweep
//!   in which no joint turned ends the iterations (three.js's `rotated` flag);
//! - [`max_step`](super::ChainIk::max_step) is its `ik.maxAngle`;
//! - a hinge is its `limitation`: the rotation keeps its `w` (its whole angle) and its axis is
//!   put on the hinge, signed by the side the rotation's axis was on (a rotation about
//!   another axis becomes one about the hinge by the same angle: the textbook hinge keeps
//!   only the part about the axis). The hinge's `min..=max` is then applied;
//! - [`JointLimit::Euler`](super::JointLimit::Euler) is its `rotationMin` / `rotationMax`,
//!   read and written as three.js's XYZ Euler angles;
//! - its limits bound the local rotation itself (three.js has no rest reference): pass each
//!   joint's local rotation as its rotation "from rest"
//!   ([`ChainIk::solve_from_rest`](super::ChainIk::solve_from_rest));
//! - no straightening shortcut, and the chain weight blends by normalised lerp where three.js
//!   slerps (they agree at weight 0 and 1).
//!
//! # Degenerate cases
//!
//! A chain lying straight on the root → target line, target in reach, cannot bend by itself
//! (every arc is zero): in the textbook mode its interior joints are first bent by 0.02 rad
//! towards the pole (or any side). A tip or target on the joint being turned (no direction from it) skips that joint for the
//! sweep; in three.js's mode so does a half-turn (the arc's axis is not defined).

use glam::{DQuat, DVec3};

use super::links::{Goal, Links, straight_bend_side};

/// Runs CCD on `links` (corrections start at the identity); returns the sweeps run.
pub(crate) fn solve(links: &mut Links<'_>, goal: &Goal, three: bool) -> u32 {
    let n = links.n;
    links.start(three);
    if goal.iterations == 0 {
        return 0;
    }
    if !three && super::fabrik::straighten(links, goal) && !links.limited() {
        return 1;
    }
    if !three {
        unbend(links, goal);
    }
    let mut used = 0;
    while used < goal.iterations {
        if (links.tip() - goal.target).length() <= goal.tolerance {
            break;
        }
        used += 1;
        let mut tip = links.tip();
        let mut turned = false;
        for i in (0..n - 1).rev() {
            let frame = links.frames[i];
            let inverse = frame.inverse();
            let e = inverse.transform_point3(tip);
            let t = inverse.transform_point3(goal.target);
            let old = links.corr[i];
            let new = if three {
                let Some(step) = three_step(e, t, goal.max_step) else {
                    continue;
                };
                links.clamp(i, (old * step).normalize(), true)
            } else {
                links.turn(i, old, e, old * t, goal.max_step)
            };
            turned = true;
            links.corr[i] = new;
            links.set_frame(i, links.frame_before(i));
            tip = links.frames[i].transform_point3(e);
        }
        links.forward();
        if let Some(pole) = goal.pole {
            links.face_pole(pole, three);
        }
        if three && !turned {
            break;
        }
    }
    used
}

/// A chain lying straight on the root → target line (target in reach) cannot bend by
/// itself (every arc is zero): each interior joint is first bent by 0.02 rad about the axis
/// across the line and the pole (or any side), then clamped to its limit.
fn unbend(links: &mut Links<'_>, goal: &Goal) {
    let n = links.n;
    let root = links.frames[0].translation;
    let Some(line) = (goal.target - root).try_normalize() else {
        return;
    };
    let points = links.frames[1..n].iter().map(|f| f.translation);
    let Some(side) = straight_bend_side(points, root, line, n, links.total, goal.pole) else {
        return;
    };
    let across = line.cross(side);
    for i in 1..n - 1 {
        let Some(axis) = (links.frames[i].matrix3.inverse() * across).try_normalize() else {
            continue;
        };
        let bent = links.corr[i] * DQuat::from_axis_angle(axis, 0.02);
        links.corr[i] = links.clamp(i, bent, false);
        links.forward();
    }
}

/// three.js's turn of one link: `acos(ê · t̂)` (clamped to `max_step`) about `ê × t̂`, in the
/// link's local space; `None` when it skips the link.
fn three_step(e: DVec3, t: DVec3, max_step: f64) -> Option<DQuat> {
    let (e, t) = (e.try_normalize()?, t.try_normalize()?);
    let angle = t.dot(e).clamp(-1.0, 1.0).acos();
    if angle < 1e-5 {
        return None;
    }
    let axis = e.cross(t).try_normalize()?;
    Some(DQuat::from_axis_angle(axis, angle.min(max_step)))
}
