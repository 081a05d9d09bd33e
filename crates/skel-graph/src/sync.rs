//! Keeping clips in step: where a playhead is in a clip under its loop mode, and the marker
//! phase (Unreal's sync markers) that a follower copies from its leader.

use skel_anim::LoopMode;

/// The clip time of a playhead that has moved `u` seconds from the clip's start (unwrapped:
/// `u` keeps growing over loops), under `mode`. A clip without length stays at 0.
#[must_use]
pub(crate) fn clip_time(u: f64, length: f32, mode: LoopMode) -> f32 {
    let len = f64::from(length);
    if len <= 0.0 || !u.is_finite() {
        return 0.0;
    }
    let t = match mode {
        LoopMode::Repeat => u.rem_euclid(len),
        LoopMode::Once => u.clamp(0.0, len),
        LoopMode::PingPong => {
            let p = u.rem_euclid(2.0 * len);
            if p > len { 2.0 * len - p } else { p }
        }
    };
    #[expect(clippy::cast_possible_truncation, reason = "clip times are f32")]
    let t = t as f32;
    t.min(length)
}

/// Where a playhead is between two markers: the names of the markers at or before it and after
/// it (wrapping around the loop), and the fraction of the way from one to the other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MarkerPhase {
    pub(crate) from: u32,
    pub(crate) to: u32,
    pub(crate) fraction: f32,
}

/// The marker phase of clip time `t` among the `markers` (time order) that `keep` accepts.
/// `None` when none is kept or the clip has no length.
pub(crate) fn marker_phase(
    markers: &[(f32, u32)],
    length: f32,
    t: f32,
    keep: impl Fn(u32) -> bool,
) -> Option<MarkerPhase> {
    if length <= 0.0 {
        return None;
    }
    let mut kept = markers.iter().filter(|m| keep(m.1));
    let first = *kept.next()?;
    let last = markers.iter().rev().find(|m| keep(m.1)).copied()?;
    // The last kept marker at or before t, else the last one a loop earlier; then the kept
    // marker after it (the first one, when a is the last or came from the loop before).
    let (a, a_time, b, b_time) = match markers.iter().rev().find(|m| keep(m.1) && m.0 <= t) {
        Some(&a) => match markers.iter().find(|m| keep(m.1) && m.0 > a.0) {
            Some(&b) => (a, a.0, b, b.0),
            None => (a, a.0, first, first.0 + length),
        },
        None => (last, last.0 - length, first, first.0),
    };
    let span = b_time - a_time;
    let fraction = if span > 0.0 {
        ((t - a_time) / span).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Some(MarkerPhase {
        from: a.1,
        to: b.1,
        fraction,
    })
}

/// The clip time at `phase` among the `markers` `keep` accepts: the same fraction of the way
/// between a kept marker named `phase.from` and the kept marker after it, named `phase.to`.
/// Of several such pairs, the one reached first going forward from `near`. `None` when the
/// clip has no such pair.
pub(crate) fn time_at_phase(
    markers: &[(f32, u32)],
    length: f32,
    phase: MarkerPhase,
    near: f32,
    keep: impl Fn(u32) -> bool,
) -> Option<f32> {
    if length <= 0.0 {
        return None;
    }
    let first = *markers.iter().find(|m| keep(m.1))?;
    let mut best: Option<(f32, f32)> = None;
    for (k, &(a_time, a_name)) in markers.iter().enumerate() {
        if a_name != phase.from || !keep(a_name) {
            continue;
        }
        let (b_time, b_name) = match markers[k + 1..].iter().find(|m| keep(m.1)) {
            Some(&m) => m,
            None => (first.0 + length, first.1),
        };
        if b_name != phase.to {
            continue;
        }
        let b_time = if b_time > a_time {
            b_time
        } else {
            b_time + length
        };
        let t = (a_time + phase.fraction * (b_time - a_time)).rem_euclid(length);
        let ahead = (t - near).rem_euclid(length);
        if best.is_none_or(|(_, d)| ahead < d) {
            best = Some((t, ahead));
        }
    }
    best.map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: u32 = 0;
    const R: u32 = 1;
    const SOUND: u32 = 2;

    #[test]
    fn loop_modes_place_the_playhead() {
        assert!((clip_time(2.5, 1.0, LoopMode::Repeat) - 0.5).abs() < 1e-6);
        assert!((clip_time(-0.25, 1.0, LoopMode::Repeat) - 0.75).abs() < 1e-6);
        assert_eq!(clip_time(2.5, 1.0, LoopMode::Once), 1.0);
        assert!((clip_time(1.25, 1.0, LoopMode::PingPong) - 0.75).abs() < 1e-6);
        assert_eq!(clip_time(3.0, 0.0, LoopMode::Repeat), 0.0);
    }

    #[test]
    fn phase_between_markers_wraps_around_the_loop() {
        let m = [(0.25, L), (0.5, SOUND), (0.75, R)];
        let all = |_| true;
        let p = marker_phase(&m, 1.0, 0.375, |id| id != SOUND).unwrap();
        assert_eq!((p.from, p.to), (L, R));
        assert!((p.fraction - 0.25).abs() < 1e-6);
        // Before the first marker: from the last one a loop earlier.
        let p = marker_phase(&m, 1.0, 0.125, all).unwrap();
        assert_eq!((p.from, p.to), (R, L));
        assert!((p.fraction - 0.75).abs() < 1e-6);
    }

    #[test]
    fn a_follower_takes_the_same_fraction_between_its_own_markers() {
        // Leader: L at 0.1, R at 0.6 of 1 s; follower: L at 0.5, R at 1.5 of 2 s.
        let leader = [(0.1, L), (0.6, R)];
        let follower = [(0.5, L), (1.5, R)];
        let p = marker_phase(&leader, 1.0, 0.35, |_| true).unwrap();
        let t = time_at_phase(&follower, 2.0, p, 0.0, |_| true).unwrap();
        assert!((t - 1.0).abs() < 1e-6, "{t}");
        // Across the wrap: leader at 0.85 (half way R→L), follower half way from 1.5 to 2.5.
        let p = marker_phase(&leader, 1.0, 0.85, |_| true).unwrap();
        let t = time_at_phase(&follower, 2.0, p, 0.0, |_| true).unwrap();
        assert!((t - 0.0).abs() < 1e-5 || (t - 2.0).abs() < 1e-5, "{t}");
        // A follower without the pair has no time.
        assert!(time_at_phase(&[(0.2, SOUND)], 1.0, p, 0.0, |_| true).is_none());
    }

    #[test]
    fn of_two_cycles_the_follower_keeps_the_one_ahead_of_it() {
        let leader = [(0.0, L), (0.5, R)];
        let follower = [(0.0, L), (0.5, R), (1.0, L), (1.5, R)];
        let p = marker_phase(&leader, 1.0, 0.25, |_| true).unwrap();
        assert!((time_at_phase(&follower, 2.0, p, 0.1, |_| true).unwrap() - 0.25).abs() < 1e-6);
        assert!((time_at_phase(&follower, 2.0, p, 0.9, |_| true).unwrap() - 1.25).abs() < 1e-6);
    }
}
