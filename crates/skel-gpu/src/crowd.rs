//! A crowd's bone matrices in one GPU buffer, written once per frame from one contiguous CPU
//! array through a ring of persistently allocated staging buffers.
//!
//! Per-character bone textures cost one `write_texture` per character per frame, each staged
//! by wgpu in a fresh allocation (measured: 31.7 ms and 50 040 heap allocations a frame
//! for 10 000 characters on an H200). [`CrowdBones`] instead keeps every instance's matrices
//! in one storage buffer, instance-major, and a ring of `MAP_WRITE | COPY_SRC` buffers of the
//! same size: a frame copies the CPU array into a slot that is already mapped, records one
//! buffer-to-buffer copy, and asks wgpu to map the slot again once the copy has run
//! ([`wgpu::CommandEncoder::map_buffer_on_submit`]). Nothing is created per frame.
//!
//! Heap allocations: none of ours. The remapping's callback captures nothing, so wgpu's
//! `Box::new(callback)` of it allocates nothing either (a box of a zero-sized closure); whether
//! a slot is mapped again is asked of the slot itself ([`wgpu::Buffer::get_mapped_range_mut`]
//! succeeds only on a mapped buffer) instead of a flag the callback would have to capture. What
//! wgpu 30 still allocates per upload, measured on lavapipe with heaptrack (release build):
//! one `Vec` growth in `map_buffer_on_submit` (the encoder's list of deferred mappings, new with
//! each encoder) and one for the first command recorded into a fresh encoder (wgpu-core's
//! command list); at `submit`, its `Buffer::map_async` boxes the deferred callback and wraps it
//! in a second box (`wgpu/src/backend/wgpu_core.rs`), whatever the callback is. No mapping or
//! `write_buffer` path of wgpu 30 avoids those.

use glam::Mat4;

use crate::{BoneLayout, GpuContext, GpuError};

/// Bytes per bone matrix in a crowd's bone buffer: a column-major 4×4 `f32` matrix
/// (`mat4x4<f32>` in WGSL), as the pose sink hands it over.
pub const CROWD_BONE_BYTES: u64 = 64;

/// Staging slots a [`CrowdBones`] keeps unless told otherwise: one being written by the CPU,
/// one in flight, one spare, so the CPU rarely waits for the GPU.
pub const CROWD_STAGING_SLOTS: usize = 3;

/// Usage of a crowd's bone and instance buffers: bound as storage by the compute and vertex
/// paths, written by copies from the staging ring.
pub const CROWD_BUFFER_USAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_DST);

/// What [`CrowdBones::new`] allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdBonesDescriptor {
    /// Instances in the crowd (at least 1).
    pub instances: u32,
    /// Bone matrices per instance, over every skeleton of the asset (at least 1).
    pub bones_per_instance: u32,
    /// Staging slots in the ring (at least 1; [`CROWD_STAGING_SLOTS`] is a good choice).
    pub staging_slots: usize,
}

#[derive(Debug)]
struct StagingSlot {
    buffer: wgpu::Buffer,
}

/// Every instance's bone matrices in one storage buffer, plus the visible-instance list, and
/// the staging ring that writes them (see the module docs).
///
/// Layout: matrix `b` of instance `i` is bone number `i * bones_per_instance + b` of
/// [`bones_buffer`](Self::bones_buffer), a `mat4x4<f32>` unless the crowd was made
/// [`new_gpu_posed_with_layout`](Self::new_gpu_posed_with_layout) with
/// [`BoneLayout::Affine3x4`] (see [`bone_layout`](Self::bone_layout)). The instance buffer
/// holds `u32`s: the visible count `n`, then the `n` visible instances in draw order (slot
/// `s` draws instance `list[1 + s]`). A crowd made
/// [`with_morph_weights`](Self::with_morph_weights) also has a buffer of every instance's morph
/// weights, [`morph_floats`](Self::morph_floats) `f32`s per instance, instance-major.
#[derive(Debug)]
pub struct CrowdBones {
    bones: wgpu::Buffer,
    instances: wgpu::Buffer,
    morph: Option<wgpu::Buffer>,
    morph_floats: u32,
    ring: Vec<StagingSlot>,
    next: usize,
    instance_count: u32,
    bones_per_instance: u32,
    bone_layout: BoneLayout,
    waits: u64,
}

impl CrowdBones {
    /// Allocates the bone buffer, the instance list and the staging ring (each slot mapped at
    /// creation, ready for the first frame).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for zero instances, bones or slots;
    /// [`GpuError::MissingLimit`] (`max_buffer_size`, `max_storage_buffer_binding_size`);
    /// [`GpuError::Validation`] / [`GpuError::OutOfMemory`] from buffer creation.
    pub fn new(ctx: &GpuContext, desc: &CrowdBonesDescriptor) -> Result<Self, GpuError> {
        Self::with_morph_weights(ctx, desc, 0)
    }

    /// [`new`](Self::new) plus a storage buffer of every instance's morph weights,
    /// `morph_floats` per instance (0: none), which
    /// [`upload_with_morph_weights`](Self::upload_with_morph_weights) fills through the same
    /// staging slots as the bones: a crowd posed on the CPU whose meshes morph, skinned by
    /// [`CrowdSkinning::with_morph`](crate::CrowdSkinning::with_morph). The staging slots grow
    /// by the weights' bytes; nothing more is allocated per frame.
    ///
    /// # Errors
    /// As [`new`](Self::new) (`max_storage_buffer_binding_size` for the weights too).
    pub fn with_morph_weights(
        ctx: &GpuContext,
        desc: &CrowdBonesDescriptor,
        morph_floats: u32,
    ) -> Result<Self, GpuError> {
        for (what, got) in [
            ("crowd instances", desc.instances as usize),
            ("crowd bones per instance", desc.bones_per_instance as usize),
            ("crowd staging slots", desc.staging_slots),
        ] {
            if got == 0 {
                return Err(GpuError::LengthMismatch {
                    what,
                    expected: 1,
                    got,
                });
            }
        }
        let bone_bytes =
            u64::from(desc.instances) * u64::from(desc.bones_per_instance) * CROWD_BONE_BYTES;
        let list_bytes = (u64::from(desc.instances) + 1) * 4;
        let morph_bytes = u64::from(desc.instances) * u64::from(morph_floats) * 4;
        let staging_bytes =
            (bone_bytes + morph_bytes + list_bytes).next_multiple_of(wgpu::MAP_ALIGNMENT);
        for size in [bone_bytes, list_bytes, morph_bytes] {
            ctx.require_limit("max_storage_buffer_binding_size", size, |l| {
                l.max_storage_buffer_binding_size
            })?;
        }
        ctx.require_limit("max_buffer_size", staging_bytes, |l| l.max_buffer_size)?;
        ctx.capture("CrowdBones::new", || {
            let create = |label, size, usage, mapped_at_creation| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage,
                    mapped_at_creation,
                })
            };
            let ring = (0..desc.staging_slots)
                .map(|_| StagingSlot {
                    buffer: create(
                        "skel crowd staging",
                        staging_bytes,
                        wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                        true,
                    ),
                })
                .collect();
            Self {
                bones: create("skel crowd bones", bone_bytes, CROWD_BUFFER_USAGE, false),
                instances: create(
                    "skel crowd instances",
                    list_bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                    CROWD_BUFFER_USAGE,
                    false,
                ),
                morph: (morph_bytes > 0).then(|| {
                    create(
                        "skel crowd morph weights",
                        morph_bytes,
                        CROWD_BUFFER_USAGE,
                        false,
                    )
                }),
                morph_floats,
                ring,
                next: 0,
                instance_count: desc.instances,
                bones_per_instance: desc.bones_per_instance,
                bone_layout: BoneLayout::Mat4,
                waits: 0,
            }
        })
    }

    /// A bone buffer for a crowd posed on the GPU ([`GpuCrowdPose`](crate::GpuCrowdPose)
    /// writes it): no staging ring, every instance visible until
    /// [`set_visible`](Self::set_visible) says otherwise, and the bone buffer may be larger than
    /// one storage binding (the pose pass and chunked skinning bind it in pieces). The buffer
    /// also has `COPY_SRC`, for reading poses back.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for zero instances or bones; [`GpuError::MissingLimit`]
    /// (`max_buffer_size`, and `max_storage_buffer_binding_size` for the instance list);
    /// [`GpuError::Validation`] / [`GpuError::OutOfMemory`] from buffer creation.
    pub fn new_gpu_posed(
        ctx: &GpuContext,
        instances: u32,
        bones_per_instance: u32,
    ) -> Result<Self, GpuError> {
        Self::new_gpu_posed_with_layout(ctx, instances, bones_per_instance, BoneLayout::Mat4)
    }

    /// [`new_gpu_posed`](Self::new_gpu_posed) with the bones stored in `layout`:
    /// [`BoneLayout::Affine3x4`] takes 48 bytes a bone instead of 64, which the pose pass
    /// writes and skinning and culling read (a quarter fewer bytes each way).
    ///
    /// # Errors
    /// As [`new_gpu_posed`](Self::new_gpu_posed).
    pub fn new_gpu_posed_with_layout(
        ctx: &GpuContext,
        instances: u32,
        bones_per_instance: u32,
        layout: BoneLayout,
    ) -> Result<Self, GpuError> {
        for (what, got) in [
            ("crowd instances", instances as usize),
            ("crowd bones per instance", bones_per_instance as usize),
        ] {
            if got == 0 {
                return Err(GpuError::LengthMismatch {
                    what,
                    expected: 1,
                    got,
                });
            }
        }
        let bone_bytes = u64::from(instances) * u64::from(bones_per_instance) * layout.bytes();
        let list_bytes = (u64::from(instances) + 1) * 4;
        ctx.require_limit("max_buffer_size", bone_bytes, |l| l.max_buffer_size)?;
        ctx.require_limit("max_storage_buffer_binding_size", list_bytes, |l| {
            l.max_storage_buffer_binding_size
        })?;
        let mut crowd = ctx.capture("CrowdBones::new_gpu_posed", || {
            let create = |label, size| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage: CROWD_BUFFER_USAGE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            };
            Self {
                bones: create("skel crowd bones (GPU posed)", bone_bytes),
                instances: create(
                    "skel crowd instances",
                    list_bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                ),
                morph: None,
                morph_floats: 0,
                ring: Vec::new(),
                next: 0,
                instance_count: instances,
                bones_per_instance,
                bone_layout: layout,
                waits: 0,
            }
        })?;
        let all: Vec<u32> = (0..instances).collect();
        crowd.set_visible(ctx, &all)?;
        Ok(crowd)
    }

    /// Writes the visible-instance list directly (one `write_buffer`): for crowds whose bones
    /// the GPU writes, where [`upload`](Self::upload) has nothing to carry.
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for more visible instances than instances,
    /// [`GpuError::InstanceOutOfRange`] for a visible index past the crowd.
    pub fn set_visible(&mut self, ctx: &GpuContext, visible: &[u32]) -> Result<(), GpuError> {
        self.check_visible(visible)?;
        let count = u32::try_from(visible.len()).unwrap_or(u32::MAX);
        ctx.queue
            .write_buffer(&self.instances, 0, &count.to_ne_bytes());
        if !visible.is_empty() {
            ctx.queue
                .write_buffer(&self.instances, 4, bytemuck::cast_slice(visible));
        }
        Ok(())
    }

    fn check_visible(&self, visible: &[u32]) -> Result<(), GpuError> {
        if visible.len() > self.instance_count as usize {
            return Err(GpuError::LengthMismatch {
                what: "visible crowd instances",
                expected: self.instance_count as usize,
                got: visible.len(),
            });
        }
        if let Some(&index) = visible.iter().find(|&&i| i >= self.instance_count) {
            return Err(GpuError::InstanceOutOfRange {
                what: "visible crowd instances",
                index,
                count: self.instance_count,
            });
        }
        Ok(())
    }

    /// Instances in the crowd.
    #[must_use]
    pub fn instance_count(&self) -> u32 {
        self.instance_count
    }

    /// Bone matrices per instance.
    #[must_use]
    pub fn bones_per_instance(&self) -> u32 {
        self.bones_per_instance
    }

    /// How [`bones_buffer`](Self::bones_buffer) stores each bone.
    #[must_use]
    pub fn bone_layout(&self) -> BoneLayout {
        self.bone_layout
    }

    /// Bytes of one instance's bones in [`bones_buffer`](Self::bones_buffer).
    #[must_use]
    pub fn instance_bytes(&self) -> u64 {
        u64::from(self.bones_per_instance) * self.bone_layout.bytes()
    }

    /// Matrices in the array [`upload`](Self::upload) takes: one per bone per instance
    /// (`instance_count × bones_per_instance`).
    #[must_use]
    pub fn matrix_count(&self) -> usize {
        self.instance_count as usize * self.bones_per_instance as usize
    }

    /// The storage buffer of every instance's bone matrices.
    #[must_use]
    pub fn bones_buffer(&self) -> &wgpu::Buffer {
        &self.bones
    }

    /// The storage buffer of the visible-instance list (count, then instances).
    #[must_use]
    pub fn instances_buffer(&self) -> &wgpu::Buffer {
        &self.instances
    }

    /// The storage buffer of every instance's morph weights
    /// ([`with_morph_weights`](Self::with_morph_weights)), or `None`.
    #[must_use]
    pub fn morph_weights_buffer(&self) -> Option<&wgpu::Buffer> {
        self.morph.as_ref()
    }

    /// Morph weights per instance in [`morph_weights_buffer`](Self::morph_weights_buffer)
    /// (0 without one).
    #[must_use]
    pub fn morph_floats(&self) -> u32 {
        self.morph_floats
    }

    /// Staging slots in the ring.
    #[must_use]
    pub fn staging_slots(&self) -> usize {
        self.ring.len()
    }

    /// How many uploads found no mapped slot and waited for the device (a ring too small
    /// for the frames in flight shows here).
    #[must_use]
    pub fn waits(&self) -> u64 {
        self.waits
    }

    /// Copies `bones` (every instance's matrices, instance-major, column-major each:
    /// [`matrix_count`](Self::matrix_count) of them)
    /// and the visible list into the next staging slot and records the copies into
    /// `encoder`, plus the slot's remapping once `encoder`'s command buffer has run. Submit
    /// `encoder` before the next upload needs the slot again.
    ///
    /// Allocates nothing in this crate; when every slot is still in flight, it waits for the
    /// device (counted by [`waits`](Self::waits)).
    ///
    /// # Errors
    /// [`GpuError::BoneCountMismatch`] for a `bones` array of another length,
    /// [`GpuError::LengthMismatch`] for more visible instances than instances,
    /// [`GpuError::InstanceOutOfRange`] for a visible index past the crowd,
    /// [`GpuError::StagingBusy`] when no slot is mapped even after waiting (uploads whose
    /// encoders were never submitted, or a remapping the device refused).
    pub fn upload(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        bones: &[Mat4],
        visible: &[u32],
    ) -> Result<(), GpuError> {
        self.upload_staged(ctx, encoder, bones, &[], visible)
    }

    /// [`upload`](Self::upload) with every instance's morph weights (`instance_count ×`
    /// [`morph_floats`](Self::morph_floats) floats, instance-major), carried by the same
    /// staging slot and copied into [`morph_weights_buffer`](Self::morph_weights_buffer).
    ///
    /// # Errors
    /// As [`upload`](Self::upload); [`GpuError::LengthMismatch`] for `weights` of another
    /// length (a crowd made without morph weights takes none).
    pub fn upload_with_morph_weights(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        bones: &[Mat4],
        weights: &[f32],
        visible: &[u32],
    ) -> Result<(), GpuError> {
        let expected = self.instance_count as usize * self.morph_floats as usize;
        if weights.len() != expected {
            return Err(GpuError::LengthMismatch {
                what: "crowd morph weights (instances × morph floats)",
                expected,
                got: weights.len(),
            });
        }
        self.upload_staged(ctx, encoder, bones, weights, visible)
    }

    /// Stages `bones`, then `weights` (empty: none), then the visible list in one slot.
    fn upload_staged(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        bones: &[Mat4],
        weights: &[f32],
        visible: &[u32],
    ) -> Result<(), GpuError> {
        if bones.len() != self.matrix_count() {
            return Err(GpuError::BoneCountMismatch {
                expected: u32::try_from(self.matrix_count()).unwrap_or(u32::MAX),
                got: bones.len(),
            });
        }
        self.check_visible(visible)?;
        let weight_bytes = weights.len() as u64 * 4;
        let len = (bone_bytes_of(bones) + weight_bytes + (visible.len() as u64 + 1) * 4)
            .next_multiple_of(wgpu::MAP_ALIGNMENT);
        let (slot, mut view) = self.take_slot(ctx, len)?;
        let bone_bytes = bone_bytes_of(bones);
        let list_bytes = (visible.len() as u64 + 1) * 4;
        let list_at = bone_bytes + weight_bytes;
        {
            let mut all = view.slice(..);
            let (mut bone_view, rest) = all.slice(..).split_at(bone_bytes as usize);
            bone_view.copy_from_slice(bytemuck::cast_slice(bones));
            let (mut weight_view, mut rest) = rest.split_at(weight_bytes as usize);
            weight_view.copy_from_slice(bytemuck::cast_slice(weights));
            let count = u32::try_from(visible.len()).unwrap_or(u32::MAX);
            rest.slice(..4).copy_from_slice(&count.to_ne_bytes());
            rest.slice(4..list_bytes as usize)
                .copy_from_slice(bytemuck::cast_slice(visible));
        }
        drop(view);
        let slot_buffer = &self.ring[slot].buffer;
        slot_buffer.unmap();
        encoder.copy_buffer_to_buffer(slot_buffer, 0, &self.bones, 0, bone_bytes);
        if let Some(morph) = &self.morph
            && weight_bytes > 0
        {
            encoder.copy_buffer_to_buffer(slot_buffer, bone_bytes, morph, 0, weight_bytes);
        }
        encoder.copy_buffer_to_buffer(slot_buffer, list_at, &self.instances, 0, list_bytes);
        // Captures nothing (see the module docs); a failed mapping shows as a slot that never
        // maps again, which `take_slot` reports as `StagingBusy`.
        encoder.map_buffer_on_submit(slot_buffer, wgpu::MapMode::Write, .., |_| {});
        self.next = (slot + 1) % self.ring.len();
        Ok(())
    }

    /// The next mapped slot in ring order and a view of its first `len` bytes, waiting for the
    /// device once when none is mapped. A slot is mapped when wgpu gives a view of it; asking
    /// an unmapped one fails (wgpu formats an error message then: that allocates, but only
    /// when the ring has run dry and the upload has to wait anyway).
    fn take_slot(
        &mut self,
        ctx: &GpuContext,
        len: u64,
    ) -> Result<(usize, wgpu::BufferViewMut), GpuError> {
        let find = |ring: &[StagingSlot], next: usize| {
            (0..ring.len())
                .map(|k| (next + k) % ring.len())
                .find_map(|i| Some((i, ring[i].buffer.get_mapped_range_mut(..len).ok()?)))
        };
        if let Some(found) = find(&self.ring, self.next) {
            return Ok(found);
        }
        self.waits += 1;
        // Runs the mappings of every submitted upload.
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        find(&self.ring, self.next).ok_or(GpuError::StagingBusy {
            slots: self.ring.len(),
        })
    }
}

/// Bytes of a bone array.
fn bone_bytes_of(bones: &[Mat4]) -> u64 {
    bones.len() as u64 * CROWD_BONE_BYTES
}
