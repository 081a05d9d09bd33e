//! Properties of `evaluate_sampler`: every interpolation returns the key value at key times,
//! holds the end values outside the keys, LINEAR stays on the segment between two keys (the
//! convex hull), STEP holds the previous key, CUBICSPLINE follows glTF 2.0 Appendix C with the
//! tangents scaled by the key interval, rotations come out unit length along the short arc,
//! and the cursor used for playback gives exactly what a fresh binary search gives.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::sample_f64;
use proptest::prelude::*;
use skel_anim::{
    ChannelPath, Interpolation, Sampler, SamplerCursor, evaluate_sampler, evaluate_sampler_cursor,
};

/// Values at key `k` (the value slot for CUBICSPLINE).
fn key_value(s: &Sampler, k: usize) -> Vec<f32> {
    let c = s.components();
    let at = (k * s.interpolation().outputs_per_key()
        + usize::from(s.interpolation() == Interpolation::CubicSpline))
        * c;
    s.output()[at..at + c].to_vec()
}

fn eval(s: &Sampler, t: f32, is_rotation: bool) -> Vec<f32> {
    let c = s.components();
    // Written at an offset inside a larger buffer, which must be left alone around it.
    let mut out = vec![f32::NAN; c + 5];
    evaluate_sampler(s, t, c, is_rotation, &mut out, 2);
    assert!(out[..2].iter().chain(&out[2 + c..]).all(|v| v.is_nan()));
    out[2..2 + c].to_vec()
}

fn unit(q: &[f32]) -> Vec<f32> {
    let n = q.iter().map(|v| v * v).sum::<f32>().sqrt();
    q.iter().map(|v| v / n).collect()
}

/// A vector-valued sampler (1..5 components, values in ±10) with 1..8 keys.
fn arb_vector_sampler() -> impl Strategy<Value = Sampler> {
    (common::arb_interpolation(), 1_usize..8, 1_usize..5).prop_flat_map(
        |(interpolation, count, components)| {
            (
                common::arb_key_times(count),
                prop::collection::vec(
                    -10.0_f32..10.0,
                    count * interpolation.outputs_per_key() * components,
                ),
            )
                .prop_map(move |(t, v)| Sampler::new(t, v, interpolation).unwrap())
        },
    )
}

/// A sampler for `path` (translation, rotation or scale) or a vector one.
fn arb_sampler() -> impl Strategy<Value = (Sampler, bool)> {
    prop_oneof![
        arb_vector_sampler().prop_map(|s| (s, false)),
        common::arb_trs_sampler(ChannelPath::Translation).prop_map(|s| (s, false)),
        common::arb_trs_sampler(ChannelPath::Rotation).prop_map(|s| (s, true)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn key_times_give_key_values((s, rot) in arb_sampler()) {
        for k in 0..s.input().len() {
            let got = eval(&s, s.input()[k], rot);
            let mut want = key_value(&s, k);
            if rot {
                want = unit(&want);
            }
            for (g, w) in got.iter().zip(&want) {
                prop_assert!((g - w).abs() <= 1e-6 * (1.0 + w.abs()),
                    "{:?} key {} at t = {}: {:?} vs {:?}", s.interpolation(), k, s.input()[k], got, want);
            }
        }
    }

    #[test]
    fn outside_the_keys_the_end_values_hold((s, rot) in arb_sampler(), before in 0.0_f32..100.0, after in 0.0_f32..100.0) {
        let last = s.input().len() - 1;
        let mut first = key_value(&s, 0);
        let mut end = key_value(&s, last);
        if rot {
            first = unit(&first);
            end = unit(&end);
        }
        for (t, want) in [
            (s.start_time() - before, &first),
            (f32::NEG_INFINITY, &first),
            (f32::NAN, &first),
            (s.end_time() + after, &end),
            (f32::INFINITY, &end),
        ] {
            let got = eval(&s, t, rot);
            for (g, w) in got.iter().zip(want) {
                prop_assert!((g - w).abs() <= 1e-6, "t = {}: {:?} vs {:?}", t, got, want);
            }
        }
    }

    #[test]
    fn everything_matches_the_f64_reference((s, rot) in arb_sampler(), u in -0.2_f32..1.2) {
        // STEP, LINEAR (slerp for rotations) and CUBICSPLINE (Appendix C, tangents × key
        // interval), anywhere from a little before the first key to a little after the last.
        let span = s.end_time() - s.start_time();
        let t = s.start_time() + u * span.max(0.5);
        let got = eval(&s, t, rot);
        let want = sample_f64(&s, t, rot);
        let scale = want.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((f64::from(*g) - w).abs() <= 1e-5 * scale,
                "{:?} at t = {}: {:?} vs {:?}", s.interpolation(), t, got, want);
        }
    }

    #[test]
    fn linear_stays_on_the_segment_between_its_keys(
        s in arb_vector_sampler().prop_filter("linear with 2+ keys", |s| s.interpolation() == Interpolation::Linear && s.input().len() > 1),
        pick in any::<prop::sample::Index>(),
        u in 0.0_f32..1.0,
    ) {
        let k = pick.index(s.input().len() - 1);
        let (t0, t1) = (s.input()[k], s.input()[k + 1]);
        let t = t0 + u * (t1 - t0);
        let got = eval(&s, t, false);
        let (a, b) = (key_value(&s, k), key_value(&s, k + 1));
        // Inside the convex hull of the two keys: within the box they span, per component...
        for i in 0..got.len() {
            let (lo, hi) = (a[i].min(b[i]), a[i].max(b[i]));
            let slack = 4.0 * f32::EPSILON * hi.abs().max(lo.abs());
            prop_assert!(got[i] >= lo - slack && got[i] <= hi + slack,
                "component {}: {} outside [{}, {}]", i, got[i], lo, hi);
        }
        // ...and on the segment itself: one fraction for every component, the time's fraction.
        let frac = (f64::from(t) - f64::from(t0)) / (f64::from(t1) - f64::from(t0));
        for i in 0..got.len() {
            let want = f64::from(a[i]) + frac * (f64::from(b[i]) - f64::from(a[i]));
            prop_assert!((f64::from(got[i]) - want).abs() <= 1e-5 * (1.0 + want.abs()));
        }
    }

    #[test]
    fn step_holds_the_previous_key(
        s in arb_vector_sampler().prop_filter("step with 2+ keys", |s| s.interpolation() == Interpolation::Step && s.input().len() > 1),
        pick in any::<prop::sample::Index>(),
        u in 0.0_f32..1.0,
    ) {
        let k = pick.index(s.input().len() - 1);
        let (t0, t1) = (s.input()[k], s.input()[k + 1]);
        let t = (t0 + u * (t1 - t0)).min(t1.next_down());
        prop_assert_eq!(eval(&s, t, false), key_value(&s, k));
    }

    #[test]
    fn rotations_come_out_unit_length_on_the_short_arc(
        s in common::arb_trs_sampler(ChannelPath::Rotation),
        u in -0.2_f32..1.2,
    ) {
        let t = s.start_time() + u * (s.end_time() - s.start_time()).max(0.5);
        let q = eval(&s, t, true);
        let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
        prop_assert!((len - 1.0).abs() < 1e-5, "length {}", len);
        if s.interpolation() == Interpolation::Linear && s.input().len() > 1 && t > s.start_time() && t < s.end_time() {
            // Between keys a and b, the result is within the short angle from a to b of both.
            let k = s.input().iter().rposition(|&x| x <= t).unwrap();
            let (a, b) = (unit(&key_value(&s, k)), unit(&key_value(&s, k + 1)));
            let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
            let full = dot(&a, &b).abs().min(1.0).acos();
            let to_a = dot(&q, &a).abs().min(1.0).acos();
            let to_b = dot(&q, &b).abs().min(1.0).acos();
            prop_assert!(to_a + to_b <= full + 1e-3, "off the short arc: {} + {} > {}", to_a, to_b, full);
        }
    }

    #[test]
    fn the_cursor_gives_what_a_fresh_search_gives(
        (s, rot) in arb_sampler(),
        times in prop::collection::vec(-1.0_f32..8.0, 1..40),
        forward in any::<bool>(),
    ) {
        // Forward playback (sorted times, the cursor's fast path) and random jumps (stale
        // cursors) must both agree bit for bit with a cursor-free evaluation.
        let mut times = times;
        if forward {
            times.sort_by(f32::total_cmp);
        }
        let c = s.components();
        let mut cursor = SamplerCursor::default();
        for t in times {
            let mut with_cursor = vec![0.0; c];
            evaluate_sampler_cursor(&s, t, c, rot, &mut with_cursor, 0, &mut cursor);
            prop_assert_eq!(with_cursor, eval(&s, t, rot), "t = {}", t);
        }
    }
}

#[test]
fn cubicspline_tangents_are_scaled_by_the_key_interval() {
    // One component, keys at t = 1 and t = 3 (td = 2): v0 = 0, out-tangent b0 = 1, v1 = 0,
    // in-tangent a1 = 0. At s = 0.5 (t = 2): p = td · (s³ − 2s² + s) · b0 = 2 · 0.125 = 0.25.
    // Unscaled tangents would give 0.125.
    let s = Sampler::new(
        vec![1.0, 3.0],
        vec![9.0, 0.0, 1.0, 0.0, 0.0, -9.0],
        Interpolation::CubicSpline,
    )
    .unwrap();
    let mut out = [0.0_f32];
    evaluate_sampler(&s, 2.0, 1, false, &mut out, 0);
    assert_eq!(out[0], 0.25);
    // The in-tangent of the next key enters with td · (s³ − s²): at s = 0.5, −0.25 per unit.
    let s = Sampler::new(
        vec![1.0, 3.0],
        vec![9.0, 0.0, 0.0, 1.0, 0.0, -9.0],
        Interpolation::CubicSpline,
    )
    .unwrap();
    evaluate_sampler(&s, 2.0, 1, false, &mut out, 0);
    assert_eq!(out[0], -0.25);
}

#[test]
fn fewer_components_than_stored_reads_a_prefix() {
    // Morph weights: a binding with fewer targets than the sampler reads the first ones.
    let s = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 10.0, 20.0, 1.0, 11.0, 21.0],
        Interpolation::Linear,
    )
    .unwrap();
    let mut out = [f32::NAN; 3];
    evaluate_sampler(&s, 0.5, 2, false, &mut out, 0);
    assert_eq!(out[..2], [0.5, 10.5]);
    assert!(out[2].is_nan());
}

#[test]
#[should_panic(expected = "components")]
fn more_components_than_stored_panics() {
    let s = Sampler::new(
        vec![0.0, 1.0, 2.0],
        vec![0.0, 1.0, 2.0],
        Interpolation::Linear,
    )
    .unwrap();
    let mut out = [0.0_f32; 2];
    evaluate_sampler(&s, 0.5, 2, false, &mut out, 0);
}

#[test]
fn a_single_key_holds_everywhere() {
    for interpolation in [
        Interpolation::Step,
        Interpolation::Linear,
        Interpolation::CubicSpline,
    ] {
        let output = if interpolation == Interpolation::CubicSpline {
            vec![5.0, 1.5, -5.0]
        } else {
            vec![1.5]
        };
        let s = Sampler::new(vec![0.5], output, interpolation).unwrap();
        for t in [-1.0, 0.5, 0.7, 100.0] {
            assert_eq!(eval(&s, t, false), vec![1.5], "{interpolation:?} at {t}");
        }
    }
}
