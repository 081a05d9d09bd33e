//! The selected IK target drawn as a small amber diamond (an octahedron, drawn by
//! `skel::render::GroundRenderer`, which draws any world-space triangles lit by the
//! character's lights): where the target is, seen from any side, so a drag shows what moves
//! even while the operation's weight is 0.

use glam::Vec3;
use skel::gpu::GpuContext;
use skel::render::{GroundRenderer, GroundStyle, RenderFormat};

/// The marker's colour (linear): amber (yellow to orange once lit), which nothing on the
/// built-in character is.
const COLOR: Vec3 = Vec3::new(1.0, 0.35, 0.02);

/// The eight faces of an octahedron centred on `at` with its corners `radius` away along the
/// axes, wound outwards.
#[must_use]
pub fn diamond(at: Vec3, radius: f32) -> Vec<[Vec3; 3]> {
    let (x, y, z) = (Vec3::X * radius, Vec3::Y * radius, Vec3::Z * radius);
    let mut faces = Vec::with_capacity(8);
    for sy in [y, -y] {
        for (a, b) in [(x, z), (z, -x), (-x, -z), (-z, x)] {
            // Counter-clockwise seen from outside: top faces a → b, bottom faces b → a.
            let (a, b) = if sy.y > 0.0 { (b, a) } else { (a, b) };
            faces.push([at + a, at + b, at + sy]);
        }
    }
    faces
}

/// The marker: its drawer and the point it was last drawn at.
#[derive(Debug)]
pub(super) struct Marker {
    drawer: GroundRenderer,
    at: Option<Vec3>,
    radius: f32,
}

impl Marker {
    /// A marker of `radius` for passes of `format` (nothing drawn until [`place`](Self::place)).
    pub(super) fn new(
        ctx: &GpuContext,
        format: &RenderFormat,
        radius: f32,
    ) -> Result<Self, String> {
        let drawer = GroundRenderer::new(ctx, format, &[]).map_err(|e| e.to_string())?;
        drawer.set_style(
            &ctx.queue,
            &GroundStyle {
                color: COLOR,
                checker_side: 0.0,
                checker_shade: 1.0,
            },
        );
        Ok(Self {
            drawer,
            at: None,
            radius,
        })
    }

    /// Puts the marker at `at` (none: hidden); rebuilds its triangles only when it moved.
    pub(super) fn place(&mut self, ctx: &GpuContext, at: Option<Vec3>) {
        if at != self.at {
            let faces = at.map_or_else(Vec::new, |p| diamond(p, self.radius));
            self.drawer.set_triangles(ctx, &faces);
            self.at = at;
        }
    }

    /// The drawer, to set its camera and draw it in the viewer's pass.
    pub(super) fn drawer(&self) -> &GroundRenderer {
        &self.drawer
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::diamond;

    #[test]
    fn the_diamond_surrounds_its_point_with_faces_wound_outwards() {
        let at = Vec3::new(0.3, 1.5, -0.2);
        let faces = diamond(at, 0.05);
        assert_eq!(faces.len(), 8);
        for [a, b, c] in faces {
            let normal = (b - a).cross(c - a);
            let centre = (a + b + c) / 3.0 - at;
            assert!(
                normal.dot(centre) > 0.0,
                "a face turned inwards: {a} {b} {c}"
            );
            for p in [a, b, c] {
                assert!(((p - at).length() - 0.05).abs() < 1e-6);
            }
        }
    }
}
