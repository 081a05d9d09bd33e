//! Each character's phase and speed in a crowd: spread so that no two neighbours move alike.

/// Character `index`'s start time as a fraction of the clip (`0..1`) and its playback speed
/// (`0.8..=1.2`): both spread by the golden ratio's fractional part, so that neighbours differ
/// by far more than a frame and no two characters of a grid step in time (a regular spread,
/// `index / count`, would march whole rows in step, and would change every phase when the
/// count changes).
///
/// ```
/// let (phase, speed) = skel_demo::phase_and_speed(0);
/// assert_eq!(phase, 0.0);
/// assert!((0.8..=1.2).contains(&speed));
/// ```
#[must_use]
pub fn phase_and_speed(index: u32) -> (f32, f32) {
    const GOLDEN: f64 = 0.618_033_988_749_895;
    let i = f64::from(index);
    let phase = (i * GOLDEN).fract();
    let speed = 0.8 + 0.4 * (i * GOLDEN * GOLDEN + 0.5).fract();
    #[expect(clippy::cast_possible_truncation, reason = "values in [0, 1.2]")]
    (phase as f32, speed as f32)
}

#[cfg(test)]
mod tests {
    use super::phase_and_speed;

    #[test]
    fn phases_and_speeds_differ_between_neighbours() {
        let all: Vec<(f32, f32)> = (0..16).map(phase_and_speed).collect();
        for (a, b) in all.iter().zip(&all[1..]) {
            assert!((a.0 - b.0).abs() > 0.1, "{a:?} {b:?}");
            assert!((a.1 - b.1).abs() > 0.01, "{a:?} {b:?}");
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

    #[test]
    fn no_two_of_a_grid_start_together() {
        // 100 characters (the page's default crowd): every pair at least 1/400 of a clip apart
        // (a walk cycle of a second: more than a frame at 400 Hz), which a spread by a
        // rational step would not give.
        let mut phases: Vec<f32> = (0..100).map(|i| phase_and_speed(i).0).collect();
        phases.sort_by(f32::total_cmp);
        for pair in phases.windows(2) {
            assert!(pair[1] - pair[0] > 1.0 / 400.0, "{pair:?}");
        }
    }
}
