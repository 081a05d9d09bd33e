//! A crowd's per-frame upload ([`Crowd::upload`]): on the CPU path the bone array and the
//! visible list copied into the next staging slot; on the GPU path the pose pass recorded
//! (with [`CrowdDescriptor::pose_only_seen`](crate::CrowdDescriptor::pose_only_seen) only its
//! advance, the bones following the cull in [`Crowd::encode_cull`]).

use skel_gpu::GpuContext;

use crate::{Crowd, SkelError};

impl Crowd {
    /// Copies the bone array and the visible list into the next staging slot and records
    /// their copies into `encoder` (see [`CrowdBones::upload`](skel_gpu::CrowdBones::upload));
    /// submit `encoder` afterwards. A GPU-posed crowd records its pose pass instead (with
    /// [`CrowdDescriptor::pose_only_seen`](crate::CrowdDescriptor::pose_only_seen), only the
    /// advance: [`encode_cull`](Self::encode_cull) poses the instances it keeps).
    ///
    /// # Errors
    /// [`SkelError::Gpu`] with [`GpuError::StagingBusy`](skel_gpu::GpuError::StagingBusy) when
    /// earlier uploads were never submitted, or a mapping error.
    pub fn upload(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), SkelError> {
        self.upload_timed(ctx, encoder, None)
    }

    /// [`upload`](Self::upload) with GPU timestamps around the pose pass of a GPU-posed crowd
    /// (ignored on the CPU path; for benchmarks, needs `Features::TIMESTAMP_QUERY`).
    ///
    /// # Errors
    /// As [`upload`](Self::upload).
    pub fn upload_timed(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(), SkelError> {
        let Some(posing) = &mut self.gpu_posing else {
            let uploaded = if self.gpu.morph_weights_buffer().is_some() {
                self.gpu.upload_with_morph_weights(
                    ctx,
                    encoder,
                    &self.bones,
                    &self.morph_weights,
                    &self.visible,
                )
            } else {
                self.gpu.upload(ctx, encoder, &self.bones, &self.visible)
            };
            return uploaded.map_err(SkelError::gpu("crowd upload"));
        };
        posing.pose.prepare(ctx, posing.dt);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skel crowd pose"),
                timestamp_writes,
            });
            if posing.pose.skips_unseen() {
                // The bones wait for the cull (`encode_cull`).
                posing.pose.record_advance(&mut pass);
            } else {
                posing.pose.record(&mut pass);
            }
        }
        if !posing.pose.skips_unseen() {
            posing.readback.record(ctx, encoder, &self.gpu);
        }
        Ok(())
    }
}
