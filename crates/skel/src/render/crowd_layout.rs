//! Where a crowd stands and how it is seen: a square grid on the ground, each character's own
//! phase and speed, and a camera that overlooks them all. `skel render --crowd` and the
//! browser demo place their crowds with these.

use glam::Vec3;
use skel_anim::Handedness;

use super::Camera;

/// Space between neighbours of [`crowd_grid`], as a multiple of one character's footprint.
pub const CROWD_SPACING: f32 = 1.25;
/// The overlooking camera's yaw from the characters' front and its elevation.
const OVERLOOK_YAW_DEGREES: f32 = 30.0;
const OVERLOOK_PITCH_DEGREES: f32 = 30.0;
/// How much of the frame (NDC, each side) the grid may take.
const OVERLOOK_FILL: f32 = 0.9;

/// Character `index`'s start time as a fraction of the clip and its playback speed: spread by
/// the golden ratio, so neighbours differ and no two characters of a grid move alike.
#[must_use]
pub fn phase_and_speed(index: u32) -> (f32, f32) {
    const GOLDEN: f64 = 0.618_033_988_749_895;
    let i = f64::from(index);
    let phase = (i * GOLDEN).fract();
    let speed = 0.8 + 0.4 * (i * GOLDEN * GOLDEN + 0.5).fract();
    #[expect(clippy::cast_possible_truncation, reason = "values in [0, 1.2]")]
    (phase as f32, speed as f32)
}

/// `count` places in a square grid on the ground (`y = 0`), `spacing` apart, centred on the
/// origin: row after row of `ceil(sqrt(count))`.
#[must_use]
pub fn crowd_grid(count: u32, spacing: f32) -> Vec<Vec3> {
    let columns = (1..=count).find(|c| c * c >= count).unwrap_or(1);
    let rows = count.div_ceil(columns);
    #[expect(clippy::cast_precision_loss, reason = "a grid side is far below 2^24")]
    let centre = |n: u32, i: u32| (i as f32 - (n as f32 - 1.0) * 0.5) * spacing;
    (0..count)
        .map(|i| Vec3::new(centre(columns, i % columns), 0.0, centre(rows, i / columns)))
        .collect()
}

/// An orbit camera from the front, a little to the right and well above (so that rows behind
/// show over the ones in front), pulled back just far enough that every point is inside the
/// frame with a margin: the one-character framing's view is too low for a grid.
#[must_use]
pub fn overlook(points: &[Vec3], aspect: f32, handedness: Handedness) -> Camera {
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
    let camera = |target, distance| Camera::orbit(target, distance, yaw, pitch, aspect, handedness);
    let mut distance = radius;
    // Fit the distance, then move the target to the middle of what the points cover on
    // screen (perspective makes the near rows larger) and fit again.
    for _ in 0..3 {
        let extent = |distance| {
            let view_projection = camera(target, distance).view_projection();
            points.iter().fold(
                (glam::Vec2::splat(f32::INFINITY), glam::Vec2::NEG_INFINITY),
                |(lo, hi), &p| {
                    let clip = view_projection * p.extend(1.0);
                    let ndc = if clip.w > 0.0 {
                        glam::Vec2::new(clip.x, clip.y) / clip.w
                    } else {
                        glam::Vec2::splat(f32::INFINITY)
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
    camera(target, distance)
}

#[cfg(test)]
mod tests {
    use super::{crowd_grid as grid, phase_and_speed};

    #[test]
    fn grids_are_square_and_centred() {
        let cells = grid(9, 2.0);
        assert_eq!(cells.len(), 9);
        assert_eq!(cells[0], glam::Vec3::new(-2.0, 0.0, -2.0));
        assert_eq!(cells[4], glam::Vec3::ZERO);
        assert_eq!(cells[8], glam::Vec3::new(2.0, 0.0, 2.0));
        // 10 characters: 4 columns, 3 rows.
        let ten = grid(10, 1.0);
        assert_eq!(ten[3].x, 1.5);
        assert_eq!(ten[9].z, 1.0);
        assert_eq!(grid(1, 5.0), vec![glam::Vec3::ZERO]);
    }

    #[test]
    fn phases_and_speeds_differ_between_neighbours() {
        let all: Vec<(f32, f32)> = (0..16).map(phase_and_speed).collect();
        for (a, b) in all.iter().zip(&all[1..]) {
            assert!((a.0 - b.0).abs() > 0.1, "{a:?} {b:?}");
        }
        assert!(
            all.iter()
                .all(|&(p, s)| (0.0..1.0).contains(&p) && (0.8..=1.2).contains(&s))
        );
        // Character 3 by the rule's definition, with φ − 1 = (√5 − 1) / 2 written out:
        // phase = frac(3 (φ − 1)), speed = 0.8 + 0.4 · frac(3 (φ − 1)² + ½).
        let g = (5.0_f64.sqrt() - 1.0) / 2.0;
        let phase = (3.0 * g).fract();
        let speed = 0.8 + 0.4 * (3.0 * g * g + 0.5).fract();
        let (p, s) = phase_and_speed(3);
        assert!(
            (f64::from(p) - phase).abs() < 1e-6,
            "phase {p} against {phase}"
        );
        assert!(
            (f64::from(s) - speed).abs() < 1e-6,
            "speed {s} against {speed}"
        );
    }
}
