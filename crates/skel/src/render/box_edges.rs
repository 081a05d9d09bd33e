//! A box's twelve edges as thin square rods of world-space triangles, for
//! [`GroundRenderer`](super::GroundRenderer) to draw in a character's pass: how a culled
//! crowd shows each character's box (or a picked character its own) without a line pipeline
//! of its own, with depth like the characters'.

use glam::{Mat4, Vec3};

/// The triangles of the edges of the box `min..max` moved by `placement` (any affine matrix:
/// a turned or scaled box stays a parallelepiped), each edge a square rod `thickness` wide in
/// the world, wound outwards; 96 triangles a box. Nothing for a box with a non-finite corner.
///
/// ```
/// use skel::render::{Mat4, Vec3, box_edges};
/// let faces = box_edges(&Mat4::IDENTITY, Vec3::ZERO, Vec3::ONE, 0.01);
/// assert_eq!(faces.len(), 12 * 8);
/// ```
#[must_use]
pub fn box_edges(placement: &Mat4, min: Vec3, max: Vec3, thickness: f32) -> Vec<[Vec3; 3]> {
    let corner = |k: usize| {
        let pick = |bit: usize, a: f32, b: f32| if k & bit == 0 { a } else { b };
        placement.transform_point3(Vec3::new(
            pick(1, min.x, max.x),
            pick(2, min.y, max.y),
            pick(4, min.z, max.z),
        ))
    };
    let corners: [Vec3; 8] = std::array::from_fn(corner);
    if !corners.iter().all(|c| c.is_finite()) {
        return Vec::new();
    }
    let mut faces = Vec::with_capacity(96);
    // The edges join corners whose indices differ in one bit.
    for a in 0..8 {
        for bit in [1, 2, 4] {
            if a & bit == 0 {
                rod(corners[a], corners[a | bit], thickness * 0.5, &mut faces);
            }
        }
    }
    faces
}

/// A square rod from `a` to `b`, `half` from its axis to each side, as eight triangles wound
/// outwards; nothing for a zero-length edge.
fn rod(a: Vec3, b: Vec3, half: f32, faces: &mut Vec<[Vec3; 3]>) {
    let Some(axis) = (b - a).try_normalize() else {
        return;
    };
    let (u, v) = axis.any_orthonormal_pair();
    let (u, v) = (u * half, v * half);
    // The four long corners around the axis, counter-clockwise seen from `b`.
    let around = [u + v, -u + v, -u - v, u - v];
    for k in 0..4 {
        let (p, q) = (around[k], around[(k + 1) % 4]);
        // The side between `p` and `q`: a quad whose outward normal is `p + q`.
        let quad = [a + p, a + q, b + q, b + p];
        let face = |i: usize, j: usize, l: usize| [quad[i], quad[j], quad[l]];
        let (t0, t1) = (face(0, 1, 2), face(0, 2, 3));
        let outward = (t0[1] - t0[0]).cross(t0[2] - t0[0]).dot(p + q) > 0.0;
        if outward {
            faces.extend([t0, t1]);
        } else {
            faces.extend([[t0[0], t0[2], t0[1]], [t1[0], t1[2], t1[1]]]);
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Quat, Vec3};

    use super::box_edges;

    #[test]
    fn the_rods_run_along_the_placed_edges_and_face_outwards() {
        let placement = Mat4::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_y(0.7),
            Vec3::new(1.0, 0.0, -3.0),
        );
        let (min, max) = (Vec3::new(-0.5, 0.0, -0.2), Vec3::new(0.5, 1.8, 0.3));
        let faces = box_edges(&placement, min, max, 0.02);
        assert_eq!(faces.len(), 96);
        let inverse = placement.inverse();
        for [a, b, c] in &faces {
            // Every corner within the rod's half diagonal of the placed box's surface.
            for p in [a, b, c] {
                let local = inverse.transform_point3(*p);
                let outside = (min - local).max(local - max).max(Vec3::ZERO).length();
                assert!(outside <= 2.0 * 0.02 * 0.75, "{p} is {outside} off the box");
            }
        }
        // Each rod's eight faces turn away from its axis: a face's normal is across the axis,
        // so its centroid seen from the rod's middle points along it.
        for rod in faces.chunks(8) {
            let middle = rod.iter().flatten().sum::<Vec3>() / 24.0;
            for [a, b, c] in rod {
                let normal = (*b - *a).cross(*c - *a);
                assert!(
                    normal.dot((*a + *b + *c) / 3.0 - middle) > 0.0,
                    "a face turned inwards"
                );
            }
        }
        // Every placed corner has rods' faces around it.
        for k in 0..8 {
            let pick = |bit: usize, a: f32, b: f32| if k & bit == 0 { a } else { b };
            let corner = placement.transform_point3(Vec3::new(
                pick(1, min.x, max.x),
                pick(2, min.y, max.y),
                pick(4, min.z, max.z),
            ));
            assert!(
                faces
                    .iter()
                    .flatten()
                    .any(|p| (*p - corner).length() < 0.02),
                "no rod at corner {k}"
            );
        }
        assert!(box_edges(&placement, Vec3::NAN, max, 0.02).is_empty());
    }
}
