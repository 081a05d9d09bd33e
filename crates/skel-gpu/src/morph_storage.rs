//! Where a mesh's morph deltas live on the GPU.
//!
//! Every vertex reads the deltas of every target with a non-zero weight at its own index, so
//! they sit in a resource the vertex stage can index:
//!
//! - a storage buffer of `f32` ([`MorphDeltaStorage::Buffer`], the default): compact (3 floats
//!   per delta) and what compute and crowd skinning read too;
//! - an `rgba32float` texture ([`MorphDeltaStorage::Texture`]) where vertex shaders have no
//!   storage buffers: WebGL2 (`max_storage_buffers_per_shader_stage` and
//!   `max_storage_buffer_binding_size` are 0 in `Limits::downlevel_webgl2_defaults`) and GL ES
//!   devices without vertex storage blocks. This is Babylon.js's morph target texture. GL ES
//!   3.0 vertex shaders may `texelFetch`, which is what WGSL's `textureLoad` becomes there,
//!   and an unfilterable float texture needs no sampler or filtering feature (the bone texture
//!   is read the same way). Its layout is [`MorphTextureLayout`](crate::MorphTextureLayout)'s.

use std::fmt;

/// Where a [`MorphGpu`](crate::MorphGpu) keeps its deltas (see the module docs);
/// a [`ShaderFragment`](crate::ShaderFragment) reads one or the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MorphDeltaStorage {
    /// A read-only storage buffer of `f32` (WebGPU and native devices).
    #[default]
    Buffer,
    /// A [`MORPH_TEXTURE_FORMAT`](crate::MORPH_TEXTURE_FORMAT) texture read with
    /// `textureLoad` (WebGL2).
    Texture,
}

impl fmt::Display for MorphDeltaStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Buffer => "a storage buffer",
            Self::Texture => "a texture",
        })
    }
}
