//! Each character's box of a CPU-posed crowd drawn around it (`skel render --crowd --boxes`,
//! `skel view --crowd`): green where [`Crowd::cull`] kept the character, red where it culled
//! it (the character itself is not drawn then), amber for the picked one. The boxes are the
//! crowd's own ([`Crowd::instance_box`]), placed as the renderer places the characters, so
//! the picture shows what the culling tested.

use glam::{Mat4, Vec3};
use skel::Crowd;
use skel::gpu::GpuContext;
use skel::render::{Camera, GroundRenderer, GroundStyle, RenderFormat, box_edges};

use super::RenderError;

/// Kept, culled, picked: linear colours bright enough to read once lit.
const COLORS: [Vec3; 3] = [
    Vec3::new(0.05, 0.8, 0.12),
    Vec3::new(0.9, 0.06, 0.04),
    Vec3::new(1.0, 0.35, 0.02),
];

/// The three sets of boxes and how thick their edges are drawn.
#[derive(Debug)]
pub struct CrowdBoxes {
    drawers: [GroundRenderer; 3],
    thickness: f32,
    faces: [Vec<[Vec3; 3]>; 3],
}

/// Which boxes [`CrowdBoxes::update`] draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boxes {
    /// Every character's, kept, culled and picked.
    All,
    /// The picked character's alone.
    PickedOnly,
}

/// How many characters [`CrowdBoxes::update`] counted in each set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoxCounts {
    /// Kept by the culling.
    pub kept: usize,
    /// Culled (their players visible, their boxes outside the frustum).
    pub culled: usize,
}

impl CrowdBoxes {
    /// Drawers for passes of `format`, edges `thickness` wide in the world.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a drawer's pipeline does not build.
    pub fn new(
        ctx: &GpuContext,
        format: &RenderFormat,
        thickness: f32,
    ) -> Result<Self, RenderError> {
        let drawer = |color: Vec3| -> Result<GroundRenderer, RenderError> {
            let d = GroundRenderer::new(ctx, format, &[])?;
            d.set_style(
                &ctx.queue,
                &GroundStyle {
                    color,
                    checker_side: 0.0,
                    checker_shade: 1.0,
                },
            );
            Ok(d)
        };
        Ok(Self {
            drawers: [drawer(COLORS[0])?, drawer(COLORS[1])?, drawer(COLORS[2])?],
            thickness,
            faces: Default::default(),
        })
    }

    /// Rebuilds the boxes from `crowd`'s last tick and cull: those `shown` of every instance
    /// whose player is visible, placed by `placements`, `picked` (if any) in its own colour;
    /// counts every one.
    pub fn update(
        &mut self,
        ctx: &GpuContext,
        crowd: &Crowd,
        placements: &[Mat4],
        picked: Option<u32>,
        shown: Boxes,
    ) -> BoxCounts {
        for f in &mut self.faces {
            f.clear();
        }
        let mut counts = BoxCounts::default();
        let kept = crowd.visible();
        for (i, (player, placement)) in (0u32..).zip(crowd.players.iter().zip(placements)) {
            if !player.visible() {
                continue;
            }
            let is_kept = kept.binary_search(&i).is_ok();
            if is_kept {
                counts.kept += 1;
            } else {
                counts.culled += 1;
            }
            let set = match (Some(i) == picked, is_kept) {
                (true, _) => 2,
                (false, true) => 0,
                (false, false) => 1,
            };
            // Only the boxes drawn are made (the viewer counts every frame, boxes few).
            if (set == 2 || shown == Boxes::All)
                && let Some((min, max)) = crowd.instance_box(i as usize)
            {
                self.faces[set].extend(box_edges(placement, min, max, self.thickness));
            }
        }
        for (drawer, faces) in self.drawers.iter_mut().zip(&self.faces) {
            drawer.set_triangles(ctx, faces);
        }
        counts
    }

    /// Points every drawer's camera at `camera`.
    pub fn set_camera(&self, queue: &wgpu::Queue, camera: &Camera) {
        for d in &self.drawers {
            d.set_camera(queue, camera);
        }
    }

    /// Draws the boxes into `pass` (after the characters, with their depth).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        for d in &self.drawers {
            d.draw(pass);
        }
    }
}

/// `view_projection` with its frustum narrowed about the picture's centre to `fraction` of
/// its width and height (1: unchanged), for a culling test that shows what it culls inside
/// the picture.
#[must_use]
pub fn narrowed(view_projection: Mat4, fraction: f32) -> Mat4 {
    let s = 1.0 / fraction;
    Mat4::from_scale(Vec3::new(s, s, 1.0)) * view_projection
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3, Vec4};

    use super::narrowed;

    #[test]
    fn a_narrowed_frustum_keeps_the_middle_and_drops_the_edges() {
        let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
        let vp = Mat4::perspective_rh(1.0, 1.0, 0.1, 100.0) * view;
        let inside = |m: Mat4, p: Vec3| {
            let c: Vec4 = m * p.extend(1.0);
            c.x.abs() <= c.w && c.y.abs() <= c.w
        };
        // A point 80 % of the way to the picture's right edge.
        let edge = 5.0 * (0.5_f32).tan();
        let p = Vec3::new(0.8 * edge, 0.0, 0.0);
        assert!(inside(vp, p));
        assert!(!inside(narrowed(vp, 0.5), p));
        assert!(inside(narrowed(vp, 0.5), Vec3::new(0.4 * edge, 0.0, 0.0)));
        assert_eq!(narrowed(vp, 1.0), vp);
    }
}
