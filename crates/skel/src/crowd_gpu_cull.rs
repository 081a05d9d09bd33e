//! Culling a GPU-posed [`Crowd`] on the GPU: after the pose pass, [`skel_gpu::CrowdCull`]
//! boxes every instance from the bone matrices the pass just wrote (the character's joint
//! spheres, the rule of [`Crowd::instance_box`] and `docs/bounds.md`), tests each box against
//! the camera's frustum and appends the visible instances to a list, which is copied where the
//! crowd's skinning and [`CrowdRenderer`](crate::render::CrowdRenderer) read their visible
//! list. Nothing comes back to the CPU on the frame's path: skinning is dispatched indirectly
//! over the list's count ([`skel_gpu::CrowdDispatch`]), the renderer's draws are indirect. The count alone comes
//! back, a frame or two later, for a readout ([`Crowd::gpu_visible_count`]).
//!
//! A frame: [`Crowd::tick`], then into one encoder [`Crowd::upload`] (the pose pass),
//! [`Crowd::encode_cull`], [`Crowd::skin`], the renderer's `place` and draw.

use skel_gpu::glam::Mat4;
use skel_gpu::{CrowdCull, GpuContext};

use crate::crowd_cull_pass::GpuCull;
use crate::{Crowd, CullError, SkelError};

impl Crowd {
    /// Where each instance stands for the GPU cull: `placements[i]` moves instance `i`'s
    /// character into the camera's world (as [`cull`](Self::cull)'s placements on the CPU
    /// path, which takes them every call). One `write_buffer`; until it is called every
    /// instance stands at the identity.
    ///
    /// # Errors
    /// [`CullError::PosedOnCpu`] / [`CullError::GpuCullOff`] when the crowd has no GPU cull;
    /// [`CullError::Placements`] for another count than the crowd's instances.
    pub fn set_placements(
        &mut self,
        ctx: &GpuContext,
        placements: &[Mat4],
    ) -> Result<(), SkelError> {
        let instances = self.gpu.instance_count() as usize;
        let cull = self.gpu_cull_state()?;
        if placements.len() != instances {
            return Err(CullError::Placements {
                given: placements.len(),
                instances,
            }
            .into());
        }
        if let Some(pass) = &cull.pass {
            pass.set_placements(ctx, placements)
                .map_err(SkelError::gpu("crowd GPU cull placements"))?;
        }
        Ok(())
    }

    /// Records the GPU cull into `encoder`, after [`upload`](Self::upload) (whose pose pass
    /// writes the bones it boxes) and before [`skin`](Self::skin): every instance's box from
    /// its joints' spheres under its posed bones, moved by its placement
    /// ([`set_placements`](Self::set_placements)), tested against the frustum of
    /// `view_projection` (projection · view, WebGPU's clip space), and the instances left
    /// made the crowd's visible list (in no particular order). A baked crowd
    /// ([`PoseLayout::Baked`](skel_gpu::PoseLayout::Baked)) is boxed by its pose pass from
    /// boxes baked with its clips, a little larger than the joints' (`docs/gpu-posing.md`),
    /// and this pass only tests them. Skinning then writes only them,
    /// and [`CrowdRenderer`](crate::render::CrowdRenderer) draws only them. The same boxes
    /// and the same conservative test as [`cull`](Self::cull) on the CPU path. Call it every
    /// frame: the list stays as the last cull left it. A character without joint spheres is
    /// never culled.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use skel::gpu::glam::{Mat4, Vec3};
    /// let ctx = skel::gpu::GpuContext::new_headless()?;
    /// let asset = skel::load_gltf(&ctx, std::path::Path::new("CesiumMan.glb"), &Default::default())?;
    /// let mut crowd = skel::Crowd::new(&ctx, &asset, &skel::CrowdDescriptor {
    ///     instances: 10_000,
    ///     posing: skel::Posing::Gpu(Default::default()),
    ///     gpu_cull: true,
    ///     ..Default::default()
    /// })?;
    /// let placements: Vec<Mat4> = (0..10_000)
    ///     .map(|i| Mat4::from_translation(Vec3::new((i % 100) as f32, 0.0, (i / 100) as f32)))
    ///     .collect();
    /// crowd.set_placements(&ctx, &placements)?;
    /// let view = Mat4::look_at_rh(Vec3::new(50.0, 2.0, -5.0), Vec3::new(50.0, 0.0, 50.0), Vec3::Y);
    /// let projection = Mat4::perspective_rh(0.8, 16.0 / 9.0, 0.1, 500.0);
    /// crowd.tick(1.0 / 60.0);
    /// let mut encoder = ctx.device.create_command_encoder(&Default::default());
    /// crowd.upload(&ctx, &mut encoder)?;
    /// crowd.encode_cull(&ctx, &mut encoder, projection * view)?;
    /// crowd.skin(&mut encoder);
    /// ctx.queue.submit([encoder.finish()]);
    /// // A frame or two later:
    /// if let Some(seen) = crowd.gpu_visible_count(&ctx) {
    ///     println!("{seen} of 10 000 in view");
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`CullError::PosedOnCpu`] / [`CullError::GpuCullOff`] when the crowd has no GPU cull;
    /// [`SkelError::Gpu`] for a `view_projection` that is not finite.
    pub fn encode_cull(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        view_projection: Mat4,
    ) -> Result<(), SkelError> {
        let list = self.gpu.instances_buffer().clone();
        let boxed = self
            .gpu_posing
            .as_ref()
            .is_some_and(|p| p.pose.writes_bounds());
        let cull = self.gpu_cull_state()?;
        let Some(pass) = &cull.pass else {
            return Ok(());
        };
        let planes = skel_gpu::frustum_planes(view_projection);
        if boxed {
            pass.encode_from_boxes(ctx, encoder, &planes, None)
        } else {
            pass.encode(ctx, encoder, &planes)
        }
        .map_err(SkelError::gpu("crowd GPU cull"))?;
        encoder.copy_buffer_to_buffer(pass.visible_buffer(), 0, &list, 0, cull.list_bytes);
        cull.count.record(encoder, pass.visible_buffer());
        if let Some(posing) = self.gpu_posing.as_mut().filter(|p| p.pose.skips_unseen()) {
            {
                let mut bones = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("skel crowd pose (seen)"),
                    timestamp_writes: None,
                });
                posing.pose.record_bones(&mut bones);
            }
            posing.readback.record(ctx, encoder, &self.gpu);
        }
        Ok(())
    }

    /// The GPU cull's pass (its boxes, placements, visible list and indirect arguments, for a
    /// renderer of one's own or [`skel_gpu::CrowdPick`]); `None` on the CPU path, without
    /// [`CrowdDescriptor::gpu_cull`](crate::CrowdDescriptor::gpu_cull), or for a character
    /// without joint spheres.
    #[must_use]
    pub fn gpu_cull(&self) -> Option<&CrowdCull> {
        self.gpu_posing.as_ref()?.cull.as_ref()?.pass.as_ref()
    }

    /// How many instances the GPU cull kept, as the GPU last delivered it (a frame or two
    /// behind [`encode_cull`](Self::encode_cull)); `None` before the first delivery or
    /// without a GPU cull. Polls the device without waiting.
    pub fn gpu_visible_count(&mut self, ctx: &GpuContext) -> Option<u32> {
        self.gpu_posing.as_mut()?.cull.as_mut()?.count.poll(ctx)
    }

    fn gpu_cull_state(&mut self) -> Result<&mut GpuCull, SkelError> {
        let posing = self.gpu_posing.as_mut().ok_or(CullError::PosedOnCpu)?;
        Ok(posing.cull.as_mut().ok_or(CullError::GpuCullOff)?)
    }
}
