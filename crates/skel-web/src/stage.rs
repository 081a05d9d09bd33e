//! The slope scene on the page (`?scene=slope`): the slope drawn under the character by
//! [`GroundRenderer`], bound as the ground of the graph's foot placement, the pointer turned
//! into the look-at's target every frame, the page's `#feet` and `#look` toggles, and, under
//! `?test=1`, what the browser check reads (`data-skel-slope`).

use std::sync::Arc;

use glam::{Mat4, Vec2, Vec3};
use skel::anim::GroundPlane;
use skel::render::{Camera, GroundRenderer, plane_patch};

use crate::gpu::CanvasGpu;
use crate::graph::GraphControls;
use crate::page::Page;
use crate::{SlopeProbe, WebError};

/// Half the side of the square of slope drawn around the character (world units).
const GROUND_HALF_SIZE: f32 = 2.5;

/// The slope, its drawer, and what the page last told the graph.
pub(crate) struct SlopeStage {
    ground: GroundRenderer,
    plane: GroundPlane,
    probe: SlopeProbe,
    /// `?test=1`: publish [`SlopeProbe`]'s reading every frame.
    test: bool,
    /// The toggles as last applied.
    feet_on: bool,
    look_on: bool,
    /// The look-at's target as last set, and the pointer it came from.
    target: Vec3,
    pointer: Option<Vec2>,
}

impl SlopeStage {
    /// Builds the slope's drawer for the canvas, binds the slope as the graph's ground
    /// ([`GROUND_NAME`](crate::GROUND_NAME)), finds the joints the probe reads, and shows the
    /// page's slope toggles.
    ///
    /// # Errors
    /// [`WebError::Graph`] when the graph places no feet on that ground; [`WebError::Pose`]
    /// when the rig lacks a joint the probe reads; [`WebError::Render`] when the drawer does
    /// not build.
    pub(crate) fn new(
        page: &Page,
        gpu: &CanvasGpu,
        rig: &Arc<skel::anim::Rig>,
        graph: &mut GraphControls,
        test: bool,
    ) -> Result<Self, WebError> {
        let plane = crate::slope_plane()?;
        if !graph
            .player_mut()
            .set_ground(crate::GROUND_NAME, Arc::new(plane))
        {
            return Err(WebError::Graph(format!(
                "the slope scene's graph places no feet on a ground named {:?}",
                crate::GROUND_NAME
            )));
        }
        let triangles = plane_patch(&plane, Vec3::ZERO, GROUND_HALF_SIZE);
        let ground = GroundRenderer::new(&gpu.ctx, &gpu.render_format(), &triangles)?;
        let probe = SlopeProbe::new(rig)?;
        page.show_slope_controls();
        Ok(Self {
            ground,
            plane,
            probe,
            test,
            feet_on: true,
            look_on: true,
            target: Vec3::ZERO,
            pointer: None,
        })
    }

    /// Writes the camera and lights for the slope's draw.
    pub(crate) fn set_camera(&self, queue: &wgpu::Queue, camera: &Camera) {
        self.ground.set_camera(queue, camera);
    }

    /// Before the graph ticks: follows `#feet` (foot placement eased on or off) and `#look`
    /// (the look-at's weight 1 or 0), and sets the look-at's target to the point under
    /// `pointer` (normalised device coordinates; the canvas's middle before the pointer came),
    /// seen by `camera` around `centre`. Allocates nothing.
    ///
    /// # Errors
    /// [`WebError::Graph`] when the graph refuses the look-at's parameters (another graph
    /// than the slope's, without them).
    pub(crate) fn steer(
        &mut self,
        page: &Page,
        camera: &Camera,
        centre: Vec3,
        pointer: Option<Vec2>,
        graph: &mut GraphControls,
    ) -> Result<(), WebError> {
        let refused = |e: skel::graph::GraphError| WebError::Graph(e.to_string());
        let player = graph.player_mut();
        let feet_on = page.feet_ticked();
        if feet_on != self.feet_on {
            if let Some(job) = player.player_mut().foot_placement_mut() {
                job.state.set_active(feet_on);
            }
            self.feet_on = feet_on;
        }
        self.look_on = page.look_ticked();
        let weight = if self.look_on { 1.0 } else { 0.0 };
        let params = player.instance_mut();
        params
            .set_float(crate::LOOK_WEIGHT_PARAM, weight)
            .map_err(refused)?;
        let ndc = pointer.unwrap_or(Vec2::ZERO);
        if let Some(target) = crate::slope_look_target(camera, centre, ndc) {
            params
                .set_vec3(crate::LOOK_PARAM, target)
                .map_err(refused)?;
            self.target = target;
            self.pointer = pointer;
        }
        Ok(())
    }

    /// After the graph posed `world` (by node): under `?test=1`, publishes
    /// `<body data-skel-slope="{…}">` with the toggles, the toes' gaps to the slope (left,
    /// right, and the lower), the head's angle to the target (radians), the target and the
    /// pointer it came from.
    pub(crate) fn publish(&self, page: &Page, world: &[Mat4]) {
        if !self.test {
            return;
        }
        let reading = self.probe.measure(world, &self.plane, self.target);
        let pointer = self
            .pointer
            .map_or_else(|| "null".to_owned(), |p| format!("[{},{}]", p.x, p.y));
        let t = self.target;
        page.set_data(
            "data-skel-slope",
            &format!(
                "{{\"feet_on\":{},\"look_on\":{},\"toe_gap\":[{},{}],\"lowest_gap\":{},\
                 \"head_angle\":{},\"target\":[{},{},{}],\"pointer\":{pointer}}}",
                self.feet_on,
                self.look_on,
                reading.toe_gap[0],
                reading.toe_gap[1],
                reading.lowest_gap(),
                reading.head_angle,
                t.x,
                t.y,
                t.z
            ),
        );
    }

    /// Records the slope's draw into `pass`.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.ground.draw(pass);
    }
}
