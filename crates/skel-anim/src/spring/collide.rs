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

/// What one collider does to a tail under UniVRM's rule (`SpringBoneCollision.TryCollide`), or
/// `None` where it does not touch. Against three-vrm's ([`distance`]):
/// - an outside sphere's or capsule's radius grows with the node's largest scale;
/// - a capsule measures the tail against the axis point nearest the **bone's head**, not the
///   tail's nearest;
/// - the tail is pushed onto the surface (`head`-relative length restored by the caller) for
///   outside shapes; inside shapes and planes push it by the overlap with no length restored;
/// - a plane's normal is carried as a direction by the node's matrix, not by its inverse
///   transpose.
///
/// Returns the new tail and whether the bone length must be restored.
#[inline]
pub(super) fn univrm(
    shape: &ColliderShape,
    m: &Affine3A,
    head: Vec3A,
    tail: Vec3A,
    r: f32,
) -> Option<(Vec3A, bool)> {
    let scale = m
        .matrix3
        .x_axis
        .length()
        .max(m.matrix3.y_axis.length())
        .max(m.matrix3.z_axis.length());
    let outside = |centre: Vec3A, radius: f32| {
        let reach = r + radius * scale;
        let d = tail - centre;
        (d.length_squared() <= reach * reach)
            .then(|| (centre + d.normalize_or_zero() * reach, true))
    };
    let inside = |d: Vec3A, radius: f32| {
        let distance = radius - r - d.length();
        (distance < 0.0).then(|| (tail + d.normalize_or_zero() * distance, false))
    };
    match *shape {
        ColliderShape::Sphere {
            radius,
            inside: false,
            ..
        } => outside(m.translation, radius),
        ColliderShape::Sphere {
            radius,
            inside: true,
            ..
        } => inside(tail - m.translation, radius),
        ColliderShape::Capsule {
            offset,
            tail: end,
            radius,
            inside: false,
        } => {
            let start = m.translation;
            let axis = m.matrix3 * Vec3A::from(end - offset);
            let length = axis.length();
            if length == 0.0 {
                return outside(start, radius);
            }
            let along = axis / length;
            let dot = along.dot(head - start);
            if dot <= 0.0 {
                outside(start, radius)
            } else if dot >= length {
                outside(start + axis, radius)
            } else {
                outside(start + along * dot, radius)
            }
        }
        ColliderShape::Capsule {
            offset,
            tail: end,
            radius,
            inside: true,
        } => {
            let axis = m.matrix3 * Vec3A::from(end - offset);
            let mut d = tail - m.translation;
            let dot = axis.dot(d);
            let along = axis.length_squared();
            if dot < 0.0 {
            } else if dot > along {
                d -= axis;
            } else if along > 0.0 {
                d -= axis * (dot / along);
            }
            inside(d, radius)
        }
        ColliderShape::Plane { normal, .. } => {
            let n = (m.matrix3 * Vec3A::from(normal)).normalize_or_zero();
            let distance = (tail - m.translation).dot(n) - r;
            (distance < 0.0).then(|| (tail - n * distance, false))
        }
    }
}

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

    #[test]
    fn univrm_measures_a_capsule_from_the_head_and_scales_radii() {
        let capsule = ColliderShape::Capsule {
            offset: Vec3::ZERO,
            tail: Vec3::new(0.0, 2.0, 0.0),
            radius: 0.2,
            inside: false,
        };
        // A bone whose head is below the capsule and whose tail is beside its middle.
        let (head, tail) = (Vec3A::new(0.0, -1.0, 0.0), Vec3A::new(0.1, 1.0, 0.0));
        let (d, _) = distance(&capsule, &Affine3A::IDENTITY, tail, 0.0);
        assert!(
            d < 0.0,
            "three-vrm: the tail's nearest axis point is 0.1 away ({d})"
        );
        assert_eq!(
            univrm(&capsule, &Affine3A::IDENTITY, head, tail, 0.0),
            None,
            "UniVRM: the head's nearest axis point is the capsule's start, 1 away"
        );
        // The head beside the middle too: pushed onto the surface around the head's point.
        let (moved, restore) = univrm(
            &capsule,
            &Affine3A::IDENTITY,
            Vec3A::new(0.0, 1.0, 0.0),
            tail,
            0.0,
        )
        .unwrap();
        assert!(
            (moved - Vec3A::new(0.2, 1.0, 0.0)).length() < 1e-6,
            "{moved}"
        );
        assert!(restore);
        // A ball of radius 0.1 on a node scaled 2 reaches 0.2 in UniVRM, 0.1 in three-vrm.
        let ball = ColliderShape::Sphere {
            offset: Vec3::ZERO,
            radius: 0.1,
            inside: false,
        };
        let m = Affine3A::from_scale(Vec3::splat(2.0));
        let tail = Vec3A::new(0.15, 0.0, 0.0);
        assert!(distance(&ball, &m, tail, 0.0).0 > 0.0);
        let (moved, _) = univrm(&ball, &m, Vec3A::new(0.0, -1.0, 0.0), tail, 0.0).unwrap();
        assert!(
            (moved - Vec3A::new(0.2, 0.0, 0.0)).length() < 1e-6,
            "{moved}"
        );
    }

    #[test]
    fn univrm_pushes_planes_and_inside_shapes_without_restoring_the_length() {
        let floor = ColliderShape::Plane {
            offset: Vec3::ZERO,
            normal: Vec3::Y,
        };
        let (moved, restore) = univrm(
            &floor,
            &Affine3A::IDENTITY,
            Vec3A::new(0.0, 1.0, 0.0),
            Vec3A::new(0.3, -0.05, 0.0),
            0.1,
        )
        .unwrap();
        assert!(
            (moved - Vec3A::new(0.3, 0.1, 0.0)).length() < 1e-6,
            "{moved}"
        );
        assert!(!restore);
        let cage = ColliderShape::Sphere {
            offset: Vec3::ZERO,
            radius: 0.5,
            inside: true,
        };
        let (moved, restore) = univrm(
            &cage,
            &Affine3A::IDENTITY,
            Vec3A::ZERO,
            Vec3A::new(0.0, 0.45, 0.0),
            0.1,
        )
        .unwrap();
        assert!(
            (moved - Vec3A::new(0.0, 0.4, 0.0)).length() < 1e-6,
            "{moved}"
        );
        assert!(!restore);
    }
}
