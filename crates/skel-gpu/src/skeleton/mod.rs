//! GPU resources of one skinned mesh (the seed's `SkeletonData`): bone texture, joint and weight
//! vertex buffers, and the CPU mirror that uploads and device-loss recovery work from.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use glam::Mat4;

use crate::buffers::create_buffer_for;
use crate::staging::{Contents, InitialUpload};
use crate::{BONE_TEXTURE_FORMAT, BoneTextureLayout, GpuContext, GpuError, readback};

mod create;

pub use create::{
    InfluenceSet, SkeletonDescriptor, create_skeleton, create_skeleton_with,
    update_skeleton_bone_matrices,
};

/// Vertex format of the joints buffers: 4 × `u32` (joints are widened at creation).
pub const JOINTS_VERTEX_FORMAT: wgpu::VertexFormat = wgpu::VertexFormat::Uint32x4;
/// Vertex format of the weights buffers: 4 × `f32`.
pub const WEIGHTS_VERTEX_FORMAT: wgpu::VertexFormat = wgpu::VertexFormat::Float32x4;
/// Bytes per vertex in every joints and weights buffer (the array stride).
pub const INFLUENCE_STRIDE: u64 = 16;

/// Usage of the joints and weights buffers: the seed's `VERTEX | COPY_DST`, plus `STORAGE` so
/// that [`ComputeSkinning`](crate::ComputeSkinning) can read the same buffers, and `COPY_SRC`
/// so that tools and tests can read back what was uploaded.
pub const INFLUENCE_BUFFER_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_SRC);

/// What the GPU side is rebuilt from: every input of [`create_skeleton`], widened (immutable
/// after creation). The last bone matrices uploaded sit beside it, behind a lock, because
/// uploads take `&self` (see [`SkeletonGpu::write_bone_matrices`]).
#[derive(Debug)]
struct SkeletonMirror {
    /// One `(joints, weights)` pair per influence set (1, 2 or 4), 4 per vertex each.
    sets: Vec<(Vec<u32>, Vec<f32>)>,
}

/// The wgpu objects; everything here is replaced by [`SkeletonGpu::recreate`].
#[derive(Debug)]
struct SkeletonResources {
    bone_texture: wgpu::Texture,
    bone_view: wgpu::TextureView,
    /// `(joints, weights)` buffers per influence set, as the mirror's.
    sets: Vec<(wgpu::Buffer, wgpu::Buffer)>,
}

/// A skeleton on the GPU (the seed's `SkeletonData`).
///
/// - Bone texture: `rgba32float`, 4 texels per bone, laid out as [`BoneTextureLayout`] says
///   (one row of `bone_count * 4` texels until the device's row limit, then more rows). It is
///   not handed out: shaders bind [`bone_texture_view`](Self::bone_texture_view), and matrices
///   change only through [`update_skeleton_bone_matrices`], [`write_bone_matrices`](Self::write_bone_matrices)
///   or [`GpuPoseSink`](crate::GpuPoseSink), all of which keep the CPU mirror in step.
/// - Joints (`Uint32x4`) and weights (`Float32x4`) vertex buffers, one pair per influence
///   set: 1 (4 influences), 2 (8) or 4 (16, `JOINTS_0..3`/`WEIGHTS_0..3`).
/// - A CPU mirror of joints, weights and the last bone matrices, from which
///   [`recreate`](Self::recreate) rebuilds every GPU field after a device loss.
///
/// # Sharing
///
/// Uploads take `&self` (the bone-matrix mirror sits behind an uncontended lock), so one
/// skeleton can be shared as `Arc<SkeletonGpu>` by every mesh that draws it, as the facade's
/// cloned meshes do: one upload through any of them is what all of them draw. It is `Send` and
/// `Sync`. [`recreate`](Self::recreate) needs `&mut self`, i.e. an unshared skeleton
/// (`Arc::get_mut`).
pub struct SkeletonGpu {
    layout: BoneTextureLayout,
    gpu: SkeletonResources,
    mirror: SkeletonMirror,
    /// The bone matrices last uploaded (`bone_count` of them); locked while an upload
    /// writes it and the texture, so that the mirror and the texture see uploads in one order.
    bone_matrices: Mutex<Vec<Mat4>>,
    /// An association owned by a higher layer (bone control stores its `Skeleton` handle here,
    /// the seed's `SkeletonData._skeleton`). This crate never reads or replaces it:
    /// [`recreate`](Self::recreate) swaps only GPU fields, so the handle survives device loss.
    /// Recover the concrete type with `Arc::downcast`.
    pub handle: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for SkeletonGpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkeletonGpu")
            .field("layout", &self.layout)
            .field("vertex_count", &self.vertex_count())
            .field("influences_per_vertex", &self.influences_per_vertex())
            .field("gpu", &self.gpu)
            .field("handle", &self.handle.as_ref().map(|_| "Some(..)"))
            .finish_non_exhaustive()
    }
}

// Sharing as `Arc<SkeletonGpu>` across threads (the facade's cloned meshes) needs both.
// wgpu's types are neither on wasm32 without atomics (one thread there).
#[cfg(not(target_arch = "wasm32"))]
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<SkeletonGpu>();
};

impl AsMut<SkeletonGpu> for SkeletonGpu {
    fn as_mut(&mut self) -> &mut SkeletonGpu {
        self
    }
}

impl SkeletonGpu {
    /// Bones in the skeleton.
    #[must_use]
    pub fn bone_count(&self) -> u32 {
        self.layout.bone_count
    }

    /// Vertices described by the joints and weights.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.mirror.sets[0].0.len() / 4
    }

    /// 4, 8 or 16: four per influence set.
    #[must_use]
    pub fn influences_per_vertex(&self) -> u32 {
        4 * self.influence_sets()
    }

    /// Influence sets: 1, 2 or 4.
    #[must_use]
    pub fn influence_sets(&self) -> u32 {
        u32::try_from(self.mirror.sets.len()).unwrap_or(u32::MAX)
    }

    /// The joints and weights buffers of set `set` (`JOINTS_set`/`WEIGHTS_set`), `None` past
    /// [`influence_sets`](Self::influence_sets).
    #[must_use]
    pub fn influence_buffers(&self, set: usize) -> Option<(&wgpu::Buffer, &wgpu::Buffer)> {
        self.gpu.sets.get(set).map(|(j, w)| (j, w))
    }

    /// The CPU mirror of set `set`: widened joints and weights, 4 per vertex.
    #[must_use]
    pub fn influence_set(&self, set: usize) -> Option<(&[u32], &[f32])> {
        self.mirror
            .sets
            .get(set)
            .map(|(j, w)| (j.as_slice(), w.as_slice()))
    }

    /// Where each bone sits in the bone texture.
    #[must_use]
    pub fn bone_texture_layout(&self) -> BoneTextureLayout {
        self.layout
    }

    /// The bone texture's size (`[bone_count * 4, 1]` until it wraps).
    #[must_use]
    pub fn bone_texture_size(&self) -> wgpu::Extent3d {
        self.gpu.bone_texture.size()
    }

    /// The bone texture's format, read from the texture ([`BONE_TEXTURE_FORMAT`]).
    #[must_use]
    pub fn bone_texture_format(&self) -> wgpu::TextureFormat {
        self.gpu.bone_texture.format()
    }

    /// The bone texture's usage, read from the texture.
    #[must_use]
    pub fn bone_texture_usage(&self) -> wgpu::TextureUsages {
        self.gpu.bone_texture.usage()
    }

    /// The view shaders bind (`texture_2d<f32>`, read with `textureLoad`).
    #[must_use]
    pub fn bone_texture_view(&self) -> &wgpu::TextureView {
        &self.gpu.bone_view
    }

    /// The bind group entry for the bone texture at `binding`.
    #[must_use]
    pub fn bone_texture_entry(&self, binding: u32) -> wgpu::BindGroupEntry<'_> {
        wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::TextureView(&self.gpu.bone_view),
        }
    }

    /// `JOINTS_0` widened to `u32`, 16 bytes per vertex.
    #[must_use]
    pub fn joints_buffer(&self) -> &wgpu::Buffer {
        &self.gpu.sets[0].0
    }

    /// `WEIGHTS_0`, 16 bytes per vertex.
    #[must_use]
    pub fn weights_buffer(&self) -> &wgpu::Buffer {
        &self.gpu.sets[0].1
    }

    /// `JOINTS_1` widened to `u32`, present exactly when it was given.
    #[must_use]
    pub fn joints1_buffer(&self) -> Option<&wgpu::Buffer> {
        self.influence_buffers(1).map(|(j, _)| j)
    }

    /// `WEIGHTS_1`, present exactly when it was given.
    #[must_use]
    pub fn weights1_buffer(&self) -> Option<&wgpu::Buffer> {
        self.influence_buffers(1).map(|(_, w)| w)
    }

    /// The CPU mirror of the widened `JOINTS_0`.
    #[must_use]
    pub fn joints(&self) -> &[u32] {
        &self.mirror.sets[0].0
    }

    /// The CPU mirror of `WEIGHTS_0`.
    #[must_use]
    pub fn weights(&self) -> &[f32] {
        &self.mirror.sets[0].1
    }

    /// The CPU mirror of the widened `JOINTS_1`.
    #[must_use]
    pub fn joints1(&self) -> Option<&[u32]> {
        self.influence_set(1).map(|(j, _)| j)
    }

    /// The CPU mirror of `WEIGHTS_1`.
    #[must_use]
    pub fn weights1(&self) -> Option<&[f32]> {
        self.influence_set(1).map(|(_, w)| w)
    }

    /// A copy of the CPU mirror of the bone matrices last uploaded, one per bone (a copy
    /// because uploads through a shared skeleton may change it at any time; for tools and
    /// tests, not the per-frame path).
    #[must_use]
    pub fn bone_matrices(&self) -> Vec<Mat4> {
        self.lock_bone_matrices().clone()
    }

    /// Uploads `matrices` (one column-major matrix per bone) and copies them into the mirror,
    /// allocating nothing: the per-frame path behind [`GpuPoseSink`](crate::GpuPoseSink), at
    /// most two `write_texture` calls ([`BoneTextureLayout::write_all`]). Returns `false` (and
    /// changes nothing) unless `matrices` holds exactly `bone_count` matrices.
    ///
    /// Takes `&self`, so a skeleton shared as `Arc<SkeletonGpu>` is posed through any of its
    /// owners; concurrent uploads are applied one at a time, mirror and texture in the same
    /// order.
    pub fn write_bone_matrices(&self, queue: &wgpu::Queue, matrices: &[Mat4]) -> bool {
        let mut mirror = self.lock_bone_matrices();
        if matrices.len() != mirror.len() {
            return false;
        }
        mirror.copy_from_slice(matrices);
        self.layout
            .write_all(queue, &self.gpu.bone_texture, &mirror);
        true
    }

    /// The mirror, locked. A panic while it was held cannot leave it half-valid for our use (it
    /// is plain floats, rewritten whole by the next upload), so a poisoned lock is used as is.
    fn lock_bone_matrices(&self) -> MutexGuard<'_, Vec<Mat4>> {
        self.bone_matrices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the bone texture back, texel by texel in row-major order (4 floats per texel,
    /// `width * height` texels): for tests and debugging tools. Blocks until the GPU is done.
    ///
    /// # Errors
    /// [`GpuError::Readback`] when mapping fails; [`GpuError::Validation`] from the device.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_bone_texture(&self, ctx: &GpuContext) -> Result<Vec<f32>, GpuError> {
        readback::read_texture_rgba32float(ctx, &self.gpu.bone_texture)
    }

    /// [`read_bone_texture`](Self::read_bone_texture) waiting without blocking (a browser's).
    ///
    /// # Errors
    /// As `read_bone_texture`.
    pub async fn read_bone_texture_async(&self, ctx: &GpuContext) -> Result<Vec<f32>, GpuError> {
        readback::read_texture_rgba32float_async(ctx, &self.gpu.bone_texture).await
    }

    /// Rebuilds every GPU field (texture, view, joints and weights buffers) on `ctx`'s device
    /// from the CPU mirror, for device-loss recovery (the seed's "recovery replaces GPU
    /// fields"). The bone layout is recomputed for the new device's limits; [`handle`](Self::handle)
    /// and the mirror are untouched. Bind groups made from the old resources must be remade.
    ///
    /// # Errors
    /// [`GpuError::TooManyBones`] when the new device's texture limit is too small;
    /// [`GpuError::MissingLimit`], [`GpuError::Validation`], [`GpuError::OutOfMemory`]. On
    /// error the skeleton keeps its old (lost) resources.
    #[doc(alias = "recover")]
    pub fn recreate(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
        let layout =
            BoneTextureLayout::new(self.bone_count(), ctx.limits.max_texture_dimension_2d)?;
        let bone_matrices = self
            .bone_matrices
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let gpu = build_resources(ctx, &layout, &self.mirror, bone_matrices)?;
        self.layout = layout;
        self.gpu = gpu;
        Ok(())
    }
}

/// Stages the bone matrices and the mirror's influences in one buffer, then creates the
/// texture, its view and the influence buffers and fills them from it (see the `staging`
/// module).
fn build_resources(
    ctx: &GpuContext,
    layout: &BoneTextureLayout,
    mirror: &SkeletonMirror,
    bone_matrices: &[Mat4],
) -> Result<SkeletonResources, GpuError> {
    const TEXTURE: usize = 0;
    let mut contents = vec![Contents::BoneMatrices(*layout, bone_matrices)];
    for (joints, weights) in &mirror.sets {
        contents.push(Contents::Bytes(bytemuck::cast_slice(joints)));
        contents.push(Contents::Bytes(bytemuck::cast_slice(weights)));
    }
    ctx.capture("create_skeleton", || {
        let mut upload = InitialUpload::new("skel skeleton staging", &contents);
        let bone_texture = layout.create_texture(&ctx.device);
        let bone_view = bone_texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("skel bone texture view"),
            format: Some(BONE_TEXTURE_FORMAT),
            ..Default::default()
        });
        upload.copy_to_bone_texture(TEXTURE, &bone_texture);
        let usage = INFLUENCE_BUFFER_USAGE;
        const LABELS: [(&str, &str); 4] = [
            ("skel joints", "skel weights"),
            ("skel joints1", "skel weights1"),
            ("skel joints2", "skel weights2"),
            ("skel joints3", "skel weights3"),
        ];
        let mut sets = Vec::with_capacity(mirror.sets.len());
        for (s, (joints, weights)) in mirror.sets.iter().enumerate() {
            let (jl, wl) = LABELS[s.min(3)];
            let j = create_buffer_for(ctx, jl, usage, joints.len() * 4)?;
            upload.copy_to_buffer(1 + 2 * s, &j);
            let w = create_buffer_for(ctx, wl, usage, weights.len() * 4)?;
            upload.copy_to_buffer(2 + 2 * s, &w);
            sets.push((j, w));
        }
        upload.submit(ctx)?;
        Ok::<_, GpuError>(SkeletonResources {
            bone_texture,
            bone_view,
            sets,
        })
    })?
}
