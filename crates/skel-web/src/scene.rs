//! The asset on the page: its GPU container and renderer, what drives it (a clip, or its
//! animation graph with controls), and the orbit camera. Rebuilt whole when the user opens
//! another `.glb`.

use skel::anim::{LayerDesc, Player};
use skel::render::{AssetRenderer, rest_bounds};
use skel::{AssetContainer, Frame, LoadOptions};
use skel_demo::OrbitView;
use wasm_bindgen::JsCast as _;

use crate::crowd::PageCrowd;
use crate::gpu::CanvasGpu;
use crate::graph::GraphControls;
use crate::page::Page;
use crate::stage::SlopeStage;
use crate::{SceneKind, WebError};

/// The `#clip` option that hands the character to its graph.
const GRAPH_OPTION: &str = "graph";

/// How a scene is set up besides its asset and driver.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Setup {
    /// What surrounds the character.
    pub(crate) kind: SceneKind,
    /// Whether the slope scene publishes its readings for the browser check.
    pub(crate) test: bool,
    /// Whether a VRM avatar's spring bones and node constraints run (`?springs=0`: not).
    pub(crate) springs: bool,
}

/// One loaded asset and what drives it.
pub(crate) struct Scene {
    character: AssetContainer,
    renderer: AssetRenderer,
    /// What the facade's frame fills besides the pose: animated properties
    /// (`KHR_animation_pointer`), root motion, markers.
    frame: Frame,
    /// The player of the chosen clip (one layer; none for the rest pose or the graph).
    player: Player,
    /// The clip played, when no graph drives the character.
    group: Option<usize>,
    /// `?t=`: the time the clip is held at, none when it plays.
    held: Option<f32>,
    /// The animation graph and its controls, while it drives the character.
    graph: Option<GraphControls>,
    /// Where the camera looks from.
    pub(crate) view: OrbitView,
    /// `#clip`'s value last seen.
    chosen: String,
    /// The crowd, made the first time `#crowd` is ticked (WebGPU only), and whether it shows.
    crowd: Option<PageCrowd>,
    crowd_on: bool,
    /// Characters the crowd gets when it is made.
    pub(crate) crowd_size: u32,
    /// The animation step of this frame, for the crowd's encoder ([`Scene::encode`]).
    step_s: f32,
    /// The slope under the character (`?scene=slope`).
    stage: Option<SlopeStage>,
}

impl Scene {
    /// Loads `glb` onto the canvas's device, builds the renderer for the surface's formats,
    /// frames the camera around the asset, and starts its Walk clip (or its first), or holds
    /// it at `held` seconds, or hands it to the animation graph `graph` (JSON). Fills `#clip`
    /// with the choices. The slope scene (`setup.kind`) stands it on the slope
    /// ([`SlopeStage`], publishing its readings when `setup.test`). A VRM avatar's springs
    /// and node constraints run in its clip's player (the container's
    /// [`player`](AssetContainer::player)) unless `setup.springs` is off; while a time is held
    /// they still step with the page's frames, so hair hangs from a held pose as it would
    /// from a paused character.
    ///
    /// # Errors
    /// A load, renderer, graph or slope error; [`WebError::Graph`] for the slope scene without
    /// a graph.
    pub(crate) fn load(
        page: &Page,
        gpu: &CanvasGpu,
        glb: &[u8],
        held: Option<f32>,
        graph: Option<&str>,
        setup: Setup,
    ) -> Result<Self, WebError> {
        let Setup {
            kind,
            test,
            springs,
        } = setup;
        let options = if springs {
            LoadOptions::default()
        } else {
            LoadOptions::default()
                .with_springs(None)
                .with_node_constraints(false)
        };
        let character = skel::load_gltf(&gpu.ctx, glb, &options)?;
        let renderer = AssetRenderer::new(&gpu.ctx, &character, &gpu.render_format())?;
        let (min, max) = rest_bounds(&character);
        let mut view = OrbitView::framing(min, max, gpu.aspect(), options.handedness);
        if kind == SceneKind::Slope {
            // Nearly from the front and a little higher: the slope, rising across the
            // character, shows as a tilted floor (a drag turns the camera as ever).
            (view.yaw, view.pitch) = crate::SLOPE_VIEW;
        }
        renderer.set_camera(&gpu.ctx.queue, &view.camera(gpu.aspect()));
        page.clear_controls();
        let driven: &[&str] = match kind {
            SceneKind::Slope => &[crate::LOOK_PARAM, crate::LOOK_WEIGHT_PARAM],
            SceneKind::Default => &[],
        };
        let mut graph = graph
            .map(|json| GraphControls::new(page, json, &character.rig, driven))
            .transpose()?;
        let stage = match (kind, graph.as_mut()) {
            (SceneKind::Slope, Some(graph)) => {
                Some(SlopeStage::new(page, gpu, &character.rig, graph, test)?)
            }
            (SceneKind::Slope, None) => {
                return Err(WebError::Graph(
                    "the slope scene needs its graph (its foot placement and look-at)".into(),
                ));
            }
            (SceneKind::Default, _) => None,
        };
        if let Some(stage) = &stage {
            stage.set_camera(&gpu.ctx.queue, &view.camera(gpu.aspect()));
        }
        let mut scene = Self {
            frame: Frame::new(&character),
            player: character.player()?,
            character,
            renderer,
            group: None,
            held,
            graph,
            view,
            chosen: String::new(),
            crowd: None,
            crowd_on: false,
            crowd_size: crate::DEFAULT_CROWD,
            step_s: 0.0,
            stage,
        };
        let first = if scene.graph.is_some() {
            GRAPH_OPTION.to_owned()
        } else {
            let clips = &scene.character.animation.clips;
            clips
                .iter()
                .position(|c| c.name == "Walk")
                .or((!clips.is_empty()).then_some(0))
                .map_or_else(String::new, |c| c.to_string())
        };
        scene.fill_clip_choices(page, &first);
        scene.choose(&first);
        Ok(scene)
    }

    /// The renderer's draw calls per frame.
    pub(crate) fn draw_count(&self) -> usize {
        self.renderer.draw_count()
    }

    /// What drives the character, for the status line.
    pub(crate) fn driver(&self) -> String {
        match (&self.graph, self.group) {
            (Some(_), None) => "its animation graph".to_owned(),
            (_, Some(g)) => self
                .character
                .animation
                .clips
                .get(g)
                .map_or_else(|| "a clip".to_owned(), |c| format!("clip {:?}", c.name)),
            (None, None) => "no clip".to_owned(),
        }
    }

    /// Follows `#clip`, advances what drives the character by `step` seconds (nothing while a
    /// time is held) through the facade's frame ([`Frame::advance`]: bones, node transforms,
    /// animated properties and root motion, written into the renderer), and writes the
    /// camera. On the slope, the look-at's target is the point under `pointer` (normalised
    /// device coordinates).
    ///
    /// # Errors
    /// [`WebError::Graph`] when the graph refuses a parameter; [`WebError::Frame`] for a step
    /// that is not a number.
    pub(crate) fn animate(
        &mut self,
        page: &Page,
        gpu: &CanvasGpu,
        step: f32,
        camera_moved: bool,
        pointer: Option<glam::Vec2>,
    ) -> Result<(), WebError> {
        if let Some(chosen) = page.clip_choice()
            && chosen != self.chosen
        {
            self.choose(&chosen);
        }
        let queue = &gpu.ctx.queue;
        // A held clip plays at speed 0 (see `choose`), so its player still takes the page's
        // step: a VRM's springs go on moving under the held pose. Graphs and crowds hold.
        let spring_step = step;
        let step = if self.held.is_some() { 0.0 } else { step };
        self.step_s = step;
        let mut crowd_on = page.crowd_ticked() && gpu.backend == crate::Backend::WebGpu;
        if crowd_on && self.crowd.is_none() {
            let clip = self.group.or_else(|| {
                let clips = &self.character.animation.clips;
                clips
                    .iter()
                    .position(|c| c.name == "Walk")
                    .or((!clips.is_empty()).then_some(0))
            });
            match PageCrowd::new(gpu, &self.character, clip, self.crowd_size) {
                Ok(crowd) => self.crowd = Some(crowd),
                // An asset without a skinned mesh has no crowd: say so and carry on.
                Err(e) => {
                    page.refuse_crowd(&format!("no crowd of this asset: {e}"));
                    crowd_on = false;
                }
            }
        }
        if crowd_on != self.crowd_on {
            self.crowd_on = crowd_on;
            page.set_data(
                "data-skel-crowd",
                &self
                    .crowd
                    .as_ref()
                    .filter(|_| crowd_on)
                    .map_or(0, |c| c.size)
                    .to_string(),
            );
        }
        if let (Some(graph), None) = (&mut self.graph, self.group) {
            if let Some(stage) = &mut self.stage {
                let camera = self.view.camera(gpu.aspect());
                stage.steer(page, &camera, self.view.target, pointer, graph)?;
            }
            graph.read_controls()?;
            let (character, renderer) = (&mut self.character, &mut self.renderer);
            self.frame
                .advance(&gpu.ctx, character, graph.player_mut(), step, renderer)?;
            graph.show_states(page);
            if let Some(stage) = &self.stage {
                stage.publish(page, graph.world_matrices());
            }
        } else {
            // The chosen clip, or the rest pose (a player without layers).
            let (character, renderer) = (&mut self.character, &mut self.renderer);
            self.frame
                .advance(&gpu.ctx, character, &mut self.player, spring_step, renderer)?;
        }
        if camera_moved {
            let camera = self.view.camera(gpu.aspect());
            self.renderer.set_camera(queue, &camera);
            if let Some(stage) = &self.stage {
                stage.set_camera(queue, &camera);
            }
        }
        Ok(())
    }

    /// Records what must run before the frame's render pass: the crowd's posing upload and
    /// compute skinning, when the crowd shows.
    ///
    /// # Errors
    /// [`WebError::Load`] when the crowd's upload is refused.
    pub(crate) fn encode(
        &mut self,
        gpu: &CanvasGpu,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), WebError> {
        match &mut self.crowd {
            Some(crowd) if self.crowd_on => crowd.animate(gpu, self.step_s, encoder),
            _ => Ok(()),
        }
    }

    /// Records the draws into `pass`: the slope in its scene, then the crowd when it shows,
    /// else the one character.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>) -> Result<(), WebError> {
        if let Some(stage) = &self.stage {
            stage.draw(pass);
        }
        match &self.crowd {
            Some(crowd) if self.crowd_on => {
                crowd.draw(&self.character, pass);
                Ok(())
            }
            _ => Ok(self.renderer.draw(&self.character, pass)?),
        }
    }

    /// Draw calls per frame of what shows.
    pub(crate) fn shown_draw_count(&self) -> usize {
        match &self.crowd {
            Some(crowd) if self.crowd_on => crowd.draw_count(),
            _ => self.renderer.draw_count(),
        }
    }

    /// Plays clip `choice` (its index as text) or hands the character to the graph
    /// ([`GRAPH_OPTION`]); anything else is ignored.
    fn choose(&mut self, choice: &str) {
        self.chosen = choice.to_owned();
        self.group = None;
        self.player.clear_layers();
        if choice == GRAPH_OPTION && self.graph.is_some() {
            return;
        }
        let Ok(g) = choice.parse::<usize>() else {
            return;
        };
        // An index past the clips is refused by the player and leaves the rest pose. A held
        // clip stands still at speed 0 while the player (and its springs) takes the steps.
        let layer = if self.held.is_some() {
            LayerDesc::new(g).speed(0.0)
        } else {
            LayerDesc::new(g)
        };
        if self.player.add_layer(layer).is_ok() {
            if let Some(t) = self.held {
                self.player.seek(t);
            }
            self.group = Some(g);
        }
    }

    /// `#clip`: the graph (when there is one), then every clip by name.
    fn fill_clip_choices(&self, page: &Page, selected: &str) {
        let Some(select) = page.clip_select() else {
            return;
        };
        select.set_inner_html("");
        let document = page.window().document();
        let add = |value: &str, text: &str| {
            let option = document
                .as_ref()
                .and_then(|d| d.create_element("option").ok())
                .and_then(|o| o.dyn_into::<web_sys::HtmlOptionElement>().ok());
            if let Some(option) = option {
                option.set_value(value);
                option.set_text(text);
                option.set_selected(value == selected);
                let _ = select.append_child(&option);
            }
        };
        if self.graph.is_some() {
            add(GRAPH_OPTION, "animation graph");
        }
        for (i, clip) in self.character.animation.clips.iter().enumerate() {
            add(&i.to_string(), &clip.name);
        }
    }
}
