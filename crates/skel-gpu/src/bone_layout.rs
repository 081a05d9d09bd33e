//! How a crowd's bone buffer lays out each bone ([`BoneLayout`]: 4×4 or 3×4), and how many
//! whole instances of it one storage binding holds when the buffer is bound in chunks (the pose
//! pass and the culling pass).

use crate::{GpuContext, GpuError};

/// How a crowd's bone buffer stores each bone's skinning matrix.
///
/// Skinning matrices are affine (glTF inverse bind matrices and node transforms are), so
/// their bottom row is always `0 0 0 1`: [`Affine3x4`](Self::Affine3x4) leaves it out, 48
/// bytes a bone instead of 64. The GPU pose pass writes either; every reader in this crate
/// (crowd compute skinning, [`CrowdCull`](crate::CrowdCull)) reads either and rebuilds the
/// same 4×4 matrix, so skinning does the same arithmetic on the same numbers. The vertex
/// fragment ([`crate::crowd_vertex_wgsl`]) reads 4×4 unless the render pipeline sets the
/// override constant [`BONE_VEC4S_CONSTANT`] to [`vec4s`](Self::vec4s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoneLayout {
    /// A column-major 4×4 `f32` matrix (`mat4x4<f32>` in WGSL, [`glam::Mat4`]'s layout), 64
    /// bytes: what [`CrowdBones::upload`](crate::CrowdBones::upload) copies and what
    /// [`CrowdBones::new_gpu_posed`](crate::CrowdBones::new_gpu_posed) holds.
    #[default]
    Mat4,
    /// The top three rows of the matrix, each a `vec4<f32>` (row `r` is
    /// `(m[0][r], m[1][r], m[2][r], m[3][r])`), 48 bytes; the bottom row is `0 0 0 1`. Only
    /// GPU-posed crowds
    /// ([`CrowdBones::new_gpu_posed_with_layout`](crate::CrowdBones::new_gpu_posed_with_layout))
    /// hold it.
    Affine3x4,
}

impl BoneLayout {
    /// Bytes per bone.
    #[must_use]
    pub const fn bytes(self) -> u64 {
        16 * self.vec4s() as u64
    }

    /// `vec4<f32>`s per bone: 4 or 3 (the value of [`BONE_VEC4S_CONSTANT`]).
    #[must_use]
    pub const fn vec4s(self) -> u32 {
        match self {
            Self::Mat4 => 4,
            Self::Affine3x4 => 3,
        }
    }

    /// The pipeline-overridable constants that make a shader of this crate read this layout.
    #[must_use]
    pub fn constants(self) -> [(&'static str, f64); 1] {
        [(BONE_VEC4S_CONSTANT, f64::from(self.vec4s()))]
    }
}

/// The WGSL override constant (`override SKEL_BONE_VEC4S: u32 = 4u;`) that says how the
/// crowd shaders (`skel_crowd_compute.wgsl`, `skel_crowd_vertex.wgsl`, `skel_cull.wgsl`) read
/// the bone buffer: 4 for [`BoneLayout::Mat4`] (the default), 3 for
/// [`BoneLayout::Affine3x4`].
pub const BONE_VEC4S_CONSTANT: &str = "SKEL_BONE_VEC4S";

/// How many whole instances of `instance_bytes` of bones one storage binding of a chunked
/// bone buffer holds: as many as fit under `max_chunk_bytes` (when given) and the device's
/// binding limit, a multiple of 4 (and of whatever more keeps chunk offsets 256-byte aligned:
/// 16 for 48-byte bones of an odd bone count), at most `count`. The pose pass and the culling pass bind the bone buffer so.
///
/// # Errors
/// [`GpuError::MissingLimit`] when not even 4 instances fit.
pub(crate) fn instances_per_chunk(
    ctx: &GpuContext,
    instance_bytes: u64,
    max_chunk_bytes: Option<u64>,
    count: u32,
) -> Result<u32, GpuError> {
    let limit = max_chunk_bytes
        .unwrap_or(u64::MAX)
        .min(ctx.limits.max_storage_buffer_binding_size);
    let step = 4.max(256 / gcd(instance_bytes.max(1), 256));
    let whole = (limit / instance_bytes.max(1)) / step * step;
    if whole == 0 {
        return Err(GpuError::MissingLimit {
            name: "max_storage_buffer_binding_size",
            needed: step * instance_bytes,
            available: limit,
        });
    }
    // At most `count`, which is a u32.
    Ok(u32::try_from(whole.min(u64::from(count))).unwrap_or(count))
}

/// Greatest common divisor.
fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
