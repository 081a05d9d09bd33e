//! What the chain IK property tests share: random chains in an f32 TRS buffer (node 0 a root
//! frame, nodes `1..=n` the chain), targets at a chosen reach, the solve-and-apply step and
//! f64 positions recomputed from the applied buffer.

#![allow(dead_code, reason = "each test file uses a part")]

use glam::{Affine3A, DAffine3, DQuat, DVec3, Quat, Vec3};
use proptest::prelude::*;
use skel_anim::ik::{ChainIk, ChainSolution, JointLimit};
use skel_anim::{R_OFF, S_OFF, T_OFF, TRS_STRIDE, apply_correction};

/// Node 0 the root frame, nodes `1..=n` the chain (each the child of the one before).
#[derive(Debug, Clone)]
pub struct Chain {
    pub trs: Vec<f32>,
    pub n: usize,
    pub lengths: Vec<f64>,
}

impl Chain {
    pub fn total(&self) -> f64 {
        self.lengths.iter().sum()
    }

    /// The shortest root → tip distance the chain can fold to.
    pub fn least_reach(&self) -> f64 {
        let longest = self.lengths.iter().copied().fold(0.0, f64::max);
        (2.0 * longest - self.total()).max(0.0)
    }
}

pub fn write(trs: &mut [f32], node: usize, t: Vec3, r: Quat, s: Vec3) {
    let rec = &mut trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
    rec[T_OFF..T_OFF + 3].copy_from_slice(&t.to_array());
    rec[R_OFF..R_OFF + 4].copy_from_slice(&r.normalize().to_array());
    rec[S_OFF..S_OFF + 3].copy_from_slice(&s.to_array());
}

pub fn rotation(trs: &[f32], node: usize) -> Quat {
    Quat::from_slice(&trs[node * TRS_STRIDE + R_OFF..])
}

pub fn local(trs: &[f32], node: usize) -> (Vec3, Quat, Vec3) {
    let rec = &trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
    (
        Vec3::from_slice(&rec[T_OFF..]),
        Quat::from_slice(&rec[R_OFF..]),
        Vec3::from_slice(&rec[S_OFF..]),
    )
}

/// The chain's model matrices in f32, as a pose pipeline computes them (root frame excluded).
pub fn models_f32(c: &Chain) -> Vec<Affine3A> {
    let mut all: Vec<Affine3A> = Vec::new();
    for node in 0..=c.n {
        let (t, r, s) = local(&c.trs, node);
        let m = Affine3A::from_scale_rotation_translation(s, r, t);
        all.push(all.last().map_or(m, |p| *p * m));
    }
    all.split_off(1)
}

/// The f64 reference: joint positions recomputed from the f32 records (root frame excluded).
pub fn positions(trs: &[f32], n: usize) -> Vec<DVec3> {
    let mut all: Vec<DAffine3> = Vec::new();
    for node in 0..=n {
        let (t, r, s) = local(trs, node);
        let m = DAffine3::from_scale_rotation_translation(
            s.as_dvec3(),
            r.as_dquat().normalize(),
            t.as_dvec3(),
        );
        all.push(all.last().map_or(m, |p| *p * m));
    }
    all[1..].iter().map(|m| m.translation).collect()
}

pub fn quat(v: [f64; 4]) -> Quat {
    let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]);
    if q.length() < 1e-3 {
        Quat::IDENTITY
    } else {
        q.normalize().as_quat()
    }
}

pub fn unit(v: [f64; 3]) -> DVec3 {
    DVec3::from_array(v).try_normalize().unwrap_or(DVec3::X)
}

prop_compose! {
    /// 2 to 8 joints, bone lengths 0.05..5 (up to 100:1), random rotations, a root frame
    /// translated within the chain's size, scaled 0.5..2 and mirrored half the time.
    pub fn chain()(n in 2usize..=8)(
        n in Just(n),
        root_r in prop::array::uniform4(-1.0..1.0f64),
        root_t in prop::array::uniform3(-1.0..1.0f64),
        scale in 0.5..2.0f64,
        mirror in any::<bool>(),
        rots in prop::collection::vec(prop::array::uniform4(-1.0..1.0f64), n),
        dirs in prop::collection::vec(prop::array::uniform3(-1.0..1.0f64), n),
        log_lengths in prop::collection::vec((0.05f64).ln()..(5.0f64).ln(), n),
    ) -> Chain {
        let mut trs = vec![0.0; (n + 1) * TRS_STRIDE];
        let s = if mirror { Vec3::new(-1.0, 1.0, 1.0) } else { Vec3::ONE } * scale as f32;
        let size: f64 = log_lengths.iter().map(|l| l.exp()).sum();
        write(&mut trs, 0, (DVec3::from_array(root_t) * size).as_vec3(), quat(root_r), s);
        for j in 0..n {
            // The chain root's offset is free; every later joint sits at its bone's length.
            let t = unit(dirs[j]) * log_lengths[j].exp();
            write(&mut trs, j + 1, t.as_vec3(), quat(rots[j]), Vec3::ONE);
        }
        let p = positions(&trs, n);
        let lengths = (0..n - 1).map(|i| (p[i + 1] - p[i]).length()).collect();
        Chain { trs, n, lengths }
    }
}

/// A target in direction `dir` from the root at `reach` (below 1: that fraction of the way
/// from the least reach to the chain's length; above: that multiple of the length), at
/// least 5 % of the chain away from the root.
pub fn target(c: &Chain, dir: [f64; 3], reach: f64) -> Vec3 {
    let root = positions(&c.trs, c.n)[0];
    let (lo, hi) = (c.least_reach(), c.total());
    let dist = if reach <= 1.0 {
        lo + reach * (hi - lo)
    } else {
        reach * hi
    };
    (root + unit(dir) * dist.max(0.05 * hi)).as_vec3()
}

/// Whether the chain and the target lie on one line (within 1 % of the chain).
pub fn on_one_line(c: &Chain, target: Vec3) -> bool {
    let p = positions(&c.trs, c.n);
    let line = (target.as_dvec3() - p[0]).normalize();
    let widest = p
        .iter()
        .map(|&x| (x - p[0] - line * line.dot(x - p[0])).length())
        .fold(0.0, f64::max);
    widest <= 1e-2 * c.total()
}

/// Solves and applies: the corrected TRS buffer and the solution.
pub fn solve(
    c: &Chain,
    ik: &ChainIk,
    limits: &[JointLimit],
    from_rest: &[Quat],
) -> (ChainSolution, Vec<f32>) {
    let models = models_f32(c);
    let mut corrections = vec![Quat::NAN; c.n];
    let s = ik
        .solve_from_rest(&models, limits, from_rest, &mut corrections)
        .unwrap();
    let mut trs = c.trs.clone();
    for (j, q) in corrections.iter().enumerate() {
        apply_correction(&mut trs, j + 1, *q).unwrap();
    }
    (s, trs)
}

/// What the f32 pose's rounding alone can put between a position the solver meant and the
/// one re-read in f64 from the f32 records: a few f32 epsilons of the coordinates' size (a
/// small chain far from the origin has its rounding set by where it is, not by its length).
pub fn rounding(c: &Chain) -> f64 {
    let far = positions(&c.trs, c.n)
        .iter()
        .map(|p| p.length())
        .fold(0.0, f64::max);
    1e-6 * (far + c.total())
}

/// The tolerance on positions: 1e-5 of the chain's length, plus the f32 rounding.
pub fn close(c: &Chain) -> f64 {
    1e-5 * c.total() + rounding(c)
}

pub fn lengths_kept(c: &Chain, p: &[DVec3]) -> Result<(), TestCaseError> {
    for (i, l) in c.lengths.iter().enumerate() {
        let now = (p[i + 1] - p[i]).length();
        prop_assert!(
            (now - l).abs() <= 1e-5 * l + rounding(c),
            "bone {i}: {now} for {l}"
        );
    }
    Ok(())
}
