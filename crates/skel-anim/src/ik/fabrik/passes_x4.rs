//! FABRIK's passes ([`passes`](super::passes)) on four chains at once, one per lane: the same
//! iteration (`passes::iteration`, written once over [`Steps`]), with each branch of the
//! one-chain steps taken lane by lane as a select. A step is latency-bound (each joint waits for the one before), so one chain leaves
//! most of the CPU idle; four chains side by side fill it, and a structure-of-arrays dot
//! product is three multiplies, with no shuffles. [`ChainIk::solve_batch`] runs them on
//! chains of equal length (docs/ik.md has the figures).
//!
//! [`ChainIk::solve_batch`]: crate::ik::ChainIk::solve_batch

use glam::{BVec4A, Vec4};
use skel_math::lanes::Vec3x4;

use super::passes::{Steps, iteration};
use crate::ik::links::MAX_CHAIN_JOINTS;
use crate::math::mul_add::{MulAdd4, Separate};

/// [`passes::Goal`](super::passes::Goal) for four chains: lane `k` is chain `k`'s.
pub(crate) struct Goals {
    pub(crate) root: Vec3x4,
    pub(crate) target: Vec3x4,
    pub(crate) axis: Vec3x4,
    /// At least 0 in every lane.
    pub(crate) tolerance: Vec4,
    pub(crate) iterations: [u32; 4],
}

/// [`passes::run`](super::passes::run) on four chains of `p.len()` joints (at least 3), lane
/// `k` of each position and length being chain `k`'s: each lane runs the iterations its chain
/// would alone (a lane whose tip is within its tolerance, or that has run its iterations,
/// stops and keeps its positions) and the same steps, up to the rounding of multiply-adds.
/// Returns the iterations each lane ran. Where the CPU has FMA the multiply-adds the
/// one-chain passes fuse are fused here too, so that a lane rounds as its chain alone would.
pub(crate) fn run(p: &mut [Vec3x4], length: &[Vec4], goal: &Goals) -> [u32; 4] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        #[expect(unsafe_code, reason = "the FMA variant, called where the CPU has FMA")]
        // SAFETY: `run_fma` needs only FMA, which `is_x86_feature_detected!` just found.
        return unsafe { run_fma(p, length, goal) };
    }
    run_with(p, length, goal, Separate)
}

/// [`run`] compiled with FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn run_fma(p: &mut [Vec3x4], length: &[Vec4], goal: &Goals) -> [u32; 4] {
    #[expect(unsafe_code, reason = "the token of FMA's presence")]
    // SAFETY: this function is compiled with FMA and called only where the CPU has it.
    let fused = unsafe { crate::math::mul_add::Fused::new() };
    run_with(p, length, goal, fused)
}

/// [`run`] with the multiply-adds of `m`.
#[inline(always)]
fn run_with(p: &mut [Vec3x4], length: &[Vec4], goal: &Goals, m: impl MulAdd4) -> [u32; 4] {
    let n = p.len();
    debug_assert!((3..=MAX_CHAIN_JOINTS).contains(&n) && length.len() + 1 == n);
    let mut bones = [Bones::default(); MAX_CHAIN_JOINTS];
    for (bone, &l) in bones.iter_mut().zip(&length[..n - 1]) {
        *bone = Bones::new(l);
    }
    let bones = &bones[..n - 1];
    let Goals {
        root,
        target,
        axis,
        tolerance,
        iterations,
    } = *goal;
    let most = iterations.iter().copied().max().unwrap_or(0);
    let tolerance2 = tolerance * tolerance;
    let mut used = [0_u32; 4];
    let mut active = BVec4A::new(true, true, true, true);
    let mut kept = [Vec3x4::ZERO; MAX_CHAIN_JOINTS];
    let mut d = p[n - 2] - target;
    let mut x = d.dot(d);
    for count in 0..most {
        let off = p[n - 1] - target;
        let runs = BVec4A::new(
            count < iterations[0],
            count < iterations[1],
            count < iterations[2],
            count < iterations[3],
        );
        active &= runs & off.dot(off).cmpgt(tolerance2);
        if !active.any() {
            break;
        }
        for (u, on) in used.iter_mut().zip(lanes(active)) {
            *u += u32::from(on);
        }
        // Lanes that have stopped keep their positions (rare: only as chains converge).
        let partial = !active.all();
        if partial {
            kept[..n].copy_from_slice(p);
        }
        (d, x) = iteration(Four(m), p, bones, root, target, axis, (d, x));
        if partial {
            for (p, kept) in p.iter_mut().zip(&kept) {
                *p = Vec3x4::select(active, *p, *kept);
            }
        }
    }
    used
}

/// The lanes of a mask, first to last.
fn lanes(mask: BVec4A) -> [bool; 4] {
    let bits = mask.bitmask();
    [bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0]
}

/// One step's scale and direction in every lane (`passes::Scale`).
struct Scale {
    d: Vec3x4,
    s: Vec4,
    measured: BVec4A,
}

/// The steps of four chains, one per lane, with the multiply-adds of `M`.
#[derive(Clone, Copy)]
struct Four<M>(M);

impl<M: MulAdd4> Steps for Four<M> {
    type Point = Vec3x4;
    type Number = Vec4;
    type Bone = Bones;
    type Scale = Scale;

    /// `passes::scale` lane by lane: `l / √x` where `x` is a normal positive number, else
    /// the fallback direction at the bone's length.
    #[inline(always)]
    fn scale(self, d: Vec3x4, x: Vec4, bone: &Bones, fallback: Vec3x4) -> Scale {
        let measured = x.cmpgt(Vec4::splat(f32::MIN_POSITIVE));
        let y = rsqrt_estimate(x);
        let s = self
            .0
            .mul_add(-((bone.half * x) * y), y * y, bone.three_halves * y);
        // Every lane measured is the rule; the selects only where one is not.
        if measured.all() {
            return Scale { d, s, measured };
        }
        Scale {
            d: Vec3x4::select(measured, d, fallback),
            s: Vec4::select(measured, s, bone.length),
            measured,
        }
    }

    #[inline(always)]
    fn place(self, prev: Vec3x4, step: &Scale) -> Vec3x4 {
        prev + step.d * step.s
    }

    /// `passes::next` lane by lane: the next step's `d` and its square, expanded where that
    /// does not cancel.
    #[inline(always)]
    fn next(self, e: Vec3x4, step: &Scale, bone: &Bones) -> (Vec3x4, Vec4) {
        let d = e - step.d * step.s;
        let big = e.dot(e) + bone.square;
        let across = Vec4::splat(-2.0) * e.dot(step.d);
        let expanded = Vec4::select(
            step.measured,
            self.0.mul_add(step.s, across, big),
            Vec4::splat(-1.0),
        );
        let wide = expanded.cmpgt(Vec4::splat(0.25) * big);
        // The square taken directly only where a lane's expansion would cancel (rare).
        let x = if wide.all() {
            expanded
        } else {
            Vec4::select(wide, expanded, d.dot(d))
        };
        (d, x)
    }
}

/// `passes::Bone` for four chains.
#[derive(Clone, Copy, Default)]
struct Bones {
    length: Vec4,
    half: Vec4,
    three_halves: Vec4,
    square: Vec4,
}

impl Bones {
    fn new(length: Vec4) -> Self {
        Self {
            length,
            half: Vec4::splat(0.5) * length,
            three_halves: Vec4::splat(1.5) * length,
            square: length * length,
        }
    }
}

/// The estimate of `1 / √x` in each lane (12 bits on x86-64; exact elsewhere).
#[inline(always)]
fn rsqrt_estimate(x: Vec4) -> Vec4 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::_mm_rsqrt_ps;
        #[expect(unsafe_code, reason = "an SSE intrinsic: x86-64's baseline")]
        // SAFETY: SSE is part of every x86-64 target (the intrinsic only needs the feature).
        unsafe {
            Vec4::from(_mm_rsqrt_ps(x.into()))
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec4::ONE / Vec4::new(x.x.sqrt(), x.y.sqrt(), x.z.sqrt(), x.w.sqrt())
    }
}

#[cfg(test)]
#[allow(
    clippy::needless_range_loop,
    reason = "lanes and joints indexed side by side"
)]
mod tests {
    use glam::Vec3A;

    use super::*;
    use crate::ik::fabrik::passes;

    /// Chains of `N` joints, each with its bone lengths, target, tolerance and iterations.
    struct Four<const N: usize> {
        chains: [[Vec3A; N]; 4],
        lengths: [[f32; N]; 4],
        targets: [Vec3A; 4],
        tolerances: [f32; 4],
        iterations: [u32; 4],
    }

    impl<const N: usize> Four<N> {
        /// Runs the chains one by one and side by side, and holds the two to the same
        /// iterations and positions within `tolerance`; returns the iterations.
        fn agree(&self, tolerance: f32) -> [u32; 4] {
            let mut one = self.chains;
            let want: [u32; 4] = core::array::from_fn(|k| {
                let goal = passes::Goal {
                    root: Vec3A::ZERO,
                    target: self.targets[k],
                    axis: self.targets[k].normalize(),
                    tolerance: self.tolerances[k],
                    iterations: self.iterations[k],
                };
                passes::run(&mut one[k], &self.lengths[k][..N - 1], &goal)
            });
            let mut p: [Vec3x4; N] = core::array::from_fn(|i| {
                Vec3x4::from_lanes(core::array::from_fn(|k| self.chains[k][i].to_array()))
            });
            let length: [Vec4; N] =
                core::array::from_fn(|i| Vec4::from_array(self.lengths.map(|l| l[i])));
            let goal = Goals {
                root: Vec3x4::ZERO,
                target: Vec3x4::from_lanes(self.targets.map(|t| t.to_array())),
                axis: Vec3x4::from_lanes(self.targets.map(|t| t.normalize().to_array())),
                tolerance: Vec4::from_array(self.tolerances),
                iterations: self.iterations,
            };
            let used = run(&mut p, &length[..N - 1], &goal);
            assert_eq!(used, want);
            for k in 0..4 {
                for i in 0..N {
                    let got = Vec3A::from_array(p[i].lane(k));
                    assert!(
                        (got - one[k][i]).length() <= tolerance,
                        "chain {k} joint {i}: {got} against {}",
                        one[k][i]
                    );
                }
            }
            used
        }
    }

    /// Four different chains of five joints, run together and one by one: the same
    /// iteration counts, including lanes that stop early on their tolerance and one with
    /// fewer iterations, and the same positions up to f32 rounding (one chain's steps work
    /// each square out a step ahead, the lanes' a dot product later: measured 2.5e-6 apart).
    #[test]
    fn four_lanes_run_as_four_chains() {
        let chains: [[Vec3A; 5]; 4] = core::array::from_fn(|k| {
            let k = k as f32;
            core::array::from_fn(|i| {
                let t = i as f32;
                Vec3A::new(
                    0.3 * t * (1.0 + 0.1 * k),
                    t * (1.0 - 0.05 * k),
                    0.1 * t * t * k,
                )
            })
        });
        let lengths = chains.map(|c| core::array::from_fn(|i| (c[(i + 1) % 5] - c[i]).length()));
        let used = Four {
            chains,
            lengths,
            targets: [
                Vec3A::new(3.5, 3.0, 0.5),
                Vec3A::new(-1.0, 2.0, 0.3),
                Vec3A::new(0.5, 0.5, 0.5),
                Vec3A::new(2.0, -0.5, 1.0),
            ],
            // Lane 0 runs every iteration (its target is out of reach: a tolerance of 0 on a
            // reachable one would make the count rounding's choice); lanes 1 and 3 meet their tolerance (lane 3 lands
            // exactly, where a tolerance of 0 would make the count rounding's choice); lane 2
            // runs out of iterations.
            tolerances: [0.0, 1e-3, 0.0, 1e-5],
            iterations: [10, 40, 3, 7],
        }
        .agree(5e-6);
        assert!(
            used[0] == 10 && used[1] < 40 && used[3] < 7,
            "tolerances stop early: {used:?}"
        );
    }

    /// Chains that start with a joint on the target (lane 0) or folded back through the root
    /// (lane 2) run as they do alone.
    #[test]
    fn a_lane_with_coinciding_joints_falls_back_as_alone() {
        Four {
            chains: [
                [Vec3A::ZERO, Vec3A::new(0.0, 0.0, 1.5), Vec3A::X],
                [Vec3A::ZERO, Vec3A::Y, Vec3A::new(0.5, 1.5, 0.0)],
                [Vec3A::ZERO, Vec3A::new(0.0, 0.0, -1.0), Vec3A::X],
                [Vec3A::ZERO, Vec3A::X, Vec3A::new(1.0, 1.0, 0.0)],
            ],
            lengths: [[1.0; 3]; 4],
            targets: [
                Vec3A::new(0.0, 0.0, 1.5),
                Vec3A::new(0.8, 0.8, 0.2),
                Vec3A::Z,
                Vec3A::new(1.2, 0.3, -0.4),
            ],
            tolerances: [0.0; 4],
            iterations: [3, 3, 1, 3],
        }
        .agree(1e-6);
    }

    /// A step whose joint sits on the joint just placed (`x` zero or subnormal) takes the
    /// fallback direction at the bone's length, lane by lane; the others their own.
    #[test]
    fn a_step_with_no_length_takes_the_fallback() {
        let d = Vec3x4::from_lanes([
            [0.0; 3],
            [2.0, 0.0, 0.0],
            [1e-30, 0.0, 0.0],
            [0.0, 3.0, 0.0],
        ]);
        let x = d.dot(d);
        let fallback = Vec3x4::splat([0.0, 0.0, 1.0]);
        let bone = Bones::new(Vec4::new(1.0, 2.0, 3.0, 4.0));
        let step = Four(Separate).scale(d, x, &bone, fallback);
        assert_eq!(step.d.lane(0), [0.0, 0.0, 1.0]);
        assert_eq!(step.d.lane(2), [0.0, 0.0, 1.0]);
        assert_eq!(step.d.lane(1), [2.0, 0.0, 0.0]);
        assert_eq!(step.d.lane(3), [0.0, 3.0, 0.0]);
        let s = step.s.to_array();
        assert_eq!([s[0], s[2]], [1.0, 3.0], "the bone's length");
        assert!(
            (s[1] - 1.0).abs() < 1e-6 && (s[3] - 4.0 / 3.0).abs() < 1e-6,
            "{s:?}"
        );
        assert_eq!(step.measured.bitmask(), 0b1010);
    }
}
