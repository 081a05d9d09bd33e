//! FABRIK's passes on joint positions, in f32: both FABRIK paths run them
//! ([`similar`](super::similar) and the f64 chain of [`super`]).
//!
//! The passes are a chain of dependent steps (each joint's new position needs the one before
//! it), 2 × (joints − 1) per iteration, so their latency is the solve's. One chain's steps
//! ([`passes_one`](super::passes_one)) work each square out a step ahead, so that from one
//! scale to the next stand only a reciprocal square root, its Newton step and a multiply-add;
//! four chains side by side ([`passes_x4`](super::passes_x4)) are bound by throughput
//! instead, and take the cheaper steps of [`iteration`]. A step's scale is SSE's reciprocal
//! square root estimate with one Newton step ([`scale`](super::scale)). Where the CPU has FMA (found at
//! run time, as the pose kernels are) the passes are compiled again with
//! it: the Newton step and the expanded square round once, and the three-operand forms drop
//! the register copies (docs/ik.md has the figures).

use core::ops::{Add, Neg, Sub};

use glam::Vec3A;

#[cfg(target_arch = "x86_64")]
use super::scale::Fused;
use super::scale::{Bone, MulAdd, Separate, newton, rsqrt_estimate};
use crate::ik::links::MAX_CHAIN_JOINTS;

/// Where the passes go: the root the forward pass puts back, the target the backward pass
/// starts from, the root → target direction (used where two joints coincide), and when they
/// stop.
#[derive(Clone, Copy)]
pub(crate) struct Goal {
    pub(crate) root: Vec3A,
    pub(crate) target: Vec3A,
    pub(crate) axis: Vec3A,
    /// The tip's distance from the target that ends the iterations (checked before each).
    pub(crate) tolerance: f32,
    pub(crate) iterations: u32,
}

/// Runs FABRIK's iterations on the positions `p` (root first) towards `goal`, at most its
/// `iterations`, stopping once the tip is within its `tolerance` of its `target` (checked
/// before each); returns the iterations run. Each iteration is a backward pass (tip on `target`, each joint moved onto
/// the line to the joint after it at its bone's length) and a forward pass (root back on
/// `root`, each joint moved onto the line from the joint before it). `axis` is the root →
/// target direction, used where two joints coincide.
///
/// A step moves joint `k` to `zₖ = zₖ₋₁ + dₖ · sₖ`, `dₖ = rₖ − zₖ₋₁` (`r` the joint where it
/// was), `sₖ = lₖ / |dₖ|`. The two steps whose results the next pass throws away (the
/// backward pass's root, the forward pass's tip, read only by the tolerance check) stay off
/// the chain: a 6-joint iteration is 8 dependent steps, not 10.
pub(crate) fn run(p: &mut [Vec3A], length: &[f32], goal: &Goal) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        #[expect(unsafe_code, reason = "the FMA variant, called where the CPU has FMA")]
        // SAFETY: `run_fma` needs only FMA, which `is_x86_feature_detected!` just found.
        return unsafe { run_fma(p, length, goal) };
    }
    run_with::<Separate>(p, length, goal)
}

/// [`run`] compiled with FMA: the scalar chain's multiply-adds fused.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn run_fma(p: &mut [Vec3A], length: &[f32], goal: &Goal) -> u32 {
    run_with::<Fused>(p, length, goal)
}

/// [`run`] with the multiply-adds of `M`.
#[inline(always)]
pub(crate) fn run_with<M: MulAdd>(p: &mut [Vec3A], length: &[f32], goal: &Goal) -> u32 {
    let Goal {
        root,
        target,
        axis,
        tolerance,
        iterations,
    } = *goal;
    let n = p.len();
    // One per bone (so that the loops' indices need no bounds checks), with the constants
    // every step of it multiplies by.
    let mut bones = [Bone::default(); MAX_CHAIN_JOINTS];
    for (bone, &l) in bones.iter_mut().zip(&length[..n - 1]) {
        *bone = Bone::new(l);
    }
    let length = &bones[..n - 1];
    let mut used = 0;
    if n == 2 {
        // One bone: every iteration puts it on the root → target line.
        if iterations > 0 && (p[1] - target).length() > tolerance {
            let step = scale::<M>(
                target - root,
                (target - root).length_squared(),
                &length[0],
                axis,
            );
            p[1] = root + step.d * step.s;
            used = 1;
        }
        return used;
    }
    super::passes_one::run::<M>(p, &bones, root, target, axis, tolerance, iterations)
}

/// The steps of the passes over what they move, four chains side by side
/// ([`passes_x4`](super::passes_x4)), and [`iteration`] written over them.
///
/// A step's `|dₖ₊₁|²` is not taken from `dₖ₊₁ = e − sₖ dₖ` (`e = rₖ₊₁ − zₖ₋₁`, known a step
/// early) but expanded: `|e|² + lₖ² − 2 sₖ (e · dₖ)`, so that from one step's scale to the
/// next one's square stand a dot product, a multiply and an add. The expansion cancels where
/// `dₖ₊₁` is short beside `e` and `lₖ`; there (under a quarter of `|e|² + lₖ²`) the square
/// is taken directly. The same expansion crosses from one pass to the next.
pub(crate) trait Steps: Copy {
    /// A joint's position (or four).
    type Point: Copy
        + Add<Output = Self::Point>
        + Sub<Output = Self::Point>
        + Neg<Output = Self::Point>;
    /// A number per chain.
    type Number: Copy;
    /// A bone's constants.
    type Bone;
    /// One step's scale and direction.
    type Scale;
    /// The step's scale for `d` (`x = |d|²`), or `fallback` at the bone's length where `d`
    /// is too short to measure.
    fn scale(
        self,
        d: Self::Point,
        x: Self::Number,
        bone: &Self::Bone,
        fallback: Self::Point,
    ) -> Self::Scale;
    /// Where the step puts its joint: `prev + d · s`.
    fn place(self, prev: Self::Point, step: &Self::Scale) -> Self::Point;
    /// The next step's `d = e − s · d_now` and its square (see [`run`]).
    fn next(
        self,
        e: Self::Point,
        step: &Self::Scale,
        bone: &Self::Bone,
    ) -> (Self::Point, Self::Number);
}

/// One iteration of the passes (see [`run`]) on `p` with the bones' constants `bones`, from
/// the `(d, x)` of its first step; returns those of the next iteration's first step.
#[inline(always)]
pub(crate) fn iteration<S: Steps>(
    s: S,
    p: &mut [S::Point],
    bones: &[S::Bone],
    root: S::Point,
    target: S::Point,
    axis: S::Point,
    first: (S::Point, S::Number),
) -> (S::Point, S::Number) {
    let n = p.len();
    let (mut d, mut x) = first;
    // Backward, joints n - 2 down to 1 (joint 0 is put back on the root).
    let mut prev = target;
    p[n - 1] = target;
    for i in (1..n - 1).rev() {
        let step = s.scale(d, x, &bones[i], -axis);
        let z = s.place(prev, &step);
        (d, x) = if i > 1 {
            s.next(p[i - 1] - prev, &step, &bones[i])
        } else {
            across(s, root - prev, &step, &bones[i])
        };
        p[i] = z;
        prev = z;
    }
    // Forward, joints 1 to n - 1.
    prev = root;
    p[0] = root;
    let mut back = (d, x);
    for i in 0..n - 1 {
        let step = s.scale(d, x, &bones[i], axis);
        let z = s.place(prev, &step);
        if i + 3 == n {
            back = across(s, target - prev, &step, &bones[i]);
        }
        if i + 2 < n {
            (d, x) = s.next(p[i + 2] - prev, &step, &bones[i]);
        }
        p[i + 1] = z;
        prev = z;
    }
    back
}

/// [`Steps::next`] across a pass: the next pass starts from the fixed point `f`
/// (`e = f − prev`), so its `d` is the joint just placed minus `f`, `−(e − s · d_now)`.
#[inline(always)]
fn across<S: Steps>(s: S, e: S::Point, step: &S::Scale, bone: &S::Bone) -> (S::Point, S::Number) {
    let (d, x) = s.next(e, step, bone);
    (-d, x)
}

/// One step's scale `s = l / |d|` and direction.
struct Scale {
    /// The step's direction (`d`, or the fallback).
    d: Vec3A,
    s: f32,
}

/// The step's scale for `d` (`x = |d|²`): `l / √x` as [`newton`] makes it, or
/// `(fallback, l)` when `d` is zero or too small to square.
#[inline(always)]
fn scale<M: MulAdd>(d: Vec3A, x: f32, bone: &Bone, fallback: Vec3A) -> Scale {
    if x > f32::MIN_POSITIVE {
        Scale {
            d,
            s: newton::<M>(bone, x, rsqrt_estimate(x)),
        }
    } else {
        Scale {
            d: fallback,
            s: bone.length,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_keep_bone_lengths_and_put_the_root_back() {
        let dispatched = keeps_bone_lengths(run);
        // The variant without FMA, which this machine's dispatch may never take: the same
        // positions up to rounding.
        let separate = keeps_bone_lengths(run_with::<Separate>);
        for (a, b) in dispatched.iter().zip(&separate) {
            assert!((*a - *b).length() < 1e-5, "{a:?} against {b:?}");
        }
    }

    type Run = fn(&mut [Vec3A], &[f32], &Goal) -> u32;

    fn keeps_bone_lengths(run: Run) -> [Vec3A; 4] {
        let mut p = [
            Vec3A::ZERO,
            Vec3A::new(0.0, 1.0, 0.0),
            Vec3A::new(0.3, 2.0, 0.0),
            Vec3A::new(0.5, 2.9, 0.1),
        ];
        let length = [
            1.0,
            (0.09_f32 + 1.0).sqrt(),
            (0.04_f32 + 0.81 + 0.01).sqrt(),
        ];
        let target = Vec3A::new(1.5, 1.5, 0.5);
        let goal = Goal {
            root: Vec3A::ZERO,
            target,
            axis: target.normalize(),
            tolerance: -1.0,
            iterations: 10,
        };
        let used = run(&mut p, &length, &goal);
        assert_eq!(used, 10);
        assert_eq!(p[0], Vec3A::ZERO);
        for i in 0..3 {
            let l = (p[i + 1] - p[i]).length();
            assert!((l - length[i]).abs() <= 1e-6 * length[i], "bone {i}: {l}");
        }
        assert!((p[3] - target).length() < 1e-4, "tip {:?}", p[3]);
        p
    }

    #[test]
    fn coinciding_joints_take_the_axis() {
        let mut p = [Vec3A::ZERO, Vec3A::ZERO, Vec3A::X];
        let target = Vec3A::new(0.0, 0.0, 1.5);
        let goal = Goal {
            root: Vec3A::ZERO,
            target,
            axis: Vec3A::Z,
            tolerance: 0.0,
            iterations: 1,
        };
        run(&mut p, &[1.0, 1.0], &goal);
        assert!(p.iter().all(|q| q.is_finite()), "{p:?}");
        assert!(((p[1] - p[0]).length() - 1.0).abs() < 1e-6);
    }
}
