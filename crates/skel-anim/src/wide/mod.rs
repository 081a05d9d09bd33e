//! The pose passes' kernels for the CPU they run on: which ones a rig uses is decided once,
//! when its plan is built ([`Kernels::detect`]), and stored in the plan, so nothing here is
//! process-wide state and no build needs `-C target-cpu`. The passes that run them sit above
//! (`single.rs`, `player/quad_mix.rs`).
//!
//! - [`Kernels::Baseline`]: the code as the crate is compiled (SSE2 on x86-64, NEON on
//!   aarch64, portable code elsewhere). Always available; the reference the others are tested
//!   against.
//! - [`Kernels::Avx2Fma`] (x86-64 with AVX2 and FMA, detected with `is_x86_feature_detected!`):
//!   the passes compiled with those features (three-operand VEX forms and broadcast loads: the
//!   same operations in the same order, the same bits for sampling, slerp, blending and
//!   compose), with the hierarchy's products (`parent · local`) and the bone matrices
//!   (`world · inverseBind`) two columns per 256-bit operation with fused multiply-adds
//!   ([`avx2`]). FMA rounds once where the baseline rounds twice, so world and bone matrices
//!   differ from the baseline's by a few units in the last place of the magnitudes multiplied
//!   (the tests in `quads.rs` bound it); local poses (the TRS record) are bit for bit the
//!   baseline's. Which kernel runs depends only on the machine and the path, so results are
//!   deterministic per machine (serial and parallel ticks agree bit for bit). The
//!   property-by-property layered path and hooked poses keep the baseline hierarchy.
//!
//! [`CpuKernels::Baseline`] (`Rig::with_kernels`) keeps the baseline on any CPU (for A/B
//! measurements; the measuring programs take it from `SKEL_KERNELS=baseline`).

#![allow(
    unsafe_code,
    reason = "calling #[target_feature] functions after run-time detection; every block says why"
)]

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;

use glam::Vec4;

/// Which kernels a compiled rig may use ([`Rig::with_kernels`](crate::Rig::with_kernels)).
///
/// The choice changes rounding only: with AVX2 and FMA the hierarchy's and the bone matrices'
/// products are fused multiply-adds (a few units in the last place from the baseline's), while
/// local poses are the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpuKernels {
    /// The widest kernels this CPU runs, found with `is_x86_feature_detected!` (AVX2 + FMA on
    /// x86-64 where present; the baseline elsewhere). What [`Rig::new`](crate::Rig::new) uses.
    #[default]
    Detect,
    /// The code as the crate was compiled (SSE2 on x86-64, NEON on aarch64) on any CPU: for
    /// comparing against, and for A/B measurements.
    Baseline,
}

/// Which compiled variant of the pose pass a rig runs: a fact about the CPU, found once per
/// plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernels {
    /// The pass as the crate was compiled (SSE2 on x86-64).
    Baseline,
    /// x86-64 with AVX2 and FMA, found at run time.
    #[cfg(target_arch = "x86_64")]
    Avx2Fma,
}

impl Kernels {
    /// The kernels `choice` asks for: the widest this CPU runs ([`CpuKernels::Detect`]), or the
    /// baseline ([`CpuKernels::Baseline`]). Called when a rig is compiled, never per frame.
    #[must_use]
    pub(crate) fn detect(choice: CpuKernels) -> Self {
        if choice == CpuKernels::Baseline {
            return Self::Baseline;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Self::Avx2Fma;
        }
        Self::Baseline
    }
}

/// The inverse-bind matrices `ibm` (16 floats each) in the layout `kernels`' bone product
/// reads beside `BindingPlan::ibm_splats`: empty for the baseline.
#[must_use]
pub(crate) fn wide_splats(kernels: Kernels, ibm: &[f32]) -> Vec<[[f32; 8]; 8]> {
    match kernels {
        Kernels::Baseline => Vec::new(),
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2Fma => ibm.chunks_exact(16).map(avx2::wide_splats).collect(),
    }
}

/// `bones[i] = post(world[joints[i]] · inverseBind[i])` with `kernels`' product: the
/// baseline's `pose::splat_bones` (the inverse binds from `splats`), or the AVX2 + FMA one
/// (from `wide`, which must then be `wide_splats`' layout of the same matrices). `post` is a
/// diagonal mesh inverse's column scale, `None` for the identity.
#[inline(always)]
#[expect(
    clippy::too_many_arguments,
    reason = "the bone pass's buffers, borrowed apart"
)]
pub(crate) fn bones(
    kernels: Kernels,
    world: &[f32],
    joints: &[usize],
    splats: &[[glam::Vec4; 16]],
    wide: &[[[f32; 8]; 8]],
    affine: bool,
    bones: &mut [f32],
    post: Option<glam::Vec4>,
) {
    match (kernels, post) {
        (Kernels::Baseline, None) => {
            splat_bones(world, joints, splats, affine, bones, |c| c);
        }
        (Kernels::Baseline, Some(d)) => {
            splat_bones(world, joints, splats, affine, bones, |c| c * d);
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
        // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
        (Kernels::Avx2Fma, _) => unsafe {
            avx2::splat_bones(world, joints, wide, affine, bones, post);
        },
    }
}

/// `bones[i] = post(world[joints[i]] · inverseBind[i])` column by column, the inverse binds
/// given as splats (`BindingPlan::ibm_splats`): the same operations in the same order as
/// `mul_affine` (`affine`) or `mul_full`, without broadcasting the inverse bind's elements.
#[inline(always)]
fn splat_bones(
    world: &[f32],
    joints: &[usize],
    splats: &[[Vec4; 16]],
    affine: bool,
    bones: &mut [f32],
    post: impl Fn(Vec4) -> Vec4,
) {
    use crate::interpolate::{load, matrices, matrices_mut, store};
    let world = matrices(world);
    let pairs = joints.iter().zip(splats).zip(matrices_mut(bones));
    if affine {
        for ((&joint, b), out) in pairs {
            let w = load(&world[joint]);
            let col = |c: usize| w[0] * b[4 * c] + w[1] * b[4 * c + 1] + w[2] * b[4 * c + 2];
            let m = [col(0), col(1), col(2), col(3) + w[3]].map(&post);
            store(out, &m);
        }
    } else {
        for ((&joint, b), out) in pairs {
            let w = load(&world[joint]);
            let col = |c: usize| {
                w[0] * b[4 * c] + w[1] * b[4 * c + 1] + w[2] * b[4 * c + 2] + w[3] * b[4 * c + 3]
            };
            let m = [col(0), col(1), col(2), col(3)].map(&post);
            store(out, &m);
        }
    }
}
