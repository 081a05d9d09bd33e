//! The page's crowd (WebGPU only): `?crowd=N` (default [`DEFAULT_CROWD`](crate::DEFAULT_CROWD))
//! copies of the asset on a grid, each playing its clip from its own phase at its own speed
//! (laid out, phased and overlooked by skel-demo, as `skel render --crowd` does), posed by a
//! [`Crowd`] on the GPU (its pose pass advances every playhead), skinned by its compute pass
//! and drawn by [`CrowdRenderer`] in one instanced draw per primitive. WebGL2 has no compute, so the page
//! offers the toggle only on WebGPU.

use skel::gpu::{PoseInstance, PoseLayout};
use skel::render::CrowdRenderer;
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, Posing};
use skel_demo::{CrowdLayout, OrbitView, phase_and_speed};

use crate::WebError;
use crate::gpu::CanvasGpu;

/// A crowd of the scene's asset and how to draw it.
pub(crate) struct PageCrowd {
    crowd: Crowd,
    renderer: CrowdRenderer,
    /// Characters.
    pub(crate) size: u32,
}

impl PageCrowd {
    /// A grid of `size` characters of `character` playing `clip`, seen from above.
    ///
    /// # Errors
    /// What [`Crowd::new`] and [`CrowdRenderer::new`] refuse (an asset without a skinned mesh,
    /// a device without compute).
    pub(crate) fn new(
        gpu: &CanvasGpu,
        character: &AssetContainer,
        clip: Option<usize>,
        size: u32,
    ) -> Result<Self, WebError> {
        let ctx = &gpu.ctx;
        let mut crowd = Crowd::new(
            ctx,
            character,
            &CrowdDescriptor {
                instances: size,
                clip,
                compute: true,
                // Posed by the GPU pose pass: nothing goes through a staging ring per frame
                // (a ring's slots map again only on the page's event loop).
                posing: if clip.is_some() {
                    Posing::Gpu(PoseLayout::PerBone)
                } else {
                    Posing::Cpu
                },
                ..CrowdDescriptor::default()
            },
        )?;
        // Where they stand and what frames them: every character's box over the clip, as
        // `skel render --crowd` lays its crowd out.
        let handedness = LoadOptions::default().handedness;
        let CrowdLayout {
            placements,
            world,
            corners,
            duration,
            ..
        } = CrowdLayout::new(character, clip, size, handedness)
            .map_err(|e| WebError::Pose(e.to_string()))?;
        if let Some(c) = clip {
            let id = u16::try_from(c).unwrap_or(u16::MAX);
            let playback: Vec<PoseInstance> = (0..size)
                .map(|i| {
                    let (phase, speed) = phase_and_speed(i);
                    PoseInstance::new(id, phase * duration).speed(speed)
                })
                .collect();
            crowd.set_instances(ctx, 0, &playback)?;
        }
        let renderer = CrowdRenderer::new(
            ctx,
            character,
            &crowd,
            &world,
            &placements,
            &gpu.render_format(),
        )?;
        let view = OrbitView::overlook(&corners, gpu.aspect(), handedness);
        renderer.set_camera(&ctx.queue, &view.camera(gpu.aspect()));
        Ok(Self {
            crowd,
            renderer,
            size,
        })
    }

    /// Advances every character by `dt` seconds and records their posing upload and compute
    /// skinning into `encoder`.
    ///
    /// # Errors
    /// [`WebError::Load`] when the upload is refused.
    pub(crate) fn animate(
        &mut self,
        gpu: &CanvasGpu,
        dt: f32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), WebError> {
        self.crowd.tick(dt);
        self.crowd.upload(&gpu.ctx, encoder)?;
        self.crowd.skin(encoder);
        self.renderer.place(encoder);
        Ok(())
    }

    /// Records the crowd's draws into `pass`.
    pub(crate) fn draw(&self, character: &AssetContainer, pass: &mut wgpu::RenderPass<'_>) {
        self.renderer.draw(character, pass);
    }

    /// Draw calls per frame.
    pub(crate) fn draw_count(&self) -> usize {
        self.renderer.draw_count()
    }
}
