//! The crowd's camera: the orbit that overlooks every character from above, as tight as the
//! frame allows.

use glam::{Vec2, Vec3};
use skel::anim::Handedness;
use skel::render::Camera;

use crate::OrbitView;

/// The overlooking camera's yaw from the characters' front, and its elevation: higher than a
/// one-character framing's 15°, so that the rows behind show over the ones in front.
const OVERLOOK_YAW_DEGREES: f32 = 30.0;
const OVERLOOK_PITCH_DEGREES: f32 = 30.0;
/// How much of the frame (NDC, each side) the points may take.
const OVERLOOK_FILL: f32 = 0.9;

impl OrbitView {
    /// An orbit from the front, a little to the right and well above (so that rows behind
    /// show over the ones in front), pulled back just far enough that every one of `points`
    /// is inside the frame of aspect `width / height` with a margin (within 90 % of it each
    /// side), and aimed at the middle of what they cover on screen: the one-character
    /// [`framing`](Self::framing)'s view is too low for a grid. Give it the 8 corners of every
    /// character's box ([`CrowdLayout::corners`](crate::CrowdLayout::corners)).
    ///
    /// ```
    /// use skel::anim::Handedness;
    /// use skel_demo::OrbitView;
    /// use glam::Vec3;
    ///
    /// let grid = [Vec3::new(-3.0, 0.0, -3.0), Vec3::new(3.0, 1.8, 3.0)];
    /// let view = OrbitView::overlook(&grid, 16.0 / 9.0, Handedness::LeftHanded);
    /// assert!(view.pitch > 0.5, "seen from above");
    /// ```
    #[must_use]
    pub fn overlook(points: &[Vec3], aspect: f32, handedness: Handedness) -> Self {
        let finite: Vec<Vec3> = points.iter().copied().filter(|p| p.is_finite()).collect();
        let points: &[Vec3] = if finite.is_empty() {
            &[Vec3::splat(-0.5), Vec3::splat(0.5)]
        } else {
            &finite
        };
        let (lo, hi) = points.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let mut target = (lo + hi) * 0.5;
        let radius = (hi - lo).length().max(1e-3);
        let (yaw, pitch) = (
            OVERLOOK_YAW_DEGREES.to_radians(),
            OVERLOOK_PITCH_DEGREES.to_radians(),
        );
        let camera =
            |target, distance| Camera::orbit(target, distance, yaw, pitch, aspect, handedness);
        let mut distance = radius;
        // Fit the distance, then move the target to the middle of what the points cover on
        // screen (perspective makes the near rows larger) and fit again.
        for _ in 0..3 {
            let extent = |distance| {
                let view_projection = camera(target, distance).view_projection();
                points.iter().fold(
                    (Vec2::splat(f32::INFINITY), Vec2::NEG_INFINITY),
                    |(lo, hi), &p| {
                        let clip = view_projection * p.extend(1.0);
                        let ndc = if clip.w > 0.0 {
                            Vec2::new(clip.x, clip.y) / clip.w
                        } else {
                            Vec2::splat(f32::INFINITY)
                        };
                        (lo.min(ndc), hi.max(ndc))
                    },
                )
            };
            let fits = |distance| {
                let (lo, hi) = extent(distance);
                lo.abs().max(hi.abs()).max_element() <= OVERLOOK_FILL
            };
            // Bisect between a distance inside the points and one far enough for any of them.
            let (mut near, mut far) = (radius * 0.05, radius * 20.0);
            for _ in 0..40 {
                let mid = 0.5 * (near + far);
                if fits(mid) {
                    far = mid;
                } else {
                    near = mid;
                }
            }
            distance = far;
            let (lo, hi) = extent(distance);
            let fitted = camera(target, distance);
            let middle = (lo + hi) * 0.5;
            // NDC → world at the target's depth: 1 / the projection's scale per axis.
            let projection = fitted.projection;
            target += fitted.right * (middle.x * distance / projection.x_axis.x)
                + fitted.up * (middle.y * distance / projection.y_axis.y);
        }
        Self::new(target, distance, yaw, pitch, handedness)
    }
}

#[cfg(test)]
mod tests {
    use glam::{Vec3, Vec4Swizzles};
    use skel::anim::Handedness;

    use crate::OrbitView;
    use crate::orbit::box_corners;

    /// NDC of every point under the overlook of them.
    fn ndc(points: &[Vec3], aspect: f32, handedness: Handedness) -> Vec<Vec3> {
        let vp = OrbitView::overlook(points, aspect, handedness)
            .camera(aspect)
            .view_projection();
        points
            .iter()
            .map(|p| {
                let clip = vp * p.extend(1.0);
                clip.xyz() / clip.w
            })
            .collect()
    }

    #[test]
    fn every_point_is_inside_and_the_frame_is_filled() {
        // A 5 × 5 grid of 1.8 m boxes, 1.5 m apart.
        let points: Vec<Vec3> = (0..25)
            .flat_map(|i| {
                let at = Vec3::new((i % 5) as f32 * 1.5 - 3.0, 0.0, (i / 5) as f32 * 1.5 - 3.0);
                box_corners(at - Vec3::new(0.3, 0.0, 0.3), at + Vec3::new(0.3, 1.8, 0.3))
            })
            .collect();
        for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
            for aspect in [0.5, 4.0 / 3.0, 16.0 / 9.0] {
                let all = ndc(&points, aspect, handedness);
                let widest = all
                    .iter()
                    .map(|p| p.x.abs().max(p.y.abs()))
                    .fold(0.0_f32, f32::max);
                assert!(all.iter().all(|p| p.z > 0.0 && p.z < 1.0), "{all:?}");
                assert!(widest <= 0.9 + 1e-4, "{aspect}: out of frame, {widest}");
                assert!(
                    widest > 0.85,
                    "{aspect}: the grid leaves the frame empty, {widest}"
                );
                // Centred: as much margin left as right, above as below.
                let (lo, hi) = all
                    .iter()
                    .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| {
                        (lo.min(p), hi.max(p))
                    });
                assert!(
                    (lo.x + hi.x).abs() < 0.02 && (lo.y + hi.y).abs() < 0.02,
                    "{lo} {hi}"
                );
            }
        }
    }

    #[test]
    fn the_crowd_is_seen_from_above_and_the_front() {
        let points = box_corners(Vec3::new(-4.0, 0.0, -4.0), Vec3::new(4.0, 1.8, 4.0));
        let view = OrbitView::overlook(&points, 1.0, Handedness::RightHanded);
        let camera = view.camera(1.0);
        assert!(camera.eye.y > 1.8 && camera.eye.z > 4.0, "{camera:?}");
        // Nothing finite: the unit box around the origin, as Camera::framing does.
        let empty = OrbitView::overlook(&[Vec3::NAN], 1.0, Handedness::RightHanded);
        assert!(
            empty.target.length() < 0.5 && empty.distance.is_finite(),
            "{empty:?}"
        );
    }
}
