//! The page's orbit camera: it starts as [`Camera::framing`] frames the asset, then a drag turns
//! it around the asset and the wheel moves it closer or further. Plain state, no DOM, so that
//! native tests cover it.

use skel::anim::Handedness;
use skel::render::{Camera, Vec3};

/// Radians per pixel of drag.
const TURN_PER_PIXEL: f32 = 0.01;
/// Wheel units (pixels of `deltaY`) per doubling of the distance.
const WHEEL_PER_DOUBLING: f32 = 500.0;

/// Where the camera looks from: a point on a sphere around `target`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitView {
    /// What the camera looks at.
    pub target: Vec3,
    /// How far away, in world units.
    pub distance: f32,
    /// Radians around the world up axis from the model's front.
    pub yaw: f32,
    /// Radians above the horizon.
    pub pitch: f32,
    handedness: Handedness,
}

impl OrbitView {
    /// The view [`Camera::framing`] picks for the box `min`..`max`, as an orbit.
    ///
    /// ```
    /// use skel::anim::Handedness;
    /// use skel::render::Vec3;
    /// use skel_web::OrbitView;
    ///
    /// let view = OrbitView::framing(Vec3::ZERO, Vec3::ONE, 1.5, Handedness::LeftHanded);
    /// assert!((view.target - Vec3::splat(0.5)).length() < 0.5);
    /// assert!(view.distance > 1.0);
    /// ```
    #[must_use]
    pub fn framing(min: Vec3, max: Vec3, aspect: f32, handedness: Handedness) -> Self {
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                )
            })
            .collect();
        let framed = Camera::framing(&corners, aspect, handedness);
        let mirror = mirror(handedness);
        let back = framed.back * mirror;
        // The framing camera looks along -back at a point near the box centre: the centre's
        // depth along that line.
        let centre = (min + max) * 0.5;
        let distance = (framed.eye - centre).dot(framed.back);
        let distance = if distance.is_finite() && distance > 0.0 {
            distance
        } else {
            1.0
        };
        Self {
            target: framed.eye - framed.back * distance,
            distance,
            yaw: back.x.atan2(back.z),
            pitch: back.y.clamp(-1.0, 1.0).asin(),
            handedness,
        }
    }

    /// Turns by a drag of `dx`, `dy` pixels (right: the camera moves left around the model;
    /// down: it rises) and zooms by `wheel` units of `deltaY` (positive: further away).
    pub fn nudge(&mut self, dx: f32, dy: f32, wheel: f32) {
        if dx.is_finite() {
            self.yaw -= dx * TURN_PER_PIXEL;
        }
        if dy.is_finite() {
            self.pitch = (self.pitch + dy * TURN_PER_PIXEL).clamp(-1.5, 1.5);
        }
        if wheel.is_finite() {
            self.distance *= (wheel / WHEEL_PER_DOUBLING).exp2();
        }
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

fn mirror(handedness: Handedness) -> Vec3 {
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
        }
    }

    #[test]
    fn dragging_turns_and_the_wheel_zooms_without_leaving_the_sphere() {
        let mut view = OrbitView::framing(Vec3::ZERO, Vec3::ONE, 1.0, Handedness::LeftHanded);
        let start = view;
        view.nudge(100.0, 0.0, 0.0);
        assert!((view.yaw - (start.yaw - 1.0)).abs() < 1e-6);
        view.nudge(0.0, 1e6, 0.0);
        assert_eq!(view.pitch, 1.5);
        view.nudge(0.0, 0.0, WHEEL_PER_DOUBLING);
        assert!((view.distance - 2.0 * start.distance).abs() < 1e-5 * start.distance);
        view.nudge(f32::NAN, f32::INFINITY, f32::NAN);
        assert!(view.yaw.is_finite() && view.pitch.is_finite() && view.distance.is_finite());
        let eye = view.camera(1.0).eye;
        assert!(((eye - view.target).length() - view.distance).abs() < 1e-4 * view.distance);
    }
}
