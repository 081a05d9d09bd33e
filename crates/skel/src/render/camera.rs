//! Automatic framing: a perspective camera that looks at the model from a 3/4 view (front,
//! a little to the right and above) and is pulled back just far enough that every point the
//! model reaches during the clip is on screen.

use glam::{Mat4, Vec3};
use skel_anim::Handedness;

/// Vertical field of view.
const FOV_Y_DEGREES: f32 = 30.0;
/// Yaw of the 3/4 view from the model's front (+Z in glTF), towards +X.
const YAW_DEGREES: f32 = 35.0;
/// Elevation of the view above the horizon.
const PITCH_DEGREES: f32 = 15.0;
/// Fraction of the frame left empty around the model (on each side, in NDC units).
const MARGIN: f32 = 0.08;

/// A camera ready for the shader: view and projection for the chosen handedness, and the
/// directions the lights are placed relative to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// World → view.
    pub view: Mat4,
    /// View → clip (depth 0..1, wgpu's convention).
    pub projection: Mat4,
    /// Eye position in world space.
    pub eye: Vec3,
    /// Screen right, in world space.
    pub right: Vec3,
    /// Screen up, in world space.
    pub up: Vec3,
    /// From the target towards the eye, in world space.
    pub back: Vec3,
}

impl Camera {
    /// `projection · view`.
    #[must_use]
    pub fn view_projection(&self) -> Mat4 {
        self.projection * self.view
    }

    /// A camera on a sphere around `target` (an orbit camera): `yaw` radians around the world
    /// up axis from the model's front (+Z in glTF), `pitch` radians above the horizon,
    /// `distance` away, for an image of aspect `width / height`. Left-handed mode mirrors the
    /// eye as [`framing`](Self::framing) does, so a given yaw shows the same side of the model
    /// in both modes.
    #[must_use]
    pub fn orbit(
        target: Vec3,
        distance: f32,
        yaw: f32,
        pitch: f32,
        aspect: f32,
        handedness: Handedness,
    ) -> Self {
        let distance = if distance.is_finite() && distance > 0.0 {
            distance
        } else {
            1.0
        };
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let pitch = pitch.clamp(-1.5, 1.5);
        let mirror = match handedness {
            Handedness::LeftHanded => Vec3::new(-1.0, 1.0, 1.0),
            Handedness::RightHanded => Vec3::ONE,
        };
        let back = mirror
            * Vec3::new(
                yaw.sin() * pitch.cos(),
                pitch.sin(),
                yaw.cos() * pitch.cos(),
            );
        let world_up = Vec3::Y;
        let (right, up) = match handedness {
            Handedness::RightHanded => {
                let right = (-back).cross(world_up).normalize();
                (right, right.cross(-back))
            }
            Handedness::LeftHanded => {
                let right = world_up.cross(-back).normalize();
                (right, (-back).cross(right))
            }
        };
        let eye = target + back * distance;
        let (near, far) = (distance * 0.01, distance * 100.0);
        let fov = FOV_Y_DEGREES.to_radians();
        let (view, projection) = match handedness {
            Handedness::RightHanded => (
                Mat4::look_at_rh(eye, target, world_up),
                Mat4::perspective_rh(fov, aspect, near, far),
            ),
            Handedness::LeftHanded => (
                Mat4::look_at_lh(eye, target, world_up),
                Mat4::perspective_lh(fov, aspect, near, far),
            ),
        };
        Self {
            view,
            projection,
            eye,
            right,
            up,
            back,
        }
    }

    /// Frames `points` (world-space positions the model reaches over the clip) for an image
    /// of aspect `width / height`.
    ///
    /// The world is glTF's right-handed space or its mirror image (x negated at the roots, the
    /// seed's left-handed default). The left-handed camera mirrors the eye and uses
    /// left-handed view and projection matrices, so both modes give the same picture: the
    /// reflection of the world and the reflection of the camera cancel.
    ///
    /// Empty or non-finite input frames the unit cube around the origin.
    #[must_use]
    pub fn framing(points: &[Vec3], aspect: f32, handedness: Handedness) -> Self {
        let finite: Vec<Vec3> = points.iter().copied().filter(|p| p.is_finite()).collect();
        let points: &[Vec3] = if finite.is_empty() {
            &[Vec3::splat(-0.5), Vec3::splat(0.5)]
        } else {
            &finite
        };
        let (min, max) = points.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let mirror = match handedness {
            Handedness::LeftHanded => Vec3::new(-1.0, 1.0, 1.0),
            Handedness::RightHanded => Vec3::ONE,
        };
        let (yaw, pitch) = (YAW_DEGREES.to_radians(), PITCH_DEGREES.to_radians());
        let back = mirror
            * Vec3::new(
                yaw.sin() * pitch.cos(),
                pitch.sin(),
                yaw.cos() * pitch.cos(),
            );
        let world_up = Vec3::Y;
        // Screen right and up in world space: the same vectors in both modes (up to the mirror
        // of the world), see `look_at` below.
        let right = match handedness {
            Handedness::RightHanded => (-back).cross(world_up).normalize(),
            Handedness::LeftHanded => world_up.cross(-back).normalize(),
        };
        let up = match handedness {
            Handedness::RightHanded => right.cross(-back),
            Handedness::LeftHanded => (-back).cross(right),
        };
        let tan_y = (FOV_Y_DEGREES.to_radians() * 0.5).tan();
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let tan_x = tan_y * aspect;
        // Usable half-extent in NDC after the margin.
        let usable = 1.0 - 2.0 * MARGIN;

        let mut target = (min + max) * 0.5;
        let mut distance = 1.0;
        // Two passes: fit the distance, then re-centre the target on the projected extent
        // (perspective makes the near side look larger) and fit again.
        for _ in 0..3 {
            distance = points
                .iter()
                .map(|&p| {
                    let d = p - target;
                    let (x, y, z) = (d.dot(right), d.dot(up), d.dot(back));
                    (z + x.abs() / (tan_x * usable)).max(z + y.abs() / (tan_y * usable))
                })
                .fold(f32::EPSILON, f32::max);
            // Projected extent from this distance, then shift the target to its middle.
            let (mut lo, mut hi) = (glam::Vec2::splat(f32::INFINITY), glam::Vec2::NEG_INFINITY);
            for &p in points {
                let d = p - target;
                let depth = (distance - d.dot(back)).max(f32::EPSILON);
                let ndc = glam::Vec2::new(d.dot(right) / depth, d.dot(up) / depth);
                lo = lo.min(ndc);
                hi = hi.max(ndc);
            }
            let mid = (lo + hi) * 0.5 * distance;
            target += right * mid.x + up * mid.y;
        }

        let eye = target + back * distance;
        let (near, far) = points.iter().fold((f32::INFINITY, 0.0_f32), |(n, f), &p| {
            let depth = (eye - p).dot(back);
            (n.min(depth), f.max(depth))
        });
        let far = (far * 1.1).max(1e-3);
        let near = (near * 0.9).clamp(far * 1e-4, far * 0.5);
        let fov = FOV_Y_DEGREES.to_radians();
        let (view, projection) = match handedness {
            Handedness::RightHanded => (
                Mat4::look_at_rh(eye, target, world_up),
                Mat4::perspective_rh(fov, aspect, near, far),
            ),
            Handedness::LeftHanded => (
                Mat4::look_at_lh(eye, target, world_up),
                Mat4::perspective_lh(fov, aspect, near, far),
            ),
        };
        Self {
            view,
            projection,
            eye,
            right,
            up,
            back,
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Vec3, Vec4Swizzles};
    use skel_anim::Handedness;

    use super::Camera;

    fn ndc(camera: &Camera, p: Vec3) -> Vec3 {
        let clip = camera.view_projection() * p.extend(1.0);
        clip.xyz() / clip.w
    }

    fn cube(scale: f32, offset: Vec3) -> Vec<Vec3> {
        let mut points = Vec::new();
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            points.push(corner * scale + offset);
        }
        points
    }

    #[test]
    fn every_point_is_inside_the_frame_and_the_frame_is_filled() {
        for aspect in [1.0, 16.0 / 9.0, 0.5] {
            let points = cube(3.0, Vec3::new(10.0, -4.0, 2.0));
            let camera = Camera::framing(&points, aspect, Handedness::RightHanded);
            let (mut max_x, mut max_y) = (0.0_f32, 0.0_f32);
            for &p in &points {
                let n = ndc(&camera, p);
                assert!(n.x.abs() <= 1.0 && n.y.abs() <= 1.0, "{p} → {n} off screen");
                assert!((0.0..=1.0).contains(&n.z), "{p} → depth {} clipped", n.z);
                max_x = max_x.max(n.x.abs());
                max_y = max_y.max(n.y.abs());
            }
            // Tight: one of the axes reaches the margin.
            assert!(max_x.max(max_y) > 0.8, "model too small: {max_x} {max_y}");
        }
    }

    #[test]
    fn left_handed_mirror_world_gives_the_same_picture() {
        let points = cube(1.0, Vec3::new(0.3, 1.0, -0.2));
        let rh = Camera::framing(&points, 1.5, Handedness::RightHanded);
        let mirrored: Vec<Vec3> = points
            .iter()
            .map(|p| p * Vec3::new(-1.0, 1.0, 1.0))
            .collect();
        let lh = Camera::framing(&mirrored, 1.5, Handedness::LeftHanded);
        for (p, m) in points.iter().zip(&mirrored) {
            let (a, b) = (ndc(&rh, *p), ndc(&lh, *m));
            assert!((a - b).abs().max_element() < 1e-5, "{a} vs {b}");
        }
    }

    #[test]
    fn looks_at_the_front_from_the_right_and_above() {
        let camera = Camera::framing(&cube(1.0, Vec3::ZERO), 1.0, Handedness::RightHanded);
        assert!(camera.eye.z > 0.0 && camera.eye.x > 0.0 && camera.eye.y > 0.0);
        // Screen right points to +X-ish, screen up to +Y-ish.
        assert!(camera.right.x > 0.5 && camera.up.y > 0.9);
    }

    #[test]
    fn orbit_looks_at_its_target_from_its_distance() {
        for handedness in [Handedness::RightHanded, Handedness::LeftHanded] {
            let target = Vec3::new(1.0, 2.0, 3.0);
            let c = Camera::orbit(target, 5.0, 0.7, 0.3, 1.5, handedness);
            assert!((c.eye.distance(target) - 5.0).abs() < 1e-4);
            let centre = ndc(&c, target);
            assert!(centre.x.abs() < 1e-4 && centre.y.abs() < 1e-4, "{centre}");
            assert!((0.0..=1.0).contains(&centre.z));
            // A point above the target is above the centre of the picture.
            assert!(ndc(&c, target + Vec3::Y).y > 0.1);
        }
    }

    #[test]
    fn degenerate_input_still_gives_a_finite_camera() {
        for points in [vec![], vec![Vec3::splat(f32::NAN)], vec![Vec3::ONE]] {
            let c = Camera::framing(&points, 1.0, Handedness::LeftHanded);
            assert!(c.view_projection().is_finite(), "{points:?}");
        }
    }
}
