//! FABRIK for [`ChainIk`](super::ChainIk) ([`ChainSolver::Fabrik`](super::ChainSolver::Fabrik)):
//! Aristidou and Lasenby's "Forward And Backward Reaching Inverse Kinematics" (2011).
//!
//! # Algorithm
//!
//! The solver works on the joints' model-frame positions `p[0..n]` and bone lengths `l[i]`:
//!
//! 1. Target farther from the root than the chain's length: every joint is placed on the
//!    root → target line at its bone lengths (the straightened chain), done.
//! 2. Otherwise, each iteration runs a backward pass (tip on the target, then each joint
//!    moved onto the line to the next one at that bone's length, towards the root) and a
//!    forward pass (root back in place, each joint moved the same way towards the tip), until
//!    the tip is within the tolerance.
//! 3. The positions become rotations root first: joint `i` turns by the shortest arc that
//!    points its child bone at `p[i + 1]` from where the joint now is (after its parents'
//!    turns), clamped to its [`JointLimit`](super::JointLimit). A hinge takes the angle about
//!    its axis that points the bone best.
//!
//! With limits, step 3 runs after every iteration and the positions are read back from the
//! limited rotations before the next one (the limits pull the chain, FABRIK pulls it back
//! towards the target, and the iterations settle where both agree); the pole step (see
//! [`chain`](super::chain)) follows each conversion, clamped to the root's limit. Without
//! limits step 3 runs once, at the end, and the pole step turns the positions about the
//! root → tip line before it, so that every joint, the root too, takes its shortest arc (the
//! least twist; turning the root's rotation afterwards would give the same positions with
//! the root twisted about that line).
//!
//! # Two paths, one answer
//!
//! Chains without limits whose joint frames are similarities (a rotation and one scale,
//! mirrored or not: every rig whose model frame is) take a path in f32 with no matrix
//! inverse (`similar.rs`, its conversion to rotations in `rotations.rs`; docs/bench-ik.md
//! has its speed). Others take the f64 chain of this module. Both run the same passes
//! (`passes.rs`: f32, the latency of one step cut to a reciprocal square root and two
//! multiply-adds) and give the same corrections up to f32 rounding (a test compares them).
//!
//! # Degenerate cases
//!
//! A chain lying straight along the root → target line cannot bend by itself (every pass
//! keeps it on the line): its interior joints are first moved sideways by 1 % of the chain's
//! length, towards the pole when there is one. A pass that would put two joints on the same
//! point keeps the bone's direction along the root → target line instead of dividing by zero.

use glam::{DQuat, DVec3, Vec3A};

use super::links::{Goal, Links, MAX_CHAIN_JOINTS, straight_bend_side};

pub(crate) mod passes;
mod passes_one;
pub(crate) mod passes_x4;
mod rotations;
mod scale;
pub(crate) mod similar;

/// Runs FABRIK on `links` (corrections start at the identity); returns the iterations run.
pub(crate) fn solve(links: &mut Links<'_>, goal: &Goal) -> u32 {
    let n = links.n;
    links.start(false);
    if goal.iterations == 0 {
        return 0;
    }
    if straighten(links, goal) {
        return 1;
    }
    let mut p = [DVec3::ZERO; MAX_CHAIN_JOINTS];
    for (point, frame) in p.iter_mut().zip(&links.frames[..n]) {
        *point = frame.translation;
    }
    let axis = line(links, goal);
    let limited = links.limited();
    unbend(links, &mut p, axis, goal);
    let mut length = [0.0_f32; MAX_CHAIN_JOINTS];
    for (l, &d) in length.iter_mut().zip(&links.length[..n - 1]) {
        *l = d as f32;
    }
    // The f32 passes run from the root, so that their rounding is the chain's, not the
    // world's: a character far from the origin solves as one at it.
    let origin = p[0];
    let (root, target) = (Vec3A::ZERO, (goal.target - origin).as_vec3().into());
    let axis32: Vec3A = axis.as_vec3().into();
    let mut q = [Vec3A::ZERO; MAX_CHAIN_JOINTS];
    let to32 = |q: &mut [Vec3A; MAX_CHAIN_JOINTS], p: &[DVec3; MAX_CHAIN_JOINTS]| {
        for (q, p) in q.iter_mut().zip(p) {
            *q = (*p - origin).as_vec3().into();
        }
    };
    let to64 = |p: &mut [DVec3; MAX_CHAIN_JOINTS], q: &[Vec3A; MAX_CHAIN_JOINTS]| {
        for (p, q) in p.iter_mut().zip(q) {
            *p = q.as_dvec3() + origin;
        }
    };
    to32(&mut q, &p);
    if !limited {
        // Positions only, then the pole step on them, then rotations (each the shortest arc).
        let aim = passes::Goal {
            root,
            target,
            axis: axis32,
            tolerance: goal.tolerance as f32,
            iterations: goal.iterations,
        };
        let used = passes::run(&mut q[..n], &length[..n - 1], &aim);
        if let Some(pole) = goal.pole {
            similar::face_pole(&mut q[..n], pole.as_vec3().into(), links.total as f32);
        }
        to64(&mut p, &q);
        to_rotations(links, &mut p, None);
        return used;
    }
    // One iteration at a time, the limits applied between them.
    let once = passes::Goal {
        root,
        target,
        axis: axis32,
        tolerance: -1.0,
        iterations: 1,
    };
    let mut used = 0;
    while used < goal.iterations {
        if (q[n - 1] - target).length() <= goal.tolerance as f32 {
            break;
        }
        used += 1;
        passes::run(&mut q[..n], &length[..n - 1], &once);
        to64(&mut p, &q);
        to_rotations(links, &mut p, goal.pole);
        to32(&mut q, &p);
    }
    used
}

/// The root → target direction (root → tip when the target is on the root).
fn line(links: &Links<'_>, goal: &Goal) -> DVec3 {
    let root = links.frames[0].translation;
    (goal.target - root)
        .try_normalize()
        .or_else(|| (links.tip() - root).try_normalize())
        .unwrap_or(DVec3::X)
}

/// Step 1: a target at or past the chain's length straightens the chain towards it (limits
/// applied, then the pole step). Returns whether it did; frames current on entry and exit.
pub(crate) fn straighten(links: &mut Links<'_>, goal: &Goal) -> bool {
    let n = links.n;
    let root = links.frames[0].translation;
    if (goal.target - root).length() < links.total {
        return false;
    }
    let axis = line(links, goal);
    let mut p = [DVec3::ZERO; MAX_CHAIN_JOINTS];
    p[0] = root;
    for i in 1..n {
        p[i] = p[i - 1] + axis * links.length[i - 1];
    }
    to_rotations(links, &mut p, goal.pole);
    true
}

/// A chain lying along `axis` through the root (target on the same line) moved sideways so
/// that the passes can bend it.
fn unbend(links: &Links<'_>, p: &mut [DVec3; MAX_CHAIN_JOINTS], axis: DVec3, goal: &Goal) {
    let n = links.n;
    let points = p[1..n].iter().copied();
    let Some(side) = straight_bend_side(points, p[0], axis, n, links.total, goal.pole) else {
        return;
    };
    for q in &mut p[1..n - 1] {
        *q += side * (0.01 * links.total);
    }
}

/// Turns the positions into corrections root first (limits applied), then the pole step
/// when `pole` is given; `p` is overwritten with the positions the corrections give.
fn to_rotations(links: &mut Links<'_>, p: &mut [DVec3; MAX_CHAIN_JOINTS], pole: Option<DVec3>) {
    let n = links.n;
    for i in 0..n - 1 {
        let before = links.frame_before(i);
        let toward = before.matrix3.inverse() * (p[i + 1] - before.translation);
        links.corr[i] = links.turn(
            i,
            DQuat::IDENTITY,
            links.bone(i),
            toward,
            std::f64::consts::PI,
        );
        links.set_frame(i, before);
    }
    links.set_frame(n - 1, links.frame_before(n - 1));
    if let Some(pole) = pole {
        links.face_pole(pole, false);
    }
    for (point, frame) in p.iter_mut().zip(&links.frames[..n]) {
        *point = frame.translation;
    }
}
