//! The pose passes' kernels for the CPU they run on: which ones a rig uses is decided once,
//! when its plan is built ([`Kernels::detect`]), and stored in the plan, so nothing here is
//! process-wide state and no build needs `-C target-cpu`. The passes that run them are per frame
//! (the single clip's in `pose/single_clip.rs`, the layers' in `player/quad_mix.rs`, the bone
//! product in `pose/bones.rs`).
//!
//! - [`Kernels::Baseline`]: the code as the crate is compiled (SSE2 on x86-64, NEON on
//!   aarch64, portable code elsewhere). Always available; the reference the others are tested
//!   against.
//! - [`Kernels::Avx2Fma`] (x86-64 with AVX2 and FMA, detected with `is_x86_feature_detected!`):
//!   the passes compiled with those features (three-operand VEX forms and broadcast loads: the
//!   same operations in the same order, the same bits for sampling, slerp, blending and
//!   compose), with the hierarchy's products (`parent · local`) and the bone matrices
//!   (`world · inverseBind`) two columns per 256-bit operation with fused multiply-adds
//!   (`pose/avx2.rs`). FMA rounds once where the baseline rounds twice, so world and bone matrices
//!   differ from the baseline's by a few units in the last place of the magnitudes multiplied
//!   (the tests in `pose/four_node.rs` bound it); local poses (the TRS record) are bit for bit the
//!   baseline's, except while an inertialized switch blends: its offset's multiply-adds are
//!   fused too (within 1e-6 of the baseline's, `inertial/lanes.rs` tests it). Which kernel runs depends only on the machine and the path, so results are
//!   deterministic per machine (serial and parallel ticks agree bit for bit). The
//!   property-by-property layered path and hooked poses keep the baseline hierarchy.
//!
//! [`CpuKernels::Baseline`] (`Rig::with_kernels`) keeps the baseline on any CPU (for A/B
//! measurements; the measuring programs take it from `SKEL_KERNELS=baseline`).

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
#[cfg_attr(
    not(target_arch = "x86_64"),
    expect(unused_variables, reason = "read by the x86_64 kernels only")
)]
pub(crate) fn wide_splats(kernels: Kernels, ibm: &[f32]) -> Vec<[[f32; 8]; 8]> {
    match kernels {
        Kernels::Baseline => Vec::new(),
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2Fma => ibm.chunks_exact(16).map(wide_splat).collect(),
    }
}

/// An inverse-bind matrix (16 floats, column-major) laid out for the AVX2 bone product (`pose::avx2::splat_bones`): entry
/// `4p + r` holds element (row `r`, column `2p`) in floats 0–3 and (row `r`, column `2p + 1`)
/// in floats 4–7, so that one 256-bit load feeds two columns of the product.
#[must_use]
#[cfg(target_arch = "x86_64")]
fn wide_splat(m: &[f32]) -> [[f32; 8]; 8] {
    std::array::from_fn(|i| {
        let (p, r) = (i / 4, i % 4);
        std::array::from_fn(|k| m[4 * (2 * p + k / 4) + r])
    })
}
