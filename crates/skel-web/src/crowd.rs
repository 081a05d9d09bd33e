//! The page's crowd (WebGPU only): `?crowd=N` (default [`DEFAULT_CROWD`](crate::DEFAULT_CROWD))
//! copies of the asset on a grid, each playing
//! its clip from its own phase at its own speed, posed by a [`Crowd`] on the GPU (its pose
//! pass advances every playhead), skinned by its compute pass and drawn by
//! [`CrowdRenderer`] in one instanced draw per primitive. WebGL2 has no compute, so the page
//! offers the toggle only on WebGPU.

use skel::anim::{LayerDesc, NullSink, Player};
use skel::gpu::{PoseInstance, PoseLayout};
use skel::render::{
    CROWD_SPACING, CrowdRenderer, Mat4, Vec3, crowd_grid, overlook, phase_and_speed, rest_bounds,
};
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, Posing};

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
        let duration = clip
            .and_then(|c| character.animation.clips.get(c))
            .map_or(0.0, skel::anim::Clip::duration);
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
        // The mesh nodes' world matrices at rest (the skinned meshes' bones cancel them).
        let mut probe = Player::new(&character.rig);
        if let Some(c) = clip {
            probe
                .add_layer(LayerDesc::new(c))
                .map_err(|e| WebError::Pose(e.to_string()))?;
        }
        probe.tick(0.0, &mut NullSink);
        let world = probe.world_matrices().to_vec();
        let (lo, hi) = rest_bounds(character);
        let extent = hi - lo;
        let spacing = extent.x.max(extent.z).max(extent.y * 0.35) * CROWD_SPACING;
        let handedness = LoadOptions::default().handedness;
        let mirror = match handedness {
            skel::anim::Handedness::LeftHanded => Vec3::new(-1.0, 1.0, 1.0),
            skel::anim::Handedness::RightHanded => Vec3::ONE,
        };
        let centre = Vec3::new((lo.x + hi.x) * 0.5, 0.0, (lo.z + hi.z) * 0.5);
        let placements: Vec<Mat4> = crowd_grid(size, spacing)
            .iter()
            .map(|&c| Mat4::from_translation(c * mirror - centre))
            .collect();
        let corners: Vec<Vec3> = placements
            .iter()
            .flat_map(|m| {
                [
                    lo,
                    hi,
                    Vec3::new(lo.x, hi.y, lo.z),
                    Vec3::new(hi.x, lo.y, hi.z),
                ]
                .map(|p| m.transform_point3(p))
            })
            .collect();
        let renderer = CrowdRenderer::new(
            ctx,
            character,
            &crowd,
            &world,
            &placements,
            &gpu.render_format(),
        )?;
        renderer.set_camera(&ctx.queue, &overlook(&corners, gpu.aspect(), handedness));
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
