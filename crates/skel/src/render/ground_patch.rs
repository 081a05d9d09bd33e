//! [`plane_patch`]: the square of a ground plane around a point, as two triangles for
//! [`GroundRenderer`](super::GroundRenderer). Pure geometry, no GPU.

use glam::Vec3;
use skel_anim::GroundPlane;

/// The square of `plane` centred on the point of the plane nearest `around`, `2 × half_size`
/// on a side, as two triangles wound counter-clockwise seen from the normal's side (the side
/// a character stands on). Its sides run along the world x axis projected onto the plane and
/// the direction across it (the z axis's projection for a plane facing x), so that a slope
/// tilted about x or z keeps its checker squares square.
///
/// A `half_size` that is not a finite positive number gives zero-area triangles, which
/// [`GroundRenderer`](super::GroundRenderer) skips.
///
/// ```
/// use skel::anim::GroundPlane;
/// use skel::render::{Vec3, plane_patch};
///
/// let slope = GroundPlane::through(Vec3::ZERO, Vec3::new(-0.3, 1.0, 0.0))?;
/// let triangles = plane_patch(&slope, Vec3::new(0.0, 5.0, 0.0), 2.0);
/// for corner in triangles.iter().flatten() {
///     assert!(slope.distance(*corner).abs() < 1e-5);
/// }
/// # Ok::<(), skel::anim::AnimError>(())
/// ```
#[must_use]
pub fn plane_patch(plane: &GroundPlane, around: Vec3, half_size: f32) -> [[Vec3; 3]; 2] {
    let n = plane.normal();
    let h = if half_size.is_finite() && half_size > 0.0 {
        half_size
    } else {
        0.0
    };
    let around = if around.is_finite() {
        around
    } else {
        Vec3::ZERO
    };
    let centre = around - n * plane.distance(around);
    let axis = if n.x.abs() < 0.9 { Vec3::X } else { Vec3::Z };
    let u = (axis - n * n.dot(axis)).normalize() * h;
    let v = n.cross(u);
    let corner = |su: f32, sv: f32| centre + u * su + v * sv;
    let (a, b, c, d) = (
        corner(-1.0, -1.0),
        corner(1.0, -1.0),
        corner(1.0, 1.0),
        corner(-1.0, 1.0),
    );
    [[a, b, c], [a, c, d]]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planes() -> Vec<GroundPlane> {
        [
            (Vec3::Y, 0.0),
            (Vec3::new(-0.3, 1.0, 0.0), 0.2),
            (Vec3::new(0.0, 1.0, 0.5), -1.0),
            (Vec3::new(1.0, 0.05, 0.0), 3.0),
            (Vec3::new(0.0, -1.0, 0.0), 0.5),
        ]
        .into_iter()
        .map(|(n, d)| GroundPlane::new(n, d).unwrap())
        .collect()
    }

    #[test]
    fn the_patch_lies_on_the_plane_around_the_nearest_point_and_faces_the_normal() {
        let around = Vec3::new(0.4, 2.0, -0.7);
        for plane in planes() {
            let tris = plane_patch(&plane, around, 1.5);
            let corners: Vec<Vec3> = tris.iter().flatten().copied().collect();
            for p in &corners {
                assert!(
                    plane.distance(*p).abs() < 1e-5,
                    "{plane:?}: {p} off the plane"
                );
            }
            // Centred on the foot of the perpendicular from `around`.
            let centre = (tris[0][0] + tris[0][2]) * 0.5;
            let foot = around - plane.normal() * plane.distance(around);
            assert!(
                (centre - foot).length() < 1e-5,
                "{plane:?}: {centre} vs {foot}"
            );
            // 3 × 3 square, both triangles counter-clockwise about the normal.
            let mut area = 0.0;
            for [a, b, c] in tris {
                let cross = (b - a).cross(c - a);
                assert!(
                    cross.dot(plane.normal()) > 0.0,
                    "{plane:?}: wound backwards"
                );
                area += cross.length() * 0.5;
            }
            assert!((area - 9.0).abs() < 1e-4, "{plane:?}: area {area}");
            // Sides of equal length and at right angles.
            let (a, b, c) = (tris[0][0], tris[0][1], tris[0][2]);
            assert!(((b - a).length() - (c - b).length()).abs() < 1e-5);
            assert!((b - a).dot(c - b).abs() < 1e-5);
        }
    }

    #[test]
    fn a_bad_size_or_point_gives_no_area_and_no_nan() {
        let plane = GroundPlane::new(Vec3::Y, 0.0).unwrap();
        for (around, h) in [
            (Vec3::ZERO, 0.0),
            (Vec3::ZERO, -2.0),
            (Vec3::ZERO, f32::NAN),
            (Vec3::splat(f32::INFINITY), f32::INFINITY),
        ] {
            let tris = plane_patch(&plane, around, h);
            for [a, b, c] in tris {
                assert!(
                    a.is_finite() && b.is_finite() && c.is_finite(),
                    "{around} {h}"
                );
                assert_eq!((b - a).cross(c - a).length(), 0.0, "{around} {h}");
            }
        }
    }
}
