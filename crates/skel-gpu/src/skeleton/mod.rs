//! GPU resources of one skinned mesh (the seed's `SkeletonData`): bone texture, joint and weight
//! vertex buffers, and the CPU mirror that uploads and device-loss recovery work from.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::bone_texture::{create_bone_texture, write_bone_texture};
use crate::buffers::create_buffer_for;
use crate::staging::{Contents, InitialUpload};
use crate::{BONE_TEXTURE_FORMAT, BoneTextureLayout, GpuContext, GpuError, JointIndices, readback};

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
    /// The bone matrices last uploaded (`bone_count * 16` floats); locked while an upload
    /// writes it and the texture, so that the mirror and the texture see uploads in one order.
    bone_matrices: Mutex<Vec<f32>>,
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
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<SkeletonGpu>();
};

impl AsMut<SkeletonGpu> for SkeletonGpu {
    fn as_mut(&mut self) -> &mut SkeletonGpu {
        self
    }
}

/// Creates a skeleton's GPU resources (the seed's `createSkeleton`).
///
/// - `joints`, `weights`: `JOINTS_0`/`WEIGHTS_0`, 4 per vertex. Joints are widened to `u32`.
/// - `bone_count`: bones (skin joints); `bone_data`: their initial matrices, 16 floats each,
///   column-major.
/// - `joints1`, `weights1`: `JOINTS_1`/`WEIGHTS_1` for 8-influence skinning; both or neither.
///
/// Buffers are at least 4 bytes, with [`INFLUENCE_BUFFER_USAGE`]; the bone texture is filled
/// from `bone_data`. The initial contents of the texture and every buffer are copied from one
/// staging buffer mapped at creation (the seed's `mappedAtCreation`, once per call rather than
/// once per buffer; see `staging.rs` for why), submitted before this returns.
///
/// # Errors
/// - [`GpuError::NoBones`], [`GpuError::TooManyBones`] (naming the device limit);
/// - [`GpuError::LengthMismatch`]: `bone_data` not `bone_count * 16` floats, joints not a
///   multiple of 4, weights not as many as joints, `JOINTS_1` not as long as `JOINTS_0`, or one
///   of `joints1`/`weights1` without the other;
/// - [`GpuError::JointOutOfRange`]: a joint index ≥ `bone_count` (with vertex and slot);
/// - [`GpuError::NotFinite`]: a NaN or infinite weight or matrix element;
/// - [`GpuError::MissingLimit`] (`max_buffer_size`), [`GpuError::Validation`],
///   [`GpuError::OutOfMemory`] from the device.
#[doc(alias = "createSkeleton")]
pub fn create_skeleton(
    ctx: &GpuContext,
    joints: JointIndices<'_>,
    weights: &[f32],
    bone_count: u32,
    bone_data: &[f32],
    joints1: Option<JointIndices<'_>>,
    weights1: Option<&[f32]>,
) -> Result<SkeletonGpu, GpuError> {
    let second = match (joints1, weights1) {
        (None, None) => None,
        (Some(joints), Some(weights)) => Some(InfluenceSet { joints, weights }),
        (Some(j1), None) => {
            return Err(GpuError::LengthMismatch {
                what: "weights1 (JOINTS_1 given without WEIGHTS_1)",
                expected: j1.len(),
                got: 0,
            });
        }
        (None, Some(w1)) => {
            return Err(GpuError::LengthMismatch {
                what: "joints1 (WEIGHTS_1 given without JOINTS_1)",
                expected: w1.len(),
                got: 0,
            });
        }
    };
    let mut sets = vec![InfluenceSet { joints, weights }];
    sets.extend(second);
    create_skeleton_with(
        ctx,
        &SkeletonDescriptor {
            bone_count,
            bone_data,
            influences: &sets,
        },
    )
}

/// One `JOINTS_n`/`WEIGHTS_n` pair: 4 joint indices and 4 weights per vertex.
#[derive(Debug, Clone, Copy)]
pub struct InfluenceSet<'a> {
    /// Joint indices, 4 per vertex, widened to `u32` on the GPU.
    pub joints: JointIndices<'a>,
    /// Weights, 4 per vertex (as many as `joints`).
    pub weights: &'a [f32],
}

/// What [`create_skeleton_with`] builds a skeleton from (the descriptor form of
/// [`create_skeleton`], which takes at most two influence sets).
///
/// ```no_run
/// use skel_gpu::*;
///
/// let ctx = GpuContext::new_headless()?;
/// let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
/// let bones: Vec<f32> = (0..16).flat_map(|_| identity).collect();
/// // One vertex spread evenly over 16 bones: JOINTS_0..3 / WEIGHTS_0..3.
/// let joints: Vec<[u8; 4]> = (0..4u8).map(|s| [4 * s, 4 * s + 1, 4 * s + 2, 4 * s + 3]).collect();
/// let weights = [1.0 / 16.0; 4];
/// let sets: Vec<InfluenceSet<'_>> = joints
///     .iter()
///     .map(|j| InfluenceSet { joints: JointIndices::U8(j), weights: &weights })
///     .collect();
/// let skeleton = create_skeleton_with(
///     &ctx,
///     &SkeletonDescriptor { bone_count: 16, bone_data: &bones, influences: &sets },
/// )?;
/// assert_eq!(skeleton.influences_per_vertex(), 16);
/// # Ok::<(), GpuError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SkeletonDescriptor<'a> {
    /// Bones (skin joints).
    pub bone_count: u32,
    /// Their initial matrices, 16 floats each, column-major.
    pub bone_data: &'a [f32],
    /// The influence sets: 1 (4 influences per vertex), 2 (8) or 4 (16). glTF files with 3
    /// sets are padded to 4 by the loader (`skel_gltf::GpuInfluences`).
    pub influences: &'a [InfluenceSet<'a>],
}

/// Creates a skeleton's GPU resources from a [`SkeletonDescriptor`]: 4, 8 or 16 influences per
/// vertex. Everything [`create_skeleton`] says holds here too.
///
/// # Errors
/// As [`create_skeleton`]; [`GpuError::LengthMismatch`] also for a set count other than 1, 2
/// or 4, or a set with another vertex count than set 0.
pub fn create_skeleton_with(
    ctx: &GpuContext,
    desc: &SkeletonDescriptor<'_>,
) -> Result<SkeletonGpu, GpuError> {
    let bone_count = desc.bone_count;
    let layout = BoneTextureLayout::new(bone_count, ctx.limits.max_texture_dimension_2d)?;
    check_len(
        "bone_data (16 floats per bone)",
        bone_count as usize * 16,
        desc.bone_data.len(),
    )?;
    check_finite("bone_data", desc.bone_data)?;
    let count = desc.influences.len();
    if !matches!(count, 1 | 2 | 4) {
        return Err(GpuError::LengthMismatch {
            what: "influence sets (1, 2 or 4)",
            expected: count.next_power_of_two().clamp(1, 4),
            got: count,
        });
    }
    let first_len = desc.influences[0].joints.len();
    if !first_len.is_multiple_of(4) {
        return Err(GpuError::LengthMismatch {
            what: "joints (4 per vertex)",
            expected: first_len / 4 * 4,
            got: first_len,
        });
    }
    const JOINT_NAMES: [&str; 4] = [
        "joints (as many as joints)",
        "joints1 (as many as joints)",
        "joints2 (as many as joints)",
        "joints3 (as many as joints)",
    ];
    const WEIGHT_NAMES: [&str; 4] = [
        "weights (one per joint index)",
        "weights1 (as many as joints1)",
        "weights2 (as many as joints2)",
        "weights3 (as many as joints3)",
    ];
    const FINITE_NAMES: [&str; 4] = ["weights", "weights1", "weights2", "weights3"];
    let mut sets = Vec::with_capacity(count);
    for (s, set) in desc.influences.iter().enumerate() {
        check_len(JOINT_NAMES[s], first_len, set.joints.len())?;
        check_len(WEIGHT_NAMES[s], set.joints.len(), set.weights.len())?;
        check_finite(FINITE_NAMES[s], set.weights)?;
        let joints = set.joints.widen();
        check_joints(&joints, 4 * s, bone_count)?;
        sets.push((joints, set.weights.to_vec()));
    }
    let mirror = SkeletonMirror { sets };
    let gpu = build_resources(ctx, &layout, &mirror, desc.bone_data)?;
    Ok(SkeletonGpu {
        layout,
        gpu,
        mirror,
        bone_matrices: Mutex::new(desc.bone_data.to_vec()),
        handle: None,
    })
}

/// Replaces a skeleton's bone matrices (the seed's `updateSkeletonBoneMatrices`): checks the
/// count, updates the CPU mirror and uploads the whole set.
///
/// # Errors
/// [`GpuError::BoneCountMismatch`] unless `matrices` holds exactly `bone_count * 16` floats;
/// [`GpuError::NotFinite`] for a NaN or infinite element. Nothing is changed on error.
#[doc(alias = "updateSkeletonBoneMatrices")]
pub fn update_skeleton_bone_matrices(
    ctx: &GpuContext,
    skeleton: &mut SkeletonGpu,
    matrices: &[f32],
) -> Result<(), GpuError> {
    if matrices.len() != skeleton.bone_count() as usize * 16 {
        return Err(GpuError::BoneCountMismatch {
            expected: skeleton.bone_count(),
            got_floats: matrices.len(),
        });
    }
    check_finite("bone matrices", matrices)?;
    skeleton.write_bone_matrices(&ctx.queue, matrices);
    Ok(())
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

    /// A copy of the CPU mirror of the bone matrices last uploaded, 16 floats per bone (a
    /// copy because uploads through a shared skeleton may change it at any time; for tools and
    /// tests, not the per-frame path).
    #[must_use]
    pub fn bone_matrices(&self) -> Vec<f32> {
        self.lock_bone_matrices().clone()
    }

    /// Uploads `matrices` and copies them into the mirror, allocating nothing: the per-frame
    /// path behind [`GpuPoseSink`](crate::GpuPoseSink). Returns `false` (and changes nothing)
    /// unless `matrices` holds exactly `bone_count * 16` floats.
    ///
    /// Takes `&self`, so a skeleton shared as `Arc<SkeletonGpu>` is posed through any of its
    /// owners; concurrent uploads are applied one at a time, mirror and texture in the same
    /// order.
    pub fn write_bone_matrices(&self, queue: &wgpu::Queue, matrices: &[f32]) -> bool {
        let mut mirror = self.lock_bone_matrices();
        if matrices.len() != mirror.len() {
            return false;
        }
        mirror.copy_from_slice(matrices);
        write_bone_texture(queue, &self.gpu.bone_texture, &self.layout, matrices);
        true
    }

    /// The mirror, locked. A panic while it was held cannot leave it half-valid for our use (it
    /// is plain floats, rewritten whole by the next upload), so a poisoned lock is used as is.
    fn lock_bone_matrices(&self) -> MutexGuard<'_, Vec<f32>> {
        self.bone_matrices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the bone texture back, texel by texel in row-major order (4 floats per texel,
    /// `width * height` texels): for tests and debugging tools. Blocks until the GPU is done.
    ///
    /// # Errors
    /// [`GpuError::Readback`] when mapping fails; [`GpuError::Validation`] from the device.
    pub fn read_bone_texture(&self, ctx: &GpuContext) -> Result<Vec<f32>, GpuError> {
        readback::read_texture_rgba32float(ctx, &self.gpu.bone_texture)
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
    bone_matrices: &[f32],
) -> Result<SkeletonResources, GpuError> {
    const TEXTURE: usize = 0;
    let mut contents = vec![Contents::BoneMatrices(*layout, bone_matrices)];
    for (joints, weights) in &mirror.sets {
        contents.push(Contents::Bytes(bytemuck::cast_slice(joints)));
        contents.push(Contents::Bytes(bytemuck::cast_slice(weights)));
    }
    ctx.capture("create_skeleton", || {
        let mut upload = InitialUpload::new("skel skeleton staging", &contents);
        let bone_texture = create_bone_texture(&ctx.device, layout);
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

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), GpuError> {
    if expected == got {
        Ok(())
    } else {
        Err(GpuError::LengthMismatch {
            what,
            expected,
            got,
        })
    }
}

fn check_finite(what: &'static str, values: &[f32]) -> Result<(), GpuError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(GpuError::NotFinite { what, index }),
        None => Ok(()),
    }
}

/// Every joint index must name a bone; `first_slot` is 4 × the set (4 for `JOINTS_1`).
fn check_joints(joints: &[u32], first_slot: usize, bone_count: u32) -> Result<(), GpuError> {
    match joints.iter().position(|&j| j >= bone_count) {
        Some(i) => Err(GpuError::JointOutOfRange {
            vertex: i / 4,
            slot: first_slot + i % 4,
            joint: joints[i],
            bone_count,
        }),
        None => Ok(()),
    }
}
