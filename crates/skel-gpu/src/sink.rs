//! The [`PoseSink`] that `AnimationController::tick` writes to: uploads to wgpu.

use skel_anim::PoseSink;

use crate::{MorphGpu, SkeletonGpu};

/// Uploads a tick's pose: bone matrices of skeleton binding `i` go to `skeletons[i]` with
/// `Queue::write_texture` (at most two calls, see [`BoneTextureLayout`](crate::BoneTextureLayout)),
/// morph weights of morph binding `j` to `morphs[j]` with one `Queue::write_buffer` of the
/// weights at offset 0 (16 bytes for up to 4 targets, the seed's write). CPU mirrors are updated
/// too, so device-loss recovery restores the last pose.
///
/// Borrowing, not owning: build one per frame for free (`new` allocates nothing, nor does
/// anything the controller calls). Slots can be the skeletons themselves or `&mut` references
/// to skeletons kept elsewhere (anything `AsMut<SkeletonGpu>`).
///
/// A tick cannot fail, so mismatches are counted, not raised: a binding with no slot, or a
/// matrix count that differs from the skeleton's bone count, is skipped and adds one to
/// [`skipped`](Self::skipped).
///
/// ```no_run
/// # fn frame(ctx: &skel_gpu::GpuContext, controller: &mut skel_anim::AnimationController,
/// #          skeletons: &mut [skel_gpu::SkeletonGpu], morphs: &mut [skel_gpu::MorphGpu]) {
/// let mut sink = skel_gpu::GpuPoseSink::new(&ctx.queue, skeletons, morphs);
/// controller.tick(16.7, &mut sink);
/// assert_eq!(sink.skipped(), 0);
/// # }
/// ```
#[derive(Debug)]
pub struct GpuPoseSink<'a, S = SkeletonGpu, M = MorphGpu> {
    queue: &'a wgpu::Queue,
    skeletons: &'a mut [S],
    morphs: &'a mut [M],
    skipped: u32,
}

impl<'a, S: AsMut<SkeletonGpu>, M: AsMut<MorphGpu>> GpuPoseSink<'a, S, M> {
    /// A sink writing skeleton binding `i` to `skeletons[i]` and morph binding `j` to
    /// `morphs[j]`.
    #[must_use]
    pub fn new(queue: &'a wgpu::Queue, skeletons: &'a mut [S], morphs: &'a mut [M]) -> Self {
        Self {
            queue,
            skeletons,
            morphs,
            skipped: 0,
        }
    }

    /// Uploads skipped since this sink was made (missing slot or wrong length).
    #[must_use]
    pub fn skipped(&self) -> u32 {
        self.skipped
    }
}

impl<'a, S: AsMut<SkeletonGpu>> GpuPoseSink<'a, S, MorphGpu> {
    /// A sink for skeletons only; morph weights are counted as skipped.
    #[must_use]
    pub fn skeletons(queue: &'a wgpu::Queue, skeletons: &'a mut [S]) -> Self {
        Self::new(queue, skeletons, &mut [])
    }
}

impl<S: AsMut<SkeletonGpu>, M: AsMut<MorphGpu>> PoseSink for GpuPoseSink<'_, S, M> {
    fn bone_matrices(&mut self, binding: usize, matrices: &[glam::Mat4]) {
        let written = self
            .skeletons
            .get_mut(binding)
            .is_some_and(|s| s.as_mut().write_bone_matrices(self.queue, matrices));
        if !written {
            self.skipped += 1;
        }
    }

    fn morph_weights(&mut self, binding: usize, weights: &[f32]) {
        let morph = self.morphs.get_mut(binding).map(AsMut::as_mut);
        match morph {
            Some(m) if weights.len() == m.target_count() => m.write_weights(self.queue, weights),
            _ => self.skipped += 1,
        }
    }
}
