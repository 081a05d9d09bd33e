//! Where [`Crowd`](crate::Crowd) keeps each skinning pipeline.

use skel_gpu::{Influences, SkinningMethod};

/// The pipeline of `influences` per vertex and `method` in `Crowd`'s table.
pub(crate) fn pipeline_slot(influences: u32, method: SkinningMethod) -> usize {
    let sets = match Influences::for_count(influences) {
        Influences::None | Influences::Four => 0,
        Influences::Eight => 1,
        Influences::Sixteen => 2,
    };
    sets + 3 * usize::from(method == SkinningMethod::DualQuaternion)
}
