//! A tail's sphere against one collider, in world space, as three-vrm 3.5 computes it
//! (`VRMSpringBoneColliderShape*.calculateCollision`): the signed distance between the surfaces
//! (negative: they overlap) and the unit direction that pushes the tail out (in, for an
//! `inside` shape).
//!
//! The collider's matrix is its node's world matrix with the translation moved to the shape's
//! offset. Radii are world lengths: a scaled node moves and stretches a shape's ends but does
//! not grow its radius (three-vrm's rule, kept for parity).

use glam::{Affine3A, Vec3A};

use super::desc::ColliderShape;

/// Where the tail's sphere (centre `p`, radius `r`) stands against `shape` placed by `m`:
/// `(distance, push)`; `push` is only meaningful when `distance < 0`. A tail exactly on a
/// sphere's centre or a capsule's axis has no direction out: it is reported as not touching
/// (three-vrm divides by zero there and puts NaN in the chain).
#[inline]
pub(super) fn distance(shape: &ColliderShape, m: &Affine3A, p: Vec3A, r: f32) -> (f32, Vec3A) {
    match *shape {
        ColliderShape::Sphere { radius, inside, .. } => {
            round_distance(p - m.translation, r, radius, inside)
        }
        ColliderShape::Capsule {
            offset,
            tail,
            radius,
            inside,
        } => {
            let head = m.translation;
            let axis = m.matrix3 * Vec3A::from(tail - offset);
            let along = axis.length_squared();
            let mut d = p - head;
            let dot = axis.dot(d);
            if dot <= 0.0 {
                // Beyond the head: the head's sphere.
            } else if along <= dot {
                d -= axis;
            } else {
                d -= axis * (dot / along);
            }
            round_distance(d, r, radius, inside)
        }
        ColliderShape::Plane { normal, .. } => {
            // The normal through the inverse transpose of the node's linear part (three.js's
            // normal matrix), normalised.
            let n = normal_matrix_apply(m, Vec3A::from(normal)).normalize_or_zero();
            ((p - m.translation).dot(n) - r, n)
        }
    }
}

/// The distance between two spheres' surfaces along `d` (from the shape's nearest point to the
/// tail), and the push direction.
#[inline]
fn round_distance(d: Vec3A, r: f32, radius: f32, inside: bool) -> (f32, Vec3A) {
    let length = d.length();
    let distance = if inside {
        radius - r - length
    } else {
        length - r - radius
    };
    if distance < 0.0 {
        if length <= 0.0 {
            return (0.0, Vec3A::ZERO);
        }
        let out = d / length;
        (distance, if inside { -out } else { out })
    } else {
        (distance, Vec3A::ZERO)
    }
}

/// `v` through the inverse transpose of `m`'s linear part (as `Matrix3.getNormalMatrix`): the
/// cofactor matrix over the determinant, whose sign is kept (a mirrored node flips its plane).
#[inline]
fn normal_matrix_apply(m: &Affine3A, v: Vec3A) -> Vec3A {
    let l = m.matrix3;
    let det = l.determinant();
    if det == 0.0 {
        return Vec3A::ZERO;
    }
    l.inverse().transpose() * v
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    fn at(x: f32, y: f32, z: f32) -> Affine3A {
        Affine3A::from_translation(Vec3::new(x, y, z))
    }

    #[test]
    fn a_sphere_pushes_a_tail_out_and_an_inside_sphere_pushes_it_in() {
        let ball = ColliderShape::Sphere {
            offset: Vec3::ZERO,
            radius: 0.5,
            inside: false,
        };
        let (d, push) = distance(&ball, &at(1.0, 0.0, 0.0), Vec3A::new(1.0, 0.6, 0.0), 0.1);
        assert!((d - (0.6 - 0.1 - 0.5)).abs() < 1e-6, "{d}");
        assert_eq!(d, 0.0_f32.min(d));
        let (d, push2) = distance(&ball, &at(1.0, 0.0, 0.0), Vec3A::new(1.0, 0.3, 0.0), 0.1);
        assert!((d + 0.3).abs() < 1e-6, "{d}");
        assert!((push2 - Vec3A::Y).length() < 1e-6, "{push2}");
        let _ = push;
        let cage = ColliderShape::Sphere {
            offset: Vec3::ZERO,
            radius: 0.5,
            inside: true,
        };
        let (d, push) = distance(&cage, &Affine3A::IDENTITY, Vec3A::new(0.0, 0.45, 0.0), 0.1);
        assert!((d + 0.05).abs() < 1e-6, "{d}");
        assert!((push + Vec3A::Y).length() < 1e-6, "{push}");
    }

    #[test]
    fn a_capsule_measures_from_its_nearest_axis_point() {
        let capsule = ColliderShape::Capsule {
            offset: Vec3::ZERO,
            tail: Vec3::new(0.0, 2.0, 0.0),
            radius: 0.2,
            inside: false,
        };
        // Beside the middle, past the tail, before the head.
        for (p, want, dir) in [
            (Vec3A::new(0.25, 1.0, 0.0), 0.25 - 0.2 - 0.1, Vec3A::X),
            (Vec3A::new(0.0, 2.2, 0.0), 0.2 - 0.2 - 0.1, Vec3A::Y),
            (Vec3A::new(0.0, -0.25, 0.0), 0.25 - 0.2 - 0.1, -Vec3A::Y),
        ] {
            let (d, push) = distance(&capsule, &Affine3A::IDENTITY, p, 0.1);
            assert!((d - want).abs() < 1e-6, "{p}: {d} vs {want}");
            if d < 0.0 {
                assert!((push - dir).length() < 1e-6, "{p}: {push}");
            }
        }
        // A tail on the axis has no way out: left alone, never NaN.
        let (d, push) = distance(
            &capsule,
            &Affine3A::IDENTITY,
            Vec3A::new(0.0, 1.0, 0.0),
            0.1,
        );
        assert_eq!((d, push), (0.0, Vec3A::ZERO));
    }

    #[test]
    fn a_plane_keeps_tails_on_its_normal_side_through_a_scaled_node() {
        let floor = ColliderShape::Plane {
            offset: Vec3::ZERO,
            normal: Vec3::Y,
        };
        // A node squashed in y and sheared in the plane still has +y as its plane's normal.
        let m = Affine3A::from_scale(Vec3::new(2.0, 0.5, 1.0));
        let (d, push) = distance(&floor, &m, Vec3A::new(0.3, 0.05, 0.0), 0.1);
        assert!((d + 0.05).abs() < 1e-6, "{d}");
        assert!((push - Vec3A::Y).length() < 1e-6, "{push}");
    }
}
