//! The demo once running: the scene on the canvas, the user's gestures, and one frame of
//! animation and drawing per `requestAnimationFrame`, with frame time shown on the page.

use skel::render::BACKGROUND;

use crate::WebError;
use crate::gpu::CanvasGpu;
use crate::input::Input;
use crate::page::Page;
use crate::scene::{Scene, Setup};

/// How often the stats line is rewritten, in milliseconds.
const STATS_EVERY_MS: f64 = 250.0;
/// The longest step the animation takes at once (a tab that was hidden resumes smoothly).
const MAX_STEP_MS: f64 = 100.0;

/// The running demo.
pub(crate) struct App {
    page: Page,
    gpu: CanvasGpu,
    scene: Scene,
    /// Whether the assets the user opens run their VRM springs (`?springs=0`: not).
    springs: bool,
    input: Input,
    /// When the last frame ran (`performance.now()`), none before the first.
    last_ms: Option<f64>,
    /// Smoothed time between frames and time spent in [`App::frame`], in milliseconds.
    interval_ms: f64,
    work_ms: f64,
    stats_at_ms: f64,
    frames: u64,
}

impl App {
    /// Loads `glb` as `setup` says (see [`Scene::load`]) and listens to the page.
    pub(crate) fn new(
        page: Page,
        gpu: CanvasGpu,
        glb: &[u8],
        held: Option<f32>,
        graph: Option<&str>,
        crowd_size: u32,
        setup: Setup,
    ) -> Result<Self, WebError> {
        let mut scene = Scene::load(&page, &gpu, glb, held, graph, setup)?;
        scene.crowd_size = crowd_size;
        let document = page
            .window()
            .document()
            .ok_or(WebError::Page { what: "document" })?;
        let input = Input::listen(&document, &page.canvas)?;
        if gpu.backend == crate::Backend::WebGl2 {
            page.refuse_crowd("WebGL2 has no compute shaders: crowds skin on WebGPU only");
        }
        let app = Self {
            page,
            gpu,
            scene,
            springs: setup.springs,
            input,
            last_ms: None,
            interval_ms: 0.0,
            work_ms: 0.0,
            stats_at_ms: 0.0,
            frames: 0,
        };
        app.show_status("the built-in character");
        Ok(app)
    }

    /// `?test=1`: publishes what the browser check compares with the CPU — the camera's
    /// `projection · view` (`data-skel-camera`, 16 floats, column-major), and whether this
    /// device builds compute skinning (`data-skel-compute`: `ok`, or the typed error, which
    /// WebGL2 must give).
    pub(crate) fn publish_test(&self) {
        let camera = self.scene.view.camera(self.gpu.aspect()).view_projection();
        let floats: Vec<String> = camera.to_cols_array().iter().map(f32::to_string).collect();
        self.page
            .set_data("data-skel-camera", &format!("[{}]", floats.join(",")));
        let compute = skel::gpu::ComputeSkinning::new(&self.gpu.ctx, Default::default());
        self.page.set_data(
            "data-skel-compute",
            &compute.map_or_else(|e| e.to_string(), |_| "ok".to_owned()),
        );
    }

    /// `backend on adapter (name, driver), N draw calls` in the status line.
    fn show_status(&self, name: &str) {
        self.page.set_status(&format!(
            "{name} on {} ({}), driven by {}, {} draw calls; drag to turn, wheel to zoom, drop a .glb or .vrm",
            self.gpu.backend.name(),
            self.gpu.ctx.adapter_info.name,
            self.scene.driver(),
            self.scene.draw_count()
        ));
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
        let gestures = self.input.take();
        if let Some((name, glb)) = gestures.file {
            // A new asset plays its clip (no graph: graphs are written for one rig). A file
            // that does not load is the user's mistake, not the page's: it is refused with
            // its reason and the character before it plays on (`Scene::load` changes the page
            // only once the asset has loaded and its renderer exists).
            let setup = Setup {
                kind: crate::SceneKind::Default,
                test: false,
                springs: self.springs,
            };
            match Scene::load(&self.page, &self.gpu, &glb, None, None, setup) {
                Ok(scene) => {
                    let crowd_size = self.scene.crowd_size;
                    self.scene = scene;
                    self.scene.crowd_size = crowd_size;
                    if self.gpu.backend == crate::Backend::WebGpu {
                        self.page.allow_crowd();
                    }
                    self.show_status(&name);
                }
                Err(error) => self.page.refuse_file(&name, &error),
            }
        }
        let (dx, dy) = gestures.drag;
        let moved = dx != 0.0 || dy != 0.0 || gestures.wheel != 0.0;
        if moved {
            self.scene.view.nudge(dx, dy, gestures.wheel);
        }
        #[expect(clippy::cast_possible_truncation, reason = "a frame step is ≤ 100 ms")]
        let step_s = (step / 1000.0) as f32;
        self.scene
            .animate(&self.page, &self.gpu, step_s, moved, gestures.pointer)?;
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
        let Some(frame) = gpu.target.acquire(&gpu.ctx.device) else {
            return Ok(false);
        };
        let mut encoder = gpu.ctx.device.create_command_encoder(&Default::default());
        self.scene.encode(gpu, &mut encoder)?;
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("skel-web frame"),
                color_attachments: &[Some(gpu.target.color_attachment(&frame, BACKGROUND))],
                depth_stencil_attachment: Some(gpu.target.depth_attachment()),
                ..Default::default()
            });
            self.scene.draw(&mut pass)?;
        }
        gpu.ctx.queue.submit([encoder.finish()]);
        frame.present(&gpu.ctx.queue);
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
                "{}: frame {:.1} ms ({:.0} fps), animate + draw {:.2} ms, {} draw calls, {} frames",
                self.gpu.backend.name(),
                self.interval_ms,
                if self.interval_ms > 0.0 {
                    1000.0 / self.interval_ms
                } else {
                    0.0
                },
                self.work_ms,
                self.scene.shown_draw_count(),
                self.frames
            ));
        }
    }
}
