//! The single-clip pass's entry with the kernels of the rig's plan ([`Kernels`]): sampling,
//! local → world (the hierarchy's products by the kernels' [`Place`](crate::pose::four_node::Place)) and
//! the bone matrices, into a sink. Above both the pose steps and the kernels, so that neither
//! depends on the other.

#![allow(
    unsafe_code,
    reason = "calling the AVX2 variant after run-time detection; every block says why"
)]

use crate::rig::kernels::Kernels;
use crate::{AnimationData, PoseScratch, PoseSink};

/// The single-clip pass (sampling, local → world, bone matrices to `sink`) with the kernels
/// of `scratch`'s plan. Returns `false`, having done nothing, for a clip that needs the generic
/// path (`pose::steps::pose_clip_fused`'s rule).
#[inline]
pub(crate) fn pose_clip(
    data: &AnimationData,
    clip: usize,
    time: f32,
    scratch: &mut PoseScratch,
    record: bool,
    sink: &mut dyn PoseSink,
) -> bool {
    match scratch.plan.kernels {
        Kernels::Baseline => pose_clip_baseline(data, clip, time, scratch, record, sink),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
        // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
        Kernels::Avx2Fma => unsafe { pose_clip_avx2(data, clip, time, scratch, record, sink) },
    }
}

/// The baseline pass: [`pose_clip`] with [`Kernels::Baseline`], whatever the plan chose.
#[inline(always)]
pub(crate) fn pose_clip_baseline(
    data: &AnimationData,
    clip: usize,
    time: f32,
    scratch: &mut PoseScratch,
    record: bool,
    sink: &mut dyn PoseSink,
) -> bool {
    pose_clip_with(
        data,
        clip,
        time,
        scratch,
        record,
        sink,
        crate::pose::four_node::Baseline,
    )
}

/// The single-clip pass with the hierarchy's products by `placer` (the bone matrices by the
/// plan's kernels).
#[inline(always)]
pub(crate) fn pose_clip_with(
    data: &AnimationData,
    clip: usize,
    time: f32,
    scratch: &mut PoseScratch,
    record: bool,
    sink: &mut dyn PoseSink,
    placer: impl crate::pose::four_node::Place,
) -> bool {
    if crate::pose::steps::pose_clip_fused(data, clip, time, scratch, record, placer) {
        crate::pose::bones::compute_frame_bone_matrices(data, scratch, sink);
        true
    } else {
        false
    }
}

/// The single-clip pass (inlined whole) compiled with AVX2 and FMA enabled, the hierarchy's
/// products by `pose::avx2::place_quad` and the bone matrices by `pose::avx2::splat_bones`.
/// Sampling and composition are the baseline's code: the compiler never fuses a multiply and
/// an add on its own, so their operations and bits are the baseline's; only the encoding is
/// shorter.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn pose_clip_avx2(
    data: &AnimationData,
    clip: usize,
    time: f32,
    scratch: &mut PoseScratch,
    record: bool,
    sink: &mut dyn PoseSink,
) -> bool {
    // SAFETY: this function is compiled with AVX2 and FMA and called only where
    // `Kernels::detect` found both (`pose_clip`'s match on the plan's kernels).
    let fma = unsafe { crate::pose::avx2::Fma::new() };
    pose_clip_with(data, clip, time, scratch, record, sink, fma)
}
