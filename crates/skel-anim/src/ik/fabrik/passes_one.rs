//! FABRIK's passes on one chain (see [`passes::run`](super::passes::run)), arranged for
//! latency: one chain alone is a chain of dependent steps, so its speed is how soon each
//! step's scale `s = l / |d|` follows the one before.
//!
//! # Each step's square a step ahead
//!
//! A step `k` measures `dₖ = rₖ − oₖ` (`rₖ` the joint it moves, where it was; `oₖ` the point
//! it is measured from: the joint placed just before, or the fixed end a pass starts from),
//! takes `sₖ = lₖ / √xₖ` (`xₖ = |dₖ|²`) and places the joint at
//! `zₖ = oₖ + sₖ dₖ = rₖ − (1 − sₖ) dₖ`. With `wₖ = nₖ − rₖ` (`nₖ` the next step's joint, or
//! the fixed end the next pass starts from) the next square is
//!
//! ```text
//! xₖ₊₁ = |wₖ + (1 − sₖ) dₖ|² = (|wₖ|² + 2 tₖ + xₖ + lₖ²) − 2 sₖ (tₖ + xₖ),   tₖ = wₖ · dₖ
//! ```
//!
//! (`sₖ² xₖ = lₖ²`): one multiply-add after `sₖ`, if `tₖ` is known by then. The four-lane
//! steps ([`passes::iteration`](super::passes::iteration)) take their dot product after
//! `sₖ₋₁` has placed `oₖ`, so a vector product, a dot product and a multiply-add stand
//! between one scale and the next (about 34 cycles a step, measured on one chain). Here `tₖ`
//! is worked out a step earlier, as a polynomial in `s = sₖ₋₁` whose dot products wait only
//! for `oₖ₋₁` and `D = dₖ₋₁`:
//!
//! - inside a pass (`oₖ = zₖ₋₁`; `rₖ` and `wₖ` fixed), `dₖ = (rₖ − oₖ₋₁) − s D`, so
//!   `tₖ = wₖ · (rₖ − oₖ₋₁) − s wₖ · D`;
//! - where a pass starts (`oₖ = F`, `rₖ = zₖ₋₁`), `dₖ = c + s D` and `wₖ = e − s D` with
//!   `c = oₖ₋₁ − F`, `e = nₖ − oₖ₋₁`, so `tₖ = e·c + s (e·D − c·D) − s² D·D` and
//!   `|wₖ|² = e·e − 2 s e·D + s² D·D`.
//!
//! From one scale to the next then stand the estimate, the Newton step and one multiply-add
//! (about 14 cycles), at about 11 more instructions a step (docs/ik.md has the figures).
//!
//! # Rounding
//!
//! The expansion's terms can be large beside the square they sum to (a joint placed close to
//! the next one's old position). Where the square is under 1/16 of their scale
//! (`|wₖ|² + xₖ + lₖ² + lₖ₋₁²`) it is taken from the vectors instead, as it is after a step
//! that could not measure its `d` (then `d` is the pass's direction, not `rₖ − oₖ`). Only the
//! placement of a joint along its line depends on the square (its direction is `dₖ`'s as
//! measured); the test below holds the passes to the f64 ones.

use glam::Vec3A;

use super::scale::{Bone, MulAdd, newton, rsqrt_estimate};
use crate::ik::links::MAX_CHAIN_JOINTS;

/// Runs the iterations of [`passes::run`](super::passes::run) on a chain of three joints or
/// more, from `bones`' constants; returns the iterations run.
#[inline(always)]
pub(super) fn run<M: MulAdd>(
    chain: &mut [Vec3A],
    bones: &[Bone; MAX_CHAIN_JOINTS],
    root: Vec3A,
    target: Vec3A,
    axis: Vec3A,
    tolerance: f32,
    iterations: u32,
) -> u32 {
    let n = chain.len();
    // Known to the compiler from here, and the positions in an array of the largest chain's
    // size, so that the loops' indices need no bounds checks.
    if !(3..=MAX_CHAIN_JOINTS).contains(&n) {
        debug_assert!(false, "a chain of {n} joints");
        return 0;
    }
    let mut p = [Vec3A::ZERO; MAX_CHAIN_JOINTS];
    p[..n].copy_from_slice(chain);
    let last = n - 2;
    // The first backward step, from the target, measured directly.
    let d = p[last] - target;
    let mut at = Cursor::start(target, d, backward_after(&p, last, root), &bones[last]);
    let mut used = 0;
    while used < iterations && (p[n - 1] - target).length() > tolerance {
        used += 1;
        // Backward, joints n − 2 down to 1 (joint 0 is put back on the root); the steps
        // whose next one is a joint of the same pass first, without a branch each.
        p[n - 1] = target;
        for j in (3..n - 1).rev() {
            let next = Next::Joint {
                joint: p[j - 1],
                after: p[j - 2],
                bone: &bones[j - 1],
            };
            p[j] = at.step::<M>(&bones[j], next, -axis);
        }
        if last >= 2 {
            let next = Next::Joint {
                joint: p[1],
                after: root,
                bone: &bones[1],
            };
            p[2] = at.step::<M>(&bones[2], next, -axis);
        }
        let next = Next::Pass {
            fixed: root,
            after: forward_after(&p, 1, last, target),
            bone: &bones[0],
        };
        p[1] = at.step::<M>(&bones[1], next, -axis);
        // Forward, joints 1 to n − 2, then the tip off the chain.
        p[0] = root;
        for j in 1..last.saturating_sub(1) {
            let next = Next::Joint {
                joint: p[j + 1],
                after: p[j + 2],
                bone: &bones[j],
            };
            p[j] = at.step::<M>(&bones[j - 1], next, axis);
        }
        if last >= 2 {
            let next = Next::Joint {
                joint: p[last],
                after: target,
                bone: &bones[last - 1],
            };
            p[last - 1] = at.step::<M>(&bones[last - 2], next, axis);
        }
        let next = Next::Pass {
            fixed: target,
            after: backward_after(&p, last, root),
            bone: &bones[last],
        };
        p[last] = at.step::<M>(&bones[last - 1], next, axis);
        // `at` now starts the next backward pass: `d` = joint n − 2 − target.
        p[n - 1] = tip::<M>(p[last], at.d, at.x, &bones[last], axis);
    }
    chain.copy_from_slice(&p[..n]);
    used
}

/// The point the step after the backward step of joint `j` measures towards: joint `j − 1`'s
/// old position, or the root where the forward pass starts next.
#[inline(always)]
fn backward_after(p: &[Vec3A; MAX_CHAIN_JOINTS], j: usize, root: Vec3A) -> Vec3A {
    if j > 1 { p[j - 1] } else { root }
}

/// The same for the forward step of joint `j`: joint `j + 1` as the backward pass left it, or
/// the target where the next backward pass starts.
#[inline(always)]
fn forward_after(p: &[Vec3A; MAX_CHAIN_JOINTS], j: usize, last: usize, target: Vec3A) -> Vec3A {
    if j < last { p[j + 1] } else { target }
}

/// The tip placed from joint `n − 2` at `z` towards the target (`d` = `z − target`, `x` its
/// square): read only by the tolerance check and the caller.
#[inline(always)]
fn tip<M: MulAdd>(z: Vec3A, d: Vec3A, x: f32, bone: &Bone, axis: Vec3A) -> Vec3A {
    if x > f32::MIN_POSITIVE {
        z - d * newton::<M>(bone, x, rsqrt_estimate(x))
    } else {
        z + axis * bone.length
    }
}

/// The step after the current one.
enum Next<'a> {
    /// Another joint of the same pass, measured from the joint placed now.
    Joint {
        /// Where that joint was.
        joint: Vec3A,
        /// Its `nₖ`: the point the step after it measures towards.
        after: Vec3A,
        bone: &'a Bone,
    },
    /// The first joint of the next pass (the one placed now), measured from its fixed end.
    Pass {
        fixed: Vec3A,
        /// Its `nₖ`.
        after: Vec3A,
        bone: &'a Bone,
    },
}

/// The current step: where it measures from, its `d` and square, and the next square's
/// multiply-add, already worked out but for the current scale.
struct Cursor {
    /// `oₖ`.
    from: Vec3A,
    /// `dₖ = rₖ − oₖ`.
    d: Vec3A,
    /// `xₖ ≈ |dₖ|²`.
    x: f32,
    /// `xₖ₊₁ = sₖ · minus_2 + big`: `−2 (tₖ + xₖ)`.
    minus_2: f32,
    /// `|wₖ|² + 2 tₖ + xₖ + lₖ²`.
    big: f32,
    /// 1/64 of the terms' scale: a smaller next square is taken from the vectors.
    floor: f32,
}

impl Cursor {
    /// The first step of a solve: from `from` along `d`, the step after it measuring
    /// `w = after − (from + d)`.
    fn start(from: Vec3A, d: Vec3A, after: Vec3A, bone: &Bone) -> Self {
        let w = after - (from + d);
        let x = d.length_squared();
        let (ww, t) = (w.length_squared(), w.dot(d));
        Self::with(from, d, x, ww, t, bone.square, bone.square)
    }

    /// The cursor of a step with square `x`, `|w|² = ww` and `t = w · d`.
    #[inline(always)]
    fn with(from: Vec3A, d: Vec3A, x: f32, ww: f32, t: f32, square: f32, before: f32) -> Self {
        Self {
            from,
            d,
            x,
            minus_2: -2.0 * (t + x),
            big: ww + square + 2.0 * t + x,
            floor: (ww + x + square + before) * (1.0 / 16.0),
        }
    }

    /// Takes the step (`fallback` is `d` where `d` is too short to measure) and moves on to
    /// `next`; returns where the joint goes.
    #[inline(always)]
    fn step<M: MulAdd>(&mut self, bone: &Bone, next: Next<'_>, fallback: Vec3A) -> Vec3A {
        let x = self.x;
        let measured = x > f32::MIN_POSITIVE;
        let (d, s) = if measured {
            (self.d, newton::<M>(bone, x, rsqrt_estimate(x)))
        } else {
            (fallback, bone.length)
        };
        let from = self.from;
        let z = from + d * s;
        let x_fast = M::mul_add(s, self.minus_2, self.big);
        // The next step's `w · d` and `|w|²` as polynomials in `s`, their dot products
        // taken from what was known before it.
        let (to, d_next, ww, t, b) = match next {
            Next::Joint {
                joint,
                after,
                bone: b,
            } => {
                // dₖ₊₁ = (joint − from) − s d; wₖ₊₁ = after − joint, fixed.
                let w = after - joint;
                let (wr, wd) = (w.dot(joint - from), w.dot(d));
                (z, joint - z, w.length_squared(), M::mul_add(-s, wd, wr), b)
            }
            Next::Pass {
                fixed,
                after,
                bone: b,
            } => {
                // dₖ₊₁ = (from − fixed) + s d; wₖ₊₁ = (after − from) − s d.
                let (c, e) = (from - fixed, after - from);
                let (ec, ed, cd, dd) = (e.dot(c), e.dot(d), c.dot(d), d.dot(d));
                let t = M::mul_add(M::mul_add(-dd, s, ed - cd), s, ec);
                let ww = M::mul_add(M::mul_add(dd, s, -2.0 * ed), s, e.length_squared());
                (fixed, z - fixed, ww, t, b)
            }
        };
        let x_next = if measured & (x_fast > self.floor) {
            x_fast
        } else {
            d_next.length_squared()
        };
        *self = Self::with(to, d_next, x_next, ww, t, b.square, bone.square);
        z
    }
}

#[cfg(test)]
mod tests {
    use glam::{DVec3, Vec3A};

    use crate::ik::fabrik::passes::{Goal, run};

    /// The passes in f64, each square taken from its vector: what the steps above expand.
    fn reference(p: &mut [DVec3], length: &[f64], target: DVec3, iterations: u32) {
        let n = p.len();
        for _ in 0..iterations {
            p[n - 1] = target;
            for i in (0..n - 1).rev() {
                let d = p[i] - p[i + 1];
                p[i] = p[i + 1] + d * (length[i] / d.length());
            }
            p[0] = DVec3::ZERO;
            for i in 1..n {
                let d = p[i] - p[i - 1];
                p[i] = p[i - 1] + d * (length[i - 1] / d.length());
            }
        }
    }

    /// 8 000 random chains of 3 to 8 joints (bones of random length and direction, targets
    /// within reach and out of it, 1 to 10 iterations): every joint within 2e-6 of the
    /// chain's length of the f64 passes (measured 9.5e-7). On 8 000 chains of six joints the
    /// worst was 1.2e-6, against 6.8e-7 for the four-lane steps (every square a dot product
    /// later) and 1.6e-6 with 1/64 instead of 1/16 as the floor.
    #[test]
    fn one_chain_follows_the_f64_passes() {
        let mut seed = 12345_u64;
        let mut random = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as f64 / (1_u64 << 31) as f64) * 2.0 - 1.0
        };
        let mut worst = 0.0_f64;
        for case in 0..8000 {
            let n = 3 + case % 6;
            let mut p = [Vec3A::ZERO; 8];
            for i in 1..n {
                let step = DVec3::new(random(), random() + 0.6, random()) * 0.5;
                p[i] = p[i - 1] + step.as_vec3a();
            }
            let target = (DVec3::new(random(), random() + 1.0, random()) * 1.5).as_vec3a();
            let length: Vec<f32> = (0..n - 1).map(|i| (p[i + 1] - p[i]).length()).collect();
            let iterations = 1 + (random().abs() * 10.0) as u32;
            let mut want: Vec<DVec3> = p[..n].iter().map(|v| v.as_dvec3()).collect();
            let length64: Vec<f64> = length.iter().map(|&l| f64::from(l)).collect();
            reference(&mut want, &length64, target.as_dvec3(), iterations);
            let goal = Goal {
                root: Vec3A::ZERO,
                target,
                axis: target.normalize(),
                tolerance: -1.0,
                iterations,
            };
            assert_eq!(run(&mut p[..n], &length, &goal), iterations);
            let chain: f64 = length64.iter().sum();
            for (got, want) in p[..n].iter().zip(&want) {
                worst = worst.max((got.as_dvec3() - *want).length() / chain);
            }
        }
        assert!(worst < 2e-6, "worst {worst:e} of the chain's length");
    }
}
