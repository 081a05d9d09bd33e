//! From the cursor to a point in the world, for moving an IK target with the mouse: the ray
//! from the camera through a pixel, and where it meets the plane through the target facing
//! the camera. Pure geometry (no window, no GPU), so the rule is tested on its own.
//!
//! Moving a point on the plane that faces the camera keeps it at the depth it had: the
//! target slides under the cursor across the screen, which is what a drag in a 3D viewer
//! means when nothing tells it the depth (Blender's grab, three.js's `DragControls`).

use glam::{Mat4, Vec2, Vec3, Vec4Swizzles as _};

/// A half-line: where it starts and its unit direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// The start, on the near plane.
    pub origin: Vec3,
    /// Unit direction, away from the eye.
    pub dir: Vec3,
}

/// The ray from the eye through pixel `cursor` (physical pixels from the window's top-left
/// corner, as winit reports them) of a window `size` pixels wide and high, for a camera whose
/// `projection · view` is `view_projection` (depth 0..1, wgpu's clip space, either
/// handedness). `None` for an empty window, a non-finite cursor or a singular matrix.
#[must_use]
pub fn cursor_ray(view_projection: Mat4, cursor: Vec2, size: Vec2) -> Option<Ray> {
    if !(size.x > 0.0 && size.y > 0.0 && cursor.is_finite()) {
        return None;
    }
    let det = view_projection.determinant();
    if !(det.is_finite() && det != 0.0) {
        return None;
    }
    let ndc = Vec2::new(2.0 * cursor.x / size.x - 1.0, 1.0 - 2.0 * cursor.y / size.y);
    let inverse = view_projection.inverse();
    let unproject = |depth: f32| {
        let p = inverse * ndc.extend(depth).extend(1.0);
        (p.w != 0.0).then(|| p.xyz() / p.w)
    };
    let (near, far) = (unproject(0.0)?, unproject(1.0)?);
    let dir = (far - near).try_normalize()?;
    near.is_finite().then_some(Ray { origin: near, dir })
}

/// Where `ray` meets the plane through `point` with normal `normal`; `None` when the ray runs
/// along the plane or the plane is behind its start.
#[must_use]
pub fn ray_plane(ray: &Ray, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let across = ray.dir.dot(normal);
    if across.abs() < 1e-6 {
        return None;
    }
    let t = (point - ray.origin).dot(normal) / across;
    let hit = ray.origin + ray.dir * t;
    (t >= 0.0 && hit.is_finite()).then_some(hit)
}

/// The point under pixel `cursor` on the plane through `target` facing the camera (normal
/// `back`, from the target towards the eye): where a dragged target goes.
#[must_use]
pub fn drag_point(
    view_projection: Mat4,
    back: Vec3,
    cursor: Vec2,
    size: Vec2,
    target: Vec3,
) -> Option<Vec3> {
    ray_plane(&cursor_ray(view_projection, cursor, size)?, target, back)
}

#[cfg(test)]
mod tests {
    use glam::{Vec2, Vec3, Vec4Swizzles as _};
    use skel::anim::Handedness;
    use skel::render::Camera;

    use super::{Ray, cursor_ray, drag_point, ray_plane};

    const SIZE: Vec2 = Vec2::new(800.0, 600.0);

    /// The pixel `p` is drawn at.
    fn pixel(camera: &Camera, p: Vec3) -> Vec2 {
        let clip = camera.view_projection() * p.extend(1.0);
        let ndc = clip.xy() / clip.w;
        Vec2::new((ndc.x + 1.0) * 0.5 * SIZE.x, (1.0 - ndc.y) * 0.5 * SIZE.y)
    }

    fn cameras() -> Vec<Camera> {
        [Handedness::LeftHanded, Handedness::RightHanded]
            .into_iter()
            .flat_map(|h| {
                [(0.6, 0.2), (-2.0, 0.9), (3.0, -0.4)].map(|(yaw, pitch)| {
                    Camera::orbit(Vec3::new(0.1, 0.9, -0.2), 4.0, yaw, pitch, 800.0 / 600.0, h)
                })
            })
            .collect()
    }

    #[test]
    fn the_ray_through_a_points_pixel_passes_through_the_point() {
        for camera in cameras() {
            for p in [
                Vec3::new(0.1, 0.9, -0.2),
                Vec3::new(-0.3, 1.5, 0.35),
                Vec3::new(0.5, 0.1, 0.4),
            ] {
                let ray = cursor_ray(camera.view_projection(), pixel(&camera, p), SIZE).unwrap();
                let off = (p - ray.origin).cross(ray.dir).length();
                assert!(off < 1e-4, "{p} is {off} off the ray");
                assert!((p - ray.origin).dot(ray.dir) > 0.0, "{p} is behind the ray");
                // The ray leaves from the eye's side: its direction is the view direction.
                assert!(ray.dir.dot(-camera.back) > 0.5);
            }
        }
    }

    #[test]
    fn a_drag_keeps_the_target_on_its_plane_under_the_cursor() {
        for camera in cameras() {
            let vp = camera.view_projection();
            let target = Vec3::new(-0.3, 1.5, 0.35);
            // Pressing on the target's own pixel leaves it where it is.
            let here = drag_point(vp, camera.back, pixel(&camera, target), SIZE, target).unwrap();
            assert!((here - target).length() < 1e-4, "{here} vs {target}");
            for cursor in [Vec2::new(100.0, 80.0), Vec2::new(700.0, 550.0), SIZE * 0.5] {
                let moved = drag_point(vp, camera.back, cursor, SIZE, target).unwrap();
                // On the plane facing the camera, so at the target's depth...
                assert!((moved - target).dot(camera.back).abs() < 1e-4);
                // ...and drawn under the cursor.
                let seen = pixel(&camera, moved);
                assert!((seen - cursor).length() < 0.05, "{seen} vs {cursor}");
            }
            // Right on screen is the camera's right in the world.
            let start = pixel(&camera, target);
            let right = drag_point(vp, camera.back, start + Vec2::X * 50.0, SIZE, target).unwrap();
            assert!((right - target).normalize().dot(camera.right) > 0.999);
            let up = drag_point(vp, camera.back, start - Vec2::Y * 50.0, SIZE, target).unwrap();
            assert!((up - target).normalize().dot(camera.up) > 0.999);
        }
    }

    #[test]
    fn degenerate_input_gives_no_point() {
        let camera = &cameras()[0];
        let vp = camera.view_projection();
        assert!(cursor_ray(vp, Vec2::new(10.0, 10.0), Vec2::ZERO).is_none());
        assert!(cursor_ray(vp, Vec2::new(f32::NAN, 10.0), SIZE).is_none());
        assert!(cursor_ray(glam::Mat4::ZERO, Vec2::new(10.0, 10.0), SIZE).is_none());
        let ray = Ray {
            origin: Vec3::ZERO,
            dir: Vec3::X,
        };
        // Along the plane, and a plane behind the ray.
        assert!(ray_plane(&ray, Vec3::Y, Vec3::Y).is_none());
        assert!(ray_plane(&ray, -Vec3::X, Vec3::X).is_none());
        assert_eq!(ray_plane(&ray, Vec3::X * 2.0, Vec3::X), Some(Vec3::X * 2.0));
    }
}
