//! 2D blend spaces: clips at points of the plane of two parameters, and three rules turning a
//! position into weights (see [`Mode2d`]).

mod gradient_band;
mod triangles;

use glam::Vec2;

use crate::BlendSpaceError;
use crate::blend_space_1d::check_count;

use gradient_band::{Polar, directional_with};
pub use gradient_band::{cartesian_weights, directional_weights};
pub use triangles::Triangulation;

/// How a 2D blend space turns a position into weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode2d {
    /// Godot's `AnimationNodeBlendSpace2D`: a Delaunay triangulation of the points (at least 3,
    /// not all on one line). Inside a triangle, barycentric weights; outside the hull, the
    /// closest point on the hull's edges, with weights `(1 − c, c)` on that edge's two points.
    #[default]
    Triangles,
    /// Unity's Freeform Cartesian (gradient band interpolation, Johansen 2009 §6.3):
    /// `hᵢ = max(0, min_{j≠i} (1 − (x − pᵢ)·(pⱼ − pᵢ) / |pⱼ − pᵢ|²))`, `wᵢ = hᵢ / Σ hₖ`.
    Cartesian,
    /// Unity's Freeform Directional: the same bands over polar differences
    /// `((|b| − |a|) / mₐᵦ, ∠(a, b))` with `mₐᵦ = (|a| + |b|) / 2` (see [`directional_weights`]).
    Directional,
}

/// A 2D blend space: its points and, for [`Mode2d::Triangles`], their triangulation.
///
/// ```
/// use skel_graph::{BlendSpace2d, Mode2d};
/// use glam::Vec2;
/// let points = [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)];
/// let space = BlendSpace2d::new(Mode2d::Triangles, &points)?;
/// let mut w = [0.0; 3];
/// space.weights(Vec2::new(0.25, 0.25), &mut w);
/// assert_eq!(w, [0.5, 0.25, 0.25]);
/// # Ok::<(), skel_graph::BlendSpaceError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BlendSpace2d {
    mode: Mode2d,
    points: Vec<Vec2>,
    triangulation: Option<Triangulation>,
    /// Lengths and pair angles for the directional rule.
    polar: Option<Polar>,
}

impl BlendSpace2d {
    /// A blend space over `points` (weights come back in this order).
    ///
    /// # Errors
    /// [`BlendSpaceError::TooFewPoints`] (none; fewer than 3 for triangles),
    /// [`BlendSpaceError::TooManyPoints`] past [`MAX_POINTS`](crate::MAX_POINTS),
    /// [`BlendSpaceError::NotFinite`], [`BlendSpaceError::Duplicate`], and
    /// [`BlendSpaceError::Collinear`] for triangles over points on one line.
    pub fn new(mode: Mode2d, points: &[Vec2]) -> Result<Self, BlendSpaceError> {
        check_count(points.len(), if mode == Mode2d::Triangles { 3 } else { 1 })?;
        if let Some(point) = points.iter().position(|p| !p.is_finite()) {
            return Err(BlendSpaceError::NotFinite { point });
        }
        for (second, b) in points.iter().enumerate() {
            if let Some(first) = points[..second].iter().position(|a| a == b) {
                return Err(BlendSpaceError::Duplicate { first, second });
            }
        }
        let triangulation = match mode {
            Mode2d::Triangles => Some(Triangulation::new(points)?),
            Mode2d::Cartesian | Mode2d::Directional => None,
        };
        Ok(Self {
            mode,
            points: points.to_vec(),
            triangulation,
            polar: (mode == Mode2d::Directional).then(|| Polar::new(points)),
        })
    }

    /// The rule.
    #[must_use]
    pub fn mode(&self) -> Mode2d {
        self.mode
    }

    /// The points, as given.
    #[must_use]
    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    /// The triangulation (for [`Mode2d::Triangles`]).
    #[must_use]
    pub fn triangulation(&self) -> Option<&Triangulation> {
        self.triangulation.as_ref()
    }

    /// Writes the weight of every point for position `x` into `out[..len]`: they sum to 1.
    /// A NaN coordinate counts as 0. Allocates nothing.
    pub fn weights(&self, x: Vec2, out: &mut [f32]) {
        let x = Vec2::new(finite_or_zero(x.x), finite_or_zero(x.y));
        let out = &mut out[..self.points.len()];
        match (&self.triangulation, self.mode) {
            (Some(t), _) => t.weights(&self.points, x, out),
            (None, Mode2d::Directional) => {
                directional_with(&self.points, self.polar.as_ref(), x, out);
            }
            (None, _) => cartesian_weights(&self.points, x, out),
        }
    }
}

fn finite_or_zero(v: f32) -> f32 {
    if v.is_finite() { v } else { 0.0 }
}
