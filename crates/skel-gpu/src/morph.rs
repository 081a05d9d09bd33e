//! Morph targets on the GPU: a uniform with the weights (the seed's weights vec4 at offset 0) and
//! every target's position and normal deltas, in a storage buffer or, where vertex shaders have
//! no storage buffers (WebGL2), a texture (see the `morph_storage` and `morph_texture` modules).

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use skel_anim::MorphTargets;

use crate::morph_upload::{Deltas, build};
use crate::{GpuContext, GpuError, MAX_MORPH_TARGETS, MorphDeltaStorage, MorphTextureLayout};

/// The weights upload is at least this long: the seed's `writeBuffer(weightsBuffer, 0, …, 16)`.
pub const MORPH_WEIGHTS_MIN_UPLOAD: usize = 4;

impl MorphDeltaStorage {
    /// What `ctx` can bind in a vertex shader: [`Buffer`](Self::Buffer) where vertex shaders
    /// may read storage buffers ([`GpuContext::vertex_storage_buffers`]), else
    /// [`Texture`](Self::Texture). So native and WebGPU devices keep the buffer, and WebGL2
    /// draws morph targets at all.
    #[must_use]
    pub fn for_context(ctx: &GpuContext) -> Self {
        if ctx.vertex_storage_buffers() {
            Self::Buffer
        } else {
            Self::Texture
        }
    }
}

/// Morph targets of one mesh on the GPU.
///
/// - `params` uniform ([`MORPH_PARAMS_SIZE`](crate::MORPH_PARAMS_SIZE) bytes):
///   `weights: array<vec4<f32>, 64>` at offset 0 (the seed's weights vec4 is its first 16
///   bytes), then `target_count`, `vertex_count`, `normal_offset` (immutable after creation,
///   like the seed's count/texWidth/rowsPerBand).
/// - the deltas ([`delta_storage`](Self::delta_storage)), either a storage buffer of `f32`:
///   position deltas target-major (`(t * vertex_count + v) * 3`), then, when the targets have
///   normals, normal deltas in the same layout starting at float `normal_offset` (0 = no normal
///   deltas); or an `rgba32float` texture of one delta per texel in the same order, texel
///   `t * vertex_count + v`, normals from texel `normal_offset`
///   ([`MorphTextureLayout`]). The uniform's layout is the same for both.
///
/// Weight uploads write `max(4, target_count rounded up to 4)` floats at offset 0: exactly the
/// seed's 16 bytes for up to 4 targets.
///
/// Like [`SkeletonGpu`](crate::SkeletonGpu), uploads take `&self`, so one `MorphGpu` can be
/// shared as `Arc<MorphGpu>` by every mesh that draws it; [`recreate`](Self::recreate) needs
/// an unshared one.
pub struct MorphGpu {
    target_count: usize,
    vertex_count: usize,
    targets: MorphTargets,
    /// Weights as uploaded, padded with zeros to the upload length; locked while an upload
    /// writes it and the buffer.
    weights: Mutex<Vec<f32>>,
    params: wgpu::Buffer,
    deltas: Deltas,
    /// An association owned by a higher layer; never read or replaced here (see
    /// [`SkeletonGpu::handle`](crate::SkeletonGpu::handle)).
    pub handle: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for MorphGpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MorphGpu")
            .field("target_count", &self.target_count)
            .field("vertex_count", &self.vertex_count)
            .field("weights", &self.weights)
            .field("params", &self.params)
            .field("deltas", &self.deltas)
            .finish_non_exhaustive()
    }
}

// Shared as `Arc<MorphGpu>` by cloned meshes, possibly across threads.
// wgpu's types are neither on wasm32 without atomics (one thread there).
#[cfg(not(target_arch = "wasm32"))]
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<MorphGpu>();
};

impl AsMut<MorphGpu> for MorphGpu {
    fn as_mut(&mut self) -> &mut MorphGpu {
        self
    }
}

/// Uploads a mesh's morph targets with initial `weights` (glTF `mesh.weights`, or zeros), the
/// deltas where `ctx`'s vertex shaders can read them
/// ([`MorphDeltaStorage::for_context`]: a storage buffer, or a texture on WebGL2).
///
/// # Errors
/// [`GpuError::NoMorphTargets`], [`GpuError::TooManyMorphTargets`];
/// [`GpuError::LengthMismatch`] when the deltas are not `target_count * vertex_count * 3`
/// floats or `weights` not one per target; [`GpuError::NotFinite`];
/// [`GpuError::MissingLimit`] (`max_storage_buffer_binding_size`, or
/// `max_texture_dimension_2d` for a texture; `max_buffer_size`);
/// [`GpuError::Validation`], [`GpuError::OutOfMemory`].
pub fn create_morph(
    ctx: &GpuContext,
    targets: &MorphTargets,
    vertex_count: usize,
    weights: &[f32],
) -> Result<MorphGpu, GpuError> {
    create_morph_with(
        ctx,
        targets,
        vertex_count,
        weights,
        MorphDeltaStorage::for_context(ctx),
    )
}

/// [`create_morph`] with the deltas in `storage`, whatever the device: a texture on a device
/// that has storage buffers draws the same (tests compare the two), a buffer on one without
/// them fails with [`GpuError::MissingLimit`] (`max_storage_buffer_binding_size`).
///
/// # Errors
/// As [`create_morph`].
pub fn create_morph_with(
    ctx: &GpuContext,
    targets: &MorphTargets,
    vertex_count: usize,
    weights: &[f32],
    storage: MorphDeltaStorage,
) -> Result<MorphGpu, GpuError> {
    let count = targets.target_count;
    if count == 0 {
        return Err(GpuError::NoMorphTargets);
    }
    if count > MAX_MORPH_TARGETS {
        return Err(GpuError::TooManyMorphTargets {
            got: count,
            max: MAX_MORPH_TARGETS,
        });
    }
    let floats = count * vertex_count * 3;
    let check = |what, got: usize| {
        if got == floats {
            Ok(())
        } else {
            Err(GpuError::LengthMismatch {
                what,
                expected: floats,
                got,
            })
        }
    };
    check("morph position deltas", targets.positions.len())?;
    if !targets.normals.is_empty() {
        check("morph normal deltas", targets.normals.len())?;
    }
    if weights.len() != count {
        return Err(GpuError::LengthMismatch {
            what: "morph weights (one per target)",
            expected: count,
            got: weights.len(),
        });
    }
    for (what, values) in [
        ("morph position deltas", &targets.positions),
        ("morph normal deltas", &targets.normals),
    ] {
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(GpuError::NotFinite { what, index });
        }
    }
    let mut padded = vec![0.0; upload_len(count)];
    padded[..count].copy_from_slice(weights);
    let (params, deltas) = build(ctx, targets, vertex_count, &padded, storage)?;
    Ok(MorphGpu {
        target_count: count,
        vertex_count,
        params,
        deltas,
        targets: targets.clone(),
        weights: Mutex::new(padded),
        handle: None,
    })
}

/// Sets a mesh's morph weights (one per target) and uploads them.
///
/// # Errors
/// [`GpuError::LengthMismatch`] unless there is one weight per target; [`GpuError::NotFinite`].
pub fn update_morph_weights(
    ctx: &GpuContext,
    morph: &mut MorphGpu,
    weights: &[f32],
) -> Result<(), GpuError> {
    if weights.len() != morph.target_count {
        return Err(GpuError::LengthMismatch {
            what: "morph weights (one per target)",
            expected: morph.target_count,
            got: weights.len(),
        });
    }
    if let Some(index) = weights.iter().position(|v| !v.is_finite()) {
        return Err(GpuError::NotFinite {
            what: "morph weights",
            index,
        });
    }
    morph.write_weights(&ctx.queue, weights);
    Ok(())
}

/// Floats per weight upload: `max(4, count rounded up to 4)`.
fn upload_len(count: usize) -> usize {
    count.next_multiple_of(4).max(MORPH_WEIGHTS_MIN_UPLOAD)
}

impl MorphGpu {
    /// Morph targets.
    #[must_use]
    pub fn target_count(&self) -> usize {
        self.target_count
    }

    /// Vertices per target.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Whether the targets carry normal deltas.
    #[must_use]
    pub fn has_normals(&self) -> bool {
        !self.targets.normals.is_empty()
    }

    /// A copy of the weights last uploaded, padded with zeros to
    /// [`weight_upload_len`](Self::weight_upload_len) (a copy because uploads through a shared
    /// `MorphGpu` may change them at any time; for tools and tests, not the per-frame path).
    #[must_use]
    pub fn weights(&self) -> Vec<f32> {
        self.lock_weights().clone()
    }

    /// Bytes each weight upload writes at offset 0 (16 for up to 4 targets).
    #[must_use]
    pub fn weight_upload_len(&self) -> u64 {
        upload_len(self.target_count) as u64 * 4
    }

    /// The uniform buffer (weights at offset 0, then counts).
    #[must_use]
    pub fn params_buffer(&self) -> &wgpu::Buffer {
        &self.params
    }

    /// Where the deltas are: a storage buffer or a texture.
    #[must_use]
    pub fn delta_storage(&self) -> MorphDeltaStorage {
        self.deltas.storage()
    }

    /// The storage buffer of position then normal deltas (`None` when they are in a texture).
    #[must_use]
    pub fn deltas_buffer(&self) -> Option<&wgpu::Buffer> {
        match &self.deltas {
            Deltas::Buffer(buffer) => Some(buffer),
            Deltas::Texture { .. } => None,
        }
    }

    /// The texture of position then normal deltas and its layout (`None` when they are in a
    /// storage buffer).
    #[must_use]
    pub fn deltas_texture(&self) -> Option<(&wgpu::Texture, MorphTextureLayout)> {
        match &self.deltas {
            Deltas::Buffer(_) => None,
            Deltas::Texture {
                texture, layout, ..
            } => Some((texture, *layout)),
        }
    }

    /// What a bind group binds for the deltas: the whole buffer, or the texture's view.
    #[must_use]
    pub fn deltas_binding(&self) -> wgpu::BindingResource<'_> {
        match &self.deltas {
            Deltas::Buffer(buffer) => buffer.as_entire_binding(),
            Deltas::Texture { view, .. } => wgpu::BindingResource::TextureView(view),
        }
    }

    /// Writes the first `target_count` of `weights` (missing ones count as 0) into the padded
    /// mirror and uploads [`weight_upload_len`](Self::weight_upload_len) bytes at offset 0 with
    /// one `write_buffer`. Allocates nothing: the per-frame path behind
    /// [`GpuPoseSink`](crate::GpuPoseSink).
    ///
    /// Takes `&self` (see the type's docs on sharing); concurrent uploads are applied one at a
    /// time, mirror and buffer in the same order.
    pub fn write_weights(&self, queue: &wgpu::Queue, weights: &[f32]) {
        let mut mirror = self.lock_weights();
        let n = weights.len().min(self.target_count);
        mirror[..n].copy_from_slice(&weights[..n]);
        mirror[n..].fill(0.0);
        queue.write_buffer(&self.params, 0, bytemuck::cast_slice(&mirror));
    }

    /// The weights mirror, locked (a poisoned lock is used as is: plain floats, rewritten by
    /// the next upload).
    fn lock_weights(&self) -> MutexGuard<'_, Vec<f32>> {
        self.weights.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Rebuilds the uniform and the deltas (in the same [`MorphDeltaStorage`]) on `ctx`'s
    /// device from the CPU copy (deltas and last weights), for device-loss recovery;
    /// [`handle`](Self::handle) is untouched.
    ///
    /// # Errors
    /// As [`create_morph`]'s device errors. On error the old buffers are kept.
    pub fn recreate(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
        let weights = self
            .weights
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let storage = self.deltas.storage();
        let (params, deltas) = build(ctx, &self.targets, self.vertex_count, weights, storage)?;
        self.params = params;
        self.deltas = deltas;
        Ok(())
    }
}
