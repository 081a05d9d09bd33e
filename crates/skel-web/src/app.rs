//! The demo once running: the character, its renderer, and one frame of animation and
//! drawing per `requestAnimationFrame`, with frame time shown on the page.

use skel::render::{AssetRenderer, BACKGROUND, Camera, Vec3, rest_bounds};
use skel::{AssetContainer, LoadOptions};

use crate::WebError;
use crate::gpu::CanvasGpu;
use crate::graph::GraphControls;
use crate::page::Page;

/// How often the stats line is rewritten, in milliseconds.
const STATS_EVERY_MS: f64 = 250.0;
/// The longest step the animation takes at once (a tab that was hidden resumes smoothly).
const MAX_STEP_MS: f64 = 100.0;

/// The running demo.
pub(crate) struct App {
    page: Page,
    gpu: CanvasGpu,
    character: AssetContainer,
    renderer: AssetRenderer,
    /// The animation group played (Walk, else the first), none for an asset without clips.
    group: Option<usize>,
    /// `?t=`: the time the clip is held at, none when it plays.
    held: Option<f32>,
    /// The animation graph driving the character instead of `group`, with its controls.
    graph: Option<GraphControls>,
    /// When the last frame ran (`performance.now()`), none before the first.
    last_ms: Option<f64>,
    /// Smoothed time between frames and time spent in [`App::frame`], in milliseconds.
    interval_ms: f64,
    work_ms: f64,
    stats_at_ms: f64,
    frames: u64,
}

impl App {
    /// Loads `glb` onto the canvas's device, builds the renderer for the surface's formats,
    /// frames the camera around the asset and starts its Walk clip (or its first), or holds
    /// it at `held` seconds, or hands it to the animation graph `graph` (JSON) with controls.
    pub(crate) fn new(
        page: Page,
        gpu: CanvasGpu,
        glb: &[u8],
        held: Option<f32>,
        graph: Option<&str>,
    ) -> Result<Self, WebError> {
        let options = LoadOptions::default();
        let mut character = skel::load_gltf(&gpu.ctx, glb, &options)?;
        let renderer = AssetRenderer::new(&gpu.ctx, &character, &gpu.render_format())?;
        let (min, max) = rest_bounds(&character);
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                )
            })
            .collect();
        let camera = Camera::framing(&corners, gpu.aspect(), options.handedness);
        renderer.set_camera(&gpu.ctx.queue, &camera);
        let graph = graph
            .map(|json| GraphControls::new(&page, json, &character.rig))
            .transpose()?;
        let group = (graph.is_none() && !character.animation_groups.is_empty())
            .then(|| character.clip_index("Walk").unwrap_or(0));
        if let Some(g) = group.and_then(|g| character.animation_groups.get_mut(g)) {
            g.play();
            if let Some(t) = held {
                g.seek(t);
            }
        }
        page.set_status(&format!(
            "{} on {} ({}), {} draw calls",
            gpu.backend.name(),
            gpu.ctx.adapter_info.name,
            match group {
                _ if graph.is_some() => "its animation graph",
                Some(_) if character.clip_index("Walk").is_some() => "Walk",
                Some(_) => "its first clip",
                None => "no clip",
            },
            renderer.draw_count()
        ));
        Ok(Self {
            page,
            gpu,
            character,
            renderer,
            group,
            held,
            graph,
            last_ms: None,
            interval_ms: 0.0,
            work_ms: 0.0,
            stats_at_ms: 0.0,
            frames: 0,
        })
    }

    /// The page's elements.
    pub(crate) fn page(&self) -> &Page {
        &self.page
    }

    /// Advances the animation to `now_ms`, draws a frame and presents it. Marks the page
    /// ready after the first frame that reached the GPU.
    ///
    /// # Errors
    /// A draw error, or a GPU error wgpu reported since the last frame.
    pub(crate) fn frame(&mut self, now_ms: f64) -> Result<(), WebError> {
        let step = self
            .last_ms
            .map_or(0.0, |last| (now_ms - last).clamp(0.0, MAX_STEP_MS));
        self.last_ms = Some(now_ms);
        let queue = &self.gpu.ctx.queue;
        if let Some(graph) = &mut self.graph {
            #[expect(clippy::cast_possible_truncation, reason = "a frame step is ≤ 100 ms")]
            let seconds = (step / 1000.0) as f32;
            graph.tick(&self.page, seconds, &mut self.character.pose_sink(queue))?;
            self.renderer
                .set_world_matrices(queue, &self.character, graph.world_matrices());
        }
        if let Some(g) = self.group {
            #[expect(clippy::cast_possible_truncation, reason = "a frame step is ≤ 100 ms")]
            let step = if self.held.is_some() {
                0.0
            } else {
                step as f32
            };
            self.character.tick_animation(g, step, queue);
            self.renderer
                .update_from_group(queue, &mut self.character, g);
        }
        if !self.draw()? {
            return Ok(());
        }
        if let Some(message) = self.gpu.ctx.take_uncaptured_error() {
            return Err(WebError::Uncaptured(message));
        }
        self.frames += 1;
        if self.frames == 1 {
            self.page.set_ready(self.gpu.backend.name());
        }
        self.update_stats(now_ms, step);
        Ok(())
    }

    /// Draws into the surface's next texture; `false` when there was none this frame.
    fn draw(&mut self) -> Result<bool, WebError> {
        let gpu = &self.gpu;
        let texture = match gpu.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                gpu.surface.configure(&gpu.ctx.device, &gpu.config);
                return Ok(false);
            }
            _ => return Ok(false),
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(gpu.view_format),
            ..Default::default()
        });
        let mut encoder = gpu.ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("skel-web frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(BACKGROUND),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &gpu.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            self.renderer.draw(&self.character, &mut pass)?;
        }
        gpu.ctx.queue.submit([encoder.finish()]);
        gpu.ctx.queue.present(texture);
        Ok(true)
    }

    /// Smooths the frame interval and the time this frame took, and shows them a few times
    /// a second.
    fn update_stats(&mut self, now_ms: f64, step: f64) {
        let work = self.page.now_ms() - now_ms;
        let blend = |avg: f64, x: f64| if avg == 0.0 { x } else { avg * 0.9 + x * 0.1 };
        if step > 0.0 {
            self.interval_ms = blend(self.interval_ms, step);
        }
        self.work_ms = blend(self.work_ms, work.max(0.0));
        if now_ms - self.stats_at_ms >= STATS_EVERY_MS {
            self.stats_at_ms = now_ms;
            self.page.set_stats(&format!(
                "{}: frame {:.1} ms ({:.0} fps), animate + draw {:.2} ms, {} frames",
                self.gpu.backend.name(),
                self.interval_ms,
                if self.interval_ms > 0.0 {
                    1000.0 / self.interval_ms
                } else {
                    0.0
                },
                self.work_ms,
                self.frames
            ));
        }
    }
}
