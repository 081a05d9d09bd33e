//! A camera's frustum as six planes, the form [`CrowdCull`](crate::CrowdCull) tests boxes
//! against.

use glam::{Mat4, Vec4};

/// The six planes (`(n, d)`, `n·p + d ≥ 0` inside, not normalised) of the frustum of
/// `view_projection` (projection · view, WebGPU's clip space: depth from 0 to 1, as glam's
/// `perspective_rh` makes it), in the frame the view takes points from: left, right, bottom,
/// top, near, far. For [`CrowdCull::encode`](crate::CrowdCull::encode).
#[must_use]
pub fn frustum_planes(view_projection: Mat4) -> [Vec4; 6] {
    let r = |i| view_projection.row(i);
    [
        r(3) + r(0),
        r(3) - r(0),
        r(3) + r(1),
        r(3) - r(1),
        r(2),
        r(3) - r(2),
    ]
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3};

    use super::frustum_planes;

    #[test]
    fn frustum_planes_keep_what_the_camera_sees() {
        // 90° square, near 1, far 10, at (1, 2, 3) looking down -z.
        let eye = Vec3::new(1.0, 2.0, 3.0);
        let view = Mat4::look_at_rh(eye, eye - Vec3::Z, Vec3::Y);
        let planes = frustum_planes(
            Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 1.0, 10.0) * view,
        );
        let inside = |p: Vec3| planes.map(|n| n.truncate().dot(p) + n.w >= 0.0);
        assert_eq!(inside(eye + Vec3::new(0.0, 0.0, -5.0)), [true; 6]);
        // Outside exactly one plane each: left, right, bottom, top, near, far.
        for (k, p) in [
            Vec3::new(-6.0, 0.0, -5.0),
            Vec3::new(6.0, 0.0, -5.0),
            Vec3::new(0.0, -6.0, -5.0),
            Vec3::new(0.0, 6.0, -5.0),
            Vec3::new(0.0, 0.0, -0.5),
            Vec3::new(0.0, 0.0, -11.0),
        ]
        .into_iter()
        .enumerate()
        {
            let got = inside(eye + p);
            assert!(
                !got[k] && got.iter().filter(|&&i| !i).count() == 1,
                "{p}: {got:?}"
            );
        }
    }
}
