//! `skel view`: a winit window with a wgpu surface drawing an animated asset with
//! `skel::render::AssetRenderer`. Orbit camera (drag, wheel, A/D/W/S; `skel_demo::OrbitView`,
//! the browser page's, opening where `skel render` frames the asset), play/pause (Space),
//! next/previous clip (N/P or →/←), speed (+/−), a frame-time readout in the title bar and on
//! stdout (one line a second, and one per change, so scripts and tests can follow it). With a
//! graph, the mouse moves its IK targets (`targets.rs`, geometry in `pick.rs`); with
//! `--terrain`, the ground is drawn and the feet stand on it (`feet.rs` without a graph).

mod crowd;
mod feet;
mod graph;
mod input;
mod marker;
mod pick;
mod surface;
mod targets;

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use skel::render::{AssetRenderer, rest_bounds};
use skel::{AssetContainer, LoadOptions, Source};
use skel_demo::{OrbitView, WHEEL_NOTCH};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

use surface::WindowGpu;

/// What `skel view` was asked for.
#[derive(Debug, Clone)]
pub struct ViewJob {
    /// The asset; `None` shows the built-in character.
    pub asset: Option<PathBuf>,
    /// The clip to start with (index or name).
    pub clip: Option<String>,
    /// Close after this many frames.
    pub frames: Option<u64>,
    /// Save the last presented frame here.
    pub screenshot: Option<PathBuf>,
    /// Window size.
    pub size: (u32, u32),
    /// Every clip mirrored left for right (`--mirror`).
    pub mirror: bool,
    /// A culled, pickable crowd of this many characters instead of one (`--crowd`).
    pub crowd: Option<u32>,
    /// Where the crowd is posed (`--posing`): on the GPU it is also culled and picked there.
    pub crowd_posing: crate::render::crowd::CrowdPosing,
    /// An animation graph driving the character (`--graph`, `--set`, `--travel`).
    pub graph: crate::graph_args::GraphArgs,
    /// A fixed display rate (`--fps`): every frame advances 1/FPS s.
    pub fps: Option<f32>,
    /// A VRM's springs and node constraints (off with `--no-springs`).
    pub springs: skel::SecondaryOptions,
    /// `--vrma FILE`: `.vrma` clips retargeted onto the character and added to its clips.
    pub vrma: Vec<std::path::PathBuf>,
}

/// Opens the window and runs until it is closed (or `--frames` is reached).
///
/// # Errors
/// No display, no adapter, a bad asset or clip, a failed screenshot: one line each.
pub fn run(job: ViewJob) -> Result<(), Box<dyn Error>> {
    let event_loop = EventLoop::new().map_err(|e| {
        format!("cannot open a window: {e} (skel view needs a display; try xvfb-run)")
    })?;
    let mut app = App {
        job,
        viewer: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

struct App {
    job: ViewJob,
    viewer: Option<Viewer>,
    error: Option<String>,
}

/// Everything that exists once the window is open.
struct Viewer {
    window: Arc<Window>,
    gpu: WindowGpu,
    character: AssetContainer,
    renderer: AssetRenderer,
    /// Where the camera looks from (the demos' orbit, as the browser page's).
    orbit: OrbitView,
    clip: usize,
    speed: f32,
    frames: u64,
    last: Instant,
    /// `--fps`: the step of every frame instead of the wall-clock time.
    fixed_dt: Option<f32>,
    frame_ms: f32,
    last_report: Instant,
    drag: Option<(f64, f64)>,
    cursor: (f64, f64),
    /// Whether Shift is held (Shift + left drag moves a graph's target).
    shift: bool,
    /// With `--graph`: what plays instead of the selected clip.
    graph: Option<graph::LiveGraph>,
    /// With `--terrain` or a VRM's springs, and no graph: a player posing the selected clip
    /// with the humanoid's feet on the ground and the springs swinging.
    feet: Option<feet::LiveFeet>,
    /// What the facade's frame fills besides the pose of what plays: material,
    /// texture-transform and visibility animation (`KHR_animation_pointer`), root motion,
    /// markers.
    frame: skel::Frame,
    /// With `--terrain`: the ground the feet stand on.
    ground: Option<skel::render::GroundRenderer>,
    /// With a graph that has IK targets: the selected one, drawn.
    marker: Option<marker::Marker>,
    /// With `--crowd`: the crowd drawn instead of the character.
    crowd: Option<crowd::LiveCrowd>,
    /// Where the left button went down: a release near it is a click (a pick in a crowd).
    press: Option<(f64, f64)>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.viewer.is_some() {
            return;
        }
        match Viewer::open(event_loop, &self.job) {
            Ok(v) => {
                v.window.request_redraw();
                self.viewer = Some(v);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(v) = self.viewer.as_mut() else {
            return;
        };
        match event {
            WindowEvent::CloseRequested => self.finish(event_loop),
            WindowEvent::Resized(size) => v.gpu.resize(size.width, size.height),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed && v.key(&event.logical_key) =>
            {
                self.finish(event_loop);
            }
            WindowEvent::ModifiersChanged(modifiers) => v.shift = modifiers.state().shift_key(),
            WindowEvent::MouseInput { state, button, .. } => v.mouse_button(state, button),
            WindowEvent::CursorMoved { position, .. } => {
                if v.graph.as_ref().is_some_and(|g| g.targets().dragging()) {
                    v.cursor = (position.x, position.y);
                    v.drag_target();
                } else if let Some((x, y)) = v.drag {
                    #[expect(clippy::cast_possible_truncation, reason = "pixels moved")]
                    v.orbit
                        .nudge((position.x - x) as f32, (position.y - y) as f32, 0.0);
                    v.drag = Some((position.x, position.y));
                }
                v.cursor = (position.x, position.y);
            }
            WindowEvent::MouseWheel { delta, .. } => {
                // winit's positive y scrolls up (towards the model); a browser's positive
                // deltaY scrolls down (away): the orbit takes the browser's.
                #[expect(clippy::cast_possible_truncation, reason = "wheel pixels")]
                let wheel = match delta {
                    MouseScrollDelta::LineDelta(_, y) => -y * WHEEL_NOTCH,
                    MouseScrollDelta::PixelDelta(p) => -p.y as f32,
                };
                v.orbit.nudge(0.0, 0.0, wheel);
            }
            WindowEvent::RedrawRequested => {
                let last = self.job.frames.is_some_and(|n| v.frames + 1 >= n);
                let shot = last && self.job.screenshot.is_some();
                match v.frame(shot) {
                    Ok(Some(image)) => {
                        if let Some(path) = &self.job.screenshot
                            && let Err(e) = image.save(path)
                        {
                            self.error = Some(format!("cannot write {}: {e}", path.display()));
                        }
                    }
                    Ok(None) => {}
                    Err(e) => self.error = Some(e),
                }
                if last || self.error.is_some() {
                    event_loop.exit();
                } else {
                    v.window.request_redraw();
                }
            }
            _ => {}
        }
    }
}

impl App {
    /// Closes the window; with `--screenshot`, draws one more frame and saves it.
    fn finish(&mut self, event_loop: &ActiveEventLoop) {
        if let (Some(v), Some(path)) = (self.viewer.as_mut(), &self.job.screenshot) {
            match v.frame(true) {
                Ok(Some(image)) => {
                    if let Err(e) = image.save(path) {
                        self.error = Some(format!("cannot write {}: {e}", path.display()));
                    }
                }
                Ok(None) => self.error = Some("the window could not be read back".into()),
                Err(e) => self.error = Some(e),
            }
        }
        event_loop.exit();
    }
}

impl Viewer {
    fn open(event_loop: &ActiveEventLoop, job: &ViewJob) -> Result<Self, String> {
        let attributes = Window::default_attributes()
            .with_title("skel view")
            .with_inner_size(winit::dpi::PhysicalSize::new(job.size.0, job.size.1));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| format!("cannot open a window: {e}"))?,
        );
        let gpu = WindowGpu::new(&window)?;
        let mut options = LoadOptions::default().with_mirror(job.graph.clip_mirroring(job.mirror));
        options.decode_images = true;
        options.secondary = job.springs;
        let source = match &job.asset {
            Some(path) => Source::Path(path),
            None => Source::from(skel::DEFAULT_CHARACTER),
        };
        let character = crate::vrma_load::load_with_vrma(&gpu.ctx, source, &options, &job.vrma)
            .map_err(|e| format!("cannot load the asset: {e}"))?;
        let clip = match &job.clip {
            None => 0,
            Some(c) => c
                .parse::<usize>()
                .ok()
                .filter(|&i| i < character.animation_groups.len())
                .or_else(|| character.clip_index(c))
                .ok_or_else(|| format!("the asset has no clip {c:?}"))?,
        };
        let graph = graph::LiveGraph::new(&job.graph, &character)?;
        let feet = feet::LiveFeet::new(&job.graph, &character)?;
        let renderer =
            AssetRenderer::new(&gpu.ctx, &character, &gpu.format()).map_err(|e| e.to_string())?;
        let (lo, hi) = rest_bounds(&character);
        let ground = match &job.graph.terrain {
            Some(spec) => {
                let terrain = crate::terrain::Terrain::parse(spec, options.handedness)
                    .map_err(|e| e.to_string())?;
                Some(
                    skel::render::GroundRenderer::new(
                        &gpu.ctx,
                        &gpu.format(),
                        &terrain.triangles_around(lo, hi),
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
            None => None,
        };
        let size = (hi - lo).max_element().max(1e-3);
        // One character opens as `skel render` frames it (its rest box); a crowd as `skel
        // render --crowd` overlooks it.
        let mut orbit = OrbitView::framing(lo, hi, gpu.aspect(), options.handedness);
        let crowd = match job.crowd {
            Some(count) => {
                let (live, overlook) = crowd::LiveCrowd::new(
                    &gpu.ctx,
                    &character,
                    (&gpu.format(), gpu.aspect()),
                    (count, job.clip.is_some().then_some(clip)),
                    (job.crowd_posing, options.handedness),
                )?;
                orbit = overlook;
                Some(live)
            }
            None => None,
        };
        let marker = match &graph {
            Some(g) if g.targets().selected().is_some() => {
                Some(marker::Marker::new(&gpu.ctx, &gpu.format(), size * 0.03)?)
            }
            _ => None,
        };
        let frame = skel::Frame::new(&character);
        let mut viewer = Self {
            window,
            gpu,
            character,
            renderer,
            orbit,
            clip,
            speed: 1.0,
            frames: 0,
            last: Instant::now(),
            fixed_dt: job.fps.map(|f| 1.0 / f),
            frame_ms: 0.0,
            last_report: Instant::now(),
            drag: None,
            cursor: (0.0, 0.0),
            shift: false,
            graph,
            feet,
            frame,
            ground,
            marker,
            crowd,
            press: None,
        };
        viewer.select(clip);
        Ok(viewer)
    }
}
