//! Morph targets in crowd compute skinning: what a morphing mesh binds besides the skinning
//! inputs (bindings 15-17 of `skel_crowd_compute.wgsl`), and the checks that keep the shader's
//! reads inside the buffers.
//!
//! Every instance morphs with its own weights (glTF 2.0 §3.7.2.2: `p + Σ w_t Δp_t`, the same
//! for normals when the targets carry normal deltas) before it is skinned, as
//! [`ComputeSkinning`](crate::ComputeSkinning) and the vertex fragment do for one character. The
//! weights sit in one storage buffer for the whole crowd, `weight_stride` floats per instance,
//! the mesh's first at `weight_offset`: the layout [`GpuCrowdPose::morph_buffer`] writes
//! ([`GpuClips::morph_floats`] per instance, each morph binding's targets at its
//! [`GpuClipSet::morph_offsets`] entry), so a GPU-posed crowd binds that buffer as is.
//!
//! [`GpuCrowdPose::morph_buffer`]: crate::GpuCrowdPose::morph_buffer
//! [`GpuClips::morph_floats`]: crate::GpuClips::morph_floats
//! [`GpuClipSet::morph_offsets`]: crate::GpuClipSet::morph_offsets

use crate::bind_entries::{READ, UNIFORM, compute_entry};
use crate::{GpuError, MorphDeltaStorage, MorphGpu};

/// The morph targets of one crowd mesh and where each instance's weights for them are, for a
/// morphing [`CrowdSkinning`](crate::CrowdSkinning) ([`CrowdSkinning::with_morph`]).
///
/// [`CrowdSkinning::with_morph`]: crate::CrowdSkinning::with_morph
#[derive(Debug, Clone, Copy)]
pub struct CrowdMorphInputs<'a> {
    /// The mesh's targets (only the deltas buffer and the counts are read: the weights in its
    /// uniform are a single character's and play no part). Their deltas must be in a storage
    /// buffer ([`MorphDeltaStorage::Buffer`]), else binding fails with
    /// [`GpuError::MorphDeltaMismatch`].
    pub morph: &'a MorphGpu,
    /// Every instance's weights, `f32`, instance-major: instance `i`'s weight for target `t` at
    /// float `i * weight_stride + weight_offset + t`. `STORAGE` usage.
    pub weights: &'a wgpu::Buffer,
    /// Floats per instance in `weights`.
    pub weight_stride: u32,
    /// The mesh's first weight within an instance's.
    pub weight_offset: u32,
}

/// The morphing entry points' extra bindings: the 16-byte `SkelCrowdMorph` uniform, the deltas
/// and the weights.
pub(crate) const CROWD_MORPH_BINDINGS: [u32; 3] = [15, 16, 17];

/// Layout entries of [`CROWD_MORPH_BINDINGS`].
pub(crate) fn morph_layout_entries() -> [wgpu::BindGroupLayoutEntry; 3] {
    let entry = compute_entry;
    let read = READ;
    let [params, deltas, weights] = CROWD_MORPH_BINDINGS;
    [
        entry(params, UNIFORM),
        entry(deltas, read),
        entry(weights, read),
    ]
}

/// Checks `inputs` against a mesh of `vertex_count` vertices in a crowd of `instances`, and
/// returns the `SkelCrowdMorph` uniform (target count, normal offset, weight stride, weight
/// offset) with the deltas buffer and the bytes of weights to bind.
pub(crate) fn check_morph<'a>(
    inputs: &CrowdMorphInputs<'a>,
    vertex_count: u32,
    instances: u32,
) -> Result<([u32; 4], &'a wgpu::Buffer, u64), GpuError> {
    let morph = inputs.morph;
    if morph.vertex_count() != vertex_count as usize {
        return Err(GpuError::LengthMismatch {
            what: "crowd morph target vertices",
            expected: vertex_count as usize,
            got: morph.vertex_count(),
        });
    }
    // `create_morph` caps targets at MAX_MORPH_TARGETS (256): the counts fit u32.
    let targets = morph.target_count() as u64;
    let (stride, offset) = (
        u64::from(inputs.weight_stride),
        u64::from(inputs.weight_offset),
    );
    if offset + targets > stride {
        return Err(GpuError::LengthMismatch {
            what: "crowd morph weights per instance (weight_offset + targets)",
            expected: (offset + targets) as usize,
            got: stride as usize,
        });
    }
    let weight_bytes = u64::from(instances) * stride * 4;
    if inputs.weights.size() < weight_bytes {
        return Err(GpuError::BufferTooSmall {
            what: "crowd morph weights",
            needed: weight_bytes,
            got: inputs.weights.size(),
        });
    }
    let position_floats = targets * u64::from(vertex_count) * 3;
    let normal_offset = if morph.has_normals() {
        u32::try_from(position_floats).map_err(|_| GpuError::MissingLimit {
            name: "max_storage_buffer_binding_size",
            needed: position_floats * 8,
            available: u64::from(u32::MAX),
        })?
    } else {
        0
    };
    let params = [
        targets as u32,
        normal_offset,
        inputs.weight_stride,
        inputs.weight_offset,
    ];
    // Crowd compute skinning reads a storage buffer (a compute shader has them where it exists).
    let deltas = morph.deltas_buffer().ok_or(GpuError::MorphDeltaMismatch {
        shader: MorphDeltaStorage::Buffer,
        morph: morph.delta_storage(),
    })?;
    Ok((params, deltas, weight_bytes.max(4)))
}
