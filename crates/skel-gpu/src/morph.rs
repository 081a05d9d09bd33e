//! Morph targets on the GPU: a uniform with the weights (the seed's weights vec4 at offset 0) and
//! a storage buffer with every target's position and normal deltas.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use skel_anim::MorphTargets;

use crate::buffers::create_buffer_for;
use crate::staging::{Contents, InitialUpload};
use crate::{GpuContext, GpuError};

/// The most morph targets one mesh may have: 256.
///
/// Every vertex reads every weight, so the weights live in a uniform buffer (broadcast to all
/// invocations) as `array<vec4<f32>, 64>`, 1 KiB. 256 covers the rigs seen in practice (ARKit's
/// 52 face blend shapes, the glTF samples' 8 at most, large facial rigs of 100–200) while
/// staying far under WebGPU's guaranteed 64 KiB uniform binding and its 16 KiB downlevel one.
/// Shaders loop only over the asset's own `target_count` and skip zero weights, so the cap
/// costs nothing per vertex. The seed's 4 targets are the special case of one vec4.
pub const MAX_MORPH_TARGETS: usize = 256;

/// Byte offset of `target_count`, `vertex_count`, `normal_offset` (three `u32`) in the morph
/// uniform, right after the weights.
pub const MORPH_COUNTS_OFFSET: u64 = MAX_MORPH_TARGETS as u64 * 4;

/// Size of the morph uniform: weights, then the three counts and one padding `u32`.
pub const MORPH_PARAMS_SIZE: u64 = MORPH_COUNTS_OFFSET + 16;

/// The weights upload is at least this long: the seed's `writeBuffer(weightsBuffer, 0, …, 16)`.
pub const MORPH_WEIGHTS_MIN_UPLOAD: usize = 4;

/// Morph targets of one mesh on the GPU.
///
/// - `params` uniform ([`MORPH_PARAMS_SIZE`] bytes): `weights: array<vec4<f32>, 64>` at offset 0
///   (the seed's weights vec4 is its first 16 bytes), then `target_count`, `vertex_count`,
///   `normal_offset` (immutable after creation, like the seed's count/texWidth/rowsPerBand).
/// - `deltas` storage buffer of `f32`: position deltas target-major (`(t * vertex_count + v) *
///   3`), then, when the targets have normals, normal deltas in the same layout starting at
///   float `normal_offset` (0 = no normal deltas).
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
    deltas: wgpu::Buffer,
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

/// Uploads a mesh's morph targets with initial `weights` (glTF `mesh.weights`, or zeros).
///
/// # Errors
/// [`GpuError::NoMorphTargets`], [`GpuError::TooManyMorphTargets`];
/// [`GpuError::LengthMismatch`] when the deltas are not `target_count * vertex_count * 3`
/// floats or `weights` not one per target; [`GpuError::NotFinite`];
/// [`GpuError::MissingLimit`] (`max_storage_buffer_binding_size`, `max_buffer_size`);
/// [`GpuError::Validation`], [`GpuError::OutOfMemory`].
pub fn create_morph(
    ctx: &GpuContext,
    targets: &MorphTargets,
    vertex_count: usize,
    weights: &[f32],
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
    let (params, deltas) = build_buffers(ctx, targets, vertex_count, &padded)?;
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

    /// The storage buffer of position then normal deltas.
    #[must_use]
    pub fn deltas_buffer(&self) -> &wgpu::Buffer {
        &self.deltas
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

    /// Rebuilds both buffers on `ctx`'s device from the CPU copy (deltas and last weights), for
    /// device-loss recovery; [`handle`](Self::handle) is untouched.
    ///
    /// # Errors
    /// As [`create_morph`]'s device errors. On error the old buffers are kept.
    pub fn recreate(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
        let weights = self
            .weights
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let (params, deltas) = build_buffers(ctx, &self.targets, self.vertex_count, weights)?;
        self.params = params;
        self.deltas = deltas;
        Ok(())
    }
}

/// Stages the uniform (weights zero-padded, then counts) and the deltas (positions, then
/// normals) in one buffer, then creates both buffers and fills them from it (see the `staging`
/// module).
fn build_buffers(
    ctx: &GpuContext,
    targets: &MorphTargets,
    vertex_count: usize,
    weights: &[f32],
) -> Result<(wgpu::Buffer, wgpu::Buffer), GpuError> {
    let target_count = targets.target_count;
    let too_big = |_| GpuError::MissingLimit {
        name: "max_storage_buffer_binding_size",
        needed: (target_count * vertex_count * 24) as u64,
        available: ctx.limits.max_storage_buffer_binding_size,
    };
    let vc = u32::try_from(vertex_count).map_err(too_big)?;
    let normal_offset = if targets.normals.is_empty() {
        0
    } else {
        u32::try_from(target_count * vertex_count * 3).map_err(too_big)?
    };
    let mut params_bytes = vec![0u8; MORPH_PARAMS_SIZE as usize];
    let weight_bytes: &[u8] = bytemuck::cast_slice(weights);
    params_bytes[..weight_bytes.len()].copy_from_slice(weight_bytes);
    let counts = [target_count as u32, vc, normal_offset, 0];
    params_bytes[MORPH_COUNTS_OFFSET as usize..].copy_from_slice(bytemuck::cast_slice(&counts));

    let deltas_len = targets.positions.len() + targets.normals.len();
    ctx.require_limit(
        "max_storage_buffer_binding_size",
        deltas_len as u64 * 4,
        |l| l.max_storage_buffer_binding_size,
    )?;
    let mut deltas_floats = Vec::with_capacity(deltas_len);
    deltas_floats.extend_from_slice(&targets.positions);
    deltas_floats.extend_from_slice(&targets.normals);
    let deltas_bytes: &[u8] = bytemuck::cast_slice(&deltas_floats);

    ctx.capture("create_morph", || {
        let contents = [
            Contents::Bytes(&params_bytes),
            Contents::Bytes(deltas_bytes),
        ];
        let mut upload = InitialUpload::new("skel morph staging", &contents);
        let params = create_buffer_for(
            ctx,
            "skel morph params",
            wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            params_bytes.len(),
        )?;
        let deltas = create_buffer_for(
            ctx,
            "skel morph deltas",
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            deltas_bytes.len(),
        )?;
        upload.copy_to_buffer(0, &params);
        upload.copy_to_buffer(1, &deltas);
        upload.submit(ctx)?;
        Ok((params, deltas))
    })?
}
