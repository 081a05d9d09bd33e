//! The shortest arc between two unit vectors as three.js computes it, shared by the parts that
//! follow three-vrm to its rounding (spring bones, node constraints).

use glam::{Quat, Vec3A};

/// The rotation taking the unit `from` onto the unit `to`, as three.js's
/// `Quaternion.setFromUnitVectors` computes it (a half turn about an axis across `from` when
/// they are opposite), normalised; the identity for zero input.
pub(crate) fn from_unit_vectors(from: Vec3A, to: Vec3A) -> Quat {
    let r = from.dot(to) + 1.0;
    let q = if r < f32::EPSILON {
        if from.x.abs() > from.z.abs() {
            Quat::from_xyzw(-from.y, from.x, 0.0, 0.0)
        } else {
            Quat::from_xyzw(0.0, -from.z, from.y, 0.0)
        }
    } else {
        let c = from.cross(to);
        Quat::from_xyzw(c.x, c.y, c.z, r)
    };
    let len = q.length();
    if len > 0.0 { q / len } else { Quat::IDENTITY }
}
