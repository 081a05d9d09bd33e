//! The demos' orbit camera: it starts where [`Camera::framing`] frames the asset (or where
//! [`OrbitView::overlook`] sees a whole crowd), then a drag turns it around its target, the
//! wheel moves it closer or further, and keys turn it by fixed steps. Plain state, no window
//! and no DOM, so that native unit tests cover what both front ends do with the mouse.

use glam::Vec3;
use skel::anim::Handedness;
use skel::render::Camera;

/// Radians per pixel of drag.
const TURN_PER_PIXEL: f32 = 0.01;
/// Wheel units (pixels of a browser's `deltaY`) per doubling of the distance.
const WHEEL_PER_DOUBLING: f32 = 500.0;
/// The furthest the camera climbs above or dips below the horizon, radians: short of the poles,
/// where the world's up axis and the view direction meet and the picture would spin.
const PITCH_LIMIT: f32 = 1.5;

/// Pixels of wheel one notch of a mouse wheel gives: what browsers report as `deltaY` per
/// notch (Chromium, Firefox in pixel mode), so that a front end counting notches (winit's line
/// deltas) zooms as far per notch as the page does.
pub const WHEEL_NOTCH: f32 = 100.0;

/// Where the camera looks from: a point on a sphere around `target`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitView {
    /// What the camera looks at.
    pub target: Vec3,
    /// How far away, in world units.
    pub distance: f32,
    /// Radians around the world up axis from the model's front (+Z in glTF).
    pub yaw: f32,
    /// Radians above the horizon, within ±1.5 after every [`turn`](Self::turn).
    pub pitch: f32,
    handedness: Handedness,
}

impl OrbitView {
    /// An orbit `distance` from `target` at `yaw` and `pitch` (radians, pitch clamped to
    /// ±1.5), in `handedness`'s world.
    #[must_use]
    pub fn new(target: Vec3, distance: f32, yaw: f32, pitch: f32, handedness: Handedness) -> Self {
        Self {
            target,
            distance,
            yaw,
            pitch: pitch.clamp(-PITCH_LIMIT, PITCH_LIMIT),
            handedness,
        }
    }

    /// The view [`Camera::framing`] picks for the box `min`..`max` (all 8 corners), as an
    /// orbit: the same eye and direction, so that a viewer opens on the picture `skel render`
    /// draws, and the orbit turns around the box's middle.
    ///
    /// ```
    /// use skel::anim::Handedness;
    /// use skel_demo::OrbitView;
    /// use glam::Vec3;
    ///
    /// let view = OrbitView::framing(Vec3::ZERO, Vec3::ONE, 1.5, Handedness::LeftHanded);
    /// assert!((view.target - Vec3::splat(0.5)).length() < 0.5);
    /// assert!(view.distance > 1.0);
    /// ```
    #[must_use]
    pub fn framing(min: Vec3, max: Vec3, aspect: f32, handedness: Handedness) -> Self {
        let framed = Camera::framing(&box_corners(min, max), aspect, handedness);
        // The framing camera looks along -back at a point near the box centre: the centre's
        // depth along that line.
        let centre = (min + max) * 0.5;
        let distance = (framed.eye - centre).dot(framed.back);
        let distance = if distance.is_finite() && distance > 0.0 {
            distance
        } else {
            1.0
        };
        Self::looking_along(
            framed.eye - framed.back * distance,
            distance,
            framed.back,
            handedness,
        )
    }

    /// The orbit whose camera looks at `target` from `distance` along `back` (from the target
    /// towards the eye, in `handedness`'s world, as [`Camera::back`] gives it).
    pub(crate) fn looking_along(
        target: Vec3,
        distance: f32,
        back: Vec3,
        handedness: Handedness,
    ) -> Self {
        // Camera::orbit mirrors the eye in a left-handed world; undo it to read yaw and pitch.
        let back = back * mirror(handedness);
        Self::new(
            target,
            distance,
            back.x.atan2(back.z),
            back.y.clamp(-1.0, 1.0).asin(),
            handedness,
        )
    }

    /// Turns by `yaw` radians around the world up axis and `pitch` radians upwards, the pitch
    /// held within ±1.5 (past the limit a turn back takes effect at once: no dead zone). A
    /// non-finite step is ignored.
    pub fn turn(&mut self, yaw: f32, pitch: f32) {
        if yaw.is_finite() {
            self.yaw += yaw;
        }
        if pitch.is_finite() {
            self.pitch = (self.pitch + pitch).clamp(-PITCH_LIMIT, PITCH_LIMIT);
        }
    }

    /// Turns by a drag of `dx`, `dy` pixels (right: the camera moves left around the model, as
    /// if the model were turned with the pointer; down: it rises) and zooms by `wheel` pixels
    /// of a browser's `deltaY` (positive, scrolling down: further away; [`WHEEL_NOTCH`] per
    /// notch), a doubling of the distance per 500. Non-finite input is ignored.
    pub fn nudge(&mut self, dx: f32, dy: f32, wheel: f32) {
        self.turn(-dx * TURN_PER_PIXEL, dy * TURN_PER_PIXEL);
        if wheel.is_finite() {
            self.distance *= (wheel / WHEEL_PER_DOUBLING).exp2();
        }
    }

    /// The world this orbit was made for (the camera mirrors the eye in a left-handed one).
    #[must_use]
    pub fn handedness(&self) -> Handedness {
        self.handedness
    }

    /// The camera for an image of aspect `width / height`.
    #[must_use]
    pub fn camera(&self, aspect: f32) -> Camera {
        Camera::orbit(
            self.target,
            self.distance,
            self.yaw,
            self.pitch,
            aspect,
            self.handedness,
        )
    }
}

/// The 8 corners of the box `min`..`max`.
pub(crate) fn box_corners(min: Vec3, max: Vec3) -> [Vec3; 8] {
    std::array::from_fn(|i| {
        Vec3::new(
            if i & 1 == 0 { min.x } else { max.x },
            if i & 2 == 0 { min.y } else { max.y },
            if i & 4 == 0 { min.z } else { max.z },
        )
    })
}

/// The left-handed world is glTF's mirrored in x.
pub(crate) fn mirror(handedness: Handedness) -> Vec3 {
    match handedness {
        Handedness::LeftHanded => Vec3::new(-1.0, 1.0, 1.0),
        Handedness::RightHanded => Vec3::ONE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-4 * (1.0 + b.length())
    }

    #[test]
    fn the_orbit_starts_where_framing_looks_from() {
        for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
            let (min, max) = (Vec3::new(-0.4, 0.0, -0.2), Vec3::new(0.4, 1.8, 0.3));
            let corners: Vec<Vec3> = (0..8)
                .map(|i| {
                    Vec3::select(
                        glam::BVec3::new(i & 1 == 0, i & 2 == 0, i & 4 == 0),
                        min,
                        max,
                    )
                })
                .collect();
            let framed = Camera::framing(&corners, 4.0 / 3.0, handedness);
            let view = OrbitView::framing(min, max, 4.0 / 3.0, handedness);
            let orbit = view.camera(4.0 / 3.0);
            assert!(
                close(orbit.eye, framed.eye),
                "{handedness:?}: {orbit:?} vs {framed:?}"
            );
            assert!(close(orbit.back, framed.back), "{handedness:?}");
            assert_eq!(view.handedness(), handedness);
        }
    }

    #[test]
    fn dragging_turns_and_the_wheel_zooms_without_leaving_the_sphere() {
        let mut view = OrbitView::framing(Vec3::ZERO, Vec3::ONE, 1.0, Handedness::LeftHanded);
        let start = view;
        view.nudge(100.0, 0.0, 0.0);
        assert!((view.yaw - (start.yaw - 1.0)).abs() < 1e-6);
        view.nudge(0.0, 0.0, WHEEL_PER_DOUBLING);
        assert!((view.distance - 2.0 * start.distance).abs() < 1e-5 * start.distance);
        // Five notches towards the user (a winit line delta of +1 each is -WHEEL_NOTCH):
        // 2^(-1) of the distance.
        view.nudge(0.0, 0.0, -5.0 * WHEEL_NOTCH);
        assert!((view.distance - start.distance).abs() < 1e-5 * start.distance);
        view.nudge(f32::NAN, f32::INFINITY, f32::NAN);
        assert!(view.yaw.is_finite() && view.pitch.is_finite() && view.distance.is_finite());
        let eye = view.camera(1.0).eye;
        assert!(((eye - view.target).length() - view.distance).abs() < 1e-4 * view.distance);
    }

    #[test]
    fn the_pitch_stops_short_of_the_pole_and_turns_back_at_once() {
        let mut view = OrbitView::new(Vec3::ZERO, 3.0, 0.0, 0.2, Handedness::RightHanded);
        view.nudge(0.0, 1e6, 0.0);
        assert_eq!(view.pitch, PITCH_LIMIT);
        // Dragged far past the limit, a small drag back moves the camera at once (the state
        // never went past the limit, so there is nothing to take back first).
        view.nudge(0.0, 1e4, 0.0);
        view.turn(0.0, -0.1);
        assert!((view.pitch - (PITCH_LIMIT - 0.1)).abs() < 1e-6);
        let camera = view.camera(1.0);
        assert!(camera.eye.y > 2.9, "{camera:?}");
        assert_eq!(
            OrbitView::new(Vec3::ZERO, 1.0, 0.0, -9.0, Handedness::LeftHanded).pitch,
            -PITCH_LIMIT
        );
    }

    #[test]
    fn a_yaw_shows_the_same_side_in_both_worlds() {
        // The left-handed world is the right-handed one mirrored in x, and so is its eye.
        let rh = OrbitView::new(Vec3::Y, 4.0, 0.6, 0.3, Handedness::RightHanded).camera(1.5);
        let lh = OrbitView::new(Vec3::Y, 4.0, 0.6, 0.3, Handedness::LeftHanded).camera(1.5);
        assert!(close(lh.eye, rh.eye * Vec3::new(-1.0, 1.0, 1.0)));
        assert!(rh.eye.x > 0.0, "yaw turns the eye towards +x: {rh:?}");
        // Read back from the camera's direction, the orbit is the same one.
        let again = OrbitView::looking_along(Vec3::Y, 4.0, lh.back, Handedness::LeftHanded);
        assert!((again.yaw - 0.6).abs() < 1e-5 && (again.pitch - 0.3).abs() < 1e-5);
    }
}
