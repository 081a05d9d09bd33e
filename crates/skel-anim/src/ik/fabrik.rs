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
//! towards the target, and the iterations settle where both agree). Without limits it runs
//! once, at the end. The pole step (see [`chain`](super::chain)) follows each conversion.
//!
//! # Degenerate cases
//!
//! A chain lying straight along the root → target line cannot bend by itself (every pass
//! keeps it on the line): its interior joints are first moved sideways by 1 % of the chain's
//! length, towards the pole when there is one. A pass that would put two joints on the same
//! point keeps the bone's direction along the root → target line instead of dividing by zero.

use glam::{DQuat, DVec3};

use super::links::{Goal, Links, MAX_CHAIN_JOINTS, straight_bend_side};

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
    let root = p[0];
    let axis = line(links, goal);
    let limited = links.limited();
    unbend(links, &mut p, axis, goal);
    let mut used = 0;
    while used < goal.iterations {
        if (p[n - 1] - goal.target).length() <= goal.tolerance {
            break;
        }
        used += 1;
        p[n - 1] = goal.target;
        for i in (0..n - 1).rev() {
            p[i] = p[i + 1] + toward(p[i] - p[i + 1], -axis, links.length[i]);
        }
        p[0] = root;
        for i in 0..n - 1 {
            p[i + 1] = p[i] + toward(p[i + 1] - p[i], axis, links.length[i]);
        }
        if limited {
            to_rotations(links, &mut p, goal);
        }
    }
    if !limited {
        to_rotations(links, &mut p, goal);
    }
    used
}

/// `v` scaled to `length` (`fallback · length` when `v` is zero). The inputs are finite (checked
/// on entry), so one square root and one division do: this is the loop's whole cost.
#[inline]
fn toward(v: DVec3, fallback: DVec3, length: f64) -> DVec3 {
    let len2 = v.length_squared();
    if len2 > 0.0 {
        v * (length / len2.sqrt())
    } else {
        fallback * length
    }
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
    to_rotations(links, &mut p, goal);
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

/// Turns the positions into corrections root first (limits applied), then the pole step;
/// `p` is overwritten with the positions the corrections give.
fn to_rotations(links: &mut Links<'_>, p: &mut [DVec3; MAX_CHAIN_JOINTS], goal: &Goal) {
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
    if let Some(pole) = goal.pole {
        links.face_pole(pole, false);
    }
    for (point, frame) in p.iter_mut().zip(&links.frames[..n]) {
        *point = frame.translation;
    }
}
