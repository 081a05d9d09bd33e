//! The mirror plane: what left and right are reflected about, in the asset's frame.

use glam::{Affine3A, DVec3, Mat3, Quat, Vec3, Vec3A};

use crate::{AnimError, Handedness};

/// A plane `normal · x = distance` (unit normal) and the reflection about it,
/// `x ↦ x − 2 (normal · x − distance) normal`: the map that takes a character's left side
/// onto its right.
///
/// [`MirrorMap`](crate::MirrorMap) finds it from the rest pose, or takes one given here
/// ([`MirrorPlane::X`] for a character built about `x = 0`, as most are).
///
/// ```
/// use glam::{Quat, Vec3};
/// use skel_anim::MirrorPlane;
///
/// let plane = MirrorPlane::new(Vec3::X, 1.0)?; // the plane x = 1
/// assert_eq!(plane.reflect_point(Vec3::new(3.0, 2.0, 0.0)), Vec3::new(-1.0, 2.0, 0.0));
/// assert_eq!(plane.reflect_vector(Vec3::new(3.0, 2.0, 0.0)), Vec3::new(-3.0, 2.0, 0.0));
/// // A turn to the left becomes a turn to the right.
/// let left = Quat::from_rotation_y(0.5);
/// assert!(plane.reflect_rotation(left).abs_diff_eq(Quat::from_rotation_y(-0.5), 1e-6));
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MirrorPlane {
    normal: Vec3,
    distance: f32,
}

impl MirrorPlane {
    /// The plane `x = 0`.
    pub const X: Self = Self {
        normal: Vec3::X,
        distance: 0.0,
    };

    /// The plane of points `x` with `normal · x = distance`, the normal normalised here (so
    /// `distance` is in units of the normal's length).
    ///
    /// # Errors
    /// [`AnimError::BadMirrorPlane`] when the normal is zero or not finite or the distance is
    /// not finite.
    pub fn new(normal: Vec3, distance: f32) -> Result<Self, AnimError> {
        let bad = || AnimError::BadMirrorPlane {
            normal: normal.to_array(),
            distance,
        };
        let length = normal.length();
        if !(length.is_finite() && length > 0.0 && distance.is_finite()) {
            return Err(bad());
        }
        Ok(Self {
            normal: normal / length,
            distance: distance / length,
        })
    }

    /// The plane through `point` with `normal`.
    ///
    /// # Errors
    /// As [`MirrorPlane::new`], also when the point is not finite.
    pub fn through(normal: Vec3, point: Vec3) -> Result<Self, AnimError> {
        Self::new(normal, normal.dot(point))
    }

    /// The unit normal.
    #[must_use]
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// The plane's signed distance from the origin along the normal.
    #[must_use]
    pub fn distance(&self) -> f32 {
        self.distance
    }

    /// `p` reflected through the plane.
    #[inline]
    #[must_use]
    pub fn reflect_point(&self, p: Vec3) -> Vec3 {
        p - 2.0 * (self.normal.dot(p) - self.distance) * self.normal
    }

    /// Direction or displacement `v` reflected (the plane's offset does not apply): use it
    /// for root-motion translations, velocities and poles.
    #[inline]
    #[must_use]
    pub fn reflect_vector(&self, v: Vec3) -> Vec3 {
        v - 2.0 * self.normal.dot(v) * self.normal
    }

    /// The rotation `R · rot(q) · R` (`R` the reflection's linear part): the same angle about
    /// the reflected axis, turning the other way. Use it for root-motion turns and target
    /// orientations.
    #[inline]
    #[must_use]
    pub fn reflect_rotation(&self, q: Quat) -> Quat {
        let v = -self.reflect_vector(Vec3::new(q.x, q.y, q.z));
        Quat::from_xyzw(v.x, v.y, v.z, q.w)
    }

    /// The reflection as an affine matrix (determinant −1).
    #[must_use]
    pub fn matrix(&self) -> Affine3A {
        let n = self.normal;
        let linear = Mat3::IDENTITY - 2.0 * Mat3::from_cols(n * n.x, n * n.y, n * n.z);
        Affine3A {
            matrix3: linear.into(),
            translation: Vec3A::from(2.0 * self.distance * n),
        }
    }

    /// The same plane in the world frame the pose pipeline uses for `handedness`
    /// ([`compute_world_matrices`](crate::compute_world_matrices)): a left-handed world has x
    /// negated on every root, so the normal's x is negated. A plane found by a
    /// [`MirrorMap`](crate::MirrorMap) is in the asset's own frame; reflect world-space
    /// targets with this one.
    #[must_use]
    pub fn for_handedness(&self, handedness: Handedness) -> Self {
        match handedness {
            Handedness::RightHanded => *self,
            Handedness::LeftHanded => Self {
                normal: self.normal * Vec3::new(-1.0, 1.0, 1.0),
                distance: self.distance,
            },
        }
    }

    /// The plane between left and right nodes at rest: its normal the normalised sum of
    /// `left − right` over the pairs (each pair's difference turned to agree with the longest
    /// one, so the pairs' order within a pair does not matter), through the average of their
    /// midpoints. `positions` are rest positions in the asset's frame.
    pub(crate) fn between(
        positions: &[DVec3],
        pairs: &[(usize, usize)],
    ) -> Result<Self, AnimError> {
        let apart: Vec<(usize, usize)> = pairs.iter().copied().filter(|&(a, b)| a != b).collect();
        let size = positions.iter().map(|p| p.length()).fold(0.0, f64::max);
        let diff = |(a, b): (usize, usize)| positions[a] - positions[b];
        let longest = apart
            .iter()
            .map(|&p| diff(p))
            .max_by(|x, y| x.length().total_cmp(&y.length()));
        let unknown = AnimError::MirrorPlaneUnknown { pairs: apart.len() };
        let Some(longest) = longest.filter(|d| d.length() > 1e-9 * size && d.is_finite()) else {
            return Err(unknown);
        };
        let mut sum = DVec3::ZERO;
        let mut middle = DVec3::ZERO;
        for &p in &apart {
            let d = diff(p);
            sum += if d.dot(longest) < 0.0 { -d } else { d };
            middle += (positions[p.0] + positions[p.1]) * 0.5;
        }
        let normal = sum.normalize();
        // `apart` is not empty here: `longest` came from it.
        let distance = normal.dot(middle / apart.len() as f64);
        if !normal.is_finite() || !distance.is_finite() {
            return Err(unknown);
        }
        Self::new(normal.as_vec3(), distance as f32)
    }
}
