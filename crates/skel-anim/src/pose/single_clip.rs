//! The single-clip pass's entry with the kernels of the rig's plan ([`Kernels`]): sampling,
//! local → world (the hierarchy's products by the kernels' [`Place`](crate::pose::four_node::Place)) and
//! the bone matrices, into a sink. Above both the pose steps and the kernels, so that neither
//! depends on the other.

#![allow(
    unsafe_code,
    reason = "calling the AVX2 variant after run-time detection; every block says why"
)]

use crate::inertial::Inertialization;
use crate::pose::four_node::{NoOffset, QuadOffset};
use crate::rig::kernels::Kernels;
use crate::{AnimationData, PoseScratch, PoseSink};

/// What one single-clip evaluation asks for: the clip, the time, whether the TRS records are
/// written, and a running inertialization laid out over the clip's quads to add.
#[derive(Clone, Copy)]
pub(crate) struct ClipPose<'a> {
    pub(crate) clip: usize,
    pub(crate) time: f32,
    pub(crate) record: bool,
    pub(crate) offset: Option<&'a Inertialization>,
}

/// The single-clip pass (sampling, local → world, bone matrices to `sink`) with the kernels
/// of `scratch`'s plan. Returns `false`, having done nothing, for a clip that needs the generic
/// path (`pose::steps::pose_clip_fused`'s rule).
#[inline]
pub(crate) fn pose_clip(
    data: &AnimationData,
    job: ClipPose<'_>,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
) -> bool {
    // Without a blend, the pass without the offset's code: each its own function, so that
    // neither crowds the other out of the compiler's inlining.
    match (scratch.plan.kernels, job.offset) {
        (Kernels::Baseline, None) => pose_clip_baseline(data, job, scratch, sink),
        (Kernels::Baseline, Some(o)) => pose_clip_with(
            data,
            job,
            scratch,
            sink,
            crate::pose::four_node::Baseline,
            o,
        ),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
        // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
        (Kernels::Avx2Fma, None) => unsafe { pose_clip_avx2(data, job, scratch, sink) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        (Kernels::Avx2Fma, Some(o)) => unsafe { pose_clip_blend_avx2(data, job, scratch, sink, o) },
    }
}

/// The baseline pass: [`pose_clip`] with [`Kernels::Baseline`], whatever the plan chose.
#[inline(always)]
pub(crate) fn pose_clip_baseline(
    data: &AnimationData,
    job: ClipPose<'_>,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
) -> bool {
    pose_clip_with(
        data,
        job,
        scratch,
        sink,
        crate::pose::four_node::Baseline,
        NoOffset,
    )
}

/// The single-clip pass with the hierarchy's products by `placer` (the bone matrices by the
/// plan's kernels).
#[inline(always)]
pub(crate) fn pose_clip_with(
    data: &AnimationData,
    job: ClipPose<'_>,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
    placer: impl crate::pose::four_node::Place,
    offset: impl QuadOffset,
) -> bool {
    let ClipPose {
        clip, time, record, ..
    } = job;
    if crate::pose::steps::pose_clip_fused(data, clip, time, scratch, record, placer, offset) {
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
    job: ClipPose<'_>,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
) -> bool {
    // SAFETY: this function is compiled with AVX2 and FMA and called only where
    // `Kernels::detect` found both (`pose_clip`'s match on the plan's kernels).
    let fma = unsafe { crate::pose::avx2::Fma::new() };
    pose_clip_with(data, job, scratch, sink, fma, NoOffset)
}

/// [`pose_clip_avx2`] with a running inertialization's offset added four nodes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn pose_clip_blend_avx2(
    data: &AnimationData,
    job: ClipPose<'_>,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
    offset: &Inertialization,
) -> bool {
    // SAFETY: this function is compiled with AVX2 and FMA and called only where
    // `Kernels::detect` found both (`pose_clip`'s match on the plan's kernels).
    let fma = unsafe { crate::pose::avx2::Fma::new() };
    pose_clip_with(data, job, scratch, sink, fma, offset)
}
