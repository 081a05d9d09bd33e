//! Where [`Crowd`](crate::Crowd) keeps each skinning pipeline, and the layout of its
//! instances' morph weights.

use skel_anim::AnimationData;
use skel_gpu::{Influences, SkinningMethod};

/// Pipelines in `Crowd`'s table: 3 influence counts × linear/dual quaternion × morph off/on.
pub(crate) const CROWD_PIPELINES: usize = 12;

/// The pipeline of `influences` per vertex, `method` and morphing in `Crowd`'s table.
pub(crate) fn pipeline_slot(influences: u32, method: SkinningMethod, morph: bool) -> usize {
    let sets = match Influences::for_count(influences) {
        Influences::None | Influences::Four => 0,
        Influences::Eight => 1,
        Influences::Sixteen => 2,
    };
    sets + 3 * usize::from(method == SkinningMethod::DualQuaternion) + 6 * usize::from(morph)
}

/// Each morph binding's first weight within an instance's, and the floats per instance: the
/// bindings' targets one after the other, rounded up to whole vec4s. The layout
/// `skel_gpu::GpuClipSet` gives the pose pass's morph buffer (`morph_offsets`,
/// `GpuClips::morph_floats`), so that both posing paths feed skinning the same way.
pub(crate) fn morph_layout(data: &AnimationData) -> (Vec<u32>, u32) {
    let mut offsets = Vec::with_capacity(data.morph_bindings.len());
    let mut count = 0u32;
    for binding in &data.morph_bindings {
        offsets.push(count);
        count = count.saturating_add(u32::try_from(binding.target_count()).unwrap_or(u32::MAX));
    }
    (offsets, count.div_ceil(4) * 4)
}
