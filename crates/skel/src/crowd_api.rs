//! [`Crowd`]'s methods beyond the frame loop: the vertex-shader bind group, and the GPU
//! posing controls (instances written sparsely, poses read back without stalling, morph
//! weights per instance).

use skel_gpu::glam::Mat4;
use skel_gpu::{CrowdBones, GpuClipSet, GpuContext, GpuCrowdPose, GpuError, PoseInstance};

use crate::{Crowd, CrowdMesh, SkelError};

impl CrowdMesh {
    /// Chunks of slots its compute skinning dispatches (each binding of the skinned output
    /// under the storage binding limit); 0 without compute.
    #[must_use]
    pub fn skin_chunks(&self) -> usize {
        self.compute.len()
    }
}

impl Crowd {
    /// Instance `instance`'s bone matrices (every skeleton, [`CrowdMesh::bone_offset`] order),
    /// as last posed; empty past the end.
    #[must_use]
    pub fn bone_matrices(&self, instance: usize) -> &[Mat4] {
        self.bones
            .chunks(self.stride)
            .nth(instance)
            .unwrap_or_default()
    }

    /// The whole contiguous bone array.
    #[must_use]
    pub fn bone_array(&self) -> &[Mat4] {
        &self.bones
    }

    /// The GPU bone buffer, visible list and staging ring.
    #[must_use]
    pub fn gpu(&self) -> &CrowdBones {
        &self.gpu
    }

    /// A bind group of [`skel_gpu::crowd_vertex_wgsl`] for mesh `mesh` (an index in
    /// [`meshes`](Self::meshes)), for a layout made from
    /// [`skel_gpu::crowd_vertex_layout_entries`]. Without compute, bindings 3 and 4 hold the
    /// bone buffer (bind something; only `skel_crowd_skinned` reads them).
    ///
    /// # Errors
    /// [`SkelError::Gpu`] for a mesh index past the end or a layout that does not match.
    pub fn vertex_bind_group(
        &self,
        ctx: &GpuContext,
        layout: &wgpu::BindGroupLayout,
        mesh: usize,
    ) -> Result<wgpu::BindGroup, SkelError> {
        let m = self.meshes.get(mesh).ok_or_else(|| {
            SkelError::gpu("crowd vertex bind group")(GpuError::InstanceOutOfRange {
                what: "crowd meshes",
                index: u32::try_from(mesh).unwrap_or(u32::MAX),
                count: u32::try_from(self.meshes.len()).unwrap_or(u32::MAX),
            })
        })?;
        let bones = self.gpu.bones_buffer();
        let buffers = [
            &m.draw_params,
            bones,
            self.gpu.instances_buffer(),
            m.skinned_positions.as_ref().unwrap_or(bones),
            m.skinned_normals.as_ref().unwrap_or(bones),
        ];
        let entries: Vec<wgpu::BindGroupEntry<'_>> = (0u32..)
            .zip(buffers)
            .map(|(binding, b)| wgpu::BindGroupEntry {
                binding,
                resource: b.as_entire_binding(),
            })
            .collect();
        ctx.capture("Crowd::vertex_bind_group", || {
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("skel crowd vertex"),
                layout,
                entries: &entries,
            })
        })
        .map_err(SkelError::gpu("crowd vertex bind group"))
    }

    /// Whether the GPU poses this crowd ([`Posing::Gpu`](crate::Posing::Gpu)).
    #[must_use]
    pub fn posed_on_gpu(&self) -> bool {
        self.gpu_posing.is_some()
    }

    /// The GPU pose pass (chunks, bytes uploaded so far), on the GPU path.
    #[must_use]
    pub fn gpu_pose(&self) -> Option<&GpuCrowdPose> {
        self.gpu_posing.as_ref().map(|p| &p.pose)
    }

    /// The resampled clips of the GPU path (rates, measured error, bytes).
    #[must_use]
    pub fn gpu_clip_set(&self) -> Option<&GpuClipSet> {
        self.gpu_posing.as_ref().map(|p| &p.set)
    }

    /// Replaces the playback of instances `first..first + instances.len()` on the GPU path
    /// (one `write_buffer`; the others keep playing). What changes a GPU-posed instance: a new
    /// clip, a cross-fade weight, a speed, an update rate.
    ///
    /// # Errors
    /// [`SkelError::Gpu`]: a CPU-posed crowd ([`GpuError::MissingBinding`]), an instance past
    /// the crowd, a clip past the asset's.
    pub fn set_instances(
        &mut self,
        ctx: &GpuContext,
        first: u32,
        instances: &[PoseInstance],
    ) -> Result<(), SkelError> {
        let posing = self.gpu_posing.as_mut().ok_or(GpuError::MissingBinding {
            what: "GPU posing (Posing::Gpu)",
        });
        let posing = posing.map_err(SkelError::gpu("crowd set_instances"))?;
        posing
            .pose
            .write_instances(ctx, &posing.clips, first, instances)
            .map_err(SkelError::gpu("crowd set_instances"))
    }

    /// Chooses the reduced joint set of the GPU path (a level of detail for distant
    /// characters): `keep[b]` says whether bone `b` is posed; a bone left out takes the
    /// skinning matrix of its nearest kept ancestor bone (see
    /// [`GpuClipSet::set_reduced_joints`]). It applies to the instances whose
    /// [`PoseInstance::reduced`] is set, from the next [`upload`](Self::upload) on.
    ///
    /// # Errors
    /// [`SkelError::Gpu`]: a CPU-posed crowd ([`GpuError::MissingBinding`]), or `keep` without
    /// one flag per bone ([`GpuError::LengthMismatch`]).
    pub fn set_reduced_joints(&mut self, ctx: &GpuContext, keep: &[bool]) -> Result<(), SkelError> {
        let posing = self.gpu_posing.as_mut().ok_or(GpuError::MissingBinding {
            what: "GPU posing (Posing::Gpu)",
        });
        let posing = posing.map_err(SkelError::gpu("crowd set_reduced_joints"))?;
        posing
            .set
            .set_reduced_joints(keep)
            .and_then(|()| posing.clips.update_reduced_joints(ctx, &posing.set))
            .map_err(SkelError::gpu("crowd set_reduced_joints"))
    }

    /// Asks for `instances`' bone matrices as the next [`upload`](Self::upload) poses them, on
    /// the GPU path (gameplay: where is the hand?); collect them with
    /// [`pose_readback`](Self::pose_readback) a frame or more later. A request made while an
    /// earlier read is in flight waits for it. Does nothing on the CPU path, where
    /// [`bone_matrices`](Self::bone_matrices) has them.
    pub fn request_pose_readback(&mut self, instances: &[u32]) {
        if let Some(posing) = &mut self.gpu_posing {
            let count = self.gpu.instance_count();
            posing.readback.request(instances);
            posing.readback.retain_below(count);
        }
    }

    /// The instances of the last delivered read and their bone matrices (every instance's
    /// [`bones_per_instance`](skel_gpu::CrowdBones::bones_per_instance) in a row), or `None`
    /// while the GPU has not delivered it. Polls the device without waiting.
    pub fn pose_readback(&mut self, ctx: &GpuContext) -> Option<(&[u32], &[Mat4])> {
        self.gpu_posing.as_mut()?.readback.poll(ctx)
    }

    /// Every instance's morph weights (the asset's morph targets in order, rounded up to a
    /// multiple of 4 floats per instance; instance `i`'s first at `i` times that), which
    /// [`skin`](Self::skin) reads for meshes with [`CrowdMesh::morph`]. On the GPU path the
    /// pose pass samples them into this buffer every upload; on the CPU path
    /// [`upload`](Self::upload) copies the players' weights into it, and there is one only
    /// when a mesh morphs (`None` otherwise).
    #[must_use]
    pub fn morph_weights_buffer(&self) -> Option<&wgpu::Buffer> {
        match &self.gpu_posing {
            Some(p) => Some(p.pose.morph_buffer()),
            None => self.gpu.morph_weights_buffer(),
        }
    }
}
