//! What foot placement asks of the world: a ray cast down onto the ground, and the simplest
//! ground there is, a plane.

use glam::Vec3;

use crate::AnimError;

/// Where a ray met the ground: the point and the surface's unit normal there.
///
/// The normal faces the side the ray came from (a ground seen from above has its normal
/// pointing up, whichever way its triangles wind).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundHit {
    /// The point of contact, in the ground's world frame.
    pub point: Vec3,
    /// The surface's unit normal at `point`, facing the ray's origin.
    pub normal: Vec3,
}

/// The ground a character stands on, as foot placement sees it: one ray in, the nearest
/// surface point and its normal out. Implement it over a physics engine's ray cast, a height
/// field, a navigation mesh; [`GroundPlane`] and [`TriangleGround`](crate::TriangleGround)
/// are provided.
///
/// A query is `&self` and `Send + Sync` so that one ground serves many characters at once.
/// [`FootPlacement::solve`](crate::FootPlacement::solve) casts one or two rays per foot per
/// frame and tolerates any answer: a hit whose point or normal is not finite, or whose normal
/// is zero, counts as no hit (the foot is then left where the clip puts it).
///
/// ```
/// use skel_anim::glam::Vec3;
/// use skel_anim::{GroundHit, GroundQuery};
///
/// /// A flat floor at y = 1, as a game might wrap its own collision query.
/// struct Floor;
/// impl GroundQuery for Floor {
///     fn cast(&self, origin: Vec3, dir: Vec3, max_dist: f32) -> Option<GroundHit> {
///         let t = (1.0 - origin.y) / dir.y; // NaN or infinite for a level ray: no hit
///         (t >= 0.0 && t <= max_dist).then(|| GroundHit { point: origin + dir * t, normal: Vec3::Y })
///     }
/// }
/// let hit = Floor.cast(Vec3::new(2.0, 3.0, 0.0), Vec3::NEG_Y, 5.0).unwrap();
/// assert_eq!(hit.point, Vec3::new(2.0, 1.0, 0.0));
/// ```
pub trait GroundQuery: Send + Sync {
    /// The first ground point along the ray `origin + t · dir` for `t` in `0..=max_dist`
    /// (`dir` has unit length; distances are in the ground's world units), or `None` when the
    /// ray meets no ground that far.
    fn cast(&self, origin: Vec3, dir: Vec3, max_dist: f32) -> Option<GroundHit>;
}

/// An infinite plane `normal · p + offset = 0`: level ground, a ramp, the tilted planes of the
/// tests. Costs one dot product per ray.
///
/// ```
/// use skel_anim::glam::Vec3;
/// use skel_anim::{GroundPlane, GroundQuery};
///
/// // A 20° ramp rising towards +z through the origin.
/// let angle = 20_f32.to_radians();
/// let ramp = GroundPlane::through(Vec3::ZERO, Vec3::new(0.0, angle.cos(), -angle.sin()))?;
/// let hit = ramp.cast(Vec3::new(0.0, 5.0, 1.0), Vec3::NEG_Y, 10.0).unwrap();
/// assert!((hit.point.y - angle.tan()).abs() < 1e-6);
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundPlane {
    normal: Vec3,
    offset: f32,
}

impl GroundPlane {
    /// The plane `normal · p + offset = 0`. The normal need not be unit length: both are
    /// divided by its length, so the plane is the one written.
    ///
    /// # Errors
    /// [`AnimError::BadGroundPlane`] when the normal is zero or not finite, or the offset is
    /// not finite.
    pub fn new(normal: Vec3, offset: f32) -> Result<Self, AnimError> {
        let length = normal.length();
        let bad = AnimError::BadGroundPlane {
            normal: normal.to_array(),
            offset,
        };
        if !(length.is_finite() && length > 0.0 && offset.is_finite()) {
            return Err(bad);
        }
        let (normal, offset) = (normal / length, offset / length);
        if normal.is_finite() && offset.is_finite() {
            Ok(Self { normal, offset })
        } else {
            Err(bad)
        }
    }

    /// The plane through `point` with normal `normal`.
    ///
    /// # Errors
    /// [`AnimError::BadGroundPlane`] when the normal is zero or not finite, or the point is
    /// not finite.
    pub fn through(point: Vec3, normal: Vec3) -> Result<Self, AnimError> {
        Self::new(normal, -normal.dot(point))
    }

    /// The plane's unit normal.
    #[must_use]
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// The plane's offset `D` in `N · p + D = 0` (minus its distance from the origin along
    /// the normal).
    #[must_use]
    pub fn offset(&self) -> f32 {
        self.offset
    }

    /// Signed distance of `p` from the plane: positive on the normal's side.
    #[inline]
    #[must_use]
    pub fn distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) + self.offset
    }
}

impl GroundQuery for GroundPlane {
    /// The plane's point on the ray, with the normal turned to face the origin; `None` for a
    /// ray parallel to the plane or pointing away from it.
    #[inline]
    fn cast(&self, origin: Vec3, dir: Vec3, max_dist: f32) -> Option<GroundHit> {
        let along = self.normal.dot(dir);
        let t = -self.distance(origin) / along;
        // A parallel ray gives an infinite or NaN `t`, which fails the test.
        if !(0.0..=max_dist).contains(&t) {
            return None;
        }
        let normal = if along > 0.0 {
            -self.normal
        } else {
            self.normal
        };
        Some(GroundHit {
            point: origin + dir * t,
            normal,
        })
    }
}
