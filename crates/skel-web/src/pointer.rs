//! From the mouse pointer on the canvas to a point in the world: the ray from the camera
//! through the pointer, met with the plane that faces the camera through a chosen point. The
//! slope scene's look-at follows that point. Plain math on glam types, no DOM, so that native
//! tests cover it.

use glam::{Mat4, Vec2, Vec3};
use skel::render::Camera;

/// Normalised device coordinates (x right, y up, both −1..=1 across the canvas) of the pixel
/// (`x`, `y`) from the canvas's top-left corner, on a canvas `width` × `height` pixels (CSS
/// pixels, as pointer events report them). `None` for an empty or non-finite size or a
/// non-finite position; a position outside the canvas gives coordinates beyond ±1.
#[must_use]
pub fn canvas_ndc(x: f32, y: f32, width: f32, height: f32) -> Option<Vec2> {
    let ok = |v: f32| v.is_finite();
    if !(ok(x) && ok(y) && ok(width) && ok(height) && width > 0.0 && height > 0.0) {
        return None;
    }
    Some(Vec2::new(2.0 * x / width - 1.0, 1.0 - 2.0 * y / height))
}

/// The ray a camera of `view_projection` (`projection · view`, clip depth 0..=1 as wgpu's)
/// sees through `ndc`: its origin on the near plane and its unit direction. `None` when the
/// matrix is not invertible or the point is not finite.
#[must_use]
pub fn pointer_ray(view_projection: Mat4, ndc: Vec2) -> Option<(Vec3, Vec3)> {
    let det = view_projection.determinant();
    if !(det.is_finite() && det != 0.0 && ndc.is_finite()) {
        return None;
    }
    let inverse = view_projection.inverse();
    let near = inverse.project_point3(ndc.extend(0.0));
    let far = inverse.project_point3(ndc.extend(1.0));
    let dir = (far - near).normalize_or_zero();
    (near.is_finite() && dir != Vec3::ZERO).then_some((near, dir))
}

/// The point under the pointer at `ndc`, on the plane that faces `camera` (normal
/// `camera.back`) through `focus`: where a character at `focus` should look for its eyes to
/// follow the pointer. The plane always faces the camera, so every pointer position meets it
/// in front of the eye, unless `focus` is behind the camera (`None`), as for a
/// non-invertible camera.
///
/// ```
/// use skel::anim::Handedness;
/// use skel::render::{Camera, Vec3};
/// use skel_web::look_target;
///
/// let camera = Camera::orbit(Vec3::new(0.0, 1.0, 0.0), 4.0, 0.5, 0.2, 1.5, Handedness::LeftHanded);
/// // The middle of the canvas looks at the orbit's target.
/// let p = look_target(&camera, glam::Vec2::ZERO, Vec3::new(0.0, 1.0, 0.0)).unwrap();
/// assert!((p - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-4);
/// ```
#[must_use]
pub fn look_target(camera: &Camera, ndc: Vec2, focus: Vec3) -> Option<Vec3> {
    let (origin, dir) = pointer_ray(camera.view_projection(), ndc)?;
    let normal = camera.back;
    let facing = dir.dot(normal);
    if !(facing.is_finite() && focus.is_finite()) || facing.abs() < 1e-6 {
        return None;
    }
    let t = (focus - origin).dot(normal) / facing;
    (t.is_finite() && t > 0.0).then(|| origin + dir * t)
}

#[cfg(test)]
mod tests {
    use glam::Vec4Swizzles as _;
    use skel::anim::Handedness;

    use super::*;

    fn cameras() -> Vec<Camera> {
        let mut out = Vec::new();
        for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
            for (yaw, pitch) in [(0.0, 0.0), (0.6, 0.25), (-2.5, -0.4), (3.0, 1.2)] {
                out.push(Camera::orbit(
                    Vec3::new(0.2, 0.9, -0.1),
                    3.5,
                    yaw,
                    pitch,
                    4.0 / 3.0,
                    handedness,
                ));
            }
        }
        out
    }

    #[test]
    fn canvas_pixels_map_to_ndc_corners_and_bad_sizes_to_none() {
        assert_eq!(
            canvas_ndc(0.0, 0.0, 640.0, 480.0),
            Some(Vec2::new(-1.0, 1.0))
        );
        assert_eq!(
            canvas_ndc(640.0, 480.0, 640.0, 480.0),
            Some(Vec2::new(1.0, -1.0))
        );
        assert_eq!(canvas_ndc(320.0, 240.0, 640.0, 480.0), Some(Vec2::ZERO));
        assert_eq!(canvas_ndc(1.0, 1.0, 0.0, 480.0), None);
        assert_eq!(canvas_ndc(f32::NAN, 1.0, 640.0, 480.0), None);
        assert_eq!(canvas_ndc(1.0, 1.0, 640.0, f32::INFINITY), None);
    }

    /// The target projects back to the pointer and lies on the plane facing the camera
    /// through the focus, for cameras all around and in both handednesses.
    #[test]
    fn the_target_is_under_the_pointer_on_the_plane_through_the_focus() {
        let focus = Vec3::new(0.3, 1.4, 0.6);
        for camera in cameras() {
            for ndc in [
                Vec2::ZERO,
                Vec2::new(0.8, 0.6),
                Vec2::new(-0.9, -0.7),
                Vec2::new(0.1, -0.95),
            ] {
                let p = look_target(&camera, ndc, focus).unwrap();
                let clip = camera.view_projection() * p.extend(1.0);
                let back = clip.xy() / clip.w;
                assert!(
                    (back - ndc).length() < 1e-4,
                    "{camera:?}: {ndc} came back as {back}"
                );
                assert!(
                    (p - focus).dot(camera.back).abs() < 1e-4,
                    "{camera:?}: {p} is off the plane through {focus}"
                );
                // In front of the eye.
                assert!((p - camera.eye).dot(camera.back) < 0.0);
            }
        }
    }

    /// Moving the pointer right moves the target to the camera's right, and up moves it up.
    #[test]
    fn the_target_follows_the_pointer_across_the_screen() {
        let focus = Vec3::new(0.0, 1.0, 0.0);
        for camera in cameras() {
            let at = |x: f32, y: f32| look_target(&camera, Vec2::new(x, y), focus).unwrap();
            assert!((at(0.5, 0.0) - at(-0.5, 0.0)).dot(camera.right) > 0.5);
            assert!((at(0.0, 0.5) - at(0.0, -0.5)).dot(camera.up) > 0.5);
        }
    }

    #[test]
    fn a_focus_behind_the_eye_or_a_broken_camera_gives_none() {
        let camera = cameras()[1];
        let behind = camera.eye + camera.back * 2.0;
        assert_eq!(look_target(&camera, Vec2::ZERO, behind), None);
        assert_eq!(look_target(&camera, Vec2::NAN, Vec3::ZERO), None);
        assert_eq!(pointer_ray(Mat4::ZERO, Vec2::ZERO), None);
        let mut broken = camera;
        broken.projection = Mat4::from_cols_array(&[f32::NAN; 16]);
        assert_eq!(look_target(&broken, Vec2::ZERO, Vec3::ZERO), None);
    }
}
